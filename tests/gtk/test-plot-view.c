/* test-plot-view.c: the plot widget (widgets/plot-view.c) in a real
 * window, under Xvfb (skipped without a display).
 *
 * Training-like curves in two panels: the raw and smoothed training loss,
 * the test loss every 250 iterations and the learning rate (right axis,
 * log) above, the test accuracy below, and an earlier run of the same
 * curves faded and labelled "run 1". Checked: the accessible label and
 * description, that a burst of appended points costs one redraw per
 * frame, the hover readout (and the hover-text property that motion
 * sets), zoom, pan and reset through the keys' actions, the log-scale
 * toggle, the exports, and a rendered screenshot with a few pixels. The
 * screenshot is saved in a temporary folder, and also where CT_PLOT_SHOT
 * names, for the notes. The helpers shared with the heatmap test are in
 * widget-test.c. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "plot-view.h"
#include "widget-test.h"

#define WIDTH 900
#define HEIGHT 520

enum { RAW, SMOOTH, TEST_LOSS, LR, ACC, N_CURVES };

typedef struct {
  GtkWidget *window;
  CtPlotView *view;
  int loss_panel, acc_panel;
  int earlier[N_CURVES], current[N_CURVES];
} Fixture;

static void
wait_for_paint (Fixture *f)
{
  ct_widget_test_wait_for_paint (GTK_WIDGET (f->view));
}

static double
noise (int it)
{
  double v = sin (it * 12.9898) * 43758.5453;

  return v - floor (v);
}

/* One run's curves, appended as a trainer would: the loss at every
 * iteration, its moving average over 50, a test every 250 iterations. */
static void
add_run (Fixture *f, int *ids, int iterations, double speed, const char *run_label)
{
  g_autoptr(CtPlotSmoother) smoother = ct_plot_smoother_new (50);
  CtPlotView *v = f->view;

  ids[RAW] = ct_plot_view_add_series (v, f->loss_panel, CT_PLOT_AXIS_LEFT, "Training loss",
                                      CT_PLOT_COLOR_BLUE, CT_PLOT_LINE_THIN, run_label);
  ids[SMOOTH] = ct_plot_view_add_series (v, f->loss_panel, CT_PLOT_AXIS_LEFT, "Smoothed loss",
                                         CT_PLOT_COLOR_BLUE, CT_PLOT_LINE, run_label);
  ids[TEST_LOSS] = ct_plot_view_add_series (v, f->loss_panel, CT_PLOT_AXIS_LEFT, "Test loss",
                                            CT_PLOT_COLOR_VERMILLION, CT_PLOT_LINE_MARKS,
                                            run_label);
  ids[LR] = ct_plot_view_add_series (v, f->loss_panel, CT_PLOT_AXIS_RIGHT, "Learning rate",
                                     CT_PLOT_COLOR_GREY, CT_PLOT_LINE, run_label);
  ids[ACC] = ct_plot_view_add_series (v, f->acc_panel, CT_PLOT_AXIS_LEFT, "Test accuracy",
                                      CT_PLOT_COLOR_GREEN, CT_PLOT_LINE_MARKS, run_label);
  for (int it = 0; it <= iterations; it++)
    {
      double base = 2.3 * exp (-it * speed / 900.0) + 0.04;
      double loss = base * (0.6 + 0.8 * noise (it + (int) (speed * 1000)));

      ct_plot_view_append_point (v, ids[RAW], it, loss);
      ct_plot_view_append_point (v, ids[SMOOTH], it, ct_plot_smoother_push (smoother, loss));
      ct_plot_view_append_point (v, ids[LR], it, 0.01 * pow (1 + 0.0001 * it, -0.75));
      if (it % 250 == 0)
        {
          ct_plot_view_append_point (v, ids[TEST_LOSS], it, base * 1.1);
          ct_plot_view_append_point (v, ids[ACC], it, 0.99 - 0.89 * exp (-it * speed / 700.0));
        }
    }
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  CtPlot *plot;

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), WIDTH, HEIGHT);
  f->view = CT_PLOT_VIEW (ct_plot_view_new ());
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->view));
  ct_plot_view_set_title (f->view, "Training");
  f->loss_panel = ct_plot_view_add_panel (f->view, "Loss", 2);
  f->acc_panel = ct_plot_view_add_panel (f->view, "Accuracy", 1);
  plot = ct_plot_view_get_plot (f->view);
  ct_plot_set_log (plot, f->loss_panel, CT_PLOT_AXIS_RIGHT, TRUE);
  /* The earlier run learnt more slowly; the current one has run 3000 of
   * its 5000 iterations so far. */
  add_run (f, f->earlier, 5000, 0.7, NULL);
  ct_plot_view_fade_all (f->view, "run 1");
  add_run (f, f->current, 3000, 1.0, NULL);
  gtk_window_present (GTK_WINDOW (f->window));
  wait_for_paint (f);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
}

