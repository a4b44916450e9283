/* stats.h: summary statistics of a float array, for the workbench's blob
 * inspector and `cortado-cli forward --stats` (both call this one kernel,
 * so that a user can check one against the other).
 *
 * One call gives the element count, the counts of exact zeros (+0 and -0),
 * NaNs and infinities, and over the finite values only: min, max, mean,
 * standard deviation and L2 norm, plus an optional histogram into bins the
 * caller provides. Sums are accumulated in double, in four independent
 * lanes; the standard deviation is the population one (divide by the number
 * of finite values, as NumPy's std) computed in a second pass around the
 * mean, which does not lose digits the way E[x²] - E[x]² does. CPU only:
 * the workbench computes statistics of host copies. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t count;     /* elements looked at */
  int64_t n_finite;  /* neither NaN nor infinite */
  int64_t n_zeros;   /* exactly 0 (either sign) */
  int64_t n_nan;
  int64_t n_inf;     /* +inf and -inf */
  /* Over the finite values; all 0 when there are none. */
  double min;
  double max;
  double mean;
  double std;        /* population standard deviation */
  double l2_norm;    /* sqrt of the sum of squares */
  double zero_share; /* n_zeros / count; 0 for an empty array */
} CtStats;

/* Statistics of the N floats at X into *STATS. With N_BINS > 0, BINS (N_BINS
 * counts, overwritten) gets the histogram of the finite values over
 * [min, max] cut into N_BINS equal bins, the maximum counting in the last
 * bin; when every finite value is the same (min == max) they all count in
 * bin 0. N < 0 or N_BINS < 0 gives CT_STATUS_INVALID without touching
 * anything. */
CtStatus ct_cpu_stats (int64_t n, const float *x, int64_t n_bins, int64_t *bins,
                       CtStats *stats);

#define CT_STATS_LANES_MAX_BINS 64
#define CT_STATS_MAX_SLICES 16

/* ct_cpu_stats's results bit for bit, NaN and infinities included, in
 * vector registers (cpu/stats-lanes.c): for large arrays. The four sums'
 * lanes are cut into N_GROUPS groups (1, 2 or 4) and the histogram into
 * N_SLICES slices (clamped to 1 .. CT_STATS_MAX_SLICES), which run side by
 * side on the pool; COPY, when not NULL, receives the N floats of X on the
 * way (room for N floats, apart from X). N_BINS is 1 to
 * CT_STATS_LANES_MAX_BINS; anything else out of range gives
 * CT_STATUS_INVALID. */
CtStatus ct_cpu_stats_lanes (int64_t n, const float *x, float *copy, int64_t n_bins,
                             int64_t *bins, int n_groups, int n_slices, CtStats *stats);

#ifdef __cplusplus
}
#endif
