/* runner-params.c: the layers' parameter blobs (weights, biases) as the
 * snapshots show them: statistics of every layer's data, full copies and
 * the gradients' statistics only of the layers watched. A layer's list is built when a snapshot needs it and
 * shared by the snapshots that follow until the parameters change: their
 * data only when the net is built, their diffs when backward begins and
 * when the layer, or one sharing a parameter with it, runs backward.
 *
 * The runner never updates weights, so the statistics of the parameters'
 * data (and the copies of the watched layers') are computed once per
 * built net and kept: a list rebuilt because its diffs changed computes
 * only the diffs' statistics. On AlexNet that is the difference between
 * reading fc6's 151 MB of weights at every backward step and never. */
#include "runner-private.h"

/* What a built net's layer keeps of its parameters' data. */
struct _CtRunParamData {
  guint n;
  CtBlobStats **stats;  /* N, or NULL entries where the blob holds no data */
  GBytes **copies;      /* N, NULL entries until a watched list asks */
};

static void
param_data_free (CtRunParamData *kept)
{
  if (kept == NULL)
    return;
  for (guint k = 0; k < kept->n; k++)
    {
      ct_blob_stats_unref (kept->stats[k]);
      if (kept->copies[k] != NULL)
        g_bytes_unref (kept->copies[k]);
    }
  g_free (kept->stats);
  g_free (kept->copies);
  g_free (kept);
}

static void
param_free (gpointer data)
{
  CtRunParam *param = data;

  g_free (param->name);
  g_free (param->dims);
  ct_blob_stats_unref (param->data_stats);
  ct_blob_stats_unref (param->diff_stats);
  g_clear_pointer (&param->data, g_bytes_unref);
  g_clear_pointer (&param->diff, g_bytes_unref);
  g_free (param);
}

void
ct_run_params_attach (CtRunWorker *worker)
{
  worker->params = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_ptr_array_set_size (worker->params, (int) ct_net_n_layers (worker->net));
  worker->param_data = g_ptr_array_new_with_free_func ((GDestroyNotify) param_data_free);
  g_ptr_array_set_size (worker->param_data, (int) ct_net_n_layers (worker->net));
}

void
ct_run_params_free (CtRunWorker *worker)
{
  g_clear_pointer (&worker->params, g_ptr_array_unref);
  g_clear_pointer (&worker->param_data, g_ptr_array_unref);
}

static void
stale (CtRunWorker *worker, guint layer_index)
{
  g_clear_pointer (&worker->params->pdata[layer_index], g_ptr_array_unref);
}

void
ct_run_params_stale_all (CtRunWorker *worker)
{
  for (guint i = 0; worker->params != NULL && i < worker->params->len; i++)
    stale (worker, i);
}

static guint
owner_of (CtNet *net, guint param_id)
{
  int owner = ct_net_get_param_owner (net, param_id);

  return owner < 0 ? param_id : (guint) owner;
}

void
ct_run_params_after_backward (CtRunWorker *worker, guint layer_index)
{
  CtNet *net = worker->net;
  guint n = ct_net_n_params (net);

  stale (worker, layer_index);
  /* Layers sharing a parameter with this one see its diff change too. */
  for (guint p = 0; p < n; p++)
    {
      guint layer, index;

      ct_net_get_param_location (net, p, &layer, &index);
      if (layer != layer_index)
        continue;
      for (guint q = 0; q < n; q++)
        if (q != p && owner_of (net, q) == owner_of (net, p))
          {
            guint other;

            ct_net_get_param_location (net, q, &other, &index);
            stale (worker, other);
          }
    }
}

static const char *
param_name (CtNet *net, guint layer_index, guint param_index)
{
  for (guint p = 0; p < ct_net_n_params (net); p++)
    {
      guint layer, index;

      ct_net_get_param_location (net, p, &layer, &index);
      if (layer == layer_index && index == param_index)
        return ct_net_get_param_display_name (net, p);
    }
  return "";
}

/* The list for NET's layer LAYER_INDEX; with KEPT, the data's statistics
 * and copies come from it (and are added to it when missing). */
