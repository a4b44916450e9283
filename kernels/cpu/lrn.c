/* cpu/lrn.c: the CPU side of lrn.h.
 *
 * The arithmetic is Caffe's step by step, not just its formula: the
 * channel sum slides with one add and one subtract per channel, the
 * within-channel scale is (alpha * average) + 1, and the backward passes
 * multiply and divide in the order Caffe's layers do, so that results agree
 * with Caffe's to a few ulp, not only to a tolerance. */
#include <math.h>
#include <string.h>

#include "lrn.h"

/* scale^-beta for N elements, times FACTOR when given. beta 0.75, the
 * value of nearly every net, avoids powf: 1 / (r sqrt (r)) with r = sqrt (s)
 * is within 2 ulp of it and several times faster. */
static void
negative_power (int64_t n, const float *scale, float beta, const float *factor, float *out)
{
  if (beta == 0.75f)
    for (int64_t i = 0; i < n; i++)
      {
        float r = sqrtf (scale[i]);
        float p = 1.0f / (r * sqrtf (r));

        out[i] = factor != NULL ? p * factor[i] : p;
      }
  else
    for (int64_t i = 0; i < n; i++)
      {
        float p = powf (scale[i], -beta);

        out[i] = factor != NULL ? p * factor[i] : p;
      }
}

static inline float
negative_power_one (float s, float beta)
{
  float r;

  if (beta != 0.75f)
    return powf (s, -beta);
  r = sqrtf (s);
  return 1.0f / (r * sqrtf (r));
}

static int
valid_counts (int64_t a, int64_t b, int64_t c, int64_t size)
{
  return a >= 0 && b >= 0 && c >= 0 && size > 0 && size % 2 == 1;
}

CtStatus
ct_cpu_lrn_across_forward (int64_t num, int64_t channels, int64_t spatial,
                           int64_t size, float alpha, float beta, float k,
                           const float *bottom, float *scale, float *top)
{
  const int64_t pre = (size - 1) / 2;
  const float alpha_over_size = alpha / (float) size;

  if (!valid_counts (num, channels, spatial, size))
    return CT_STATUS_INVALID;

  for (int64_t n = 0; n < num; n++)
    {
      const float *x = bottom + n * channels * spatial;
      float *s = scale + n * channels * spatial;

      if (channels == 0)
        continue;
      /* Channel 0: the window covers channels [-pre, pre]. */
      for (int64_t i = 0; i < spatial; i++)
        s[i] = k;
      for (int64_t c = -pre; c <= pre; c++)
        if (c >= 0 && c < channels)
          for (int64_t i = 0; i < spatial; i++)
            s[i] += alpha_over_size * (x[c * spatial + i] * x[c * spatial + i]);

      /* Then slide: channel c + pre enters, channel c - 1 - pre leaves. */
      for (int64_t c = 1; c < channels; c++)
        {
          float *cur = s + c * spatial;
          const float *prev = cur - spatial;
          int64_t head = c + pre, tail = c - 1 - pre;

          memcpy (cur, prev, (size_t) spatial * sizeof (float));
          if (head < channels)
            for (int64_t i = 0; i < spatial; i++)
              cur[i] += alpha_over_size * (x[head * spatial + i] * x[head * spatial + i]);
          if (tail >= 0)
            for (int64_t i = 0; i < spatial; i++)
              cur[i] += -alpha_over_size * (x[tail * spatial + i] * x[tail * spatial + i]);
        }
    }

  negative_power (num * channels * spatial, scale, beta, bottom, top);
  return CT_STATUS_OK;
}

/* top_diff * top / scale at one element: the ratio the backward sums. */
static inline float
across_ratio (const float *top_diff, const float *top, const float *scale, int64_t i)
{
  return (top_diff[i] * top[i]) / scale[i];
}

