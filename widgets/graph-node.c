/* graph-node.c: CtGraphNodeWidget, one node of the graph view: a real,
 * focusable child widget that draws its box and ports (through
 * graph-render.h, at the view's zoom) and carries the node's tooltip and
 * accessible name ("conv1, Convolution"); CtGraphFoldedWidget, an
 * invisible child of it for each layer folded into the node ("relu1, ReLU,
 * in place"); and how the view keeps one child per node of its model.
 * Activating either (gtk_widget_activate, or the "node.select" action a
 * screen reader lists) selects its layer as a click does. */
#include "graph-view-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

G_DEFINE_FINAL_TYPE (CtGraphNodeWidget, ct_graph_node_widget, GTK_TYPE_WIDGET)
G_DEFINE_FINAL_TYPE (CtGraphFoldedWidget, ct_graph_folded_widget, GTK_TYPE_WIDGET)

/* Palette from the theme: a light foreground colour means a dark theme. */
const CtGraphPalette *
ct_graph_view_palette (GtkWidget *widget)
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
  state |= GPOINTER_TO_UINT (g_hash_table_lookup (view->run_states, node->id));
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
  const GraphMark *mark;

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
                        ct_graph_view_folded_selected (view, self->index),
                        ct_graph_view_palette (widget));
  mark = ct_graph_view_lookup_mark (view, self->id);
  if (mark != NULL)
    ct_graph_render_node_mark (cr, view->scene, self->index, &mark->color);
  /* the ports belong to the node's picture: they move with it */
  if (view->zoom >= PORT_MIN_ZOOM)
    ct_graph_render_ports (cr, view->scene, self->index, ct_graph_view_palette (widget));
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
  /* the folded layers' children are placed over their chips: measured
   * only to satisfy GTK */
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_widget_measure (child, orientation, -1, NULL, NULL, NULL, NULL);
}

/* Each folded layer's child over its chip (or row), in the node's own
 * coordinates; one left out behind the ellipsis over the arrow that
 * unfolds it. */
static void
ct_graph_node_widget_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  CtGraphNodeWidget *self = CT_GRAPH_NODE_WIDGET (widget);
  CtGraphView *view = self->view;
  double x, y, w, h;

  if (view == NULL || view->scene == NULL || self->index >= ct_graph_model_n_nodes (view->model))
    return;
  ct_graph_scene_node_box (view->scene, self->index, &x, &y, &w, &h);
  for (guint i = 0; i < self->folded->len; i++)
    {
      GtkWidget *child = g_ptr_array_index (self->folded, i);
      double box[4] = { x, y, 0, 0 };

      if (!ct_graph_scene_folded_box (view->scene, self->index, i, box))
        ct_graph_scene_folded_toggle_box (view->scene, self->index, box);
      gtk_widget_size_allocate (child,
                                &(GtkAllocation) {
                                  (int) round ((box[0] - x + NODE_MARGIN) * view->zoom),
                                  (int) round ((box[1] - y + NODE_MARGIN) * view->zoom),
                                  (int) ceil (box[2] * view->zoom),
                                  (int) ceil (box[3] * view->zoom) },
                                -1);
    }
}

/* The "activate" signal's handler and the "node.select" action's, of both
 * classes: what a click on the node or on the folded layer's chip does. */
static void
select_layer (GtkWidget *widget)
{
  CtGraphNodeWidget *node = CT_IS_GRAPH_NODE_WIDGET (widget)
                              ? CT_GRAPH_NODE_WIDGET (widget)
                              : CT_GRAPH_NODE_WIDGET (gtk_widget_get_parent (widget));
  const char *id = CT_IS_GRAPH_NODE_WIDGET (widget) ? node->id
                                                    : CT_GRAPH_FOLDED_WIDGET (widget)->id;

  if (node != NULL && node->view != NULL)
    ct_graph_view_activate_layer (node->view, (int) node->index, id);
}

static void
action_select (GtkWidget *widget, const char *name, GVariant *parameter)
{
  select_layer (widget);
}

