/* cpu/lrn.c: the CPU side of lrn.h.
 *
 * The arithmetic is Caffe's step by step, not just its formula: the
 * channel sum slides with one add and one subtract per channel, the
 * within-channel scale is (alpha * average) + 1, and the backward passes
 * multiply and divide in the order Caffe's layers do, so that results agree
 * with Caffe's to a few ulp, not only to a tolerance. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lrn.h"
#include "parallel.h"
#include "streaming.h"

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

/* Work items of PER_ITEM elements each go to the pool's threads in chunks
 * of at least CT_PARALLEL_ELEMENT_GRAIN elements. */
static int64_t
items_grain (int64_t per_item)
{
  if (per_item >= CT_PARALLEL_ELEMENT_GRAIN)
    return 1;
  return CT_PARALLEL_ELEMENT_GRAIN / (per_item > 0 ? per_item : 1);
}

#define MIN_LEN(rest) ((rest) < BLOCK ? (rest) : BLOCK)

/* ACROSS works on blocks of BLOCK positions of one image through all its
 * channels: the pool's threads share the (image, block) pairs, and a
 * block's rows stay in cache while the window slides over the channels.
 * Each element sees the same operations in the same order as a whole-image
 * pass, so blocking changes no result. */
#define BLOCK 256

typedef struct {
  int64_t channels, spatial, blocks, pre;
  float alpha_over_size, k, beta, cache_ratio;
  const float *bottom, *top, *scale_in, *top_diff;
  float *scale, *out;
} Across;

/* Where to compute a row for DST: LOCAL when it will be streamed out
 * (cpu/streaming.h), else DST itself. Rows that do not fill their cache
 * lines (AlexNet's 55 x 55 and 27 x 27 planes) are written in place:
 * streaming parts of lines is far slower. */
static float *
row_for (float *dst, float *local, int64_t n)
{
  return ct_stream_fits (dst, n) ? local : dst;
}

/* Sends ROW to DST, where it is not already. */
static void
row_done (float *dst, const float *row, int64_t n)
{
  if (row == dst)
    return;
  if (ct_stream_fits (dst, n))
    ct_stream_out (dst, row, n);
  else
    memcpy (dst, row, (size_t) n * sizeof (float));
}

/* A block's scale, slid channel by channel: channel 0's window sum of
 * squares, then per channel the square entering the window added and the
 * one leaving subtracted. The forward pass slides it once; a backward
 * pass given no scale slides it again, with the same operations in the
 * same order, so the same bits. */
typedef struct {
  float cur[BLOCK];
  int64_t channel; /* whose scale CUR holds */
} Slider;

/* Channel 0: the window covers channels [-pre, pre]. */
static void
slider_start (const Across *a, const float *x, int64_t len, Slider *sl)
{
  for (int64_t i = 0; i < len; i++)
    sl->cur[i] = a->k;
  for (int64_t c = 0; c <= a->pre && c < a->channels; c++)
    for (int64_t i = 0; i < len; i++)
      sl->cur[i] += a->alpha_over_size * (x[c * a->spatial + i] * x[c * a->spatial + i]);
  sl->channel = 0;
}

/* Channel C's scale (C not behind the slider). */
static const float *
slide_to (const Across *a, const float *x, int64_t len, Slider *sl, int64_t c)
{
  /* Locals: under -fno-strict-aliasing every store to CUR could change
   * *A, and the loops would reload it. */
  const int64_t spatial = a->spatial, pre = a->pre, channels = a->channels;
  const float alpha_over_size = a->alpha_over_size;
  float *restrict cur = sl->cur;

  while (sl->channel < c)
    {
      const int64_t next = ++sl->channel;

      /* Channel next + pre enters, channel next - 1 - pre leaves. */
      if (next + pre < channels)
        {
          const float *restrict in = x + (next + pre) * spatial;

          for (int64_t i = 0; i < len; i++)
            cur[i] += alpha_over_size * (in[i] * in[i]);
        }
      if (next - 1 - pre >= 0)
        {
          const float *restrict out = x + (next - 1 - pre) * spatial;

          for (int64_t i = 0; i < len; i++)
            cur[i] += -alpha_over_size * (out[i] * out[i]);
        }
    }
  return cur;
}

