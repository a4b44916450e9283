/* cpu/norm-chain.c: BatchNorm, Scale and ReLU in place on one blob, a
 * block of channels at a time (normalization.h).
 *
 * Each of the three layers alone is a pass over the whole blob, bound by
 * memory: on ResNet-50 the nine passes of a training iteration took a
 * fifth of it. Here a block of channels small enough for a core's cache
 * goes through all three before the next block: BatchNorm reads the
 * block from memory for its statistics, and Scale and ReLU find it in the
 * cache. Backward, the ReLU's mask, Scale's sums and BatchNorm's sums do
 * the same on the gradient. Every row goes through the layers' own row
 * and block functions (fused-private.h), and every channel's sums run
 * in the order of those kernels whatever the block, so the chain gives
 * their bits. */
#include "common.h"
#include "neuron.h"
#include "fused-private.h"
#include "normalization.h"
#include "parallel.h"
#include "streaming.h"

/* Floats of one block of one array: 128 KiB. Backward holds three
 * arrays of a block (the gradient, the output, the normalized output),
 * which a core's second-level cache keeps. */
#define CHAIN_BLOCK_FLOATS ((int64_t) 1 << 15)

typedef struct {
  int64_t outer, channels, inner;
  int batch_stats, relu;
  float eps, slope;
  const float *x, *y_in, *keep_in, *std_in, *scale, *bias, *dy;
  float *mean, *variance, *std, *y, *keep, *scale_diff, *bias_diff, *dx;
} Chain;

static inline int
valid_grid (int64_t outer, int64_t channels, int64_t inner)
{
  if (outer < 0 || channels < 0 || inner < 0)
    return 0;
  if (outer == 0 || channels == 0)
    return 1;
  return channels <= INT64_MAX / inner && outer <= INT64_MAX / (channels * inner);
}

/* Channels of one block. */
static int64_t
block_channels (const Chain *a)
{
  int64_t length = a->outer * a->inner;
  int64_t n = length > 0 ? CHAIN_BLOCK_FLOATS / length : CT_NORM_BLOCK_CHANNELS;

  return n < 1 ? 1 : n > CT_NORM_BLOCK_CHANNELS ? CT_NORM_BLOCK_CHANNELS : n;
}

/* Channels of one chunk of the pool at least: as many elements as an
 * element-wise loop's chunk. */
static int64_t
channel_grain (const Chain *a)
{
  int64_t length = a->outer * a->inner;

  return length >= CT_PARALLEL_ELEMENT_GRAIN ? 1
         : CT_PARALLEL_ELEMENT_GRAIN / (length > 0 ? length : 1);
}

static void
forward_block (const Chain *a, int64_t c0, int64_t nc)
{
  ct_cpu_batch_norm_forward_channels (a->outer, a->channels, a->inner, a->batch_stats, a->eps,
                                      a->x, a->mean, a->variance, a->std, a->y, a->keep, c0,
                                      nc);
  for (int64_t o = 0; o < a->outer; o++)
    for (int64_t c = c0; c < c0 + nc; c++)
      {
        float *row = a->y + (o * a->channels + c) * a->inner;

        ct_cpu_scale_bias_row (a->inner, row, a->scale[c], a->bias != NULL ? a->bias + c : NULL,
                               row);
        if (a->relu)
          ct_cpu_relu_forward_run (a->inner, a->slope, row, row);
      }
}

static void
forward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Chain *a = data;
  int64_t step = block_channels (a);

  for (int64_t c = begin; c < end; c += step)
    forward_block (a, c, end - c < step ? end - c : step);
  if (a->keep != NULL)
    ct_stream_fence ();
}

CtStatus
ct_cpu_norm_chain_forward (int64_t outer, int64_t channels, int64_t inner, int batch_stats,
                           float eps, const float *x, float *mean, float *variance, float *std,
                           float *y, float *keep, const float *scale, const float *bias,
                           int relu, float negative_slope)
{
  Chain a = { .outer = outer, .channels = channels, .inner = inner,
              .batch_stats = batch_stats, .relu = relu, .eps = eps, .slope = negative_slope,
              .x = x, .scale = scale, .bias = bias, .mean = mean, .variance = variance,
              .std = std, .y = y, .keep = keep };
  CtStatus status;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (inner < CT_NORM_CHAIN_MIN_INNER)
    {
      /* Scale sums short rows another way: the three kernels in turn */
      status = ct_cpu_batch_norm_forward (outer, channels, inner, batch_stats, eps, x, mean,
                                          variance, std, y, keep);
      if (status == CT_STATUS_OK)
        status = ct_cpu_scale_bias_forward (outer, channels, inner, y, scale, bias, y);
      if (status == CT_STATUS_OK && relu)
        status = ct_cpu_relu_forward (outer * channels * inner, negative_slope, y, y);
      return status;
    }
  /* an empty batch still writes its statistics, as BatchNorm's kernel */
  if (channels > 0)
    ct_cpu_parallel_for (channels, channel_grain (&a), forward_range, &a);
  return CT_STATUS_OK;
}

/* The ReLU's gradient on the block's rows, in place in DX (first from
 * DY), then Scale's sums and gradient in place, then BatchNorm's. */
static void
backward_block (const Chain *a, int64_t c0, int64_t nc)
{
  const float *dy = a->dy;

  if (a->relu)
    {
      for (int64_t o = 0; o < a->outer; o++)
        {
          int64_t at = (o * a->channels + c0) * a->inner;

          ct_cpu_relu_backward_run (nc * a->inner, a->slope, a->y_in + at, a->dy + at,
                                    a->dx + at);
        }
      dy = a->dx;
    }
  ct_cpu_scale_bias_backward_channels (a->outer, a->channels, a->inner, dy, a->keep_in,
                                       a->scale, 1, a->scale_diff, a->bias_diff, a->dx, c0,
                                       nc);
  ct_cpu_channel_normalize_backward_channels (a->outer, a->channels, a->inner, a->keep_in,
                                              a->dx, a->std_in, a->dx, c0, nc);
}

static void
backward_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Chain *a = data;
  int64_t step = block_channels (a);

  for (int64_t c = begin; c < end; c += step)
    backward_block (a, c, end - c < step ? end - c : step);
}

CtStatus
ct_cpu_norm_chain_backward (int64_t outer, int64_t channels, int64_t inner, int relu,
                            float negative_slope, const float *y, const float *keep,
                            const float *std, const float *scale, const float *dy,
                            float *scale_diff, float *bias_diff, float *dx)
{
  Chain a = { .outer = outer, .channels = channels, .inner = inner, .relu = relu,
              .slope = negative_slope, .y_in = y, .keep_in = keep, .std_in = std,
              .scale = scale, .dy = dy, .scale_diff = scale_diff, .bias_diff = bias_diff,
              .dx = dx };

  CtStatus status = CT_STATUS_OK;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (inner < CT_NORM_CHAIN_MIN_INNER)
    {
      if (relu)
        {
          status = ct_cpu_relu_backward (outer * channels * inner, negative_slope, y, dy, dx);
          dy = dx;
        }
      if (status == CT_STATUS_OK)
        status = ct_cpu_scale_bias_backward (outer, channels, inner, dy, keep, scale, 1,
                                             scale_diff, bias_diff, dx);
      if (status == CT_STATUS_OK)
        status = ct_cpu_channel_normalize_backward (outer, channels, inner, keep, dx, std, dx);
      return status;
    }
  if (channels > 0)
    ct_cpu_parallel_for (channels, channel_grain (&a), backward_range, &a);
  return CT_STATUS_OK;
}
