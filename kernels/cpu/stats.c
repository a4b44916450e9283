/* cpu/stats.c: the CPU side of stats.h.
 *
 * Two passes over the array: the first counts and finds the range and the
 * sums, the second sums squared deviations from the mean (exact where a
 * one-pass E[x²] - E[x]² cancels) and fills the histogram, whose range is
 * only known after the first. Four double lanes keep the sums' rounding
 * error small on blobs of millions of values and let the compiler
 * vectorise. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define N_LANES 4

CtStatus
ct_cpu_stats (int64_t n, const float *x, int64_t n_bins, int64_t *bins, CtStats *stats)
{
  double sum[N_LANES] = { 0 }, sumsq[N_LANES] = { 0 }, dev[N_LANES] = { 0 };
  double lo = INFINITY, hi = -INFINITY, total = 0.0, total_sq = 0.0, total_dev = 0.0;
  int64_t n_finite = 0, n_zeros = 0, n_nan = 0, n_inf = 0;
  double mean, width;

  if (n < 0 || n_bins < 0 || stats == NULL || (n > 0 && x == NULL) ||
      (n_bins > 0 && bins == NULL))
    return CT_STATUS_INVALID;

  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];
      int lane = (int) (i & (N_LANES - 1));

      if (isnan (v))
        {
          n_nan++;
          continue;
        }
      if (isinf (v))
        {
          n_inf++;
          continue;
        }
      n_finite++;
      if (v == 0.0f)
        n_zeros++;
      if (v < lo)
        lo = v;
      if (v > hi)
        hi = v;
      sum[lane] += (double) v;
      sumsq[lane] += (double) v * (double) v;
    }
  for (int l = 0; l < N_LANES; l++)
    {
      total += sum[l];
      total_sq += sumsq[l];
    }
  mean = n_finite > 0 ? total / (double) n_finite : 0.0;

  for (int64_t b = 0; b < n_bins; b++)
    bins[b] = 0;
  width = hi > lo ? (hi - lo) / (double) n_bins : 0.0;
  for (int64_t i = 0; i < n && n_finite > 0; i++)
    {
      float v = x[i];
      double d;

      if (!isfinite (v))
        continue;
      d = (double) v - mean;
      dev[i & (N_LANES - 1)] += d * d;
      if (n_bins > 0)
        {
          int64_t b = 0;

          if (width > 0.0)
            {
              b = (int64_t) (((double) v - lo) / width);
              /* The maximum, and rounding just past it, go in the last bin. */
              if (b >= n_bins)
                b = n_bins - 1;
              if (b < 0)
                b = 0;
            }
          bins[b]++;
        }
    }
  for (int l = 0; l < N_LANES; l++)
    total_dev += dev[l];

  stats->count = n;
  stats->n_finite = n_finite;
  stats->n_zeros = n_zeros;
  stats->n_nan = n_nan;
  stats->n_inf = n_inf;
  /* Adding +0 turns a -0 extreme into +0 (signed zeros are kept by our
   * flags): a blob of zeros should not read "min -0". */
  stats->min = n_finite > 0 ? lo + 0.0 : 0.0;
  stats->max = n_finite > 0 ? hi + 0.0 : 0.0;
  stats->mean = mean;
  stats->std = n_finite > 0 ? sqrt (total_dev / (double) n_finite) : 0.0;
  stats->l2_norm = sqrt (total_sq);
  stats->zero_share = n > 0 ? (double) n_zeros / (double) n : 0.0;
  return CT_STATUS_OK;
}
