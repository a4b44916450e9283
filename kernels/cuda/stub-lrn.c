/* cuda/stub-lrn.c: the kernels of lrn.h for builds without CUDA.
 *
 * Each answers CT_STATUS_NO_DEVICE, so that the engine needs no #ifdef: a
 * layer asked to run on the GPU reports "no GPU" (cuda/lrn.cu replaces
 * this file when meson builds with CUDA). */
#include "lrn.h"

CtStatus
ct_cuda_lrn_across_forward (int64_t num, int64_t channels, int64_t spatial,
                            int64_t size, float alpha, float beta, float k,
                            const float *bottom, float *scale, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_lrn_across_backward (int64_t num, int64_t channels, int64_t spatial,
                             int64_t size, float alpha, float beta,
                             const float *bottom, const float *top,
                             const float *scale, const float *top_diff,
                             float *scratch, float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_lrn_within_forward (int64_t planes, int64_t height, int64_t width,
                            int64_t size, float alpha, float beta,
                            const float *bottom, float *scale, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_lrn_within_backward (int64_t planes, int64_t height, int64_t width,
                             int64_t size, float alpha, float beta,
                             const float *bottom, const float *scale,
                             const float *top_diff, float *scratch,
                             float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}
