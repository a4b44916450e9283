/* net.c: a built CtNet: its tables, the device it runs on, forward and
 * backward over a range of layers with observers and timing, reshaping,
 * and memory allocation. Building is in net-build.c, parameters in
 * net-params.c, weights in net-weights.c, shape inference in net-shapes.c. */
#include <string.h>
#include <time.h>
#include <glib/gi18n-lib.h>

#include "blas.h"
#include "device.h"
#include "devices.h"
#include "net-private.h"
#include "engine-error.h"
#include "error-place.h"

CtNet *
ct_net_alloc (void)
{
  CtNet *net = g_new0 (CtNet, 1);

  net->name = g_strdup ("");
  net->layers = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_layer_free);
  net->links = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_net_links_free);
  net->layer_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  net->blobs = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  net->blob_names = g_ptr_array_new_with_free_func (g_free);
  net->blob_need_backward = g_array_new (FALSE, FALSE, sizeof (gboolean));
  net->blob_loss_weights = g_array_new (FALSE, FALSE, sizeof (float));
  net->blob_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  net->inputs = g_array_new (FALSE, FALSE, sizeof (guint));
  net->outputs = g_array_new (FALSE, FALSE, sizeof (guint));
  net->params = g_ptr_array_new ();
  net->param_locations = g_array_new (FALSE, FALSE, sizeof (CtNetParamLocation));
  net->param_display_names = g_ptr_array_new_with_free_func (g_free);
  net->param_owners = g_array_new (FALSE, FALSE, sizeof (int));
  net->param_learnable_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  net->param_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  net->learnables = g_array_new (FALSE, FALSE, sizeof (CtNetLearnable));
  net->observers = g_array_new (FALSE, FALSE, sizeof (CtNetObserver));
  net->next_observer_id = 1;
  net->lazy_mems = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) ct_mem_unref, NULL);
  return net;
}

void
ct_net_free (CtNet *net)
{
  if (net == NULL)
    return;
  for (guint i = 0; i < net->observers->len; i++)
    {
      CtNetObserver *o = &g_array_index (net->observers, CtNetObserver, i);
      if (o->func != NULL && o->destroy != NULL)
        o->destroy (o->user_data);
    }
  g_array_unref (net->observers);
  g_hash_table_unref (net->lazy_mems);
  g_array_unref (net->learnables);
  g_hash_table_unref (net->param_names);
  g_array_unref (net->param_learnable_ids);
  g_array_unref (net->param_owners);
  g_ptr_array_unref (net->param_display_names);
  g_array_unref (net->param_locations);
  g_ptr_array_unref (net->params);
  g_array_unref (net->outputs);
  g_array_unref (net->inputs);
  /* Layers first: a layer may still look at blobs while it finalizes. */
  g_ptr_array_unref (net->links);
  g_ptr_array_unref (net->layers);
  g_hash_table_unref (net->blob_index);
  g_array_unref (net->blob_loss_weights);
  g_array_unref (net->blob_need_backward);
  g_ptr_array_unref (net->blob_names);
  g_ptr_array_unref (net->blobs);
  g_hash_table_unref (net->layer_index);
  if (net->param != NULL)
    protobuf_c_message_free_unpacked (&net->param->base, NULL);
  g_free (net->name);
  g_free (net);
}

/* Accessors */

const char *
ct_net_get_name (const CtNet *net)
{
  return net->name;
}

Caffe__Phase
ct_net_get_phase (const CtNet *net)
{
  return net->phase;
}

const Caffe__NetParameter *
ct_net_get_param (const CtNet *net)
{
  return net->param;
}

guint
ct_net_n_layers (const CtNet *net)
{
  return net->layers->len;
}

CtLayer *
ct_net_get_layer (const CtNet *net, guint layer_index)
{
  g_return_val_if_fail (layer_index < net->layers->len, NULL);
  return net->layers->pdata[layer_index];
}

int
ct_net_layer_index (const CtNet *net, const char *name)
{
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (net->layer_index, name)) - 1;
}

