/* cpu/common.c: the CPU side of common.h, plain loops over contiguous rows.
 *
 * Sums over long rows (Reduction, the bias and scale gradients) use eight
 * partial sums, which the compiler can keep in one vector register and which
 * round less than one running sum, as BLAS dot products do. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common.h"
#include "fused-private.h"
#include "parallel.h"

#define N_LANES 8

static inline int
valid_count (int64_t n)
{
  return n >= 0 && (uint64_t) n <= SIZE_MAX / sizeof (float);
}

static inline int
valid_counts (int64_t a, int64_t b, int64_t c)
{
  return valid_count (a) && valid_count (b) && valid_count (c);
}

static float
sum_row (int64_t n, const float *x)
{
  float lanes[N_LANES] = { 0 };
  float total = 0.0f;
  int64_t i = 0;

  for (; i + N_LANES <= n; i += N_LANES)
    for (int l = 0; l < N_LANES; l++)
      lanes[l] += x[i + l];
  for (int l = 0; l < N_LANES; l++)
    total += lanes[l];
  for (; i < n; i++)
    total += x[i];
  return total;
}

static float
dot_row (int64_t n, const float *x, const float *y)
{
  float lanes[N_LANES] = { 0 };
  float total = 0.0f;
  int64_t i = 0;

  for (; i + N_LANES <= n; i += N_LANES)
    for (int l = 0; l < N_LANES; l++)
      lanes[l] += x[i + l] * y[i + l];
  for (int l = 0; l < N_LANES; l++)
    total += lanes[l];
  for (; i < n; i++)
    total += x[i] * y[i];
  return total;
}

/* sum_row (N, G) into *SUM and dot_row (N, G, X) into *DOT, bit for bit,
 * in one loop that reads both arrays side by side so that their loads
 * from memory overlap (SSE2 registers: the compiler vectorises the two
 * sets of lanes in one loop poorly). */
static void
sum_and_dot_row (int64_t n, const float *g, const float *x, float *sum, float *dot)
{
  float s[N_LANES] = { 0 }, d[N_LANES] = { 0 };
  float sum_total = 0.0f, dot_total = 0.0f;
  int64_t i = 0;

#ifdef __SSE2__
  __m128 s0 = _mm_setzero_ps (), s1 = _mm_setzero_ps ();
  __m128 d0 = _mm_setzero_ps (), d1 = _mm_setzero_ps ();

  _Static_assert (N_LANES == 8, "two SSE2 registers of lanes");
  for (; i + N_LANES <= n; i += N_LANES)
    {
      __m128 g0 = _mm_loadu_ps (g + i), g1 = _mm_loadu_ps (g + i + 4);

      s0 = _mm_add_ps (s0, g0);
      s1 = _mm_add_ps (s1, g1);
      d0 = _mm_add_ps (d0, _mm_mul_ps (g0, _mm_loadu_ps (x + i)));
      d1 = _mm_add_ps (d1, _mm_mul_ps (g1, _mm_loadu_ps (x + i + 4)));
    }
  _mm_storeu_ps (s, s0);
  _mm_storeu_ps (s + 4, s1);
  _mm_storeu_ps (d, d0);
  _mm_storeu_ps (d + 4, d1);
#else
  for (; i + N_LANES <= n; i += N_LANES)
    for (int l = 0; l < N_LANES; l++)
      {
        s[l] += g[i + l];
        d[l] += g[i + l] * x[i + l];
      }
#endif
  for (int l = 0; l < N_LANES; l++)
    {
      sum_total += s[l];
      dot_total += d[l];
    }
  for (; i < n; i++)
    {
      sum_total += g[i];
      dot_total += g[i] * x[i];
    }
  *sum = sum_total;
  *dot = dot_total;
}

static float
asum_row (int64_t n, const float *x)
{
  float lanes[N_LANES] = { 0 };
  float total = 0.0f;
  int64_t i = 0;

  for (; i + N_LANES <= n; i += N_LANES)
    for (int l = 0; l < N_LANES; l++)
      lanes[l] += fabsf (x[i + l]);
  for (int l = 0; l < N_LANES; l++)
    total += lanes[l];
  for (; i < n; i++)
    total += fabsf (x[i]);
  return total;
}

