/* cpu/vector.c: the vector routines of blas.h (axpy, axpby, scal, dot,
 * asum, gemv) in Cortado's own loops, never a BLAS library's.
 *
 * A BLAS build picks its kernels by CPU model, and its kernels round
 * differently: on a CPU that Debian's OpenBLAS does not know it runs
 * generic SSE3 code, whose axpy rounds the product and the sum apart where
 * its AVX-512 kernel fuses them, and whose dot adds in another order. A
 * training run's bits then depended on the BLAS build. Here each result is
 * what the C below says, on every CPU:
 *
 * - axpy and axpby round once per element, y = fma (alpha, x, beta * y),
 *   as the CUDA twins do. The loops are compiled for FMA and run so where
 *   the CPU has it; elsewhere the same loop calls fmaf, which gives the
 *   same bits, more slowly.
 * - dot, asum and gemv add in double. A product of two floats is exact in
 *   double, and the sums run in a fixed order: element i goes to partial
 *   sum i mod LANES, and the partial sums are combined in one fixed tree.
 *   Vector width, FMA (which only adds an exact product) and the thread
 *   count change nothing, and the result is closer to the exact sum than
 *   a float sum in any order.
 *
 * scal is one product per element, the same everywhere. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "blas.h"
#include "isa.h"
#include "parallel.h"
#include "vector-private.h"

/* Partial sums of the reductions: 8 doubles, one AVX-512 vector. */
#define LANES 8

/* Columns of a transposed gemv summed at a time (a stack block). */
#define GEMV_BLOCK 256

static inline int
fits_count (int64_t n)
{
  return n >= 0 && (uint64_t) n <= SIZE_MAX / sizeof (float);
}

/* ---- axpy, axpby, scal: one rounding per element ---- */

/* Axpby and axpby_loop are in cpu/vector-private.h, shared with the
 * AVX2 loop of cpu/vector-avx2.c. */


static void
axpby_range (int64_t begin, int64_t end, int chunk, void *data)
{
  axpby_loop (begin, end, data);
}

static CtStatus
run_axpby (int64_t n, float alpha, const float *x, float beta, float *y)
{
  Axpby e = { alpha, beta, x, y };
  CtParallelFunc range = axpby_range;

  if (!fits_count (n))
    return CT_STATUS_INVALID;
#ifdef HAVE_AXPBY_FMA
  if (ct_cpu_have_fma () && ct_cpu_have_avx2 ())
    range = ct_axpby_range_fma;
#endif
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, range, &e);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_axpy (int64_t n, float alpha, const float *x, float *y)
{
  return run_axpby (n, alpha, x, 1.0f, y);
}

CtStatus
ct_cpu_axpby (int64_t n, float alpha, const float *x, float beta, float *y)
{
  return run_axpby (n, alpha, x, beta, y);
}

static void
scal_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Axpby *e = data;
  const float alpha = e->alpha;
  float *y = e->y;

  for (int64_t i = begin; i < end; i++)
    y[i] = alpha * y[i];
}

CtStatus
ct_cpu_scal (int64_t n, float alpha, float *x)
{
  Axpby e = { alpha, 0.0f, NULL, x };

  if (!fits_count (n))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, scal_range, &e);
  return CT_STATUS_OK;
}

/* ---- reductions: double partial sums in a fixed order ---- */