static int
view_width (Fixture *f)
{
  return gtk_widget_get_width (GTK_WIDGET (f->view));
}

static int
view_height (Fixture *f)
{
  return gtk_widget_get_height (GTK_WIDGET (f->view));
}

static void
test_accessible (Fixture *f, gconstpointer data)
{
  g_autofree char *expected = ct_plot_describe (ct_plot_view_get_plot (f->view));
  GtkWidget *small = ct_plot_view_new ();
  int panel, loss, acc;

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (f->view), GTK_ACCESSIBLE_ROLE_IMG);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (f->view),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Training");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (f->view),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, expected);
  g_assert_true (strstr (expected, "Smoothed loss (run 1): ") != NULL);
  g_assert_true (strstr (expected, "; Test accuracy: ") != NULL);
  g_assert_true (gtk_widget_get_focusable (GTK_WIDGET (f->view)));

  /* A small plot, by hand: each series with its last value. */
  g_object_ref_sink (small);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (small),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "No data");
  panel = ct_plot_view_add_panel (CT_PLOT_VIEW (small), "Loss", 1);
  loss = ct_plot_view_add_series (CT_PLOT_VIEW (small), panel, CT_PLOT_AXIS_LEFT, "Loss",
                                  CT_PLOT_COLOR_BLUE, CT_PLOT_LINE, NULL);
  acc = ct_plot_view_add_series (CT_PLOT_VIEW (small), panel, CT_PLOT_AXIS_RIGHT, "Accuracy",
                                 CT_PLOT_COLOR_GREEN, CT_PLOT_LINE, "run 2");
  ct_plot_view_append_point (CT_PLOT_VIEW (small), loss, 1, 0.75);
  ct_plot_view_append_point (CT_PLOT_VIEW (small), loss, 2, 0.5);
  /* Not mapped: the description follows at once. */
  ct_plot_view_changed (CT_PLOT_VIEW (small));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (small),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Loss: 0.5 at 2; Accuracy (run 2): no points");
  ct_plot_view_append_point (CT_PLOT_VIEW (small), acc, 2, 0.98);
  ct_plot_view_changed (CT_PLOT_VIEW (small));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (small),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Loss: 0.5 at 2; Accuracy (run 2): 0.98 at 2");
  g_object_unref (small);
}

/* Points faster than frames: a thousand appends, one redraw. */
static void
test_throttle (Fixture *f, gconstpointer data)
{
  CtPlot *plot = ct_plot_view_get_plot (f->view);
  guint draws = ct_plot_view_get_draw_count (f->view);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  double lo, hi;

  g_assert_cmpuint (draws, >=, 1);
  before = ct_plot_describe (plot);
  for (int it = 3001; it <= 4000; it++)
    g_assert_true (ct_plot_view_append_point (f->view, f->current[RAW], it, 0.3));
  /* Nothing is drawn while the points come. */
  g_assert_cmpuint (ct_plot_view_get_draw_count (f->view), ==, draws);
  wait_for_paint (f);
  g_assert_cmpuint (ct_plot_view_get_draw_count (f->view), ==, draws + 1);
  /* The accessible description followed, once. */
  after = ct_plot_describe (plot);
  g_assert_cmpstr (before, !=, after);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (f->view),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, after);
  /* A point that goes back in x is refused. */
  g_assert_false (ct_plot_view_append_point (f->view, f->current[RAW], 10, 0.3));
  /* A frame with no change draws nothing again. */
  wait_for_paint (f);
  g_assert_cmpuint (ct_plot_view_get_draw_count (f->view), ==, draws + 1);
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat (hi, ==, 5000);
}