CtLayer *
ct_net_layer_by_name (const CtNet *net, const char *name)
{
  int i = ct_net_layer_index (net, name);
  return i < 0 ? NULL : net->layers->pdata[i];
}

guint
ct_net_n_blobs (const CtNet *net)
{
  return net->blobs->len;
}

CtBlob *
ct_net_get_blob (const CtNet *net, guint blob_index)
{
  g_return_val_if_fail (blob_index < net->blobs->len, NULL);
  return net->blobs->pdata[blob_index];
}

const char *
ct_net_get_blob_name (const CtNet *net, guint blob_index)
{
  g_return_val_if_fail (blob_index < net->blobs->len, NULL);
  return net->blob_names->pdata[blob_index];
}

int
ct_net_blob_index (const CtNet *net, const char *name)
{
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (net->blob_index, name)) - 1;
}

CtBlob *
ct_net_blob_by_name (const CtNet *net, const char *name)
{
  int i = ct_net_blob_index (net, name);
  return i < 0 ? NULL : net->blobs->pdata[i];
}

static CtNetLinks *
links_at (const CtNet *net, guint layer_index)
{
  return net->links->pdata[layer_index];
}

GPtrArray *
ct_net_get_bottoms (const CtNet *net, guint layer_index)
{
  g_return_val_if_fail (layer_index < net->layers->len, NULL);
  return links_at (net, layer_index)->bottom;
}

GPtrArray *
ct_net_get_tops (const CtNet *net, guint layer_index)
{
  g_return_val_if_fail (layer_index < net->layers->len, NULL);
  return links_at (net, layer_index)->top;
}

const guint *
ct_net_get_bottom_ids (const CtNet *net, guint layer_index, guint *n_out)
{
  GArray *ids;

  g_return_val_if_fail (layer_index < net->layers->len, NULL);
  ids = links_at (net, layer_index)->bottom_ids;
  if (n_out != NULL)
    *n_out = ids->len;
  return (const guint *) ids->data;
}

const guint *
ct_net_get_top_ids (const CtNet *net, guint layer_index, guint *n_out)
{
  GArray *ids;

  g_return_val_if_fail (layer_index < net->layers->len, NULL);
  ids = links_at (net, layer_index)->top_ids;
  if (n_out != NULL)
    *n_out = ids->len;
  return (const guint *) ids->data;
}

gboolean
ct_net_layer_need_backward (const CtNet *net, guint layer_index)
{
  g_return_val_if_fail (layer_index < net->layers->len, FALSE);
  return links_at (net, layer_index)->need_backward;
}

gboolean
ct_net_bottom_need_backward (const CtNet *net, guint layer_index, guint bottom_index)
{
  GArray *need;

  g_return_val_if_fail (layer_index < net->layers->len, FALSE);
  need = links_at (net, layer_index)->bottom_need_backward;
  g_return_val_if_fail (bottom_index < need->len, FALSE);
  return g_array_index (need, gboolean, bottom_index);
}

gboolean
ct_net_blob_need_backward (const CtNet *net, guint blob_index)
{
  g_return_val_if_fail (blob_index < net->blobs->len, FALSE);
  return g_array_index (net->blob_need_backward, gboolean, blob_index);
}

float
ct_net_blob_loss_weight (const CtNet *net, guint blob_index)
{
  g_return_val_if_fail (blob_index < net->blobs->len, 0.0f);
  return g_array_index (net->blob_loss_weights, float, blob_index);
}

guint
ct_net_n_inputs (const CtNet *net)
{
  return net->inputs->len;
}

guint
ct_net_input_index (const CtNet *net, guint i)
{
  g_return_val_if_fail (i < net->inputs->len, 0);
  return g_array_index (net->inputs, guint, i);
}

guint
ct_net_n_outputs (const CtNet *net)
{
  return net->outputs->len;
}

guint
ct_net_output_index (const CtNet *net, guint i)
{
  g_return_val_if_fail (i < net->outputs->len, 0);
  return g_array_index (net->outputs, guint, i);
}

guint
ct_net_n_params (const CtNet *net)
{
  return net->params->len;
}

