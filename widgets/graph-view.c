/* graph-view.c: CtGraphView, the graph canvas (see graph-view.h).
 *
 * The canvas owns a CtGraphScene (model + measured, laid-out geometry) and
 * one CtGraphNodeWidget child per node. Children are allocated at their
 * zoomed size and placed with a translation at whole pixels; each draws its
 * box and ports scaled by the zoom (text laid out at the size it is shown
 * at) into a texture that panning merely moves. The canvas itself draws,
 * in widget coordinates and only for the visible part of the graph, the
 * background grid and the edges (under the nodes), then the feedback of a
 * drag in progress and the minimap (over them).
 *
 * Pointer input is handled by the canvas in the capture phase and hit-tested
 * against the scene, so the children only carry focus, tooltips and the
 * accessible names screen readers and UI tests see. */
#include "graph-view.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#define ZOOM_MIN 0.05
#define ZOOM_MAX 4.0
#define ZOOM_STEP 1.25
#define NODE_MARGIN 8.0     /* room around a node box for selection rings */
#define FIT_PAD 24.0          /* pixels round a fitted graph */
#define FIT_BOTTOM 52.0       /* pixels kept below it for overlaid controls */
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
};

G_DEFINE_FINAL_TYPE (CtGraphNodeWidget, ct_graph_node_widget, GTK_TYPE_WIDGET)

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
  GHashTable *children_by_id;  /* id (borrowed from child) -> CtGraphNodeWidget* */
  GPtrArray *children;         /* CtGraphNodeWidget*, per node index */
  char *highlight;

  /* Transform: widget = (graph - origin) * zoom. */
  double zoom;
  double origin_x, origin_y;
  gboolean fit_pending;
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

G_DEFINE_FINAL_TYPE (CtGraphView, ct_graph_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  PROP_RANKDIR,
  PROP_ZOOM,
  PROP_SHOW_MINIMAP,
  PROP_HIGHLIGHT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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

static guint signals[N_SIGNALS];

static void rebuild_scene (CtGraphView *self, gboolean keep_positions);
static void set_origin (CtGraphView *self, double x, double y);

/* Palette from the theme: a light foreground colour means a dark theme. */
static const CtGraphPalette *
palette_for (GtkWidget *widget)
{
  GdkRGBA color;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  G_GNUC_END_IGNORE_DEPRECATIONS
  return ct_graph_palette_get (0.299 * color.red + 0.587 * color.green + 0.114 * color.blue
                               > 0.5);
}

/* Node widgets */

static CtGraphNodeState
node_state (CtGraphView *view, CtGraphNodeWidget *node)
{
  CtGraphNodeState state = CT_GRAPH_NODE_STATE_NONE;

  if (g_hash_table_contains (view->selected, node->id))
    state |= CT_GRAPH_NODE_STATE_SELECTED;
  if (gtk_widget_has_visible_focus (GTK_WIDGET (node)))
    state |= CT_GRAPH_NODE_STATE_FOCUSED;
  if (view->highlight != NULL && strcmp (view->highlight, node->id) == 0)
    state |= CT_GRAPH_NODE_STATE_HIGHLIGHT;
  if (view->hover_node == (int) node->index && view->drag == DRAG_NONE)
    state |= CT_GRAPH_NODE_STATE_HOVER;
  if (view->drag_target == (int) node->index
      && (view->drag == DRAG_CONNECT || view->drag == DRAG_DISCONNECT))
    state |= CT_GRAPH_NODE_STATE_DROP_TARGET;
  return state;
}

static void
ct_graph_node_widget_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CtGraphNodeWidget *self = CT_GRAPH_NODE_WIDGET (widget);
  CtGraphView *view = self->view;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);
  double x, y, w, h;
  cairo_surface_t *surface;
  cairo_t *cr;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  if (view == NULL || view->scene == NULL || self->index >= ct_graph_model_n_nodes (view->model)
      || width <= 0 || height <= 0)
    return;
  ct_graph_scene_node_box (view->scene, self->index, &x, &y, &w, &h);

  /* Drawn into an image at the device's pixels and shown as a texture: a
   * cairo node would be recorded at 100 % and replayed scaled, which snaps
   * each small glyph to the pixel grid on its own and spaces text unevenly.
   * The zoom is applied here, not by a transform on the child. */
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
  cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  cairo_scale (cr, view->zoom, view->zoom);
  cairo_translate (cr, NODE_MARGIN - x, NODE_MARGIN - y);
  ct_graph_render_node (cr, view->scene, self->index, node_state (view, self),
                        palette_for (widget));
  /* the ports belong to the node's picture: they move with it */
  if (view->zoom >= PORT_MIN_ZOOM)
    ct_graph_render_ports (cr, view->scene, self->index, palette_for (widget));
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  /* cairo's ARGB32 is GDK's default premultiplied memory format */
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) cairo_image_surface_get_stride (surface)
                                        * height * scale,
                                      (GDestroyNotify) cairo_surface_destroy, surface);
  texture = gdk_memory_texture_new (width * scale, height * scale, GDK_MEMORY_DEFAULT, bytes,
                                    cairo_image_surface_get_stride (surface));
  gtk_snapshot_append_texture (snapshot, texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static void
ct_graph_node_widget_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                              int *minimum, int *natural, int *minimum_baseline,
                              int *natural_baseline)
{
  CtGraphNodeWidget *self = CT_GRAPH_NODE_WIDGET (widget);
  double x = 0, y = 0, w = 0, h = 0;

  if (self->view != NULL && self->view->scene != NULL
      && self->index < ct_graph_model_n_nodes (self->view->model))
    ct_graph_scene_node_box (self->view->scene, self->index, &x, &y, &w, &h);
  /* the canvas gives each node its zoomed size, whatever it is */
  *minimum = 0;
  *natural = self->view != NULL
             ? (int) ceil (((orientation == GTK_ORIENTATION_HORIZONTAL ? w : h)
                            + 2 * NODE_MARGIN) * self->view->zoom)
             : 0;
}

static void
ct_graph_node_widget_finalize (GObject *object)
{
  CtGraphNodeWidget *self = CT_GRAPH_NODE_WIDGET (object);

  g_free (self->id);
  G_OBJECT_CLASS (ct_graph_node_widget_parent_class)->finalize (object);
}

static void
ct_graph_node_widget_class_init (CtGraphNodeWidgetClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ct_graph_node_widget_finalize;
  widget_class->snapshot = ct_graph_node_widget_snapshot;
  widget_class->measure = ct_graph_node_widget_measure;
  gtk_widget_class_set_css_name (widget_class, "graphnode");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_BUTTON);
}

static void
ct_graph_node_widget_init (CtGraphNodeWidget *self)
{
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
}

static void
on_node_focus (GtkWidget *widget, GParamSpec *pspec, gpointer data)
{
  gtk_widget_queue_draw (widget);
}

/* Name, tooltip and accessible description from the model. */
static void
node_widget_update (CtGraphNodeWidget *node, const CtGraphNode *n)
{
  g_autofree char *label = g_strdup_printf ("%s, %s", n->name, n->type);
  g_autoptr(GString) tip = g_string_new (NULL);

  if (n->error != NULL)
    g_string_append (tip, n->error);
  else
    {
      g_string_append_printf (tip, "<b>%s</b>  %s", n->name, n->type);
      for (guint i = 0; i < n->folded->len; i++)
        {
          const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
          g_string_append_printf (tip, "\n+ %s  %s", f->name, f->type);
        }
    }
  for (guint i = 0; i < n->folded->len; i++)
    {
      const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
      if (f->error != NULL)
        g_string_append_printf (tip, "\n%s", f->error);
    }
  if (n->error != NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (node), tip->str);
  else
    {
      g_autofree char *escaped = NULL;
      /* names are user text: escape them for the markup */
      g_string_truncate (tip, 0);
      escaped = g_markup_printf_escaped ("<b>%s</b>  %s", n->name, n->type);
      g_string_append (tip, escaped);
      for (guint i = 0; i < n->folded->len; i++)
        {
          const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
          g_autofree char *row = g_markup_printf_escaped ("\n+ %s  %s%s%s", f->name, f->type,
                                                          f->error != NULL ? "\n" : "",
                                                          f->error != NULL ? f->error : "");
          g_string_append (tip, row);
        }
      gtk_widget_set_tooltip_markup (GTK_WIDGET (node), tip->str);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (node),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  n->error != NULL ? n->error : "",
                                  -1);
  if (n->error != NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (node), GTK_ACCESSIBLE_STATE_INVALID,
                                 GTK_ACCESSIBLE_INVALID_TRUE, -1);
  else
    gtk_accessible_reset_state (GTK_ACCESSIBLE (node), GTK_ACCESSIBLE_STATE_INVALID);
}

