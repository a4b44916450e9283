/* graph-render.h: drawing a CtGraphScene (graph-scene.h) with cairo,
 * GTK-free: painting (graph-render.c) and export to files (graph-export.c).
 *
 * The same drawing code
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

#include "graph-scene.h"

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
  /* Step-through marks (graph-render-run.c). */
  CT_GRAPH_NODE_STATE_RUN_DONE = 1 << 5,      /* ran forward in this pass */
  CT_GRAPH_NODE_STATE_RUN_BACKWARD = 1 << 6,  /* ran (or passed) backward */
  CT_GRAPH_NODE_STATE_RUN_FAILED = 1 << 7,    /* the step failed here */
} CtGraphNodeState;

/* What a step-through knows of the blob an edge carries. */
typedef enum {
  CT_GRAPH_EDGE_RUN_NONE,   /* no run: drawn as usual */
  CT_GRAPH_EDGE_RUN_EMPTY,  /* its producer has not run in this pass: dashed */
  CT_GRAPH_EDGE_RUN_DATA,   /* holds data: drawn bold */
  CT_GRAPH_EDGE_RUN_DIFF,   /* holds data and a gradient: bold, with a health strip */
} CtGraphEdgeRunState;

typedef struct {
  CtGraphEdgeRunState state;
  /* With DIFF: the gradient's health, ‖diff‖ / ‖data‖; NaN or an infinity
   * paints the strip red. */
  double health;
} CtGraphEdgeRun;

/* Drawing, in graph coordinates (the caller sets the transform). */
/* Edges and (with LABELS) the blob names and shapes beside them; CLIP (x,
 * y, width, height; may be NULL) skips what lies outside. HIGHLIGHT_NODE >= 0
 * draws that node's edges in the accent colour. */
void ct_graph_render_edges (cairo_t *cr, const CtGraphScene *scene,
                            const CtGraphPalette *palette, const double *clip,
                            int highlight_node, gboolean labels);
/* The step-through look of the edges, over ct_graph_render_edges():
 * RUNS[e] for model edge e (N_RUNS of them; edges beyond are left as
 * they are). */
void ct_graph_render_edge_runs (cairo_t *cr, const CtGraphScene *scene,
                                const CtGraphPalette *palette, const double *clip,
                                const CtGraphEdgeRun *runs, guint n_runs);
/* The selected edge EDGE (a model index), emphasised over the others and
 * their run look: a halo and the edge in the accent colour. */
void ct_graph_render_edge_selected (cairo_t *cr, const CtGraphScene *scene,
                                    const CtGraphPalette *palette, guint edge);
/* The colour of a gradient-health strip: blue when the gradient vanishes
 * (below 1e-5 of the data), green when it is in proportion, orange when it
 * explodes (above 10), red for NaN or an infinity. Colour-blind safe: the
 * three ends differ in lightness as well as hue. */
void ct_graph_health_color (double health, CtGraphColor *out);
/* One node's box (without ports), at its place in the scene. Bit i of
 * FOLDED_SELECTED marks the node's folded layer i as selected (the node's
 * own selection is in STATE). */
void ct_graph_render_node (cairo_t *cr, const CtGraphScene *scene, guint node,
                           CtGraphNodeState state, guint32 folded_selected,
                           const CtGraphPalette *palette);
/* A comparison's mark over node NODE's box (after ct_graph_render_node()):
 * the body below the header tinted with COLOR and a stripe of it down the
 * left side. */
void ct_graph_render_node_mark (cairo_t *cr, const CtGraphScene *scene, guint node,
                                const CtGraphColor *color);
/* One node's ports (drawn over edges and the box border). */
void ct_graph_render_ports (cairo_t *cr, const CtGraphScene *scene, guint node,
                            const CtGraphPalette *palette);
/* A rectangle with corners rounded to radius R (at most half a side), as
 * a new sub-path. */
void ct_graph_rounded_rect (cairo_t *cr, double x, double y, double w, double h, double r);
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
