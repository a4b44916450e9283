/* draw-canvas.c: CtDrawCanvas (see draw-canvas.h). The values live in a
 * float grid; the widget draws them as a cairo image surface scaled with
 * CAIRO_FILTER_NEAREST (GTK 4.8 has no nearest-neighbour texture
 * scaling), dark ink on light paper as one draws on paper and as the
 * Fashion-MNIST browser shows its items (the ink is the bright part of
 * what the net is given). */
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "draw-canvas.h"

struct _CtDrawCanvas {
  GtkWidget parent_instance;

  int width, height;
  float *values;
  CtDrawTool tool;
  double radius;
  double last_x, last_y;   /* the stroke's last point, in grid units */
  gboolean stroking;
  double drag_x, drag_y;   /* where the drag began, in widget pixels */
};

G_DEFINE_FINAL_TYPE (CtDrawCanvas, ct_draw_canvas, GTK_TYPE_WIDGET)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The square cell of one grid pixel, and the grid's top-left corner. */
static double
cell_geometry (CtDrawCanvas *self, double *x0, double *y0)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  double h = gtk_widget_get_height (GTK_WIDGET (self));
  double cell = MAX (1.0, floor (MIN (w / self->width, h / self->height)));

  *x0 = floor ((w - cell * self->width) / 2);
  *y0 = floor ((h - cell * self->height) / 2);
  return cell;
}

/* Ink of the brush at distance D from its centre: full inside, a one-pixel
 * soft edge, as a pen's stroke scanned at this size looks. */
static float
coverage (double d, double radius)
{
  return (float) CLAMP (radius + 0.5 - d, 0.0, 1.0);
}

static gboolean
dab (CtDrawCanvas *self, double cx, double cy)
{
  gboolean changed = FALSE;
  int x_lo = MAX (0, (int) floor (cx - self->radius - 1));
  int x_hi = MIN (self->width - 1, (int) ceil (cx + self->radius + 1));
  int y_lo = MAX (0, (int) floor (cy - self->radius - 1));
  int y_hi = MIN (self->height - 1, (int) ceil (cy + self->radius + 1));

  for (int y = y_lo; y <= y_hi; y++)
    for (int x = x_lo; x <= x_hi; x++)
      {
        float c = coverage (hypot (x + 0.5 - cx, y + 0.5 - cy), self->radius);
        float *v = &self->values[y * self->width + x];
        float next = self->tool == CT_DRAW_TOOL_BRUSH ? MAX (*v, c) : MIN (*v, 1.0f - c);

        if (next != *v)
          {
            *v = next;
            changed = TRUE;
          }
      }
  return changed;
}

/* Dabs every quarter pixel from the last point to (X, Y). */
static void
line_to (CtDrawCanvas *self, double x, double y)
{
  double dx = x - self->last_x, dy = y - self->last_y;
  int steps = MAX (1, (int) ceil (hypot (dx, dy) * 4));
  gboolean changed = FALSE;

  for (int i = 1; i <= steps; i++)
    changed |= dab (self, self->last_x + dx * i / steps, self->last_y + dy * i / steps);
  self->last_x = x;
  self->last_y = y;
  if (changed)
    {
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
    }
}

void
ct_draw_canvas_begin_stroke (CtDrawCanvas *self, double x, double y)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  self->stroking = TRUE;
  self->last_x = x;
  self->last_y = y;
  if (dab (self, x, y))
    {
      gtk_widget_queue_draw (GTK_WIDGET (self));
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
    }
}

void
ct_draw_canvas_stroke_to (CtDrawCanvas *self, double x, double y)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  if (!self->stroking)
    {
      ct_draw_canvas_begin_stroke (self, x, y);
      return;
    }
  line_to (self, x, y);
}

void
ct_draw_canvas_end_stroke (CtDrawCanvas *self)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  self->stroking = FALSE;
}

/* The mouse: a drag draws with the current tool. */

static void
to_grid (CtDrawCanvas *self, double wx, double wy, double *gx, double *gy)
{
  double x0, y0, cell = cell_geometry (self, &x0, &y0);

  *gx = (wx - x0) / cell;
  *gy = (wy - y0) / cell;
}

static void
drag_begin (GtkGestureDrag *gesture, double x, double y, CtDrawCanvas *self)
{
  double gx, gy;

  self->drag_x = x;
  self->drag_y = y;
  to_grid (self, x, y, &gx, &gy);
  ct_draw_canvas_begin_stroke (self, gx, gy);
}

static void
drag_update (GtkGestureDrag *gesture, double dx, double dy, CtDrawCanvas *self)
{
  double gx, gy;

  to_grid (self, self->drag_x + dx, self->drag_y + dy, &gx, &gy);
  ct_draw_canvas_stroke_to (self, gx, gy);
}

