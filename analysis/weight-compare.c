/* weight-compare.c: the per-layer and per-value views of a comparison of
 * two sets of weights (see weight-compare.h). */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "blob.h"
#include "weight-compare.h"

static void
layer_change_free (gpointer p)
{
  CtLayerChange *c = p;

  g_free (c->layer);
  g_free (c);
}

GPtrArray *
ct_weight_compare_layers (const CtModelDiff *diff)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (layer_change_free);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);

  /* sums of squares first, one square root at the end */
  for (guint i = 0; i < diff->blobs->len; i++)
    {
      const CtModelDiffBlob *d = diff->blobs->pdata[i];
      CtLayerChange *c;

      if (!d->same_shape)
        continue;
      c = g_hash_table_lookup (by_name, d->layer);
      if (c == NULL)
        {
          c = g_new0 (CtLayerChange, 1);
          c->layer = g_strdup (d->layer);
          g_ptr_array_add (out, c);
          g_hash_table_insert (by_name, c->layer, c);
        }
      c->norm_a += d->norm_a * d->norm_a;
      c->norm_delta += d->norm_delta * d->norm_delta;
    }
  for (guint i = 0; i < out->len; i++)
    {
      CtLayerChange *c = out->pdata[i];

      c->norm_a = sqrt (c->norm_a);
      c->norm_delta = sqrt (c->norm_delta);
      c->relative = c->norm_a > 0.0 ? c->norm_delta / c->norm_a : c->norm_delta;
    }
  return out;
}

double
ct_change_scale_position (double relative)
{
  double lo = log10 (CT_CHANGE_SCALE_LO), hi = log10 (CT_CHANGE_SCALE_HI);

  if (isnan (relative) || relative <= CT_CHANGE_SCALE_LO)
    return 0.0;
  if (relative >= CT_CHANGE_SCALE_HI)
    return 1.0;
  return (log10 (relative) - lo) / (hi - lo);
}

CtRgb
ct_change_scale_color (double relative)
{
  return ct_colormap_at (CT_COLORMAP_VIRIDIS, ct_change_scale_position (relative));
}

void
ct_weight_pair_free (CtWeightPair *pair)
{
  if (pair == NULL)
    return;
  g_free (pair->a);
  g_free (pair->b);
  g_free (pair->delta);
  g_free (pair);
}

static const Caffe__BlobProto *
find_blob (const Caffe__NetParameter *net, const char *layer, guint index)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, layer) == 0)
      return index < net->layer[i]->n_blobs ? net->layer[i]->blobs[index] : NULL;
  return NULL;
}

/* BLOB's values as a fresh array, its shape in SHAPE. */
static float *
read_blob (const Caffe__BlobProto *proto, gint64 *shape, guint *n_axes, gint64 *count,
           GError **error)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  const float *values;

  if (!ct_blob_from_proto (blob, proto, TRUE, error))
    return NULL;
  values = ct_blob_cpu_data (blob, error);
  if (values == NULL)
    return NULL;
  *n_axes = MIN (ct_blob_num_axes (blob), 4);
  for (guint i = 0; i < *n_axes; i++)
    shape[i] = ct_blob_get_shape (blob)[i];
  *count = ct_blob_count (blob);
  /* a blob of more than 4 axes is drawn flat; its shape is kept to 4 */
  if (ct_blob_num_axes (blob) > 4)
    *n_axes = 0;
  return g_memdup2 (values, (gsize) *count * sizeof (float));
}

CtWeightPair *
ct_weight_pair_new (const Caffe__NetParameter *a, const Caffe__NetParameter *b,
                    const char *layer, guint index, GError **error)
{
  const Caffe__BlobProto *pa = find_blob (a, layer, index);
  const Caffe__BlobProto *pb = find_blob (b, layer, index);
  g_autoptr (CtWeightPair) pair = g_new0 (CtWeightPair, 1);
  gint64 shape_b[4], count_b = 0;
  guint axes_b = 0;

  if (pa == NULL || pb == NULL)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   pa == NULL ? _("layer '%s' has no blob %u in the first model")
                              : _("layer '%s' has no blob %u in the second model"),
                   layer, index);
      return NULL;
    }
  pair->a = read_blob (pa, pair->shape, &pair->n_axes, &pair->count, error);
  if (pair->a == NULL)
    return NULL;
  pair->b = read_blob (pb, shape_b, &axes_b, &count_b, error);
  if (pair->b == NULL)
    return NULL;
  if (count_b != pair->count || axes_b != pair->n_axes
      || memcmp (shape_b, pair->shape, axes_b * sizeof (gint64)) != 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s', blob %u: the two models give it different shapes"), layer,
                   index);
      return NULL;
    }
  pair->delta = g_new (float, MAX (pair->count, 1));
  for (gint64 i = 0; i < pair->count; i++)
    pair->delta[i] = pair->b[i] - pair->a[i];
  if (pair->n_axes == 4)
    {
      pair->dims[0] = 1;
      pair->dims[1] = pair->shape[0] * pair->shape[1];
      pair->dims[2] = pair->shape[2];
      pair->dims[3] = pair->shape[3];
      pair->n_dims = 4;
    }
  else if (pair->n_axes == 2)
    {
      pair->dims[0] = pair->shape[0];
      pair->dims[1] = pair->shape[1];
      pair->n_dims = 2;
    }
  else
    {
      pair->dims[0] = pair->count;
      pair->n_dims = 1;
    }
  return g_steal_pointer (&pair);
}

static int
by_change (gconstpointer pa, gconstpointer pb)
{
  const CtWeightChange *a = pa, *b = pb;
  float da = fabsf (a->b - a->a), db = fabsf (b->b - b->a);

  if (da != db)
    return da > db ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

GArray *
ct_weight_pair_top_changes (const CtWeightPair *pair, guint k)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CtWeightChange));

  /* keep the K largest in a sorted array: K is small (tens), blobs are not */
  for (gint64 i = 0; i < pair->count && k > 0; i++)
    {
      CtWeightChange c = { i, pair->a[i], pair->b[i] };
      float d = fabsf (pair->delta[i]);

      if (d == 0.0f)
        continue;
      if (out->len == k
          && d <= fabsf (g_array_index (out, CtWeightChange, k - 1).b
                         - g_array_index (out, CtWeightChange, k - 1).a))
        continue;
      if (out->len == k)
        g_array_set_size (out, k - 1);
      g_array_append_val (out, c);
      g_array_sort (out, by_change);
    }
  return out;
}

char *
ct_weight_pair_index_text (const CtWeightPair *pair, gint64 index)
{
  GString *s = g_string_new ("(");
  gint64 place[4];

  if (pair->n_axes == 0)
    {
      g_string_append_printf (s, "%" G_GINT64_FORMAT, index);
      return g_string_free (g_string_append_c (s, ')'), FALSE);
    }
  for (int i = (int) pair->n_axes - 1; i >= 0; i--)
    {
      place[i] = index % pair->shape[i];
      index /= pair->shape[i];
    }
  for (guint i = 0; i < pair->n_axes; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", place[i]);
  return g_string_free (g_string_append_c (s, ')'), FALSE);
}
