/* graph-scene.h: a CtGraphScene is a model plus everything needed to draw
 * it: each node's size (measured from its text with Pango), whether its
 * folded layers are expanded, the layout, and the port positions; and
 * hit-testing in graph coordinates. GTK-free (graph-scene.c); drawing a
 * scene is graph-render.h. */
#pragma once

#include <glib.h>

#include "graph-layout.h"
#include "graph-model.h"

G_BEGIN_DECLS

typedef struct {
  CtGraphModel *model;         /* owned reference */
  CtGraphRankdir rankdir;
  gboolean *expanded;          /* per node */
  CtGraphLayoutEdgeSpec *edge_specs;  /* per edge, as given to the layout */
  CtGraphLayout *layout;
  gboolean *forgotten;         /* per node: see ct_graph_scene_forget_node() */
} CtGraphScene;

/* Measure and lay out MODEL. EXPANDED (may be NULL) is a set of node ids
 * (keys of a GHashTable) whose folded layers show as rows. PREVIOUS (may be
 * NULL) is a scene whose node positions to keep for nodes of the same id
 * (incremental layout). PINNED (may be NULL) maps node ids to CtGraphPoint*
 * centres to place those nodes at, after layout. */
CtGraphScene *ct_graph_scene_new (CtGraphModel *model, CtGraphRankdir rankdir,
                                  GHashTable *expanded, const CtGraphScene *previous,
                                  GHashTable *pinned);
void ct_graph_scene_free (CtGraphScene *scene);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtGraphScene, ct_graph_scene_free)

/* Where port PORT of NODE sits: a top port (IS_TOP) or a bottom port. */
CtGraphPoint ct_graph_scene_port_position (const CtGraphScene *scene, guint node,
                                           gboolean is_top, guint port);
/* The node box as x, y (top-left), width, height. */
void ct_graph_scene_node_box (const CtGraphScene *scene, guint node, double *x, double *y,
                              double *width, double *height);
/* Forget NODE's place: a scene made with this one as its previous scene
 * lays NODE out as a new node, beside its neighbours (a node just
 * connected, which may sit anywhere). */
void ct_graph_scene_forget_node (CtGraphScene *scene, guint node);
/* Move NODE's centre (a user's drag); its edges then run straight. */
void ct_graph_scene_move_node (CtGraphScene *scene, guint node, double x, double y);

/* Hit testing, graph coordinates. -1 when nothing is there. */
int ct_graph_scene_node_at (const CtGraphScene *scene, double x, double y);
/* A port within RADIUS of X, Y: returns the node and sets *IS_TOP, *PORT. */
int ct_graph_scene_port_at (const CtGraphScene *scene, double x, double y, double radius,
                            gboolean *is_top, guint *port);
/* Folded layers: the box (x, y, width, height) of NODE's folded layer
 * FOLDED (its chip, or its row when expanded); FALSE when it is not shown
 * (chips that do not fit end in an ellipsis). */
gboolean ct_graph_scene_folded_box (const CtGraphScene *scene, guint node, guint folded,
                                    double *box);
/* The box of the disclosure arrow after NODE's folded layers, which folds
 * and unfolds them; FALSE when NODE has none. */
gboolean ct_graph_scene_folded_toggle_box (const CtGraphScene *scene, guint node, double *box);
/* The index of NODE's folded layer at X, Y, or -1; *TOGGLE is set when X, Y
 * is on the disclosure arrow instead. */
int ct_graph_scene_folded_at (const CtGraphScene *scene, guint node, double x, double y,
                              gboolean *toggle);
/* The edge whose curve passes within TOLERANCE of X, Y. */
int ct_graph_scene_edge_at (const CtGraphScene *scene, double x, double y, double tolerance);

G_END_DECLS
