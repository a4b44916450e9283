/* cpu/stats-lanes.c: ct_cpu_stats_lanes (stats.h), the statistics of a
 * large array with ct_cpu_stats's results bit for bit.
 *
 * ct_cpu_stats sums in four double lanes (element i in lane i % 4, each
 * lane in index order, the lanes added 0 to 3) and compiles to scalar
 * code. The four lanes are exactly the two double halves of two SSE2
 * registers, so the same sums, in the same order, come out of vector code
 * (the square of a float is exact in double; SSE2 fuses no multiply-add).
 * Minimum, maximum and the counts do not depend on order, nor does the
 * histogram. Where the CPU has AVX2 (asked at run time), the four lanes
 * sit in one AVX register and the histogram finds eight bins at a time:
 * the same arithmetic, with no FMA in the target, so the same bits.
 *
 * Threads: lanes are independent sequences, so lane groups can run on
 * separate threads, and the histogram can be cut into slices counted side
 * by side with the deviations. Every lane runs through the whole array,
 * though, so groups multiply the memory read (PERFORMANCE.md says when a
 * split pays). tests/kernels/test-stats.c and tests/run/test-blob-stats.c
 * hold every cut to the kernel's results bit for bit, NaN and infinities
 * included.
 *
 * Copies: the first pass copies each block before it reads it, so that an
 * array copied for the window comes from memory once for both. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "cpu/isa.h"
#include "parallel.h"
#include "stats.h"
#include "switches.h"

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#define HAVE_BINS_AVX2 1
#endif
/* Where the CPU has AVX2 (checked at run time), the statistics take it;
 * ct_cpu_stats_set_avx2 (switches.h) turns it off for tests. */
static int avx2_off;

#define N_LANES 4
#define MAX_SLICES CT_STATS_MAX_SLICES
#define MAX_BINS CT_STATS_LANES_MAX_BINS
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define BLOCK 1024 /* a multiple of N_LANES */

typedef struct {
  const float *x;
  float *copy;         /* where the first pass copies X, or NULL */
  int64_t n;
  int n_groups;        /* lanes are cut into this many groups (1, 2 or 4) */
  int n_slices;        /* histogram slices */
  int n_bins;          /* histogram bins, at most MAX_BINS */
  /* first pass, per lane */
  double sum[N_LANES], sumsq[N_LANES];
  double lo[N_LANES], hi[N_LANES];
  int64_t n_finite[N_LANES], n_zeros[N_LANES], n_nan[N_LANES], n_inf[N_LANES];
  /* second pass */
  double mean, lo_all, scale;
  int all_finite;
  double dev[N_LANES];
  int64_t bins[MAX_SLICES][MAX_BINS];
} Split;

/* Lanes [L0, L0 + NL) of the first pass over [BEGIN, END) (BEGIN a
 * multiple of N_LANES), all values finite: no branch, so that the
 * compiler can keep the lanes in vector registers. NL is a constant where
 * this is inlined. */
static inline __attribute__ ((always_inline)) void
first_finite (const float *x, int64_t begin, int64_t end, int l0, int nl, double *sum,
              double *sumsq, float *lo, float *hi, int64_t *zeros)
{
  int64_t i = begin;

  for (; i + N_LANES <= end; i += N_LANES)
    for (int l = 0; l < nl; l++)
      {
        float v = x[i + l0 + l];

        sum[l] += (double) v;
        sumsq[l] += (double) v * (double) v;
        lo[l] = v < lo[l] ? v : lo[l];
        hi[l] = v > hi[l] ? v : hi[l];
        zeros[l] += v == 0.0f;
      }
  for (int l = 0; l < nl && i + l0 + l < end; l++)
    {
      float v = x[i + l0 + l];

      sum[l] += (double) v;
      sumsq[l] += (double) v * (double) v;
      lo[l] = v < lo[l] ? v : lo[l];
      hi[l] = v > hi[l] ? v : hi[l];
      zeros[l] += v == 0.0f;
    }
}