CtStatus
ct_cpu_lrn_across_backward (int64_t num, int64_t channels, int64_t spatial,
                            int64_t size, float alpha, float beta,
                            const float *bottom, const float *top,
                            const float *scale, const float *top_diff,
                            float *scratch, float *bottom_diff)
{
  const int64_t pre = (size - 1) / 2;
  /* Caffe forms this constant in double, then stores it as a float. */
  const float cache_ratio = (float) (2.0 * alpha * beta / (double) size);
  float *accum = scratch;

  if (!valid_counts (num, channels, spatial, size))
    return CT_STATUS_INVALID;

  negative_power (num * channels * spatial, scale, beta, top_diff, bottom_diff);

  for (int64_t n = 0; n < num; n++)
    {
      const int64_t base = n * channels * spatial;
      const float *x = bottom + base;
      const float *td = top_diff + base;
      const float *y = top + base;
      const float *s = scale + base;
      float *bd = bottom_diff + base;

      /* Channels [-pre, pre - 1] start the window of channel 0. */
      memset (accum, 0, (size_t) spatial * sizeof (float));
      for (int64_t c = -pre; c < pre; c++)
        if (c >= 0 && c < channels)
          for (int64_t i = 0; i < spatial; i++)
            accum[i] += across_ratio (td, y, s, c * spatial + i);

      for (int64_t c = 0; c < channels; c++)
        {
          int64_t head = c + pre, tail = c - pre;

          if (head < channels)
            for (int64_t i = 0; i < spatial; i++)
              accum[i] += across_ratio (td, y, s, head * spatial + i);
          for (int64_t i = 0; i < spatial; i++)
            bd[c * spatial + i] += -cache_ratio * (x[c * spatial + i] * accum[i]);
          if (tail >= 0)
            for (int64_t i = 0; i < spatial; i++)
              accum[i] += -across_ratio (td, y, s, tail * spatial + i);
        }
    }
  return CT_STATUS_OK;
}

static inline int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

static inline int64_t
max64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

/* The averaging window of (H, W), as Caffe's pooling with kernel SIZE,
 * stride 1 and pad PRE sets it: clipped bounds and the divisor. */
typedef struct {
  int64_t hstart, hend, wstart, wend, pool_size;
} Window;

static inline Window
within_window (int64_t h, int64_t w, int64_t height, int64_t width, int64_t size,
               int64_t pre)
{
  Window win;
  int64_t hs = h - pre, ws = w - pre;
  int64_t he = min64 (hs + size, height + pre), we = min64 (ws + size, width + pre);

  win.pool_size = (he - hs) * (we - ws);
  win.hstart = max64 (hs, 0);
  win.wstart = max64 (ws, 0);
  win.hend = min64 (he, height);
  win.wend = min64 (we, width);
  return win;
}

CtStatus
ct_cpu_lrn_within_forward (int64_t planes, int64_t height, int64_t width,
                           int64_t size, float alpha, float beta,
                           const float *bottom, float *scale, float *top)
{
  const int64_t pre = (size - 1) / 2;
  const int64_t plane = height * width;

  if (!valid_counts (planes, height, width, size))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < planes; p++)
    {
      const float *x = bottom + p * plane;

      for (int64_t h = 0; h < height; h++)
        for (int64_t w = 0; w < width; w++)
          {
            Window win = within_window (h, w, height, width, size, pre);
            int64_t i = p * plane + h * width + w;
            float sum = 0.0f, s;

            for (int64_t hh = win.hstart; hh < win.hend; hh++)
              for (int64_t ww = win.wstart; ww < win.wend; ww++)
                sum += x[hh * width + ww] * x[hh * width + ww];
            s = alpha * (sum / (float) win.pool_size) + 1.0f;
            scale[i] = s;
            top[i] = bottom[i] * negative_power_one (s, beta);
          }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_lrn_within_backward (int64_t planes, int64_t height, int64_t width,
                            int64_t size, float alpha, float beta,
                            const float *bottom, const float *scale,
                            const float *top_diff, float *scratch,
                            float *bottom_diff)
{
  const int64_t pre = (size - 1) / 2;
  const int64_t plane = height * width;
  const float power_scale = -beta * alpha; /* d/du (1 + alpha u)^-beta, without the power */
  float *square_diff = scratch;

  if (!valid_counts (planes, height, width, size))
    return CT_STATUS_INVALID;

  memset (square_diff, 0, (size_t) (planes * plane) * sizeof (float));
  for (int64_t p = 0; p < planes; p++)
    {
      const float *x = bottom + p * plane;
      float *sd = square_diff + p * plane;

      /* Gradient reaching each window's average, spread over the window. */
      for (int64_t h = 0; h < height; h++)
        for (int64_t w = 0; w < width; w++)
          {
            Window win = within_window (h, w, height, width, size, pre);
            int64_t i = p * plane + h * width + w;
            float s = scale[i];
            float average_diff = (x[h * width + w] * top_diff[i])
                                 * (power_scale * (negative_power_one (s, beta) / s));
            float share = average_diff / (float) win.pool_size;

            for (int64_t hh = win.hstart; hh < win.hend; hh++)
              for (int64_t ww = win.wstart; ww < win.wend; ww++)
                sd[hh * width + ww] += share;
          }
    }

  /* The direct path (x times the scale power) plus the path through x^2. */
  for (int64_t i = 0; i < planes * plane; i++)
    bottom_diff[i] = negative_power_one (scale[i], beta) * top_diff[i]
                     + square_diff[i] * (2.0f * bottom[i]);
  return CT_STATUS_OK;
}
