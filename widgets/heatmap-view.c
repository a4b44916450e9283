/* heatmap-view.c: CtHeatmapView (see heatmap-view.h): a GtkWidget around
 * a CtHeatmap. It draws in snapshot() through gtk_snapshot_append_cairo
 * (GTK 4.8 has no nearest-neighbour texture scaling) and keeps the render
 * node until the data, a setting, the size, the theme's colour or the
 * keyboard's channel changes. Pointer motion only updates the text. */
#include <glib/gi18n-lib.h>

#include "heatmap-view.h"

G_DEFINE_ENUM_TYPE (CtColormap, ct_colormap,
  G_DEFINE_ENUM_VALUE (CT_COLORMAP_DIVERGING, "diverging"),
  G_DEFINE_ENUM_VALUE (CT_COLORMAP_VIRIDIS, "viridis"),
  G_DEFINE_ENUM_VALUE (CT_COLORMAP_GREY, "grey"))

G_DEFINE_ENUM_TYPE (CtScaleMode, ct_scale_mode,
  G_DEFINE_ENUM_VALUE (CT_SCALE_PER_BLOB, "per-blob"),
  G_DEFINE_ENUM_VALUE (CT_SCALE_PER_CHANNEL, "per-channel"),
  G_DEFINE_ENUM_VALUE (CT_SCALE_LOCKED, "locked"),
  G_DEFINE_ENUM_VALUE (CT_SCALE_FIXED, "fixed"))

G_DEFINE_ENUM_TYPE (CtHeatmapKind, ct_heatmap_kind,
  G_DEFINE_ENUM_VALUE (CT_HEATMAP_GRID, "grid"),
  G_DEFINE_ENUM_VALUE (CT_HEATMAP_MATRIX, "matrix"),
  G_DEFINE_ENUM_VALUE (CT_HEATMAP_BARS, "bars"),
  G_DEFINE_ENUM_VALUE (CT_HEATMAP_RGB, "rgb"))

struct _CtHeatmapView {
  GtkWidget parent_instance;

  CtHeatmap *heatmap;
  char *blob_name;
  char *pointer_text;
  int focus_channel;

  GskRenderNode *node; /* the last drawing, for this size and colour */
  int node_width, node_height;
  GdkRGBA node_color;
};

enum {
  PROP_0,
  PROP_BLOB_NAME,
  PROP_SAMPLE,
  PROP_N_SAMPLES,
  PROP_COLORMAP,
  PROP_SCALE_MODE,
  PROP_KIND,
  PROP_RGB_PER_FILTER,
  PROP_ZOOM_CHANNEL,
  PROP_FOCUS_CHANNEL,
  PROP_POINTER_TEXT,
  N_PROPS
};