/* Image N, positions [I0, I0 + LEN): each channel's scale slid in a row
 * of its own; the output (and the scale, where one is kept) of each
 * channel go out with streaming stores where they fill whole cache lines:
 * ordinary stores first read every line they write. */
static void
across_forward_block (const Across *a, int64_t n, int64_t i0, int64_t len)
{
  const int64_t channels = a->channels, spatial = a->spatial;
  const int64_t base = n * channels * spatial + i0;
  const float *x = a->bottom + base;
  float out[BLOCK];
  Slider sl;

  slider_start (a, x, len, &sl);
  for (int64_t c = 0; c < channels; c++)
    {
      const float *cur = slide_to (a, x, len, &sl, c);
      float *top = a->out + base + c * spatial;
      float *row = row_for (top, out, len);

      negative_power (len, cur, a->beta, x + c * spatial, row);
      row_done (top, row, len);
      if (a->scale != NULL)
        row_done (a->scale + base + c * spatial, cur, len);
    }
}

static void
across_forward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Across *a = data;

  for (int64_t item = begin; item < end; item++)
    {
      int64_t n = item / a->blocks, i0 = (item % a->blocks) * BLOCK;

      across_forward_block (a, n, i0, MIN_LEN (a->spatial - i0));
    }
  /* The other threads read these blobs next. */
  ct_stream_fence ();
}

CtStatus
ct_cpu_lrn_across_forward (int64_t num, int64_t channels, int64_t spatial,
                           int64_t size, float alpha, float beta, float k,
                           const float *bottom, float *scale, float *top)
{
  Across a = {
    .channels = channels, .spatial = spatial, .blocks = (spatial + BLOCK - 1) / BLOCK,
    .pre = (size - 1) / 2, .alpha_over_size = alpha / (float) size, .k = k, .beta = beta,
    .bottom = bottom, .scale = scale, .out = top,
  };

  if (!valid_counts (num, channels, spatial, size))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (num * a.blocks, items_grain (channels * BLOCK), across_forward_range,
                       &a);
  return CT_STATUS_OK;
}

/* The ratios of the channels in a window, kept while they are in it: a
 * ring of this many rows at most (LRN's usual size is 5). */
#define RING_MAX 16

/* Channel C's scale row: from the kept SCALE, or slid to C. */
static const float *
scale_row (const Across *a, const float *scale, const float *x, int64_t len, Slider *sl,
           int64_t c)
{
  return scale != NULL ? scale + c * a->spatial : slide_to (a, x, len, sl, c);
}

/* The same for channel C entering the window: slid ones also go to row
 * C % (2 pre + 1) of SCALES, where the window is narrow enough to keep
 * them, for the channel's own turn. */
static const float *
head_scale (const Across *a, const float *scale, const float *x, int64_t len, Slider *sl,
            float (*scales)[BLOCK], int64_t c)
{
  const int64_t size = 2 * a->pre + 1;
  const float *row = scale_row (a, scale, x, len, sl, c);

  if (scale != NULL || size > RING_MAX)
    return row;
  memcpy (scales[c % size], row, (size_t) len * sizeof (float));
  return scales[c % size];
}

/* Channel C's ratios top_diff * top / scale, the terms the backward sums. */
static void
across_ratios (const Across *a, int64_t c, const float *td, const float *y,
               const float *scale, float *ratio, int64_t len)
{
  for (int64_t i = 0; i < len; i++)
    ratio[i] = (td[c * a->spatial + i] * y[c * a->spatial + i]) / scale[i];
}

/* Image N, positions [I0, I0 + LEN): per channel the direct term, then
 * the sum of ratios over the channel's window, slid like the forward's.
 * Each channel's ratios are computed once, when the channel enters the
 * window, and kept in a ring until it leaves (up to RING_MAX channels;
 * wider windows compute them again as they leave); each channel's bottom
 * diff goes out with streaming stores where it fills whole cache lines.
 * Without a kept scale, a slider gives the scale of the channel entering
 * the window, kept in a second ring until the channel's own turn; wider
 * windows slide two more, for the channel itself and the one leaving. */
