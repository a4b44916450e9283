/* cuda/stub-neuron.c: the kernels of neuron.h for builds without CUDA.
 *
 * Each answers CT_STATUS_NO_DEVICE, so that the engine needs no #ifdef: a
 * layer asked to run on the GPU reports "no GPU" (cuda/neuron.cu replaces
 * this file when meson builds with CUDA). */
#include "neuron.h"

CtStatus
ct_cuda_relu_forward (int64_t n, float negative_slope, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_relu_backward (int64_t n, float negative_slope, const float *x,
                       const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_prelu_forward (int64_t outer, int64_t channels, int64_t inner,
                       const float *slope, int channel_shared,
                       const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_prelu_backward (int64_t outer, int64_t channels, int64_t inner,
                        const float *slope, int channel_shared,
                        const float *x, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_prelu_slope_backward (int64_t outer, int64_t channels, int64_t inner,
                              int channel_shared, const float *x, const float *dy,
                              float *slope_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_elu_forward (int64_t n, float alpha, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_elu_backward (int64_t n, float alpha, const float *x, const float *y,
                      const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_sigmoid_forward (int64_t n, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_sigmoid_backward (int64_t n, const float *y, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_tanh_forward (int64_t n, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_tanh_backward (int64_t n, const float *y, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_absval_forward (int64_t n, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_absval_backward (int64_t n, const float *x, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_power_forward (int64_t n, float power, float scale, float shift,
                       const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_power_backward (int64_t n, float power, float scale, float shift,
                        const float *x, const float *y, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_exp_forward (int64_t n, float inner_scale, float outer_scale,
                     const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_exp_backward (int64_t n, float inner_scale, const float *y,
                      const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_log_forward (int64_t n, float scale, float shift, float base_scale,
                     const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_log_backward (int64_t n, float scale, float shift, float backward_scale,
                      const float *x, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_bnll_forward (int64_t n, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_bnll_backward (int64_t n, const float *x, const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_threshold_forward (int64_t n, float threshold, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_dropout_forward (int64_t n, float scale, const float *mask,
                         const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_dropout_backward (int64_t n, float scale, const float *mask,
                          const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_swish_forward (int64_t n, float beta, const float *x, float *sig, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_swish_backward (int64_t n, float beta, const float *y, const float *sig,
                        const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_clip_forward (int64_t n, float min, float max, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_clip_backward (int64_t n, float min, float max, const float *x,
                       const float *dy, float *dx)
{
  return CT_STATUS_NO_DEVICE;
}
