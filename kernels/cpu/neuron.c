/* cpu/neuron.c: the CPU side of neuron.h.
 *
 * Each function is one tight loop over the elements that reads an element's
 * inputs before writing its output, which is what lets an output share its
 * array with the input of the same role (in-place layers). The formulas and
 * the order of float operations follow Caffe's neuron layers, so that
 * results agree with Caffe's to rounding. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "neuron.h"
#include "fused-private.h"
#include "parallel.h"

/* Element counts whose bytes fit in size_t. */
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

/* IF_POSITIVE when X > 0, OTHERWISE when X <= 0 (a NaN with the sign bit
 * clear counts as positive). A float comparison compiles to a branch at
 * -O2, and the signs of activations are close to random, so the branch
 * mispredicts half the time; an integer comparison of the bits (positive
 * floats are exactly the positive int32s) selects without one, four times
 * faster, and vectorizes where the build allows. */
static inline float
select_positive (float x, float if_positive, float otherwise)
{
  int32_t bits;
  uint32_t a, b, mask;
  float out;

  memcpy (&bits, &x, sizeof bits);
  memcpy (&a, &if_positive, sizeof a);
  memcpy (&b, &otherwise, sizeof b);
  mask = (uint32_t) -(int32_t) (bits > 0);
  a = (a & mask) | (b & ~mask);
  memcpy (&out, &a, sizeof out);
  return out;
}

/* The arguments of an element-wise kernel, for the pool's chunks (large
 * blobs are shared between the threads of parallel.h). */
typedef struct {
  float a;
  const float *x, *y;
  float *out;
} Elements;

#ifdef __SSE2__
/* select_positive on four lanes: the same integer comparison of the bits. */
static inline __m128
select_positive4 (__m128 x, __m128 if_positive, __m128 otherwise)
{
  __m128 mask = _mm_castsi128_ps (_mm_cmpgt_epi32 (_mm_castps_si128 (x), _mm_setzero_si128 ()));

  return _mm_or_ps (_mm_and_ps (mask, if_positive), _mm_andnot_ps (mask, otherwise));
}
#endif

/* ReLU is the most frequent layer of most nets, and a pass over a large
 * blob is bound by memory: the loops below read the arrays through local
 * pointers (the store through E->out could otherwise alias E itself, and
 * the compiler would reload every field per element) and four lanes at a
 * time where SSE2 is there. An in-place layer passes the same array as X
 * and OUT; each group of lanes is read before it is written. */
static void
relu_forward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Elements *e = data;
  const float a = e->a;
  const float *x = e->x;
  float *out = e->out;
  int64_t i = begin;

#ifdef __SSE2__
  const __m128 slope = _mm_set1_ps (a), zero = _mm_setzero_ps ();

  for (; i + 8 <= end; i += 8)
    {
      __m128 v0 = _mm_loadu_ps (x + i), v1 = _mm_loadu_ps (x + i + 4);

      v0 = _mm_add_ps (select_positive4 (v0, v0, _mm_mul_ps (slope, v0)), zero);
      v1 = _mm_add_ps (select_positive4 (v1, v1, _mm_mul_ps (slope, v1)), zero);
      _mm_storeu_ps (out + i, v0);
      _mm_storeu_ps (out + i + 4, v1);
    }
#endif
  for (; i < end; i++)
    {
      float v = x[i];
      /* + 0.0f turns the -0 of 0 * (a negative x) into +0, as Caffe's
       * max(x, 0) + slope * min(x, 0) gives; NaN stays NaN. */
      out[i] = select_positive (v, v, a * v) + 0.0f;
    }
}

CtStatus
ct_cpu_relu_forward (int64_t n, float negative_slope, const float *x, float *y)
{
  Elements e = { negative_slope, x, NULL, y };

  if (!valid_count (n))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, relu_forward_range, &e);
  return CT_STATUS_OK;
}

