/* plot-view.c: CtPlotView (see plot-view.h): a GtkWidget around a CtPlot.
 * It draws in snapshot() through gtk_snapshot_append_cairo and keeps the
 * render node until the data, the view, the size or the theme's colour
 * changes; the hover marks and the zoom rectangle are drawn over it each
 * frame. Appended points set a flag and add a tick callback (once), so a
 * burst of points costs one redraw in the next frame. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plot-view.h"

typedef enum {
  DRAG_NONE,
  DRAG_PAN,
  DRAG_RECT,
} DragMode;

struct _CtPlotView {
  GtkWidget parent_instance;

  CtPlot *plot;
  char *title;
  char *hover_text;
  double hover_x, hover_y; /* the pointer, or hover_x < 0 */
  gboolean log_scale;

  gboolean data_dirty; /* points came since the node was drawn */
  guint tick_id;
  DragMode drag;
  double drag_x, drag_y;   /* where the drag started */
  double drag_dx, drag_dy; /* its offset so far */
  double pinch_scale;

  GskRenderNode *node; /* the last drawing, for this size and colour */
  int node_width, node_height;
  GdkRGBA node_color;
  guint draw_count;
};

enum {
  PROP_0,
  PROP_TITLE,
  PROP_LOG_SCALE,
  PROP_HOVER_TEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (CtPlotView, ct_plot_view, GTK_TYPE_WIDGET)

static void
set_hover_text (CtPlotView *self, const char *text)
{
  if (g_strcmp0 (text, self->hover_text) == 0)
    return;
  g_free (self->hover_text);
  self->hover_text = g_strdup (text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HOVER_TEXT]);
}

static void
update_accessible (CtPlotView *self)
{
  g_autofree char *description = ct_plot_describe (self->plot);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  self->title != NULL ? self->title : _("Plot"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
refresh_hover (CtPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  g_autofree char *text = NULL;

  if (self->hover_x >= 0)
    text = ct_plot_hover_text (self->plot, gtk_widget_get_width (widget),
                               gtk_widget_get_height (widget), self->hover_x, self->hover_y);
  set_hover_text (self, text);
}

/* Anything but the pointer changed: draw again. */
void
ct_plot_view_changed (CtPlotView *self)
{
  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  self->data_dirty = FALSE;
  g_clear_pointer (&self->node, gsk_render_node_unref);
  refresh_hover (self);
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
on_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CtPlotView *self = CT_PLOT_VIEW (widget);

  self->tick_id = 0;
  /* snapshot() drops the node while data_dirty is set. */
  refresh_hover (self);
  update_accessible (self);
  gtk_widget_queue_draw (widget);
  return G_SOURCE_REMOVE;
}

gboolean
ct_plot_view_append_point (CtPlotView *self, int series, double x, double y)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), FALSE);
  if (!ct_plot_append (self->plot, series, x, y))
    return FALSE;
  self->data_dirty = TRUE;
  if (self->tick_id == 0 && gtk_widget_get_mapped (GTK_WIDGET (self)))
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), on_tick, NULL, NULL);
  return TRUE;
}

CtPlot *
ct_plot_view_get_plot (CtPlotView *self)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), NULL);
  return self->plot;
}

int
ct_plot_view_add_panel (CtPlotView *self, const char *title, double weight)
{
  int panel;

  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), -1);
  panel = ct_plot_add_panel (self->plot, title, weight);
  ct_plot_set_log (self->plot, panel, CT_PLOT_AXIS_LEFT, self->log_scale);
  ct_plot_view_changed (self);
  return panel;
}

int
ct_plot_view_add_series (CtPlotView *self,
                         int panel,
                         CtPlotAxisSide side,
                         const char *name,
                         CtPlotColor color,
                         CtPlotStyle style,
                         const char *run_label)
{
  int series;

  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), -1);
  series = ct_plot_add_series (self->plot, panel, side, name, color, style, run_label);
  ct_plot_view_changed (self);
  return series;
}

void
ct_plot_view_fade_all (CtPlotView *self, const char *run_label)
{
  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  ct_plot_fade_all (self->plot, run_label);
  ct_plot_view_changed (self);
}

