/* graph-scene-private.h: what the scene geometry (graph-scene.c), the text
 * (graph-text.c) and the painting (graph-render.c) share: the node
 * geometry in pixels at 100 %, the text styles, and the helpers that both
 * measuring and drawing a node, or both hit-testing and drawing an edge,
 * need. */
#pragma once

#include "graph-render.h"

#define FONT_FAMILY "Cantarell, DejaVu Sans, sans-serif"

/* Node geometry, in pixels at 100 %. */
#define NODE_MIN_WIDTH 112.0
#define NODE_PAD_X 10.0
#define NODE_RADIUS 7.0
#define HEADER_HEIGHT 22.0
#define NAME_HEIGHT 16.0
#define DETAIL_HEIGHT 14.0
#define BODY_PAD 5.0
#define CHIP_HEIGHT 16.0
#define CHIP_GAP 4.0
#define ROW_HEIGHT 17.0
#define TOGGLE_WIDTH 14.0   /* the disclosure arrow after the folded layers */
#define PORT_RADIUS 3.5
#define PORT_SPACING_MAX 46.0
#define LABEL_GAP 5.0
#define TRUNK_LENGTH 22.0
#define CT_GRAPH_EDGE_END_TRIM (PORT_RADIUS + 5)  /* the curve stops here; the arrow follows */
#define PORT_ROW_HEIGHT 19.0
#define PORT_ROW_CLEAR 5.0   /* the row's text keeps this far above the ports */

typedef enum {
  CT_GRAPH_TEXT_TYPE,    /* header: bold */
  CT_GRAPH_TEXT_NAME,
  CT_GRAPH_TEXT_DETAIL,
  CT_GRAPH_TEXT_CHIP,
  CT_GRAPH_TEXT_LABEL,
  CT_GRAPH_TEXT_BADGE,
  CT_GRAPH_N_TEXT_STYLES
} CtGraphTextStyle;

/* The width of TEXT in STYLE, in pixels at 100 %. */
double ct_graph_text_width (CtGraphTextStyle style, const char *text);
/* Draw TEXT with its left edge at X, vertically centred on CY; elided to
 * MAX_WIDTH when > 0. */
void ct_graph_text_draw (cairo_t *cr, CtGraphTextStyle style, const char *text, double x, double cy,
                         double max_width, const CtGraphColor *color);

/* Node contents, shared by measuring and drawing. */
const char *ct_graph_phase_badge (CtGraphPhase phase);
double ct_graph_chip_width (const CtGraphFolded *folded);
char *ct_graph_folded_row_text (const CtGraphFolded *folded);
/* The shape of the blob leaving top PORT of node NODE, or NULL. */
const char *ct_graph_top_shape (const CtGraphModel *model, guint node, guint port);
/* The width of a port row entry: the blob's name and its shape. */
double ct_graph_port_entry_width (const CtGraphNode *node, const char *shape, guint port);
/* Top to bottom, a node with several tops names them in a row above its
 * ports (outside, there would be no room for names and shapes side by
 * side). */
gboolean ct_graph_has_port_row (const CtGraphNode *node, CtGraphRankdir rankdir);

/* Edge geometry: the port, the bend points, the port; consecutive points
 * joined by cubic curves with tangents along the rank axis, so edges leave
 * and enter ports straight and run straight through the ranks they cross.
 * A buffer for an edge's points; clear it after use. */
typedef struct {
  guint n;
  CtGraphPoint p[64];
  CtGraphPoint *heap;
} CtGraphEdgePoints;

const CtGraphPoint *ct_graph_scene_edge_points (const CtGraphScene *scene, guint e,
                                                CtGraphEdgePoints *buf, guint *n_out);
void ct_graph_edge_points_clear (CtGraphEdgePoints *buf);
/* The control points of the curve from A to B. */
void ct_graph_segment_controls (gboolean lr, CtGraphPoint a, CtGraphPoint b, CtGraphPoint *c1,
                                CtGraphPoint *c2);
/* Whether A and B lie on one line along the rank axis (joined straight). */
gboolean ct_graph_points_aligned (gboolean lr, CtGraphPoint a, CtGraphPoint b);
void ct_graph_points_bounds (const CtGraphPoint *p, guint n, double *x0, double *y0, double *x1,
                             double *y1);

/* graph-render.c: an edge's curve as a new path, stopping END_TRIM short
 * of its end (where the arrow head goes). */
void ct_graph_path_edge (cairo_t *cr, gboolean lr, const CtGraphPoint *p, guint n,
                         double end_trim);
/* graph-render-run.c: a node's step-through mark (the RUN_ bits of STATE),
 * drawn over its box. */
void ct_graph_render_run_mark (cairo_t *cr, const CtGraphScene *scene, guint node,
                               CtGraphNodeState state, const CtGraphPalette *palette);
