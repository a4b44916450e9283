/* test-heatmap-view.c: the heatmap widget (widgets/heatmap-view.c) in a
 * real window, under Xvfb (skipped without a display).
 *
 * A known 2×20×24×24 blob with signed values: the accessible label and
 * description, the text for the value under the pointer (and the
 * pointer-text property that motion sets), zooming by a click and leaving
 * by Escape's action, the arrow keys' actions, and a rendered screenshot
 * whose pixels show the diverging map's ends and centre where the values
 * are largest, smallest and zero. The screenshot is saved in a temporary
 * folder, and also where CT_HEATMAP_SHOT names, for the notes. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "heatmap-view.h"
#include "widget-test.h"

#define N 2
#define C 20
#define H 24
#define W 24

typedef struct {
  GtkWidget *window;
  CtHeatmapView *view;
  float *values;
} Fixture;

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
wait_for_frame (Fixture *f)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (5000, timeout_cb, &timed_out);

  while (!timed_out && (gtk_widget_get_width (GTK_WIDGET (f->view)) <= 0
                        || !gtk_widget_get_mapped (GTK_WIDGET (f->view))))
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 20 && !timed_out; i++)
    g_main_context_iteration (NULL, FALSE);
  if (!timed_out)
    g_source_remove (id);
  g_assert_false (timed_out);
}

/* Waves of both signs, different in each channel; cell (0, 0, 0, 0) is the
 * largest value, (0, 0, 0, 1) the smallest, (0, 0, 0, 2) zero. */
static float *
make_values (void)
{
  float *v = g_new (float, N * C * H * W);

  for (int n = 0; n < N; n++)
    for (int c = 0; c < C; c++)
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
          {
            double cx = x - W / 2.0 + c % 5, cy = y - H / 2.0 + c / 5;

            v[((n * C + c) * H + y) * W + x] =
              (float) (sin (sqrt (cx * cx + cy * cy) * (0.3 + 0.05 * c) + n) * (1.0 + c / 10.0));
          }
  v[0] = 4.0f;
  v[1] = -4.0f;
  v[2] = 0.0f;
  return v;
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  const gint64 dims[] = { N, C, H, W };
  g_autoptr(GError) error = NULL;

  f->values = make_values ();
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 640, 480);
  f->view = CT_HEATMAP_VIEW (ct_heatmap_view_new ());
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->view));
  g_assert_true (ct_heatmap_view_set_values (f->view, f->values, dims, 4, &error));
  g_assert_no_error (error);
  ct_heatmap_view_set_blob_name (f->view, "conv1");
  gtk_window_present (GTK_WINDOW (f->window));
  wait_for_frame (f);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_free (f->values);
}

/* The centre of cell (h, w) of channel C in the current layout. */
static void
cell_centre (Fixture *f, int c, int h, int w, double *x, double *y)
{
  CtHeatmapLayout l;
  double tx, ty, tw, th;
  int tile;

  ct_heatmap_get_layout (ct_heatmap_view_get_heatmap (f->view),
                         gtk_widget_get_width (GTK_WIDGET (f->view)),
                         gtk_widget_get_height (GTK_WIDGET (f->view)), &l);
  tile = c - l.first;
  ct_heatmap_layout_tile_rect (&l, tile, &tx, &ty, &tw, &th);
  *x = tx + (w + 0.5) * l.cell_w;
  *y = ty + (h + 0.5) * l.cell_h;
}

static void
test_accessible (Fixture *f, gconstpointer data)
{
  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (f->view), GTK_ACCESSIBLE_ROLE_IMG);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (f->view),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "conv1");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (f->view),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Heatmap of conv1, shape 2×20×24×24");
  g_assert_cmpint (ct_heatmap_view_get_n_samples (f->view), ==, 2);
  g_assert_true (gtk_widget_get_focusable (GTK_WIDGET (f->view)));
}

