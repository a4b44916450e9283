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

gboolean
ct_plot_robust_range (double *values, gsize n, double *lo, double *hi)
{
  double q_lo, q_hi, spread, v_min, v_max;
  gboolean clipped = FALSE;

  /* too few points to tell a spike from the curve */
  if (n < 20)
    return FALSE;
  qsort (values, n, sizeof (double), compare_doubles);
  v_min = values[0];
  v_max = values[n - 1];
  q_lo = values[(gsize) floor ((n - 1) * 0.02)];
  q_hi = values[(gsize) ceil ((n - 1) * 0.98)];
  spread = q_hi - q_lo;
  if (spread <= 0)
    spread = MAX (fabs (q_hi) * 0.1, 1e-12);
  *lo = v_min;
  *hi = v_max;
  if (v_max > q_hi + 3 * spread)
    {
      *hi = q_hi + 0.25 * spread;
      clipped = TRUE;
    }
  if (v_min < q_lo - 3 * spread)
    {
      *lo = q_lo - 0.25 * spread;
      clipped = TRUE;
    }
  return clipped;
}
