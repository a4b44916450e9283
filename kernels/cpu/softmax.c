/* cpu/softmax.c: the CPU side of softmax.h.
 *
 * Each outer slice is CHANNELS rows of INNER contiguous floats, so the loops
 * run over rows with the contiguous INNER positions innermost, where the
 * compiler vectorises them. The reductions (max, sum, dot) go channel by
 * channel in order, as Caffe's loops and BLAS calls do. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "softmax.h"

static inline int
valid_counts (int64_t outer, int64_t channels, int64_t inner)
{
  return outer >= 0 && channels >= 0 && inner >= 0
         && (channels == 0 || inner <= INT64_MAX / channels)
         && (channels * inner == 0 || outer <= INT64_MAX / (channels * inner));
}

CtStatus
ct_cpu_softmax_forward (int64_t outer, int64_t channels, int64_t inner,
                        const float *bottom, float *top, float *scratch)
{
  const int64_t dim = channels * inner;

  if (!valid_counts (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (channels == 0 || inner == 0)
    return CT_STATUS_OK;

  for (int64_t i = 0; i < outer; i++)
    {
      const float *x = bottom + i * dim;
      float *y = top + i * dim;
      float *m = scratch;

      /* The largest score of each position. */
      memcpy (m, x, (size_t) inner * sizeof (float));
      for (int64_t c = 1; c < channels; c++)
        {
          const float *row = x + c * inner;
          for (int64_t k = 0; k < inner; k++)
            m[k] = row[k] > m[k] ? row[k] : m[k];
        }
      /* exp (x - max); TOP may be BOTTOM, so each element is read first. */
      for (int64_t c = 0; c < channels; c++)
        {
          const float *row = x + c * inner;
          float *out = y + c * inner;
          for (int64_t k = 0; k < inner; k++)
            out[k] = expf (row[k] - m[k]);
        }
      /* The sums, reusing the scratch that held the maxima. */
      memcpy (m, y, (size_t) inner * sizeof (float));
      for (int64_t c = 1; c < channels; c++)
        {
          const float *row = y + c * inner;
          for (int64_t k = 0; k < inner; k++)
            m[k] += row[k];
        }
      for (int64_t c = 0; c < channels; c++)
        {
          float *out = y + c * inner;
          for (int64_t k = 0; k < inner; k++)
            out[k] /= m[k];
        }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_softmax_backward (int64_t outer, int64_t channels, int64_t inner,
                         const float *top_data, const float *top_diff,
                         float *bottom_diff, float *scratch)
{
  const int64_t dim = channels * inner;

  if (!valid_counts (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (channels == 0 || inner == 0)
    return CT_STATUS_OK;

  for (int64_t i = 0; i < outer; i++)
    {
      const float *y = top_data + i * dim;
      const float *dy = top_diff + i * dim;
      float *dx = bottom_diff + i * dim;
      float *dot = scratch;

      /* dot[k] = sum over channels of dy * y at position k. */
      for (int64_t k = 0; k < inner; k++)
        dot[k] = 0.0f;
      for (int64_t c = 0; c < channels; c++)
        {
          const float *yr = y + c * inner;
          const float *dyr = dy + c * inner;
          for (int64_t k = 0; k < inner; k++)
            dot[k] += dyr[k] * yr[k];
        }
      for (int64_t c = 0; c < channels; c++)
        {
          const float *yr = y + c * inner;
          const float *dyr = dy + c * inner;
          float *dxr = dx + c * inner;
          for (int64_t k = 0; k < inner; k++)
            dxr[k] = (dyr[k] - dot[k]) * yr[k];
        }
    }
  return CT_STATUS_OK;
}