#ifdef __SSE2__
/* Blocks are read this many values ahead of where they are summed:
 * the sums wait on their chains of additions, and without a hint the
 * loads of each new 4 KiB page (which the hardware does not fetch ahead
 * across) wait on memory in turn; the blob a layer has just written is
 * often not in this core's cache. */
#define PREFETCH_AHEAD (2 * BLOCK)

/* Asks for the cache lines of block [AT, AT + BLOCK) (within N). */
static inline void
prefetch_block (const float *x, int64_t at, int64_t n)
{
  for (int64_t i = at; i < MIN (at + BLOCK, n); i += 64 / sizeof (float))
    _mm_prefetch ((const char *) (x + i), _MM_HINT_T0);
}

/* Whether [BEGIN, END) holds only finite values: |v| <= FLT_MAX is false
 * for NaN and the infinities. */
static int
all_finite_sse (const float *x, int64_t begin, int64_t end)
{
  const __m128 abs_mask = _mm_castsi128_ps (_mm_set1_epi32 (0x7fffffff));
  const __m128 max = _mm_set1_ps (FLT_MAX);
  __m128 ok = _mm_castsi128_ps (_mm_set1_epi32 (-1));
  int64_t i = begin;

  for (; i + N_LANES <= end; i += N_LANES)
    ok = _mm_and_ps (ok, _mm_cmple_ps (_mm_and_ps (_mm_loadu_ps (x + i), abs_mask), max));
  if (_mm_movemask_ps (ok) != 0xf)
    return 0;
  for (; i < end; i++)
    if (!(fabsf (x[i]) <= FLT_MAX))
      return 0;
  return 1;
}

/* The end of a vector first pass: the vector's zero counts Z added in,
 * then the values [I, END) (fewer than N_LANES) one per lane, as the
 * kernel adds them. */
static inline void
first_finite_tail (const float *x, int64_t i, int64_t end, const int32_t *z, double *sum,
                   double *sumsq, float *lo, float *hi, int64_t *zeros)
{
  for (int l = 0; l < N_LANES; l++)
    zeros[l] += z[l];
  for (int l = 0; i + l < end; l++)
    {
      float v = x[i + l];

      sum[l] += (double) v;
      sumsq[l] += (double) v * (double) v;
      lo[l] = v < lo[l] ? v : lo[l];
      hi[l] = v > hi[l] ? v : hi[l];
      zeros[l] += v == 0.0f;
    }
}

/* All four lanes of the first pass over [BEGIN, END) (BEGIN a multiple of
 * N_LANES), all values finite, in SSE2 registers: lane l is element l of
 * each vector, and each lane's sums are added in index order exactly as
 * the kernel adds them (the square of a float is exact in double, and no
 * multiply-add is fused: SSE2 has none). minps and maxps are the kernel's
 * "v < lo ? v : lo" and "v > hi ? v : hi". */
static void
first_finite_sse (const float *x, int64_t begin, int64_t end, double *sum, double *sumsq,
                  float *lo, float *hi, int64_t *zeros)
{
  __m128d s01 = _mm_loadu_pd (sum), s23 = _mm_loadu_pd (sum + 2);
  __m128d q01 = _mm_loadu_pd (sumsq), q23 = _mm_loadu_pd (sumsq + 2);
  __m128 vlo = _mm_loadu_ps (lo), vhi = _mm_loadu_ps (hi);
  __m128i vzeros = _mm_setzero_si128 ();
  const __m128 zero = _mm_setzero_ps ();
  int32_t z[N_LANES];
  int64_t i = begin;

  /* a block is at most BLOCK values: the 32-bit zero counts cannot wrap */
  _Static_assert (BLOCK < INT32_MAX, "zero counts fit in 32 bits");
  for (; i + N_LANES <= end; i += N_LANES)
    {
      __m128 v = _mm_loadu_ps (x + i);
      __m128d d01 = _mm_cvtps_pd (v), d23 = _mm_cvtps_pd (_mm_movehl_ps (v, v));

      vlo = _mm_min_ps (v, vlo);
      vhi = _mm_max_ps (v, vhi);
      vzeros = _mm_sub_epi32 (vzeros, _mm_castps_si128 (_mm_cmpeq_ps (v, zero)));
      s01 = _mm_add_pd (s01, d01);
      s23 = _mm_add_pd (s23, d23);
      q01 = _mm_add_pd (q01, _mm_mul_pd (d01, d01));
      q23 = _mm_add_pd (q23, _mm_mul_pd (d23, d23));
    }
  _mm_storeu_pd (sum, s01);
  _mm_storeu_pd (sum + 2, s23);
  _mm_storeu_pd (sumsq, q01);
  _mm_storeu_pd (sumsq + 2, q23);
  _mm_storeu_ps (lo, vlo);
  _mm_storeu_ps (hi, vhi);
  _mm_storeu_si128 ((__m128i *) (void *) z, vzeros);
  first_finite_tail (x, i, end, z, sum, sumsq, lo, hi, zeros);
}
#endif

