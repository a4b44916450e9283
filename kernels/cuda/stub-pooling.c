/* cuda/stub-pooling.c: the kernels of pooling.h for builds without CUDA.
 *
 * Each answers CT_STATUS_NO_DEVICE, so that the engine needs no #ifdef: a
 * layer asked to run on the GPU reports "no GPU" (cuda/pooling.cu replaces
 * this file when meson builds with CUDA). */
#include "pooling.h"

CtStatus
ct_cuda_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                          int32_t *mask, float *top_mask)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                           const int32_t *mask, const float *top_mask,
                           float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                           float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_stochastic_pool_forward_train (const CtPoolGeometry *g, const float *bottom,
                                       const float *uniform, float *top,
                                       int32_t *index)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_stochastic_pool_backward_train (const CtPoolGeometry *g, const float *top_diff,
                                        const int32_t *index, float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_stochastic_pool_forward_test (const CtPoolGeometry *g, const float *bottom,
                                      float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_stochastic_pool_backward_test (const CtPoolGeometry *g, const float *bottom,
                                       const float *top, const float *top_diff,
                                       float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}
