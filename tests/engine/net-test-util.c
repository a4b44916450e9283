/* net-test-util.c: the nets and inputs the CtNet tests share. */
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "net.h"
#include "text-format.h"
#include "net-test-util.h"

void
ct_test_net_param_free (Caffe__NetParameter *param)
{
  if (param != NULL)
    protobuf_c_message_free_unpacked (&param->base, NULL);
}

Caffe__NetParameter *
ct_test_parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                         "test.prototxt", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__NetParameter *) msg;
}

CtNet *
ct_test_build (const char *text, Caffe__Phase phase, GError **error)
{
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (text);

  return ct_net_new (param, phase, 0, NULL, 1701, error);
}

CtNet *
ct_test_build_ok (const char *text, Caffe__Phase phase)
{
  g_autoptr (GError) error = NULL;
  CtNet *net = ct_test_build (text, phase, &error);

  g_assert_no_error (error);
  g_assert_nonnull (net);
  return net;
}

void
ct_test_fill_sine (CtBlob *blob, double offset)
{
  float *data = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    data[i] = (float) sin (0.1 * (double) i + offset);
}

void
ct_test_fill_labels (CtBlob *blob, int n_classes)
{
  float *data = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    data[i] = (float) (i % n_classes);
}

/* A small classifier used by several tests: data 4x6 -> ip1 (5) -> relu
 * (in place) -> ip2 (3) -> loss with label. */
const char *ct_test_classifier =
  "name: 'tiny'\n"
  "layer { name: 'input' type: 'Input' top: 'data' top: 'label'\n"
  "  input_param { shape { dim: 4 dim: 6 } shape { dim: 4 } } }\n"
  "layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1'\n"
  "  inner_product_param { num_output: 5 weight_filler { type: 'gaussian' std: 0.5 }\n"
  "    bias_filler { type: 'constant' value: 0.1 } } }\n"
  "layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'ip1' }\n"
  "layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'\n"
  "  inner_product_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.5 } } }\n"
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }\n";

void
ct_test_fill_classifier_inputs (CtNet *net)
{
  ct_test_fill_sine (ct_net_blob_by_name (net, "data"), 0.0);
  ct_test_fill_labels (ct_net_blob_by_name (net, "label"), 3);
}
