/* cuda/stub-conv.c: conv.h's CUDA backend switches for builds without
 * CUDA (the convolutions' own stubs are in cuda/stub.c). */
#include "conv.h"
#include "switches.h"

CtConvBackend
ct_cuda_conv_set_backend (CtConvBackend backend)
{
  return CT_CONV_BACKEND_AUTO;
}

int
ct_cuda_conv_have_cudnn (void)
{
  return 0;
}

int
ct_cuda_conv_uses_cudnn (const CtConvShape *s)
{
  return 0;
}
