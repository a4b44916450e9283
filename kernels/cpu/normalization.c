/* cpu/normalization.c: the CPU side of normalization.h.
 *
 * Channel sums walk each channel's OUTER runs of INNER contiguous floats.
 * A run is summed in eight float lanes (which the compiler can keep in one
 * vector register) and the lanes are added up in double, so a sum costs
 * about what Caffe's gemv costs and stays as accurate over long channels.
 *
 * BatchNorm's passes are bound by memory, so they run on the pool a block
 * of channels at a time: a block small enough for a core's cache is read
 * from memory once, for its sums, and the passes that follow (the
 * deviations from the mean, then the output) find it in the cache. Each
 * channel's sums run in the same order whatever the block or the thread,
 * so the results are the same bits as one channel after the other. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "fused-private.h"
#include "normalization.h"
#include "parallel.h"
#include "streaming.h"

#define LANES 8

/* Floats of one block of channels: 256 KiB, which stays in the second-level
 * cache of the CPUs Cortado runs on while the block is read two or three
 * times. A channel larger than that is a block on its own. */
#define BLOCK_FLOATS ((int64_t) 1 << 16)

/* Channels of one block at most (the block's sums live on the stack). */
#define BLOCK_CHANNELS CT_NORM_BLOCK_CHANNELS

static inline int
valid_count (int64_t n)
{
  return n >= 0 && (uint64_t) n <= SIZE_MAX / sizeof (float);
}

static inline int
valid_grid (int64_t outer, int64_t channels, int64_t inner)
{
  if (outer < 0 || channels < 0 || inner < 0)
    return 0;
  if (outer == 0 || channels == 0 || inner == 0)
    return 1;
  if (channels > INT64_MAX / inner || outer > INT64_MAX / (channels * inner))
    return 0;
  return valid_count (outer * channels * inner);
}

static inline double
combine (const float *lanes)
{
  double sum = 0.0;

  for (int k = 0; k < LANES; k++)
    sum += lanes[k];
  return sum;
}

/* Sum of X[0..N). */
static double
run_sum (const float *x, int64_t n)
{
  float lanes[LANES] = { 0 };
  int64_t i = 0;

  for (; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++)
      lanes[k] += x[i + k];
  for (; i < n; i++)
    lanes[0] += x[i];
  return combine (lanes);
}

/* Sum of (X[i] - M)², in the lanes run_center sums them in. */
static double
run_sum_sq_dev (const float *x, float m, int64_t n)
{
  float lanes[LANES] = { 0 };
  int64_t i = 0;

  for (; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++)
      {
        float v = x[i + k] - m;
        lanes[k] += v * v;
      }
  for (; i < n; i++)
    {
      float v = x[i] - m;
      lanes[0] += v * v;
    }
  return combine (lanes);
}

/* The sums of DY and of DY * Y over a run, added to *SUM and *DOT: the
 * values run_sum and a dot product in the same lanes give. One loop reads
 * both arrays side by side, so that their loads from memory overlap; in
 * SSE2 registers, since the compiler vectorises the two sets of lanes in
 * one loop poorly. */
static void
run_sum_and_dot (const float *dy, const float *y, int64_t n, double *sum, double *dot)
{
  float s[LANES] = { 0 }, d[LANES] = { 0 };
  int64_t i = 0;

#ifdef __SSE2__
  __m128 s0 = _mm_setzero_ps (), s1 = _mm_setzero_ps ();
  __m128 d0 = _mm_setzero_ps (), d1 = _mm_setzero_ps ();

  for (; i + LANES <= n; i += LANES)
    {
      __m128 g0 = _mm_loadu_ps (dy + i), g1 = _mm_loadu_ps (dy + i + 4);

      s0 = _mm_add_ps (s0, g0);
      s1 = _mm_add_ps (s1, g1);
      d0 = _mm_add_ps (d0, _mm_mul_ps (g0, _mm_loadu_ps (y + i)));
      d1 = _mm_add_ps (d1, _mm_mul_ps (g1, _mm_loadu_ps (y + i + 4)));
    }
  _mm_storeu_ps (s, s0);
  _mm_storeu_ps (s + 4, s1);
  _mm_storeu_ps (d, d0);
  _mm_storeu_ps (d + 4, d1);
#else
  for (; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++)
      {
        s[k] += dy[i + k];
        d[k] += dy[i + k] * y[i + k];
      }
#endif
  for (; i < n; i++)
    {
      s[0] += dy[i];
      d[0] += dy[i] * y[i];
    }
  *sum += combine (s);
  *dot += combine (d);
}

