/* cuda/stub-softmax.c: softmax.h's ct_cuda_* functions for builds without
 * CUDA; each answers CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include "softmax.h"

CtStatus
ct_cuda_softmax_forward (int64_t outer, int64_t channels, int64_t inner,
                         const float *bottom, float *top, float *scratch)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_softmax_backward (int64_t outer, int64_t channels, int64_t inner,
                          const float *top_data, const float *top_diff,
                          float *bottom_diff, float *scratch)
{
  return CT_STATUS_NO_DEVICE;
}
