/* cuda/stub-normalization.c: the ct_cuda_ twins of normalization.h for builds without
 * CUDA, each answering CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include <stddef.h>

#include "normalization.h"

CtStatus
ct_cuda_channel_mean (int64_t outer, int64_t channels, int64_t inner, const float *x,
                      float *mean)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_channel_center (int64_t outer, int64_t channels, int64_t inner, const float *x,
                        const float *mean, float *y, float *variance)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_channel_divide (int64_t outer, int64_t channels, int64_t inner, const float *x,
                        const float *divisor, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                    const float *y, const float *dy, const float *s, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_batch_norm_std (int64_t n, float eps, const float *variance, float *std)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_mvn_std (int64_t n, float eps, const float *variance, float *std)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_batch_norm_forward (int64_t outer, int64_t channels, int64_t inner, int batch_stats,
                            float eps, const float *x, float *mean, float *variance,
                            float *std, float *y, float *keep)
{
  return CT_STATUS_NO_DEVICE;
}
