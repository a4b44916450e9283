/* mem.h: CtMem, a block of memory with a CPU copy and a GPU copy, kept in
 * step the way Caffe's SyncedMemory keeps them.
 *
 * Neither copy exists until it is first asked for; a fresh copy is zeroed.
 * The head says where the current values live. The const accessors bring
 * the requested side up to date (copying across if the other side is newer)
 * without moving the head further than SYNCED; the mutable accessors then
 * declare that side the only current one:
 *
 *   head          cpu_data        mutable_cpu_data   gpu_data        mutable_gpu_data
 *   UNINITIALIZED alloc -> AT_CPU alloc -> AT_CPU    alloc -> AT_GPU alloc -> AT_GPU
 *   AT_CPU        AT_CPU          AT_CPU             copy -> SYNCED  copy -> AT_GPU
 *   AT_GPU        copy -> SYNCED  copy -> AT_CPU     AT_GPU          AT_GPU
 *   SYNCED        SYNCED          AT_CPU             SYNCED          AT_GPU
 *
 * The GPU side goes through the kernels' device API (kernels/device.h):
 * without CUDA or without a GPU, the GPU accessors return NULL and an error,
 * and the memory is left as it was. Every accessor returns NULL only with an
 * error set (a zero-byte block still has a valid pointer), so a huge
 * allocation that fails is an error, never an abort.
 *
 * CtMem is reference counted so that blobs can share data or diff. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CT_MEM_UNINITIALIZED,
  CT_MEM_HEAD_AT_CPU,
  CT_MEM_HEAD_AT_GPU,
  CT_MEM_SYNCED,
} CtMemHead;

/* Alignment of the CPU copy, enough for any SIMD load. */
#define CT_MEM_ALIGNMENT 64

typedef struct _CtMem CtMem;

/* A block of SIZE bytes; allocates nothing yet. */
CtMem *ct_mem_new (gsize size);
CtMem *ct_mem_ref (CtMem *mem);
void ct_mem_unref (CtMem *mem);

gsize ct_mem_get_size (const CtMem *mem);
CtMemHead ct_mem_get_head (const CtMem *mem);
const char *ct_mem_head_to_string (CtMemHead head);

const void *ct_mem_cpu_data (CtMem *mem, GError **error);
void *ct_mem_mutable_cpu_data (CtMem *mem, GError **error);
const void *ct_mem_gpu_data (CtMem *mem, GError **error);
void *ct_mem_mutable_gpu_data (CtMem *mem, GError **error);

/* Use DATA (at least the block's size, borrowed: never freed here) as the
 * CPU copy, which becomes the current one (head AT_CPU). A CPU copy the
 * block allocated itself is freed. */
void ct_mem_set_cpu_data (CtMem *mem, void *data);

/* Likewise for a device pointer DATA (head AT_GPU). */
void ct_mem_set_gpu_data (CtMem *mem, void *data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtMem, ct_mem_unref)

G_END_DECLS