/* An "activate" action signal, the class's activate signal, and the
 * "node.select" action: GTK 4.8's AT-SPI bridge lists a custom widget's own
 * actions, and gtk_widget_activate() emits the signal. */
static void
class_init_activation (GtkWidgetClass *widget_class)
{
  guint signal = g_signal_new_class_handler ("activate", G_TYPE_FROM_CLASS (widget_class),
                                             G_SIGNAL_RUN_FIRST | G_SIGNAL_ACTION,
                                             G_CALLBACK (select_layer), NULL, NULL, NULL,
                                             G_TYPE_NONE, 0);

  gtk_widget_class_set_activate_signal (widget_class, signal);
  gtk_widget_class_install_action (widget_class, "node.select", NULL, action_select);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_BUTTON);
}

static void
ct_graph_node_widget_dispose (GObject *object)
{
  CtGraphNodeWidget *self = CT_GRAPH_NODE_WIDGET (object);

  if (self->folded != NULL)
    {
      for (guint i = 0; i < self->folded->len; i++)
        gtk_widget_unparent (g_ptr_array_index (self->folded, i));
      g_ptr_array_set_size (self->folded, 0);
    }
  G_OBJECT_CLASS (ct_graph_node_widget_parent_class)->dispose (object);
}

static void
ct_graph_node_widget_finalize (GObject *object)
{
  CtGraphNodeWidget *self = CT_GRAPH_NODE_WIDGET (object);

  g_free (self->id);
  g_ptr_array_unref (self->folded);
  G_OBJECT_CLASS (ct_graph_node_widget_parent_class)->finalize (object);
}

static void
ct_graph_node_widget_class_init (CtGraphNodeWidgetClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = ct_graph_node_widget_dispose;
  G_OBJECT_CLASS (klass)->finalize = ct_graph_node_widget_finalize;
  widget_class->snapshot = ct_graph_node_widget_snapshot;
  widget_class->measure = ct_graph_node_widget_measure;
  widget_class->size_allocate = ct_graph_node_widget_size_allocate;
  gtk_widget_class_set_css_name (widget_class, "graphnode");
  class_init_activation (widget_class);
}

static void
ct_graph_node_widget_init (CtGraphNodeWidget *self)
{
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  self->folded = g_ptr_array_new ();
}

/* Folded layers' widgets */

static void
ct_graph_folded_widget_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  *minimum = *natural = 0;
}

static void
ct_graph_folded_widget_finalize (GObject *object)
{
  g_free (CT_GRAPH_FOLDED_WIDGET (object)->id);
  G_OBJECT_CLASS (ct_graph_folded_widget_parent_class)->finalize (object);
}

static void
ct_graph_folded_widget_class_init (CtGraphFoldedWidgetClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ct_graph_folded_widget_finalize;
  widget_class->measure = ct_graph_folded_widget_measure;
  gtk_widget_class_set_css_name (widget_class, "graphfolded");
  class_init_activation (widget_class);
}

static void
ct_graph_folded_widget_init (CtGraphFoldedWidget *self)
{
  /* the node under it keeps the clicks, the tooltip and the focus */
  gtk_widget_set_can_target (GTK_WIDGET (self), FALSE);
  gtk_widget_set_focusable (GTK_WIDGET (self), FALSE);
}

static void
on_node_focus (GtkWidget *widget, GParamSpec *pspec, gpointer data)
{
  gtk_widget_queue_draw (widget);
}

/* One child per folded layer of N, reused while the ids stay the same,
 * named and marked as the layer is. */
