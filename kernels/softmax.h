/* softmax.h: softmax over one axis, forward and backward, as Caffe's Softmax
 * layer computes it (the loss layers that take scores use it too).
 *
 * A blob is seen as OUTER x CHANNELS x INNER: the softmax runs over the
 * CHANNELS values of each (outer, inner) position, CHANNELS apart by INNER
 * floats. For numerical stability the largest score of each position is
 * subtracted before exponentiating, as Caffe does. Counts are int64_t; a
 * negative count gives CT_STATUS_INVALID without touching memory. SCRATCH
 * holds INNER floats (kernels never allocate).
 *
 * The ct_cuda_ twins take the same arguments in device memory (SCRATCH
 * too, which they may leave unused) and give the same results to float
 * rounding: each position's maximum, sum and dot are formed in a fixed
 * order, so repeated runs agree bit for bit. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* top = softmax (bottom) along the middle dimension. TOP may be BOTTOM. */
CtStatus ct_cpu_softmax_forward (int64_t outer, int64_t channels, int64_t inner,
                                 const float *bottom, float *top, float *scratch);

/* bottom_diff = (top_diff - sum_c top_diff * top_data) * top_data, the
 * softmax's Jacobian applied to TOP_DIFF. BOTTOM_DIFF may be TOP_DIFF. */
CtStatus ct_cpu_softmax_backward (int64_t outer, int64_t channels, int64_t inner,
                                  const float *top_data, const float *top_diff,
                                  float *bottom_diff, float *scratch);

CtStatus ct_cuda_softmax_forward (int64_t outer, int64_t channels, int64_t inner,
                                  const float *bottom, float *top, float *scratch);
CtStatus ct_cuda_softmax_backward (int64_t outer, int64_t channels, int64_t inner,
                                   const float *top_data, const float *top_diff,
                                   float *bottom_diff, float *scratch);

#ifdef __cplusplus
}
#endif
