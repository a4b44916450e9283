/* device.cu: the device itself: which GPUs there are, which one this
 * process uses, memory and copies, the per-thread cuBLAS handle, and the
 * translation of CUDA's errors into CtStatus.
 *
 * No GPU, a missing driver or one older than the runtime all answer
 * CT_STATUS_NO_DEVICE, so the engine reports "no GPU" and the tests skip;
 * the runtime's own words stay readable through ct_cuda_last_error. */
#include <atomic>
#include <cstdio>
#include <cstring>

#include "cuda-private.cuh"
#include "device.h"

static std::atomic<int> chosen_device{0};

/* What this thread last saw fail, and the device and handle it uses. */
static thread_local const char *last_error = "";
static thread_local int thread_device = -1;
static thread_local cublasHandle_t thread_handle = nullptr;
static thread_local int thread_handle_device = -1;

CtStatus
ct_cuda_status (cudaError_t error)
{
  if (error == cudaSuccess)
    return CT_STATUS_OK;
  last_error = cudaGetErrorString (error);
  /* Clears a non-sticky error so that the next call starts afresh. */
  cudaGetLastError ();
  switch (error)
    {
    case cudaErrorMemoryAllocation:
      return CT_STATUS_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNotSupported:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      return CT_STATUS_NO_DEVICE;
    case cudaErrorInvalidValue:
      return CT_STATUS_INVALID;
    default:
      return CT_STATUS_DEVICE_ERROR;
    }
}

CtStatus
ct_cuda_fail (CtStatus status, const char *message)
{
  last_error = message;
  return status;
}

CtStatus
ct_cuda_blas_status (cublasStatus_t status)
{
  switch (status)
    {
    case CUBLAS_STATUS_SUCCESS:
      return CT_STATUS_OK;
    case CUBLAS_STATUS_ALLOC_FAILED:
      last_error = "cuBLAS could not allocate memory";
      return CT_STATUS_OUT_OF_MEMORY;
    case CUBLAS_STATUS_NOT_INITIALIZED:
      last_error = "cuBLAS could not start (no usable GPU)";
      return CT_STATUS_NO_DEVICE;
    case CUBLAS_STATUS_INVALID_VALUE:
      last_error = "cuBLAS was given an invalid value";
      return CT_STATUS_INVALID;
    default:
      last_error = "cuBLAS failed";
      return CT_STATUS_DEVICE_ERROR;
    }
}

const char *
ct_cuda_last_error (void)
{
  return last_error;
}

CtStatus
ct_cuda_enter (void)
{
  int device = chosen_device.load (std::memory_order_relaxed);

  if (thread_device == device)
    return CT_STATUS_OK;
  CT_CUDA_TRY (cudaSetDevice (device));
  thread_device = device;
  return CT_STATUS_OK;
}

cublasHandle_t
ct_cuda_blas_handle (void)
{
  if (ct_cuda_enter () != CT_STATUS_OK)
    return nullptr;
  if (thread_handle != nullptr && thread_handle_device == thread_device)
    return thread_handle;
  /* A thread that moved to another device gets a handle there; the old
   * one is left to the runtime's exit (freeing it needs its device). */
  if (ct_cuda_blas_status (cublasCreate (&thread_handle)) != CT_STATUS_OK)
    {
      thread_handle = nullptr;
      return nullptr;
    }
  /* Reductions (dot, asum) hand their result back to the host. */
  cublasSetPointerMode (thread_handle, CUBLAS_POINTER_MODE_HOST);
  thread_handle_device = thread_device;
  return thread_handle;
}

extern "C" CtStatus
ct_cuda_device_count (int *count)
{
  cudaError_t error = cudaGetDeviceCount (count);

  if (error != cudaSuccess)
    {
      *count = 0;
      return ct_cuda_status (error);
    }
  return *count > 0 ? CT_STATUS_OK : CT_STATUS_NO_DEVICE;
}

