/* runner-worker.c: the runner's worker thread. It alone owns the CtNet:
 * it takes commands from the queue in order, builds the net on the first
 * step, steps through forward and backward as runner.h describes, and
 * posts a snapshot after each command (and after each layer of a whole
 * pass, so that the window follows along). A command queued before the
 * runner's epoch last changed (stop, edit, free) is dropped unrun. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "data-error.h"
#include "engine-error.h"
#include "layer-catalogue.h"
#include "net-dump.h"
#include "devices.h"
#include "run-device.h"
#include "runner-private.h"
#include "error-place.h"
#include "upgrade.h"

static gboolean
is_current (CtRunWorker *worker, const CtRunCommand *command)
{
  return g_atomic_int_get (worker->epoch) == command->epoch;
}

static guint
n_layers (CtRunWorker *worker)
{
  return worker->net != NULL ? ct_net_n_layers (worker->net) : 0;
}

static void
set_error (CtRunWorker *worker, GError *error)
{
  /* The first error of a command is the one to show. */
  if (worker->error == NULL)
    worker->error = error;
  else
    g_error_free (error);
}

static void
post (CtRunWorker *worker)
{
  CtRunSnapshot *snapshot = ct_run_history_snapshot (worker);
  gint64 now = g_get_monotonic_time ();

  /* Everything since the last snapshot (or the command's start) that was
   * not spent in layers. */
  snapshot->overhead_us = MAX (0.0, (double) (now - worker->mark_us) - snapshot->compute_us);
  worker->mark_us = now;
  ct_mailbox_post (worker->mailbox, snapshot);
}

/* Building */

static void
drop_net (CtRunWorker *worker, gboolean keep_weights)
{
  if (worker->net == NULL)
    {
      if (!keep_weights)
        g_clear_pointer (&worker->old_net, ct_net_free);
      return;
    }
  ct_run_history_free_tracks (worker);
  ct_run_params_free (worker);
  /* the next net's blobs may have other sizes */
  ct_run_spares_clear (worker->spares);
  g_clear_pointer (&worker->layer_state, g_array_unref);
  g_clear_pointer (&worker->cleared, g_array_unref);
  if (keep_weights)
    {
      g_clear_pointer (&worker->old_net, ct_net_free);
      worker->old_net = g_steal_pointer (&worker->net);
    }
  else
    {
      g_clear_pointer (&worker->net, ct_net_free);
      g_clear_pointer (&worker->old_net, ct_net_free);
    }
  worker->pass = CT_RUN_PASS_NONE;
  worker->next_layer = 0;
  worker->loss = 0.0f;
}

static void
lower (guint32 *value, guint limit)
{
  if (*value > limit)
    *value = limit;
}

static void
lower_shape (Caffe__BlobShape *shape, guint limit)
{
  if (shape != NULL && shape->n_dim > 0 && shape->dim[0] > (gint64) limit)
    shape->dim[0] = limit;
}

/* The batch size lowered for inspection, on the worker's copy. */
static void
apply_batch_size (Caffe__NetParameter *param, guint limit)
{
  for (gsize i = 0; i < param->n_layer && limit > 0; i++)
    {
      Caffe__LayerParameter *layer = param->layer[i];

      if (layer->input_param != NULL)
        for (gsize s = 0; s < layer->input_param->n_shape; s++)
          lower_shape (layer->input_param->shape[s], limit);
      if (layer->dummy_data_param != NULL)
        {
          for (gsize s = 0; s < layer->dummy_data_param->n_shape; s++)
            lower_shape (layer->dummy_data_param->shape[s], limit);
          for (gsize s = 0; s < layer->dummy_data_param->n_num; s++)
            lower (&layer->dummy_data_param->num[s], limit);
        }
      /* The data layers' own batch size (CtLayerClass). */
      const CtLayerClass *klass = ct_layer_catalogue_lookup (layer->type != NULL ? layer->type : "");
      guint32 *size = klass != NULL && klass->batch_size != NULL ? klass->batch_size (layer) : NULL;

      if (size != NULL)
        lower (size, limit);
    }
}