static void
test_pointer (Fixture *f, gconstpointer data)
{
  GtkEventController *motion =
    ct_widget_test_find_controller (GTK_WIDGET (f->view), GTK_TYPE_EVENT_CONTROLLER_MOTION);
  g_autofree char *expected = NULL;
  g_autofree char *text = NULL;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  double x, y;

  cell_centre (f, 3, 5, 7, &x, &y);
  ct_heatmap_format_value (value, sizeof value, f->values[((0 * C + 3) * H + 5) * W + 7]);
  expected = g_strdup_printf ("(0, 3, 5, 7) = %s", value);
  text = ct_heatmap_view_dup_text_at (f->view, x, y);
  g_assert_cmpstr (text, ==, expected);
  g_assert_null (ct_heatmap_view_get_pointer_text (f->view));
  g_signal_emit_by_name (motion, "motion", x, y);
  g_assert_cmpstr (ct_heatmap_view_get_pointer_text (f->view), ==, expected);
  g_signal_emit_by_name (motion, "leave");
  g_assert_null (ct_heatmap_view_get_pointer_text (f->view));
  /* Moving the pointer maps no values again. */
  {
    CtHeatmap *heatmap = ct_heatmap_view_get_heatmap (f->view);
    guint builds = ct_heatmap_get_pixel_builds (heatmap);

    g_assert_cmpuint (builds, >=, 1);
    for (int i = 0; i < 10; i++)
      g_signal_emit_by_name (motion, "motion", x + i, y);
    gtk_widget_queue_draw (GTK_WIDGET (f->view));
    wait_for_frame (f);
    g_assert_cmpuint (ct_heatmap_get_pixel_builds (heatmap), ==, builds);
  }

  /* The largest value, in the second sample. */
  ct_heatmap_view_set_sample (f->view, 1);
  cell_centre (f, 0, 0, 0, &x, &y);
  g_clear_pointer (&text, g_free);
  text = ct_heatmap_view_dup_text_at (f->view, x, y);
  ct_heatmap_format_value (value, sizeof value, f->values[C * H * W]);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("(1, 0, 0, 0) = %s", value);
  g_assert_cmpstr (text, ==, expected);
  /* Outside any tile: nothing. */
  g_clear_pointer (&text, g_free);
  text = ct_heatmap_view_dup_text_at (f->view, 1, 1);
  g_assert_null (text);
}

static void
on_value_activated (CtHeatmapView *view, int n, int c, int h, int w, double x, double y,
                    int *got)
{
  got[0] = n;
  got[1] = c;
  got[2] = h;
  got[3] = w;
}

