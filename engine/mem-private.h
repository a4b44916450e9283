/* mem-private.h: the device CtMem talks to, replaceable by tests.
 *
 * By default CtMem's GPU side is the kernels' CUDA API. Tests install a fake
 * device whose "GPU memory" is host memory, so that every head-state
 * transition and every blob operation on a GPU head can be checked on a
 * machine without a GPU. Each CtMem keeps the device it was created with,
 * so swapping devices never frees a pointer through the wrong one. */
#pragma once

#include <stddef.h>

#include "device.h"
#include "mem.h"

G_BEGIN_DECLS

typedef struct {
  CtStatus (*alloc) (void **ptr, size_t size);
  CtStatus (*release) (void *ptr);
  CtStatus (*copy) (void *dst, const void *src, size_t size, CtMemcpyKind kind);
  CtStatus (*fill) (void *ptr, int value, size_t size);
} CtMemDevice;

/* Make DEVICE (borrowed, must outlive the CtMems created with it) the device
 * of CtMems created from now on; NULL restores the CUDA API. Not thread-safe:
 * for tests only. */
void ct_mem_set_device_for_testing (const CtMemDevice *device);

/* How many references MEM has: the net's memory planner tells memory only
 * its blobs hold from memory a layer also keeps for itself. */
int ct_mem_get_ref_count (const CtMem *mem);

G_END_DECLS
