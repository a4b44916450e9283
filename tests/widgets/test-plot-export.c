/* test-plot-export.c: the plot's drawing and exports without a display:
 * the CSV text exactly, under a comma locale (de_DE.UTF-8), quoting and
 * gaps; the PNG read back with a few pixel checks (a flat line where it
 * should be, a one-point spike among 100,000 points still drawn, white
 * background); and errors that name the file. */
#include <cairo.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>

#include "plot/plot.h"

static void
test_csv (void)
{
  g_autoptr(CtPlot) plot = ct_plot_new ();
  g_autofree char *dir = g_dir_make_tmp ("ct-plot-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "plot.csv", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *saved = NULL;
  int panel, loss, acc, odd, hidden;
  const char *expected =
    "Iteration,Loss,Test accuracy (run 1),\"a,b \"\"c\"\"\"\n"
    "0,0.5,0.1,\n"
    "1,0.25,,-1.5\n"
    "2,1e-05,0.75,\n"
    "2,nan,,\n"
    "1000000,0.123456789,,\n";

  /* Whatever the user's locale, the file uses '.' for decimals. */
  if (setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("de_DE.UTF-8 locale not installed");
      return;
    }
  {
    char check[16];

    g_snprintf (check, sizeof check, "%.1f", 0.5);
    g_assert_cmpstr (check, ==, "0,5");
  }
  panel = ct_plot_add_panel (plot, "Loss", 1);
  ct_plot_set_x_label (plot, "Iteration");
  loss = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "Loss", CT_PLOT_COLOR_BLUE,
                             CT_PLOT_LINE, NULL);
  acc = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_RIGHT, "Test accuracy",
                            CT_PLOT_COLOR_GREEN, CT_PLOT_LINE_MARKS, "run 1");
  odd = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "a,b \"c\"", CT_PLOT_COLOR_GREY,
                            CT_PLOT_LINE, NULL);
  hidden = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "hidden", CT_PLOT_COLOR_GREY,
                               CT_PLOT_LINE, NULL);
  ct_plot_append (plot, loss, 0, 0.5);
  ct_plot_append (plot, loss, 1, 0.25);
  ct_plot_append (plot, loss, 2, 1e-5);
  /* Two points at one x: two rows. */
  ct_plot_append (plot, loss, 2, NAN);
  ct_plot_append (plot, loss, 1e6, 0.123456789);
  ct_plot_append (plot, acc, 0, 0.1);
  ct_plot_append (plot, acc, 2, 0.75);
  ct_plot_append (plot, odd, 1, -1.5);
  ct_plot_append (plot, hidden, 1, 3);
  ct_plot_series_set_visible (plot, hidden, FALSE);

  text = ct_plot_csv_text (plot);
  g_assert_cmpstr (text, ==, expected);
  g_assert_true (ct_plot_save_csv (plot, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &saved, NULL, &error));
  g_assert_cmpstr (saved, ==, expected);
  g_remove (path);
  g_rmdir (dir);
  setlocale (LC_ALL, "C");
}

static void
test_save_errors (void)
{
  g_autoptr(CtPlot) plot = ct_plot_new ();
  g_autoptr(GError) error = NULL;
  const char *path = "/nonexistent-folder/plot.csv";

  ct_plot_add_panel (plot, "Loss", 1);
  g_assert_false (ct_plot_save_csv (plot, path, &error));
  g_assert_error (error, CT_PLOT_ERROR, CT_PLOT_ERROR_WRITE);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_clear_error (&error);
  g_assert_false (ct_plot_save_png (plot, "/nonexistent-folder/plot.png", 100, 100, &error));
  g_assert_true (strstr (error->message, "/nonexistent-folder/plot.png") != NULL);
}

static guint32
pixel (cairo_surface_t *s, int x, int y)
{
  const guint32 *row = (const guint32 *) (void *) (cairo_image_surface_get_data (s)
                                                   + (gsize) y * cairo_image_surface_get_stride (s));

  return row[x] & 0xffffff;
}

/* Whether a pixel within 2 rows of (X, Y) is close to RGB. */
static gboolean
has_colour_near (cairo_surface_t *s, int x, int y, guint32 rgb)
{
  for (int dy = -2; dy <= 2; dy++)
    {
      guint32 p = pixel (s, x, y + dy);
      int dr = (int) (p >> 16 & 0xff) - (int) (rgb >> 16 & 0xff);
      int dg = (int) (p >> 8 & 0xff) - (int) (rgb >> 8 & 0xff);
      int db = (int) (p & 0xff) - (int) (rgb & 0xff);

      if (abs (dr) + abs (dg) + abs (db) < 40)
        return TRUE;
    }
  return FALSE;
}

