/* bench-plot.c: live training plots at 900 x 400 drawn into a cairo image
 * surface, as the widget draws them: a loss panel with the raw training
 * loss and its moving average (100,000 points each) and the learning rate
 * on the right axis (100,000 points), and an accuracy panel with a test
 * point every 500 iterations. Three figures, medians of repeated runs:
 * a full redraw (every series decimated from scratch), a redraw with the
 * columns cached, and the live case: one point appended to each series,
 * then a redraw (the columns extended, not rebuilt). The goal is under
 * 16 ms for a full redraw; the benchmark prints and never fails on speed,
 * since the build machines are shared. It fails if the live case
 * rebuilt columns or if nothing was drawn. */
#include <math.h>
#include <stdio.h>

#include "bench-util.h"
#include "plot/plot.h"

#define RUNS 41
#define N 100000
#define FIRST 10000 /* the first iteration: the x axis ends at 120000 */

static double
loss_at (int it)
{
  /* A decaying loss with noise and the odd spike. */
  double noise = sin (it * 12.9898) * 43758.5453;

  noise -= floor (noise);
  return 2.3 * exp (-it / 20000.0) + 0.05 + 0.3 * noise + (it % 9973 == 0 ? 3.0 : 0.0);
}

static void
clear (cairo_t *cr)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
}

int
main (void)
{
  g_autoptr(CtPlot) plot = ct_plot_new ();
  g_autoptr(CtPlotSmoother) smoother = ct_plot_smoother_new (100);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 400);
  cairo_t *cr = cairo_create (surface);
  double full[RUNS], cached[RUNS], live[RUNS];
  int loss_panel, acc_panel, raw, smooth, lr, acc, it;
  guint builds;

  loss_panel = ct_plot_add_panel (plot, "Loss", 2);
  acc_panel = ct_plot_add_panel (plot, "Accuracy", 1);
  raw = ct_plot_add_series (plot, loss_panel, CT_PLOT_AXIS_LEFT, "Training loss",
                            CT_PLOT_COLOR_BLUE, CT_PLOT_LINE_THIN, NULL);
  smooth = ct_plot_add_series (plot, loss_panel, CT_PLOT_AXIS_LEFT, "Smoothed",
                               CT_PLOT_COLOR_BLUE, CT_PLOT_LINE, NULL);
  lr = ct_plot_add_series (plot, loss_panel, CT_PLOT_AXIS_RIGHT, "Learning rate",
                           CT_PLOT_COLOR_GREY, CT_PLOT_LINE, NULL);
  acc = ct_plot_add_series (plot, acc_panel, CT_PLOT_AXIS_LEFT, "Test accuracy",
                            CT_PLOT_COLOR_GREEN, CT_PLOT_LINE_MARKS, NULL);
  ct_plot_set_log (plot, loss_panel, CT_PLOT_AXIS_RIGHT, TRUE);
  for (it = FIRST; it < FIRST + N; it++)
    {
      double loss = loss_at (it);

      ct_plot_append (plot, raw, it, loss);
      ct_plot_append (plot, smooth, it, ct_plot_smoother_push (smoother, loss));
      ct_plot_append (plot, lr, it, 0.01 * pow (1 + 0.0001 * it, -0.75));
      if (it % 500 == 0)
        ct_plot_append (plot, acc, it, 0.99 - 0.9 * exp (-it / 8000.0));
    }

  for (int r = 0; r < RUNS; r++)
    {
      gint64 t0, t1, t2, t3;

      clear (cr);
      ct_plot_invalidate (plot);
      t0 = g_get_monotonic_time ();
      ct_plot_draw (plot, cr, 900, 400);
      cairo_surface_flush (surface);
      t1 = g_get_monotonic_time ();
      clear (cr);
      t2 = g_get_monotonic_time ();
      ct_plot_draw (plot, cr, 900, 400);
      cairo_surface_flush (surface);
      t3 = g_get_monotonic_time ();
      full[r] = (t1 - t0) / 1000.0;
      cached[r] = (t3 - t2) / 1000.0;
    }

  builds = ct_plot_get_column_builds (plot);
  for (int r = 0; r < RUNS; r++, it++)
    {
      double loss = loss_at (it);
      gint64 t0, t1;

      clear (cr);
      t0 = g_get_monotonic_time ();
      ct_plot_append (plot, raw, it, loss);
      ct_plot_append (plot, smooth, it, ct_plot_smoother_push (smoother, loss));
      ct_plot_append (plot, lr, it, 0.01 * pow (1 + 0.0001 * it, -0.75));
      ct_plot_draw (plot, cr, 900, 400);
      cairo_surface_flush (surface);
      t1 = g_get_monotonic_time ();
      live[r] = (t1 - t0) / 1000.0;
    }
  if (ct_plot_get_column_builds (plot) != builds)
    {
      fprintf (stderr, "appending a point rebuilt the columns\n");
      return 1;
    }

  printf ("plot 900x400, 3 series x 100000 points + 200 test points (median of %d; "
          "goal < 16 ms):\n", RUNS);
  printf ("  full redraw, columns rebuilt:  %.2f ms\n", ct_bench_median (full, RUNS));
  printf ("  redraw, columns cached:        %.2f ms\n", ct_bench_median (cached, RUNS));
  printf ("  append 1 point per series, redraw (columns extended): %.2f ms\n",
          ct_bench_median (live, RUNS));

  /* Something was drawn: the middle of the loss panel is not all white. */
  {
    CtPlotRect r;
    guint32 *px = (guint32 *) (void *) cairo_image_surface_get_data (surface);
    int stride = cairo_image_surface_get_stride (surface) / 4;
    int coloured = 0;

    ct_plot_get_panel_rect (plot, 900, 400, loss_panel, &r);
    for (int y = (int) r.y; y < (int) (r.y + r.height); y++)
      if ((px[y * stride + (int) (r.x + r.width / 2)] & 0xffffff) != 0xffffff)
        coloured++;
    if (coloured == 0)
      {
        fprintf (stderr, "nothing was drawn\n");
        return 1;
      }
  }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return 0;
}