#ifdef HAVE_BINS_AVX2
static inline int
use_avx2 (void)
{
  return !avx2_off && ct_cpu_have_avx2 ();
}

/* all_finite_sse eight values at a time. */
__attribute__ ((target ("avx2"))) static int
all_finite_avx2 (const float *x, int64_t begin, int64_t end)
{
  const __m256 abs_mask = _mm256_castsi256_ps (_mm256_set1_epi32 (0x7fffffff));
  const __m256 max = _mm256_set1_ps (FLT_MAX);
  __m256 ok = _mm256_castsi256_ps (_mm256_set1_epi32 (-1));
  int64_t i = begin;

  for (; i + 2 * N_LANES <= end; i += 2 * N_LANES)
    ok = _mm256_and_ps (ok, _mm256_cmp_ps (_mm256_and_ps (_mm256_loadu_ps (x + i), abs_mask),
                                           max, _CMP_LE_OQ));
  if (_mm256_movemask_ps (ok) != 0xff)
    return 0;
  for (; i < end; i++)
    if (!(fabsf (x[i]) <= FLT_MAX))
      return 0;
  return 1;
}

/* first_finite_sse with the four lanes' sums in the four doubles of one
 * AVX register instead of two SSE2 ones: fewer instructions, each lane
 * still adding its values in index order (no multiply-add: the target
 * has no FMA). */
__attribute__ ((target ("avx2"))) static void
first_finite_avx2 (const float *x, int64_t begin, int64_t end, double *sum, double *sumsq,
                   float *lo, float *hi, int64_t *zeros)
{
  __m256d s = _mm256_loadu_pd (sum), q = _mm256_loadu_pd (sumsq);
  __m128 vlo = _mm_loadu_ps (lo), vhi = _mm_loadu_ps (hi);
  __m128i vzeros = _mm_setzero_si128 ();
  const __m128 zero = _mm_setzero_ps ();
  int32_t z[N_LANES];
  int64_t i = begin;

  for (; i + N_LANES <= end; i += N_LANES)
    {
      __m128 v = _mm_loadu_ps (x + i);
      __m256d d = _mm256_cvtps_pd (v);

      vlo = _mm_min_ps (v, vlo);
      vhi = _mm_max_ps (v, vhi);
      vzeros = _mm_sub_epi32 (vzeros, _mm_castps_si128 (_mm_cmpeq_ps (v, zero)));
      s = _mm256_add_pd (s, d);
      q = _mm256_add_pd (q, _mm256_mul_pd (d, d));
    }
  _mm256_storeu_pd (sum, s);
  _mm256_storeu_pd (sumsq, q);
  _mm_storeu_ps (lo, vlo);
  _mm_storeu_ps (hi, vhi);
  _mm_storeu_si128 ((__m128i *) (void *) z, vzeros);
  first_finite_tail (x, i, end, z, sum, sumsq, lo, hi, zeros);
}
#endif