static void
test_png (void)
{
  g_autoptr(CtPlot) plot = ct_plot_new ();
  g_autofree char *dir = g_dir_make_tmp ("ct-plot-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "plot.png", NULL);
  g_autoptr(GError) error = NULL;
  cairo_surface_t *png;
  int panel, flat, spiky;
  const int w = 600, h = 300;
  CtPlotRect r;
  double spike_x, spike_top;

  panel = ct_plot_add_panel (plot, "Loss", 1);
  flat = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "Flat", CT_PLOT_COLOR_VERMILLION,
                             CT_PLOT_LINE, NULL);
  spiky = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "Spiky", CT_PLOT_COLOR_BLUE,
                              CT_PLOT_LINE, NULL);
  for (int i = 0; i <= 100000; i++)
    {
      ct_plot_append (plot, flat, i, 2.0);
      /* One point in 100,000 at 10: far fewer columns than points. */
      ct_plot_append (plot, spiky, i, i == 61234 ? 10.0 : 1.0);
    }
  g_assert_true (ct_plot_save_png (plot, path, w, h, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ct_plot_get_column_builds (plot), ==, 2);

  png = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (png), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (png), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (png), ==, h);
  ct_plot_get_panel_rect (plot, w, h, panel, &r);
  /* The white background in the corner. */
  g_assert_cmphex (pixel (png, 1, 1), ==, 0xffffff);
  /* The flat line (vermillion) across the middle of the area. */
  g_assert_true (has_colour_near (png, (int) (r.x + r.width / 3),
                                  (int) ct_plot_y_to_px (plot, w, h, panel, CT_PLOT_AXIS_LEFT, 2),
                                  0xd55e00));
  g_assert_true (has_colour_near (png, (int) (r.x + r.width * 0.8),
                                  (int) ct_plot_y_to_px (plot, w, h, panel, CT_PLOT_AXIS_LEFT, 2),
                                  0xd55e00));
  /* The spike (blue) reaches near the top of its column. */
  spike_x = ct_plot_x_to_px (plot, w, h, 61234);
  spike_top = ct_plot_y_to_px (plot, w, h, panel, CT_PLOT_AXIS_LEFT, 9.5);
  g_assert_true (has_colour_near (png, (int) spike_x, (int) spike_top, 0x0072b2)
                 || has_colour_near (png, (int) spike_x + 1, (int) spike_top, 0x0072b2)
                 || has_colour_near (png, (int) spike_x - 1, (int) spike_top, 0x0072b2));
  /* Above the spike, and beside it at the same height: background. */
  g_assert_cmphex (pixel (png, (int) spike_x + 40, (int) spike_top), ==, 0xffffff);
  cairo_surface_destroy (png);
  g_remove (path);
  g_rmdir (dir);
}

/* Drawing a log axis with values <= 0 and an empty panel: no crash, and
 * the panel says what it left out (drawn, so the pixels are not all
 * white in the note's place). */
static void
test_draw_edge_cases (void)
{
  g_autoptr(CtPlot) plot = ct_plot_new ();
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 300);
  cairo_t *cr = cairo_create (s);
  int a = ct_plot_add_panel (plot, "Loss", 1);
  int series;

  ct_plot_add_panel (plot, "Empty", 1);
  series = ct_plot_add_series (plot, a, CT_PLOT_AXIS_LEFT, "Loss", CT_PLOT_COLOR_BLUE,
                               CT_PLOT_LINE, NULL);
  ct_plot_append (plot, series, 0, -1);
  ct_plot_append (plot, series, 1, 0);
  ct_plot_append (plot, series, 2, 0.5);
  ct_plot_append (plot, series, 3, INFINITY);
  ct_plot_append (plot, series, 4, 0.05);
  ct_plot_set_log (plot, a, CT_PLOT_AXIS_LEFT, TRUE);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  ct_plot_draw (plot, cr, 400, 300);
  ct_plot_draw (plot, cr, 10, 10);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpuint (ct_plot_series_get_n_nonpositive (plot, series), ==, 2);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/plot/csv", test_csv);
  g_test_add_func ("/widgets/plot/save-errors", test_save_errors);
  g_test_add_func ("/widgets/plot/png", test_png);
  g_test_add_func ("/widgets/plot/draw-edge-cases", test_draw_edge_cases);
  return g_test_run ();
}