enum { SIGNAL_VALUE_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (CtHeatmapView, ct_heatmap_view, GTK_TYPE_WIDGET)

static void
drop_node (CtHeatmapView *self)
{
  g_clear_pointer (&self->node, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_pointer_text (CtHeatmapView *self, const char *text)
{
  if (g_strcmp0 (text, self->pointer_text) == 0)
    return;
  g_free (self->pointer_text);
  self->pointer_text = g_strdup (text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POINTER_TEXT]);
}

static void
update_accessible (CtHeatmapView *self)
{
  const char *name = self->blob_name != NULL ? self->blob_name : _("Blob");
  g_autofree char *description = NULL;

  if (ct_heatmap_has_data (self->heatmap))
    {
      g_autofree char *shape = ct_heatmap_shape_format (ct_heatmap_get_shape (self->heatmap));

      /* Translators: a heatmap's accessible description: blob name, shape. */
      description = g_strdup_printf (_("Heatmap of %s, shape %s"), name, shape);
    }
  else
    description = g_strdup_printf (_("Heatmap of %s, no data"), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

static void
set_focus_channel (CtHeatmapView *self, int channel)
{
  int n = ct_heatmap_get_n_tiles (self->heatmap);

  channel = n > 0 ? CLAMP (channel, 0, n - 1) : -1;
  if (channel == self->focus_channel)
    return;
  self->focus_channel = channel;
  drop_node (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOCUS_CHANNEL]);
}

/* After data or kind changed: what may have moved with it. */
static void
data_changed (CtHeatmapView *self, int old_samples, int old_sample, int old_zoom)
{
  GObject *object = G_OBJECT (self);

  g_object_freeze_notify (object);
  if (ct_heatmap_get_n_samples (self->heatmap) != old_samples)
    g_object_notify_by_pspec (object, properties[PROP_N_SAMPLES]);
  if (ct_heatmap_get_sample (self->heatmap) != old_sample)
    g_object_notify_by_pspec (object, properties[PROP_SAMPLE]);
  if (ct_heatmap_get_zoom (self->heatmap) != old_zoom)
    g_object_notify_by_pspec (object, properties[PROP_ZOOM_CHANNEL]);
  g_object_notify_by_pspec (object, properties[PROP_KIND]);
  set_focus_channel (self, self->focus_channel < 0 ? 0 : self->focus_channel);
  set_pointer_text (self, NULL);
  update_accessible (self);
  drop_node (self);
  g_object_thaw_notify (object);
}

gboolean
ct_heatmap_view_set_data (CtHeatmapView *self,
                          GBytes *floats,
                          const gint64 *dims,
                          guint ndims,
                          GError **error)
{
  int old_samples, old_sample, old_zoom;

  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), FALSE);
  old_samples = ct_heatmap_get_n_samples (self->heatmap);
  old_sample = ct_heatmap_get_sample (self->heatmap);
  old_zoom = ct_heatmap_get_zoom (self->heatmap);
  if (!ct_heatmap_set_data (self->heatmap, floats, dims, ndims, error))
    return FALSE;
  data_changed (self, old_samples, old_sample, old_zoom);
  return TRUE;
}

gboolean
ct_heatmap_view_set_values (CtHeatmapView *self,
                            const float *values,
                            const gint64 *dims,
                            guint ndims,
                            GError **error)
{
  g_autoptr(GBytes) bytes = NULL;
  gsize n = 1;

  for (guint i = 0; i < ndims; i++)
    n *= (gsize) MAX (dims[i], 0);
  bytes = g_bytes_new (values, n * sizeof (float));
  return ct_heatmap_view_set_data (self, bytes, dims, ndims, error);
}

void
ct_heatmap_view_set_blob_name (CtHeatmapView *self, const char *name)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  if (g_strcmp0 (name, self->blob_name) == 0)
    return;
  g_free (self->blob_name);
  self->blob_name = g_strdup (name);
  update_accessible (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLOB_NAME]);
}

const char *
ct_heatmap_view_get_blob_name (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), NULL);
  return self->blob_name;
}

void
ct_heatmap_view_set_sample (CtHeatmapView *self, int sample)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  if (!ct_heatmap_set_sample (self->heatmap, sample))
    return;
  set_pointer_text (self, NULL);
  drop_node (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAMPLE]);
}

int
ct_heatmap_view_get_sample (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), 0);
  return ct_heatmap_get_sample (self->heatmap);
}

int
ct_heatmap_view_get_n_samples (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), 0);
  return ct_heatmap_get_n_samples (self->heatmap);
}

void
ct_heatmap_view_set_colormap (CtHeatmapView *self, CtColormap map)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  if (!ct_heatmap_set_colormap (self->heatmap, map))
    return;
  drop_node (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLORMAP]);
}

CtColormap
ct_heatmap_view_get_colormap (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), 0);
  return ct_heatmap_get_colormap (self->heatmap);
}

void
ct_heatmap_view_set_scale_mode (CtHeatmapView *self, CtScaleMode mode)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  if (!ct_heatmap_set_scale_mode (self->heatmap, mode))
    return;
  drop_node (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCALE_MODE]);
}

CtScaleMode
ct_heatmap_view_get_scale_mode (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), 0);
  return ct_heatmap_get_scale_mode (self->heatmap);
}

void
ct_heatmap_view_set_fixed_range (CtHeatmapView *self, double lo, double hi)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  g_return_if_fail (lo < hi);
  if (ct_heatmap_set_fixed_range (self->heatmap, lo, hi))
    drop_node (self);
}

void
ct_heatmap_view_reset_lock (CtHeatmapView *self)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  ct_heatmap_reset_lock (self->heatmap);
  drop_node (self);
}

void
ct_heatmap_view_set_kind (CtHeatmapView *self, CtHeatmapKind kind)
{
  int old_zoom;

  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  old_zoom = ct_heatmap_get_zoom (self->heatmap);
  if (!ct_heatmap_set_kind (self->heatmap, kind))
    return;
  data_changed (self, ct_heatmap_get_n_samples (self->heatmap),
                ct_heatmap_get_sample (self->heatmap), old_zoom);
}

CtHeatmapKind
ct_heatmap_view_get_kind (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), 0);
  return ct_heatmap_get_kind (self->heatmap);
}

