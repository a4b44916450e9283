/* cpu/normalization.c: the CPU side of normalization.h.
 *
 * Channel sums walk each channel's OUTER runs of INNER contiguous floats.
 * A run is summed in eight float lanes (which the compiler can keep in one
 * vector register) and the lanes are added up in double, so a sum costs
 * about what Caffe's gemv costs and stays as accurate over long channels.
 * Channels (or planes) are shared between the pool's threads; each is
 * computed exactly as one thread would, so results repeat bit for bit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "normalization.h"
#include "parallel.h"

#define LANES 8

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

/* Sum of X[i] * Y[i]. */
static double
run_dot (const float *x, const float *y, int64_t n)
{
  float lanes[LANES] = { 0 };
  int64_t i = 0;

  for (; i + LANES <= n; i += LANES)
    for (int k = 0; k < LANES; k++)
      lanes[k] += x[i + k] * y[i + k];
  for (; i < n; i++)
    lanes[0] += x[i] * y[i];
  return combine (lanes);
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

/* What a pass over the channels of an OUTER x CHANNELS x INNER grid
 * needs; each kernel reads the fields it uses. */
typedef struct {
  int64_t outer, channels, inner;
  const float *x, *y, *dy, *s;
  float *out, *out2;
} Grid;

/* Chunks of at least CT_PARALLEL_ELEMENT_GRAIN elements, in units of
 * UNIT elements each. */
static int64_t
grain_of (int64_t unit)
{
  return unit >= CT_PARALLEL_ELEMENT_GRAIN ? 1 : CT_PARALLEL_ELEMENT_GRAIN / (unit > 0 ? unit : 1);
}

static void
mean_channels (int64_t begin, int64_t end, int chunk, void *data)
{
  const Grid *g = data;

  for (int64_t c = begin; c < end; c++)
    {
      double sum = 0.0;

      for (int64_t o = 0; o < g->outer; o++)
        sum += run_sum (g->x + (o * g->channels + c) * g->inner, g->inner);
      g->out[c] = g->outer * g->inner > 0 ? (float) (sum / (double) (g->outer * g->inner)) : 0.0f;
    }
}

CtStatus
ct_cpu_channel_mean (int64_t outer, int64_t channels, int64_t inner,
                     const float *x, float *mean)
{
  Grid g = { outer, channels, inner, .x = x, .out = mean };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (channels, grain_of (outer * inner), mean_channels, &g);
  return CT_STATUS_OK;
}

static void
center_channels (int64_t begin, int64_t end, int chunk, void *data)
{
  const Grid *g = data;

  for (int64_t c = begin; c < end; c++)
    {
      double sumsq = 0.0;
      float m = g->s[c];

      for (int64_t o = 0; o < g->outer; o++)
        {
          int64_t base = (o * g->channels + c) * g->inner;
          sumsq += run_center (g->x + base, m, g->out + base, g->inner);
        }
      if (g->out2 != NULL)
        g->out2[c] = g->outer * g->inner > 0 ? (float) (sumsq / (double) (g->outer * g->inner))
                                             : 0.0f;
    }
}

CtStatus
ct_cpu_channel_center (int64_t outer, int64_t channels, int64_t inner,
                       const float *x, const float *mean, float *y, float *variance)
{
  Grid g = { outer, channels, inner, .x = x, .s = mean, .out = y, .out2 = variance };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (channels, grain_of (outer * inner), center_channels, &g);
  return CT_STATUS_OK;
}

static void
divide_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const Grid *g = data;

  for (int64_t p = begin; p < end; p++)
    {
      int64_t base = p * g->inner;
      float d = g->s[p % g->channels];

      /* A true division, as Caffe's, not a multiplication by 1 / d. */
      for (int64_t i = base; i < base + g->inner; i++)
        g->out[i] = g->x[i] / d;
    }
}

CtStatus
ct_cpu_channel_divide (int64_t outer, int64_t channels, int64_t inner,
                       const float *x, const float *divisor, float *y)
{
  Grid g = { outer, channels, inner, .x = x, .s = divisor, .out = y };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (outer * channels, grain_of (inner), divide_planes, &g);
  return CT_STATUS_OK;
}

static void
normalize_backward_channels (int64_t begin, int64_t end, int chunk, void *data)
{
  const Grid *g = data;
  double m = (double) g->outer * (double) g->inner;

  for (int64_t c = begin; c < end; c++)
    {
      double sum_dy = 0.0, sum_dy_y = 0.0;
      float a, b, scale, d = g->s[c];

      for (int64_t o = 0; o < g->outer; o++)
        {
          int64_t base = (o * g->channels + c) * g->inner;
          sum_dy += run_sum (g->dy + base, g->inner);
          sum_dy_y += run_dot (g->dy + base, g->y + base, g->inner);
        }
      a = (float) sum_dy_y;
      b = (float) sum_dy;
      scale = (float) (-1.0 / m);
      /* Every DY of the channel is read above before any DX is written,
       * so DX may be DY. */
      for (int64_t o = 0; o < g->outer; o++)
        {
          int64_t base = (o * g->channels + c) * g->inner;

          for (int64_t i = base; i < base + g->inner; i++)
            g->out[i] = (g->dy[i] + scale * (g->y[i] * a + b)) / d;
        }
    }
}

CtStatus
ct_cpu_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                   const float *y, const float *dy,
                                   const float *s, float *dx)
{
  Grid g = { outer, channels, inner, .y = y, .dy = dy, .s = s, .out = dx };

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (channels, grain_of (outer * inner), normalize_backward_channels, &g);
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
