/* graph-view-private.h: what the files of CtGraphView share: the view's
 * state, the node widget type, the signals, and the functions one part calls
 * in another. The view is graph-view.c (model, zoom, fit, reveal, the
 * sidecar's positions and folds, GObject), its nodes graph-node.c, the
 * selection and find graph-view-select.c, its own drawing (grid, edges,
 * drag feedback) graph-view-draw.c, the minimap graph-minimap.c, and
 * pointer, keyboard and drop input graph-view-input.c. */
#pragma once

#include "graph-view.h"

#define ZOOM_MIN 0.05       /* unless the whole graph needs less to fit */
#define ZOOM_FLOOR_MIN 0.001
#define REVEAL_MIN_ZOOM LABEL_MIN_ZOOM  /* reveal zooms in to READABLE_ZOOM below this */
#define READABLE_ZOOM 0.75
#define ZOOM_MAX 4.0
#define ZOOM_STEP 1.25
#define NODE_MARGIN 8.0     /* room around a node box for selection rings */
#define FIT_PAD 24.0          /* pixels round a fitted graph */
#define FIT_CONTROLS 52.0     /* pixels kept above it for overlaid controls */
#define PORT_HIT 7.0        /* pixels on screen */
#define EDGE_HIT 5.0
#define GRID_STEP 24.0
#define MINIMAP_MAX 180.0
#define MINIMAP_PAD 12.0
#define LABEL_MIN_ZOOM 0.45 /* below this edge labels are unreadable: skip */
#define PORT_MIN_ZOOM 0.3

/* CtGraphNodeWidget: one node, a focusable child that draws its box. */

#define CT_TYPE_GRAPH_NODE_WIDGET (ct_graph_node_widget_get_type ())
G_DECLARE_FINAL_TYPE (CtGraphNodeWidget, ct_graph_node_widget, CT, GRAPH_NODE_WIDGET, GtkWidget)

struct _CtGraphNodeWidget {
  GtkWidget parent_instance;
  CtGraphView *view;   /* not a reference: the view owns its children */
  char *id;
  guint index;
  guint32 folded_selected;  /* as last drawn: bit i for folded layer i */
  GPtrArray *folded;        /* CtGraphFoldedWidget*, one per folded layer */
};

/* CtGraphFoldedWidget: a layer folded into a node (ReLU after a
 * convolution), as a child of the node's widget over its chip or row. It
 * draws nothing and takes no pointer input (the canvas hit-tests the chip);
 * it is there so that screen readers and UI tests reach the layer as
 * itself, by name, and can select it. */

#define CT_TYPE_GRAPH_FOLDED_WIDGET (ct_graph_folded_widget_get_type ())
G_DECLARE_FINAL_TYPE (CtGraphFoldedWidget, ct_graph_folded_widget, CT, GRAPH_FOLDED_WIDGET,
                      GtkWidget)

struct _CtGraphFoldedWidget {
  GtkWidget parent_instance;
  char *id;
  guint index;              /* among the node's folded layers */
};

typedef enum {
  DRAG_NONE,
  DRAG_PAN,
  DRAG_MOVE,
  DRAG_CONNECT,
  DRAG_DISCONNECT,
  DRAG_RUBBER,
  DRAG_MINIMAP,
} DragMode;

struct _CtGraphView {
  GtkWidget parent_instance;

  CtGraphModel *model;
  CtGraphScene *scene;
  CtGraphRankdir rankdir;
  GHashTable *expanded;        /* node ids (owned) */
  GHashTable *pinned;          /* node id (owned) -> CtGraphPoint* (owned) */
  GHashTable *selected;        /* node ids (owned) */
  int selected_edge;           /* model edge index, or -1; never with nodes */
  GHashTable *children_by_id;  /* id (borrowed from child) -> CtGraphNodeWidget* */
  GPtrArray *children;         /* CtGraphNodeWidget*, per node index */
  char *highlight;
  /* Step-through marks: node id (owned) -> CtGraphNodeState RUN_ bits;
   * one CtGraphEdgeRun per model edge (empty: no run shown). */
  GHashTable *run_states;
  GArray *edge_runs;
  /* Comparison marks: host node id (owned) -> GraphMark* (owned). */
  GHashTable *marks;

