/* graph-model.h: CtGraphModel, the plain data the graph canvas, the layout
 * and the renderer draw: nodes (a layer each) with bottom ports (the blobs
 * they read) and top ports (the blobs they write), and edges from a top port
 * to a bottom port labelled with the blob's name and shape.
 *
 * The model knows nothing of nets or of GTK: app/net-graph.c derives one
 * from a NetParameter, tests build them by hand. It is reference counted and
 * treated as immutable once handed to a view: to change the graph, build a
 * new model and give it to the view, which keeps the positions of nodes
 * whose id it already knows (see ct_graph_view_set_model()).
 *
 * Indices: nodes and edges are numbered in the order they were added; ports
 * are numbered per node, bottoms and tops separately. Strings are copied. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The palette's families; the renderer colours nodes by them. */
typedef enum {
  CT_GRAPH_FAMILY_DATA,
  CT_GRAPH_FAMILY_VISION,
  CT_GRAPH_FAMILY_NEURON,
  CT_GRAPH_FAMILY_NORMALIZATION,
  CT_GRAPH_FAMILY_COMMON,
  CT_GRAPH_FAMILY_LOSS,
  CT_GRAPH_FAMILY_RECURRENT,
  CT_GRAPH_FAMILY_UTILITY,
  CT_GRAPH_FAMILY_OTHER,   /* unknown types (custom layers, forks) */
  CT_GRAPH_N_FAMILIES
} CtGraphFamily;

/* Which phases a node belongs to, for the "both phases" view. */
typedef enum {
  CT_GRAPH_PHASE_ALL,      /* no mark */
  CT_GRAPH_PHASE_TRAIN,    /* only in TRAIN: marked "TRAIN" */
  CT_GRAPH_PHASE_TEST,     /* only in TEST: marked "TEST" */
} CtGraphPhase;

/* A layer folded into the node it follows (ReLU, Dropout, BatchNorm, Scale
 * computing in place on the node's top). */
typedef struct {
  char *id;                /* stable identity, usually the layer name */
  char *name;
  char *type;
  CtGraphFamily family;
  char *error;             /* NULL when valid */
} CtGraphFolded;

typedef struct {
  char *id;                /* stable and unique within a model (layer name) */
  char *name;              /* shown; usually == id */
  char *type;              /* "Convolution" */
  CtGraphFamily family;
  CtGraphPhase phase;
  char *error;             /* NULL when valid; shown as tooltip, red outline */
  char *detail;            /* optional second line ("5×5, 20 out"), or NULL */
  GPtrArray *bottoms;      /* char*: the blob name of each bottom port */
  GPtrArray *tops;         /* char*: the blob name of each top port */
  GPtrArray *folded;       /* CtGraphFolded*, in net order */
} CtGraphNode;

typedef struct {
  guint from_node;         /* node index */
  guint from_port;         /* index among from_node's tops */
  guint to_node;
  guint to_port;           /* index among to_node's bottoms */
  char *blob;              /* the blob's name */
  char *shape;             /* "64×1×28×28", or NULL when not inferred */
} CtGraphEdge;

typedef struct _CtGraphModel CtGraphModel;

CtGraphModel *ct_graph_model_new (void);
CtGraphModel *ct_graph_model_ref (CtGraphModel *model);
void ct_graph_model_unref (CtGraphModel *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtGraphModel, ct_graph_model_unref)

/* Building. ID must be unique: a second node with the same id gets a
 * suffix ("relu1#2") so the model stays usable; the id actually used is in
 * the returned node's id. Returns the new node's index. */
guint ct_graph_model_add_node (CtGraphModel *model, const char *id, const char *name,
                               const char *type, CtGraphFamily family);
/* Add a port; returns its index among the node's bottoms/tops. */
guint ct_graph_model_add_bottom (CtGraphModel *model, guint node, const char *blob);
guint ct_graph_model_add_top (CtGraphModel *model, guint node, const char *blob);
void ct_graph_model_set_error (CtGraphModel *model, guint node, const char *error);
void ct_graph_model_set_detail (CtGraphModel *model, guint node, const char *detail);
void ct_graph_model_set_phase (CtGraphModel *model, guint node, CtGraphPhase phase);
/* Fold an in-place layer into NODE. ERROR may be NULL. */
void ct_graph_model_add_folded (CtGraphModel *model, guint node, const char *id,
                                const char *name, const char *type, CtGraphFamily family,
                                const char *error);
/* Connect FROM_NODE's top FROM_PORT to TO_NODE's bottom TO_PORT. SHAPE may
 * be NULL. Returns the edge's index. Ports must exist. */
guint ct_graph_model_add_edge (CtGraphModel *model, guint from_node, guint from_port,
                               guint to_node, guint to_port, const char *blob,
                               const char *shape);

/* Reading. Returned structs are borrowed and live as long as the model. */
guint ct_graph_model_n_nodes (const CtGraphModel *model);
const CtGraphNode *ct_graph_model_get_node (const CtGraphModel *model, guint node);
guint ct_graph_model_n_edges (const CtGraphModel *model);
const CtGraphEdge *ct_graph_model_get_edge (const CtGraphModel *model, guint edge);
/* The index of the node with ID (also the ids of folded layers, which find
 * the node they are folded into), or -1. */
int ct_graph_model_find_node (const CtGraphModel *model, const char *id);
/* Edges into / out of NODE, as a borrowed array of edge indices. */
const guint *ct_graph_model_node_in_edges (const CtGraphModel *model, guint node, guint *n_out);
const guint *ct_graph_model_node_out_edges (const CtGraphModel *model, guint node,
                                            guint *n_out);
/* Whether any node or folded layer has an error. */
guint ct_graph_model_n_errors (const CtGraphModel *model);

/* The family's English name ("Vision"), untranslated, for debugging/tests. */
const char *ct_graph_family_to_string (CtGraphFamily family);

G_END_DECLS