static void
drag_end (GtkGestureDrag *gesture, double dx, double dy, CtDrawCanvas *self)
{
  ct_draw_canvas_end_stroke (self);
}

/* Drawing */

static void
ct_draw_canvas_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CtDrawCanvas *self = CT_DRAW_CANVAS (widget);
  double x0, y0, cell = cell_geometry (self, &x0, &y0);
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (x0, y0, cell * self->width, cell * self->height);
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_RGB24, self->width,
                                                       self->height);
  int stride = cairo_image_surface_get_stride (image);
  guint8 *data = cairo_image_surface_get_data (image);
  cairo_t *cr;

  cairo_surface_flush (image);
  for (int y = 0; y < self->height; y++)
    for (int x = 0; x < self->width; x++)
      {
        guint8 g = (guint8) (255 - lrintf (CLAMP (self->values[y * self->width + x], 0.0f, 1.0f) * 255));
        ((guint32 *) (gpointer) (data + y * stride))[x] = 0xff000000u | g << 16 | g << 8 | g;
      }
  cairo_surface_mark_dirty (image);

  cr = gtk_snapshot_append_cairo (snapshot, &bounds);
  cairo_translate (cr, x0, y0);
  cairo_scale (cr, cell, cell);
  cairo_set_source_surface (cr, image, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_destroy (cr);
  /* the paper's edge: the ink's bounds on a light window */
  {
    GdkRGBA edge = { 0.5, 0.5, 0.5, 1 };
    float w[4] = { 1, 1, 1, 1 };
    GdkRGBA colors[4] = { edge, edge, edge, edge };

    gtk_snapshot_append_border (snapshot, &GSK_ROUNDED_RECT_INIT (x0 - 1, y0 - 1,
                                                                  bounds.size.width + 2,
                                                                  bounds.size.height + 2),
                                w, colors);
  }
  cairo_surface_destroy (image);
}

static void
ct_draw_canvas_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                        int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
  CtDrawCanvas *self = CT_DRAW_CANVAS (widget);
  int cells = orientation == GTK_ORIENTATION_HORIZONTAL ? self->width : self->height;

  /* at least 4 screen pixels a grid pixel; 12 when there is room (336 for 28) */
  *minimum = cells * 4;
  *natural = cells * 12;
}

static void
ct_draw_canvas_finalize (GObject *object)
{
  CtDrawCanvas *self = CT_DRAW_CANVAS (object);

  g_free (self->values);
  G_OBJECT_CLASS (ct_draw_canvas_parent_class)->finalize (object);
}

static void
ct_draw_canvas_class_init (CtDrawCanvasClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ct_draw_canvas_finalize;
  widget_class->snapshot = ct_draw_canvas_snapshot;
  widget_class->measure = ct_draw_canvas_measure;

  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 0);
  gtk_widget_class_set_css_name (widget_class, "drawcanvas");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ct_draw_canvas_init (CtDrawCanvas *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  self->width = self->height = 1;
  self->values = g_new0 (float, 1);
  self->radius = 1.4;
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "crosshair");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Drawing"), -1);
}

GtkWidget *
ct_draw_canvas_new (int width, int height)
{
  CtDrawCanvas *self = g_object_new (CT_TYPE_DRAW_CANVAS, NULL);

  ct_draw_canvas_set_grid_size (self, width, height);
  return GTK_WIDGET (self);
}

void
ct_draw_canvas_set_grid_size (CtDrawCanvas *self, int width, int height)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  g_return_if_fail (width > 0 && height > 0);
  self->width = width;
  self->height = height;
  g_free (self->values);
  self->values = g_new0 (float, (gsize) width * height);
  self->stroking = FALSE;
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

int
ct_draw_canvas_get_grid_width (CtDrawCanvas *self)
{
  return self->width;
}

int
ct_draw_canvas_get_grid_height (CtDrawCanvas *self)
{
  return self->height;
}

void
ct_draw_canvas_set_tool (CtDrawCanvas *self, CtDrawTool tool)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  self->tool = tool;
}

CtDrawTool
ct_draw_canvas_get_tool (CtDrawCanvas *self)
{
  return self->tool;
}

void
ct_draw_canvas_set_radius (CtDrawCanvas *self, double radius)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  self->radius = CLAMP (radius, 0.5, 20.0);
}

void
ct_draw_canvas_clear (CtDrawCanvas *self)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  memset (self->values, 0, sizeof (float) * (gsize) self->width * self->height);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
ct_draw_canvas_set_values (CtDrawCanvas *self, const float *values)
{
  g_return_if_fail (CT_IS_DRAW_CANVAS (self));
  for (gsize i = 0; i < (gsize) self->width * self->height; i++)
    self->values[i] = CLAMP (values[i], 0.0f, 1.0f);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

const float *
ct_draw_canvas_get_values (CtDrawCanvas *self)
{
  return self->values;
}
