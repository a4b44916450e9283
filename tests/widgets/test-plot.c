/* test-plot.c: the GTK-free plot core (render/plot/) without a display:
 * ticks and their labels against hand-computed cases, the decimated
 * columns (a spike survives, appends extend rather than rebuild), the
 * moving average, the autoscaled ranges, log axes, hit-testing and the
 * readout, and the zoom and pan transforms. Exports are in
 * test-plot-export.c. */
#include <math.h>

#include "plot/columns.h"
#include "plot/plot.h"

#define W 900
#define H 400

static void
assert_ticks (const CtPlotTicks *t, const double *expected, int n)
{
  g_assert_cmpint (t->n, ==, n);
  for (int i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (t->values[i], expected[i], fabs (expected[i]) * 1e-12 + 1e-15);
}

static void
assert_labels (const CtPlotTicks *t, const char *const *expected)
{
  for (int i = 0; i < t->n; i++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      ct_plot_format_tick (buf, sizeof buf, t->values[i], t);
      g_assert_cmpstr (buf, ==, expected[i]);
    }
}

static void
test_ticks_linear (void)
{
  CtPlotTicks t;

  /* 0..1 in at most 6 ticks: 1/5 = 0.2 is a 2 x 0.1 step. */
  ct_plot_ticks_linear (0, 1, 6, &t);
  g_assert_cmpfloat_with_epsilon (t.step, 0.2, 1e-15);
  assert_ticks (&t, (double[]) { 0, 0.2, 0.4, 0.6, 0.8, 1.0 }, 6);
  assert_labels (&t, (const char *[]) { "0.0", "0.2", "0.4", "0.6", "0.8", "1.0" });
  /* 0.13..2.71 in 10: 2.58/9 = 0.287 rounds up to 0.5. */
  ct_plot_ticks_linear (0.13, 2.71, 10, &t);
  assert_ticks (&t, (double[]) { 0.5, 1, 1.5, 2, 2.5 }, 5);
  assert_labels (&t, (const char *[]) { "0.5", "1.0", "1.5", "2.0", "2.5" });
  /* -3..7 in 5: 10/4 = 2.5 rounds up to 5; zero prints as "0", not "-0". */
  ct_plot_ticks_linear (-3, 7, 5, &t);
  assert_ticks (&t, (double[]) { 0, 5 }, 2);
  assert_labels (&t, (const char *[]) { "0", "5" });
  /* Iterations: 0..100000 in 5: 25000 rounds up to 50000. */
  ct_plot_ticks_linear (0, 100000, 5, &t);
  assert_ticks (&t, (double[]) { 0, 50000, 100000 }, 3);
  assert_labels (&t, (const char *[]) { "0", "50000", "100000" });
  /* Small steps: 0.0042..0.0061 in 5: 0.000475 rounds up to 0.0005. */
  ct_plot_ticks_linear (0.0042, 0.0061, 5, &t);
  assert_ticks (&t, (double[]) { 0.0045, 0.005, 0.0055, 0.006 }, 4);
  assert_labels (&t, (const char *[]) { "0.0045", "0.0050", "0.0055", "0.0060" });
  g_assert_cmpfloat (ct_plot_nice_step (7, 8), ==, 1);
  g_assert_cmpfloat (ct_plot_nice_step (7.5, 8), ==, 2);
}

static void
test_ticks_log (void)
{
  CtPlotTicks t;

  ct_plot_ticks_log (0.001, 10, 10, &t);
  g_assert_true (t.decades);
  assert_ticks (&t, (double[]) { 0.001, 0.01, 0.1, 1, 10 }, 5);
  assert_labels (&t, (const char *[]) { "0.001", "0.01", "0.1", "1", "10" });
  /* 13 decades in 5 ticks: every third power of ten, multiples of 3. */
  ct_plot_ticks_log (1e-8, 1e4, 5, &t);
  assert_ticks (&t, (double[]) { 1e-6, 1e-3, 1, 1e3 }, 4);
  assert_labels (&t, (const char *[]) { "1e-06", "0.001", "1", "1000" });
  /* Inside one decade: linear ticks (2.5 rounds up to a step of 1). */
  ct_plot_ticks_log (2, 5, 6, &t);
  g_assert_false (t.decades);
  assert_ticks (&t, (double[]) { 2, 3, 4, 5 }, 4);
  /* Not a log range: no ticks. */
  ct_plot_ticks_log (-1, 5, 6, &t);
  g_assert_cmpint (t.n, ==, 0);
}

static void
test_format_value (void)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  ct_plot_format_value (buf, sizeof buf, 0.123456789, FALSE);
  g_assert_cmpstr (buf, ==, "0.123457");
  ct_plot_format_value (buf, sizeof buf, 0.123456789, TRUE);
  g_assert_cmpstr (buf, ==, "0.123456789");
  ct_plot_format_value (buf, sizeof buf, NAN, FALSE);
  g_assert_cmpstr (buf, ==, "nan");
  ct_plot_format_value (buf, sizeof buf, -INFINITY, FALSE);
  g_assert_cmpstr (buf, ==, "-inf");
}

