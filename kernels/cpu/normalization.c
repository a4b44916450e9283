/* cpu/normalization.c: the CPU side of normalization.h.
 *
 * Channel sums walk each channel's OUTER runs of INNER contiguous floats.
 * A run is summed in eight float lanes (which the compiler can keep in one
 * vector register) and the lanes are added up in double, so a sum costs
 * about what Caffe's gemv costs and stays as accurate over long channels. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "normalization.h"

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

CtStatus
ct_cpu_channel_divide (int64_t outer, int64_t channels, int64_t inner,
                       const float *x, const float *divisor, float *y)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < channels; c++)
      {
        int64_t base = (o * channels + c) * inner;
        float d = divisor[c];

        /* A true division, as Caffe's, not a multiplication by 1 / d. */
        for (int64_t i = base; i < base + inner; i++)
          y[i] = x[i] / d;
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                   const float *y, const float *dy,
                                   const float *s, float *dx)
{
  double m;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  m = (double) outer * (double) inner;
  for (int64_t c = 0; c < channels; c++)
    {
      double sum_dy = 0.0, sum_dy_y = 0.0;
      float a, b, scale, d = s[c];

      for (int64_t o = 0; o < outer; o++)
        {
          int64_t base = (o * channels + c) * inner;
          sum_dy += run_sum (dy + base, inner);
          sum_dy_y += run_dot (dy + base, y + base, inner);
        }
      a = (float) sum_dy_y;
      b = (float) sum_dy;
      scale = (float) (-1.0 / m);
      /* Every DY of the channel is read above before any DX is written,
       * so DX may be DY. */
      for (int64_t o = 0; o < outer; o++)
        {
          int64_t base = (o * channels + c) * inner;

          for (int64_t i = base; i < base + inner; i++)
            dx[i] = (dy[i] + scale * (y[i] * a + b)) / d;
        }
    }
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
