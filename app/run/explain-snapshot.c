/* explain-snapshot.c: the explain input of a layer of a run snapshot. */
#include <string.h>

#include "explain-private.h"
#include "explain-snapshot.h"

struct _CtExplainSnapshotLayer {
  CtRunSnapshot *snapshot;
  CtExplainLayer layer;
  GArray *arrays;        /* CtExplainArray: bottoms, tops, parameters */
  GPtrArray *below;      /* const Caffe__LayerParameter*, borrowed or in STUBS */
  GPtrArray *stubs;      /* Caffe__LayerParameter* made here (owned) */
};

static void
stub_free (gpointer data)
{
  Caffe__LayerParameter *p = data;

  g_free (p->name);
  g_free (p->type);
  g_strfreev (p->bottom);
  g_strfreev (p->top);
  g_free (p);
}

/* The document's layer named like snapshot layer I, or one described from
 * the snapshot (names, type, blobs). */
static const Caffe__LayerParameter *
layer_param (CtExplainSnapshotLayer *out, const Caffe__NetParameter *net, guint i)
{
  const CtRunLayer *l = ct_run_snapshot_get_layer (out->snapshot, i);
  Caffe__LayerParameter *stub;

  for (gsize k = 0; net != NULL && k < net->n_layer; k++)
    if (g_strcmp0 (net->layer[k]->name, l->name) == 0
        && g_strcmp0 (net->layer[k]->type, l->type) == 0)
      return net->layer[k];
  stub = g_new0 (Caffe__LayerParameter, 1);
  caffe__layer_parameter__init (stub);
  stub->name = g_strdup (l->name);
  stub->type = g_strdup (l->type);
  stub->n_bottom = l->n_bottoms;
  stub->bottom = g_new0 (char *, l->n_bottoms + 1);
  for (guint b = 0; b < l->n_bottoms; b++)
    stub->bottom[b] = g_strdup (ct_run_snapshot_get_blob (out->snapshot, l->bottoms[b])->name);
  stub->n_top = l->n_tops;
  stub->top = g_new0 (char *, l->n_tops + 1);
  for (guint t = 0; t < l->n_tops; t++)
    stub->top[t] = g_strdup (ct_run_snapshot_get_blob (out->snapshot, l->tops[t])->name);
  g_ptr_array_add (out->stubs, stub);
  return stub;
}

/* The version of BLOB that layer LAYER read (BEFORE) or wrote. */
static const CtRunVersion *
version_at (const CtRunBlob *blob, guint layer, gboolean before)
{
  const CtRunVersion *found = NULL;

  if (blob->versions == NULL)
    return NULL;
  for (guint v = 0; v < blob->versions->len; v++)
    {
      const CtRunVersion *version = g_ptr_array_index (blob->versions, v);

      if (before ? version->layer_index < (int) layer : version->layer_index <= (int) layer)
        found = version;
    }
  return found;
}

static gboolean
add_blob (CtExplainSnapshotLayer *out, guint index, guint layer, gboolean before,
          GError **error)
{
  const CtRunBlob *blob = ct_run_snapshot_get_blob (out->snapshot, index);
  const CtRunVersion *version = version_at (blob, layer, before);
  CtExplainArray a = { blob->name, blob->n_axes, blob->dims, NULL, NULL };

  if (version == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("The values of %s are not kept: select its layer and step "
                              "again"), blob->name);
  a.n_axes = version->n_axes;
  a.dims = version->dims;
  a.data = g_bytes_get_data (version->data, NULL);
  a.diff = version->diff != NULL ? g_bytes_get_data (version->diff, NULL) : NULL;
  g_array_append_val (out->arrays, a);
  return TRUE;
}

CtExplainSnapshotLayer *
ct_explain_snapshot_layer_new (CtRunSnapshot *snapshot, guint layer,
                               const Caffe__NetParameter *net, GError **error)
{
  g_autoptr (CtExplainSnapshotLayer) out = g_new0 (CtExplainSnapshotLayer, 1);
  const CtRunLayer *l;
  const Caffe__LayerParameter *param;

  if (layer >= ct_run_snapshot_n_layers (snapshot))
    {
      ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("The run has no such layer"));
      return NULL;
    }
  out->snapshot = ct_run_snapshot_ref (snapshot);
  out->arrays = g_array_new (FALSE, TRUE, sizeof (CtExplainArray));
  out->below = g_ptr_array_new ();
  out->stubs = g_ptr_array_new_with_free_func (stub_free);
  l = ct_run_snapshot_get_layer (snapshot, layer);
  for (guint b = 0; b < l->n_bottoms; b++)
    if (!add_blob (out, l->bottoms[b], layer, TRUE, error))
      return NULL;
  for (guint t = 0; t < l->n_tops; t++)
    if (!add_blob (out, l->tops[t], layer, FALSE, error))
      return NULL;
  for (guint p = 0; l->params != NULL && p < l->params->len; p++)
    {
      const CtRunParam *rp = g_ptr_array_index (l->params, p);
      CtExplainArray a = { rp->name, rp->n_axes, rp->dims, NULL, NULL };

      a.data = rp->data != NULL ? g_bytes_get_data (rp->data, NULL) : NULL;
      a.diff = rp->diff != NULL ? g_bytes_get_data (rp->diff, NULL) : NULL;
      g_array_append_val (out->arrays, a);
    }
  param = layer_param (out, net, layer);
  for (guint i = 0; i < layer; i++)
    g_ptr_array_add (out->below, (gpointer) layer_param (out, net, i));
  out->layer = (CtExplainLayer) {
    .param = param,
    .n_bottoms = l->n_bottoms,
    .n_tops = l->n_tops,
    .n_params = l->params != NULL ? l->params->len : 0,
    .bottoms = &g_array_index (out->arrays, CtExplainArray, 0),
    .tops = &g_array_index (out->arrays, CtExplainArray, l->n_bottoms),
    .params = &g_array_index (out->arrays, CtExplainArray, l->n_bottoms + l->n_tops),
    .loss_weight = param->n_loss_weight > 0 ? param->loss_weight[0]
                   : g_str_has_suffix (l->type, "Loss") ? 1 : 0,
    .n_below = layer,
    .below = (const Caffe__LayerParameter *const *) out->below->pdata,
    .phase = ct_run_snapshot_get_phase (snapshot),
  };
  return g_steal_pointer (&out);
}

void
ct_explain_snapshot_layer_free (CtExplainSnapshotLayer *layer)
{
  if (layer == NULL)
    return;
  g_clear_pointer (&layer->snapshot, ct_run_snapshot_unref);
  g_clear_pointer (&layer->arrays, g_array_unref);
  g_clear_pointer (&layer->below, g_ptr_array_unref);
  g_clear_pointer (&layer->stubs, g_ptr_array_unref);
  g_free (layer);
}

const CtExplainLayer *
ct_explain_snapshot_layer_get (const CtExplainSnapshotLayer *layer)
{
  return &layer->layer;
}

int
ct_explain_snapshot_diff_maker (CtRunSnapshot *snapshot, guint blob,
                                const CtRunVersion *version, guint *bottom)
{
  int after = version != NULL ? version->layer_index : -1;

  for (guint i = after + 1; i < ct_run_snapshot_n_layers (snapshot); i++)
    {
      const CtRunLayer *l = ct_run_snapshot_get_layer (snapshot, i);

      for (guint b = 0; b < l->n_bottoms; b++)
        if (l->bottoms[b] == blob)
          {
            *bottom = b;
            return i;
          }
    }
  return -1;
}
