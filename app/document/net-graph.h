/* net-graph.h: the graph the workbench and `cortado-cli draw` show for a
 * NetParameter. GTK-free.
 *
 * A node per layer kept in the phase shown (the engine's include/exclude
 * filtering, through ct_net_infer_shapes()); in "both phases" every layer
 * appears, phase-specific ones marked TRAIN or TEST, and a consumer present
 * in both phases is fed by the producers of both. In-place layers (one
 * bottom, one top of the same name: ReLU, Dropout, BatchNorm, Scale, ...)
 * are folded into the node that last wrote that blob. A blob read by
 * several layers is one top port with several edges. Edges carry the blob's
 * inferred shape ("64×20×24×24"); layers the engine cannot set up carry its
 * error. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "graph-model.h"

G_BEGIN_DECLS

typedef enum {
  CT_NET_GRAPH_PHASE_TRAIN,
  CT_NET_GRAPH_PHASE_TEST,
  CT_NET_GRAPH_PHASE_BOTH,
} CtNetGraphPhase;

typedef struct {
  CtNetGraphPhase phase;       /* default BOTH */
  gboolean no_fold;            /* keep in-place layers as their own nodes */
  gboolean no_shapes;          /* skip shape inference (no shapes, no errors) */
  int level;                   /* NetState level and extra stages */
  const char *const *stages;
  const char *source_name;     /* names the file in error messages */
  /* Data layers whose source cannot be read: shapes for their tops, by
   * layer name (see stand-in-shapes.h); NULL: none. */
  GHashTable *stand_ins;
} CtNetGraphOptions;

typedef struct {
  CtGraphModel *model;
  /* Per node: the index of its layer in the NetParameter's `layer` list
   * (after a V0/V1 upgrade, the upgraded order). Folded layers: see
   * folded_layers. */
  GArray *node_layers;         /* int */
  /* Per layer of the NetParameter: the node showing it (itself or the node
   * it is folded into), or -1 when the phase shown leaves it out. */
  GArray *layer_nodes;         /* int */
  /* A problem with the whole net (not one layer), or NULL. */
  char *net_error;
  guint n_layers_shown;        /* layers shown, folded ones included */
  guint n_failed;              /* layers with an error */
  guint64 n_params;            /* parameters of the shown layers, when inferred */
} CtNetGraph;

/* Derive the graph of PARAM (not modified). OPTIONS may be NULL (both
 * phases, folded, with shapes). Never fails: problems are in the result. */
CtNetGraph *ct_net_graph_new (const Caffe__NetParameter *param, const CtNetGraphOptions *options);
void ct_net_graph_free (CtNetGraph *graph);
/* The layer index in NET (which GRAPH shows) of node ID, a layer folded
 * into a node by its own id; -1 when none, or GRAPH or NET is NULL. */
int ct_net_graph_layer_for_id (const CtNetGraph *graph, const Caffe__NetParameter *net,
                               const char *id);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtNetGraph, ct_net_graph_free)

/* Parse "TRAIN", "TEST" or "BOTH" (any case). */
gboolean ct_net_graph_parse_phase (const char *text, CtNetGraphPhase *phase);

/* "64×20×24×24" for DIMS. */
char *ct_net_graph_shape_text (const gint64 *dims, guint n_axes);

G_END_DECLS