typedef struct {
  int64_t block;
  const float *src;
  int64_t src_stride;
  float *dst;
  int64_t dst_stride;
} CopyBlocks;

static void
copy_blocks_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const CopyBlocks *j = data;

  for (int64_t i = begin; i < end; i++)
    memcpy (j->dst + i * j->dst_stride, j->src + i * j->src_stride,
            (size_t) j->block * sizeof (float));
}

CtStatus
ct_cpu_copy_blocks (int64_t num, int64_t block, const float *src, int64_t src_stride,
                    float *dst, int64_t dst_stride)
{
  CopyBlocks job = { block, src, src_stride, dst, dst_stride };
  int64_t grain;

  if (!valid_counts (num, block, 0) || src_stride < block || dst_stride < block)
    return CT_STATUS_INVALID;
  if (block == 0)
    return CT_STATUS_OK;
  /* Large copies (Concat and Slice of whole feature maps) are shared
   * between the pool's threads, a range of blocks each. */
  grain = block >= CT_PARALLEL_ELEMENT_GRAIN ? 1 : CT_PARALLEL_ELEMENT_GRAIN / block;
  ct_cpu_parallel_for (num, grain, copy_blocks_range, &job);
  return CT_STATUS_OK;
}

typedef struct {
  int n;
  const float *const *x;
  float *y;
  int relu;
  float slope;
} EltwiseSum;

/* Blocks of this many floats stay in the first-level cache while the
 * bottoms are added into them one after the other. */
#define ELTWISE_SUM_BLOCK 1024

static void
eltwise_sum_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const EltwiseSum *s = data;

  for (int64_t b0 = begin; b0 < end; b0 += ELTWISE_SUM_BLOCK)
    {
      const int64_t len = end - b0 < ELTWISE_SUM_BLOCK ? end - b0 : ELTWISE_SUM_BLOCK;
      const float *x0 = s->x[0] + b0;
      float *y = s->y + b0;

      /* 0 + x, as the sum that starts from a zeroed top: -0 becomes +0. */
      for (int64_t i = 0; i < len; i++)
        y[i] = 0.0f + x0[i];
      for (int k = 1; k < s->n; k++)
        {
          const float *xk = s->x[k] + b0;

          for (int64_t i = 0; i < len; i++)
            y[i] = y[i] + xk[i];
        }
      if (s->relu)
        ct_cpu_relu_forward_run (len, s->slope, y, y);
    }
}

