/* cpu/conv-sampled.c: 1x1 convolutions at a stride.
 *
 * A 1x1 kernel at stride 2 reads one input position in four. oneDNN
 * (cpu/conv-dnnl.c) reorders the whole input into its blocked layout
 * first, and ResNet-50's six such layers ran at half the speed of its
 * other convolutions. Picking the samples out first, a plane at a time,
 * reads only the sampled rows once and leaves a stride-1 1x1 convolution
 * on a quarter of the positions, which cpu/conv.c runs as a plain product
 * on planes of 14 x 14 and more, and oneDNN on smaller ones. The input
 * gradient goes the other way: the samples' gradient, spread back with
 * zeros between. The sums are the same products in another order than
 * the strided path's (conformance holds them to 1e-4). */
#include <string.h>

#include "conv-sampled.h"
#include "parallel.h"

/* Planes per chunk of the pool: a few hundred KiB of input. */
#define PLANE_GRAIN_FLOATS ((int64_t) 1 << 16)

int
ct_conv_sampled_shape (const CtConvShape *s, CtConvShape *sub)
{
  int strided = 0;

  if (s->num_spatial_axes != 2)
    return 0;
  for (int i = 0; i < 2; i++)
    {
      if (s->kernel[i] != 1 || s->pad[i] != 0 || s->stride[i] < 1 || s->out_dims[i] < 1
          || (s->out_dims[i] - 1) * s->stride[i] >= s->in_dims[i])
        return 0;
      strided |= s->stride[i] > 1;
    }
  if (!strided)
    return 0;
  *sub = *s;
  for (int i = 0; i < 2; i++)
    {
      sub->in_dims[i] = s->out_dims[i];
      sub->stride[i] = 1;
      sub->dilation[i] = 1;
    }
  return 1;
}

size_t
ct_conv_sampled_floats (const CtConvShape *s)
{
  size_t floats = (size_t) (s->num * s->in_channels * s->out_dims[0] * s->out_dims[1]);

  return (floats + 15) / 16 * 16;
}

typedef struct {
  const CtConvShape *s;
  const float *from;
  float *to;
} Job;

static int64_t
plane_grain (const CtConvShape *s)
{
  int64_t plane = s->in_dims[0] * s->in_dims[1];

  return plane >= PLANE_GRAIN_FLOATS ? 1 : PLANE_GRAIN_FLOATS / plane;
}

static void
gather_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const Job *j = data;
  const CtConvShape *s = j->s;
  const int64_t h = s->out_dims[0], w = s->out_dims[1];
  const int64_t sh = s->stride[0], sw = s->stride[1];
  const int64_t in_plane = s->in_dims[0] * s->in_dims[1];

  for (int64_t p = begin; p < end; p++)
    {
      const float *in = j->from + p * in_plane;
      float *out = j->to + p * h * w;

      for (int64_t y = 0; y < h; y++)
        {
          const float *row = in + y * sh * s->in_dims[1];

          for (int64_t x = 0; x < w; x++)
            out[y * w + x] = row[x * sw];
        }
    }
}

static void
scatter_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const Job *j = data;
  const CtConvShape *s = j->s;
  const int64_t h = s->out_dims[0], w = s->out_dims[1];
  const int64_t sh = s->stride[0], sw = s->stride[1];
  const int64_t in_h = s->in_dims[0], in_w = s->in_dims[1];

  for (int64_t p = begin; p < end; p++)
    {
      const float *in = j->from + p * h * w;
      float *out = j->to + p * in_h * in_w;

      for (int64_t y = 0; y < in_h; y++)
        {
          float *row = out + y * in_w;

          memset (row, 0, (size_t) in_w * sizeof (float));
          if (y % sh != 0 || y / sh >= h)
            continue;
          for (int64_t x = 0; x < w; x++)
            row[x * sw] = in[(y / sh) * w + x];
        }
    }
}

void
ct_conv_sampled_gather (const CtConvShape *s, const float *input, float *samples)
{
  Job j = { .s = s, .from = input, .to = samples };

  ct_cpu_parallel_for (s->num * s->in_channels, plane_grain (s), gather_planes, &j);
}

void
ct_conv_sampled_scatter (const CtConvShape *s, const float *samples_diff, float *input_diff)
{
  Job j = { .s = s, .from = samples_diff, .to = input_diff };

  ct_cpu_parallel_for (s->num * s->in_channels, plane_grain (s), scatter_planes, &j);
}