static inline __attribute__ ((always_inline)) void
first_lanes_n (Split *s, int l0, int nl)
{
  const float *x = s->x;
  double sum[N_LANES] = { 0 }, sumsq[N_LANES] = { 0 };
  float lo[N_LANES], hi[N_LANES];
  int64_t finite[N_LANES] = { 0 }, zeros[N_LANES] = { 0 }, nan[N_LANES] = { 0 },
         inf[N_LANES] = { 0 };

  for (int l = 0; l < nl; l++)
    {
      lo[l] = INFINITY;
      hi[l] = -INFINITY;
    }
  for (int64_t b = 0; b < s->n; b += BLOCK)
    {
      int64_t end = MIN (b + BLOCK, s->n);
      int bad = 0;

      /* A block copied on the way is in the cache for the passes over it
       * below: the array is read from memory once for its copy and its
       * sums. Summing while copying, in one loop, was slower: the loop
       * waits on its chains of additions, so its loads no longer run
       * ahead of it as a plain copy's or the check's do. */
#ifdef __SSE2__
      prefetch_block (x, b + PREFETCH_AHEAD, s->n);
#endif
      if (s->copy != NULL)
        memcpy (s->copy + b, x + b, (size_t) (end - b) * sizeof (float));
#ifdef __SSE2__
#ifdef HAVE_BINS_AVX2
      if (nl == N_LANES && use_avx2 ())
        bad = !all_finite_avx2 (x, b, end);
      else
#endif
        bad = !all_finite_sse (x, b, end);
#else
      for (int64_t i = b; i < end; i++)
        bad |= !(fabsf (x[i]) <= FLT_MAX);
#endif
      if (!bad)
        {
#ifdef __SSE2__
#ifdef HAVE_BINS_AVX2
          if (nl == N_LANES && use_avx2 ())
            first_finite_avx2 (x, b, end, sum, sumsq, lo, hi, zeros);
          else
#endif
          if (nl == N_LANES)
            first_finite_sse (x, b, end, sum, sumsq, lo, hi, zeros);
          else
#endif
            first_finite (x, b, end, l0, nl, sum, sumsq, lo, hi, zeros);
          for (int l = 0; l < nl; l++)
            finite[l] += (end - b - (l0 + l) + N_LANES - 1) / N_LANES;
          continue;
        }
      for (int64_t i = b + l0; i < end; i += N_LANES)
        for (int l = 0; l < nl && i + l < end; l++)
          {
            float v = x[i + l];

            if (isnan (v))
              nan[l]++;
            else if (isinf (v))
              inf[l]++;
            else
              {
                finite[l]++;
                zeros[l] += v == 0.0f;
                lo[l] = v < lo[l] ? v : lo[l];
                hi[l] = v > hi[l] ? v : hi[l];
                sum[l] += (double) v;
                sumsq[l] += (double) v * (double) v;
              }
          }
    }
  for (int l = 0; l < nl; l++)
    {
      s->sum[l0 + l] = sum[l];
      s->sumsq[l0 + l] = sumsq[l];
      s->lo[l0 + l] = lo[l];
      s->hi[l0 + l] = hi[l];
      s->n_finite[l0 + l] = finite[l];
      s->n_zeros[l0 + l] = zeros[l];
      s->n_nan[l0 + l] = nan[l];
      s->n_inf[l0 + l] = inf[l];
    }
}

static void
first_lanes (Split *s, int l0, int nl)
{
  if (nl == 4)
    first_lanes_n (s, l0, 4);
  else if (nl == 2)
    first_lanes_n (s, l0, 2);
  else
    first_lanes_n (s, l0, 1);
}

static void
first_job (int64_t begin, int64_t end, int chunk, void *data)
{
  Split *s = data;
  int nl = N_LANES / s->n_groups;

  for (int64_t g = begin; g < end; g++)
    first_lanes (s, (int) g * nl, nl);
}

/* The kernel's bin of finite V (kernels/cpu/stats.c: bin_of). */
static inline int64_t
bin_of (float v, double lo, double scale, int n_bins)
{
  int64_t b = (int64_t) (((double) v - lo) * scale);

  return b >= n_bins ? n_bins - 1 : b < 0 ? 0 : b;
}

