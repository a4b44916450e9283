/* cuda/stub-crop.c: the ct_cuda_ twins of crop.h for builds without
 * CUDA, each answering CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include <stddef.h>

#include "crop.h"

CtStatus
ct_cuda_crop_forward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                      const int64_t *offsets, const float *big, float *small)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_crop_backward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                       const int64_t *offsets, const float *small, float *big)
{
  return CT_STATUS_NO_DEVICE;
}