static GPtrArray *
build_list (CtNet *net, guint layer_index, gboolean with_diff, gboolean copy,
            CtRunParamData *kept)
{
  CtLayer *layer = ct_net_get_layer (net, layer_index);
  GPtrArray *params = g_ptr_array_new_with_free_func (param_free);

  for (guint k = 0; k < layer->blobs->len; k++)
    {
      CtBlob *blob = layer->blobs->pdata[k];
      CtRunParam *param = g_new0 (CtRunParam, 1);
      const float *data = ct_blob_cpu_data (blob, NULL);
      const float *diff = with_diff ? ct_blob_cpu_diff (blob, NULL) : NULL;
      gsize bytes = (gsize) ct_blob_count (blob) * sizeof (float);

      param->name = g_strdup (param_name (net, layer_index, k));
      param->n_axes = ct_blob_num_axes (blob);
      param->dims = g_memdup2 (ct_blob_get_shape (blob), param->n_axes * sizeof (gint64));
      param->count = ct_blob_count (blob);
      if (data != NULL && kept != NULL)
        {
          if (kept->stats[k] == NULL)
            kept->stats[k] = ct_blob_stats_compute (data, param->count);
          param->data_stats = ct_blob_stats_ref (kept->stats[k]);
        }
      else if (data != NULL)
        param->data_stats = ct_blob_stats_compute (data, param->count);
      if (diff != NULL)
        param->diff_stats = ct_blob_stats_compute (diff, param->count);
      if (copy && data != NULL && kept != NULL)
        {
          if (kept->copies[k] == NULL)
            kept->copies[k] = g_bytes_new (data, bytes);
          param->data = g_bytes_ref (kept->copies[k]);
        }
      else if (copy && data != NULL)
        param->data = g_bytes_new (data, bytes);
      if (copy && diff != NULL)
        param->diff = g_bytes_new (diff, bytes);
      g_ptr_array_add (params, param);
    }
  return params;
}

GPtrArray *
ct_run_params_build (CtNet *net, guint layer_index, gboolean with_diff, gboolean copy)
{
  return build_list (net, layer_index, with_diff, copy, NULL);
}

/* What the worker keeps of LAYER_INDEX's parameters' data: copies only
 * while the layer is WATCHED. */
static CtRunParamData *
kept_data (CtRunWorker *worker, guint layer_index, gboolean watched)
{
  CtRunParamData *kept = worker->param_data->pdata[layer_index];

  if (kept == NULL)
    {
      guint n = ct_net_get_layer (worker->net, layer_index)->blobs->len;

      kept = g_new0 (CtRunParamData, 1);
      kept->n = n;
      kept->stats = g_new0 (CtBlobStats *, MAX (n, 1));
      kept->copies = g_new0 (GBytes *, MAX (n, 1));
      worker->param_data->pdata[layer_index] = kept;
    }
  for (guint k = 0; !watched && k < kept->n; k++)
    g_clear_pointer (&kept->copies[k], g_bytes_unref);
  return kept;
}

static GPtrArray *
build_params (CtRunWorker *worker, guint layer_index)
{
  CtLayer *layer = ct_net_get_layer (worker->net, layer_index);
  gboolean watched = g_hash_table_contains (worker->watch_params, ct_layer_get_name (layer));
  /* The gradients only of the layers shown: fc6's 37.7 M weight diffs
   * take longer to summarise than a step may cost, and nothing but the
   * inspector of the selected layer reads them. */
  gboolean with_diff = watched && worker->pass == CT_RUN_PASS_BACKWARD &&
                       g_array_index (worker->layer_state, CtRunLayerState, layer_index)
                       == CT_RUN_LAYER_BACKWARD_DONE;

  return build_list (worker->net, layer_index, with_diff, watched,
                     kept_data (worker, layer_index, watched));
}

GPtrArray *
ct_run_params_get (CtRunWorker *worker, guint layer_index)
{
  if (worker->params->pdata[layer_index] == NULL)
    worker->params->pdata[layer_index] = build_params (worker, layer_index);
  return g_ptr_array_ref (worker->params->pdata[layer_index]);
}
