/* prefetch.c: the prefetch thread and its two queues of batches (free and
 * full), as Caffe's prefetching data layers keep them. A net on the GPU
 * takes each batch straight from the loader's buffer into its tops' GPU
 * copies (one host-to-device copy per batch, nothing through the tops'
 * CPU copies). */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "device.h"
#include "engine-error.h"
#include "prefetch-private.h"

struct _CtPrefetcher {
  CtLayer *layer;
  CtPrefetchLoadFunc load;
  guint depth;
  CtPrefetchBatch *batches; /* MAX (depth, 1) */
  GAsyncQueue *free_queue;  /* CtPrefetchBatch*, or the stop mark */
  GAsyncQueue *full_queue;
  GThread *thread;
  GError *failure;          /* sticky: the first batch that failed */
};

/* Pushed onto the free queue to end the thread. */
static CtPrefetchBatch stop_mark;

void
ct_prefetch_batch_shape (CtPrefetchBatch *batch, gint64 n, const gint64 chw[3])
{
  gsize count = (gsize) n * (gsize) chw[0] * (gsize) chw[1] * (gsize) chw[2];

  if (count > batch->capacity)
    {
      batch->data = g_renew (float, batch->data, count);
      batch->capacity = count;
    }
  if ((gsize) n > batch->label_capacity)
    {
      batch->labels = g_renew (float, batch->labels, n);
      batch->label_capacity = (gsize) n;
    }
  batch->shape[0] = n;
  memcpy (batch->shape + 1, chw, 3 * sizeof (gint64));
}

static void
load_into (CtPrefetcher *p, CtPrefetchBatch *batch)
{
  g_clear_error (&batch->error);
  p->load (p->layer, batch, &batch->error);
}

static gpointer
thread_main (gpointer data)
{
  CtPrefetcher *p = data;

  for (;;)
    {
      CtPrefetchBatch *batch = g_async_queue_pop (p->free_queue);
      gboolean failed;

      if (batch == &stop_mark)
        break;
      load_into (p, batch);
      failed = batch->error != NULL;
      g_async_queue_push (p->full_queue, batch);
      if (failed)
        break;
    }
  return NULL;
}

CtPrefetcher *
ct_prefetcher_new (CtLayer *layer, guint depth, CtPrefetchLoadFunc load)
{
  CtPrefetcher *p = g_new0 (CtPrefetcher, 1);

  p->layer = layer;
  p->load = load;
  p->depth = depth;
  p->batches = g_new0 (CtPrefetchBatch, MAX (depth, 1));
  p->free_queue = g_async_queue_new ();
  p->full_queue = g_async_queue_new ();
  return p;
}

void
ct_prefetcher_free (CtPrefetcher *p)
{
  if (p == NULL)
    return;
  if (p->thread != NULL)
    {
      g_async_queue_push_front (p->free_queue, &stop_mark);
      g_thread_join (p->thread);
    }
  for (guint i = 0; i < MAX (p->depth, 1); i++)
    {
      g_free (p->batches[i].data);
      g_free (p->batches[i].labels);
      g_clear_error (&p->batches[i].error);
    }
  g_free (p->batches);
  g_async_queue_unref (p->free_queue);
  g_async_queue_unref (p->full_queue);
  g_clear_error (&p->failure);
  g_free (p);
}

static gboolean
start_thread (CtPrefetcher *p, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *name = g_strdup_printf ("ct-prefetch-%s",
                                           ct_layer_get_name (p->layer));

  for (guint i = 0; i < p->depth; i++)
    g_async_queue_push (p->free_queue, &p->batches[i]);
  p->thread = g_thread_try_new (name, thread_main, p, &local);
  if (p->thread == NULL)
    return ct_layer_fail (p->layer, error, CT_ENGINE_ERROR_DEVICE,
                          _("could not start the prefetch thread: %s"), local->message);
  return TRUE;
}

/* COUNT floats from the batch's host buffer FROM into TOP, reshaped to
 * the N_AXES leading axes of the batch's shape, on the CPU or the GPU. */
static gboolean
copy_to_top (CtPrefetcher *p, const gint64 *shape, guint n_axes, const float *from,
             gsize count, CtBlob *top, gboolean gpu, GError **error)
{
  g_autoptr (GError) local = NULL;
  float *to;

  if (!ct_blob_reshape (top, shape, n_axes, &local) ||
      (to = ct_blob_mutable_data_on (top, gpu, &local)) == NULL)
    return ct_layer_fail (p->layer, error, local->code, "%s", local->message);
  if (!gpu)
    {
      memcpy (to, from, count * sizeof (float));
      return TRUE;
    }
  /* From pageable memory the copy has read FROM when it returns, so the
   * loader may refill the buffer at once. */
  if (!ct_engine_check_status (ct_cuda_memcpy (to, from, count * sizeof (float),
                                               CT_MEMCPY_HOST_TO_DEVICE),
                               _("Copying a batch to the GPU"), &local))
    return ct_layer_fail (p->layer, error, local->code, "%s (%s)", local->message,
                          ct_cuda_last_error ());
  return TRUE;
}

static gboolean
copy_to_tops (CtPrefetcher *p, const CtPrefetchBatch *batch, GPtrArray *top, gboolean gpu,
              GError **error)
{
  gsize count = (gsize) (batch->shape[0] * batch->shape[1] * batch->shape[2] * batch->shape[3]);

  if (!copy_to_top (p, batch->shape, 4, batch->data, count, CT_TOP (top, 0), gpu, error))
    return FALSE;
  return top->len < 2 || copy_to_top (p, batch->shape, 1, batch->labels,
                                      (gsize) batch->shape[0], CT_TOP (top, 1), gpu, error);
}

gboolean
ct_prefetcher_forward (CtPrefetcher *p, GPtrArray *top, GError **error)
{
  return ct_prefetcher_forward_on (p, top, FALSE, error);
}

gboolean
ct_prefetcher_forward_on (CtPrefetcher *p, GPtrArray *top, gboolean gpu, GError **error)
{
  CtPrefetchBatch *batch;
  gboolean ok;

  if (p->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (p->failure));
      return FALSE;
    }
  if (p->depth == 0)
    {
      batch = &p->batches[0];
      load_into (p, batch);
    }
  else
    {
      if (p->thread == NULL && !start_thread (p, error))
        return FALSE;
      batch = g_async_queue_pop (p->full_queue);
    }
  if (batch->error != NULL)
    {
      ct_layer_fail (p->layer, &p->failure, CT_ENGINE_ERROR_INVALID, "%s",
                     batch->error->message);
      g_propagate_error (error, g_error_copy (p->failure));
      return FALSE;
    }
  ok = copy_to_tops (p, batch, top, gpu, error);
  if (p->depth > 0)
    g_async_queue_push (p->free_queue, batch);
  return ok;
}