static gboolean
same_shapes (CtLayer *a, CtLayer *b)
{
  if (a->blobs->len != b->blobs->len)
    return FALSE;
  for (guint i = 0; i < a->blobs->len; i++)
    {
      CtBlob *x = a->blobs->pdata[i], *y = b->blobs->pdata[i];

      if (ct_blob_num_axes (x) != ct_blob_num_axes (y) ||
          memcmp (ct_blob_get_shape (x), ct_blob_get_shape (y),
                  ct_blob_num_axes (x) * sizeof (gint64)) != 0)
        return FALSE;
    }
  return TRUE;
}

/* Copy OLD's weights into NEW's layers of the same name and shapes; name
 * the layers with parameters that got none. */
static gboolean
keep_weights (CtNet *new_net, CtNet *old_net, char ***reinitialised, GError **error)
{
  g_autoptr (GPtrArray) fresh = g_ptr_array_new_null_terminated (0, g_free, TRUE);

  for (guint i = 0; i < ct_net_n_layers (new_net); i++)
    {
      CtLayer *layer = ct_net_get_layer (new_net, i);
      CtLayer *old = ct_net_layer_by_name (old_net, ct_layer_get_name (layer));

      if (layer->blobs->len == 0)
        continue;
      if (old == NULL || !same_shapes (layer, old))
        {
          g_ptr_array_add (fresh, g_strdup (ct_layer_get_name (layer)));
          continue;
        }
      for (guint b = 0; b < layer->blobs->len; b++)
        if (!ct_blob_copy_from (layer->blobs->pdata[b], old->blobs->pdata[b], CT_BLOB_COPY_DATA,
                                error))
          return FALSE;
    }
  *reinitialised = (char **) g_ptr_array_steal (fresh, NULL);
  return TRUE;
}

static gboolean
build (CtRunWorker *worker, GError **error)
{
  g_autoptr (CtNet) net = NULL;
  Caffe__NetParameter *param = NULL;
  CtNetConfig config = {
    .phase = worker->config.phase,
    .seed = worker->config.seed,
  };
  gboolean ok;

  /* A fresh message, upgraded first so that legacy input shapes are Input
   * layers whose batch can be lowered. */
  param = caffe__net_parameter__unpack (NULL, g_bytes_get_size (worker->param),
                                        g_bytes_get_data (worker->param, NULL));
  if (param == NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                   _("the net could not be copied"));
      return FALSE;
    }
  ok = !ct_net_needs_upgrade (param) || ct_upgrade_net (param, NULL, NULL, error);
  if (ok)
    {
      apply_batch_size (param, worker->config.batch_size);
      net = ct_net_new_with_config (param, &config, error);
    }
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (net == NULL)
    return FALSE;

  if (worker->old_net != NULL)
    {
      if (!keep_weights (net, worker->old_net, &worker->reinitialised, error))
        return FALSE;
    }
  else if (worker->config.weights != NULL &&
           !ct_net_copy_trained_layers_from_file (net, worker->config.weights, error))
    return FALSE;
  if (worker->config.fill == CT_RUN_FILL_CAFFE_REF &&
      !ct_net_apply_reference_batch_norm (net, error))
    return FALSE;
  if (worker->config.use_gpu && !ct_run_use_gpu (net, worker->config.gpu_device, error))
    return FALSE;

  g_clear_pointer (&worker->old_net, ct_net_free);
  worker->net = g_steal_pointer (&net);
  worker->invalidated = FALSE;
  worker->layer_state = g_array_new (FALSE, TRUE, sizeof (CtRunLayerState));
  g_array_set_size (worker->layer_state, ct_net_n_layers (worker->net));
  worker->cleared = g_array_new (FALSE, TRUE, sizeof (gboolean));
  ct_run_history_attach (worker);
  ct_run_history_prefill (worker);
  ct_run_params_attach (worker);
  worker->pass = CT_RUN_PASS_FORWARD;
  worker->next_layer = 0;
  return TRUE;
}

static gboolean
ensure_built (CtRunWorker *worker)
{
  GError *error = NULL;

  if (worker->net != NULL)
    return TRUE;
  if (build (worker, &error))
    return TRUE;
  set_error (worker, error);
  return FALSE;
}

/* Running */

static void
set_state (CtRunWorker *worker, guint layer, CtRunLayerState state)
{
  g_array_index (worker->layer_state, CtRunLayerState, layer) = state;
}