static void
update_folded (CtGraphNodeWidget *node, const CtGraphNode *n)
{
  gboolean same = node->folded->len == n->folded->len;

  for (guint i = 0; same && i < n->folded->len; i++)
    same = strcmp (CT_GRAPH_FOLDED_WIDGET (g_ptr_array_index (node->folded, i))->id,
                   ((const CtGraphFolded *) g_ptr_array_index (n->folded, i))->id) == 0;
  if (!same)
    {
      for (guint i = 0; i < node->folded->len; i++)
        gtk_widget_unparent (g_ptr_array_index (node->folded, i));
      g_ptr_array_set_size (node->folded, 0);
      for (guint i = 0; i < n->folded->len; i++)
        {
          const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
          CtGraphFoldedWidget *child = g_object_new (CT_TYPE_GRAPH_FOLDED_WIDGET, NULL);

          child->id = g_strdup (f->id);
          child->index = i;
          gtk_widget_set_parent (GTK_WIDGET (child), GTK_WIDGET (node));
          g_ptr_array_add (node->folded, child);
          if (node->view != NULL && g_hash_table_contains (node->view->selected, f->id))
            gtk_accessible_update_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_SELECTED,
                                         TRUE, -1);
        }
      gtk_widget_queue_allocate (GTK_WIDGET (node));
    }
  for (guint i = 0; i < n->folded->len; i++)
    {
      const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
      GtkAccessible *child = g_ptr_array_index (node->folded, i);
      /* Translators: the name a screen reader gives a layer drawn inside
       * the node before it (a ReLU after a convolution): layer name, type */
      g_autofree char *label = g_strdup_printf (_("%s, %s, in place"), f->name, f->type);

      gtk_accessible_update_property (child, GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      f->error != NULL ? f->error : "", -1);
      if (f->error != NULL)
        gtk_accessible_update_state (child, GTK_ACCESSIBLE_STATE_INVALID,
                                     GTK_ACCESSIBLE_INVALID_TRUE, -1);
      else
        gtk_accessible_reset_state (child, GTK_ACCESSIBLE_STATE_INVALID);
    }
}

/* Name, tooltip and accessible description from the model. */
static void
node_widget_update (CtGraphNodeWidget *node, const CtGraphNode *n)
{
  g_autofree char *label = g_strdup_printf ("%s, %s", n->name, n->type);
  g_autoptr(GString) tip = g_string_new (NULL);
  const GraphMark *mark = node->view != NULL ? ct_graph_view_lookup_mark (node->view, n->id)
                                              : NULL;
  g_autofree char *description = NULL;

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
    {
      if (mark != NULL)
        g_string_append_printf (tip, "\n%s", mark->note);
      gtk_widget_set_tooltip_text (GTK_WIDGET (node), tip->str);
    }
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
      if (mark != NULL)
        {
          g_autofree char *note = g_markup_escape_text (mark->note, -1);
          g_string_append_printf (tip, "\n%s", note);
        }
      gtk_widget_set_tooltip_markup (GTK_WIDGET (node), tip->str);
    }
  /* a comparison's note is read out with the node, after any error */
  description = g_strjoin (n->error != NULL && mark != NULL ? "\n" : "",
                           n->error != NULL ? n->error : "",
                           mark != NULL ? mark->note : "", NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (node),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
  if (n->error != NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (node), GTK_ACCESSIBLE_STATE_INVALID,
                                 GTK_ACCESSIBLE_INVALID_TRUE, -1);
  else
    gtk_accessible_reset_state (GTK_ACCESSIBLE (node), GTK_ACCESSIBLE_STATE_INVALID);
  update_folded (node, n);
}

void
ct_graph_view_refresh_node (CtGraphView *self, int index)
{
  CtGraphNodeWidget *child;

  if (self->model == NULL || index < 0 || (guint) index >= self->children->len)
    return;
  child = g_ptr_array_index (self->children, index);
  node_widget_update (child, ct_graph_model_get_node (self->model, (guint) index));
  gtk_widget_queue_draw (GTK_WIDGET (child));
}

void
ct_graph_view_redraw_node (CtGraphView *self, int index)
{
  CtGraphNodeWidget *child = child_at (self, index);

  if (child != NULL)
    gtk_widget_queue_draw (GTK_WIDGET (child));
}

void
ct_graph_view_redraw_all_nodes (CtGraphView *self)
{
  for (guint i = 0; i < self->children->len; i++)
    gtk_widget_queue_draw (g_ptr_array_index (self->children, i));
}

/* Children */

void
ct_graph_view_sync_children (CtGraphView *self)
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