static void
relu_backward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Elements *e = data;
  const float a = e->a;
  const float *x = e->x, *dy = e->y;
  float *dx = e->out;
  int64_t i = begin;

#ifdef __SSE2__
  const __m128 slope = _mm_set1_ps (a);

  for (; i + 8 <= end; i += 8)
    {
      __m128 g0 = _mm_loadu_ps (dy + i), g1 = _mm_loadu_ps (dy + i + 4);

      g0 = select_positive4 (_mm_loadu_ps (x + i), g0, _mm_mul_ps (g0, slope));
      g1 = select_positive4 (_mm_loadu_ps (x + i + 4), g1, _mm_mul_ps (g1, slope));
      _mm_storeu_ps (dx + i, g0);
      _mm_storeu_ps (dx + i + 4, g1);
    }
#endif
  for (; i < end; i++)
    {
      float g = dy[i];
      dx[i] = select_positive (x[i], g, g * a);
    }
}

void
ct_cpu_relu_forward_run (int64_t n, float negative_slope, const float *x, float *y)
{
  Elements e = { .a = negative_slope, .x = x, .out = y };

  relu_forward_range (0, n, 0, &e);
}

void
ct_cpu_relu_backward_run (int64_t n, float negative_slope, const float *x, const float *dy,
                          float *dx)
{
  Elements e = { .a = negative_slope, .x = x, .y = dy, .out = dx };

  relu_backward_range (0, n, 0, &e);
}

typedef struct {
  float slope;
  const float *y, *dy;
  int n;
  float *const *dx;
} Fanout;

/* A block small enough for the first-level cache is copied from DX[0]
 * to the others right after it is written. */
#define FANOUT_BLOCK 1024

static void
relu_backward_fanout_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Fanout *f = data;

  for (int64_t b0 = begin; b0 < end; b0 += FANOUT_BLOCK)
    {
      const int64_t len = end - b0 < FANOUT_BLOCK ? end - b0 : FANOUT_BLOCK;

      ct_cpu_relu_backward_run (len, f->slope, f->y + b0, f->dy + b0, f->dx[0] + b0);
      for (int k = 1; k < f->n; k++)
        memcpy (f->dx[k] + b0, f->dx[0] + b0, (size_t) len * sizeof (float));
    }
}