/* Y = X - M over a run, returning the sum of squares of Y. */
static double
run_center (const float *x, float m, float *y, int64_t n)
{
  float lanes[LANES] = { 0 };
  int64_t i = 0;

  for (; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++)
      {
        float v = x[i + k] - m;
        y[i + k] = v;
        lanes[k] += v * v;
      }
  for (; i < n; i++)
    {
      float v = x[i] - m;
      y[i] = v;
      lanes[0] += v * v;
    }
  return combine (lanes);
}

/* Y = (X - M) / D over a run (a true division, as Caffe's), and KEEP = Y
 * when KEEP is not NULL: streamed, since only the backward pass reads it. */
static void
run_normalize (const float *x, float m, float d, float *y, float *keep, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    y[i] = (x[i] - m) / d;
  if (keep == NULL)
    return;
  if (ct_stream_fits (keep, n))
    ct_stream_out (keep, y, n);
  else
    for (int64_t i = 0; i < n; i++)
      keep[i] = y[i];
}

/* Channels of one block, for channels of LENGTH floats. */
static int64_t
block_channels (int64_t length)
{
  int64_t n = length > 0 ? BLOCK_FLOATS / length : BLOCK_CHANNELS;

  return n < 1 ? 1 : n > BLOCK_CHANNELS ? BLOCK_CHANNELS : n;
}

/* Channels of one chunk of the pool at least, for channels of LENGTH
 * floats: as many elements as an element-wise loop's chunk. */
static int64_t
channel_grain (int64_t length)
{
  return length >= CT_PARALLEL_ELEMENT_GRAIN ? 1
                                             : CT_PARALLEL_ELEMENT_GRAIN / (length > 0 ? length : 1);
}

CtStatus
ct_cpu_channel_mean (int64_t outer, int64_t channels, int64_t inner,
                     const float *x, float *mean)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t c = 0; c < channels; c++)
    {
      double sum = 0.0;

      for (int64_t o = 0; o < outer; o++)
        sum += run_sum (x + (o * channels + c) * inner, inner);
      mean[c] = outer * inner > 0 ? (float) (sum / (double) (outer * inner)) : 0.0f;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_channel_center (int64_t outer, int64_t channels, int64_t inner,
                       const float *x, const float *mean, float *y, float *variance)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t c = 0; c < channels; c++)
    {
      double sumsq = 0.0;
      float m = mean[c];

      for (int64_t o = 0; o < outer; o++)
        {
          int64_t base = (o * channels + c) * inner;
          sumsq += run_center (x + base, m, y + base, inner);
        }
      if (variance != NULL)
        variance[c] = outer * inner > 0 ? (float) (sumsq / (double) (outer * inner)) : 0.0f;
    }
  return CT_STATUS_OK;
}

typedef struct {
  int64_t channels, inner;
  const float *x, *divisor;
  float *y;
} Divide;

/* Rows [BEGIN, END) of the OUTER * CHANNELS rows of ct_cpu_channel_divide. */
static void
divide_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Divide *a = data;
  const int64_t inner = a->inner;

  for (int64_t r = begin; r < end; r++)
    {
      const float *x = a->x + r * inner;
      float *y = a->y + r * inner;
      float d = a->divisor[r % a->channels];

      /* A true division, as Caffe's, not a multiplication by 1 / d. */
      for (int64_t i = 0; i < inner; i++)
        y[i] = x[i] / d;
    }
}

CtStatus
ct_cpu_channel_divide (int64_t outer, int64_t channels, int64_t inner,
                       const float *x, const float *divisor, float *y)
{
  Divide a = { channels, inner, x, divisor, y };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (inner > 0)
    ct_cpu_parallel_for (outer * channels, channel_grain (inner), divide_range, &a);
  return CT_STATUS_OK;
}

/* BatchNorm's forward pass, for the pool's chunks. */
typedef struct {
  int64_t outer, channels, inner;
  int batch_stats;
  float eps;
  const float *x;
  float *mean, *variance, *std, *y, *keep;
} Forward;