/* Coordinates */

static void
to_graph (CtGraphView *self, double wx, double wy, double *gx, double *gy)
{
  *gx = wx / self->zoom + self->origin_x;
  *gy = wy / self->zoom + self->origin_y;
}

static void
to_widget (CtGraphView *self, double gx, double gy, double *wx, double *wy)
{
  *wx = (gx - self->origin_x) * self->zoom;
  *wy = (gy - self->origin_y) * self->zoom;
}

static int
node_count (CtGraphView *self)
{
  return self->scene != NULL ? (int) ct_graph_model_n_nodes (self->model) : 0;
}

static CtGraphNodeWidget *
child_at (CtGraphView *self, int index)
{
  if (index < 0 || (guint) index >= self->children->len)
    return NULL;
  return g_ptr_array_index (self->children, index);
}

static void
redraw_node (CtGraphView *self, int index)
{
  CtGraphNodeWidget *child = child_at (self, index);

  if (child != NULL)
    gtk_widget_queue_draw (GTK_WIDGET (child));
}

static void
redraw_all_nodes (CtGraphView *self)
{
  for (guint i = 0; i < self->children->len; i++)
    gtk_widget_queue_draw (g_ptr_array_index (self->children, i));
}

/* Children */

static void
sync_children (CtGraphView *self)
{
  g_autoptr(GHashTable) old_by_id = g_steal_pointer (&self->children_by_id);
  guint n = self->model != NULL ? ct_graph_model_n_nodes (self->model) : 0;

  /* the children live on in OLD_BY_ID until they are reused or dropped */
  g_ptr_array_unref (self->children);
  self->children = g_ptr_array_new ();
  self->children_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < n; i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (self->model, i);
      CtGraphNodeWidget *child = g_hash_table_lookup (old_by_id, node->id);

      if (child != NULL)
        g_hash_table_remove (old_by_id, node->id);
      else
        {
          child = g_object_new (CT_TYPE_GRAPH_NODE_WIDGET, NULL);
          child->view = self;
          child->id = g_strdup (node->id);
          g_signal_connect (child, "notify::has-focus", G_CALLBACK (on_node_focus), NULL);
          /* model order is focus order: insert after the previous node */
          gtk_widget_insert_before (GTK_WIDGET (child), GTK_WIDGET (self), NULL);
        }
      child->index = i;
      node_widget_update (child, node);
      g_ptr_array_add (self->children, child);
      g_hash_table_insert (self->children_by_id, child->id, child);
      gtk_widget_queue_resize (GTK_WIDGET (child));
      gtk_widget_queue_draw (GTK_WIDGET (child));
    }
  /* keep the widget order equal to model order, for Tab */
  for (guint i = 0; i < self->children->len; i++)
    {
      GtkWidget *child = g_ptr_array_index (self->children, i);
      GtkWidget *prev = i > 0 ? g_ptr_array_index (self->children, i - 1) : NULL;
      if (gtk_widget_get_prev_sibling (child) != prev)
        gtk_widget_insert_after (child, GTK_WIDGET (self), prev);
    }
  {
    GHashTableIter iter;
    gpointer value;
    g_hash_table_iter_init (&iter, old_by_id);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      {
        CtGraphNodeWidget *child = value;
        child->view = NULL;
        gtk_widget_unparent (GTK_WIDGET (child));
      }
  }
}

/* Scene */

static gboolean
drop_missing_selection (CtGraphView *self)
{
  GHashTableIter iter;
  gpointer key;
  gboolean changed = FALSE;

  g_hash_table_iter_init (&iter, self->selected);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (self->model == NULL || ct_graph_model_find_node (self->model, key) < 0
        || strcmp (ct_graph_model_get_node (self->model,
                                            ct_graph_model_find_node (self->model, key))->id,
                   key) != 0)
      {
        g_hash_table_iter_remove (&iter);
        changed = TRUE;
      }
  return changed;
}

static void
rebuild_scene (CtGraphView *self, gboolean keep_positions)
{
  CtGraphScene *scene = NULL;

  if (self->model != NULL)
    scene = ct_graph_scene_new (self->model, self->rankdir, self->expanded,
                                keep_positions ? self->scene : NULL,
                                keep_positions ? self->pinned : NULL);
  g_clear_pointer (&self->scene, ct_graph_scene_free);
  self->scene = scene;
  self->hover_node = -1;
  self->drag = DRAG_NONE;
  self->drop_edge = -1;
  sync_children (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ct_graph_view_set_model (CtGraphView *self, CtGraphModel *model)
{
  gboolean first;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (model == self->model)
    return;
  first = self->scene == NULL;
  if (model != NULL)
    ct_graph_model_ref (model);
  g_clear_pointer (&self->model, ct_graph_model_unref);
  self->model = model;
  rebuild_scene (self, TRUE);
  if (self->highlight != NULL && ct_graph_model_find_node (model, self->highlight) < 0)
    g_clear_pointer (&self->highlight, g_free);
  if (first)
    self->fit_pending = TRUE;
  if (drop_missing_selection (self))
    g_signal_emit (self, signals[SELECTION_CHANGED], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

CtGraphModel *
ct_graph_view_get_model (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  return self->model;
}

void
ct_graph_view_set_rankdir (CtGraphView *self, CtGraphRankdir rankdir)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (rankdir == self->rankdir)
    return;
  self->rankdir = rankdir;
  g_hash_table_remove_all (self->pinned);
  rebuild_scene (self, FALSE);
  self->fit_pending = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RANKDIR]);
}

CtGraphRankdir
ct_graph_view_get_rankdir (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), CT_GRAPH_RANKDIR_TB);
  return self->rankdir;
}

void
ct_graph_view_relayout (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->pinned);
  rebuild_scene (self, FALSE);
  self->fit_pending = TRUE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

const CtGraphScene *
ct_graph_view_get_scene (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  return self->scene;
}

/* Zoom and pan */

static void
stop_animation (CtGraphView *self)
{
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
}

static void
set_origin (CtGraphView *self, double x, double y)
{
  if (x == self->origin_x && y == self->origin_y)
    return;
  self->origin_x = x;
  self->origin_y = y;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Zoom to ZOOM keeping the graph point under widget point WX, WY fixed. */
static void
zoom_at (CtGraphView *self, double zoom, double wx, double wy)
{
  double gx, gy;

  zoom = CLAMP (zoom, ZOOM_MIN, ZOOM_MAX);
  if (zoom == self->zoom)
    return;
  stop_animation (self);
  to_graph (self, wx, wy, &gx, &gy);
  self->zoom = zoom;
  /* node pictures are drawn at the zoom */
  redraw_all_nodes (self);
  set_origin (self, gx - wx / zoom, gy - wy / zoom);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

double
ct_graph_view_get_zoom (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), 1);
  return self->zoom;
}