void
ct_plot_view_set_title (CtPlotView *self, const char *title)
{
  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  if (g_strcmp0 (title, self->title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  update_accessible (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

void
ct_plot_view_set_log_scale (CtPlotView *self, gboolean log)
{
  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  log = !!log;
  if (log == self->log_scale)
    return;
  self->log_scale = log;
  for (int p = 0; p < ct_plot_get_n_panels (self->plot); p++)
    ct_plot_set_log (self->plot, p, CT_PLOT_AXIS_LEFT, log);
  ct_plot_view_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_SCALE]);
}

gboolean
ct_plot_view_get_log_scale (CtPlotView *self)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), FALSE);
  return self->log_scale;
}

const char *
ct_plot_view_get_hover_text (CtPlotView *self)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), NULL);
  return self->hover_text;
}

char *
ct_plot_view_hover_at (CtPlotView *self, double x, double y)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), NULL);
  self->hover_x = x;
  self->hover_y = y;
  refresh_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return g_strdup (self->hover_text);
}

static void
area_centre (CtPlotView *self, double *x, double *y)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  CtPlotRect r;

  ct_plot_get_panel_rect (self->plot, w, h, 0, &r);
  *x = r.x + r.width / 2;
  *y = r.y + r.height / 2;
}

void
ct_plot_view_zoom (CtPlotView *self, double factor)
{
  GtkWidget *widget = GTK_WIDGET (self);
  double x, y;

  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  area_centre (self, &x, &y);
  /* The keys zoom x only: each panel keeps its y autoscale. */
  ct_plot_zoom_at (self->plot, gtk_widget_get_width (widget), gtk_widget_get_height (widget),
                   x, -1, factor);
  ct_plot_view_changed (self);
}

void
ct_plot_view_pan (CtPlotView *self, double fx, double fy)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  CtPlotRect r;
  double x, y;

  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  area_centre (self, &x, &y);
  ct_plot_get_panel_rect (self->plot, w, h, 0, &r);
  ct_plot_pan (self->plot, w, h, y, -fx * r.width, fy * r.height);
  ct_plot_view_changed (self);
}

void
ct_plot_view_reset_zoom (CtPlotView *self)
{
  g_return_if_fail (CT_IS_PLOT_VIEW (self));
  ct_plot_reset_view (self->plot);
  ct_plot_view_changed (self);
}

gboolean
ct_plot_view_save_csv (CtPlotView *self, const char *path, GError **error)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), FALSE);
  return ct_plot_save_csv (self->plot, path, error);
}

gboolean
ct_plot_view_save_png (CtPlotView *self, const char *path, int width, int height,
                       GError **error)
{
  GtkWidget *widget = GTK_WIDGET (self);

  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), FALSE);
  if (width <= 0 || height <= 0)
    {
      width = gtk_widget_get_width (widget) > 0 ? gtk_widget_get_width (widget) : 900;
      height = gtk_widget_get_height (widget) > 0 ? gtk_widget_get_height (widget) : 400;
    }
  /* Black text on the PNG's white, whatever the theme. */
  ct_plot_set_text_color (self->plot, 0, 0, 0);
  if (!ct_plot_save_png (self->plot, path, width, height, error))
    return FALSE;
  g_clear_pointer (&self->node, gsk_render_node_unref);
  gtk_widget_queue_draw (widget);
  return TRUE;
}

guint
ct_plot_view_get_draw_count (CtPlotView *self)
{
  g_return_val_if_fail (CT_IS_PLOT_VIEW (self), 0);
  return self->draw_count;
}

/* Input */

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, CtPlotView *self)
{
  g_free (ct_plot_view_hover_at (self, x, y));
}

