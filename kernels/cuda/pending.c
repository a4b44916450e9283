/* cuda/pending.c: the CUDA kernels not written yet, answering
 * CT_STATUS_NO_DEVICE so that a CUDA build links; the engine then runs
 * those layers on the CPU. Each function leaves this file when its .cu
 * twin lands. */
#include <stddef.h>

#include "conv.h"

size_t
ct_cuda_conv_workspace_floats (const CtConvShape *s)
{
  return 0;
}

CtStatus
ct_cuda_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                      const float *bias, float *output, float *workspace)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_conv_backward (const CtConvShape *s, const float *input, const float *output_diff,
                       const float *weights, float *weight_diff, float *bias_diff,
                       float *input_diff, float *workspace)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_conv_bias_forward (int64_t num, int64_t channels, int64_t spatial, const float *bias,
                           float *data)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_conv_bias_backward (int64_t num, int64_t channels, int64_t spatial, const float *diff,
                            float *bias_diff)
{
  return CT_STATUS_NO_DEVICE;
}