static GError *
layer_error (CtRunWorker *worker, guint layer_index, GError *error)
{
  const char *name = ct_layer_get_name (ct_net_get_layer (worker->net, layer_index));
  GError *named;

  /* Setup-time errors and the engine's own carry the layer already. */
  if (ct_error_get_layer (error) != NULL)
    return error;
  if (error->domain == CT_ENGINE_ERROR || error->domain == CT_DATA_ERROR)
    {
      ct_error_set_place (&error, name, NULL);
      return error;
    }
  /* another library's error inside a layer: the engine's, with the place */
  named = g_error_new (CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID, _("layer '%s': %s"), name,
                       error->message);
  ct_error_set_place (&named, name, NULL);
  g_error_free (error);
  return named;
}

/* The fill and the given inputs, before layer 0 of every forward pass. */
static gboolean
apply_inputs (CtRunWorker *worker, GError **error)
{
  GHashTableIter iter;
  gpointer key, value;

  if (worker->config.fill == CT_RUN_FILL_CAFFE_REF &&
      !ct_net_fill_reference_inputs (worker->net, error))
    return FALSE;
  g_hash_table_iter_init (&iter, worker->inputs);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      CtRunInput *input = value;
      CtBlob *blob = ct_net_blob_by_name (worker->net, key);
      float *data;

      /* samples of a data layer's top: after that layer */
      if (input->items)
        continue;
      if (blob == NULL)
        {
          g_set_error (error, CT_RUN_ERROR, CT_RUN_ERROR_NO_BLOB,
                       _("the net has no input blob '%s'"), (const char *) key);
          return FALSE;
        }
      if (!ct_blob_reshape (blob, input->dims, input->n_axes, error))
        return FALSE;
      data = ct_blob_mutable_cpu_data (blob, error);
      if (data == NULL)
        return FALSE;
      memcpy (data, input->values, (gsize) input->count * sizeof (float));
    }
  return TRUE;
}

static void
begin_forward (CtRunWorker *worker)
{
  worker->pass = CT_RUN_PASS_FORWARD;
  worker->next_layer = 0;
  worker->pass_loss = 0.0f;
  for (guint i = 0; i < n_layers (worker); i++)
    set_state (worker, i, CT_RUN_LAYER_PENDING);
  ct_run_history_clear_pass (worker);
  ct_run_params_stale_all (worker);
}

/* The chosen samples of layer I's tops (ct_runner_set_items), over the
 * first samples of the batch the layer just read. */
static gboolean
apply_items (CtRunWorker *worker, guint i, GError **error)
{
  GPtrArray *tops = ct_net_get_tops (worker->net, i);
  guint n_ids;
  const guint *ids = ct_net_get_top_ids (worker->net, i, &n_ids);
  const char *layer = ct_layer_get_name (ct_net_get_layer (worker->net, i));

  for (guint t = 0; t < tops->len && t < n_ids; t++)
    {
      CtBlob *blob = tops->pdata[t];
      const char *name = ct_net_get_blob_name (worker->net, ids[t]);
      CtRunInput *input = g_hash_table_lookup (worker->inputs, name);
      gint64 n, per_item;
      float *data;

      if (input == NULL || !input->items)
        continue;
      n = ct_blob_num_axes (blob) > 0 ? ct_blob_get_shape (blob)[0] : 1;
      per_item = n > 0 ? ct_blob_count (blob) / n : 0;
      if (per_item != input->dims[1])
        {
          /* the engine's domain, so that the layer travels as data */
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                       _("layer '%s': a sample of '%s' holds %" PRId64 " values, the "
                         "chosen input %" PRId64),
                       layer, name, per_item, input->dims[1]);
          ct_error_set_place (error, layer, name);
          return FALSE;
        }
      data = ct_blob_mutable_cpu_data (blob, error);
      if (data == NULL)
        return FALSE;
      memcpy (data, input->values, (gsize) (MIN (n, input->dims[0]) * per_item) * sizeof (float));
    }
  return TRUE;
}