static void
test_hover (Fixture *f, gconstpointer data)
{
  CtPlot *plot = ct_plot_view_get_plot (f->view);
  GtkEventController *motion =
    ct_widget_test_find_controller (GTK_WIDGET (f->view), GTK_TYPE_EVENT_CONTROLLER_MOTION);
  int w = view_width (f), h = view_height (f);
  double px = ct_plot_x_to_px (plot, w, h, 1000);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  CtPlotRect r;
  char value[G_ASCII_DTOSTR_BUF_SIZE];

  ct_plot_get_panel_rect (plot, w, h, f->acc_panel, &r);
  text = ct_plot_view_hover_at (f->view, px, r.y + r.height / 2);
  lines = g_strsplit (text, "\n", -1);
  /* The x line, then the ten series: the current run first. */
  g_assert_cmpuint (g_strv_length (lines), ==, 11);
  g_assert_cmpstr (lines[0], ==, "Iteration 1000");
  ct_plot_format_value (value, sizeof value,
                        ct_plot_series_get_ys (plot, f->current[ACC])[1000 / 250], FALSE);
  g_free (text);
  text = g_strdup_printf ("Test accuracy: %s", value);
  g_assert_cmpstr (lines[5], ==, text);
  g_assert_true (g_str_has_prefix (lines[7], "Smoothed loss (run 1): "));
  g_assert_true (strstr (ct_plot_view_get_hover_text (f->view), text) != NULL);

  /* Motion sets it; leaving clears it. */
  g_signal_emit_by_name (motion, "leave");
  g_assert_null (ct_plot_view_get_hover_text (f->view));
  g_signal_emit_by_name (motion, "motion", ct_plot_x_to_px (plot, w, h, 2000), r.y + 5);
  g_assert_true (g_str_has_prefix (ct_plot_view_get_hover_text (f->view), "Iteration 2000\n"));
  /* Hovering draws the marks over the cached plot: no full redraw. */
  {
    guint draws = ct_plot_view_get_draw_count (f->view);

    wait_for_paint (f);
    g_signal_emit_by_name (motion, "motion", ct_plot_x_to_px (plot, w, h, 2100), r.y + 5);
    wait_for_paint (f);
    g_assert_cmpuint (ct_plot_view_get_draw_count (f->view), ==, draws);
  }
  /* Outside the plotting area: no readout. */
  g_signal_emit_by_name (motion, "motion", 2.0, 2.0);
  g_assert_null (ct_plot_view_get_hover_text (f->view));
}

