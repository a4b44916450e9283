/* cuda/stub.c: every ct_cuda_* function for builds without CUDA.
 *
 * Each answers CT_STATUS_NO_DEVICE, so the engine needs no #ifdef: it asks
 * at run time and reports "no GPU" as an error. The real implementations
 * (the .cu files in cuda/) replace this file when meson builds with CUDA. */
#include <stddef.h>

#include "blas.h"
#include "conv.h"
#include "device.h"

CtStatus
ct_cuda_device_count (int *count)
{
  *count = 0;
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_available (void)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_malloc (void **ptr, size_t size)
{
  *ptr = NULL;
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_free (void *ptr)
{
  /* Nothing can have been allocated; freeing NULL is fine everywhere. */
  return ptr == NULL ? CT_STATUS_OK : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_memcpy (void *dst, const void *src, size_t size, CtMemcpyKind kind)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_memset (void *ptr, int value, size_t size)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_set_device (int device)
{
  return CT_STATUS_NO_DEVICE;
}

int
ct_cuda_get_device (void)
{
  return 0;
}

CtStatus
ct_cuda_synchronize (void)
{
  return CT_STATUS_NO_DEVICE;
}

const char *
ct_cuda_last_error (void)
{
  return "Cortado was built without CUDA";
}

CtStatus
ct_cuda_device_info (int device, CtCudaDeviceInfo *info)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_gemm (CtTranspose trans_a, CtTranspose trans_b,
              int64_t m, int64_t n, int64_t k,
              float alpha, const float *a, const float *b,
              float beta, float *c)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_gemv (CtTranspose trans_a, int64_t m, int64_t n,
              float alpha, const float *a, const float *x,
              float beta, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_axpy (int64_t n, float alpha, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_axpby (int64_t n, float alpha, const float *x, float beta, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scal (int64_t n, float alpha, float *x)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_dot (int64_t n, const float *x, const float *y, float *out)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_strided_dot (int64_t n, const float *x, int64_t incx,
                     const float *y, int64_t incy, float *out)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_asum (int64_t n, const float *x, float *out)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_copy (int64_t n, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_set (int64_t n, float alpha, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scale (int64_t n, float alpha, const float *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_add (int64_t n, const float *a, const float *b, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_sub (int64_t n, const float *a, const float *b, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_mul (int64_t n, const float *a, const float *b, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_div (int64_t n, const float *a, const float *b, float *y)
{
  return CT_STATUS_NO_DEVICE;
}

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