void
ct_graph_view_set_zoom (CtGraphView *self, double zoom)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  self->fit_pending = FALSE;
  zoom_at (self, zoom, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
           gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

void
ct_graph_view_zoom_in (CtGraphView *self)
{
  ct_graph_view_set_zoom (self, self->zoom * ZOOM_STEP);
}

void
ct_graph_view_zoom_out (CtGraphView *self)
{
  ct_graph_view_set_zoom (self, self->zoom / ZOOM_STEP);
}

/* The part of the view a fitted graph goes into: a margin all round, and a
 * band at the bottom where apps lay their controls over the canvas (zoom,
 * phase), so that no node hides under them. Widget pixels. */
static void
fit_area (int width, int height, double *area_w, double *area_h)
{
  *area_w = MAX (1.0, width - 2 * FIT_PAD);
  *area_h = MAX (1.0, height - 2 * FIT_PAD - (height > 4 * FIT_BOTTOM ? FIT_BOTTOM : 0));
}

/* Centre the graph in the fit area at ZOOM. */
static void
fit_centre (CtGraphView *self, int width, double area_h, double zoom)
{
  self->zoom = zoom;
  self->origin_x = self->scene->layout->width / 2 - width / 2.0 / zoom;
  self->origin_y = self->scene->layout->height / 2 - (FIT_PAD + area_h / 2) / zoom;
}

static void
fit_now (CtGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double gw, gh, aw, ah, zoom;

  if (self->scene == NULL || width <= 0 || height <= 0)
    return;
  fit_area (width, height, &aw, &ah);
  gw = MAX (1.0, self->scene->layout->width);
  gh = MAX (1.0, self->scene->layout->height);
  zoom = MIN (1.0, MIN (aw / gw, ah / gh));
  zoom = CLAMP (zoom, ZOOM_MIN, ZOOM_MAX);
  /* a graph much longer than wide (most nets) would become a thin line:
   * fit its width and show where the data comes in */
  if (zoom < 0.35 && self->rankdir == CT_GRAPH_RANKDIR_TB && aw / gw > 2 * zoom)
    {
      zoom = MIN (1.0, MAX (0.35, aw / gw));
      self->zoom = zoom;
      self->origin_x = self->scene->layout->width / 2 - width / 2.0 / zoom;
      self->origin_y = -FIT_PAD / zoom;
    }
  else if (zoom < 0.35 && self->rankdir == CT_GRAPH_RANKDIR_LR && ah / gh > 2 * zoom)
    {
      zoom = MIN (1.0, MAX (0.35, ah / gh));
      self->zoom = zoom;
      self->origin_x = -FIT_PAD / zoom;
      self->origin_y = self->scene->layout->height / 2 - (FIT_PAD + ah / 2) / zoom;
    }
  else
    fit_centre (self, width, ah, zoom);
  redraw_all_nodes (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
ct_graph_view_zoom_to_fit (CtGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double gw, gh, aw, ah, zoom;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  stop_animation (self);
  self->fit_pending = FALSE;
  if (self->scene == NULL || width <= 0 || height <= 0)
    {
      self->fit_pending = TRUE;
      return;
    }
  /* the explicit "fit" always shows everything */
  fit_area (width, height, &aw, &ah);
  gw = MAX (1.0, self->scene->layout->width);
  gh = MAX (1.0, self->scene->layout->height);
  zoom = CLAMP (MIN (1.0, MIN (aw / gw, ah / gh)), ZOOM_MIN, ZOOM_MAX);
  fit_centre (self, width, ah, zoom);
  redraw_all_nodes (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

void
ct_graph_view_set_show_minimap (CtGraphView *self, gboolean show)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  show = !!show;
  if (show == self->show_minimap)
    return;
  self->show_minimap = show;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_MINIMAP]);
}

gboolean
ct_graph_view_get_show_minimap (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  return self->show_minimap;
}

static double
ease_out_cubic (double t)
{
  double u = 1 - t;
  return 1 - u * u * u;
}

static gboolean
animate_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);
  double t = (gdk_frame_clock_get_frame_time (clock) - self->anim_start) / 250000.0;

  if (t >= 1)
    {
      self->tick_id = 0;
      set_origin (self, self->anim_to_x, self->anim_to_y);
      return G_SOURCE_REMOVE;
    }
  t = ease_out_cubic (MAX (t, 0));
  set_origin (self, self->anim_from_x + (self->anim_to_x - self->anim_from_x) * t,
              self->anim_from_y + (self->anim_to_y - self->anim_from_y) * t);
  return G_SOURCE_CONTINUE;
}

static void
scroll_to (CtGraphView *self, double origin_x, double origin_y)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  gboolean animate = gtk_widget_get_mapped (GTK_WIDGET (self)) && clock != NULL;

  stop_animation (self);
  if (animate)
    {
      g_object_get (gtk_widget_get_settings (GTK_WIDGET (self)), "gtk-enable-animations",
                    &animate, NULL);
    }
  if (!animate)
    {
      set_origin (self, origin_x, origin_y);
      return;
    }
  self->anim_start = gdk_frame_clock_get_frame_time (clock);
  self->anim_from_x = self->origin_x;
  self->anim_from_y = self->origin_y;
  self->anim_to_x = origin_x;
  self->anim_to_y = origin_y;
  self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), animate_tick, NULL, NULL);
}

/* Node lookup by id, folded ids finding their host. */
static int
index_of (CtGraphView *self, const char *id)
{
  return self->model != NULL && id != NULL ? ct_graph_model_find_node (self->model, id) : -1;
}

gboolean
ct_graph_view_reveal (CtGraphView *self, const char *id, gboolean focus)
{
  int index;
  double x, y, w, h, wx0, wy0, wx1, wy1;
  int width, height;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  index = index_of (self, id);
  if (index < 0 || self->scene == NULL)
    return FALSE;
  if (self->fit_pending)
    {
      self->fit_pending = FALSE;
      fit_now (self);
    }
  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  ct_graph_scene_node_box (self->scene, index, &x, &y, &w, &h);
  to_widget (self, x, y, &wx0, &wy0);
  to_widget (self, x + w, y + h, &wx1, &wy1);
  if (wx0 < 0 || wy0 < 0 || wx1 > width || wy1 > height)
    scroll_to (self, x + w / 2 - width / 2.0 / self->zoom, y + h / 2 - height / 2.0 / self->zoom);
  if (focus && child_at (self, index) != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (child_at (self, index)));
  return TRUE;
}

const char *
ct_graph_view_find (CtGraphView *self, const char *text, const char *after_id)
{
  int n = node_count (self);
  int start;
  g_autofree char *needle = NULL;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  if (n == 0 || text == NULL || *text == '\0')
    return NULL;
  needle = g_utf8_casefold (text, -1);
  start = after_id != NULL ? index_of (self, after_id) + 1 : 0;
  for (int k = 0; k < n; k++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (self->model, (start + k) % n);
      g_autofree char *name = g_utf8_casefold (node->name, -1);

      if (strstr (name, needle) != NULL)
        return node->id;
      for (guint j = 0; j < node->folded->len; j++)
        {
          const CtGraphFolded *f = g_ptr_array_index (node->folded, j);
          g_autofree char *folded = g_utf8_casefold (f->name, -1);
          if (strstr (folded, needle) != NULL)
            return node->id;
        }
    }
  return NULL;
}

void
ct_graph_view_set_highlight (CtGraphView *self, const char *id)
{
  int old, index;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (g_strcmp0 (id, self->highlight) == 0)
    return;
  old = index_of (self, self->highlight);
  index = index_of (self, id);
  g_free (self->highlight);
  /* a folded layer's id lights up its host node */
  self->highlight = index >= 0 ? g_strdup (ct_graph_model_get_node (self->model, index)->id)
                                 : NULL;
  redraw_node (self, old);
  redraw_node (self, index);
  if (index >= 0)
    ct_graph_view_reveal (self, self->highlight, FALSE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGHLIGHT]);
}

const char *
ct_graph_view_get_highlight (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  return self->highlight;
}

void
ct_graph_view_set_expanded (CtGraphView *self, const char *id, gboolean expanded)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (id == NULL || !!expanded == g_hash_table_contains (self->expanded, id))
    return;
  if (expanded)
    g_hash_table_add (self->expanded, g_strdup (id));
  else
    g_hash_table_remove (self->expanded, id);
  rebuild_scene (self, TRUE);
}

gboolean
ct_graph_view_get_expanded (CtGraphView *self, const char *id)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  return id != NULL && g_hash_table_contains (self->expanded, id);
}

gboolean
ct_graph_view_get_node_position (CtGraphView *self, const char *id, double *x, double *y)
{
  int index;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  index = index_of (self, id);
  if (index < 0 || self->scene == NULL
      || strcmp (ct_graph_model_get_node (self->model, index)->id, id) != 0)
    return FALSE;
  *x = self->scene->layout->nodes[index].x;
  *y = self->scene->layout->nodes[index].y;
  return TRUE;
}

static void
pin (CtGraphView *self, const char *id, double x, double y)
{
  CtGraphPoint *p = g_new (CtGraphPoint, 1);

  p->x = x;
  p->y = y;
  g_hash_table_insert (self->pinned, g_strdup (id), p);
}

gboolean
ct_graph_view_set_node_position (CtGraphView *self, const char *id, double x, double y)
{
  int index;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  index = index_of (self, id);
  if (index < 0 || self->scene == NULL
      || strcmp (ct_graph_model_get_node (self->model, index)->id, id) != 0)
    return FALSE;
  pin (self, id, x, y);
  ct_graph_scene_move_node (self->scene, index, x, y);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

gboolean
ct_graph_view_export (CtGraphView *self, const char *path, GError **error)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  if (self->scene == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("There is no graph to export"));
      return FALSE;
    }
  return ct_graph_render_to_file (self->scene, path, ct_graph_palette_get (FALSE), 1, error);
}

/* Selection */

char **
ct_graph_view_dup_selected (CtGraphView *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  for (int i = 0; i < node_count (self); i++)
    {
      const char *id = ct_graph_model_get_node (self->model, i)->id;
      if (g_hash_table_contains (self->selected, id))
        g_strv_builder_add (builder, id);
    }
  return g_strv_builder_end (builder);
}