static void
test_smooth (void)
{
  const double values[] = { 1, 2, 3, 4, 10, 0, 0, 0 };
  /* Window 3: the mean of what there is until 3 values have come. */
  const double expected[] = { 1, 1.5, 2, 3, 17.0 / 3, 14.0 / 3, 10.0 / 3, 0 };
  double out[G_N_ELEMENTS (values)];
  g_autoptr(CtPlotSmoother) s = ct_plot_smoother_new (3);

  ct_plot_smooth (values, G_N_ELEMENTS (values), 3, out);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    g_assert_cmpfloat_with_epsilon (out[i], expected[i], 1e-12);
  /* In place, and window 1 is the values themselves. */
  memcpy (out, values, sizeof out);
  ct_plot_smooth (out, G_N_ELEMENTS (out), 1, out);
  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    g_assert_cmpfloat (out[i], ==, values[i]);
  /* Long runs: after a million pushes the ring's sum has not drifted. */
  for (int i = 0; i < 1000000; i++)
    ct_plot_smoother_push (s, i % 7 == 3 ? 1e6 : 0.1);
  g_assert_cmpfloat_with_epsilon (ct_plot_smoother_push (s, 0.5), (0.1 + 0.1 + 0.5) / 3, 1e-12);
  ct_plot_smoother_reset (s);
  g_assert_cmpfloat (ct_plot_smoother_push (s, 4), ==, 4);
  g_assert_cmpuint (ct_plot_smoother_get_window (s), ==, 3);
}

static void
test_columns (void)
{
  gsize n = 10000;
  g_autofree double *xs = g_new (double, n + 100);
  g_autofree double *ys = g_new (double, n + 100);
  CtPlotColumns c = { 0 };
  int spike_col, dip_col;

  for (gsize i = 0; i < n + 100; i++)
    {
      xs[i] = i;
      ys[i] = 1.0;
    }
  ys[5003] = 100; /* one point in a column of 100 */
  ys[7001] = -50;
  g_assert_true (ct_plot_columns_update (&c, xs, ys, n, 0, n, 100, FALSE));
  spike_col = 5003 * 100 / (int) n;
  dip_col = 7001 * 100 / (int) n;
  for (int col = 0; col < 100; col++)
    {
      g_assert_cmpfloat (c.max[col], ==, col == spike_col ? 100 : 1);
      g_assert_cmpfloat (c.min[col], ==, col == dip_col ? -50 : 1);
      g_assert_cmpfloat (c.first[col], ==, 1);
      g_assert_cmpfloat (c.last[col], ==, 1);
    }
  /* On a log axis the dip (<= 0) is left out of its column. */
  g_assert_true (ct_plot_columns_update (&c, xs, ys, n, 0, n, 100, TRUE));
  g_assert_cmpfloat (c.min[dip_col], ==, 1);
  g_assert_cmpfloat (c.max[spike_col], ==, 100);

  /* A narrower view: the columns are rebuilt, points outside ignored. */
  g_assert_true (ct_plot_columns_update (&c, xs, ys, n, 5000, 5010, 10, FALSE));
  g_assert_cmpfloat (c.max[3], ==, 100);
  g_assert_cmpfloat (c.max[2], ==, 1);

  /* Appending to the same view extends the columns in place. */
  g_assert_true (ct_plot_columns_update (&c, xs, ys, 5005, 5000, 5010, 10, FALSE));
  g_assert_true (isnan (c.first[7]));
  g_assert_false (ct_plot_columns_update (&c, xs, ys, 5008, 5000, 5010, 10, FALSE));
  g_assert_cmpfloat (c.first[7], ==, 1);
  g_assert_cmpuint (c.upto, ==, 5008);
  ct_plot_columns_clear (&c);

  g_assert_cmpuint (ct_plot_lower_bound (xs, n, -1), ==, 0);
  g_assert_cmpuint (ct_plot_lower_bound (xs, n, 41.5), ==, 42);
  g_assert_cmpuint (ct_plot_lower_bound (xs, n, 1e9), ==, n);
}

