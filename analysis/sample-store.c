/* sample-store.c: images kept for browsing. */
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "sample-store.h"

CtSampleStore *
ct_sample_store_new (gsize max_bytes)
{
  CtSampleStore *store = g_new0 (CtSampleStore, 1);

  store->max_bytes = max_bytes;
  store->values = g_byte_array_new ();
  return store;
}

void
ct_sample_store_free (CtSampleStore *store)
{
  if (store == NULL)
    return;
  g_byte_array_unref (store->values);
  g_free (store);
}

gboolean
ct_sample_store_add (CtSampleStore *store, CtBlob *blob, GError **error)
{
  const gint64 *dims = ct_blob_get_shape (blob);
  const float *data;
  gsize bytes;

  if (store->overflow)
    return TRUE;
  if (ct_blob_num_axes (blob) != 4)
    {
      g_set_error_literal (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                           _("only images (N × C × H × W) can be kept for browsing"));
      return FALSE;
    }
  if (store->count == 0)
    {
      store->channels = (guint) dims[1];
      store->height = (guint) dims[2];
      store->width = (guint) dims[3];
    }
  else if (dims[1] != store->channels || dims[2] != store->height || dims[3] != store->width)
    {
      g_set_error_literal (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                           _("the test images changed size between batches"));
      return FALSE;
    }
  bytes = (gsize) ct_blob_count (blob) * sizeof (float);
  if (store->values->len + bytes > store->max_bytes)
    {
      store->overflow = TRUE;
      store->count = 0;
      g_byte_array_set_size (store->values, 0);
      return TRUE;
    }
  data = ct_blob_cpu_data (blob, error);
  if (data == NULL)
    return FALSE;
  g_byte_array_append (store->values, (const guint8 *) data, (guint) bytes);
  store->count += (guint64) dims[0];
  return TRUE;
}

const float *
ct_sample_store_get (const CtSampleStore *store, guint64 index)
{
  gsize item = (gsize) store->channels * store->height * store->width;

  if (store->overflow || index >= store->count)
    return NULL;
  return (const float *) store->values->data + index * item;
}
