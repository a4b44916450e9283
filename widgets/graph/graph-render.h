/* graph-render.h: drawing a laid-out CtGraphModel with cairo, GTK-free.
 *
 * A CtGraphScene is a model plus everything needed to draw it: each node's
 * size (measured from its text with Pango), whether its folded layers are
 * expanded, the layout, and the port positions. The same drawing code
 * serves `cortado-cli draw` (PNG, SVG, PDF), the tests (image surfaces, no
 * display) and the GTK canvas (edges and ports inside
 * gtk_snapshot_append_cairo, each node widget drawing its own box), so the
 * export looks exactly like the screen.
 *
 * Look: rounded boxes with a header band in the family's colour showing the
 * type, the layer name (and a short detail such as "5×5, 20") below, folded
 * in-place layers as small chips in their own family colours; bottom ports
 * on the top side, top ports on the bottom side (left/right for LR); edges as
 * smooth curves, a blob that feeds several layers leaving its port once and
 * fanning out; the blob's name (when it differs from the layer's) and shape
 * written beside the port it leaves; invalid nodes outlined in red. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "graph-layout.h"
#include "graph-model.h"

G_BEGIN_DECLS

/* Colours for one look (light for export and light themes, dark for dark
 * themes). RGBA, 0..1. */
typedef struct {
  double r, g, b, a;
} CtGraphColor;

typedef struct {
  gboolean dark;
  CtGraphColor background;
  CtGraphColor grid;
  CtGraphColor node_body;
  CtGraphColor node_border;
  CtGraphColor text;
  CtGraphColor text_dim;
  CtGraphColor edge;
  CtGraphColor edge_label;
  CtGraphColor port;
  CtGraphColor error;
  CtGraphColor accent;     /* selection, focus, connect feedback */
  CtGraphColor highlight;  /* step-through */
  CtGraphColor family[CT_GRAPH_N_FAMILIES];
} CtGraphPalette;

/* The built-in light and dark palettes. */
const CtGraphPalette *ct_graph_palette_get (gboolean dark);

/* How one node is drawn, beyond the scene. */
typedef enum {
  CT_GRAPH_NODE_STATE_NONE = 0,
  CT_GRAPH_NODE_STATE_SELECTED = 1 << 0,
  CT_GRAPH_NODE_STATE_FOCUSED = 1 << 1,
  CT_GRAPH_NODE_STATE_HIGHLIGHT = 1 << 2,
  CT_GRAPH_NODE_STATE_HOVER = 1 << 3,
  CT_GRAPH_NODE_STATE_DROP_TARGET = 1 << 4,  /* a connection would land here */
} CtGraphNodeState;

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

/* Drawing, in graph coordinates (the caller sets the transform). */
/* Edges and (with LABELS) the blob names and shapes beside them; CLIP (x,
 * y, width, height; may be NULL) skips what lies outside. HIGHLIGHT_NODE >= 0
 * draws that node's edges in the accent colour. */
void ct_graph_render_edges (cairo_t *cr, const CtGraphScene *scene,
                            const CtGraphPalette *palette, const double *clip,
                            int highlight_node, gboolean labels);
/* One node's box (without ports), at its place in the scene. */
void ct_graph_render_node (cairo_t *cr, const CtGraphScene *scene, guint node,
                           CtGraphNodeState state, const CtGraphPalette *palette);
/* One node's ports (drawn over edges and the box border). */
void ct_graph_render_ports (cairo_t *cr, const CtGraphScene *scene, guint node,
                            const CtGraphPalette *palette);
/* Everything: edges, nodes, ports. */
void ct_graph_render_scene (cairo_t *cr, const CtGraphScene *scene,
                            const CtGraphPalette *palette);

/* Write the scene as PNG, SVG or PDF, chosen by PATH's extension (".png",
 * ".svg", ".pdf"), with a margin and the palette's background. SCALE
 * multiplies the PNG's resolution (1 = 100 %). */
gboolean ct_graph_render_to_file (const CtGraphScene *scene, const char *path,
                                  const CtGraphPalette *palette, double scale,
                                  GError **error);

G_END_DECLS
