/* graph-view.h: CtGraphView, the canvas that shows a CtGraphModel as a
 * layered graph: every node a real, focusable child widget (accessible name
 * "conv1, Convolution", the node's error as its tooltip; each layer folded
 * into it an accessible child, "relu1, ReLU, in place"; activating either
 * selects its layer and emits selection-changed), edges, ports, a
 * dot grid and a minimap drawn by the canvas, pan and zoom through a
 * transform.
 *
 * Pointer: drag the background (or scroll) to pan, Ctrl+scroll or pinch to
 * zoom, click a node to select it (Ctrl/Shift+click toggles / extends),
 * click an edge (within a few pixels) to select it, the blob it carries,
 * Shift+drag on the background for rubber-band selection, drag from a top
 * port onto another node to ask for a connection, drag an edge's lower end
 * away from its node to ask for a disconnection, double-click (or Enter) a
 * node to activate it. Keyboard: arrows move the focus along edges (Up/Down
 * in top-to-bottom layouts follow bottoms/tops, Left/Right move within a
 * rank; swapped in left-to-right layouts), + / - / 0 / 1 zoom in, out, to
 * fit, to 100%, Delete asks to delete the selection, Space toggles the
 * focused node's selection.
 *
 * A palette can drop a layer type (a string, e.g. "Convolution") on the
 * canvas: layer-dropped reports the graph coordinates and, when dropped on
 * an edge, that edge's index so the app can insert the layer there.
 *
 * The view never edits the model: it asks through signals; the app edits
 * its document, derives a new model and calls ct_graph_view_set_model(),
 * which lays the graph out again moving as few nodes as it can.
 *
 * Ids are the node ids of the model (layer names) and the ids of layers
 * folded into a node (a ReLU after a convolution): a click on a folded
 * layer's chip (or its row, unfolded) selects that layer, and the
 * selection, Find, "selection-changed", "node-activated" and "context-menu"
 * carry its own id; its node marks it as the selected one. The small arrow
 * after the chips folds and unfolds them. Elsewhere (reveal, highlight,
 * positions) a folded layer's id stands for the node it is folded into. */
#pragma once

#include <gtk/gtk.h>

#include "graph-layout.h"
#include "graph-model.h"
#include "graph-render.h"

G_BEGIN_DECLS

#define CT_TYPE_GRAPH_VIEW (ct_graph_view_get_type ())
G_DECLARE_FINAL_TYPE (CtGraphView, ct_graph_view, CT, GRAPH_VIEW, GtkWidget)

GtkWidget *ct_graph_view_new (void);

/* The model (may be NULL: an empty canvas). Setting a model keeps the
 * positions and fold state of nodes with an id seen before, places new
 * nodes beside their neighbours, keeps the selection of ids that still
 * exist, and emits selection-changed if it changed. The first model (or
 * after ct_graph_view_relayout()) is fitted into the view; a net too long
 * to be read whole is shown from its input end at a readable zoom. */
void ct_graph_view_set_model (CtGraphView *self, CtGraphModel *model);
CtGraphModel *ct_graph_view_get_model (CtGraphView *self);

/* Property "rankdir": CT_GRAPH_RANKDIR_TB (default) or _LR. Changing it lays
 * the graph out afresh. */
void ct_graph_view_set_rankdir (CtGraphView *self, CtGraphRankdir rankdir);
CtGraphRankdir ct_graph_view_get_rankdir (CtGraphView *self);

/* Forget every position and lay the whole graph out afresh, then fit. */
void ct_graph_view_relayout (CtGraphView *self);

/* Zoom. Property "zoom" (1.0 = 100 %, clamped to 0.05 .. 4, or below 0.05
 * as far as the whole graph needs to fit). The zoom functions keep the
 * centre of the view where it is. */
