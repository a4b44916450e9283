/* robust.c: the outlier-resistant y range (see robust.h for why). */
#include <math.h>
#include <stdlib.h>

#include "robust.h"

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median_of_sorted (const double *v, gsize n)
{
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

gboolean
ct_plot_robust_range (double *values, gsize n, const double *firsts, gsize n_firsts,
                      double *lo, double *hi)
{
  g_autofree double *dev = NULL;
  double med, mad, t_lo, t_hi, first_lo, first_hi;
  gboolean any = FALSE;

  /* too few points to tell a blow-up from the curve */
  if (n < 20)
    return FALSE;
  qsort (values, n, sizeof (double), compare_doubles);
  med = median_of_sorted (values, n);
  dev = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    dev[i] = fabs (values[i] - med);
  qsort (dev, n, sizeof (double), compare_doubles);
  mad = MAX (median_of_sorted (dev, n), MAX (fabs (med) * 1e-3, 1e-12));
  t_lo = med - 20 * mad;
  t_hi = med + 20 * mad;
  first_lo = first_hi = med;
  for (gsize i = 0; i < n_firsts; i++)
    if (isfinite (firsts[i]))
      {
        first_lo = MIN (first_lo, firsts[i]);
        first_hi = MAX (first_hi, firsts[i]);
      }
  t_lo = MIN (t_lo, first_lo - (med - first_lo));
  t_hi = MAX (t_hi, first_hi + (first_hi - med));
  if (values[0] >= t_lo && values[n - 1] <= t_hi)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (values[i] >= t_lo && values[i] <= t_hi)
      {
        *lo = any ? MIN (*lo, values[i]) : values[i];
        *hi = any ? MAX (*hi, values[i]) : values[i];
        any = TRUE;
      }
  return any;
}
