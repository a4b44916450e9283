/* explain-net.c: the explain input of one layer of a CtNet. */
#include "explain-net.h"

static gboolean
add_blob (CtExplainNetLayer *out, CtBlob *blob, const char *name, GError **error)
{
  CtExplainArray a = { 0 };

  a.name = name;
  a.n_axes = ct_blob_num_axes (blob);
  a.dims = ct_blob_get_shape (blob);
  if (ct_blob_count (blob) > 0)
    {
      a.data = ct_blob_cpu_data (blob, error);
      if (a.data == NULL)
        return FALSE;
      a.diff = ct_blob_cpu_diff (blob, error);
      if (a.diff == NULL)
        return FALSE;
    }
  g_array_append_val (out->arrays, a);
  return TRUE;
}

gboolean
ct_explain_net_layer_init (CtExplainNetLayer *out, CtNet *net, guint layer_index,
                           GError **error)
{
  CtLayer *layer = ct_net_get_layer (net, layer_index);
  GPtrArray *bottoms = ct_net_get_bottoms (net, layer_index);
  GPtrArray *tops = ct_net_get_tops (net, layer_index);
  const guint *top_ids;
  guint n_top_ids;

  *out = (CtExplainNetLayer) { 0 };
  out->arrays = g_array_new (FALSE, TRUE, sizeof (CtExplainArray));
  out->below = g_ptr_array_new ();
  for (guint i = 0; i < bottoms->len; i++)
    if (!add_blob (out, g_ptr_array_index (bottoms, i), layer->param->bottom[i], error))
      return FALSE;
  for (guint i = 0; i < tops->len; i++)
    if (!add_blob (out, g_ptr_array_index (tops, i), layer->param->top[i], error))
      return FALSE;
  for (guint i = 0; i < layer->blobs->len; i++)
    if (!add_blob (out, g_ptr_array_index (layer->blobs, i), "W", error))
      return FALSE;
  for (guint i = 0; i < layer_index; i++)
    g_ptr_array_add (out->below, ct_net_get_layer (net, i)->param);
  top_ids = ct_net_get_top_ids (net, layer_index, &n_top_ids);
  out->layer = (CtExplainLayer) {
    .param = layer->param,
    .n_bottoms = bottoms->len,
    .n_tops = tops->len,
    .n_params = layer->blobs->len,
    .bottoms = &g_array_index (out->arrays, CtExplainArray, 0),
    .tops = &g_array_index (out->arrays, CtExplainArray, bottoms->len),
    .params = &g_array_index (out->arrays, CtExplainArray, bottoms->len + tops->len),
    .loss_weight = n_top_ids > 0 ? ct_net_blob_loss_weight (net, top_ids[0]) : 0,
    .n_below = layer_index,
    .below = (const Caffe__LayerParameter *const *) out->below->pdata,
    .phase = ct_net_get_phase (net),
  };
  return TRUE;
}

void
ct_explain_net_layer_clear (CtExplainNetLayer *out)
{
  g_clear_pointer (&out->arrays, g_array_unref);
  g_clear_pointer (&out->below, g_ptr_array_unref);
}