static void
test_keys (Fixture *f, gconstpointer data)
{
  CtPlot *plot = ct_plot_view_get_plot (f->view);
  GtkWidget *widget = GTK_WIDGET (f->view);
  double lo, hi;

  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 5000);
  /* + zooms x by 1.25 around the middle: 2500 +- 2000. */
  gtk_widget_activate_action (widget, "plot.zoom", "d", 1.25);
  g_assert_true (ct_plot_is_zoomed (plot));
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 500, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi, 4500, 1e-6);
  /* Right pans a tenth of the width. */
  gtk_widget_activate_action (widget, "plot.pan", "(dd)", 0.1, 0.0);
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 900, 1e-6);
  g_assert_cmpfloat_with_epsilon (hi, 4900, 1e-6);
  /* - zooms out again. */
  gtk_widget_activate_action (widget, "plot.zoom", "d", 0.8);
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (hi - lo, 5000, 1e-6);
  /* Home autoscales. */
  gtk_widget_activate_action (widget, "plot.reset", NULL);
  g_assert_false (ct_plot_is_zoomed (plot));
  /* The wheel zooms around the pointer: the iteration under it stays. */
  {
    GtkEventController *scroll =
      ct_widget_test_find_controller (widget, GTK_TYPE_EVENT_CONTROLLER_SCROLL);
    GtkEventController *motion =
      ct_widget_test_find_controller (widget, GTK_TYPE_EVENT_CONTROLLER_MOTION);
    int w = view_width (f), h = view_height (f);
    CtPlotRect r;
    double px = ct_plot_x_to_px (plot, w, h, 1000);
    gboolean handled = FALSE;

    ct_plot_get_panel_rect (plot, w, h, f->loss_panel, &r);
    g_signal_emit_by_name (motion, "motion", px, r.y + r.height / 2);
    g_signal_emit_by_name (scroll, "scroll", 0.0, -1.0, &handled);
    g_assert_true (handled);
    g_assert_cmpfloat_with_epsilon (ct_plot_px_to_x (plot, w, h, px), 1000, 1e-6);
    g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
    g_assert_cmpfloat_with_epsilon (hi - lo, 5000 / 1.2, 1e-6);
  }
  gtk_widget_activate_action (widget, "plot.reset", NULL);
  g_assert_false (ct_plot_is_zoomed (plot));
  /* A drag pans: a tenth of the width to the right shows 500 earlier. */
  {
    GtkEventController *drag = ct_widget_test_find_controller (widget, GTK_TYPE_GESTURE_DRAG);
    int w = view_width (f), h = view_height (f);
    CtPlotRect r;

    ct_plot_get_panel_rect (plot, w, h, f->acc_panel, &r);
    g_signal_emit_by_name (drag, "drag-begin", r.x + r.width / 2, r.y + r.height / 2);
    g_signal_emit_by_name (drag, "drag-update", r.width / 20, 0.0);
    g_signal_emit_by_name (drag, "drag-update", r.width / 10, 0.0);
    g_signal_emit_by_name (drag, "drag-end", r.width / 10, 0.0);
    g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
    g_assert_cmpfloat_with_epsilon (lo, -500, 1e-6);
    g_assert_cmpfloat_with_epsilon (hi, 4500, 1e-6);
  }
  gtk_widget_activate_action (widget, "plot.reset", NULL);
  g_assert_false (ct_plot_is_zoomed (plot));
}

static void
on_notify (GObject *object, GParamSpec *pspec, int *count)
{
  (*count)++;
}

static void
test_log_scale (Fixture *f, gconstpointer data)
{
  CtPlot *plot = ct_plot_view_get_plot (f->view);
  int notified = 0;
  gboolean log = FALSE;

  g_signal_connect (f->view, "notify::log-scale", G_CALLBACK (on_notify), &notified);
  g_assert_false (ct_plot_view_get_log_scale (f->view));
  g_object_set (f->view, "log-scale", TRUE, NULL);
  g_assert_cmpint (notified, ==, 1);
  g_assert_true (ct_plot_get_log (plot, f->loss_panel, CT_PLOT_AXIS_LEFT));
  g_assert_true (ct_plot_get_log (plot, f->acc_panel, CT_PLOT_AXIS_LEFT));
  /* The right axis (learning rate) keeps its own setting. */
  g_assert_true (ct_plot_get_log (plot, f->loss_panel, CT_PLOT_AXIS_RIGHT));
  g_object_set (f->view, "log-scale", TRUE, NULL);
  g_assert_cmpint (notified, ==, 1);
  wait_for_paint (f);
  /* L toggles it. */
  gtk_widget_activate_action (GTK_WIDGET (f->view), "plot.toggle-log", NULL);
  g_object_get (f->view, "log-scale", &log, NULL);
  g_assert_false (log);
  g_assert_cmpint (notified, ==, 2);
  g_assert_false (ct_plot_get_log (plot, f->loss_panel, CT_PLOT_AXIS_LEFT));
}