#ifdef __SSE2__
/* The squared deviations of all four lanes over [BEGIN, END) (BEGIN a
 * multiple of N_LANES), every value finite, added to DEV's running sums. */
static void
dev_finite_sse_from (const float *x, int64_t begin, int64_t n, double mean, double *dev)
{
  __m128d e01 = _mm_loadu_pd (dev), e23 = _mm_loadu_pd (dev + 2);
  const __m128d m = _mm_set1_pd (mean);
  int64_t i = begin;

  for (; i + N_LANES <= n; i += N_LANES)
    {
      __m128 v = _mm_loadu_ps (x + i);
      __m128d d01 = _mm_sub_pd (_mm_cvtps_pd (v), m);
      __m128d d23 = _mm_sub_pd (_mm_cvtps_pd (_mm_movehl_ps (v, v)), m);

      e01 = _mm_add_pd (e01, _mm_mul_pd (d01, d01));
      e23 = _mm_add_pd (e23, _mm_mul_pd (d23, d23));
    }
  _mm_storeu_pd (dev, e01);
  _mm_storeu_pd (dev + 2, e23);
  for (int l = 0; i + l < n; l++)
    {
      double d = (double) x[i + l] - mean;

      dev[l] += d * d;
    }
}

#ifdef HAVE_BINS_AVX2
static void bins_finite_avx2 (const float *x, int64_t from, int64_t to, double lo,
                              double scale, int64_t *bins, int n_bins);
#endif
static void bins_finite_sse (const float *x, int64_t from, int64_t to, double lo, double scale,
                             int64_t *bins, int n_bins);

/* The deviations and the bins in one pass over the array, block by block
 * while the block is in the cache. */
static void
dev_bins_finite_sse (Split *s)
{
  for (int64_t b = 0; b < s->n; b += BLOCK * 16)
    {
      int64_t end = MIN (b + BLOCK * 16, s->n);
      double dev[N_LANES];

      /* the block's deviations continue each lane's running sum */
      memcpy (dev, s->dev, sizeof dev);
      for (int64_t c = b; c < end; c += BLOCK)
        {
          prefetch_block (s->x, c + PREFETCH_AHEAD, s->n);
          dev_finite_sse_from (s->x, c, MIN (c + BLOCK, end), s->mean, dev);
        }
      memcpy (s->dev, dev, sizeof dev);
      bins_finite_sse (s->x, b, end, s->lo_all, s->scale, s->bins[0], s->n_bins);
    }
}

/* The bins of [FROM, TO), every value finite: four values' bins at once
 * (the kernel's arithmetic: double difference, times the scale,
 * truncated), counted into four histograms so that equal bins in a row do
 * not wait on each other. The kernel clamps the bin to [0, BINS - 1];
 * here no clamp is needed on the way: a finite value is at least LO, so
 * its difference (rounded or not) is at least 0, and at most HI, so the
 * product is at most BINS times (1 + a few ulps), which truncates to BINS
 * at most. The histograms have a bin BINS, added to the last at the end:
 * the kernel's counts, with six instructions fewer for every four values. */
static void
bins_finite_sse (const float *x, int64_t from, int64_t to, double lo, double scale,
                 int64_t *bins, int n_bins)
{
#ifdef HAVE_BINS_AVX2
  if (use_avx2 ())
    {
      bins_finite_avx2 (x, from, to, lo, scale, bins, n_bins);
      return;
    }
#endif
  int64_t part[N_LANES][MAX_BINS + 1] = { { 0 } };
  const __m128d vlo = _mm_set1_pd (lo), vscale = _mm_set1_pd (scale);
  int64_t i = from;

  for (; i + N_LANES <= to; i += N_LANES)
    {
      __m128 v = _mm_loadu_ps (x + i);
      __m128d d01 = _mm_mul_pd (_mm_sub_pd (_mm_cvtps_pd (v), vlo), vscale);
      __m128d d23 = _mm_mul_pd (_mm_sub_pd (_mm_cvtps_pd (_mm_movehl_ps (v, v)), vlo), vscale);
      __m128i b = _mm_unpacklo_epi64 (_mm_cvttpd_epi32 (d01), _mm_cvttpd_epi32 (d23));
      int32_t k[N_LANES];

      _mm_storeu_si128 ((__m128i *) (void *) k, b);
      part[0][k[0]]++;
      part[1][k[1]]++;
      part[2][k[2]]++;
      part[3][k[3]]++;
    }
  for (; i < to; i++)
    bins[bin_of (x[i], lo, scale, n_bins)]++;
  for (int l = 0; l < N_LANES; l++)
    {
      for (int b = 0; b < n_bins; b++)
        bins[b] += part[l][b];
      bins[n_bins - 1] += part[l][n_bins];
    }
}
#endif