static void
update_selected_state (CtGraphView *self)
{
  for (guint i = 0; i < self->children->len; i++)
    {
      CtGraphNodeWidget *child = g_ptr_array_index (self->children, i);
      gboolean selected = g_hash_table_contains (self->selected, child->id);
      gboolean was = (gtk_widget_get_state_flags (GTK_WIDGET (child))
                      & GTK_STATE_FLAG_SELECTED) != 0;

      if (selected == was)
        continue;
      if (selected)
        gtk_widget_set_state_flags (GTK_WIDGET (child), GTK_STATE_FLAG_SELECTED, FALSE);
      else
        gtk_widget_unset_state_flags (GTK_WIDGET (child), GTK_STATE_FLAG_SELECTED);
      gtk_accessible_update_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_SELECTED,
                                   selected, -1);
      gtk_widget_queue_draw (GTK_WIDGET (child));
    }
  /* the selected node's edges are emphasised */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
select_only (CtGraphView *self, int index)
{
  g_hash_table_remove_all (self->selected);
  if (index >= 0)
    g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, index)->id));
  update_selected_state (self);
}

void
ct_graph_view_set_selected (CtGraphView *self, const char *const *ids)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->selected);
  for (gsize i = 0; ids != NULL && ids[i] != NULL; i++)
    {
      int index = index_of (self, ids[i]);
      if (index >= 0)
        g_hash_table_add (self->selected,
                          g_strdup (ct_graph_model_get_node (self->model, index)->id));
    }
  update_selected_state (self);
}

void
ct_graph_view_select_all (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  for (int i = 0; i < node_count (self); i++)
    g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, i)->id));
  update_selected_state (self);
}

void
ct_graph_view_unselect_all (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->selected);
  update_selected_state (self);
}

static void
toggle_selected (CtGraphView *self, int index)
{
  const char *id = ct_graph_model_get_node (self->model, index)->id;

  if (!g_hash_table_remove (self->selected, id))
    g_hash_table_add (self->selected, g_strdup (id));
  update_selected_state (self);
}

/* Drawing */

static void
get_visible_graph_rect (CtGraphView *self, double *rect)
{
  to_graph (self, 0, 0, &rect[0], &rect[1]);
  rect[2] = gtk_widget_get_width (GTK_WIDGET (self)) / self->zoom;
  rect[3] = gtk_widget_get_height (GTK_WIDGET (self)) / self->zoom;
}

/* The minimap's placement: a box in the bottom-right corner and the scale
 * that maps graph coordinates into it. FALSE when not shown. */
static gboolean
minimap_geometry (CtGraphView *self, double *box, double *scale)  /* scale[2]: x, y */
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double gw, gh, s, visible[4];

  if (!self->show_minimap || self->scene == NULL || width < 320 || height < 240)
    return FALSE;
  gw = MAX (self->scene->layout->width, 1);
  gh = MAX (self->scene->layout->height, 1);
  get_visible_graph_rect (self, visible);
  /* only when the graph does not fit */
  if (visible[0] <= 0 && visible[1] <= 0 && visible[0] + visible[2] >= gw
      && visible[1] + visible[3] >= gh)
    return FALSE;
  s = MIN (MINIMAP_MAX / gw, MIN (height * 0.6, MINIMAP_MAX * 1.6) / gh);
  /* a map nearly as large as the graph it maps (a small net just too long
   * for the view) would only hide it: at most a quarter of the view's scale */
  s = MIN (s, self->zoom / 4);
  scale[1] = s;
  /* a very tall net (ResNet-152) would be a hairline: widen it */
  scale[0] = MAX (s, MIN (48.0, MINIMAP_MAX) / gw);
  box[2] = gw * scale[0] + 2 * 6;
  box[3] = gh * scale[1] + 2 * 6;
  box[0] = width - box[2] - MINIMAP_PAD;
  box[1] = MINIMAP_PAD;  /* top right: apps overlay their controls at the bottom */
  return TRUE;
}

static void
rounded_box (cairo_t *cr, double x, double y, double w, double h, double r)
{
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

static void
draw_minimap (CtGraphView *self, cairo_t *cr, const CtGraphPalette *palette)
{
  double box[4], s[2], visible[4];
  const CtGraphLayout *layout;

  if (!minimap_geometry (self, box, s))
    return;
  layout = self->scene->layout;
  cairo_save (cr);
  rounded_box (cr, box[0], box[1], box[2], box[3], 8);
  cairo_set_source_rgba (cr, palette->node_body.r, palette->node_body.g, palette->node_body.b,
                         0.92);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, palette->dark ? 0.5 : 0.15);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);

  cairo_translate (cr, box[0] + 6, box[1] + 6);
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CtGraphLayoutNode *n = &layout->nodes[i];
      const CtGraphNode *node = ct_graph_model_get_node (self->model, i);
      const CtGraphColor *c = node->error != NULL ? &palette->error : &palette->family[node->family];
      cairo_rectangle (cr, (n->x - n->width / 2) * s[0], (n->y - n->height / 2) * s[1],
                       MAX (n->width * s[0], 1.5), MAX (n->height * s[1], 1.5));
      cairo_set_source_rgba (cr, c->r, c->g, c->b, 0.85);
      cairo_fill (cr);
    }
  get_visible_graph_rect (self, visible);
  cairo_rectangle (cr, -6, -6, box[2], box[3]);
  cairo_clip (cr);
  cairo_rectangle (cr, visible[0] * s[0], visible[1] * s[1], visible[2] * s[0],
                   visible[3] * s[1]);
  cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.12);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.9);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_feedback (CtGraphView *self, cairo_t *cr, const CtGraphPalette *palette)
{
  if (self->drag == DRAG_CONNECT || self->drag == DRAG_DISCONNECT)
    {
      CtGraphPoint from;
      double fx, fy;

      if (self->drag == DRAG_CONNECT)
        from = ct_graph_scene_port_position (self->scene, self->drag_node, TRUE, self->drag_port);
      else
        {
          const CtGraphEdge *edge = ct_graph_model_get_edge (self->model, self->drag_edge);
          from = ct_graph_scene_port_position (self->scene, edge->from_node, TRUE,
                                               edge->from_port);
        }
      to_widget (self, from.x, from.y, &fx, &fy);
      cairo_move_to (cr, fx, fy);
      if (self->rankdir == CT_GRAPH_RANKDIR_LR)
        {
          double d = MAX (fabs (self->drag_x - fx) / 2, 20);
          cairo_curve_to (cr, fx + d, fy, self->drag_x - d, self->drag_y, self->drag_x,
                          self->drag_y);
        }
      else
        {
          double d = MAX (fabs (self->drag_y - fy) / 2, 20);
          cairo_curve_to (cr, fx, fy + d, self->drag_x, self->drag_y - d, self->drag_x,
                          self->drag_y);
        }
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 1);
      cairo_set_line_width (cr, 2.5);
      if (self->drag == DRAG_DISCONNECT && self->drag_target < 0)
        {
          static const double dashes[] = { 6, 4 };
          cairo_set_dash (cr, dashes, 2, 0);
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_arc (cr, self->drag_x, self->drag_y, 4.5, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  else if (self->drag == DRAG_RUBBER)
    {
      double x = MIN (self->drag_start_x, self->drag_x);
      double y = MIN (self->drag_start_y, self->drag_y);
      double w = fabs (self->drag_x - self->drag_start_x);
      double h = fabs (self->drag_y - self->drag_start_y);
      cairo_rectangle (cr, x + 0.5, y + 0.5, w, h);
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.15);
      cairo_fill_preserve (cr);
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.9);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
}

static gboolean
node_visible (CtGraphView *self, guint index, const double *rect)
{
  const CtGraphLayoutNode *n = &self->scene->layout->nodes[index];
  double m = NODE_MARGIN;

  return n->x + n->width / 2 + m >= rect[0] && n->x - n->width / 2 - m <= rect[0] + rect[2]
         && n->y + n->height / 2 + m >= rect[1] && n->y - n->height / 2 - m <= rect[1] + rect[3];
}

/* The dot grid: one dot repeated by the renderer, not thousands drawn. */
static void
snapshot_grid (CtGraphView *self, GtkSnapshot *snapshot, const CtGraphPalette *palette,
               int width, int height)
{
  double step = GRID_STEP * self->zoom;
  double x0, y0, dot = self->zoom >= 0.6 ? 2 : 1;
  GdkRGBA color = { palette->grid.r, palette->grid.g, palette->grid.b, 1 };

  while (step < 12)
    step *= 2;
  x0 = fmod (-self->origin_x * self->zoom, step);
  y0 = fmod (-self->origin_y * self->zoom, step);
  if (x0 < 0)
    x0 += step;
  if (y0 < 0)
    y0 += step;
  x0 = round (x0);
  y0 = round (y0);
  gtk_snapshot_push_repeat (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height),
                            &GRAPHENE_RECT_INIT (x0, y0, step, step));
  gtk_snapshot_append_color (snapshot, &color, &GRAPHENE_RECT_INIT (x0, y0, dot, dot));
  gtk_snapshot_pop (snapshot);
}