static void
across_backward_block (const Across *a, int64_t n, int64_t i0, int64_t len)
{
  const int64_t channels = a->channels, spatial = a->spatial, pre = a->pre;
  const int64_t size = 2 * pre + 1;
  const int64_t base = n * channels * spatial + i0;
  const float *x = a->bottom + base;
  const float *td = a->top_diff + base;
  const float *y = a->top + base;
  const float *s = a->scale_in != NULL ? a->scale_in + base : NULL;
  float *bd = a->out + base;
  float accum[BLOCK], row[BLOCK], ring[RING_MAX][BLOCK], scales[RING_MAX][BLOCK];
  const int keep = size <= RING_MAX;
  Slider at_head, at_channel, at_tail;

  if (s == NULL)
    {
      slider_start (a, x, len, &at_head);
      at_channel = at_head;
      at_tail = at_head;
    }

  /* Channels [-pre, pre - 1] start the window of channel 0. */
  for (int64_t i = 0; i < len; i++)
    accum[i] = 0.0f;
  for (int64_t c = 0; c < pre && c < channels; c++)
    {
      float *ratio = ring[keep ? c % size : 0];

      across_ratios (a, c, td, y, head_scale (a, s, x, len, &at_head, scales, c), ratio, len);
      for (int64_t i = 0; i < len; i++)
        accum[i] += ratio[i];
    }

  for (int64_t c = 0; c < channels; c++)
    {
      int64_t head = c + pre, tail = c - pre;
      float *diff = row_for (bd + c * spatial, row, len);

      if (head < channels)
        {
          float *ratio = ring[keep ? head % size : 0];

          across_ratios (a, head, td, y, head_scale (a, s, x, len, &at_head, scales, head), ratio,
                         len);
          for (int64_t i = 0; i < len; i++)
            accum[i] += ratio[i];
        }
      negative_power (len, s == NULL && keep ? scales[c % size]
                                             : scale_row (a, s, x, len, &at_channel, c),
                      a->beta, td + c * spatial, diff);
      for (int64_t i = 0; i < len; i++)
        diff[i] += -a->cache_ratio * (x[c * spatial + i] * accum[i]);
      row_done (bd + c * spatial, diff, len);
      if (tail >= 0 && keep)
        for (int64_t i = 0; i < len; i++)
          accum[i] += -ring[tail % size][i];
      else if (tail >= 0)
        {
          across_ratios (a, tail, td, y, scale_row (a, s, x, len, &at_tail, tail), row, len);
          for (int64_t i = 0; i < len; i++)
            accum[i] += -row[i];
        }
    }
}

static void
across_backward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Across *a = data;

  for (int64_t item = begin; item < end; item++)
    {
      int64_t n = item / a->blocks, i0 = (item % a->blocks) * BLOCK;

      across_backward_block (a, n, i0, MIN_LEN (a->spatial - i0));
    }
  ct_stream_fence ();
}