double ct_graph_view_get_zoom (CtGraphView *self);
void ct_graph_view_set_zoom (CtGraphView *self, double zoom);
void ct_graph_view_zoom_in (CtGraphView *self);
void ct_graph_view_zoom_out (CtGraphView *self);
/* Whole graph in view (never above 100 %). */
void ct_graph_view_zoom_to_fit (CtGraphView *self);
/* The least zoom a fit chooses (0: none, the default). A graph that would
 * fit only below it is shown at this zoom instead, around the highlighted
 * node (or from its input end): presentation mode keeps the text readable
 * from the back of a room. Fits the graph again. */
void ct_graph_view_set_min_fit_zoom (CtGraphView *self, double zoom);

/* Property "show-minimap" (default TRUE): the minimap (top right corner)
 * appears when the graph does not fit the view. */
void ct_graph_view_set_show_minimap (CtGraphView *self, gboolean show);
gboolean ct_graph_view_get_show_minimap (CtGraphView *self);

/* Selection, by node or folded layer id. dup_selected returns a NULL-terminated, owned
 * array (never NULL) in model order. Setting it does not emit
 * selection-changed (the caller knows); user clicks do. */
char **ct_graph_view_dup_selected (CtGraphView *self);
void ct_graph_view_set_selected (CtGraphView *self, const char *const *ids);
void ct_graph_view_select_all (CtGraphView *self);
void ct_graph_view_unselect_all (CtGraphView *self);

/* Or one edge selected instead of nodes (a click on it): its model index,
 * or -1. Setting an edge unselects the nodes, and selecting nodes
 * unselects the edge; a new model keeps the edge with the same blob and
 * ends. Setting it does not emit selection-changed; user clicks do. */
int ct_graph_view_get_selected_edge (CtGraphView *self);
void ct_graph_view_set_selected_edge (CtGraphView *self, int edge);

/* Scroll (animated when the widget is mapped) so that node ID is visible,
 * centred if it was not, zooming in first to 75 % when the zoom is too small
 * to read a node (below 45 %); give it the keyboard focus if FOCUS. FALSE
 * if no such node. */
gboolean ct_graph_view_reveal (CtGraphView *self, const char *id, gboolean focus);

/* Find: the id of the first node after AFTER_ID (NULL: from the start, in
 * model order, each node followed by its folded layers, wrapping) whose
 * name contains TEXT (case-insensitive): a node's id or a folded layer's,
 * or NULL. Borrowed from the model. Combine with
 * ct_graph_view_reveal() and ct_graph_view_set_selected(). */
const char *ct_graph_view_find (CtGraphView *self, const char *text, const char *after_id);

/* Step-through: highlight node ID (NULL: none) with an amber ring
 * and reveal it. Property "highlight". */
void ct_graph_view_set_highlight (CtGraphView *self, const char *id);
const char *ct_graph_view_get_highlight (CtGraphView *self);

/* Step-through marks, as plain data: the app maps its run onto node ids
 * and edge indices. A node's run state is any of CT_GRAPH_NODE_STATE_RUN_DONE
 * (a check: ran forward), _RUN_BACKWARD (a down arrow) and _RUN_FAILED (a
 * red ring); add_run_state ORs STATE into the node's (a folded layer's id
 * marks its host), clear_run_states removes every mark. Edge runs are one
 * CtGraphEdgeRun per model edge index (graph-render.h: dashed while the
 * blob is empty, bold once it holds data, a gradient-health strip with a
 * diff); NULL clears them, and so does a new model (its edges differ). */
void ct_graph_view_clear_run_states (CtGraphView *self);
void ct_graph_view_add_run_state (CtGraphView *self, const char *id, CtGraphNodeState state);
/* Every node's run state at once (N ids with their states; others: none),
 * redrawing only the nodes whose mark changed. */
void ct_graph_view_set_run_states (CtGraphView *self, const char *const *ids,
                                   const CtGraphNodeState *states, guint n);
CtGraphNodeState ct_graph_view_get_run_state (CtGraphView *self, const char *id);
void ct_graph_view_set_edge_runs (CtGraphView *self, const CtGraphEdgeRun *runs, guint n_runs);
/* The tooltip of an edge's gradient-health strip: BLOB's ratio HEALTH and
 * how to read the strip's colours. */