/* The node whose edges stand out: the highlighted one, else the only
 * selected one. */
static int
emphasised_node (CtGraphView *self)
{
  int node = index_of (self, self->highlight);

  if (node < 0 && g_hash_table_size (self->selected) == 1)
    {
      GHashTableIter iter;
      gpointer key;
      g_hash_table_iter_init (&iter, self->selected);
      if (g_hash_table_iter_next (&iter, &key, NULL))
        node = index_of (self, key);
    }
  return node;
}

static void
snapshot_edges (CtGraphView *self, GtkSnapshot *snapshot, const CtGraphPalette *palette,
                int width, int height, const double *rect)
{
  double x0, y0, x1, y1;
  cairo_t *cr;

  /* only the part of the view the graph covers (labels reach a little
   * beyond its box) */
  to_widget (self, -160, -40, &x0, &y0);
  to_widget (self, self->scene->layout->width + 160, self->scene->layout->height + 40, &x1, &y1);
  x0 = floor (MAX (x0, 0));
  y0 = floor (MAX (y0, 0));
  x1 = ceil (MIN (x1, width));
  y1 = ceil (MIN (y1, height));
  if (x1 <= x0 || y1 <= y0)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x0, y0, x1 - x0, y1 - y0));
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_translate (cr, -self->origin_x, -self->origin_y);
  /* far out, labels would be unreadable specks: edges only */
  ct_graph_render_edges (cr, self->scene, palette, rect, emphasised_node (self),
                         self->zoom >= LABEL_MIN_ZOOM);
  if (self->drop_edge >= 0)
    {
      /* the edge a dropped layer would be inserted into */
      const CtGraphEdge *edge = ct_graph_model_get_edge (self->model, self->drop_edge);
      CtGraphPoint a = ct_graph_scene_port_position (self->scene, edge->from_node, TRUE,
                                                     edge->from_port);
      CtGraphPoint b = ct_graph_scene_port_position (self->scene, edge->to_node, FALSE,
                                                     edge->to_port);
      cairo_arc (cr, (a.x + b.x) / 2, (a.y + b.y) / 2, 9, 0, 2 * G_PI);
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.9);
      cairo_fill (cr);
    }
  cairo_destroy (cr);
}

static void
ct_graph_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  const CtGraphPalette *palette = palette_for (widget);
  GdkRGBA background = { palette->background.r, palette->background.g, palette->background.b,
                         1 };
  double rect[4], box[4], s[2];
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;
  /* Per frame only the edges in view are drawn (and the minimap): the
   * background is a colour, the grid one repeated dot, and every node a
   * texture GTK keeps while pan moves it. */
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));
  snapshot_grid (self, snapshot, palette, width, height);
  if (self->scene == NULL)
    return;
  get_visible_graph_rect (self, rect);
  snapshot_edges (self, snapshot, palette, width, height, rect);

  for (guint i = 0; i < self->children->len; i++)
    if (node_visible (self, i, rect))
      gtk_widget_snapshot_child (widget, g_ptr_array_index (self->children, i), snapshot);

  if (self->drag == DRAG_CONNECT || self->drag == DRAG_DISCONNECT || self->drag == DRAG_RUBBER)
    {
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
      draw_feedback (self, cr, palette);
      cairo_destroy (cr);
    }
  if (minimap_geometry (self, box, s))
    {
      cr = gtk_snapshot_append_cairo (snapshot,
                                      &GRAPHENE_RECT_INIT (floor (box[0]) - 1, floor (box[1]) - 1,
                                                           ceil (box[2]) + 2, ceil (box[3]) + 2));
      draw_minimap (self, cr, palette);
      cairo_destroy (cr);
    }
}

static void
ct_graph_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);

  if (self->fit_pending && self->scene != NULL && width > 0 && height > 0)
    {
      self->fit_pending = FALSE;
      fit_now (self);
    }
  for (guint i = 0; i < self->children->len; i++)
    {
      GtkWidget *child = g_ptr_array_index (self->children, i);
      double x, y, w, h, wx, wy;
      GskTransform *transform;

      ct_graph_scene_node_box (self->scene, i, &x, &y, &w, &h);
      to_widget (self, x - NODE_MARGIN, y - NODE_MARGIN, &wx, &wy);
      /* whole pixels: a node texture placed at a fraction would be
       * resampled and blur; edges meet it within half a pixel */
      transform = gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT ((float) round (wx),
                                                                       (float) round (wy)));
      gtk_widget_allocate (child, (int) ceil ((w + 2 * NODE_MARGIN) * self->zoom) + 1,
                           (int) ceil ((h + 2 * NODE_MARGIN) * self->zoom) + 1, -1, transform);
    }
}

static void
ct_graph_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                       int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);

  /* children are placed freely: measure them only to satisfy GTK */
  for (guint i = 0; i < self->children->len; i++)
    gtk_widget_measure (g_ptr_array_index (self->children, i), orientation, -1, NULL, NULL,
                        NULL, NULL);
  *minimum = 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 640 : 480;
}

/* Pointer input */

static double
port_hit_radius (CtGraphView *self)
{
  return PORT_HIT / self->zoom;
}

/* The edge into bottom PORT of NODE, or -1. */
static int
edge_into (CtGraphView *self, guint node, guint port)
{
  guint n_in;
  const guint *in = ct_graph_model_node_in_edges (self->model, node, &n_in);

  for (guint i = 0; i < n_in; i++)
    if (ct_graph_model_get_edge (self->model, in[i])->to_port == port)
      return (int) in[i];
  return -1;
}

static gboolean
in_minimap (CtGraphView *self, double wx, double wy)
{
  double box[4], s[2];

  return minimap_geometry (self, box, s) && wx >= box[0] && wx <= box[0] + box[2]
         && wy >= box[1] && wy <= box[1] + box[3];
}

static void
minimap_center_on (CtGraphView *self, double wx, double wy)
{
  double box[4], s[2];

  if (!minimap_geometry (self, box, s))
    return;
  stop_animation (self);
  set_origin (self, (wx - box[0] - 6) / s[0] - gtk_widget_get_width (GTK_WIDGET (self)) / 2.0
                      / self->zoom,
              (wy - box[1] - 6) / s[1] - gtk_widget_get_height (GTK_WIDGET (self)) / 2.0
                / self->zoom);
}

static void
set_hover (CtGraphView *self, int node)
{
  if (node == self->hover_node)
    return;
  redraw_node (self, self->hover_node);
  self->hover_node = node;
  redraw_node (self, node);
}

