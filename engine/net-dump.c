/* net-dump.c: see net-dump.h. The dump is little-endian throughout:
 * magic, version, record count, loss, then per record kind, name length,
 * name, index, axis count, dimensions, data, diff. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-dump.h"
#include "atomic-write.h"
#include "binary-io.h"
#include "engine-error.h"

gboolean
ct_net_fill_reference_inputs (CtNet *net, GError **error)
{
  for (guint k = 0; k < ct_net_n_inputs (net); k++)
    {
      guint blob_index = ct_net_input_index (net, k);
      CtBlob *blob = ct_net_get_blob (net, blob_index);
      gboolean is_label = strstr (ct_net_get_blob_name (net, blob_index), "label") != NULL;
      float *data = ct_blob_mutable_cpu_data (blob, error);
      gint64 count = ct_blob_count (blob);

      if (data == NULL)
        return FALSE;
      for (gint64 i = 0; i < count; i++)
        data[i] = is_label ? (float) (i % 10) : (float) sin (0.01 * (double) i + (double) k);
    }
  return TRUE;
}

static gboolean
uses_global_stats (const CtLayer *layer)
{
  const Caffe__BatchNormParameter *p = layer->param->batch_norm_param;

  if (p != NULL && p->has_use_global_stats)
    return p->use_global_stats;
  return layer->phase == CAFFE__PHASE__TEST;
}

gboolean
ct_net_apply_reference_batch_norm (CtNet *net, GError **error)
{
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      CtLayer *layer = ct_net_get_layer (net, i);
      float *mean, *var, *factor;
      gint64 channels;

      if (strcmp (ct_layer_get_type (layer), "BatchNorm") != 0 || layer->blobs->len < 3 ||
          !uses_global_stats (layer))
        continue;
      factor = ct_blob_mutable_cpu_data (layer->blobs->pdata[2], error);
      if (factor == NULL)
        return FALSE;
      if (ct_blob_count (layer->blobs->pdata[2]) < 1 || factor[0] != 0.0f)
        continue;
      mean = ct_blob_mutable_cpu_data (layer->blobs->pdata[0], error);
      var = ct_blob_mutable_cpu_data (layer->blobs->pdata[1], error);
      if (mean == NULL || var == NULL)
        return FALSE;
      channels = MIN (ct_blob_count (layer->blobs->pdata[0]),
                      ct_blob_count (layer->blobs->pdata[1]));
      for (gint64 c = 0; c < channels; c++)
        {
          mean[c] = (float) (0.1 * sin ((double) c + 1.0));
          var[c] = (float) (1.0 + 0.05 * (double) c);
        }
      factor[0] = 1.0f;
    }
  return TRUE;
}

static void
put_i32 (GByteArray *out, gint32 v)
{
  gint32 le = GINT32_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &le, sizeof le);
}

static void
put_floats (GByteArray *out, const float *values, gint64 n)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  g_byte_array_append (out, (const guint8 *) values, (guint) (n * (gint64) sizeof (float)));
#else
  for (gint64 i = 0; i < n; i++)
    {
      guint32 bits;
      memcpy (&bits, &values[i], sizeof bits);
      bits = GUINT32_TO_LE (bits);
      g_byte_array_append (out, (const guint8 *) &bits, sizeof bits);
    }
#endif
}

static gboolean
put_record (GByteArray *out, int kind, const char *name, int index, CtBlob *blob,
            GError **error)
{
  const float *data = ct_blob_cpu_data (blob, error);
  const float *diff = data != NULL ? ct_blob_cpu_diff (blob, error) : NULL;
  gsize name_len = strlen (name);
  gint64 count = ct_blob_count (blob);

  if (diff == NULL)
    return FALSE;
  if (count > G_MAXINT32 / 8 || (gint64) out->len + 8 * count > G_MAXINT32 / 2)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW,
                   _("blob '%s' is too large for a dump"), name);
      return FALSE;
    }
  put_i32 (out, kind);
  put_i32 (out, (gint32) name_len);
  g_byte_array_append (out, (const guint8 *) name, (guint) name_len);
  put_i32 (out, index);
  put_i32 (out, (gint32) ct_blob_num_axes (blob));
  for (guint a = 0; a < ct_blob_num_axes (blob); a++)
    put_i32 (out, (gint32) ct_blob_get_shape (blob)[a]);
  put_floats (out, data, count);
  put_floats (out, diff, count);
  return TRUE;
}

gboolean
ct_net_write_dump (CtNet *net, float loss, const char *path, GError **error)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint n_records = ct_net_n_blobs (net);

  for (guint i = 0; i < ct_net_n_layers (net); i++)
    n_records += ct_net_get_layer (net, i)->blobs->len;

  g_byte_array_append (out, (const guint8 *) CT_NET_DUMP_MAGIC, 8);
  put_i32 (out, CT_NET_DUMP_VERSION);
  put_i32 (out, (gint32) n_records);
  put_floats (out, &loss, 1);
  for (guint i = 0; i < ct_net_n_blobs (net); i++)
    if (!put_record (out, 0, ct_net_get_blob_name (net, i), (int) i, ct_net_get_blob (net, i),
                     error))
      return FALSE;
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      CtLayer *layer = ct_net_get_layer (net, i);

      for (guint j = 0; j < layer->blobs->len; j++)
        if (!put_record (out, 1, ct_layer_get_name (layer), (int) j, layer->blobs->pdata[j],
                         error))
          return FALSE;
    }
  return ct_file_write_atomic (path, out->data, out->len, error);
}