static CtStatus
across_backward (int64_t num, int64_t channels, int64_t spatial, int64_t size, float alpha,
                 float beta, float k, const float *bottom, const float *top,
                 const float *scale, const float *top_diff, float *bottom_diff)
{
  Across a = {
    .channels = channels, .spatial = spatial, .blocks = (spatial + BLOCK - 1) / BLOCK,
    .pre = (size - 1) / 2, .alpha_over_size = alpha / (float) size, .k = k, .beta = beta,
    /* Caffe forms this constant in double, then stores it as a float. */
    .cache_ratio = (float) (2.0 * alpha * beta / (double) size),
    .bottom = bottom, .top = top, .scale_in = scale, .top_diff = top_diff, .out = bottom_diff,
  };

  if (!valid_counts (num, channels, spatial, size))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (num * a.blocks, items_grain (channels * BLOCK), across_backward_range,
                       &a);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_lrn_across_backward (int64_t num, int64_t channels, int64_t spatial,
                            int64_t size, float alpha, float beta,
                            const float *bottom, const float *top,
                            const float *scale, const float *top_diff,
                            float *scratch, float *bottom_diff)
{
  (void) scratch;
  if (scale == NULL)
    return CT_STATUS_INVALID;
  return across_backward (num, channels, spatial, size, alpha, beta, 0.0f, bottom, top, scale,
                          top_diff, bottom_diff);
}

CtStatus
ct_cpu_lrn_across_backward_again (int64_t num, int64_t channels, int64_t spatial,
                                  int64_t size, float alpha, float beta, float k,
                                  const float *bottom, const float *top,
                                  const float *top_diff, float *bottom_diff)
{
  return across_backward (num, channels, spatial, size, alpha, beta, k, bottom, top, NULL,
                          top_diff, bottom_diff);
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

typedef struct {
  int64_t height, width, size, pre;
  float alpha, beta;
  const float *bottom, *scale_in, *top_diff;
  float *scale, *out, *square_diff;
} Within;

static void
within_forward_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const Within *a = data;
  const int64_t height = a->height, width = a->width, plane = height * width;

  for (int64_t p = begin; p < end; p++)
    {
      const float *x = a->bottom + p * plane;

      for (int64_t h = 0; h < height; h++)
        for (int64_t w = 0; w < width; w++)
          {
            Window win = within_window (h, w, height, width, a->size, a->pre);
            int64_t i = p * plane + h * width + w;
            float sum = 0.0f, s;

            for (int64_t hh = win.hstart; hh < win.hend; hh++)
              for (int64_t ww = win.wstart; ww < win.wend; ww++)
                sum += x[hh * width + ww] * x[hh * width + ww];
            s = a->alpha * (sum / (float) win.pool_size) + 1.0f;
            if (a->scale != NULL)
              a->scale[i] = s;
            a->out[i] = a->bottom[i] * negative_power_one (s, a->beta);
          }
    }
}

CtStatus
ct_cpu_lrn_within_forward (int64_t planes, int64_t height, int64_t width,
                           int64_t size, float alpha, float beta,
                           const float *bottom, float *scale, float *top)
{
  Within a = {
    .height = height, .width = width, .size = size, .pre = (size - 1) / 2, .alpha = alpha,
    .beta = beta, .bottom = bottom, .scale = scale, .out = top,
  };

  if (!valid_counts (planes, height, width, size))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (planes, items_grain (height * width * size * size),
                       within_forward_planes, &a);
  return CT_STATUS_OK;
}

static void
within_backward_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const Within *a = data;
  const int64_t height = a->height, width = a->width, plane = height * width;
  const float power_scale = -a->beta * a->alpha; /* d/du (1 + alpha u)^-beta, without the power */

  for (int64_t p = begin; p < end; p++)
    {
      const float *x = a->bottom + p * plane;
      float *sd = a->square_diff + p * plane;

      memset (sd, 0, (size_t) plane * sizeof (float));
      /* Gradient reaching each window's average, spread over the window. */
      for (int64_t h = 0; h < height; h++)
        for (int64_t w = 0; w < width; w++)
          {
            Window win = within_window (h, w, height, width, a->size, a->pre);
            int64_t i = p * plane + h * width + w;
            float s = a->scale_in[i];
            float average_diff = (x[h * width + w] * a->top_diff[i])
                                 * (power_scale * (negative_power_one (s, a->beta) / s));
            float share = average_diff / (float) win.pool_size;

            for (int64_t hh = win.hstart; hh < win.hend; hh++)
              for (int64_t ww = win.wstart; ww < win.wend; ww++)
                sd[hh * width + ww] += share;
          }

      /* The direct path (x times the scale power) plus the path through x^2. */
      for (int64_t i = p * plane; i < (p + 1) * plane; i++)
        a->out[i] = negative_power_one (a->scale_in[i], a->beta) * a->top_diff[i]
                    + a->square_diff[i] * (2.0f * a->bottom[i]);
    }
}

CtStatus
ct_cpu_lrn_within_backward (int64_t planes, int64_t height, int64_t width,
                            int64_t size, float alpha, float beta,
                            const float *bottom, const float *scale,
                            const float *top_diff, float *scratch,
                            float *bottom_diff)
{
  Within a = {
    .height = height, .width = width, .size = size, .pre = (size - 1) / 2, .alpha = alpha,
    .beta = beta, .bottom = bottom, .scale_in = scale, .top_diff = top_diff,
    .out = bottom_diff, .square_diff = scratch,
  };

  if (!valid_counts (planes, height, width, size))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (planes, items_grain (height * width * size * size),
                       within_backward_planes, &a);
  return CT_STATUS_OK;
}