static void
update_cursor (CtGraphView *self, double wx, double wy)
{
  double gx, gy;
  gboolean is_top;
  guint port;
  const char *cursor = NULL;

  if (self->scene == NULL)
    {
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), NULL);
      return;
    }
  to_graph (self, wx, wy, &gx, &gy);
  if (in_minimap (self, wx, wy))
    cursor = "pointer";
  else if (ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top,
                                   &port) >= 0)
    cursor = "crosshair";
  else if (ct_graph_scene_node_at (self->scene, gx, gy) >= 0)
    cursor = "default";
  else
    cursor = "grab";
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), cursor);
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, CtGraphView *self)
{
  double gx, gy;

  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  if (self->scene == NULL || self->drag != DRAG_NONE)
    return;
  to_graph (self, x, y, &gx, &gy);
  set_hover (self, in_minimap (self, x, y) ? -1 : ct_graph_scene_node_at (self->scene, gx, gy));
  update_cursor (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *controller, CtGraphView *self)
{
  self->pointer_inside = FALSE;
  set_hover (self, -1);
}

static void
on_click_pressed (GtkGestureClick *gesture, int n_press, double x, double y, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  double gx, gy;
  int node;
  gboolean is_top;
  guint port;

  if (self->scene == NULL || in_minimap (self, x, y))
    return;
  to_graph (self, x, y, &gx, &gy);
  /* ports start drags, they do not select */
  if (ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top, &port) >= 0)
    return;
  node = ct_graph_scene_node_at (self->scene, gx, gy);
  if (node < 0)
    {
      if (!(state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) && n_press == 1
          && g_hash_table_size (self->selected) > 0)
        {
          select_only (self, -1);
          g_signal_emit (self, signals[SELECTION_CHANGED], 0);
        }
      gtk_widget_grab_focus (GTK_WIDGET (self));
      return;
    }
  gtk_widget_grab_focus (GTK_WIDGET (child_at (self, node)));
  if (n_press == 2)
    {
      g_signal_emit (self, signals[NODE_ACTIVATED], 0, ct_graph_model_get_node (self->model,
                                                                                node)->id);
      return;
    }
  if (ct_graph_scene_hit_folded (self->scene, node, gx, gy) && !(state & GDK_CONTROL_MASK))
    {
      const char *id = ct_graph_model_get_node (self->model, node)->id;
      /* select first: the scene is rebuilt by the toggle */
      if (!g_hash_table_contains (self->selected, id))
        {
          select_only (self, node);
          g_signal_emit (self, signals[SELECTION_CHANGED], 0);
        }
      ct_graph_view_set_expanded (self, id, !ct_graph_view_get_expanded (self, id));
      return;
    }
  if (state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK))
    toggle_selected (self, node);
  else if (!g_hash_table_contains (self->selected, ct_graph_model_get_node (self->model,
                                                                            node)->id))
    select_only (self, node);
  else
    return;  /* clicking a selected node keeps a multiple selection for dragging */
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

static void
on_secondary_pressed (GtkGestureClick *gesture, int n_press, double x, double y,
                      CtGraphView *self)
{
  double gx, gy;
  int node = -1;
  const char *id = NULL;

  if (self->scene != NULL)
    {
      to_graph (self, x, y, &gx, &gy);
      node = ct_graph_scene_node_at (self->scene, gx, gy);
    }
  if (node >= 0)
    {
      id = ct_graph_model_get_node (self->model, node)->id;
      if (!g_hash_table_contains (self->selected, id))
        {
          select_only (self, node);
          g_signal_emit (self, signals[SELECTION_CHANGED], 0);
        }
      gtk_widget_grab_focus (GTK_WIDGET (child_at (self, node)));
    }
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  g_signal_emit (self, signals[CONTEXT_MENU], 0, id, x, y);
}

static void
begin_move (CtGraphView *self, int node)
{
  const char *id = ct_graph_model_get_node (self->model, node)->id;

  g_array_set_size (self->drag_moved, 0);
  g_array_set_size (self->drag_moved_from, 0);
  if (!g_hash_table_contains (self->selected, id))
    {
      guint n = node;
      g_array_append_val (self->drag_moved, n);
    }
  else
    for (int i = 0; i < node_count (self); i++)
      if (g_hash_table_contains (self->selected, ct_graph_model_get_node (self->model, i)->id))
        {
          guint n = i;
          g_array_append_val (self->drag_moved, n);
        }
  for (guint i = 0; i < self->drag_moved->len; i++)
    {
      const CtGraphLayoutNode *n = &self->scene->layout->nodes[g_array_index (self->drag_moved,
                                                                              guint, i)];
      CtGraphPoint p = { n->x, n->y };
      g_array_append_val (self->drag_moved_from, p);
    }
  self->drag = DRAG_MOVE;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  double gx, gy;
  gboolean is_top = FALSE;
  guint port = 0;
  int node;

  self->drag = DRAG_NONE;
  self->drag_start_x = self->drag_x = x;
  self->drag_start_y = self->drag_y = y;
  self->drag_origin_x = self->origin_x;
  self->drag_origin_y = self->origin_y;
  self->drag_target = -1;
  stop_animation (self);
  if (self->scene == NULL)
    {
      self->drag = DRAG_PAN;
      return;
    }
  if (in_minimap (self, x, y))
    {
      self->drag = DRAG_MINIMAP;
      minimap_center_on (self, x, y);
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }
  to_graph (self, x, y, &gx, &gy);
  node = ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top, &port);
  if (node >= 0 && is_top)
    {
      self->drag = DRAG_CONNECT;
      self->drag_node = node;
      self->drag_port = port;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }
  if (node >= 0 && !is_top && edge_into (self, node, port) >= 0)
    {
      self->drag = DRAG_DISCONNECT;
      self->drag_edge = edge_into (self, node, port);
      self->drag_target = node;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }
  node = ct_graph_scene_node_at (self->scene, gx, gy);
  if (node >= 0)
    {
      self->drag_node = node;
      begin_move (self, node);
      return;
    }
  self->drag = (state & GDK_SHIFT_MASK) ? DRAG_RUBBER : DRAG_PAN;
  if (self->drag == DRAG_PAN)
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static int
target_node (CtGraphView *self, double wx, double wy, int *bottom_port)
{
  double gx, gy;
  gboolean is_top;
  guint port;
  int node;

  to_graph (self, wx, wy, &gx, &gy);
  *bottom_port = -1;
  node = ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top, &port);
  if (node >= 0 && !is_top)
    {
      *bottom_port = (int) port;
      return node;
    }
  return ct_graph_scene_node_at (self->scene, gx, gy);
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, CtGraphView *self)
{
  int bottom_port;

  self->drag_x = self->drag_start_x + dx;
  self->drag_y = self->drag_start_y + dy;
  switch (self->drag)
    {
    case DRAG_PAN:
      set_origin (self, self->drag_origin_x - dx / self->zoom,
                  self->drag_origin_y - dy / self->zoom);
      break;
    case DRAG_MINIMAP:
      minimap_center_on (self, self->drag_x, self->drag_y);
      break;
    case DRAG_MOVE:
      if (fabs (dx) < 4 && fabs (dy) < 4)
        break;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      for (guint i = 0; i < self->drag_moved->len; i++)
        {
          CtGraphPoint from = g_array_index (self->drag_moved_from, CtGraphPoint, i);
          ct_graph_scene_move_node (self->scene, g_array_index (self->drag_moved, guint, i),
                                    from.x + dx / self->zoom, from.y + dy / self->zoom);
        }
      gtk_widget_queue_allocate (GTK_WIDGET (self));
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;
    case DRAG_CONNECT:
    case DRAG_DISCONNECT:
      {
        int old = self->drag_target;
        self->drag_target = target_node (self, self->drag_x, self->drag_y, &bottom_port);
        if (self->drag == DRAG_CONNECT && self->drag_target == self->drag_node)
          self->drag_target = -1;
        if (old != self->drag_target)
          {
            redraw_node (self, old);
            redraw_node (self, self->drag_target);
          }
        gtk_widget_queue_draw (GTK_WIDGET (self));
      }
      break;
    case DRAG_RUBBER:
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;
    case DRAG_NONE:
    default:
      break;
    }
}