void
ct_heatmap_view_set_rgb_per_filter (CtHeatmapView *self, gboolean per_filter)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  if (!ct_heatmap_set_rgb_per_filter (self->heatmap, per_filter))
    return;
  drop_node (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RGB_PER_FILTER]);
}

gboolean
ct_heatmap_view_get_rgb_per_filter (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), FALSE);
  return ct_heatmap_get_rgb_per_filter (self->heatmap);
}

void
ct_heatmap_view_set_zoom_channel (CtHeatmapView *self, int channel)
{
  g_return_if_fail (CT_IS_HEATMAP_VIEW (self));
  if (!ct_heatmap_set_zoom (self->heatmap, channel))
    return;
  if (channel >= 0)
    set_focus_channel (self, channel);
  set_pointer_text (self, NULL);
  drop_node (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM_CHANNEL]);
}

int
ct_heatmap_view_get_zoom_channel (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), -1);
  return ct_heatmap_get_zoom (self->heatmap);
}

int
ct_heatmap_view_get_focus_channel (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), -1);
  return self->focus_channel;
}

const char *
ct_heatmap_view_get_pointer_text (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), NULL);
  return self->pointer_text;
}

CtHeatmap *
ct_heatmap_view_get_heatmap (CtHeatmapView *self)
{
  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), NULL);
  return self->heatmap;
}

char *
ct_heatmap_view_dup_text_at (CtHeatmapView *self, double x, double y)
{
  GtkWidget *widget = GTK_WIDGET (self);
  CtHeatmapHit hit;

  g_return_val_if_fail (CT_IS_HEATMAP_VIEW (self), NULL);
  if (!ct_heatmap_hit (self->heatmap, gtk_widget_get_width (widget),
                       gtk_widget_get_height (widget), x, y, &hit))
    return NULL;
  return ct_heatmap_hit_text (self->heatmap, &hit);
}

/* Input */

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, CtHeatmapView *self)
{
  g_autofree char *text = ct_heatmap_view_dup_text_at (self, x, y);

  set_pointer_text (self, text);
}

static void
on_leave (GtkEventControllerMotion *motion, CtHeatmapView *self)
{
  set_pointer_text (self, NULL);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard,
                  GtkTooltip *tooltip, gpointer data)
{
  g_autofree char *text = NULL;

  if (keyboard)
    return FALSE;
  text = ct_heatmap_view_dup_text_at (CT_HEATMAP_VIEW (widget), x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
on_pressed (GtkGestureClick *gesture, int n_press, double x, double y, CtHeatmapView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  int tile;

  /* The mouse's back button leaves the zoom, as in a browser. */
  if (button == 8)
    {
      ct_heatmap_view_set_zoom_channel (self, -1);
      return;
    }
  if (button != GDK_BUTTON_PRIMARY && button != 0)
    return;
  gtk_widget_grab_focus (widget);
  if (ct_heatmap_get_kind (self->heatmap) != CT_HEATMAP_GRID
      || ct_heatmap_get_zoom (self->heatmap) >= 0)
    {
      CtHeatmapHit hit;

      /* a value shown large enough to aim at: say which was clicked */
      if (ct_heatmap_hit (self->heatmap, gtk_widget_get_width (widget),
                          gtk_widget_get_height (widget), x, y, &hit))
        g_signal_emit (self, signals[SIGNAL_VALUE_ACTIVATED], 0, hit.n, hit.c, hit.h, hit.w,
                       x, y);
      return;
    }
  tile = ct_heatmap_hit_tile (self->heatmap, gtk_widget_get_width (widget),
                              gtk_widget_get_height (widget), x, y);
  if (tile >= 0)
    ct_heatmap_view_set_zoom_channel (self, tile);
}

static void
action_zoom (GtkWidget *widget, const char *name, GVariant *param)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (widget);

  if (self->focus_channel >= 0)
    ct_heatmap_view_set_zoom_channel (self, self->focus_channel);
}

static void
action_unzoom (GtkWidget *widget, const char *name, GVariant *param)
{
  ct_heatmap_view_set_zoom_channel (CT_HEATMAP_VIEW (widget), -1);
}

/* Arrow keys: DX, DY in tiles; in the zoom, to the previous or next
 * channel whichever arrow. */
static void
action_move (GtkWidget *widget, const char *name, GVariant *param)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (widget);
  CtHeatmapLayout layout;
  int dx, dy, zoom = ct_heatmap_get_zoom (self->heatmap);

  g_variant_get (param, "(ii)", &dx, &dy);
  if (zoom >= 0)
    {
      int next = CLAMP (zoom + dx + dy, 0, ct_heatmap_get_n_tiles (self->heatmap) - 1);

      ct_heatmap_view_set_zoom_channel (self, next);
      return;
    }
  ct_heatmap_get_layout (self->heatmap, gtk_widget_get_width (widget),
                         gtk_widget_get_height (widget), &layout);
  set_focus_channel (self, MAX (self->focus_channel, 0) + dx + dy * MAX (layout.columns, 1));
}

