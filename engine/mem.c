/* mem.c: CtMem, Caffe's SyncedMemory in C (see mem.h for the head-state
 * table). The CPU copy is 64-byte aligned host memory allocated with
 * posix_memalign so that a size a user's net asks for can fail with an
 * error; the GPU copy goes through a CtMemDevice, the kernels' CUDA API
 * unless a test installed a fake one.
 *
 * The CPU copy is ordinary (pageable) memory, not pinned: the blobs of a
 * net on the GPU live on the GPU, and what crosses the bus per iteration
 * is a data layer's batch and what a CPU fallback layer reads, so pinning
 * every CPU copy would lock host memory for little gain. */
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "devices.h"
#include "engine-error.h"
#include "mem-private.h"

struct _CtMem {
  gatomicrefcount ref_count;
  gsize size;
  CtMemHead head;
  void *cpu_ptr;
  void *gpu_ptr;
  gboolean own_cpu_data;
  gboolean own_gpu_data;
  const CtMemDevice *device;
};

static const CtMemDevice cuda_device = {
  .alloc = ct_cuda_malloc,
  .release = ct_cuda_free,
  .copy = ct_cuda_memcpy,
  .fill = ct_cuda_memset,
};

static const CtMemDevice *current_device = &cuda_device;

void
ct_mem_set_device_for_testing (const CtMemDevice *device)
{
  current_device = device != NULL ? device : &cuda_device;
}

CtMem *
ct_mem_new (gsize size)
{
  CtMem *mem = g_new0 (CtMem, 1);

  g_atomic_ref_count_init (&mem->ref_count);
  mem->size = size;
  mem->head = CT_MEM_UNINITIALIZED;
  mem->device = current_device;
  return mem;
}

CtMem *
ct_mem_ref (CtMem *mem)
{
  g_return_val_if_fail (mem != NULL, NULL);
  g_atomic_ref_count_inc (&mem->ref_count);
  return mem;
}

void
ct_mem_unref (CtMem *mem)
{
  if (mem == NULL || !g_atomic_ref_count_dec (&mem->ref_count))
    return;
  if (mem->own_cpu_data)
    free (mem->cpu_ptr);
  /* A failing free has no one left to report to; the device keeps count. */
  if (mem->own_gpu_data && mem->gpu_ptr != NULL)
    (void) mem->device->release (mem->gpu_ptr);
  g_free (mem);
}

int
ct_mem_get_ref_count (const CtMem *mem)
{
  return g_atomic_int_get ((const gint *) &mem->ref_count);
}

gsize
ct_mem_get_size (const CtMem *mem)
{
  return mem->size;
}

CtMemHead
ct_mem_get_head (const CtMem *mem)
{
  return mem->head;
}

const char *
ct_mem_head_to_string (CtMemHead head)
{
  switch (head)
    {
    case CT_MEM_UNINITIALIZED:
      return "UNINITIALIZED";
    case CT_MEM_HEAD_AT_CPU:
      return "HEAD_AT_CPU";
    case CT_MEM_HEAD_AT_GPU:
      return "HEAD_AT_GPU";
    case CT_MEM_SYNCED:
      return "SYNCED";
    }
  return "INVALID";
}

/* Allocates the zeroed CPU copy. A zero-byte block still gets a distinct
 * pointer, so that NULL always means failure. */
static gboolean
alloc_cpu (CtMem *mem, GError **error)
{
  void *ptr = NULL;
  int err = posix_memalign (&ptr, CT_MEM_ALIGNMENT, MAX (mem->size, 1));

  if (err != 0)
    {
      g_autofree char *size = g_format_size_full (mem->size, G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                   _("Could not allocate %s of memory for a blob: %s"),
                   size, g_strerror (err));
      return FALSE;
    }
  memset (ptr, 0, mem->size);
  mem->cpu_ptr = ptr;
  mem->own_cpu_data = TRUE;
  return TRUE;
}

/* STATUS of a device call as an error that a user can act on: WHAT failed
 * and why, with the CUDA runtime's own words when it has some ("CUDA driver
 * version is insufficient for CUDA runtime version"); running out of
 * memory says how many bytes were asked for, so that the net that needed
 * them can say which layer. A fake test device has no runtime to ask. */