static void
on_leave (GtkEventControllerMotion *motion, CtPlotView *self)
{
  self->hover_x = -1;
  set_hover_text (self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
on_scroll (GtkEventControllerScroll *scroll, double dx, double dy, CtPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  double x = self->hover_x, y = self->hover_y;

  if (dy == 0)
    return FALSE;
  if (x < 0)
    area_centre (self, &x, &y);
  ct_plot_zoom_at (self->plot, gtk_widget_get_width (widget), gtk_widget_get_height (widget),
                   x, y, pow (1.2, -dy));
  ct_plot_view_changed (self);
  return TRUE;
}

static void
on_pinch (GtkGestureZoom *gesture, double scale, CtPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  double x, y;

  if (scale <= 0 || self->pinch_scale <= 0
      || !gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y))
    return;
  ct_plot_zoom_at (self->plot, gtk_widget_get_width (widget), gtk_widget_get_height (widget),
                   x, y, scale / self->pinch_scale);
  self->pinch_scale = scale;
  ct_plot_view_changed (self);
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, CtPlotView *self)
{
  self->pinch_scale = 1.0;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, CtPlotView *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType mods = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->drag = (button == GDK_BUTTON_SECONDARY || (mods & GDK_CONTROL_MASK)) ? DRAG_RECT
                                                                               : DRAG_PAN;
  self->drag_x = x;
  self->drag_y = y;
  self->drag_dx = self->drag_dy = 0;
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, CtPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);

  if (self->drag == DRAG_PAN)
    ct_plot_pan (self->plot, gtk_widget_get_width (widget), gtk_widget_get_height (widget),
                 self->drag_y, dx - self->drag_dx, dy - self->drag_dy);
  self->drag_dx = dx;
  self->drag_dy = dy;
  if (self->drag == DRAG_PAN)
    ct_plot_view_changed (self);
  else
    gtk_widget_queue_draw (widget);
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, CtPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  DragMode mode = self->drag;

  self->drag = DRAG_NONE;
  if (mode == DRAG_RECT
      && ct_plot_zoom_rect (self->plot, gtk_widget_get_width (widget),
                            gtk_widget_get_height (widget), self->drag_x, self->drag_y,
                            self->drag_x + dx, self->drag_y + dy))
    ct_plot_view_changed (self);
  else
    gtk_widget_queue_draw (widget);
}

static void
on_pressed (GtkGestureClick *gesture, int n_press, double x, double y, CtPlotView *self)
{
  if (n_press == 2)
    ct_plot_view_reset_zoom (self);
}

static void
action_zoom (GtkWidget *widget, const char *name, GVariant *param)
{
  ct_plot_view_zoom (CT_PLOT_VIEW (widget), g_variant_get_double (param));
}

static void
action_pan (GtkWidget *widget, const char *name, GVariant *param)
{
  double fx, fy;

  g_variant_get (param, "(dd)", &fx, &fy);
  ct_plot_view_pan (CT_PLOT_VIEW (widget), fx, fy);
}

static void
action_reset (GtkWidget *widget, const char *name, GVariant *param)
{
  ct_plot_view_reset_zoom (CT_PLOT_VIEW (widget));
}

static void
action_toggle_log (GtkWidget *widget, const char *name, GVariant *param)
{
  CtPlotView *self = CT_PLOT_VIEW (widget);

  ct_plot_view_set_log_scale (self, !self->log_scale);
}

/* Drawing */

static void
ct_plot_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CtPlotView *self = CT_PLOT_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GdkRGBA color;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (self->data_dirty || !gdk_rgba_equal (&color, &self->node_color)
      || width != self->node_width || height != self->node_height)
    g_clear_pointer (&self->node, gsk_render_node_unref);
  self->data_dirty = FALSE;
  if (width <= 0 || height <= 0)
    return;

  if (self->node == NULL)
    {
      GtkSnapshot *inner = gtk_snapshot_new ();
      cairo_t *cr = gtk_snapshot_append_cairo (inner, &GRAPHENE_RECT_INIT (0, 0, width, height));

      ct_plot_set_text_color (self->plot, color.red, color.green, color.blue);
      ct_plot_draw (self->plot, cr, width, height);
      cairo_destroy (cr);
      self->node = gtk_snapshot_free_to_node (inner);
      self->node_width = width;
      self->node_height = height;
      self->node_color = color;
      self->draw_count++;
    }
  if (self->node != NULL)
    gtk_snapshot_append_node (snapshot, self->node);

  if (self->hover_x >= 0 || self->drag == DRAG_RECT)
    {
      cairo_t *cr = gtk_snapshot_append_cairo (snapshot,
                                               &GRAPHENE_RECT_INIT (0, 0, width, height));

      if (self->drag == DRAG_RECT)
        {
          cairo_rectangle (cr, self->drag_x, self->drag_y, self->drag_dx, self->drag_dy);
          cairo_set_source_rgba (cr, color.red, color.green, color.blue, 0.12);
          cairo_fill_preserve (cr);
          cairo_set_source_rgba (cr, color.red, color.green, color.blue, 0.6);
          cairo_set_line_width (cr, 1.0);
          cairo_stroke (cr);
        }
      else if (self->hover_text != NULL)
        ct_plot_draw_hover (self->plot, cr, width, height, self->hover_x, TRUE);
      cairo_destroy (cr);
    }
}