static void
action_sample (GtkWidget *widget, const char *name, GVariant *param)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (widget);

  ct_heatmap_view_set_sample (self, ct_heatmap_get_sample (self->heatmap)
                                    + g_variant_get_int32 (param));
}

/* Drawing */

static void
ct_heatmap_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  int focus = gtk_widget_has_focus (widget) ? self->focus_channel : -1;
  GdkRGBA color;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (ct_heatmap_set_focus (self->heatmap, focus) || !gdk_rgba_equal (&color, &self->node_color)
      || width != self->node_width || height != self->node_height)
    g_clear_pointer (&self->node, gsk_render_node_unref);

  if (self->node == NULL && width > 0 && height > 0 && ct_heatmap_has_data (self->heatmap))
    {
      GtkSnapshot *inner = gtk_snapshot_new ();
      cairo_t *cr = gtk_snapshot_append_cairo (inner, &GRAPHENE_RECT_INIT (0, 0, width, height));

      ct_heatmap_set_text_color (self->heatmap, color.red, color.green, color.blue);
      ct_heatmap_draw (self->heatmap, cr, width, height);
      cairo_destroy (cr);
      self->node = gtk_snapshot_free_to_node (inner);
      self->node_width = width;
      self->node_height = height;
      self->node_color = color;
    }
  if (self->node != NULL)
    gtk_snapshot_append_node (snapshot, self->node);
}

static void
ct_heatmap_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                         int *minimum, int *natural, int *minimum_baseline,
                         int *natural_baseline)
{
  *minimum = 64;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 480 : 360;
  /* given a width, as tall as three quarters of it: a wider inspector
   * shows the channels larger */
  if (orientation == GTK_ORIENTATION_VERTICAL && for_size > 0)
    *natural = MAX (*minimum, for_size * 3 / 4);
}