CtBlob *
ct_net_get_param_blob (const CtNet *net, guint param_id)
{
  g_return_val_if_fail (param_id < net->params->len, NULL);
  return net->params->pdata[param_id];
}

void
ct_net_get_param_location (const CtNet *net, guint param_id, guint *layer_index,
                           guint *param_index)
{
  CtNetParamLocation where;

  g_return_if_fail (param_id < net->params->len);
  where = g_array_index (net->param_locations, CtNetParamLocation, param_id);
  if (layer_index != NULL)
    *layer_index = where.layer_index;
  if (param_index != NULL)
    *param_index = where.param_index;
}

const char *
ct_net_get_param_display_name (const CtNet *net, guint param_id)
{
  g_return_val_if_fail (param_id < net->params->len, NULL);
  return net->param_display_names->pdata[param_id];
}

int
ct_net_get_param_owner (const CtNet *net, guint param_id)
{
  g_return_val_if_fail (param_id < net->params->len, -1);
  return g_array_index (net->param_owners, int, param_id);
}

guint
ct_net_get_param_learnable_id (const CtNet *net, guint param_id)
{
  g_return_val_if_fail (param_id < net->params->len, 0);
  return g_array_index (net->param_learnable_ids, guint, param_id);
}

guint
ct_net_n_learnable (const CtNet *net)
{
  return net->learnables->len;
}

const CtNetLearnable *
ct_net_get_learnable (const CtNet *net, guint learnable_id)
{
  g_return_val_if_fail (learnable_id < net->learnables->len, NULL);
  return &g_array_index (net->learnables, CtNetLearnable, learnable_id);
}

/* Memory */

/* How allocate_blob treats a blob's data and diff. */
typedef enum {
  ALLOCATE_CPU,       /* allocate on the CPU what has no memory yet */
  ALLOCATE_GPU,       /* allocate on the GPU what has no memory yet */
  ALLOCATE_GPU_COPY,  /* give everything its GPU copy (a CPU head becomes SYNCED) */
} AllocateMode;

/* Only ALLOCATE_GPU_COPY moves a head that is not UNINITIALIZED: a top a
 * CPU layer writes in a GPU net keeps its CPU head and is copied over when
 * a GPU layer reads it, never before. */
static gboolean
ensure_allocated (const CtNet *net, CtBlob *blob, AllocateMode mode, GError **error)
{
  CtMem *mems[2] = { ct_blob_get_data_mem (blob), ct_blob_get_diff_mem (blob) };

  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    {
      const void *ptr;

      /* a planned net's unused diffs: allocated (zeroed) if ever touched */
      if (ct_net_is_lazy_mem (net, mems[i]))
        continue;
      if (mode == ALLOCATE_GPU_COPY)
        ptr = ct_mem_gpu_data (mems[i], error);
      else if (ct_mem_get_head (mems[i]) != CT_MEM_UNINITIALIZED)
        continue;
      else
        ptr = mode == ALLOCATE_GPU ? ct_mem_gpu_data (mems[i], error)
                                   : ct_mem_cpu_data (mems[i], error);
      if (ptr == NULL)
        return FALSE;
    }
  return TRUE;
}

/* NAME is a blob's name, or with IS_PARAM the name of the layer whose
 * parameter BLOB is. */
static gboolean
allocate_blob (CtNet *net, CtBlob *blob, AllocateMode mode, gboolean is_param, const char *name,
               GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *shape = NULL;

  if (ensure_allocated (net, blob, mode, &local))
    return TRUE;
  shape = ct_blob_shape_string (blob);
  /* the code stays: out of memory, or no GPU at all */
  if (is_param)
    g_set_error (error, CT_ENGINE_ERROR, local->code,
                 _("net '%s': no memory for a parameter of layer '%s' (shape %s): %s"),
                 net->name, name, shape, local->message);
  else
    g_set_error (error, CT_ENGINE_ERROR, local->code,
                 _("net '%s': no memory for blob '%s' (shape %s): %s"),
                 net->name, name, shape, local->message);
  return FALSE;
}

