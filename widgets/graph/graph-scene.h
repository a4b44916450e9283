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
/* Move NODE's centre (a user's drag); its edges then run straight. */
void ct_graph_scene_move_node (CtGraphScene *scene, guint node, double x, double y);

/* Hit testing, graph coordinates. -1 when nothing is there. */
int ct_graph_scene_node_at (const CtGraphScene *scene, double x, double y);
/* A port within RADIUS of X, Y: returns the node and sets *IS_TOP, *PORT. */
int ct_graph_scene_port_at (const CtGraphScene *scene, double x, double y, double radius,
                            gboolean *is_top, guint *port);
/* Whether X, Y lies on NODE's folded layers (the chips or rows), where a
 * click expands or collapses them. */
gboolean ct_graph_scene_hit_folded (const CtGraphScene *scene, guint node, double x, double y);
/* The edge whose curve passes within TOLERANCE of X, Y. */
int ct_graph_scene_edge_at (const CtGraphScene *scene, double x, double y, double tolerance);

G_END_DECLS