static GtkSizeRequestMode
ct_heatmap_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
ct_heatmap_view_focus_changed (CtHeatmapView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* GObject */

static void
ct_heatmap_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (object);

  switch (prop_id)
    {
    case PROP_BLOB_NAME:
      g_value_set_string (value, self->blob_name);
      break;
    case PROP_SAMPLE:
      g_value_set_int (value, ct_heatmap_get_sample (self->heatmap));
      break;
    case PROP_N_SAMPLES:
      g_value_set_int (value, ct_heatmap_get_n_samples (self->heatmap));
      break;
    case PROP_COLORMAP:
      g_value_set_enum (value, ct_heatmap_get_colormap (self->heatmap));
      break;
    case PROP_SCALE_MODE:
      g_value_set_enum (value, ct_heatmap_get_scale_mode (self->heatmap));
      break;
    case PROP_KIND:
      g_value_set_enum (value, ct_heatmap_get_kind (self->heatmap));
      break;
    case PROP_RGB_PER_FILTER:
      g_value_set_boolean (value, ct_heatmap_get_rgb_per_filter (self->heatmap));
      break;
    case PROP_ZOOM_CHANNEL:
      g_value_set_int (value, ct_heatmap_get_zoom (self->heatmap));
      break;
    case PROP_FOCUS_CHANNEL:
      g_value_set_int (value, self->focus_channel);
      break;
    case PROP_POINTER_TEXT:
      g_value_set_string (value, self->pointer_text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_heatmap_view_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (object);

  switch (prop_id)
    {
    case PROP_BLOB_NAME:
      ct_heatmap_view_set_blob_name (self, g_value_get_string (value));
      break;
    case PROP_SAMPLE:
      ct_heatmap_view_set_sample (self, g_value_get_int (value));
      break;
    case PROP_COLORMAP:
      ct_heatmap_view_set_colormap (self, g_value_get_enum (value));
      break;
    case PROP_SCALE_MODE:
      ct_heatmap_view_set_scale_mode (self, g_value_get_enum (value));
      break;
    case PROP_KIND:
      ct_heatmap_view_set_kind (self, g_value_get_enum (value));
      break;
    case PROP_RGB_PER_FILTER:
      ct_heatmap_view_set_rgb_per_filter (self, g_value_get_boolean (value));
      break;
    case PROP_ZOOM_CHANNEL:
      ct_heatmap_view_set_zoom_channel (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_heatmap_view_dispose (GObject *object)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (object);

  g_clear_pointer (&self->node, gsk_render_node_unref);
  G_OBJECT_CLASS (ct_heatmap_view_parent_class)->dispose (object);
}

static void
ct_heatmap_view_finalize (GObject *object)
{
  CtHeatmapView *self = CT_HEATMAP_VIEW (object);

  g_clear_pointer (&self->heatmap, ct_heatmap_free);
  g_free (self->blob_name);
  g_free (self->pointer_text);
  G_OBJECT_CLASS (ct_heatmap_view_parent_class)->finalize (object);
}

static void
ct_heatmap_view_class_init (CtHeatmapViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = ct_heatmap_view_get_property;
  object_class->set_property = ct_heatmap_view_set_property;
  object_class->dispose = ct_heatmap_view_dispose;
  object_class->finalize = ct_heatmap_view_finalize;
  widget_class->snapshot = ct_heatmap_view_snapshot;
  widget_class->measure = ct_heatmap_view_measure;
  widget_class->get_request_mode = ct_heatmap_view_get_request_mode;

  properties[PROP_BLOB_NAME] = g_param_spec_string ("blob-name", NULL, NULL, NULL, rw);
  properties[PROP_SAMPLE] = g_param_spec_int ("sample", NULL, NULL, 0, G_MAXINT, 0, rw);
  properties[PROP_N_SAMPLES] = g_param_spec_int ("n-samples", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_COLORMAP] = g_param_spec_enum ("colormap", NULL, NULL, CT_TYPE_COLORMAP,
                                                 CT_COLORMAP_DIVERGING, rw);
  properties[PROP_SCALE_MODE] = g_param_spec_enum ("scale-mode", NULL, NULL,
                                                   CT_TYPE_SCALE_MODE, CT_SCALE_PER_BLOB, rw);
  properties[PROP_KIND] = g_param_spec_enum ("kind", NULL, NULL, CT_TYPE_HEATMAP_KIND,
                                             CT_HEATMAP_GRID, rw);
  properties[PROP_RGB_PER_FILTER] = g_param_spec_boolean ("rgb-per-filter", NULL, NULL,
                                                          TRUE, rw);
  properties[PROP_ZOOM_CHANNEL] = g_param_spec_int ("zoom-channel", NULL, NULL, -1, G_MAXINT,
                                                    -1, rw);
  properties[PROP_FOCUS_CHANNEL] = g_param_spec_int ("focus-channel", NULL, NULL, -1,
                                                     G_MAXINT, -1, ro);
  properties[PROP_POINTER_TEXT] = g_param_spec_string ("pointer-text", NULL, NULL, NULL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[SIGNAL_VALUE_ACTIVATED] =
    g_signal_new ("value-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 6, G_TYPE_INT, G_TYPE_INT, G_TYPE_INT, G_TYPE_INT,
                  G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_install_action (widget_class, "heatmap.zoom", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "heatmap.unzoom", NULL, action_unzoom);
  gtk_widget_class_install_action (widget_class, "heatmap.move", "(ii)", action_move);
  gtk_widget_class_install_action (widget_class, "heatmap.sample", "i", action_sample);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, 0, "heatmap.zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Enter, 0, "heatmap.zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, 0, "heatmap.zoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "heatmap.unzoom", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_BackSpace, 0, "heatmap.unzoom",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "heatmap.move", "(ii)",
                                       -1, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "heatmap.move", "(ii)",
                                       1, 0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Up, 0, "heatmap.move", "(ii)",
                                       0, -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Down, 0, "heatmap.move", "(ii)",
                                       0, 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "heatmap.sample",
                                       "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "heatmap.sample",
                                       "i", 1);

  gtk_widget_class_set_css_name (widget_class, "heatmap");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ct_heatmap_view_init (CtHeatmapView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *focus = gtk_event_controller_focus_new ();

  self->heatmap = ct_heatmap_new ();
  self->focus_channel = -1;
  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);

  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (widget, motion);

  /* Any button: the primary zooms in, the back button (8) zooms out. */
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));

  g_signal_connect_swapped (focus, "enter", G_CALLBACK (ct_heatmap_view_focus_changed), self);
  g_signal_connect_swapped (focus, "leave", G_CALLBACK (ct_heatmap_view_focus_changed), self);
  gtk_widget_add_controller (widget, focus);

  update_accessible (self);
}

GtkWidget *
ct_heatmap_view_new (void)
{
  return g_object_new (CT_TYPE_HEATMAP_VIEW, NULL);
}
