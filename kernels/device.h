/* device.h: the device-neutral memory API.
 *
 * CtMem (engine/mem.c) keeps the GPU copy of a blob through these calls and
 * nothing else, so the engine contains no CUDA code and no #ifdef: without
 * CUDA every call answers CT_STATUS_NO_DEVICE (kernels/cuda/stub.c) and the
 * engine reports that cleanly. Device pointers are opaque to the caller. */
#pragma once

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CT_MEMCPY_HOST_TO_DEVICE,
  CT_MEMCPY_DEVICE_TO_HOST,
  CT_MEMCPY_DEVICE_TO_DEVICE,
} CtMemcpyKind;

/* Number of usable CUDA devices in *COUNT (0 when there is none, and then
 * the status says why: CT_STATUS_NO_DEVICE). */
CtStatus ct_cuda_device_count (int *count);

/* CT_STATUS_OK when GPU memory and kernels can be used right now. */
CtStatus ct_cuda_available (void);

/* SIZE bytes of device memory in *PTR (NULL on failure). SIZE 0 is valid. */
CtStatus ct_cuda_malloc (void **ptr, size_t size);

/* Frees what ct_cuda_malloc returned; NULL is fine. */
CtStatus ct_cuda_free (void *ptr);

/* Copies SIZE bytes; KIND says on which side DST and SRC live. */
CtStatus ct_cuda_memcpy (void *dst, const void *src, size_t size, CtMemcpyKind kind);

/* Sets SIZE bytes of device memory at PTR to the byte VALUE. */
CtStatus ct_cuda_memset (void *ptr, int value, size_t size);

/* The device this process computes on, from 0 (Caffe's --gpu N): every
 * thread that calls a ct_cuda_* function afterwards uses it. Memory already
 * allocated stays on the device it was allocated on. */
CtStatus ct_cuda_set_device (int device);
int ct_cuda_get_device (void);

/* Waits until the device has finished the work queued so far (timings). */
CtStatus ct_cuda_synchronize (void);

/* The CUDA runtime's own words for the last failure on this thread ("out
 * of memory", "CUDA driver version is insufficient for CUDA runtime
 * version"), or "" when nothing failed. For error messages. */
const char *ct_cuda_last_error (void);

/* What `device_query` prints of a device, as Caffe's does. */
typedef struct {
  char name[256];
  int major, minor;
  size_t total_global_mem, shared_mem_per_block, total_const_mem;
  size_t mem_pitch, texture_alignment;
  int regs_per_block, warp_size, max_threads_per_block;
  int max_threads_dim[3], max_grid_size[3];
  int clock_rate_khz, multiprocessor_count;
  int concurrent_copy, kernel_timeout;
  size_t free_mem; /* at the time of the query */
} CtCudaDeviceInfo;

CtStatus ct_cuda_device_info (int device, CtCudaDeviceInfo *info);

#ifdef __cplusplus
}
#endif