extern "C" CtStatus
ct_cuda_available (void)
{
  int count = 0;
  CtStatus status = ct_cuda_device_count (&count);

  if (status != CT_STATUS_OK)
    return status;
  if (chosen_device.load () >= count)
    {
      last_error = "invalid device ordinal";
      return CT_STATUS_NO_DEVICE;
    }
  return ct_cuda_enter ();
}

extern "C" CtStatus
ct_cuda_set_device (int device)
{
  int count = 0;
  CtStatus status = ct_cuda_device_count (&count);

  if (status != CT_STATUS_OK)
    return status;
  if (device < 0 || device >= count)
    {
      last_error = "invalid device ordinal";
      return CT_STATUS_NO_DEVICE;
    }
  chosen_device.store (device);
  return ct_cuda_enter ();
}

extern "C" int
ct_cuda_get_device (void)
{
  return chosen_device.load ();
}

extern "C" CtStatus
ct_cuda_synchronize (void)
{
  CT_CUDA_ENTER ();
  CT_CUDA_TRY (cudaDeviceSynchronize ());
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_malloc (void **ptr, size_t size)
{
  *ptr = nullptr;
  CT_CUDA_ENTER ();
  /* cudaMalloc (0) may give NULL; a zero-byte block still wants a valid
   * pointer, so ask for one byte. */
  CT_CUDA_TRY (cudaMalloc (ptr, size > 0 ? size : 1));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_free (void *ptr)
{
  if (ptr == nullptr)
    return CT_STATUS_OK;
  CT_CUDA_TRY (cudaFree (ptr));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_memcpy (void *dst, const void *src, size_t size, CtMemcpyKind kind)
{
  cudaMemcpyKind k = kind == CT_MEMCPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                     : kind == CT_MEMCPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                        : cudaMemcpyDeviceToDevice;

  if (size == 0)
    return CT_STATUS_OK;
  CT_CUDA_ENTER ();
  CT_CUDA_TRY (cudaMemcpy (dst, src, size, k));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_memset (void *ptr, int value, size_t size)
{
  if (size == 0)
    return CT_STATUS_OK;
  CT_CUDA_ENTER ();
  CT_CUDA_TRY (cudaMemset (ptr, value, size));
  return CT_STATUS_OK;
}

extern "C" CtStatus
ct_cuda_device_info (int device, CtCudaDeviceInfo *info)
{
  cudaDeviceProp prop;
  size_t free_mem = 0, total = 0;
  int value = 0;

  memset (info, 0, sizeof *info);
  CT_CUDA_TRY (cudaGetDeviceProperties (&prop, device));
  snprintf (info->name, sizeof info->name, "%s", prop.name);
  info->major = prop.major;
  info->minor = prop.minor;
  info->total_global_mem = prop.totalGlobalMem;
  info->shared_mem_per_block = prop.sharedMemPerBlock;
  info->total_const_mem = prop.totalConstMem;
  info->mem_pitch = prop.memPitch;
  info->texture_alignment = prop.textureAlignment;
  info->regs_per_block = prop.regsPerBlock;
  info->warp_size = prop.warpSize;
  info->max_threads_per_block = prop.maxThreadsPerBlock;
  for (int i = 0; i < 3; i++)
    {
      info->max_threads_dim[i] = prop.maxThreadsDim[i];
      info->max_grid_size[i] = prop.maxGridSize[i];
    }
  info->multiprocessor_count = prop.multiProcessorCount;
  /* CUDA 13 dropped these from cudaDeviceProp: ask for the attributes. */
  if (cudaDeviceGetAttribute (&value, cudaDevAttrClockRate, device) == cudaSuccess)
    info->clock_rate_khz = value;
  if (cudaDeviceGetAttribute (&value, cudaDevAttrAsyncEngineCount, device) == cudaSuccess)
    info->concurrent_copy = value > 0;
  if (cudaDeviceGetAttribute (&value, cudaDevAttrKernelExecTimeout, device) == cudaSuccess)
    info->kernel_timeout = value;
  if (ct_cuda_enter () == CT_STATUS_OK && device == thread_device
      && cudaMemGetInfo (&free_mem, &total) == cudaSuccess)
    info->free_mem = free_mem;
  cudaGetLastError ();
  return CT_STATUS_OK;
}