static gboolean
check_device (const CtMem *mem, CtStatus status, const char *what, gsize bytes,
              GError **error)
{
  g_autoptr (GError) local = NULL;
  const char *words = CT_HAVE_CUDA && mem->device == &cuda_device ? ct_engine_gpu_last_error () : "";

  if (ct_engine_check_status (status, what, &local))
    return TRUE;
  if (status == CT_STATUS_OUT_OF_MEMORY)
    {
      if (words[0] != '\0')
        /* TRANSLATORS: the last %s is the CUDA runtime's own message */
        g_set_error (error, CT_ENGINE_ERROR, local->code,
                     _("out of GPU memory allocating %zu bytes (%s)"), (size_t) bytes, words);
      else
        g_set_error (error, CT_ENGINE_ERROR, local->code,
                     _("out of GPU memory allocating %zu bytes"), (size_t) bytes);
    }
  else if (words[0] != '\0')
    g_set_error (error, CT_ENGINE_ERROR, local->code, "%s (%s)", local->message, words);
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

static gboolean
alloc_gpu (CtMem *mem, GError **error)
{
  void *ptr = NULL;
  gsize bytes = MAX (mem->size, 1);

  if (!check_device (mem, mem->device->alloc (&ptr, bytes),
                     _("Allocating GPU memory for a blob"), bytes, error))
    return FALSE;
  mem->gpu_ptr = ptr;
  mem->own_gpu_data = TRUE;
  return TRUE;
}

/* Brings the CPU copy up to date, as SyncedMemory::to_cpu does. */
static gboolean
to_cpu (CtMem *mem, GError **error)
{
  switch (mem->head)
    {
    case CT_MEM_UNINITIALIZED:
      if (!alloc_cpu (mem, error))
        return FALSE;
      mem->head = CT_MEM_HEAD_AT_CPU;
      return TRUE;
    case CT_MEM_HEAD_AT_GPU:
      if (mem->cpu_ptr == NULL && !alloc_cpu (mem, error))
        return FALSE;
      if (!check_device (mem, mem->device->copy (mem->cpu_ptr, mem->gpu_ptr, mem->size,
                                                 CT_MEMCPY_DEVICE_TO_HOST),
                         _("Copying blob memory from the GPU"), mem->size, error))
        return FALSE;
      mem->head = CT_MEM_SYNCED;
      return TRUE;
    case CT_MEM_HEAD_AT_CPU:
    case CT_MEM_SYNCED:
    default:
      return TRUE;
    }
}

/* Brings the GPU copy up to date, as SyncedMemory::to_gpu does. On failure
 * the head is unchanged: the CPU copy stays the current one. */
static gboolean
to_gpu (CtMem *mem, GError **error)
{
  switch (mem->head)
    {
    case CT_MEM_UNINITIALIZED:
      /* A block whose clearing failed last time keeps its allocation. */
      if (mem->gpu_ptr == NULL && !alloc_gpu (mem, error))
        return FALSE;
      if (!check_device (mem, mem->device->fill (mem->gpu_ptr, 0, mem->size),
                         _("Clearing GPU memory for a blob"), mem->size, error))
        return FALSE;
      mem->head = CT_MEM_HEAD_AT_GPU;
      return TRUE;
    case CT_MEM_HEAD_AT_CPU:
      if (mem->gpu_ptr == NULL && !alloc_gpu (mem, error))
        return FALSE;
      if (!check_device (mem, mem->device->copy (mem->gpu_ptr, mem->cpu_ptr, mem->size,
                                                 CT_MEMCPY_HOST_TO_DEVICE),
                         _("Copying blob memory to the GPU"), mem->size, error))
        return FALSE;
      mem->head = CT_MEM_SYNCED;
      return TRUE;
    case CT_MEM_HEAD_AT_GPU:
    case CT_MEM_SYNCED:
    default:
      return TRUE;
    }
}

const void *
ct_mem_cpu_data (CtMem *mem, GError **error)
{
  g_return_val_if_fail (mem != NULL, NULL);
  return to_cpu (mem, error) ? mem->cpu_ptr : NULL;
}

void *
ct_mem_mutable_cpu_data (CtMem *mem, GError **error)
{
  g_return_val_if_fail (mem != NULL, NULL);
  if (!to_cpu (mem, error))
    return NULL;
  mem->head = CT_MEM_HEAD_AT_CPU;
  return mem->cpu_ptr;
}

const void *
ct_mem_gpu_data (CtMem *mem, GError **error)
{
  g_return_val_if_fail (mem != NULL, NULL);
  return to_gpu (mem, error) ? mem->gpu_ptr : NULL;
}

void *
ct_mem_mutable_gpu_data (CtMem *mem, GError **error)
{
  g_return_val_if_fail (mem != NULL, NULL);
  if (!to_gpu (mem, error))
    return NULL;
  mem->head = CT_MEM_HEAD_AT_GPU;
  return mem->gpu_ptr;
}

void
ct_mem_set_cpu_data (CtMem *mem, void *data)
{
  g_return_if_fail (mem != NULL);
  g_return_if_fail (data != NULL);
  if (mem->own_cpu_data)
    free (mem->cpu_ptr);
  mem->cpu_ptr = data;
  mem->own_cpu_data = FALSE;
  mem->head = CT_MEM_HEAD_AT_CPU;
}

void
ct_mem_set_gpu_data (CtMem *mem, void *data)
{
  g_return_if_fail (mem != NULL);
  g_return_if_fail (data != NULL);
  if (mem->own_gpu_data && mem->gpu_ptr != NULL)
    (void) mem->device->release (mem->gpu_ptr);
  mem->gpu_ptr = data;
  mem->own_gpu_data = FALSE;
  mem->head = CT_MEM_HEAD_AT_GPU;
}