/* Run forward layer NEXT. */
static gboolean
forward_one (CtRunWorker *worker)
{
  guint i = (guint) worker->next_layer;
  GError *error = NULL;
  float layer_loss = 0.0f;
  gint64 t0;

  if (i == 0 && !apply_inputs (worker, &error))
    {
      set_error (worker, error);
      return FALSE;
    }
  t0 = g_get_monotonic_time ();
  if (!ct_net_forward_from_to (worker->net, i, i, &layer_loss, &error))
    {
      worker->compute_us += (double) (g_get_monotonic_time () - t0);
      set_error (worker, layer_error (worker, i, error));
      return FALSE;
    }
  worker->compute_us += (double) (g_get_monotonic_time () - t0);
  if (!apply_items (worker, i, &error))
    {
      set_error (worker, error);
      return FALSE;
    }
  /* Summed layer by layer as ct_net_forward sums, so the loss is the same. */
  worker->pass_loss += layer_loss;
  set_state (worker, i, CT_RUN_LAYER_FORWARD_DONE);
  g_array_append_val (worker->stepped, i);
  worker->next_layer++;
  if ((guint) worker->next_layer == n_layers (worker))
    worker->loss = worker->pass_loss;
  return TRUE;
}

static void
begin_backward (CtRunWorker *worker)
{
  /* Parameter diffs accumulate in the engine; a pass starts from zero
   * (clear_param_diffs). */
  g_array_set_size (worker->cleared, 0);
  g_array_set_size (worker->cleared, ct_net_n_learnable (worker->net));
  worker->pass = CT_RUN_PASS_BACKWARD;
  worker->next_layer = (int) n_layers (worker) - 1;
  ct_run_history_begin_backward (worker);
  ct_run_params_stale_all (worker);
}

/* Zero the diffs of layer I's parameters that no layer has used in this
 * backward pass yet (a shared one is zeroed before the first of its
 * layers, the highest, runs backward). Clearing them all when the pass
 * begins gives the same values, but put the whole cost in the first step
 * (AlexNet's 61 million parameters: 12-50 ms); this way each step zeroes
 * the gradients that its own layer is about to compute. */
static gboolean
clear_param_diffs (CtRunWorker *worker, guint i, GError **error)
{
  if (!ct_net_layer_need_backward (worker->net, i))
    return TRUE;
  for (guint p = 0; p < ct_net_n_params (worker->net); p++)
    {
      guint layer, index, learnable;

      ct_net_get_param_location (worker->net, p, &layer, &index);
      if (layer != i)
        continue;
      learnable = ct_net_get_param_learnable_id (worker->net, p);
      if (g_array_index (worker->cleared, gboolean, learnable))
        continue;
      if (!ct_net_clear_learnable_diff (worker->net, learnable, error))
        return FALSE;
      g_array_index (worker->cleared, gboolean, learnable) = TRUE;
    }
  return TRUE;
}

/* Run backward layer NEXT (which may need none). */
static gboolean
backward_one (CtRunWorker *worker)
{
  guint i = (guint) worker->next_layer;
  GError *error = NULL;
  gint64 t0 = g_get_monotonic_time ();

  /* zeroing the layer's parameter gradients is part of computing them */
  if (!clear_param_diffs (worker, i, &error) ||
      !ct_net_backward_from_to (worker->net, i, i, &error))
    {
      worker->compute_us += (double) (g_get_monotonic_time () - t0);
      set_error (worker, layer_error (worker, i, error));
      return FALSE;
    }
  worker->compute_us += (double) (g_get_monotonic_time () - t0);
  set_state (worker, i, ct_net_layer_need_backward (worker->net, i)
                        ? CT_RUN_LAYER_BACKWARD_DONE : CT_RUN_LAYER_BACKWARD_SKIPPED);
  g_array_append_val (worker->stepped, i);
  worker->next_layer--;
  return TRUE;
}

/* The pause after a layer of a whole pass (ct_runner_set_pace), in short
 * sleeps so that a stop or an edit ends it at once. It is not the
 * worker's overhead: the next snapshot counts from its end. */
static void
wait_pace (CtRunWorker *worker, const CtRunCommand *command)
{
  gint64 start = g_get_monotonic_time ();
  gint64 now = start;

  if (g_atomic_int_get (worker->pace_ms) <= 0)
    return;
  /* the pace is read again after each sleep: a new one applies at once */
  while (is_current (worker, command))
    {
      gint64 end = start + (gint64) g_atomic_int_get (worker->pace_ms) * 1000;

      if (now >= end)
        break;
      g_usleep ((gulong) MIN (end - now, 10000));
      now = g_get_monotonic_time ();
    }
  worker->mark_us = g_get_monotonic_time ();
}