  /* Transform: widget = (graph - origin) * zoom. */
  double zoom;
  double origin_x, origin_y;
  gboolean fit_pending;
  /* The view shows the graph as "fit" left it: a resize fits it again
   * (the window changed, not the user's view). A zoom or a pan clears it. */
  gboolean fitted;
  int fitted_width, fitted_height;
  double min_fit_zoom;   /* 0, or the least zoom a fit may choose */
  gboolean show_minimap;

  /* Pointer state */
  double pointer_x, pointer_y;  /* widget coordinates, last seen */
  gboolean pointer_inside;
  int hover_node;
  DragMode drag;
  double drag_start_x, drag_start_y;   /* widget coordinates */
  double drag_x, drag_y;               /* current, widget coordinates */
  double drag_origin_x, drag_origin_y; /* origin when the drag began */
  int drag_node;
  guint drag_port;
  int drag_edge;
  int drag_target;                     /* node a connection would land on */
  GArray *drag_moved;                  /* guint node indices being moved */
  GArray *drag_moved_from;             /* CtGraphPoint their start centres */
  double pinch_zoom;
  int drop_edge;

  /* Reveal animation */
  guint tick_id;
  gint64 anim_start;
  double anim_from_x, anim_from_y, anim_to_x, anim_to_y;
};

enum {
  PROP_0,
  PROP_MODEL,
  PROP_RANKDIR,
  PROP_ZOOM,
  PROP_SHOW_MINIMAP,
  PROP_HIGHLIGHT,
  N_PROPS
};

enum {
  SELECTION_CHANGED,
  NODE_ACTIVATED,
  CONNECT_REQUESTED,
  DISCONNECT_REQUESTED,
  DELETE_REQUESTED,
  LAYER_DROPPED,
  CONTEXT_MENU,
  NODE_MOVED,
  N_SIGNALS
};

extern GParamSpec *ct_graph_view_properties[N_PROPS];
extern guint ct_graph_view_signals[N_SIGNALS];

/* Coordinates */

static inline void
to_graph (CtGraphView *self, double wx, double wy, double *gx, double *gy)
{
  *gx = wx / self->zoom + self->origin_x;
  *gy = wy / self->zoom + self->origin_y;
}

static inline void
to_widget (CtGraphView *self, double gx, double gy, double *wx, double *wy)
{
  *wx = (gx - self->origin_x) * self->zoom;
  *wy = (gy - self->origin_y) * self->zoom;
}

static inline int
node_count (CtGraphView *self)
{
  return self->scene != NULL ? (int) ct_graph_model_n_nodes (self->model) : 0;
}

static inline CtGraphNodeWidget *
child_at (CtGraphView *self, int index)
{
  if (index < 0 || (guint) index >= self->children->len)
    return NULL;
  return g_ptr_array_index (self->children, index);
}

/* Node lookup by id, folded ids finding their host. */
static inline int
index_of (CtGraphView *self, const char *id)
{
  return self->model != NULL && id != NULL ? ct_graph_model_find_node (self->model, id) : -1;
}

/* graph-view.c */
void ct_graph_view_rebuild_scene (CtGraphView *self, gboolean keep_positions);
void ct_graph_view_stop_animation (CtGraphView *self);
void ct_graph_view_set_origin (CtGraphView *self, double x, double y);
/* Zoom to ZOOM keeping the graph point under widget point WX, WY fixed. */
void ct_graph_view_zoom_at (CtGraphView *self, double zoom, double wx, double wy);
/* Fit (or, for a long net, show its input end) now. */
void ct_graph_view_fit_now (CtGraphView *self);
/* Unpin node ID and let the next model lay it out as a new node. */
void ct_graph_view_forget_place (CtGraphView *self, const char *id);
/* Keep node ID at X, Y (graph coordinates) until the next relayout. */
void ct_graph_view_pin (CtGraphView *self, const char *id, double x, double y);