/* A one-panel plot: series 0 is y = x for x = 0, 10, ..., 100; series 1
 * has points at 0, 50, 100 only. */
static CtPlot *
make_plot (void)
{
  CtPlot *plot = ct_plot_new ();
  int panel = ct_plot_add_panel (plot, "Loss", 1);
  int a = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "A", CT_PLOT_COLOR_BLUE,
                              CT_PLOT_LINE, NULL);
  int b = ct_plot_add_series (plot, panel, CT_PLOT_AXIS_LEFT, "B", CT_PLOT_COLOR_ORANGE,
                              CT_PLOT_LINE_MARKS, "run 1");

  ct_plot_set_x_label (plot, "Iteration");
  for (int i = 0; i <= 10; i++)
    g_assert_true (ct_plot_append (plot, a, i * 10, i * 10));
  for (int i = 0; i <= 2; i++)
    g_assert_true (ct_plot_append (plot, b, i * 50, 0.5 + i));
  return plot;
}

static void
test_ranges (void)
{
  g_autoptr(CtPlot) plot = make_plot ();
  double lo, hi;

  /* x ends on whole steps of 20 (100 / 7 rounds up to 20). */
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 100);
  ct_plot_append (plot, 0, 101, 50);
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat (hi, ==, 120);
  /* x may not go back; a non-finite x is refused. */
  g_assert_false (ct_plot_append (plot, 0, 99, 1));
  g_assert_false (ct_plot_append (plot, 0, NAN, 1));
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, 0), ==, 12);
  /* y: 0..100 with a 5% margin. */
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, -5, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 105, 1e-9);
  g_assert_false (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_RIGHT, &lo, &hi));

  /* Log: the zero is left out and counted; 0.5..100 is the range. */
  ct_plot_set_log (plot, 0, CT_PLOT_AXIS_LEFT, TRUE);
  g_assert_cmpuint (ct_plot_series_get_n_nonpositive (plot, 0), ==, 1);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (log10 (lo), log10 (0.5) - 0.05 * log10 (200), 1e-9);
  g_assert_cmpfloat_with_epsilon (log10 (hi), 2 + 0.05 * log10 (200), 1e-9);
  /* A decade is the same height wherever it is. */
  g_assert_cmpfloat_with_epsilon (ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 1)
                                    - ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 10),
                                  ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 10)
                                    - ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 100),
                                  1e-9);
  /* Hidden series do not count. */
  ct_plot_set_log (plot, 0, CT_PLOT_AXIS_LEFT, FALSE);
  ct_plot_series_set_visible (plot, 0, FALSE);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 0.5 - 0.1, 1e-9);
}

/* With x zoomed, an autoscaled y fits the points in view. */
static void
test_y_follows_x (void)
{
  g_autoptr(CtPlot) plot = make_plot ();
  double lo, hi;

  ct_plot_series_set_visible (plot, 1, FALSE);
  ct_plot_set_x_range (plot, 30, 60);
  /* A's points 30, 40, 50, 60 in view: 30..60 with a 5% margin. */
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 28.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 61.5, 1e-9);
  /* Showing B (1.5 at 50) widens it: the cached range is dropped. */
  ct_plot_series_set_visible (plot, 1, TRUE);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 1.5 - 58.5 * 0.05, 1e-9);
  /* No point in view: the whole data's range. */
  ct_plot_set_x_range (plot, 31, 39);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, -5, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 105, 1e-9);
  /* A zoomed y holds whatever x does. */
  ct_plot_set_y_range (plot, 0, CT_PLOT_AXIS_LEFT, 2, 3);
  ct_plot_set_x_range (plot, 0, 100);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 2);
  g_assert_cmpfloat (hi, ==, 3);
}

