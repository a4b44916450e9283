/* analysis-test-util.c: nets and blobs for the analysis tests. */
#include <string.h>

#include "analysis-test-util.h"
#include "layer.h"
#include "text-format.h"

CtNet *
ct_test_analysis_net (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *param = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                           "test.prototxt", CT_TEXT_STRICT, &error);
  CtNet *net;

  g_assert_no_error (error);
  net = ct_net_new ((Caffe__NetParameter *) param, CAFFE__PHASE__TEST, 0, NULL, 1701, &error);
  protobuf_c_message_free_unpacked (param, NULL);
  g_assert_no_error (error);
  return net;
}

void
ct_test_set_param (CtNet *net, const char *layer_name, guint param, const float *values,
                   gsize n)
{
  CtLayer *layer = ct_net_layer_by_name (net, layer_name);
  CtBlob *blob;

  g_assert_nonnull (layer);
  g_assert_cmpuint (param, <, layer->blobs->len);
  blob = layer->blobs->pdata[param];
  g_assert_cmpint (ct_blob_count (blob), ==, (gint64) n);
  memcpy (ct_blob_mutable_cpu_data (blob, NULL), values, n * sizeof (float));
}

void
ct_test_set_blob (CtNet *net, const char *name, const float *values, gsize n)
{
  CtBlob *blob = ct_net_blob_by_name (net, name);

  g_assert_nonnull (blob);
  g_assert_cmpint (ct_blob_count (blob), ==, (gint64) n);
  memcpy (ct_blob_mutable_cpu_data (blob, NULL), values, n * sizeof (float));
}