static void
finish_rubber (CtGraphView *self, GdkModifierType state)
{
  double x0, y0, x1, y1;
  gboolean changed = FALSE;

  to_graph (self, MIN (self->drag_start_x, self->drag_x), MIN (self->drag_start_y, self->drag_y),
            &x0, &y0);
  to_graph (self, MAX (self->drag_start_x, self->drag_x), MAX (self->drag_start_y, self->drag_y),
            &x1, &y1);
  if (!(state & GDK_CONTROL_MASK) && g_hash_table_size (self->selected) > 0)
    {
      g_hash_table_remove_all (self->selected);
      changed = TRUE;
    }
  for (int i = 0; i < node_count (self); i++)
    {
      double bx, by, bw, bh;
      ct_graph_scene_node_box (self->scene, i, &bx, &by, &bw, &bh);
      if (bx + bw >= x0 && bx <= x1 && by + bh >= y0 && by <= y1)
        changed |= g_hash_table_add (self->selected,
                                     g_strdup (ct_graph_model_get_node (self->model, i)->id));
    }
  update_selected_state (self);
  if (changed)
    g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  DragMode mode = self->drag;
  int target, bottom_port;

  self->drag = DRAG_NONE;
  if (self->scene == NULL)
    return;
  switch (mode)
    {
    case DRAG_CONNECT:
      target = target_node (self, self->drag_start_x + dx, self->drag_start_y + dy, &bottom_port);
      if (target >= 0 && target != self->drag_node)
        g_signal_emit (self, signals[CONNECT_REQUESTED], 0,
                       ct_graph_model_get_node (self->model, self->drag_node)->id,
                       self->drag_port, ct_graph_model_get_node (self->model, target)->id,
                       bottom_port);
      break;
    case DRAG_DISCONNECT:
      {
        const CtGraphEdge *edge = ct_graph_model_get_edge (self->model, self->drag_edge);
        guint from = edge->from_node, from_port = edge->from_port, to = edge->to_node;
        g_autofree char *from_id = g_strdup (ct_graph_model_get_node (self->model, from)->id);
        target = target_node (self, self->drag_start_x + dx, self->drag_start_y + dy,
                              &bottom_port);
        g_autofree char *target_id = NULL;
        if (target == (int) to && (bottom_port < 0 || bottom_port == (int) edge->to_port))
          break;  /* let go where it was: nothing changes */
        /* by id: the app's answer to the first signal replaces the model */
        if (target >= 0 && target != (int) from)
          target_id = g_strdup (ct_graph_model_get_node (self->model, target)->id);
        g_signal_emit (self, signals[DISCONNECT_REQUESTED], 0, (guint) self->drag_edge);
        /* dropped on another node: reconnect the blob there */
        if (target_id != NULL && self->model != NULL
            && ct_graph_model_find_node (self->model, target_id) >= 0)
          g_signal_emit (self, signals[CONNECT_REQUESTED], 0, from_id, from_port, target_id,
                         bottom_port);
      }
      break;
    case DRAG_MOVE:
      if (fabs (dx) < 4 && fabs (dy) < 4)
        break;
      for (guint i = 0; i < self->drag_moved->len; i++)
        {
          guint node = g_array_index (self->drag_moved, guint, i);
          const CtGraphLayoutNode *n = &self->scene->layout->nodes[node];
          const char *id = ct_graph_model_get_node (self->model, node)->id;
          pin (self, id, n->x, n->y);
          g_signal_emit (self, signals[NODE_MOVED], 0, id);
        }
      break;
    case DRAG_RUBBER:
      finish_rubber (self, state);
      break;
    case DRAG_PAN:
    case DRAG_MINIMAP:
    case DRAG_NONE:
    default:
      break;
    }
  if (self->drag_target >= 0)
    redraw_node (self, self->drag_target);
  self->drag_target = -1;
  update_cursor (self, self->drag_start_x + dx, self->drag_start_y + dy);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (controller));
  gboolean wheel = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL;

  self->fit_pending = FALSE;
  if (state & GDK_CONTROL_MASK)
    {
      double factor = pow (wheel ? 1.15 : 1.01, -dy);
      zoom_at (self, self->zoom * factor, self->pointer_x, self->pointer_y);
      return TRUE;
    }
  if (state & GDK_SHIFT_MASK && dx == 0)
    {
      dx = dy;
      dy = 0;
    }
  stop_animation (self);
  set_origin (self, self->origin_x + dx * (wheel ? 50 : 1) / self->zoom,
              self->origin_y + dy * (wheel ? 50 : 1) / self->zoom);
  return TRUE;
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, CtGraphView *self)
{
  self->pinch_zoom = self->zoom;
}

static void
on_pinch_scale (GtkGestureZoom *gesture, double scale, CtGraphView *self)
{
  double cx, cy;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    {
      cx = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      cy = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  zoom_at (self, self->pinch_zoom * scale, cx, cy);
}

/* Keyboard */

static int
focused_node (CtGraphView *self)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (GTK_WIDGET (self)));

  while (focus != NULL && !CT_IS_GRAPH_NODE_WIDGET (focus))
    focus = focus == GTK_WIDGET (self) ? NULL : gtk_widget_get_parent (focus);
  if (focus == NULL || CT_GRAPH_NODE_WIDGET (focus)->view != self)
    return -1;
  return (int) CT_GRAPH_NODE_WIDGET (focus)->index;
}

/* The neighbour of NODE in direction: along edges (forward: to consumers,
 * backward: to producers), picking the one closest across; or within the
 * rank (across: -1 left/up, +1 right/down). */
static int
neighbour (CtGraphView *self, int node, int along, int across)
{
  const CtGraphLayout *layout = self->scene->layout;
  const CtGraphLayoutNode *from = &layout->nodes[node];
  gboolean lr = self->rankdir == CT_GRAPH_RANKDIR_LR;
  double from_across = lr ? from->y : from->x;
  int best = -1;
  double best_d = G_MAXDOUBLE;

  if (along != 0)
    {
      guint n;
      const guint *edges = along > 0 ? ct_graph_model_node_out_edges (self->model, node, &n)
                                     : ct_graph_model_node_in_edges (self->model, node, &n);
      for (guint i = 0; i < n; i++)
        {
          const CtGraphEdge *e = ct_graph_model_get_edge (self->model, edges[i]);
          int other = along > 0 ? (int) e->to_node : (int) e->from_node;
          const CtGraphLayoutNode *o = &layout->nodes[other];
          double d = fabs ((lr ? o->y : o->x) - from_across) + 0.01 * abs (o->rank - from->rank);
          if (d < best_d)
            {
              best_d = d;
              best = other;
            }
        }
      return best;
    }
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CtGraphLayoutNode *o = &layout->nodes[i];
      double delta = (lr ? o->y : o->x) - from_across;
      double d;
      if ((int) i == node || delta * across <= 0)
        continue;
      /* same rank first, then the nearest rank */
      d = fabs (delta) + 10000.0 * abs (o->rank - from->rank);
      if (d < best_d)
        {
          best_d = d;
          best = (int) i;
        }
    }
  return best;
}

static void
move_focus (CtGraphView *self, int node, GdkModifierType state)
{
  if (node < 0)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  ct_graph_view_reveal (self, ct_graph_model_get_node (self->model, node)->id, TRUE);
  if (state & GDK_CONTROL_MASK)
    return;  /* move the focus only */
  if (state & GDK_SHIFT_MASK)
    g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, node)->id));
  else
    {
      g_hash_table_remove_all (self->selected);
      g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, node)->id));
    }
  update_selected_state (self);
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, CtGraphView *self)
{
  int focus = focused_node (self);
  gboolean lr = self->rankdir == CT_GRAPH_RANKDIR_LR;
  int along = 0, across = 0;

  state &= gtk_accelerator_get_default_mod_mask ();
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      ct_graph_view_zoom_in (self);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      ct_graph_view_zoom_out (self);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      if (state != 0)
        return FALSE;
      ct_graph_view_zoom_to_fit (self);
      return TRUE;
    case GDK_KEY_1:
    case GDK_KEY_KP_1:
      if (state != 0)
        return FALSE;
      ct_graph_view_set_zoom (self, 1.0);
      return TRUE;
    case GDK_KEY_Delete:
    case GDK_KEY_KP_Delete:
    case GDK_KEY_BackSpace:
      {
        g_auto(GStrv) ids = ct_graph_view_dup_selected (self);
        if (ids[0] != NULL)
          g_signal_emit (self, signals[DELETE_REQUESTED], 0, ids);
        return ids[0] != NULL;
      }
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
      if (focus < 0)
        return FALSE;
      g_signal_emit (self, signals[NODE_ACTIVATED], 0,
                     ct_graph_model_get_node (self->model, focus)->id);
      return TRUE;
    case GDK_KEY_space:
      if (focus < 0)
        return FALSE;
      toggle_selected (self, focus);
      g_signal_emit (self, signals[SELECTION_CHANGED], 0);
      return TRUE;
    case GDK_KEY_Escape:
      if (g_hash_table_size (self->selected) == 0)
        return FALSE;
      select_only (self, -1);
      g_signal_emit (self, signals[SELECTION_CHANGED], 0);
      return TRUE;
    case GDK_KEY_F10:
      if (state != GDK_SHIFT_MASK)
        return FALSE;
      G_GNUC_FALLTHROUGH;
    case GDK_KEY_Menu:
      {
        double x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
        double y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
        if (focus >= 0)
          to_widget (self, self->scene->layout->nodes[focus].x,
                     self->scene->layout->nodes[focus].y, &x, &y);
        g_signal_emit (self, signals[CONTEXT_MENU], 0,
                       focus >= 0 ? ct_graph_model_get_node (self->model, focus)->id : NULL,
                       x, y);
        return TRUE;
      }
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      *(lr ? &across : &along) = -1;
      break;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      *(lr ? &across : &along) = 1;
      break;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      *(lr ? &along : &across) = -1;
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      *(lr ? &along : &across) = 1;
      break;
    default:
      return FALSE;
    }
  if (self->scene == NULL || node_count (self) == 0)
    return FALSE;
  if (focus < 0)
    {
      /* no node has the focus: start from the selection, else the first
       * node */
      for (int i = 0; i < node_count (self) && focus < 0; i++)
        if (g_hash_table_contains (self->selected, ct_graph_model_get_node (self->model, i)->id))
          focus = i;
      move_focus (self, focus >= 0 ? focus : 0, state);
      return TRUE;
    }
  move_focus (self, neighbour (self, focus, along, across), state);
  return TRUE;
}

