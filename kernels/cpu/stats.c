/* cpu/stats.c: the CPU side of stats.h.
 *
 * Two passes over the array: the first counts and finds the range and the
 * sums, the second sums squared deviations from the mean (exact where a
 * one-pass E[x²] - E[x]² cancels) and fills the histogram, whose range is
 * only known after the first. Four double lanes (element i in lane i % 4,
 * whichever path takes it, so results do not depend on where a NaN is)
 * keep the sums' rounding error small on blobs of millions of values and
 * let the compiler vectorise. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define N_LANES 4
#define BLOCK 1024 /* a multiple of N_LANES: lanes are the same on both paths */

/* First-pass accumulators. */
typedef struct {
  double sum[N_LANES], sumsq[N_LANES];
  double lo, hi;
  int64_t n_finite, n_zeros, n_nan, n_inf;
} Pass1;

/* Values [BEGIN, END), all finite: no branch the compiler cannot turn into
 * vector selects. */
static void
pass1_finite (const float *x, int64_t begin, int64_t end, Pass1 *p)
{
  /* Locals, not P's fields: the project builds with -fno-strict-aliasing,
   * under which stores through P could alias X and stop vectorisation. */
  double sum[N_LANES], sumsq[N_LANES];
  float lo[N_LANES], hi[N_LANES];
  int64_t zeros = 0, i = begin;

  for (int l = 0; l < N_LANES; l++)
    {
      sum[l] = p->sum[l];
      sumsq[l] = p->sumsq[l];
      lo[l] = (float) p->lo;
      hi[l] = (float) p->hi;
    }
  for (; i + N_LANES <= end; i += N_LANES)
    for (int l = 0; l < N_LANES; l++)
      {
        float v = x[i + l];

        sum[l] += (double) v;
        sumsq[l] += (double) v * (double) v;
        lo[l] = v < lo[l] ? v : lo[l];
        hi[l] = v > hi[l] ? v : hi[l];
        zeros += v == 0.0f;
      }
  for (int l = 0; i + l < end; l++)
    {
      float v = x[i + l];

      sum[l] += (double) v;
      sumsq[l] += (double) v * (double) v;
      lo[l] = v < lo[l] ? v : lo[l];
      hi[l] = v > hi[l] ? v : hi[l];
      zeros += v == 0.0f;
    }
  for (int l = 0; l < N_LANES; l++)
    {
      p->sum[l] = sum[l];
      p->sumsq[l] = sumsq[l];
      p->lo = lo[l] < p->lo ? lo[l] : p->lo;
      p->hi = hi[l] > p->hi ? hi[l] : p->hi;
    }
  p->n_zeros += zeros;
  p->n_finite += end - begin;
}

/* Values [BEGIN, END), some not finite. */
static void
pass1_mixed (const float *x, int64_t begin, int64_t end, Pass1 *p)
{
  for (int64_t i = begin; i < end; i++)
    {
      float v = x[i];
      int lane = (int) (i & (N_LANES - 1));

      if (isnan (v))
        {
          p->n_nan++;
          continue;
        }
      if (isinf (v))
        {
          p->n_inf++;
          continue;
        }
      p->n_finite++;
      p->n_zeros += v == 0.0f;
      if (v < p->lo)
        p->lo = v;
      if (v > p->hi)
        p->hi = v;
      p->sum[lane] += (double) v;
      p->sumsq[lane] += (double) v * (double) v;
    }
}

static inline int64_t
bin_of (float v, double lo, double scale, int64_t n_bins)
{
  int64_t b = (int64_t) (((double) v - lo) * scale);

  /* The maximum, and rounding just past it, go in the last bin. */
  return b >= n_bins ? n_bins - 1 : b < 0 ? 0 : b;
}

CtStatus
ct_cpu_stats (int64_t n, const float *x, int64_t n_bins, int64_t *bins, CtStats *stats)
{
  Pass1 p = { .lo = INFINITY, .hi = -INFINITY };
  double dev[N_LANES] = { 0 };
  double total = 0.0, total_sq = 0.0, total_dev = 0.0;
  double lo, hi, mean, scale;

  if (n < 0 || n_bins < 0 || stats == NULL || (n > 0 && x == NULL) ||
      (n_bins > 0 && bins == NULL))
    return CT_STATUS_INVALID;

  /* Most blobs hold no NaN or infinity: find out block by block, and take
   * the branch-free path where that holds. */
  for (int64_t b = 0; b < n; b += BLOCK)
    {
      int64_t end = b + BLOCK < n ? b + BLOCK : n;
      int bad = 0;

      for (int64_t i = b; i < end; i++)
        bad |= !(fabsf (x[i]) <= FLT_MAX);
      if (bad)
        pass1_mixed (x, b, end, &p);
      else
        pass1_finite (x, b, end, &p);
    }
  lo = p.lo;
  hi = p.hi;

  for (int l = 0; l < N_LANES; l++)
    {
      total += p.sum[l];
      total_sq += p.sumsq[l];
    }
  mean = p.n_finite > 0 ? total / (double) p.n_finite : 0.0;

  for (int64_t b = 0; b < n_bins; b++)
    bins[b] = 0;
  /* Bins per unit; 0 puts everything in bin 0 (all values equal). */
  scale = hi > lo ? (double) n_bins / (hi - lo) : 0.0;
  if (p.n_finite == n)
    {
      /* All finite: the deviations vectorise on their own. */
      for (int64_t i = 0; i < n; i += N_LANES)
        for (int l = 0; l < N_LANES && i + l < n; l++)
          {
            double d = (double) x[i + l] - mean;

            dev[l] += d * d;
          }
      for (int64_t i = 0; i < n && n_bins > 0; i++)
        bins[bin_of (x[i], lo, scale, n_bins)]++;
    }
  else
    for (int64_t i = 0; i < n; i++)
      {
        float v = x[i];
        double d;

        if (!isfinite (v))
          continue;
        d = (double) v - mean;
        dev[i & (N_LANES - 1)] += d * d;
        if (n_bins > 0)
          bins[bin_of (v, lo, scale, n_bins)]++;
      }
  for (int l = 0; l < N_LANES; l++)
    total_dev += dev[l];

  stats->count = n;
  stats->n_finite = p.n_finite;
  stats->n_zeros = p.n_zeros;
  stats->n_nan = p.n_nan;
  stats->n_inf = p.n_inf;
  /* Adding +0 turns a -0 extreme into +0 (signed zeros are kept by our
   * flags): a blob of zeros should not read "min -0". */
  stats->min = p.n_finite > 0 ? lo + 0.0 : 0.0;
  stats->max = p.n_finite > 0 ? hi + 0.0 : 0.0;
  stats->mean = mean;
  stats->std = p.n_finite > 0 ? sqrt (total_dev / (double) p.n_finite) : 0.0;
  stats->l2_norm = sqrt (total_sq);
  stats->zero_share = n > 0 ? (double) p.n_zeros / (double) n : 0.0;
  return CT_STATUS_OK;
}
