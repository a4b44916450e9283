/* common-device-private.h: what the Common, Utility and Normalization
 * layers written once for both devices share: a blob's arrays on either
 * device with errors that name the layer, and the scratch buffers that are
 * not blobs of floats (Eltwise's argmax mask, the row indices of Embed,
 * BatchReindex and Filter), kept as CtMem so that each has a CPU and a GPU
 * copy kept in step like a blob's. */
#pragma once

#include <glib.h>

#include "layer.h"
#include "mem.h"

G_BEGIN_DECLS

/* BLOB's data or diff on the CPU or, when GPU, on the GPU; NULL with an
 * error naming LAYER, or NULL alone for an empty blob with no memory. */
#define CT_COMMON_DEFINE_ON(name, type, accessor)                             \
  static inline type                                                         \
  name (const CtLayer *layer, CtBlob *blob, gboolean gpu, GError **error)     \
  {                                                                          \
    g_autoptr (GError) local = NULL;                                         \
    type array = accessor (blob, gpu, &local);                               \
                                                                             \
    if (array == NULL && local != NULL)                                      \
      ct_layer_fail (layer, error, local->code, "%s", local->message);       \
    return array;                                                            \
  }

CT_COMMON_DEFINE_ON (ct_common_data_on, const float *, ct_blob_data_on)
CT_COMMON_DEFINE_ON (ct_common_mutable_data_on, float *, ct_blob_mutable_data_on)
CT_COMMON_DEFINE_ON (ct_common_diff_on, const float *, ct_blob_diff_on)
CT_COMMON_DEFINE_ON (ct_common_mutable_diff_on, float *, ct_blob_mutable_diff_on)

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