static void
test_hit (void)
{
  g_autoptr(CtPlot) plot = make_plot ();
  CtPlotHit hits[4];
  CtPlotRect r;
  g_autofree char *text = NULL;
  g_autofree char *description = NULL;
  double px, py;
  int n;

  ct_plot_get_panel_rect (plot, W, H, 0, &r);
  py = r.y + r.height / 2;
  /* x = 23: A's nearest is 20, B's is 0. */
  px = ct_plot_x_to_px (plot, W, H, 23);
  n = ct_plot_hit (plot, W, H, px, hits, 4);
  g_assert_cmpint (n, ==, 2);
  g_assert_cmpint (hits[0].series, ==, 0);
  g_assert_cmpuint (hits[0].index, ==, 2);
  g_assert_cmpfloat (hits[0].y, ==, 20);
  g_assert_cmpint (hits[1].series, ==, 1);
  g_assert_cmpfloat (hits[1].x, ==, 0);
  text = ct_plot_hover_text (plot, W, H, px, py);
  g_assert_cmpstr (text, ==, "Iteration 20\nA: 20\nB (run 1): 0.5 (at 0)");
  /* A tie (25, between 20 and 30) takes the earlier point. */
  n = ct_plot_hit (plot, W, H, ct_plot_x_to_px (plot, W, H, 25), hits, 4);
  g_assert_cmpfloat (hits[0].x, ==, 20);
  /* x = 80: B's nearest is 100. */
  n = ct_plot_hit (plot, W, H, ct_plot_x_to_px (plot, W, H, 80), hits, 4);
  g_assert_cmpfloat (hits[1].x, ==, 100);
  g_assert_cmpfloat (hits[1].y, ==, 2.5);
  /* Outside the plotting area: nothing. */
  g_assert_cmpint (ct_plot_hit (plot, W, H, r.x - 5, hits, 4), ==, 0);
  g_assert_null (ct_plot_hover_text (plot, W, H, px, r.y - 5));
  /* Hidden series give no hit. */
  ct_plot_series_set_visible (plot, 1, FALSE);
  g_assert_cmpint (ct_plot_hit (plot, W, H, px, hits, 4), ==, 1);
  ct_plot_series_set_visible (plot, 1, TRUE);

  description = ct_plot_describe (plot);
  g_assert_cmpstr (description, ==, "A: 100 at 100; B (run 1): 2.5 at 100");
}

static void
test_zoom_pan (void)
{
  g_autoptr(CtPlot) plot = make_plot ();
  CtPlotRect r;
  double lo, hi, ylo, yhi, cy;

  ct_plot_get_panel_rect (plot, W, H, 0, &r);
  /* One panel, no right axis: 64 px on the left, 16 on the right. */
  g_assert_cmpfloat (r.x, ==, 64);
  g_assert_cmpfloat (r.width, ==, W - 64 - 16);
  g_assert_cmpfloat_with_epsilon (ct_plot_x_to_px (plot, W, H, 50), 64 + 410, 1e-9);
  g_assert_cmpfloat_with_epsilon (ct_plot_px_to_x (plot, W, H, 64 + 410), 50, 1e-9);
  g_assert_cmpint (ct_plot_panel_at (plot, W, H, r.y + 1), ==, 0);
  g_assert_cmpint (ct_plot_panel_at (plot, W, H, r.y - 1), ==, -1);
  g_assert_false (ct_plot_is_zoomed (plot));

  /* Zoom 2x around x = 50, y = 50 (the middle of -5..105): 25..75 and
   * 22.5..77.5. */
  cy = ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 50);
  ct_plot_zoom_at (plot, W, H, ct_plot_x_to_px (plot, W, H, 50), cy, 2);
  g_assert_true (ct_plot_is_zoomed (plot));
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 25, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 75, 1e-9);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &ylo, &yhi));
  g_assert_cmpfloat_with_epsilon (ylo, 22.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (yhi, 77.5, 1e-9);
  /* Zoom around a point off-centre keeps that point under the pointer. */
  {
    double px = ct_plot_x_to_px (plot, W, H, 30);

    ct_plot_zoom_at (plot, W, H, px, cy, 1.5);
    g_assert_cmpfloat_with_epsilon (ct_plot_px_to_x (plot, W, H, px), 30, 1e-9);
    ct_plot_zoom_at (plot, W, H, px, cy, 1 / 1.5);
    g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
    g_assert_cmpfloat_with_epsilon (lo, 25, 1e-9);
  }

  /* A drag 10% of the width to the right shows 5 earlier; a drag down
   * by 10% of the height shows higher y. */
  ct_plot_pan (plot, W, H, cy, r.width / 10, r.height / 10);
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 20, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 70, 1e-9);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &ylo, &yhi));
  g_assert_cmpfloat_with_epsilon (ylo, 28, 1e-9);
  g_assert_cmpfloat_with_epsilon (yhi, 83, 1e-9);

  /* A rectangle from x 30 to 40, y 40 to 60. */
  g_assert_true (ct_plot_zoom_rect (plot, W, H,
                                    ct_plot_x_to_px (plot, W, H, 40),
                                    ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 40),
                                    ct_plot_x_to_px (plot, W, H, 30),
                                    ct_plot_y_to_px (plot, W, H, 0, CT_PLOT_AXIS_LEFT, 60)));
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat_with_epsilon (lo, 30, 1e-9);
  g_assert_cmpfloat_with_epsilon (hi, 40, 1e-9);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &ylo, &yhi));
  g_assert_cmpfloat_with_epsilon (ylo, 40, 1e-9);
  g_assert_cmpfloat_with_epsilon (yhi, 60, 1e-9);
  /* Too small a rectangle (a click) changes nothing. */
  g_assert_false (ct_plot_zoom_rect (plot, W, H, 300, cy, 302, cy + 1));

  ct_plot_reset_view (plot);
  g_assert_false (ct_plot_is_zoomed (plot));
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 100);
}