CtStatus
ct_cpu_relu_backward_fanout (int64_t count, float negative_slope, const float *y,
                             const float *dy, int n, float *const *dx)
{
  Fanout f = { negative_slope, y, dy, n, dx };

  if (!valid_count (count) || n < 1)
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (count, CT_PARALLEL_ELEMENT_GRAIN, relu_backward_fanout_range, &f);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_relu_backward (int64_t n, float negative_slope, const float *x,
                      const float *dy, float *dx)
{
  Elements e = { negative_slope, x, dy, dx };

  if (!valid_count (n))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, relu_backward_range, &e);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_prelu_forward (int64_t outer, int64_t channels, int64_t inner,
                      const float *slope, int channel_shared,
                      const float *x, float *y)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < channels; c++)
      {
        int64_t base = (o * channels + c) * inner;
        float a = slope[channel_shared ? 0 : c];

        for (int64_t i = base; i < base + inner; i++)
          {
            float v = x[i];
            y[i] = select_positive (v, v, a * v);
          }
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_prelu_backward (int64_t outer, int64_t channels, int64_t inner,
                       const float *slope, int channel_shared,
                       const float *x, const float *dy, float *dx)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < channels; c++)
      {
        int64_t base = (o * channels + c) * inner;
        float a = slope[channel_shared ? 0 : c];

        for (int64_t i = base; i < base + inner; i++)
          {
            float g = dy[i];
            dx[i] = select_positive (x[i], g, g * a);
          }
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_prelu_slope_backward (int64_t outer, int64_t channels, int64_t inner,
                             int channel_shared, const float *x, const float *dy,
                             float *slope_diff)
{
  double shared_sum = 0.0;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t c = 0; c < channels; c++)
    {
      double sum = 0.0;

      for (int64_t o = 0; o < outer; o++)
        {
          int64_t base = (o * channels + c) * inner;

          for (int64_t i = base; i < base + inner; i++)
            sum += (double) select_positive (x[i], 0.0f, dy[i] * x[i]);
        }
      if (channel_shared)
        shared_sum += sum;
      else
        slope_diff[c] += (float) sum;
    }
  if (channel_shared)
    slope_diff[0] += (float) shared_sum;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_elu_forward (int64_t n, float alpha, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];
      /* exp of min(x, 0), as Caffe: never overflows, no branch. */
      float e = expf (select_positive (v, 0.0f, v));
      y[i] = select_positive (v, v, alpha * (e - 1.0f));
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_elu_backward (int64_t n, float alpha, const float *x, const float *y,
                     const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float g = dy[i];
      dx[i] = select_positive (x[i], g, g * (alpha + y[i]));
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_sigmoid_forward (int64_t n, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  /* The tanh form never overflows, unlike 1 / (1 + exp(-x)). */
  for (int64_t i = 0; i < n; i++)
    y[i] = 0.5f * tanhf (0.5f * x[i]) + 0.5f;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_sigmoid_backward (int64_t n, const float *y, const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float s = y[i];
      dx[i] = dy[i] * s * (1.0f - s);
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_tanh_forward (int64_t n, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    y[i] = tanhf (x[i]);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_tanh_backward (int64_t n, const float *y, const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float t = y[i];
      dx[i] = dy[i] * (1.0f - t * t);
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_absval_forward (int64_t n, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    y[i] = fabsf (x[i]);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_absval_backward (int64_t n, const float *x, const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];
      float sign = (float) ((v > 0.0f) - (v < 0.0f));
      dx[i] = sign * dy[i];
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_power_forward (int64_t n, float power, float scale, float shift,
                      const float *x, float *y)
{
  float diff_scale = power * scale;

  if (!valid_count (n))
    return CT_STATUS_INVALID;
  /* A constant output: 1 for power 0, shift ^ power when scale is 0. */
  if (diff_scale == 0.0f)
    {
      float value = power == 0.0f ? 1.0f : powf (shift, power);

      for (int64_t i = 0; i < n; i++)
        y[i] = value;
      return CT_STATUS_OK;
    }
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];

      if (scale != 1.0f)
        v *= scale;
      if (shift != 0.0f)
        v += shift;
      if (power == 2.0f)
        v = v * v;
      else if (power != 1.0f)
        v = powf (v, power);
      y[i] = v;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_power_backward (int64_t n, float power, float scale, float shift,
                       const float *x, const float *y, const float *dy, float *dx)
{
  float diff_scale = power * scale;

  if (!valid_count (n))
    return CT_STATUS_INVALID;
  if (diff_scale == 0.0f)
    {
      for (int64_t i = 0; i < n; i++)
        dx[i] = 0.0f;
      return CT_STATUS_OK;
    }
  if (power == 1.0f)
    {
      for (int64_t i = 0; i < n; i++)
        dx[i] = dy[i] * diff_scale;
      return CT_STATUS_OK;
    }
  if (power == 2.0f)
    {
      /* d/dx (shift + scale x)^2 = diff_scale * shift + diff_scale * scale * x */
      float slope = diff_scale * scale, offset = diff_scale * shift;

      for (int64_t i = 0; i < n; i++)
        {
          float d = slope * x[i];
          if (shift != 0.0f)
            d += offset;
          dx[i] = dy[i] * d;
        }
      return CT_STATUS_OK;
    }
  if (shift == 0.0f)
    {
      /* (scale x)^power has derivative power * y / x. */
      for (int64_t i = 0; i < n; i++)
        dx[i] = dy[i] * ((y[i] / x[i]) * power);
      return CT_STATUS_OK;
    }
  for (int64_t i = 0; i < n; i++)
    {
      float inner = x[i];
      float d;

      if (scale != 1.0f)
        inner *= scale;
      inner += shift;
      d = y[i] / inner;
      if (diff_scale != 1.0f)
        d *= diff_scale;
      dx[i] = dy[i] * d;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_exp_forward (int64_t n, float inner_scale, float outer_scale,
                    const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = inner_scale == 1.0f ? expf (x[i]) : expf (inner_scale * x[i]);
      y[i] = outer_scale != 1.0f ? v * outer_scale : v;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_exp_backward (int64_t n, float inner_scale, const float *y,
                     const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float d = y[i] * dy[i];
      dx[i] = inner_scale != 1.0f ? d * inner_scale : d;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_log_forward (int64_t n, float scale, float shift, float base_scale,
                    const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];

      if (scale != 1.0f)
        v *= scale;
      if (shift != 0.0f)
        v += shift;
      v = logf (v);
      y[i] = base_scale != 1.0f ? v * base_scale : v;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_log_backward (int64_t n, float scale, float shift, float backward_scale,
                     const float *x, const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];

      if (scale != 1.0f)
        v *= scale;
      if (shift != 0.0f)
        v += shift;
      v = 1.0f / v;
      if (backward_scale != 1.0f)
        v *= backward_scale;
      dx[i] = dy[i] * v;
    }
  return CT_STATUS_OK;
}

/* Above this input, exp overflows in the gradient; Caffe caps it here. */
#define CT_BNLL_THRESHOLD 50.0f

CtStatus
ct_cpu_bnll_forward (int64_t n, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  /* In double, as Caffe evaluates it: log(1 + e^-x) for large x. */
  for (int64_t i = 0; i < n; i++)
    {
      double v = x[i];
      y[i] = (float) (v > 0.0 ? v + log (1.0 + exp (-v)) : log (1.0 + exp (v)));
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_bnll_backward (int64_t n, const float *x, const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      double e = exp (fmin ((double) x[i], CT_BNLL_THRESHOLD));
      dx[i] = (float) (dy[i] * e / (e + 1.0));
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_threshold_forward (int64_t n, float threshold, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    y[i] = x[i] > threshold ? 1.0f : 0.0f;
  return CT_STATUS_OK;
}

static void
dropout_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Elements *e = data;

  for (int64_t i = begin; i < end; i++)
    e->out[i] = e->x[i] * e->y[i] * e->a;
}

CtStatus
ct_cpu_dropout_forward (int64_t n, float scale, const float *mask,
                        const float *x, float *y)
{
  Elements e = { scale, x, mask, y };

  if (!valid_count (n))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, dropout_range, &e);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_dropout_backward (int64_t n, float scale, const float *mask,
                         const float *dy, float *dx)
{
  return ct_cpu_dropout_forward (n, scale, mask, dy, dx);
}

CtStatus
ct_cpu_swish_forward (int64_t n, float beta, const float *x, float *sig, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];
      float s = 0.5f * tanhf (0.5f * (v * beta)) + 0.5f;

      sig[i] = s;
      y[i] = v * s;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_swish_backward (int64_t n, float beta, const float *y, const float *sig,
                       const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float by = beta * y[i];
      dx[i] = dy[i] * (by + sig[i] * (1.0f - by));
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_clip_forward (int64_t n, float min, float max, const float *x, float *y)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      /* NaN comes out as MIN, as with Caffe's std::max (min, std::min (x, max)). */
      float v = max < x[i] ? max : x[i];
      y[i] = min < v ? v : min;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_clip_backward (int64_t n, float min, float max, const float *x,
                      const float *dy, float *dx)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    dx[i] = x[i] >= min && x[i] <= max ? dy[i] : 0.0f;
  return CT_STATUS_OK;
}