static void
test_zoom (Fixture *f, gconstpointer data)
{
  GtkEventController *click =
    ct_widget_test_find_controller (GTK_WIDGET (f->view), GTK_TYPE_GESTURE_CLICK);
  g_autofree char *text = NULL;
  CtHeatmapLayout l;
  double x, y;
  int got[4] = { -1, -1, -1, -1 };

  g_signal_connect (f->view, "value-activated", G_CALLBACK (on_value_activated), got);
  g_assert_cmpint (ct_heatmap_view_get_zoom_channel (f->view), ==, -1);
  cell_centre (f, 7, 1, 1, &x, &y);
  g_signal_emit_by_name (click, "pressed", 1, x, y);
  g_assert_cmpint (ct_heatmap_view_get_zoom_channel (f->view), ==, 7);
  /* a click on the grid zooms, it names no value */
  g_assert_cmpint (got[0], ==, -1);
  g_assert_cmpint (ct_heatmap_view_get_focus_channel (f->view), ==, 7);
  wait_for_frame (f);
  /* The zoomed channel fills the area: a cell is now many pixels. */
  cell_centre (f, 7, 10, 12, &x, &y);
  text = ct_heatmap_view_dup_text_at (f->view, x, y);
  g_assert_true (g_str_has_prefix (text, "(0, 7, 10, 12) = "));
  /* a click on a value of the zoomed channel names it */
  g_signal_emit_by_name (click, "pressed", 1, x, y);
  g_assert_cmpint (got[0], ==, 0);
  g_assert_cmpint (got[1], ==, 7);
  g_assert_cmpint (got[2], ==, 10);
  g_assert_cmpint (got[3], ==, 12);
  ct_heatmap_get_layout (ct_heatmap_view_get_heatmap (f->view),
                         gtk_widget_get_width (GTK_WIDGET (f->view)),
                         gtk_widget_get_height (GTK_WIDGET (f->view)), &l);
  g_assert_cmpint (l.tiles, ==, 1);
  g_assert_cmpfloat (l.cell_w, >=, 10);

  /* Arrows go to the neighbouring channel; Escape leaves the zoom. */
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.move", "(ii)", 1, 0);
  g_assert_cmpint (ct_heatmap_view_get_zoom_channel (f->view), ==, 8);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.unzoom", NULL);
  g_assert_cmpint (ct_heatmap_view_get_zoom_channel (f->view), ==, -1);

  /* In the grid, the arrows move the keyboard's channel, Enter zooms. */
  ct_heatmap_get_layout (ct_heatmap_view_get_heatmap (f->view),
                         gtk_widget_get_width (GTK_WIDGET (f->view)),
                         gtk_widget_get_height (GTK_WIDGET (f->view)), &l);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.move", "(ii)", 0, 1);
  g_assert_cmpint (ct_heatmap_view_get_focus_channel (f->view), ==, 8 + l.columns);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.move", "(ii)", -1, 0);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.zoom", NULL);
  g_assert_cmpint (ct_heatmap_view_get_zoom_channel (f->view), ==, 7 + l.columns);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.unzoom", NULL);
  /* Page Down picks the next sample, clamped at the last. */
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.sample", "i", 1);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "heatmap.sample", "i", 1);
  g_assert_cmpint (ct_heatmap_view_get_sample (f->view), ==, 1);
}