char *ct_graph_view_edge_health_text (const char *blob, double health);
const CtGraphEdgeRun *ct_graph_view_get_edge_runs (CtGraphView *self, guint *n_runs);

/* Comparison marks, as plain data: a colour over a node (graph-render.h's
 * ct_graph_render_node_mark) and a note added to its tooltip and
 * accessible description ("changed: num_output 20 -> 50"). What the colour
 * means is the app's: a comparison of weights or of two nets. Setting
 * marks replaces every mark; N = 0 clears them. A folded layer's id marks
 * its host node (notes of one host are joined, the last colour wins).
 * Marks of ids that a new model still has are kept. */
typedef struct {
  const char *id;
  CtGraphColor color;
  const char *note;
} CtGraphNodeMark;
void ct_graph_view_set_marks (CtGraphView *self, const CtGraphNodeMark *marks, guint n);
void ct_graph_view_clear_marks (CtGraphView *self);
/* Node ID's mark: its note (borrowed), or NULL when it has none; COLOR
 * (may be NULL) gets its colour. */
const char *ct_graph_view_get_mark (CtGraphView *self, const char *id, CtGraphColor *color);
guint ct_graph_view_n_marks (CtGraphView *self);

/* Folds: whether node ID shows its folded in-place layers as their own rows
 * (expanded) or as a compact badge line (default). For the sidecar file. */
void ct_graph_view_set_expanded (CtGraphView *self, const char *id, gboolean expanded);
gboolean ct_graph_view_get_expanded (CtGraphView *self, const char *id);

/* Positions in graph coordinates (the node's centre), for the sidecar
 * file. Setting one pins the node there until the next relayout; call it
 * after set_model(). Returns FALSE for unknown ids. */
gboolean ct_graph_view_get_node_position (CtGraphView *self, const char *id, double *x,
                                          double *y);
gboolean ct_graph_view_set_node_position (CtGraphView *self, const char *id, double x,
                                          double y);

/* The graph as laid out and folded now (for ct_graph_render_to_file() in
 * graph-render.h). Borrowed; NULL without a model. */
const CtGraphScene *ct_graph_view_get_scene (CtGraphView *self);

/* Write the graph as PNG, SVG or PDF (by PATH's extension) as the view
 * shows it (layout, folds), at 100 % for PNG. */
gboolean ct_graph_view_export (CtGraphView *self, const char *path, GError **error);

/* Widget actions (gtk_widget_activate_action, or "graph.zoom-in" in a menu
 * model inside the view): graph.zoom-in, graph.zoom-out, graph.zoom-fit,
 * graph.zoom-reset (100 %), graph.select-all, graph.delete (emits
 * delete-requested), graph.navigate ("up", "down", "left", "right": as the
 * arrow keys).
 *
 * Signals.
 *
 * "selection-changed" (void): the user changed the selection (nodes or
 *     the edge).
 * "node-activated" (const char *id): double-click or Enter on a node.
 * "connect-requested" (const char *from_id, guint top_index,
 *     const char *to_id, int bottom_index): the user dragged from a top port
 *     to another node; BOTTOM_INDEX is the bottom port dropped on, or -1 when
 *     dropped on the node's body (add a new bottom).
 * "disconnect-requested" (guint edge_index): the user dragged an edge's
 *     end away from its bottom port.
 * "delete-requested" (GStrv ids): Delete/BackSpace on the selection.
 * "layer-dropped" (const char *type, double x, double y, int edge_index):
 *     a type name was dropped at graph coordinates X, Y; EDGE_INDEX is the
 *     edge under the pointer, or -1.
 * "context-menu" (const char *id_or_null, double x, double y): right click
 *     (or Menu key / Shift+F10) on a node or the background, in widget
 *     coordinates, for the app to pop up a menu.
 * "node-moved" (const char *id): the user dragged a node to a new place
 *     (mark the sidecar dirty).
 */

G_END_DECLS