/* Widget actions: the same operations as the keys, for menus, shortcuts
 * of the window and tests. */

static void
action_zoom (GtkWidget *widget, const char *name, GVariant *parameter)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);

  if (strcmp (name, "graph.zoom-in") == 0)
    ct_graph_view_zoom_in (self);
  else if (strcmp (name, "graph.zoom-out") == 0)
    ct_graph_view_zoom_out (self);
  else if (strcmp (name, "graph.zoom-fit") == 0)
    ct_graph_view_zoom_to_fit (self);
  else
    ct_graph_view_set_zoom (self, 1.0);
}

static void
action_select_all (GtkWidget *widget, const char *name, GVariant *parameter)
{
  ct_graph_view_select_all (CT_GRAPH_VIEW (widget));
  g_signal_emit (widget, signals[SELECTION_CHANGED], 0);
}

static void
action_delete (GtkWidget *widget, const char *name, GVariant *parameter)
{
  g_auto(GStrv) ids = ct_graph_view_dup_selected (CT_GRAPH_VIEW (widget));

  if (ids[0] != NULL)
    g_signal_emit (widget, signals[DELETE_REQUESTED], 0, ids);
}

/* "graph.navigate" with "up", "down", "left" or "right": as the arrow key. */
static void
action_navigate (GtkWidget *widget, const char *name, GVariant *parameter)
{
  static const struct {
    const char *name;
    guint keyval;
  } keys[] = {
    { "up", GDK_KEY_Up }, { "down", GDK_KEY_Down },
    { "left", GDK_KEY_Left }, { "right", GDK_KEY_Right },
  };
  const char *direction = g_variant_get_string (parameter, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (direction, keys[i].name) == 0)
      on_key_pressed (NULL, keys[i].keyval, 0, 0, CT_GRAPH_VIEW (widget));
}

/* Drops from the palette */

static GdkDragAction
on_drop_motion (GtkDropTarget *target, double x, double y, CtGraphView *self)
{
  double gx, gy;
  int edge = -1;

  if (self->scene != NULL)
    {
      to_graph (self, x, y, &gx, &gy);
      if (ct_graph_scene_node_at (self->scene, gx, gy) < 0)
        edge = ct_graph_scene_edge_at (self->scene, gx, gy, 10 / self->zoom);
    }
  if (edge != self->drop_edge)
    {
      self->drop_edge = edge;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  return GDK_ACTION_COPY;
}

static void
on_drop_leave (GtkDropTarget *target, CtGraphView *self)
{
  if (self->drop_edge >= 0)
    {
      self->drop_edge = -1;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, CtGraphView *self)
{
  const char *type;
  double gx, gy;
  int edge;

  if (!G_VALUE_HOLDS_STRING (value) || (type = g_value_get_string (value)) == NULL
      || *type == '\0')
    return FALSE;
  to_graph (self, x, y, &gx, &gy);
  on_drop_motion (target, x, y, self);
  edge = self->drop_edge;
  self->drop_edge = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[LAYER_DROPPED], 0, type, gx, gy, edge);
  return TRUE;
}

/* GObject */

static void
ct_graph_view_dispose (GObject *object)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  stop_animation (self);
  for (guint i = 0; self->children != NULL && i < self->children->len; i++)
    {
      CtGraphNodeWidget *child = g_ptr_array_index (self->children, i);
      child->view = NULL;
      gtk_widget_unparent (GTK_WIDGET (child));
    }
  if (self->children != NULL)
    g_ptr_array_set_size (self->children, 0);
  if (self->children_by_id != NULL)
    g_hash_table_remove_all (self->children_by_id);
  g_clear_pointer (&self->scene, ct_graph_scene_free);
  g_clear_pointer (&self->model, ct_graph_model_unref);
  G_OBJECT_CLASS (ct_graph_view_parent_class)->dispose (object);
}

static void
ct_graph_view_finalize (GObject *object)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  g_hash_table_unref (self->expanded);
  g_hash_table_unref (self->pinned);
  g_hash_table_unref (self->selected);
  g_hash_table_unref (self->children_by_id);
  g_ptr_array_unref (self->children);
  g_array_unref (self->drag_moved);
  g_array_unref (self->drag_moved_from);
  g_free (self->highlight);
  G_OBJECT_CLASS (ct_graph_view_parent_class)->finalize (object);
}

static void
ct_graph_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_pointer (value, self->model);
      break;
    case PROP_RANKDIR:
      g_value_set_int (value, self->rankdir);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;
    case PROP_SHOW_MINIMAP:
      g_value_set_boolean (value, self->show_minimap);
      break;
    case PROP_HIGHLIGHT:
      g_value_set_string (value, self->highlight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_graph_view_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      ct_graph_view_set_model (self, g_value_get_pointer (value));
      break;
    case PROP_RANKDIR:
      ct_graph_view_set_rankdir (self, g_value_get_int (value));
      break;
    case PROP_ZOOM:
      ct_graph_view_set_zoom (self, g_value_get_double (value));
      break;
    case PROP_SHOW_MINIMAP:
      ct_graph_view_set_show_minimap (self, g_value_get_boolean (value));
      break;
    case PROP_HIGHLIGHT:
      ct_graph_view_set_highlight (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_graph_view_class_init (CtGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_graph_view_dispose;
  object_class->finalize = ct_graph_view_finalize;
  object_class->get_property = ct_graph_view_get_property;
  object_class->set_property = ct_graph_view_set_property;
  widget_class->snapshot = ct_graph_view_snapshot;
  widget_class->size_allocate = ct_graph_view_size_allocate;
  widget_class->measure = ct_graph_view_measure;

  /* A CtGraphModel (a plain struct, not a boxed type: use the functions). */
  properties[PROP_MODEL] =
    g_param_spec_pointer ("model", NULL, NULL,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RANKDIR] =
    g_param_spec_int ("rankdir", NULL, NULL, CT_GRAPH_RANKDIR_TB, CT_GRAPH_RANKDIR_LR,
                      CT_GRAPH_RANKDIR_TB,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, ZOOM_MIN, ZOOM_MAX, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_MINIMAP] =
    g_param_spec_boolean ("show-minimap", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HIGHLIGHT] =
    g_param_spec_string ("highlight", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);
  signals[NODE_ACTIVATED] =
    g_signal_new ("node-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[CONNECT_REQUESTED] =
    g_signal_new ("connect-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_STRING,
                  G_TYPE_INT);
  signals[DISCONNECT_REQUESTED] =
    g_signal_new ("disconnect-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[DELETE_REQUESTED] =
    g_signal_new ("delete-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);
  signals[LAYER_DROPPED] =
    g_signal_new ("layer-dropped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                  G_TYPE_INT);
  signals[CONTEXT_MENU] =
    g_signal_new ("context-menu", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  signals[NODE_MOVED] =
    g_signal_new ("node-moved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "graph.zoom-in", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.zoom-out", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.zoom-fit", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.zoom-reset", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.select-all", NULL, action_select_all);
  gtk_widget_class_install_action (widget_class, "graph.delete", NULL, action_delete);
  gtk_widget_class_install_action (widget_class, "graph.navigate", "s", action_navigate);

  gtk_widget_class_set_css_name (widget_class, "graphview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ct_graph_view_init (CtGraphView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;
  GtkDropTarget *drop;

  self->zoom = 1;
  self->show_minimap = TRUE;
  self->hover_node = -1;
  self->drag_target = -1;
  self->drop_edge = -1;
  self->expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pinned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->children_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->children = g_ptr_array_new ();
  self->drag_moved = g_array_new (FALSE, FALSE, sizeof (guint));
  self->drag_moved_from = g_array_new (FALSE, FALSE, sizeof (CtGraphPoint));

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Net graph"), -1);

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_click_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_SECONDARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_secondary_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_pinch_scale), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  drop = gtk_drop_target_new (G_TYPE_STRING, GDK_ACTION_COPY);
  g_signal_connect (drop, "motion", G_CALLBACK (on_drop_motion), self);
  g_signal_connect (drop, "leave", G_CALLBACK (on_drop_leave), self);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}

GtkWidget *
ct_graph_view_new (void)
{
  return g_object_new (CT_TYPE_GRAPH_VIEW, NULL);
}
