/* bench-util.h: what the benchmarks share: the median of a run of
 * timings (sorted in place). Header-only: each benchmark is one file. */
#pragma once

#include <stdlib.h>

static inline int
ct_bench_compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static inline double
ct_bench_median (double *v, int n)
{
  qsort (v, n, sizeof *v, ct_bench_compare_doubles);
  return v[n / 2];
}
