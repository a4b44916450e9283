/* common-device-private.h: the scratch buffers of the Common and Utility
 * layers that are not blobs of floats (Eltwise's argmax mask, the row
 * indices of Embed, BatchReindex and Filter), kept as CtMem so that each
 * has a CPU and a GPU copy kept in step like a blob's, for the layer
 * written once for both devices. */
#pragma once

#include <glib.h>

#include "mem.h"

G_BEGIN_DECLS

/* *MEM holds at least SIZE bytes afterwards; it only grows, as Caffe's
 * buffers do, and a grown one starts afresh (its values are not kept). */
static inline void
ct_common_grow_mem (CtMem **mem, gsize size)
{
  if (*mem != NULL && ct_mem_get_size (*mem) >= size)
    return;
  g_clear_pointer (mem, ct_mem_unref);
  *mem = ct_mem_new (size);
}

/* MEM's copy on the CPU or, when GPU, on the GPU; NULL with ERROR set. */
static inline gconstpointer
ct_common_mem_on (CtMem *mem, gboolean gpu, GError **error)
{
  return gpu ? ct_mem_gpu_data (mem, error) : ct_mem_cpu_data (mem, error);
}

static inline gpointer
ct_common_mutable_mem_on (CtMem *mem, gboolean gpu, GError **error)
{
  return gpu ? ct_mem_mutable_gpu_data (mem, error) : ct_mem_mutable_cpu_data (mem, error);
}

G_END_DECLS