static inline double
combine (const double *acc)
{
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

static inline __attribute__ ((always_inline)) double
dot_loop (int64_t n, const float *x, const float *y)
{
  double acc[LANES] = { 0 };
  int64_t i = 0;

  for (; i + LANES <= n; i += LANES)
    for (int l = 0; l < LANES; l++)
      acc[l] += (double) x[i + l] * (double) y[i + l];
  for (int l = 0; i < n; i++, l++)
    acc[l] += (double) x[i] * (double) y[i];
  return combine (acc);
}

static inline __attribute__ ((always_inline)) double
asum_loop (int64_t n, const float *x)
{
  double acc[LANES] = { 0 };
  int64_t i = 0;

  for (; i + LANES <= n; i += LANES)
    for (int l = 0; l < LANES; l++)
      acc[l] += fabs ((double) x[i + l]);
  for (int l = 0; i < n; i++, l++)
    acc[l] += fabs ((double) x[i]);
  return combine (acc);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__ ((target ("avx2"))) static double
dot_avx2 (int64_t n, const float *x, const float *y)
{
  return dot_loop (n, x, y);
}

__attribute__ ((target ("avx2"))) static double
asum_avx2 (int64_t n, const float *x)
{
  return asum_loop (n, x);
}
#define HAVE_SUMS_AVX2 1
#endif

/* The exact-product sum of X . Y in the fixed order, in double. */
static double
dot_double (int64_t n, const float *x, const float *y)
{
#ifdef HAVE_SUMS_AVX2
  if (ct_cpu_have_avx2 ())
    return dot_avx2 (n, x, y);
#endif
  return dot_loop (n, x, y);
}

CtStatus
ct_cpu_dot (int64_t n, const float *x, const float *y, float *out)
{
  if (!fits_count (n))
    return CT_STATUS_INVALID;
  *out = (float) dot_double (n, x, y);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_asum (int64_t n, const float *x, float *out)
{
  if (!fits_count (n))
    return CT_STATUS_INVALID;
#ifdef HAVE_SUMS_AVX2
  if (ct_cpu_have_avx2 ())
    {
      *out = (float) asum_avx2 (n, x);
      return CT_STATUS_OK;
    }
#endif
  *out = (float) asum_loop (n, x);
  return CT_STATUS_OK;
}

/* Whether N elements INC apart can be indexed without overflow. */
static inline int
fits_stride (int64_t n, int64_t inc)
{
  return inc > INT64_MIN && (n == 0 || (inc < 0 ? -inc : inc) <= INT64_MAX / n);
}

/* BLAS increments: a negative one walks the vector from its far end. */
static inline int64_t
strided_index (int64_t i, int64_t n, int64_t inc)
{
  return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}

CtStatus
ct_cpu_strided_dot (int64_t n, const float *x, int64_t incx,
                    const float *y, int64_t incy, float *out)
{
  double acc[LANES] = { 0 };

  if (!fits_count (n) || !fits_stride (n, incx) || !fits_stride (n, incy))
    return CT_STATUS_INVALID;
  if (incx == 1 && incy == 1)
    return ct_cpu_dot (n, x, y, out);
  /* The same lanes as the contiguous sum, so both give the same bits. */
  for (int64_t i = 0; i < n; i++)
    acc[i % LANES] += (double) x[strided_index (i, n, incx)] * (double) y[strided_index (i, n, incy)];
  *out = (float) combine (acc);
  return CT_STATUS_OK;
}

/* y = alpha * s + beta * y for one output, S in double; beta 0 overwrites
 * whatever Y held, NaN included, as BLAS defines it. */
static inline float
gemv_out (double s, float alpha, float beta, float y)
{
  return beta == 0.0f ? (float) ((double) alpha * s)
                      : (float) ((double) alpha * s + (double) beta * (double) y);
}

/* y (N) = alpha * A^T x + beta * y, A stored M x N: column sums of the rows
 * weighted by x, a block of columns at a time, rows in order. */
static void
gemv_transposed (int64_t m, int64_t n, float alpha, const float *a, const float *x,
                 float beta, float *y)
{
  for (int64_t j0 = 0; j0 < n; j0 += GEMV_BLOCK)
    {
      const int64_t width = n - j0 < GEMV_BLOCK ? n - j0 : GEMV_BLOCK;
      double acc[GEMV_BLOCK];

      memset (acc, 0, sizeof acc);
      for (int64_t i = 0; i < m; i++)
        {
          const float *row = a + i * n + j0;
          const double xi = x[i];

          for (int64_t j = 0; j < width; j++)
            acc[j] += (double) row[j] * xi;
        }
      for (int64_t j = 0; j < width; j++)
        y[j0 + j] = gemv_out (acc[j], alpha, beta, y[j0 + j]);
    }
}

CtStatus
ct_cpu_gemv (CtTranspose trans_a, int64_t m, int64_t n,
             float alpha, const float *a, const float *x,
             float beta, float *y)
{
  if ((trans_a != CT_NO_TRANS && trans_a != CT_TRANS) || !fits_count (m) || !fits_count (n)
      || (m > 0 && n > INT64_MAX / m))
    return CT_STATUS_INVALID;

  if (n == 0 && trans_a == CT_NO_TRANS)
    {
      for (int64_t i = 0; i < m; i++)
        y[i] = gemv_out (0.0, alpha, beta, y[i]);
      return CT_STATUS_OK;
    }
  if (trans_a == CT_TRANS)
    gemv_transposed (m, n, alpha, a, x, beta, y);
  else
    for (int64_t i = 0; i < m; i++)
      y[i] = gemv_out (dot_double (n, a + i * n, x), alpha, beta, y[i]);
  return CT_STATUS_OK;
}