static void
test_export (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("ct-plot-view-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "plot.csv", NULL);
  g_autofree char *png = g_build_filename (dir, "plot.png", NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) rows = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  g_assert_true (ct_plot_view_save_csv (f->view, csv, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "Iteration,Training loss (run 1),Smoothed loss (run 1),"));
  /* A header and a row per iteration 0..5000. */
  rows = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (rows), ==, 1 + 5001 + 1);
  g_assert_true (ct_plot_view_save_png (f->view, png, 0, 0, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, view_width (f));
  g_remove (csv);
  g_remove (png);
  g_rmdir (dir);
}

static void
test_screenshot (Fixture *f, gconstpointer data)
{
  CtPlot *plot = ct_plot_view_get_plot (f->view);
  g_autofree char *dir = g_dir_make_tmp ("ct-plot-view-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "plot.png", NULL);
  const char *shot = g_getenv ("CT_PLOT_SHOT");
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guint8 *pixels = NULL;
  int w = view_width (f), h = view_height (f);
  gsize stride = (gsize) w * 4;
  double x, y;
  guint32 p;

  /* The pointer on iteration 1500 of the loss panel, for the readout. */
  {
    CtPlotRect r;

    ct_plot_get_panel_rect (plot, w, h, f->loss_panel, &r);
    g_free (ct_plot_view_hover_at (f->view, ct_plot_x_to_px (plot, w, h, 1500),
                                   r.y + r.height / 2));
  }
  texture = ct_widget_test_render (GTK_WIDGET (f->view), &(GdkRGBA) { 1, 1, 1, 1 });
  pixels = g_malloc (stride * h);
  gdk_texture_download (texture, pixels, stride);
  /* The current run's accuracy at iteration 2000 is fully green
   * (#009e73), the earlier run's at 4500 is faded towards the white. */
  x = ct_plot_x_to_px (plot, w, h, 2000);
  y = ct_plot_y_to_px (plot, w, h, f->acc_panel, CT_PLOT_AXIS_LEFT,
                       ct_plot_series_get_ys (plot, f->current[ACC])[2000 / 250]);
  g_assert_cmphex (ct_widget_test_pixel (pixels, stride, x, y), ==, 0x009e73);
  x = ct_plot_x_to_px (plot, w, h, 4500);
  y = ct_plot_y_to_px (plot, w, h, f->acc_panel, CT_PLOT_AXIS_LEFT,
                       ct_plot_series_get_ys (plot, f->earlier[ACC])[4500 / 250]);
  p = ct_widget_test_pixel (pixels, stride, x, y);
  g_assert_cmphex (p, !=, 0x009e73);
  g_assert_cmpint (p & 0xff, >, 0x73);       /* lighter than the solid colour */
  g_assert_cmpint (p >> 8 & 0xff, >, 0x9e);
  g_assert_true (gdk_texture_save_to_png (texture, png));
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  if (shot != NULL)
    g_assert_true (gdk_texture_save_to_png (texture, shot));
  g_remove (png);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  if (!ct_widget_test_init (&argc, &argv, "/gtk/plot-view"))
    return g_test_run ();
  g_test_add ("/gtk/plot-view/accessible", Fixture, NULL, fixture_setup, test_accessible,
              fixture_teardown);
  g_test_add ("/gtk/plot-view/throttle", Fixture, NULL, fixture_setup, test_throttle,
              fixture_teardown);
  g_test_add ("/gtk/plot-view/hover", Fixture, NULL, fixture_setup, test_hover, fixture_teardown);
  g_test_add ("/gtk/plot-view/keys", Fixture, NULL, fixture_setup, test_keys, fixture_teardown);
  g_test_add ("/gtk/plot-view/log-scale", Fixture, NULL, fixture_setup, test_log_scale,
              fixture_teardown);
  g_test_add ("/gtk/plot-view/export", Fixture, NULL, fixture_setup, test_export, fixture_teardown);
  g_test_add ("/gtk/plot-view/screenshot", Fixture, NULL, fixture_setup, test_screenshot,
              fixture_teardown);
  return g_test_run ();
}
