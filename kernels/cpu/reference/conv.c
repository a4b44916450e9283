/* cpu/reference/conv.c: 2-D convolutions (groups, padding, stride,
 * dilation) from the definition, each output and each gradient one double
 * sum (reference.h). Slow and obvious on purpose. */
#include <stdlib.h>

#include "reference.h"

/* Where output (Y, X) reads kernel offset (KH, KW) of its input plane, or
 * -1 in the padding. */
static int64_t
input_at (const CtConvShape *s, int64_t y, int64_t x, int64_t kh, int64_t kw)
{
  int64_t h = y * s->stride[0] - s->pad[0] + kh * s->dilation[0];
  int64_t w = x * s->stride[1] - s->pad[1] + kw * s->dilation[1];

  if (h < 0 || h >= s->in_dims[0] || w < 0 || w >= s->in_dims[1])
    return -1;
  return h * s->in_dims[1] + w;
}

void
ct_ref_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                     const float *bias, float *output)
{
  const int64_t cin = s->in_channels / s->group, cout = s->out_channels / s->group;
  const int64_t in_plane = s->in_dims[0] * s->in_dims[1];
  const int64_t out_plane = s->out_dims[0] * s->out_dims[1];
  const int64_t kh_n = s->kernel[0], kw_n = s->kernel[1];

  for (int64_t n = 0; n < s->num; n++)
    for (int64_t o = 0; o < s->out_channels; o++)
      for (int64_t y = 0; y < s->out_dims[0]; y++)
        for (int64_t x = 0; x < s->out_dims[1]; x++)
          {
            const int64_t g = o / cout;
            double sum = bias != NULL ? (double) bias[o] : 0.0;

            for (int64_t c = 0; c < cin; c++)
              for (int64_t kh = 0; kh < kh_n; kh++)
                for (int64_t kw = 0; kw < kw_n; kw++)
                  {
                    int64_t at = input_at (s, y, x, kh, kw);

                    if (at >= 0)
                      sum += (double) weights[((o * cin + c) * kh_n + kh) * kw_n + kw]
                             * input[(n * s->in_channels + g * cin + c) * in_plane + at];
                  }
            output[(n * s->out_channels + o) * out_plane + y * s->out_dims[1] + x] = (float) sum;
          }
}

void
ct_ref_conv_backward (const CtConvShape *s, const float *input, const float *output_diff,
                      const float *weights, float *weight_diff, float *bias_diff,
                      float *input_diff)
{
  const int64_t cin = s->in_channels / s->group, cout = s->out_channels / s->group;
  const int64_t in_plane = s->in_dims[0] * s->in_dims[1];
  const int64_t out_plane = s->out_dims[0] * s->out_dims[1];
  const int64_t kh_n = s->kernel[0], kw_n = s->kernel[1];
  const int64_t in_count = s->num * s->in_channels * in_plane;
  double *acc = NULL;

  /* The weight gradient: for each weight, a sum over images and outputs. */
  for (int64_t o = 0; o < s->out_channels; o++)
    {
      const int64_t g = o / cout;
      double bsum = 0.0;

      for (int64_t n = 0; n < s->num; n++)
        for (int64_t i = 0; i < out_plane; i++)
          bsum += output_diff[(n * s->out_channels + o) * out_plane + i];
      if (bias_diff != NULL)
        bias_diff[o] = (float) bsum;
      for (int64_t c = 0; weight_diff != NULL && c < cin; c++)
        for (int64_t kh = 0; kh < kh_n; kh++)
          for (int64_t kw = 0; kw < kw_n; kw++)
            {
              double sum = 0.0;

              for (int64_t n = 0; n < s->num; n++)
                for (int64_t y = 0; y < s->out_dims[0]; y++)
                  for (int64_t x = 0; x < s->out_dims[1]; x++)
                    {
                      int64_t at = input_at (s, y, x, kh, kw);

                      if (at >= 0)
                        sum += (double) output_diff[(n * s->out_channels + o) * out_plane
                                                    + y * s->out_dims[1] + x]
                               * input[(n * s->in_channels + g * cin + c) * in_plane + at];
                    }
              weight_diff[((o * cin + c) * kh_n + kh) * kw_n + kw] = (float) sum;
            }
    }
  if (input_diff == NULL)
    return;

  /* The input gradient: every output scatters its diff through its
   * window, into double sums. No allocation is promised here; the tests
   * call this with small shapes, and a double buffer keeps it one sum. */
  acc = calloc ((size_t) in_count, sizeof (double));
  if (acc == NULL)
    return;
  for (int64_t n = 0; n < s->num; n++)
    for (int64_t o = 0; o < s->out_channels; o++)
      for (int64_t y = 0; y < s->out_dims[0]; y++)
        for (int64_t x = 0; x < s->out_dims[1]; x++)
          {
            const int64_t g = o / cout;
            const double d = output_diff[(n * s->out_channels + o) * out_plane
                                         + y * s->out_dims[1] + x];

            for (int64_t c = 0; c < cin; c++)
              for (int64_t kh = 0; kh < kh_n; kh++)
                for (int64_t kw = 0; kw < kw_n; kw++)
                  {
                    int64_t at = input_at (s, y, x, kh, kw);

                    if (at >= 0)
                      acc[(n * s->in_channels + g * cin + c) * in_plane + at]
                        += d * weights[((o * cin + c) * kh_n + kh) * kw_n + kw];
                  }
          }
  for (int64_t i = 0; i < in_count; i++)
    input_diff[i] = (float) acc[i];
  free (acc);
}
