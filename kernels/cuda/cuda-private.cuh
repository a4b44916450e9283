/* cuda-private.cuh: what every .cu file of kernels/cuda/ shares: turning
 * CUDA and cuBLAS errors into CtStatus, the thread's device and cuBLAS
 * handle, and the launch geometry of element-wise kernels.
 *
 * Every public ct_cuda_* entry point starts with CT_CUDA_ENTER (), which
 * makes the calling thread use the device the process chose
 * (ct_cuda_set_device) and fails cleanly when there is none, and ends a
 * kernel launch with ct_cuda_launch_status (), which reports a launch that
 * failed without waiting for the kernel to finish. */
#pragma once

#include <cstdint>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "status.h"

/* Threads per block of the element-wise kernels, and a grid that covers N
 * elements with grid-stride loops (capped: each thread takes several). */
#define CT_CUDA_THREADS 256

static inline unsigned int
ct_cuda_blocks (int64_t n)
{
  int64_t blocks = (n + CT_CUDA_THREADS - 1) / CT_CUDA_THREADS;

  if (blocks < 1)
    blocks = 1;
  return (unsigned int) (blocks > 65535 * 8 ? 65535 * 8 : blocks);
}

/* for (i = first index of this thread; i < n; i += grid size) */
#define CT_CUDA_LOOP(i, n)                                                          \
  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t) (n); \
       i += (int64_t) blockDim.x * gridDim.x)

/* The status for a CUDA runtime error, remembered for ct_cuda_last_error. */
CtStatus ct_cuda_status (cudaError_t error);
CtStatus ct_cuda_blas_status (cublasStatus_t status);
/* Remember MESSAGE (static storage) for ct_cuda_last_error and return
 * STATUS. */
CtStatus ct_cuda_fail (CtStatus status, const char *message);

/* Makes this thread use the chosen device; CT_STATUS_OK or why not. */
CtStatus ct_cuda_enter (void);

/* This thread's cuBLAS handle on the chosen device (NULL: see the status
 * ct_cuda_enter gives). */
cublasHandle_t ct_cuda_blas_handle (void);

/* The status of the launch just made (cudaGetLastError, no waiting). */
static inline CtStatus
ct_cuda_launch_status (void)
{
  cudaError_t error = cudaGetLastError ();

  return error == cudaSuccess ? CT_STATUS_OK : ct_cuda_status (error);
}

#define CT_CUDA_ENTER()                        \
  do {                                         \
    CtStatus ct_enter_status_ = ct_cuda_enter (); \
    if (ct_enter_status_ != CT_STATUS_OK)      \
      return ct_enter_status_;                 \
  } while (0)

/* Returns the status of a CUDA runtime call when it failed. */
#define CT_CUDA_TRY(call)                        \
  do {                                           \
    cudaError_t ct_try_error_ = (call);          \
    if (ct_try_error_ != cudaSuccess)            \
      return ct_cuda_status (ct_try_error_);     \
  } while (0)

#define CT_CUBLAS_TRY(call)                          \
  do {                                               \
    cublasStatus_t ct_try_status_ = (call);          \
    if (ct_try_status_ != CUBLAS_STATUS_SUCCESS)     \
      return ct_cuda_blas_status (ct_try_status_);   \
  } while (0)

/* A negative count is CT_STATUS_INVALID, as on the CPU; 0 does nothing. */
#define CT_CUDA_CHECK_COUNT(n)        \
  do {                                \
    if ((n) < 0)                      \
      return CT_STATUS_INVALID;       \
  } while (0)