/* Finish the forward pass, layer by layer; FALSE on error or interrupt. */
static gboolean
finish_forward (CtRunWorker *worker, const CtRunCommand *command, gboolean post_each)
{
  while ((guint) worker->next_layer < n_layers (worker))
    {
      if (!is_current (worker, command) || !forward_one (worker))
        return FALSE;
      if (post_each && (guint) worker->next_layer < n_layers (worker))
        {
          post (worker);
          wait_pace (worker, command);
        }
    }
  return TRUE;
}

static void
do_forward (CtRunWorker *worker)
{
  if (worker->pass == CT_RUN_PASS_BACKWARD ||
      (guint) worker->next_layer >= n_layers (worker) || worker->next_layer == 0)
    begin_forward (worker);
  if ((guint) worker->next_layer < n_layers (worker))
    forward_one (worker);
}

static gboolean
any_computes (CtRunWorker *worker, int from)
{
  for (int i = from; i >= 0; i--)
    if (ct_net_layer_need_backward (worker->net, (guint) i))
      return TRUE;
  return FALSE;
}

static void
do_backward (CtRunWorker *worker, const CtRunCommand *command)
{
  if (worker->pass == CT_RUN_PASS_BACKWARD && worker->next_layer < 0)
    {
      set_error (worker, g_error_new (CT_RUN_ERROR, CT_RUN_ERROR_PASS_COMPLETE,
                                      _("The backward pass is complete: step forward to start "
                                        "a new pass")));
      return;
    }
  if (worker->pass == CT_RUN_PASS_FORWARD)
    {
      if (worker->next_layer == 0)
        begin_forward (worker);
      if (!finish_forward (worker, command, FALSE))
        return;
      begin_backward (worker);
    }
  /* Layers that need no backward compute nothing: pass them in the same
   * step, up to and including the next one that computes. */
  while (worker->next_layer >= 0)
    {
      gboolean computes = ct_net_layer_need_backward (worker->net, (guint) worker->next_layer);

      if (!backward_one (worker))
        return;
      if (computes || !is_current (worker, command))
        break;
    }
  /* When no layer below computes, this step ends the pass. */
  if (worker->next_layer >= 0 && !any_computes (worker, worker->next_layer))
    while (worker->next_layer >= 0 && is_current (worker, command))
      if (!backward_one (worker))
        return;
}

static void
do_run_pass (CtRunWorker *worker, const CtRunCommand *command)
{
  if (worker->pass == CT_RUN_PASS_FORWARD && (guint) worker->next_layer >= n_layers (worker))
    begin_backward (worker);
  else if (worker->pass == CT_RUN_PASS_BACKWARD && worker->next_layer < 0)
    begin_forward (worker);
  else if (worker->pass == CT_RUN_PASS_FORWARD && worker->next_layer == 0)
    begin_forward (worker);

  if (worker->pass == CT_RUN_PASS_FORWARD)
    {
      finish_forward (worker, command, TRUE);
      return;
    }
  while (worker->next_layer >= 0 && is_current (worker, command))
    {
      if (!backward_one (worker))
        return;
      if (worker->next_layer >= 0)
        {
          post (worker);
          wait_pace (worker, command);
        }
    }
}

/* Commands */

static void
set_names (GHashTable *set, char **names)
{
  g_hash_table_remove_all (set);
  for (char **n = names; n != NULL && *n != NULL; n++)
    g_hash_table_add (set, g_strdup (*n));
}

static void
take_config (CtRunWorker *worker, CtRunCommand *command)
{
  if (command->param != NULL)
    {
      g_clear_pointer (&worker->param, g_bytes_unref);
      worker->param = g_steal_pointer (&command->param);
    }
  g_free (worker->weights);
  worker->weights = g_steal_pointer (&command->weights_copy);
  worker->config = command->config;
  worker->config.weights = worker->weights;
}