/* graph-node.c */
/* Palette from the theme: a light foreground colour means a dark theme. */
const CtGraphPalette *ct_graph_view_palette (GtkWidget *widget);
void ct_graph_view_redraw_node (CtGraphView *self, int index);

/* graph-view-marks.c: a node's comparison mark (NULL: none), and its
 * tooltip and description brought up to date with it. */
typedef struct {
  CtGraphColor color;
  char *note;
} GraphMark;
const GraphMark *ct_graph_view_lookup_mark (CtGraphView *self, const char *id);
void ct_graph_view_mark_free (gpointer mark);
void ct_graph_view_refresh_node (CtGraphView *self, int index);
void ct_graph_view_redraw_all_nodes (CtGraphView *self);
/* One child per node of the model, in model order, reusing those whose id
 * is known. */
void ct_graph_view_sync_children (CtGraphView *self);

/* graph-view-select.c */
void ct_graph_view_update_selected (CtGraphView *self);
void ct_graph_view_select_only (CtGraphView *self, int index);
void ct_graph_view_toggle_selected (CtGraphView *self, int index);
/* Select ID alone (a node's or a folded layer's), or toggle it. */
void ct_graph_view_select_only_id (CtGraphView *self, const char *id);
void ct_graph_view_toggle_selected_id (CtGraphView *self, const char *id);
/* What activating the accessible object of layer ID on node INDEX does
 * (a node's, or a folded layer's): focus the node and select ID alone, as
 * a click on it does, and tell the app. */
void ct_graph_view_activate_layer (CtGraphView *self, int index, const char *id);
/* Before MODEL replaces the view's model: the selected edge's index in
 * MODEL (the edge of the same ends and blob), or -1. TRUE when it was
 * selected and MODEL has no such edge. */
gboolean ct_graph_view_refind_edge (CtGraphView *self, CtGraphModel *model);
/* The index of folded layer ID among node INDEX's folded layers, or -1. */
int ct_graph_view_folded_index (CtGraphView *self, int index, const char *id);
/* Which of node INDEX's folded layers are selected: bit i for layer i. */
guint32 ct_graph_view_folded_selected (CtGraphView *self, guint index);

/* graph-view-draw.c: the GtkWidget vfuncs that draw and place. */
void ct_graph_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot);
void ct_graph_view_size_allocate (GtkWidget *widget, int width, int height, int baseline);
void ct_graph_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                            int *minimum, int *natural, int *minimum_baseline,
                            int *natural_baseline);

/* graph-minimap.c */
/* The part of the graph in view: x, y, width, height in graph coordinates. */
void ct_graph_view_visible_rect (CtGraphView *self, double *rect);
/* Where a fitted graph starts, from the view's top: the margin, and below
 * the band of overlaid controls when the view is tall enough for one. */
double ct_graph_view_fit_top (int height);

/* The minimap's placement: a box in the top-right corner and the scale
 * that maps graph coordinates into it (SCALE[2]: x, y). FALSE when not
 * shown. */
gboolean ct_graph_minimap_geometry (CtGraphView *self, double *box, double *scale);
void ct_graph_minimap_draw (CtGraphView *self, cairo_t *cr, const CtGraphPalette *palette);
gboolean ct_graph_minimap_contains (CtGraphView *self, double wx, double wy);
/* Centre the view on the graph point under minimap point WX, WY. */
void ct_graph_minimap_center_on (CtGraphView *self, double wx, double wy);

/* graph-view-input.c */
/* The widget actions (graph.zoom-in, ...). */
void ct_graph_view_class_init_input (GtkWidgetClass *widget_class);
/* The pointer, scroll, pinch, key and drop controllers. */
void ct_graph_view_init_input (CtGraphView *self);
