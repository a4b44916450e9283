/* blas.cu: the CUDA side of blas.h: matrix products and reductions on
 * cuBLAS, the element-wise helpers as small kernels of their own.
 *
 * Our matrices are row-major and cuBLAS's column-major: a row-major
 * C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T, so every
 * product passes B before A with the dimensions swapped. cuBLAS's 64-bit
 * entry points take our int64_t counts without narrowing. The reductions
 * (dot, asum) return their result to the host and so wait for the device. */
#include "blas.h"
#include "cuda-private.cuh"

static cublasOperation_t
to_cublas (CtTranspose trans)
{
  return trans == CT_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
}

static int
valid_transpose (CtTranspose trans)
{
  return trans == CT_NO_TRANS || trans == CT_TRANS;
}

__global__ static void
set_kernel (int64_t n, float alpha, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = alpha;
}

__global__ static void
scale_kernel (int64_t n, float alpha, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = alpha * x[i];
}

__global__ static void
axpby_kernel (int64_t n, float alpha, const float *x, float beta, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = alpha * x[i] + beta * y[i];
}

__global__ static void
add_kernel (int64_t n, const float *a, const float *b, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = a[i] + b[i];
}

__global__ static void
sub_kernel (int64_t n, const float *a, const float *b, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = a[i] - b[i];
}

__global__ static void
mul_kernel (int64_t n, const float *a, const float *b, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = a[i] * b[i];
}

__global__ static void
div_kernel (int64_t n, const float *a, const float *b, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = a[i] / b[i];
}

/* y = beta * y with BLAS semantics: beta 0 overwrites, NaNs included. */
static CtStatus
scale_in_place (int64_t n, float beta, float *y)
{
  if (beta == 1.0f || n == 0)
    return CT_STATUS_OK;
  if (beta == 0.0f)
    CT_CUDA_TRY (cudaMemsetAsync (y, 0, (size_t) n * sizeof (float)));
  else
    scale_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, beta, y, y);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_gemm (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n, int64_t k,
              float alpha, const float *a, const float *b, float beta, float *c)
{
  cublasHandle_t handle;

  if (m < 0 || n < 0 || k < 0 || !valid_transpose (trans_a) || !valid_transpose (trans_b))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (m == 0 || n == 0)
    return CT_STATUS_OK;
  if (k == 0)
    return scale_in_place (m * n, beta, c);
  if ((handle = ct_cuda_blas_handle ()) == nullptr)
    return ct_cuda_enter () != CT_STATUS_OK ? ct_cuda_enter () : CT_STATUS_DEVICE_ERROR;
  CT_CUBLAS_TRY (cublasSgemm_64 (handle, to_cublas (trans_b), to_cublas (trans_a), n, m, k,
                                 &alpha, b, trans_b == CT_NO_TRANS ? n : k,
                                 a, trans_a == CT_NO_TRANS ? k : m, &beta, c, n));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_gemv (CtTranspose trans_a, int64_t m, int64_t n, float alpha, const float *a,
              const float *x, float beta, float *y)
{
  cublasHandle_t handle;
  int64_t rows = trans_a == CT_NO_TRANS ? m : n;

  if (m < 0 || n < 0 || !valid_transpose (trans_a))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (rows == 0)
    return CT_STATUS_OK;
  if (m == 0 || n == 0)
    return scale_in_place (rows, beta, y);
  if ((handle = ct_cuda_blas_handle ()) == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  /* The row-major M x N matrix is cuBLAS's N x M one, transposed. */
  CT_CUBLAS_TRY (cublasSgemv_64 (handle, trans_a == CT_NO_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 n, m, &alpha, a, n, x, 1, &beta, y, 1));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_axpy (int64_t n, float alpha, const float *x, float *y)
{
  cublasHandle_t handle;

  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  if ((handle = ct_cuda_blas_handle ()) == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  CT_CUBLAS_TRY (cublasSaxpy_64 (handle, n, &alpha, x, 1, y, 1));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_axpby (int64_t n, float alpha, const float *x, float beta, float *y)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  axpby_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, alpha, x, beta, y);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_scal (int64_t n, float alpha, float *x)
{
  cublasHandle_t handle;

  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  if ((handle = ct_cuda_blas_handle ()) == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  CT_CUBLAS_TRY (cublasSscal_64 (handle, n, &alpha, x, 1));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_strided_dot (int64_t n, const float *x, int64_t incx, const float *y, int64_t incy,
                     float *out)
{
  cublasHandle_t handle;

  *out = 0.0f;
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  if ((handle = ct_cuda_blas_handle ()) == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  CT_CUBLAS_TRY (cublasSdot_64 (handle, n, x, incx, y, incy, out));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_dot (int64_t n, const float *x, const float *y, float *out)
{
  return ct_cuda_strided_dot (n, x, 1, y, 1, out);
}

extern "C" CtStatus
ct_cuda_asum (int64_t n, const float *x, float *out)
{
  cublasHandle_t handle;

  *out = 0.0f;
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  if ((handle = ct_cuda_blas_handle ()) == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  CT_CUBLAS_TRY (cublasSasum_64 (handle, n, x, 1, out));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_copy (int64_t n, const float *x, float *y)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0 || x == y)
    return CT_STATUS_OK;
  CT_CUDA_TRY (cudaMemcpyAsync (y, x, (size_t) n * sizeof (float), cudaMemcpyDeviceToDevice));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_set (int64_t n, float alpha, float *y)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  if (alpha == 0.0f)
    {
      CT_CUDA_TRY (cudaMemsetAsync (y, 0, (size_t) n * sizeof (float)));
      return CT_STATUS_OK;
    }
  set_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, alpha, y);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_scale (int64_t n, float alpha, const float *x, float *y)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  scale_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, alpha, x, y);
  return ct_cuda_launch_status ();
}

/* The four binary element-wise operations differ only in their kernel. */
#define CT_CUDA_BINARY(name)                                                        \
  extern "C" CtStatus ct_cuda_##name (int64_t n, const float *a, const float *b, float *y) \
  {                                                                                 \
    CT_CUDA_CHECK_COUNT (n);                                                        \
    CT_CUDA_ENTER ();                                                               \
    if (n == 0)                                                                     \
      return CT_STATUS_OK;                                                          \
    name##_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, a, b, y);            \
    return ct_cuda_launch_status ();                                                \
  }

CT_CUDA_BINARY (add)
CT_CUDA_BINARY (sub)
CT_CUDA_BINARY (mul)
CT_CUDA_BINARY (div)