#ifdef HAVE_BINS_AVX2

/* bins_finite_sse eight values at a time in AVX2 registers: the same
 * arithmetic (the difference, the product and the truncation of each
 * value in double, exactly as SSE2 or the kernel rounds them: no multiply
 * is fused, the target has no FMA), with half the instructions to find
 * four bins. The counting stays one increment per value. */
__attribute__ ((target ("avx2"))) static void
bins_finite_avx2 (const float *x, int64_t from, int64_t to, double lo, double scale,
                  int64_t *bins, int n_bins)
{
  int64_t part[2 * N_LANES][MAX_BINS + 1] = { { 0 } };
  const __m256d vlo = _mm256_set1_pd (lo), vscale = _mm256_set1_pd (scale);
  int64_t i = from;

  for (; i + 2 * N_LANES <= to; i += 2 * N_LANES)
    {
      __m256d a = _mm256_cvtps_pd (_mm_loadu_ps (x + i));
      __m256d b = _mm256_cvtps_pd (_mm_loadu_ps (x + i + N_LANES));
      __m128i ka = _mm256_cvttpd_epi32 (_mm256_mul_pd (_mm256_sub_pd (a, vlo), vscale));
      __m128i kb = _mm256_cvttpd_epi32 (_mm256_mul_pd (_mm256_sub_pd (b, vlo), vscale));

      part[0][_mm_cvtsi128_si32 (ka)]++;
      part[1][_mm_extract_epi32 (ka, 1)]++;
      part[2][_mm_extract_epi32 (ka, 2)]++;
      part[3][_mm_extract_epi32 (ka, 3)]++;
      part[4][_mm_cvtsi128_si32 (kb)]++;
      part[5][_mm_extract_epi32 (kb, 1)]++;
      part[6][_mm_extract_epi32 (kb, 2)]++;
      part[7][_mm_extract_epi32 (kb, 3)]++;
    }
  for (; i < to; i++)
    bins[bin_of (x[i], lo, scale, n_bins)]++;
  for (int l = 0; l < 2 * N_LANES; l++)
    {
      for (int b = 0; b < n_bins; b++)
        bins[b] += part[l][b];
      bins[n_bins - 1] += part[l][n_bins];
    }
}
#endif

/* Second pass: items [0, n_groups) are lane groups of squared deviations,
 * the rest histogram slices. */
static void
second_job (int64_t begin, int64_t end, int chunk, void *data)
{
  Split *s = data;
  int nl = N_LANES / s->n_groups;

  for (int64_t item = begin; item < end; item++)
    {
#ifdef __SSE2__
      if (item < s->n_groups && nl == N_LANES && s->all_finite)
        dev_finite_sse_from (s->x, 0, s->n, s->mean, s->dev);
      else
#endif
      if (item < s->n_groups)
        for (int l = (int) item * nl; l < (int) item * nl + nl; l++)
          {
            double dev = 0.0;

            for (int64_t i = l; i < s->n; i += N_LANES)
              {
                float v = s->x[i];
                double d;

                if (!(fabsf (v) <= FLT_MAX))
                  continue;
                d = (double) v - s->mean;
                dev += d * d;
              }
            s->dev[l] = dev;
          }
      else
        {
          int slice = (int) item - s->n_groups;
          int64_t from = s->n * slice / s->n_slices, to = s->n * (slice + 1) / s->n_slices;
          int64_t *bins = s->bins[slice];

#ifdef __SSE2__
          if (s->all_finite)
            {
              bins_finite_sse (s->x, from, to, s->lo_all, s->scale, bins, s->n_bins);
              continue;
            }
#endif
          for (int64_t i = from; i < to; i++)
            {
              float v = s->x[i];

              if (fabsf (v) <= FLT_MAX)
                bins[bin_of (v, s->lo_all, s->scale, s->n_bins)]++;
            }
        }
    }
}

