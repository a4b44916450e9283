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

#ifdef __cplusplus
}
#endif