static void
ct_plot_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                      int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 160 : 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 640 : 360;
}

static void
ct_plot_view_map (GtkWidget *widget)
{
  CtPlotView *self = CT_PLOT_VIEW (widget);

  GTK_WIDGET_CLASS (ct_plot_view_parent_class)->map (widget);
  /* Points that came while unmapped had no tick: catch up now. */
  if (self->data_dirty)
    update_accessible (self);
}

static void
ct_plot_view_unmap (GtkWidget *widget)
{
  CtPlotView *self = CT_PLOT_VIEW (widget);

  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (widget, self->tick_id);
      self->tick_id = 0;
    }
  GTK_WIDGET_CLASS (ct_plot_view_parent_class)->unmap (widget);
}

/* GObject */

static void
ct_plot_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtPlotView *self = CT_PLOT_VIEW (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, self->log_scale);
      break;
    case PROP_HOVER_TEXT:
      g_value_set_string (value, self->hover_text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_plot_view_set_property (GObject *object, guint prop_id, const GValue *value,
                           GParamSpec *pspec)
{
  CtPlotView *self = CT_PLOT_VIEW (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      ct_plot_view_set_title (self, g_value_get_string (value));
      break;
    case PROP_LOG_SCALE:
      ct_plot_view_set_log_scale (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_plot_view_dispose (GObject *object)
{
  CtPlotView *self = CT_PLOT_VIEW (object);

  g_clear_pointer (&self->node, gsk_render_node_unref);
  G_OBJECT_CLASS (ct_plot_view_parent_class)->dispose (object);
}

static void
ct_plot_view_finalize (GObject *object)
{
  CtPlotView *self = CT_PLOT_VIEW (object);

  g_clear_pointer (&self->plot, ct_plot_free);
  g_free (self->title);
  g_free (self->hover_text);
  G_OBJECT_CLASS (ct_plot_view_parent_class)->finalize (object);
}

static void
ct_plot_view_class_init (CtPlotViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = ct_plot_view_get_property;
  object_class->set_property = ct_plot_view_set_property;
  object_class->dispose = ct_plot_view_dispose;
  object_class->finalize = ct_plot_view_finalize;
  widget_class->snapshot = ct_plot_view_snapshot;
  widget_class->measure = ct_plot_view_measure;
  widget_class->map = ct_plot_view_map;
  widget_class->unmap = ct_plot_view_unmap;

  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, rw);
  properties[PROP_LOG_SCALE] = g_param_spec_boolean ("log-scale", NULL, NULL, FALSE, rw);
  properties[PROP_HOVER_TEXT] = g_param_spec_string ("hover-text", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_install_action (widget_class, "plot.zoom", "d", action_zoom);
  gtk_widget_class_install_action (widget_class, "plot.pan", "(dd)", action_pan);
  gtk_widget_class_install_action (widget_class, "plot.reset", NULL, action_reset);
  gtk_widget_class_install_action (widget_class, "plot.toggle-log", NULL, action_toggle_log);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "plot.zoom", "d", 1.25);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, 0, "plot.zoom", "d", 1.25);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "plot.zoom", "d", 1.25);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "plot.zoom", "d", 0.8);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "plot.zoom", "d",
                                       0.8);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "plot.pan", "(dd)",
                                       -0.1, 0.0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "plot.pan", "(dd)",
                                       0.1, 0.0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, 0, "plot.pan", "(dd)",
                                       0.0, 0.1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, 0, "plot.pan", "(dd)",
                                       0.0, -0.1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "plot.reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Home, 0, "plot.reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, 0, "plot.toggle-log", NULL);

  gtk_widget_class_set_css_name (widget_class, "plot");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ct_plot_view_init (CtPlotView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *scroll = gtk_event_controller_scroll_new (
    GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkGesture *pinch = gtk_gesture_zoom_new ();
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  self->plot = ct_plot_new ();
  self->hover_x = -1;
  gtk_widget_set_focusable (widget, TRUE);

  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (widget, motion);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (widget, scroll);
  g_signal_connect (pinch, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (pinch, "scale-changed", G_CALLBACK (on_pinch), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (pinch));
  /* Any button: the primary pans (Ctrl: rectangle), the secondary zooms
   * into a rectangle. */
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));

  update_accessible (self);
}

GtkWidget *
ct_plot_view_new (void)
{
  return g_object_new (CT_TYPE_PLOT_VIEW, NULL);
}