CtStatus
ct_cpu_stats_lanes (int64_t count, const float *values, float *copy, int64_t n_bins,
                    int64_t *bins, int n_groups, int n_slices, CtStats *out)
{
  /* on the caller's stack: kernels do not allocate */
  Split split = { 0 }, *s = &split;
  double total = 0.0, total_sq = 0.0, total_dev = 0.0;
  double lo = INFINITY, hi = -INFINITY;

  if (count < 0 || n_bins < 1 || n_bins > MAX_BINS || out == NULL ||
      (n_groups != 1 && n_groups != 2 && n_groups != 4))
    return CT_STATUS_INVALID;
  *out = (CtStats) { 0 };
  for (int64_t k = 0; k < n_bins; k++)
    bins[k] = 0;
  s->x = values;
  s->n = count;
  /* lane groups each read the whole array: one copies it, the others not */
  s->copy = n_groups == 1 ? copy : NULL;
  if (copy != NULL && n_groups != 1)
    memcpy (copy, values, (size_t) count * sizeof (float));
  s->n_groups = n_groups;
  s->n_slices = n_slices < 1 ? 1 : n_slices > MAX_SLICES ? MAX_SLICES : n_slices;
  s->n_bins = (int) n_bins;
  /* one job needs no pool: a busy machine may park the pool's threads */
  if (s->n_groups == 1)
    first_job (0, 1, 0, s);
  else
    ct_cpu_parallel_for_chunks (s->n_groups, s->n_groups, first_job, s);

  for (int l = 0; l < N_LANES; l++)
    {
      /* the kernel's order: lane 0 first, each added to a running total */
      total += s->sum[l];
      total_sq += s->sumsq[l];
      lo = s->lo[l] < lo ? s->lo[l] : lo;
      hi = s->hi[l] > hi ? s->hi[l] : hi;
      out->n_finite += s->n_finite[l];
      out->n_zeros += s->n_zeros[l];
      out->n_nan += s->n_nan[l];
      out->n_inf += s->n_inf[l];
    }
  s->mean = out->n_finite > 0 ? total / (double) out->n_finite : 0.0;
  s->lo_all = lo;
  s->scale = hi > lo ? (double) n_bins / (hi - lo) : 0.0;
  s->all_finite = out->n_finite == count;
#ifdef __SSE2__
  if (s->n_groups + s->n_slices == 2 && s->all_finite)
    dev_bins_finite_sse (s);
  else
#endif
  if (s->n_groups + s->n_slices == 2)
    second_job (0, 2, 0, s);
  else
    ct_cpu_parallel_for_chunks (s->n_groups + s->n_slices, s->n_groups + s->n_slices,
                                second_job, s);

  for (int l = 0; l < N_LANES; l++)
    total_dev += s->dev[l];
  for (int slice = 0; slice < s->n_slices; slice++)
    for (int b = 0; b < s->n_bins; b++)
      bins[b] += s->bins[slice][b];

  out->count = count;
  out->min = out->n_finite > 0 ? lo + 0.0 : 0.0;
  out->max = out->n_finite > 0 ? hi + 0.0 : 0.0;
  out->mean = s->mean;
  out->std = out->n_finite > 0 ? sqrt (total_dev / (double) out->n_finite) : 0.0;
  out->l2_norm = sqrt (total_sq);
  out->zero_share = count > 0 ? (double) out->n_zeros / (double) count : 0.0;
  return CT_STATUS_OK;
}

int
ct_cpu_stats_set_avx2 (int use)
{
  int before = !avx2_off;

  avx2_off = !use;
  return before;
}