/* BatchNorm's forward pass over channels [C0, C0 + NC) (NC <= BLOCK_CHANNELS). */
static void
batch_norm_forward_block (const Forward *a, int64_t c0, int64_t nc)
{
  const int64_t outer = a->outer, channels = a->channels, inner = a->inner;
  const double m = (double) outer * (double) inner;
  double sum[BLOCK_CHANNELS];

  if (a->batch_stats)
    {
      /* In memory order: the block's rows one after the other. */
      for (int64_t c = 0; c < nc; c++)
        sum[c] = 0.0;
      for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < nc; c++)
          sum[c] += run_sum (a->x + (o * channels + c0 + c) * inner, inner);
      for (int64_t c = 0; c < nc; c++)
        {
          a->mean[c0 + c] = m > 0 ? (float) (sum[c] / m) : 0.0f;
          sum[c] = 0.0;
        }
      for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < nc; c++)
          sum[c] += run_sum_sq_dev (a->x + (o * channels + c0 + c) * inner, a->mean[c0 + c],
                                    inner);
      for (int64_t c = 0; c < nc; c++)
        a->variance[c0 + c] = m > 0 ? (float) (sum[c] / m) : 0.0f;
    }
  for (int64_t c = 0; c < nc; c++)
    a->std[c0 + c] = sqrtf (a->variance[c0 + c] + a->eps);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < nc; c++)
      {
        int64_t base = (o * channels + c0 + c) * inner;

        run_normalize (a->x + base, a->mean[c0 + c], a->std[c0 + c], a->y + base,
                       a->keep != NULL ? a->keep + base : NULL, inner);
      }
}

static void
batch_norm_forward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Forward *a = data;
  int64_t step = block_channels (a->outer * a->inner);

  for (int64_t c = begin; c < end; c += step)
    batch_norm_forward_block (a, c, end - c < step ? end - c : step);
  if (a->keep != NULL)
    ct_stream_fence ();
}

void
ct_cpu_batch_norm_forward_channels (int64_t outer, int64_t channels, int64_t inner,
                                    int batch_stats, float eps, const float *x, float *mean,
                                    float *variance, float *std, float *y, float *keep,
                                    int64_t c0, int64_t nc)
{
  Forward a = { outer, channels, inner, batch_stats, eps, x, mean, variance, std, y, keep };

  batch_norm_forward_block (&a, c0, nc);
}

CtStatus
ct_cpu_batch_norm_forward (int64_t outer, int64_t channels, int64_t inner, int batch_stats,
                           float eps, const float *x, float *mean, float *variance,
                           float *std, float *y, float *keep)
{
  Forward a = { outer, channels, inner, batch_stats, eps, x, mean, variance, std, y, keep };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (channels, channel_grain (outer * inner), batch_norm_forward_range, &a);
  return CT_STATUS_OK;
}

/* The gradient through the batch statistics, for the pool's chunks. */
typedef struct {
  int64_t outer, channels, inner;
  const float *y, *dy, *s;
  float *dx;
} Backward;

/* Channels [C0, C0 + NC) of ct_cpu_channel_normalize_backward. */
static void
normalize_backward_block (const Backward *a, int64_t c0, int64_t nc)
{
  const int64_t outer = a->outer, channels = a->channels, inner = a->inner;
  const float scale = (float) (-1.0 / ((double) outer * (double) inner));
  double sum_dy[BLOCK_CHANNELS], sum_dy_y[BLOCK_CHANNELS];

  for (int64_t c = 0; c < nc; c++)
    sum_dy[c] = sum_dy_y[c] = 0.0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < nc; c++)
      {
        int64_t base = (o * channels + c0 + c) * inner;

        run_sum_and_dot (a->dy + base, a->y + base, inner, &sum_dy[c], &sum_dy_y[c]);
      }
  /* Every DY of the block is read above before any DX is written, so DX
   * may be DY. */
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < nc; c++)
      {
        int64_t base = (o * channels + c0 + c) * inner;
        const float *y = a->y + base, *dy = a->dy + base;
        float *dx = a->dx + base;
        float ka = (float) sum_dy_y[c], kb = (float) sum_dy[c], d = a->s[c0 + c];

        for (int64_t i = 0; i < inner; i++)
          dx[i] = (dy[i] + scale * (y[i] * ka + kb)) / d;
      }
}

static void
normalize_backward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Backward *a = data;
  int64_t step = block_channels (a->outer * a->inner);

  for (int64_t c = begin; c < end; c += step)
    normalize_backward_block (a, c, end - c < step ? end - c : step);
}

void
ct_cpu_channel_normalize_backward_channels (int64_t outer, int64_t channels, int64_t inner,
                                            const float *y, const float *dy, const float *s,
                                            float *dx, int64_t c0, int64_t nc)
{
  Backward a = { outer, channels, inner, y, dy, s, dx };

  normalize_backward_block (&a, c0, nc);
}

CtStatus
ct_cpu_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                   const float *y, const float *dy,
                                   const float *s, float *dx)
{
  Backward a = { outer, channels, inner, y, dy, s, dx };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (channels, channel_grain (outer * inner), normalize_backward_range, &a);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_batch_norm_std (int64_t n, float eps, const float *variance, float *std)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    std[i] = sqrtf (variance[i] + eps);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_mvn_std (int64_t n, float eps, const float *variance, float *std)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    std[i] = sqrtf (variance[i]) + eps;
  return CT_STATUS_OK;
}