static CtStatus
eltwise_sum (int64_t count, const EltwiseSum *s)
{
  if (!valid_count (count) || s->n < 1)
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (count, CT_PARALLEL_ELEMENT_GRAIN, eltwise_sum_range, (void *) s);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_eltwise_sum (int64_t count, int n, const float *const *x, float *y)
{
  EltwiseSum s = { n, x, y, 0, 0.0f };

  return eltwise_sum (count, &s);
}

CtStatus
ct_cpu_eltwise_sum_relu (int64_t count, int n, const float *const *x, float *y,
                         float negative_slope)
{
  EltwiseSum s = { n, x, y, 1, negative_slope };

  return eltwise_sum (count, &s);
}

CtStatus
ct_cpu_eltwise_max_first (int64_t n, const float *a, const float *b, float *top, int32_t *mask)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      int a_wins = a[i] > b[i];

      top[i] = a_wins ? a[i] : b[i];
      mask[i] = a_wins ? 0 : 1;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_eltwise_max_next (int64_t n, const float *x, int32_t index, float *top, int32_t *mask)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    if (x[i] > top[i])
      {
        top[i] = x[i];
        mask[i] = index;
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_eltwise_max_backward (int64_t n, const float *top_diff, const int32_t *mask,
                             int32_t index, float *bottom_diff)
{
  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    bottom_diff[i] = mask[i] == index ? top_diff[i] : 0.0f;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_tile_forward (int64_t outer, int64_t inner, int64_t tiles, const float *bottom, float *top)
{
  if (!valid_counts (outer, inner, tiles))
    return CT_STATUS_INVALID;
  if (inner == 0)
    return CT_STATUS_OK;
  for (int64_t o = 0; o < outer; o++)
    {
      const float *from = bottom + o * inner;

      for (int64_t t = 0; t < tiles; t++)
        memcpy (top + (o * tiles + t) * inner, from, (size_t) inner * sizeof (float));
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_tile_backward (int64_t outer, int64_t inner, int64_t tiles, const float *top_diff,
                      float *bottom_diff)
{
  if (!valid_counts (outer, inner, tiles))
    return CT_STATUS_INVALID;
  for (int64_t o = 0; o < outer; o++)
    {
      float *to = bottom_diff + o * inner;
      const float *from = top_diff + o * tiles * inner;

      if (tiles == 0)
        {
          memset (to, 0, (size_t) inner * sizeof (float));
          continue;
        }
      memcpy (to, from, (size_t) inner * sizeof (float));
      for (int64_t t = 1; t < tiles; t++)
        for (int64_t i = 0; i < inner; i++)
          to[i] += from[t * inner + i];
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_reduce_forward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                       const float *bottom, float *top)
{
  if (!valid_counts (num, dim, 0))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      const float *row = bottom + i * dim;
      float value;

      switch (op)
        {
        case CT_REDUCE_SUM:
        case CT_REDUCE_MEAN:
          value = sum_row (dim, row);
          break;
        case CT_REDUCE_ASUM:
          value = asum_row (dim, row);
          break;
        case CT_REDUCE_SUMSQ:
          value = dot_row (dim, row, row);
          break;
        default:
          return CT_STATUS_INVALID;
        }
      top[i] = coeff == 1.0f ? value : coeff * value;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_reduce_backward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                        const float *bottom_data, const float *top_diff, float *bottom_diff)
{
  if (!valid_counts (num, dim, 0))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      const float *x = bottom_data + i * dim;
      float *dx = bottom_diff + i * dim;
      float g = top_diff[i] * coeff;

      switch (op)
        {
        case CT_REDUCE_SUM:
        case CT_REDUCE_MEAN:
          for (int64_t j = 0; j < dim; j++)
            dx[j] = g;
          break;
        case CT_REDUCE_ASUM:
          /* The sign of 0 is 0, as in Caffe. */
          for (int64_t j = 0; j < dim; j++)
            dx[j] = (float) ((x[j] > 0.0f) - (x[j] < 0.0f)) * g;
          break;
        case CT_REDUCE_SUMSQ:
          for (int64_t j = 0; j < dim; j++)
            dx[j] = 2.0f * x[j] * g;
          break;
        default:
          return CT_STATUS_INVALID;
        }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_bias_forward (int64_t outer, int64_t dim, int64_t inner,
                     const float *bottom, const float *bias, float *top)
{
  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  if (inner == 1)
    {
      /* InnerProduct's bias: one row of DIM per outer index. */
      for (int64_t o = 0; o < outer; o++)
        for (int64_t d = 0; d < dim; d++)
          top[o * dim + d] = bottom[o * dim + d] + bias[d];
      return CT_STATUS_OK;
    }
  for (int64_t o = 0; o < outer; o++)
    for (int64_t d = 0; d < dim; d++)
      {
        const float *x = bottom + (o * dim + d) * inner;
        float *y = top + (o * dim + d) * inner;
        float b = bias[d];

        for (int64_t i = 0; i < inner; i++)
          y[i] = x[i] + b;
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_scale_forward (int64_t outer, int64_t dim, int64_t inner,
                      const float *bottom, const float *scale, float *top)
{
  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t d = 0; d < dim; d++)
      {
        const float *x = bottom + (o * dim + d) * inner;
        float *y = top + (o * dim + d) * inner;
        float s = scale[d];

        for (int64_t i = 0; i < inner; i++)
          y[i] = x[i] * s;
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_bias_backward (int64_t outer, int64_t dim, int64_t inner,
                      const float *top_diff, int accumulate, float *bias_diff)
{
  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  if (!accumulate)
    memset (bias_diff, 0, (size_t) dim * sizeof (float));
  if (inner == 1)
    {
      /* Column sums of an OUTER x DIM matrix, row by row for the cache. */
      for (int64_t o = 0; o < outer; o++)
        for (int64_t d = 0; d < dim; d++)
          bias_diff[d] += top_diff[o * dim + d];
      return CT_STATUS_OK;
    }
  for (int64_t d = 0; d < dim; d++)
    {
      float total = 0.0f;

      for (int64_t o = 0; o < outer; o++)
        total += sum_row (inner, top_diff + (o * dim + d) * inner);
      bias_diff[d] += total;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_scale_backward (int64_t outer, int64_t dim, int64_t inner,
                       const float *top_diff, const float *bottom_data,
                       int accumulate, float *scale_diff)
{
  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  if (!accumulate)
    memset (scale_diff, 0, (size_t) dim * sizeof (float));
  if (inner == 1)
    {
      for (int64_t o = 0; o < outer; o++)
        for (int64_t d = 0; d < dim; d++)
          scale_diff[d] += top_diff[o * dim + d] * bottom_data[o * dim + d];
      return CT_STATUS_OK;
    }
  for (int64_t d = 0; d < dim; d++)
    {
      float total = 0.0f;

      for (int64_t o = 0; o < outer; o++)
        {
          int64_t at = (o * dim + d) * inner;
          total += dot_row (inner, top_diff + at, bottom_data + at);
        }
      scale_diff[d] += total;
    }
  return CT_STATUS_OK;
}

/* Scale's passes are bound by memory: they run on the pool, the backward
 * pass a block of channels at a time, small enough for a core's cache, so
 * that its sums read the block from memory and the gradient that follows
 * finds it in the cache. Each channel's sums run in the order of
 * ct_cpu_bias_backward's and ct_cpu_scale_backward's loops, whatever the
 * block or thread: the same bits. */
#define SCALE_BLOCK_FLOATS ((int64_t) 1 << 16)
#define SCALE_BLOCK_CHANNELS CT_NORM_BLOCK_CHANNELS

static inline int64_t
at_least_one (int64_t n)
{
  return n > 0 ? n : 1;
}

typedef struct {
  int64_t outer, dim, inner;
  const float *top_diff, *bottom_data, *scale, *bias;
  int accumulate;
  float *scale_diff, *bias_diff, *out;
} ScaleBias;

void
ct_cpu_scale_bias_row (int64_t n, const float *x, float s, const float *b, float *y)
{
  if (b != NULL)
    {
      float bias = *b;

      for (int64_t i = 0; i < n; i++)
        y[i] = x[i] * s + bias;
    }
  else
    for (int64_t i = 0; i < n; i++)
      y[i] = x[i] * s;
}

/* Rows [BEGIN, END) of OUTER * DIM rows of INNER: out = x * s (+ b). */
static void
scale_bias_forward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const ScaleBias *a = data;
  const int64_t dim = a->dim, inner = a->inner;

  for (int64_t r = begin; r < end; r++)
    ct_cpu_scale_bias_row (inner, a->bottom_data + r * inner, a->scale[r % dim],
                           a->bias != NULL ? a->bias + r % dim : NULL, a->out + r * inner);
}

CtStatus
ct_cpu_scale_bias_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                           const float *scale, const float *bias, float *top)
{
  ScaleBias a = { outer, dim, inner, NULL, bottom, scale, bias, 0, NULL, NULL, top };
  CtStatus status;

  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  if (inner < N_LANES)
    {
      /* Rows too short for a pool's chunk: the plain kernels. */
      status = ct_cpu_scale_forward (outer, dim, inner, bottom, scale, top);
      if (status != CT_STATUS_OK || bias == NULL)
        return status;
      return ct_cpu_bias_forward (outer, dim, inner, top, bias, top);
    }
  ct_cpu_parallel_for (outer * dim, at_least_one (CT_PARALLEL_ELEMENT_GRAIN / inner),
                       scale_bias_forward_range, &a);
  return CT_STATUS_OK;
}

/* Channels [D0, D0 + ND) of ct_cpu_scale_bias_backward (ND <=
 * SCALE_BLOCK_CHANNELS), rows in memory order. */
static void
scale_bias_backward_block (const ScaleBias *a, int64_t d0, int64_t nd)
{
  const int64_t outer = a->outer, dim = a->dim, inner = a->inner;
  float bias_total[SCALE_BLOCK_CHANNELS] = { 0 }, scale_total[SCALE_BLOCK_CHANNELS] = { 0 };

  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < nd; k++)
      {
        int64_t at = (o * dim + d0 + k) * inner;

        if (a->bias_diff != NULL && a->scale_diff != NULL)
          {
            float sum, dot;

            sum_and_dot_row (inner, a->top_diff + at, a->bottom_data + at, &sum, &dot);
            bias_total[k] += sum;
            scale_total[k] += dot;
          }
        else if (a->bias_diff != NULL)
          bias_total[k] += sum_row (inner, a->top_diff + at);
        else if (a->scale_diff != NULL)
          scale_total[k] += dot_row (inner, a->top_diff + at, a->bottom_data + at);
      }
  for (int64_t k = 0; k < nd; k++)
    {
      if (a->bias_diff != NULL)
        a->bias_diff[d0 + k] += bias_total[k];
      if (a->scale_diff != NULL)
        a->scale_diff[d0 + k] = (a->accumulate ? a->scale_diff[d0 + k] : 0.0f) + scale_total[k];
    }
  if (a->out == NULL)
    return;
  /* The block's diff is in the cache now; BOTTOM_DIFF may be TOP_DIFF. */
  for (int64_t o = 0; o < outer; o++)
    for (int64_t d = d0; d < d0 + nd; d++)
      {
        int64_t at = (o * dim + d) * inner;
        const float *g = a->top_diff + at;
        float *dx = a->out + at;
        float s = a->scale[d];

        for (int64_t i = 0; i < inner; i++)
          dx[i] = g[i] * s;
      }
}

void
ct_cpu_scale_bias_backward_channels (int64_t outer, int64_t dim, int64_t inner,
                                     const float *top_diff, const float *bottom_data,
                                     const float *scale, int accumulate, float *scale_diff,
                                     float *bias_diff, float *bottom_diff, int64_t d0,
                                     int64_t nd)
{
  ScaleBias a = { outer, dim, inner, top_diff, bottom_data, scale, NULL, accumulate,
                  scale_diff, bias_diff, bottom_diff };

  scale_bias_backward_block (&a, d0, nd);
}

static void
scale_bias_backward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const ScaleBias *a = data;
  int64_t length = a->outer * a->inner;
  int64_t step = at_least_one (SCALE_BLOCK_FLOATS / at_least_one (length));

  if (step > SCALE_BLOCK_CHANNELS)
    step = SCALE_BLOCK_CHANNELS;
  for (int64_t d = begin; d < end; d += step)
    scale_bias_backward_block (a, d, end - d < step ? end - d : step);
}

CtStatus
ct_cpu_scale_bias_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                            const float *bottom_data, const float *scale, int accumulate,
                            float *scale_diff, float *bias_diff, float *bottom_diff)
{
  ScaleBias a = { outer, dim, inner, top_diff, bottom_data, scale, NULL, accumulate,
                  scale_diff, bias_diff, bottom_diff };
  int64_t length;
  CtStatus status = CT_STATUS_OK;

  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  if (inner < N_LANES)
    {
      /* Channels as columns: the plain kernels, in the order the sums
       * need (BOTTOM_DIFF may be TOP_DIFF). */
      if (bias_diff != NULL)
        status = ct_cpu_bias_backward (outer, dim, inner, top_diff, 1, bias_diff);
      if (status == CT_STATUS_OK && scale_diff != NULL)
        status = ct_cpu_scale_backward (outer, dim, inner, top_diff, bottom_data, accumulate,
                                        scale_diff);
      if (status == CT_STATUS_OK && bottom_diff != NULL)
        status = ct_cpu_scale_forward (outer, dim, inner, top_diff, scale, bottom_diff);
      return status;
    }
  length = outer * inner;
  ct_cpu_parallel_for (dim, at_least_one (CT_PARALLEL_ELEMENT_GRAIN / at_least_one (length)),
                       scale_bias_backward_range, &a);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_gather_rows (int64_t n, int64_t row, const int64_t *indices, const float *src, float *dst)
{
  if (!valid_counts (n, row, 0))
    return CT_STATUS_INVALID;
  if (row == 0)
    return CT_STATUS_OK;
  for (int64_t i = 0; i < n; i++)
    memcpy (dst + i * row, src + indices[i] * row, (size_t) row * sizeof (float));
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_scatter_add_rows (int64_t n, int64_t row, const int64_t *indices, const float *src,
                         float *dst)
{
  if (!valid_counts (n, row, 0))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      const float *from = src + i * row;
      float *to = dst + indices[i] * row;

      for (int64_t j = 0; j < row; j++)
        to[j] += from[j];
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_float_indices (int64_t n, const float *values, int64_t limit, int whole,
                      int64_t *out, int64_t *bad)
{
  if (!valid_counts (n, limit, 0))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float v = values[i];

      /* Written so that NaN fails too. */
      if (!(v >= 0.0f && (double) v < (double) limit) || (whole && v != floorf (v)))
        {
          if (bad != NULL)
            *bad = i;
          return CT_STATUS_INVALID;
        }
      out[i] = (int64_t) v;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_filter_select (int64_t n, const float *selector, int64_t *indices, int64_t *n_selected)
{
  int64_t count = 0;

  if (!valid_count (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    if (selector[i] != 0.0f)
      indices[count++] = i;
  *n_selected = count;
  return CT_STATUS_OK;
}

/* Whether (V, J) ranks before (W, K): larger value first, then the larger
 * index, the order of Caffe's descending sort of (value, index) pairs. */
static inline int
ranks_before (float v, int64_t j, float w, int64_t k)
{
  return v > w || (!(w > v) && j > k);
}

CtStatus
ct_cpu_argmax (int64_t num, int64_t dim, int64_t axis_dist, int64_t top_k,
               int has_axis, int out_max_val, const float *bottom, float *top,
               float *scratch_val, int64_t *scratch_idx)
{
  if (!valid_counts (num, dim, top_k) || axis_dist < 1 || top_k < 1 || top_k > dim)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      int64_t base = (i / axis_dist) * dim * axis_dist + i % axis_dist;
      int64_t filled = 0;

      /* Keep the best TOP_K seen so far, sorted; insert by shifting. */
      for (int64_t j = 0; j < dim; j++)
        {
          float v = bottom[base + j * axis_dist];
          int64_t at;

          if (filled == top_k && !ranks_before (v, j, scratch_val[top_k - 1],
                                                scratch_idx[top_k - 1]))
            continue;
          at = filled < top_k ? filled++ : top_k - 1;
          while (at > 0 && ranks_before (v, j, scratch_val[at - 1], scratch_idx[at - 1]))
            {
              scratch_val[at] = scratch_val[at - 1];
              scratch_idx[at] = scratch_idx[at - 1];
              at--;
            }
          scratch_val[at] = v;
          scratch_idx[at] = j;
        }

      for (int64_t k = 0; k < top_k; k++)
        {
          if (has_axis)
            {
              int64_t out = (i / axis_dist) * top_k * axis_dist + i % axis_dist + k * axis_dist;
              top[out] = out_max_val ? scratch_val[k] : (float) scratch_idx[k];
            }
          else if (out_max_val)
            {
              top[2 * i * top_k + k] = (float) scratch_idx[k];
              top[2 * i * top_k + top_k + k] = scratch_val[k];
            }
          else
            top[i * top_k + k] = (float) scratch_idx[k];
        }
    }
  return CT_STATUS_OK;
}