static gboolean
allocate_all (CtNet *net, AllocateMode mode, GError **error)
{
  for (guint i = 0; i < net->blobs->len; i++)
    if (!allocate_blob (net, net->blobs->pdata[i], mode, FALSE, net->blob_names->pdata[i],
                        error))
      return FALSE;
  for (guint i = 0; i < net->params->len; i++)
    {
      CtNetParamLocation where = g_array_index (net->param_locations, CtNetParamLocation, i);

      if (!allocate_blob (net, net->params->pdata[i], mode, TRUE,
                          ct_layer_get_name (net->layers->pdata[where.layer_index]), error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ct_net_allocate (CtNet *net, GError **error)
{
  return allocate_all (net, net->use_gpu ? ALLOCATE_GPU : ALLOCATE_CPU, error);
}

static gboolean
allocate_tops (CtNet *net, guint layer_index, GError **error)
{
  CtNetLinks *links = links_at (net, layer_index);

  for (guint j = 0; j < links->top->len; j++)
    if (!allocate_blob (net, links->top->pdata[j], net->use_gpu ? ALLOCATE_GPU : ALLOCATE_CPU,
                        FALSE,
                        net->blob_names->pdata[g_array_index (links->top_ids, guint, j)], error))
      return FALSE;
  return TRUE;
}

/* The device */

gboolean
ct_net_set_use_gpu (CtNet *net, gboolean use_gpu, GError **error)
{
  CtStatus status;

  if (!use_gpu || net->use_gpu)
    {
      net->use_gpu = use_gpu;
      return TRUE;
    }
  status = ct_cuda_available ();
  if (status != CT_STATUS_OK)
    {
      g_autoptr (GError) local = NULL;
      g_autofree char *what = g_strdup_printf (_("net '%s' cannot run on the GPU"), net->name);
      const char *words = ct_engine_gpu_last_error ();

      ct_engine_check_status (status, what, &local);
      if (words[0] != '\0')
        g_set_error (error, CT_ENGINE_ERROR, local->code, "%s (%s)", local->message, words);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  /* Every GPU copy now, so that a net too big for the device fails here,
   * naming the blob, and never halfway through a pass. */
  if (!allocate_all (net, ALLOCATE_GPU_COPY, error))
    return FALSE;
  net->use_gpu = TRUE;
  return TRUE;
}

gboolean
ct_net_get_use_gpu (const CtNet *net)
{
  return net->use_gpu;
}

gboolean
ct_net_reshape (CtNet *net, GError **error)
{
  for (guint i = 0; i < net->layers->len; i++)
    {
      CtNetLinks *links = links_at (net, i);

      if (!ct_layer_reshape (net->layers->pdata[i], links->bottom, links->top, error) ||
          !allocate_tops (net, i, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ct_net_clear_learnable_diff (CtNet *net, guint learnable_id, GError **error)
{
  const gboolean gpu = net->use_gpu;
  CtBlob *blob;
  float *diff;

  g_return_val_if_fail (learnable_id < net->learnables->len, FALSE);
  blob = g_array_index (net->learnables, CtNetLearnable, learnable_id).blob;
  diff = ct_blob_mutable_diff_on (blob, gpu, error);
  return diff != NULL &&
         ct_engine_check_status ((gpu ? ct_cuda_set : ct_cpu_set) (ct_blob_count (blob), 0.0f,
                                                                   diff),
                                 _("Clearing the parameter gradients"), error);
}

gboolean
ct_net_clear_param_diffs (CtNet *net, GError **error)
{
  for (guint i = 0; i < net->learnables->len; i++)
    if (!ct_net_clear_learnable_diff (net, i, error))
      return FALSE;
  return TRUE;
}

/* Observers and timing */

static void
notify (CtNet *net, CtNetEvent event, guint layer_index)
{
  /* By index, and removal only blanks entries meanwhile: an observer may
   * add or remove observers. */
  net->notifying++;
  for (guint i = 0; i < net->observers->len; i++)
    {
      CtNetObserver o = g_array_index (net->observers, CtNetObserver, i);
      if (o.func != NULL)
        o.func (net, event, layer_index, o.user_data);
    }
  net->notifying--;
  if (net->notifying == 0 && net->observers_removed)
    {
      for (guint i = net->observers->len; i-- > 0;)
        if (g_array_index (net->observers, CtNetObserver, i).func == NULL)
          g_array_remove_index (net->observers, i);
      net->observers_removed = FALSE;
    }
}

guint
ct_net_add_observer (CtNet *net, CtNetObserverFunc func, gpointer user_data,
                     GDestroyNotify destroy)
{
  CtNetObserver o = { net->next_observer_id++, func, user_data, destroy };

  g_return_val_if_fail (func != NULL, 0);
  g_array_append_val (net->observers, o);
  return o.id;
}

void
ct_net_remove_observer (CtNet *net, guint observer_id)
{
  for (guint i = 0; i < net->observers->len; i++)
    {
      CtNetObserver o = g_array_index (net->observers, CtNetObserver, i);

      if (o.id != observer_id || o.func == NULL)
        continue;
      if (net->notifying > 0)
        {
          g_array_index (net->observers, CtNetObserver, i).func = NULL;
          net->observers_removed = TRUE;
        }
      else
        g_array_remove_index (net->observers, i);
      if (o.destroy != NULL)
        o.destroy (o.user_data);
      return;
    }
}

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec * 1e-3;
}

const CtNetLayerTiming *
ct_net_get_layer_timing (const CtNet *net, guint layer_index)
{
  g_return_val_if_fail (layer_index < net->layers->len, NULL);
  return &links_at (net, layer_index)->timing;
}

void
ct_net_reset_timing (CtNet *net)
{
  for (guint i = 0; i < net->links->len; i++)
    memset (&links_at (net, i)->timing, 0, sizeof (CtNetLayerTiming));
}

void
ct_net_set_timing_sync (CtNet *net, gboolean sync)
{
  net->sync_timing = sync;
}

/* Running */

/* LOCAL (taken) into ERROR, as "layer 'NAME' (TYPE): ..." unless the layer
 * already named itself: the GPU's and the blobs' errors ("out of GPU
 * memory allocating N bytes") know nothing of layers. Errors of other
 * domains (a data source's) keep their message; the engine's and the data
 * sources' carry the layer as data (error-place.h). */
static gboolean
fail_in_layer (const CtLayer *layer, GError *local, GError **error)
{
  /* the prefix ct_layer_fail writes, with the same translatable format */
  g_autofree char *prefix = g_strdup_printf (_("layer '%s' (%s): %s"),
                                             ct_layer_get_name (layer),
                                             ct_layer_get_type (layer), "");

  if (local->domain == CT_ENGINE_ERROR && ct_error_get_layer (local) == NULL)
    g_prefix_error (&local, "%s", prefix);
  if (ct_error_get_layer (local) == NULL)
    ct_error_set_place (&local, ct_layer_get_name (layer), NULL);
  g_propagate_error (error, local);
  return FALSE;
}

/* With timing synchronised on the GPU: wait until LAYER's work (or, before
 * it, everything queued) is done. A kernel that failed after its launch
 * returned is reported here, against the layer. */
static gboolean
sync_device (CtNet *net, const CtLayer *layer, GError **error)
{
  GError *local = NULL;

  if (!net->use_gpu || !net->sync_timing)
    return TRUE;
  if (ct_engine_check_status (ct_cuda_synchronize (), _("Waiting for the GPU"), &local))
    return TRUE;
  return fail_in_layer (layer, local, error);
}

gboolean
ct_net_forward_from_to (CtNet *net, guint start, guint end, float *loss, GError **error)
{
  float total = 0.0f;

  if (start > end || end >= net->layers->len)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                   g_dngettext (GETTEXT_PACKAGE,
                                "net '%s' has %u layer; cannot run forward from layer %u to %u",
                                "net '%s' has %u layers; cannot run forward from layer %u to %u",
                                net->layers->len),
                   net->name, net->layers->len, start, end);
      return FALSE;
    }
  for (guint i = start; i <= end; i++)
    {
      CtLayer *layer = net->layers->pdata[i];
      CtNetLinks *links = links_at (net, i);
      float layer_loss = 0.0f;
      double t0;
      GError *local = NULL;

      notify (net, CT_NET_EVENT_BEFORE_FORWARD, i);
      if (!sync_device (net, layer, error))
        return FALSE;
      t0 = now_us ();
      /* As Caffe, each forward reshapes first, so that a new input shape
       * flows down; the net then allocates what grew. */
      if (!ct_layer_reshape (layer, links->bottom, links->top, error) ||
          !allocate_tops (net, i, error))
        return FALSE;
      /* A layer another one took ran with that one's pass (CPU only). */
      if ((layer->absorbed_by == NULL || net->use_gpu)
          && !ct_layer_forward (layer, links->bottom, links->top, net->use_gpu, &layer_loss,
                                &local))
        return fail_in_layer (layer, local, error);
      if (!sync_device (net, layer, error))
        return FALSE;
      links->timing.forward_us += now_us () - t0;
      links->timing.forward_calls++;
      total += layer_loss;
      notify (net, CT_NET_EVENT_AFTER_FORWARD, i);
    }
  if (loss != NULL)
    *loss = total;
  return TRUE;
}

gboolean
ct_net_forward (CtNet *net, float *loss, GError **error)
{
  if (net->layers->len == 0)
    {
      if (loss != NULL)
        *loss = 0.0f;
      return TRUE;
    }
  return ct_net_forward_from_to (net, 0, net->layers->len - 1, loss, error);
}

/* Whether a layer in START down to END runs backward. */
static gboolean
needs_backward (CtNet *net, guint start, guint end)
{
  for (guint i = end; i <= start; i++)
    if (links_at (net, i)->need_backward)
      return TRUE;
  return FALSE;
}

/* Whether the layer before LAYER runs LAYER's backward pass (CPU only). */
static gboolean
backward_absorbed (const CtLayer *layer)
{
  return layer->absorbed_by != NULL && layer->absorbed_by->absorbs_backward;
}

gboolean
ct_net_backward_from_to (CtNet *net, guint start, guint end, GError **error)
{
  if (end > start || start >= net->layers->len)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                   g_dngettext (GETTEXT_PACKAGE,
                                "net '%s' has %u layer; cannot run backward from layer %u down to %u",
                                "net '%s' has %u layers; cannot run backward from layer %u down to %u",
                                net->layers->len),
                   net->name, net->layers->len, start, end);
      return FALSE;
    }
  if (net->memory_plan == CT_NET_MEMORY_FORWARD && needs_backward (net, start, end))
    {
      /* its activations are gone by the end of the forward pass */
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                   _("net '%s' was built to run forward only; it cannot run backward"),
                   net->name);
      return FALSE;
    }
  for (guint i = start + 1; i-- > end;)
    {
      CtNetLinks *links = links_at (net, i);

      notify (net, CT_NET_EVENT_BEFORE_BACKWARD, i);
      if (links->need_backward
          && (!backward_absorbed (net->layers->pdata[i]) || net->use_gpu))
        {
          CtLayer *layer = net->layers->pdata[i];
          GError *local = NULL;
          double t0;

          if (!sync_device (net, layer, error))
            return FALSE;
          t0 = now_us ();
          if (!ct_layer_backward (layer, links->top,
                                  (const gboolean *) links->bottom_need_backward->data,
                                  links->bottom, net->use_gpu, &local))
            return fail_in_layer (layer, local, error);
          if (!sync_device (net, layer, error))
            return FALSE;
          links->timing.backward_us += now_us () - t0;
          links->timing.backward_calls++;
        }
      notify (net, CT_NET_EVENT_AFTER_BACKWARD, i);
    }
  return TRUE;
}

gboolean
ct_net_backward (CtNet *net, GError **error)
{
  if (net->layers->len == 0)
    return TRUE;
  return ct_net_backward_from_to (net, net->layers->len - 1, 0, error);
}