static void
test_screenshot (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("ct-heatmap-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "heatmap.png", NULL);
  const char *shot = g_getenv ("CT_HEATMAP_SHOT");
  /* The window's background colour. */
  const GdkRGBA background = { 0.98, 0.98, 0.98, 1 };
  g_autoptr(GdkTexture) view_texture = NULL;
  g_autoptr(GdkTexture) window_texture = NULL;
  g_autofree guint8 *pixels = NULL;
  int w, h;
  gsize stride;
  double x, y;

  ct_heatmap_view_set_colormap (f->view, CT_COLORMAP_DIVERGING);
  wait_for_frame (f);
  view_texture = ct_widget_test_render (GTK_WIDGET (f->view), &background);
  w = gdk_texture_get_width (view_texture);
  h = gdk_texture_get_height (view_texture);
  stride = (gsize) w * 4;
  pixels = g_malloc (stride * h);
  gdk_texture_download (view_texture, pixels, stride);
  /* Per blob, +-4: the largest value is the red end, the smallest the
   * blue end, zero the centre colour. */
  cell_centre (f, 0, 0, 0, &x, &y);
  g_assert_cmphex (ct_widget_test_pixel (pixels, stride, x, y), ==, 0x67001f);
  cell_centre (f, 0, 0, 1, &x, &y);
  g_assert_cmphex (ct_widget_test_pixel (pixels, stride, x, y), ==, 0x053061);
  cell_centre (f, 0, 0, 2, &x, &y);
  g_assert_cmphex (ct_widget_test_pixel (pixels, stride, x, y), ==, 0xf7f7f7);

  /* Grey: the largest value white. */
  ct_heatmap_view_set_colormap (f->view, CT_COLORMAP_GREY);
  wait_for_frame (f);
  g_clear_object (&view_texture);
  view_texture = ct_widget_test_render (GTK_WIDGET (f->view), &background);
  gdk_texture_download (view_texture, pixels, stride);
  cell_centre (f, 0, 0, 0, &x, &y);
  g_assert_cmphex (ct_widget_test_pixel (pixels, stride, x, y), ==, 0xffffff);
  cell_centre (f, 0, 0, 1, &x, &y);
  g_assert_cmphex (ct_widget_test_pixel (pixels, stride, x, y), ==, 0x000000);

  /* Diverging, with the keyboard's channel outlined, for the notes. */
  ct_heatmap_view_set_colormap (f->view, CT_COLORMAP_DIVERGING);
  gtk_widget_grab_focus (GTK_WIDGET (f->view));
  wait_for_frame (f);
  window_texture = ct_widget_test_render (GTK_WIDGET (f->view), &background);
  g_assert_true (gdk_texture_save_to_png (window_texture, png));
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  if (shot != NULL)
    g_assert_true (gdk_texture_save_to_png (window_texture, shot));
  g_remove (png);
  g_rmdir (dir);
}

static void
test_other_kinds (Fixture *f, gconstpointer data)
{
  const gint64 matrix[] = { 4, 10 };
  const gint64 filters[] = { 8, 3, 5, 5 };
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  double x, y;
  CtHeatmapLayout l;

  g_assert_true (ct_heatmap_view_set_values (f->view, f->values, matrix, 2, &error));
  g_assert_cmpint (ct_heatmap_view_get_kind (f->view), ==, CT_HEATMAP_MATRIX);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (f->view),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Heatmap of conv1, shape 4×10");
  wait_for_frame (f);
  ct_heatmap_get_layout (ct_heatmap_view_get_heatmap (f->view),
                         gtk_widget_get_width (GTK_WIDGET (f->view)),
                         gtk_widget_get_height (GTK_WIDGET (f->view)), &l);
  x = l.x + 2.5 * l.cell_w;
  y = l.y + 3.5 * l.cell_h;
  text = ct_heatmap_view_dup_text_at (f->view, x, y);
  g_assert_true (g_str_has_prefix (text, "(3, 2) = "));
  ct_heatmap_view_set_kind (f->view, CT_HEATMAP_BARS);
  g_assert_cmpint (ct_heatmap_view_get_kind (f->view), ==, CT_HEATMAP_BARS);
  wait_for_frame (f);

  g_assert_true (ct_heatmap_view_set_values (f->view, f->values, filters, 4, &error));
  ct_heatmap_view_set_kind (f->view, CT_HEATMAP_RGB);
  g_assert_cmpint (ct_heatmap_view_get_kind (f->view), ==, CT_HEATMAP_RGB);
  wait_for_frame (f);
  cell_centre (f, 2, 1, 1, &x, &y);
  g_clear_pointer (&text, g_free);
  text = ct_heatmap_view_dup_text_at (f->view, x, y);
  g_assert_true (g_str_has_prefix (text, "(2, :, 1, 1) = ("));

  /* A shape that does not match the values is refused and changes nothing. */
  g_assert_false (ct_heatmap_view_set_data (f->view, g_bytes_new_static ("ab", 2), filters, 4,
                                            &error));
  g_assert_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE);
  g_assert_cmpint (ct_heatmap_view_get_kind (f->view), ==, CT_HEATMAP_RGB);
}

int
main (int argc, char **argv)
{
  if (!ct_widget_test_init (&argc, &argv, "/gtk/heatmap-view"))
    return g_test_run ();
  g_test_add ("/gtk/heatmap-view/accessible", Fixture, NULL, fixture_setup, test_accessible,
              fixture_teardown);
  g_test_add ("/gtk/heatmap-view/pointer", Fixture, NULL, fixture_setup, test_pointer,
              fixture_teardown);
  g_test_add ("/gtk/heatmap-view/zoom", Fixture, NULL, fixture_setup, test_zoom, fixture_teardown);
  g_test_add ("/gtk/heatmap-view/screenshot", Fixture, NULL, fixture_setup, test_screenshot,
              fixture_teardown);
  g_test_add ("/gtk/heatmap-view/other-kinds", Fixture, NULL, fixture_setup, test_other_kinds,
              fixture_teardown);
  return g_test_run ();
}
