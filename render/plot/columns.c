/* columns.c: per-pixel-column min/max/first/last decimation (see
 * columns.h). */
#include "columns.h"

#include <math.h>

gsize
ct_plot_lower_bound (const double *xs, gsize n, double x)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (xs[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

void
ct_plot_columns_clear (CtPlotColumns *c)
{
  g_clear_pointer (&c->min, g_free);
  g_clear_pointer (&c->max, g_free);
  g_clear_pointer (&c->first, g_free);
  g_clear_pointer (&c->last, g_free);
  c->valid = FALSE;
  c->n_cols = 0;
  c->upto = 0;
}

static void
add_points (CtPlotColumns *c, const double *xs, const double *ys, gsize from, gsize n)
{
  double scale = c->n_cols / (c->x_hi - c->x_lo);

  for (gsize i = from; i < n; i++)
    {
      double x = xs[i], y = ys[i];
      int col;

      if (x > c->x_hi)
        break; /* x does not decrease: nothing further is in view */
      if (x < c->x_lo || !isfinite (y) || (c->log && y <= 0))
        continue;
      col = (int) ((x - c->x_lo) * scale);
      col = MIN (col, c->n_cols - 1);
      if (isnan (c->first[col]))
        {
          c->first[col] = c->min[col] = c->max[col] = y;
        }
      else
        {
          c->min[col] = MIN (c->min[col], y);
          c->max[col] = MAX (c->max[col], y);
        }
      c->last[col] = y;
    }
  c->upto = n;
}

gboolean
ct_plot_columns_update (CtPlotColumns *c,
                        const double *xs,
                        const double *ys,
                        gsize n,
                        double x_lo,
                        double x_hi,
                        int n_cols,
                        gboolean log)
{
  g_return_val_if_fail (x_hi > x_lo && n_cols > 0, FALSE);

  if (c->valid && c->x_lo == x_lo && c->x_hi == x_hi && c->n_cols == n_cols
      && c->log == log && c->upto <= n)
    {
      /* Points past x_hi were counted in upto but could not be in view,
       * and later points come after them: only the new ones matter. */
      add_points (c, xs, ys, c->upto, n);
      return FALSE;
    }
  if (c->n_cols != n_cols)
    {
      ct_plot_columns_clear (c);
      c->min = g_new (double, n_cols);
      c->max = g_new (double, n_cols);
      c->first = g_new (double, n_cols);
      c->last = g_new (double, n_cols);
      c->n_cols = n_cols;
    }
  for (int i = 0; i < n_cols; i++)
    c->min[i] = c->max[i] = c->first[i] = c->last[i] = NAN;
  c->x_lo = x_lo;
  c->x_hi = x_hi;
  c->log = log;
  c->valid = TRUE;
  add_points (c, xs, ys, ct_plot_lower_bound (xs, n, x_lo), n);
  return TRUE;
}