static void
test_panels (void)
{
  g_autoptr(CtPlot) plot = ct_plot_new ();
  int loss = ct_plot_add_panel (plot, "Loss", 2);
  int acc = ct_plot_add_panel (plot, "Accuracy", 1);
  CtPlotRect a, b;
  double lo, hi;
  int lr;

  lr = ct_plot_add_series (plot, loss, CT_PLOT_AXIS_RIGHT, "Learning rate", CT_PLOT_COLOR_GREY,
                           CT_PLOT_LINE, NULL);
  ct_plot_add_series (plot, acc, CT_PLOT_AXIS_LEFT, "Accuracy", CT_PLOT_COLOR_GREEN,
                      CT_PLOT_LINE_MARKS, NULL);
  ct_plot_get_panel_rect (plot, W, H, loss, &a);
  ct_plot_get_panel_rect (plot, W, H, acc, &b);
  /* A right axis takes room on the right; weights 2:1 share the height. */
  g_assert_cmpfloat (a.width, ==, W - 64 - 64);
  g_assert_cmpfloat_with_epsilon (a.height, 2 * b.height, 1e-9);
  g_assert_cmpfloat (b.y, >, a.y + a.height);
  g_assert_true (ct_plot_panel_has_side (plot, loss, CT_PLOT_AXIS_RIGHT));
  g_assert_false (ct_plot_panel_has_side (plot, loss, CT_PLOT_AXIS_LEFT));
  /* A single value: a range around it. */
  ct_plot_append (plot, lr, 0, 0.01);
  g_assert_true (ct_plot_get_y_range (plot, loss, CT_PLOT_AXIS_RIGHT, &lo, &hi));
  g_assert_cmpfloat (lo, <, 0.01);
  g_assert_cmpfloat (hi, >, 0.01);
  g_assert_true (ct_plot_get_x_range (plot, &lo, &hi));
  g_assert_cmpfloat (lo, <=, 0);
  g_assert_cmpfloat (hi, >, 0);

  /* Fading the run keeps it, labelled; new series are not faded. */
  ct_plot_fade_all (plot, "run 1");
  g_assert_true (ct_plot_series_get_faded (plot, lr));
  g_assert_cmpstr (ct_plot_series_get_run_label (plot, lr), ==, "run 1");
  lr = ct_plot_add_series (plot, loss, CT_PLOT_AXIS_RIGHT, "Learning rate", CT_PLOT_COLOR_GREY,
                           CT_PLOT_LINE, NULL);
  g_assert_false (ct_plot_series_get_faded (plot, lr));
  ct_plot_fade_all (plot, "run 2");
  g_assert_cmpstr (ct_plot_series_get_run_label (plot, 0), ==, "run 1");
  g_assert_cmpstr (ct_plot_series_get_run_label (plot, lr), ==, "run 2");
}

/* A diverged run's spike (loss ~ 90) beside runs between 0.3 and 2.3
 * must not flatten them: the autoscaled range comes from the bulk of the
 * values and says that it clipped; without the spike nothing changes. */