/* Runs COMMAND; FALSE when the worker must stop. */
static gboolean
handle (CtRunWorker *worker, CtRunCommand *command)
{
  gboolean is_step = command->kind == CT_RUN_CMD_FORWARD || command->kind == CT_RUN_CMD_BACKWARD ||
                     command->kind == CT_RUN_CMD_RUN_PASS || command->kind == CT_RUN_CMD_RESET;

  if (command->kind == CT_RUN_CMD_QUIT)
    return FALSE;
  worker->command_epoch = command->epoch;
  worker->mark_us = g_get_monotonic_time ();
  /* Steps queued before a stop or an edit are dropped (the stop's or the
   * edit's own snapshot then counts them answered). */
  if (is_step && !is_current (worker, command))
    {
      worker->steps_done++;
      return TRUE;
    }
  if (is_step && !ensure_built (worker))
    {
      worker->steps_done++;
      post (worker);
      return TRUE;
    }

  switch (command->kind)
    {
    case CT_RUN_CMD_FORWARD:
      do_forward (worker);
      break;
    case CT_RUN_CMD_BACKWARD:
      do_backward (worker, command);
      break;
    case CT_RUN_CMD_RUN_PASS:
      do_run_pass (worker, command);
      break;
    case CT_RUN_CMD_RESET:
      begin_forward (worker);
      break;
    case CT_RUN_CMD_STOP:
      break;
    case CT_RUN_CMD_WATCH:
      set_names (worker->watch, command->names);
      if (worker->net == NULL)
        return TRUE;
      ct_run_history_drop_unwatched (worker);
      ct_run_history_prefill (worker);
      if (command->quiet)
        return TRUE;
      break;
    case CT_RUN_CMD_WATCH_PARAMS:
      set_names (worker->watch_params, command->names);
      if (worker->net == NULL)
        return TRUE;
      ct_run_params_stale_all (worker);
      if (command->quiet)
        return TRUE;
      break;
    case CT_RUN_CMD_INPUT:
      g_hash_table_replace (worker->inputs, g_steal_pointer (&command->name),
                            g_steal_pointer (&command->input));
      return TRUE;
    case CT_RUN_CMD_BUDGET:
      worker->budget = command->budget;
      return TRUE;
    case CT_RUN_CMD_REBUILD:
      g_clear_pointer (&worker->param, g_bytes_unref);
      worker->param = g_steal_pointer (&command->param);
      drop_net (worker, TRUE);
      worker->invalidated = TRUE;
      break;
    case CT_RUN_CMD_CONFIG:
      {
        gboolean first = worker->param == NULL;

        take_config (worker, command);
        drop_net (worker, FALSE);
        worker->invalidated = !first;
        if (first)
          return TRUE;
      }
      break;
    case CT_RUN_CMD_QUIT:
    default:
      g_assert_not_reached ();
    }
  /* The snapshots a pass posts on its way say it is not done yet. */
  if (is_step)
    worker->steps_done++;
  post (worker);
  return TRUE;
}

static void
worker_free (CtRunWorker *worker)
{
  drop_net (worker, FALSE);
  g_clear_pointer (&worker->param, g_bytes_unref);
  g_free (worker->weights);
  g_strfreev (worker->reinitialised);
  g_hash_table_unref (worker->watch);
  g_hash_table_unref (worker->watch_params);
  g_hash_table_unref (worker->inputs);
  g_array_unref (worker->stepped);
  g_clear_error (&worker->error);
  g_async_queue_unref (worker->queue);
  ct_mailbox_unref (worker->mailbox);
  ct_run_spares_close (worker->spares);
  g_free (worker);
}

gpointer
ct_run_worker_main (gpointer data)
{
  CtRunWorker *worker = data;
  gboolean running = TRUE;

  worker->watch = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  worker->watch_params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  worker->inputs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) ct_run_input_free);
  worker->stepped = g_array_new (FALSE, FALSE, sizeof (int));
  worker->spares = ct_run_spares_new ();
  while (running)
    {
      CtRunCommand *command = g_async_queue_pop (worker->queue);

      /* the limit holds for the jobs this thread starts: the layers, the
       * statistics; a CONFIG command may have changed it */
      ct_engine_set_cpu_thread_limit (worker->config.leave_a_core ? ct_engine_cpu_threads () - 1 : 0);
      running = handle (worker, command);
      ct_run_command_free (command);
    }
  worker_free (worker);
  return NULL;
}