static void
test_robust_range (void)
{
  g_autoptr (CtPlot) plot = ct_plot_new ();
  double lo, hi;
  int now, before;

  ct_plot_add_panel (plot, "Loss", 1);
  before = ct_plot_add_series (plot, 0, CT_PLOT_AXIS_LEFT, "Loss", CT_PLOT_COLOR_BLUE,
                               CT_PLOT_LINE, NULL);
  now = ct_plot_add_series (plot, 0, CT_PLOT_AXIS_LEFT, "Loss", CT_PLOT_COLOR_BLUE,
                            CT_PLOT_LINE, NULL);
  for (int i = 0; i < 100; i++)
    {
      ct_plot_append (plot, before, i, 2.3 - 2.0 * i / 100.0);
      ct_plot_append (plot, now, i, 2.3 - 1.5 * i / 100.0);
    }
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_false (ct_plot_get_y_clipped (plot, 0, CT_PLOT_AXIS_LEFT));
  g_assert_cmpfloat (lo, <, 0.3);
  g_assert_cmpfloat (hi, >, 2.3);
  g_assert_cmpfloat (hi, <, 2.5);

  ct_plot_series_clear (plot, before);
  for (int i = 0; i < 100; i++)
    ct_plot_append (plot, before, i, i == 40 ? 90.0 : 2.3 - 2.0 * i / 100.0);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_true (ct_plot_get_y_clipped (plot, 0, CT_PLOT_AXIS_LEFT));
  g_assert_cmpfloat (hi, >, 2.3);
  g_assert_cmpfloat (hi, <, 4.0);

  /* a run that diverged for good (a fifth of its points near 87) is
   * clipped too, however many points it has up there */
  ct_plot_series_clear (plot, now);
  for (int i = 0; i < 100; i++)
    ct_plot_append (plot, now, i, i < 80 ? 2.3 - 0.5 * i / 80.0 : 87.0);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_true (ct_plot_get_y_clipped (plot, 0, CT_PLOT_AXIS_LEFT));
  g_assert_cmpfloat (hi, <, 4.0);

  /* a log axis shows every value: it is the reading for a diverged run */
  ct_plot_set_log (plot, 0, CT_PLOT_AXIS_LEFT, TRUE);
  g_assert_true (ct_plot_get_y_range (plot, 0, CT_PLOT_AXIS_LEFT, &lo, &hi));
  g_assert_false (ct_plot_get_y_clipped (plot, 0, CT_PLOT_AXIS_LEFT));
  g_assert_cmpfloat (hi, >, 90);

  /* a loss falling fast over a long run keeps its first values, and an
   * accuracy rising keeps its low start */
  {
    g_autoptr (CtPlot) long_run = ct_plot_new ();
    int loss, acc;

    ct_plot_add_panel (long_run, "Loss", 1);
    ct_plot_add_panel (long_run, "Accuracy", 1);
    loss = ct_plot_add_series (long_run, 0, CT_PLOT_AXIS_LEFT, "Loss", CT_PLOT_COLOR_BLUE,
                               CT_PLOT_LINE, NULL);
    acc = ct_plot_add_series (long_run, 1, CT_PLOT_AXIS_LEFT, "Accuracy", CT_PLOT_COLOR_BLUE,
                              CT_PLOT_LINE, NULL);
    for (int i = 0; i < 5000; i++)
      {
        ct_plot_append (long_run, loss, i, 0.3 + 2.0 * exp (-i / 50.0));
        ct_plot_append (long_run, acc, i, 0.9 - 0.8 * exp (-i / 50.0));
      }
    g_assert_false (ct_plot_get_y_clipped (long_run, 0, CT_PLOT_AXIS_LEFT));
    g_assert_false (ct_plot_get_y_clipped (long_run, 1, CT_PLOT_AXIS_LEFT));
  }

  /* drawing with the spike clipped and a long run label in a narrow
   * legend works */
  ct_plot_set_log (plot, 0, CT_PLOT_AXIS_LEFT, FALSE);
  ct_plot_fade_all (plot, "base_lr 0.1, momentum 0.5, weight_decay 0.005");
  {
    cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 240, 160);
    cairo_t *cr = cairo_create (surface);

    ct_plot_draw (plot, cr, 240, 160);
    g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
    cairo_destroy (cr);
    cairo_surface_destroy (surface);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/plot/ticks-linear", test_ticks_linear);
  g_test_add_func ("/widgets/plot/ticks-log", test_ticks_log);
  g_test_add_func ("/widgets/plot/format-value", test_format_value);
  g_test_add_func ("/widgets/plot/smooth", test_smooth);
  g_test_add_func ("/widgets/plot/columns", test_columns);
  g_test_add_func ("/widgets/plot/ranges", test_ranges);
  g_test_add_func ("/widgets/plot/y-follows-x", test_y_follows_x);
  g_test_add_func ("/widgets/plot/hit", test_hit);
  g_test_add_func ("/widgets/plot/zoom-pan", test_zoom_pan);
  g_test_add_func ("/widgets/plot/panels", test_panels);
  g_test_add_func ("/widgets/plot/robust-range", test_robust_range);
  return g_test_run ();
}
