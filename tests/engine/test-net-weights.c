/* test-net-weights.c: a CtNet's weights to and from .caffemodel files:
 * round trips, protoc as the oracle of the bytes, copy errors (names,
 * shapes) and legacy V1 models. */
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "net.h"
#include "text-format.h"
#include "net-test-util.h"

/* Weights */

static void
test_caffemodel_round_trip (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (CtNet) other = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ct-net-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "tiny.caffemodel", NULL);
  g_autoptr (Caffe__NetParameter) model = NULL;
  Caffe__NetParameter *proto;

  g_assert_no_error (error);
  g_assert_true (ct_net_write_caffemodel (net, path, FALSE, &error));
  g_assert_no_error (error);

  model = (Caffe__NetParameter *) ct_binary_read_file (&caffe__net_parameter__descriptor,
                                                       path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (model->name, ==, "tiny");
  g_assert_cmpuint (model->n_layer, ==, 5);
  g_assert_cmpstr (model->layer[1]->name, ==, "ip1");
  g_assert_cmpstr (model->layer[1]->type, ==, "InnerProduct");
  g_assert_true (model->layer[1]->has_phase);
  g_assert_cmpint (model->layer[1]->phase, ==, CAFFE__PHASE__TRAIN);
  g_assert_cmpuint (model->layer[1]->n_blobs, ==, 2);
  g_assert_nonnull (model->layer[1]->blobs[0]->shape);
  g_assert_cmpuint (model->layer[1]->blobs[0]->shape->n_dim, ==, 2);
  g_assert_cmpint (model->layer[1]->blobs[0]->shape->dim[0], ==, 5);
  g_assert_cmpint (model->layer[1]->blobs[0]->shape->dim[1], ==, 6);
  g_assert_cmpuint (model->layer[1]->blobs[0]->n_data, ==, 30);
  g_assert_cmpuint (model->layer[1]->blobs[0]->n_diff, ==, 0);

  /* Another seed, then the weights: identical parameters. */
  {
    g_autoptr (Caffe__NetParameter) param = ct_test_parse (ct_test_classifier);
    other = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 99, &error);
    g_assert_no_error (error);
  }
  g_assert_true (ct_net_copy_trained_layers_from_file (other, path, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < ct_net_n_params (net); i++)
    {
      CtBlob *x = ct_net_get_param_blob (net, i), *y = ct_net_get_param_blob (other, i);
      g_assert_cmpmem (ct_blob_cpu_data (x, NULL), ct_blob_count (x) * sizeof (float),
                       ct_blob_cpu_data (y, NULL), ct_blob_count (y) * sizeof (float));
    }

  /* With diffs. */
  ct_test_fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_true (ct_net_backward (net, &error));
  proto = ct_net_to_proto (net, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (proto->layer[1]->blobs[0]->n_diff, ==, 30);
  g_assert_cmpfloat (proto->layer[1]->blobs[0]->diff[3], ==,
                     ct_blob_cpu_diff (ct_net_get_param_blob (net, 0), NULL)[3]);
  protobuf_c_message_free_unpacked (&proto->base, NULL);

  g_remove (path);
  g_rmdir (dir);
}

/* protoc, the reference implementation, reads the caffemodel with the
 * schema: the bytes are what Caffe's protobuf reads. */
static void
test_caffemodel_protoc (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TEST);
  g_autoptr (GError) error = NULL;
  g_autofree char *protoc = g_find_program_in_path ("protoc");
  g_autofree char *dir = NULL, *path = NULL, *bytes = NULL, *out = NULL, *err = NULL;
  g_autofree char *proto_dir = g_build_filename (CT_TEST_SOURCE_DIR, "proto", NULL);
  g_autofree char *proto_path = g_strconcat ("--proto_path=", proto_dir, NULL);
  const char *argv[] = { protoc, proto_path, "--decode=caffe.NetParameter", "caffe.proto", NULL };
  gsize length = 0;
  int status = -1;

  if (protoc == NULL)
    {
      g_test_skip ("protoc is not installed");
      return;
    }
  dir = g_dir_make_tmp ("ct-net-XXXXXX", &error);
  path = g_build_filename (dir, "tiny.caffemodel", NULL);
  g_assert_true (ct_net_write_caffemodel (net, path, TRUE, &error));
  g_assert_true (g_file_get_contents (path, &bytes, &length, &error));
  g_assert_no_error (error);
  {
    /* protoc reads the message on its standard input. */
    g_autoptr (GSubprocess) proc = NULL;
    g_autoptr (GBytes) input = g_bytes_new (bytes, length);
    g_autoptr (GBytes) stdout_bytes = NULL, stderr_bytes = NULL;

    proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDIN_PIPE |
                              G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              &error);
    g_assert_no_error (error);
    g_assert_true (g_subprocess_communicate (proc, input, NULL, &stdout_bytes, &stderr_bytes,
                                             &error));
    g_assert_no_error (error);
    status = g_subprocess_get_exit_status (proc);
    out = g_strndup (g_bytes_get_data (stdout_bytes, NULL), g_bytes_get_size (stdout_bytes));
    err = g_strndup (g_bytes_get_data (stderr_bytes, NULL), g_bytes_get_size (stderr_bytes));
  }
  if (err != NULL && err[0] != '\0')
    g_test_message ("protoc: %s", err);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_str_has_prefix (out, "name: \"tiny\"\nlayer {\n  name: \"input\"\n"));
  g_assert_nonnull (strstr (out, "  name: \"ip2\"\n  type: \"InnerProduct\"\n"));
  g_assert_nonnull (strstr (out, "  phase: TEST\n"));
  g_assert_nonnull (strstr (out, "    shape {\n      dim: 3\n      dim: 5\n    }\n"));
  g_assert_nonnull (strstr (out, "    diff: "));
  g_remove (path);
  g_rmdir (dir);
}

static Caffe__NetParameter *
model_of (CtNet *net)
{
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *model = ct_net_to_proto (net, FALSE, &error);

  g_assert_no_error (error);
  return model;
}

static void
test_copy_weights_errors (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (Caffe__NetParameter) model = model_of (net);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *w = model->layer[3]->blobs[0];

  /* Extra layers in the model are ignored. */
  g_free (model->layer[0]->name);
  model->layer[0]->name = g_strdup ("not_in_the_net");
  g_assert_true (ct_net_copy_trained_layers_from (net, model, &error));
  g_assert_no_error (error);

  /* ip2 weights 3x5 in the net; 3x4 in the model. */
  w->shape->dim[1] = 4;
  w->n_data = 12;
  g_assert_false (ct_net_copy_trained_layers_from (net, model, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'ip2'"));
  g_assert_nonnull (strstr (error->message, "blob 0"));
  g_assert_nonnull (strstr (error->message, "3 4 (12)"));
  g_assert_nonnull (strstr (error->message, "3 5 (15)"));
  g_clear_error (&error);
  w->shape->dim[1] = 5;
  w->n_data = 15;

  /* A blob too few. */
  model->layer[3]->n_blobs = 1;
  g_assert_false (ct_net_copy_trained_layers_from (net, model, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "'ip2'"));
  model->layer[3]->n_blobs = 2;
}

static void
test_copy_weights_legacy (void)
{
  /* A legacy 4-D BlobProto (num/channels/height/width) for a 2-D weight,
   * inside a V1 `layers` entry. */
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (Caffe__NetParameter) model = g_new (Caffe__NetParameter, 1);
  g_autoptr (GError) error = NULL;
  Caffe__V1LayerParameter *v1 = g_new (Caffe__V1LayerParameter, 1);
  Caffe__BlobProto *blob = g_new (Caffe__BlobProto, 1);
  const float *w;

  caffe__net_parameter__init (model);
  caffe__v1_layer_parameter__init (v1);
  caffe__blob_proto__init (blob);
  v1->name = g_strdup ("ip2");
  v1->has_type = TRUE;
  v1->type = CAFFE__V1_LAYER_PARAMETER__LAYER_TYPE__INNER_PRODUCT;
  blob->has_num = blob->has_channels = blob->has_height = blob->has_width = TRUE;
  blob->num = 1;
  blob->channels = 1;
  blob->height = 3;
  blob->width = 5;
  blob->n_data = 15;
  blob->data = g_new (float, 15);
  for (int i = 0; i < 15; i++)
    blob->data[i] = (float) i;
  v1->n_blobs = 2;
  v1->blobs = g_new (Caffe__BlobProto *, 2);
  v1->blobs[0] = blob;
  v1->blobs[1] = g_new (Caffe__BlobProto, 1);
  caffe__blob_proto__init (v1->blobs[1]);
  v1->blobs[1]->has_num = v1->blobs[1]->has_channels = TRUE;
  v1->blobs[1]->has_height = v1->blobs[1]->has_width = TRUE;
  v1->blobs[1]->num = v1->blobs[1]->channels = v1->blobs[1]->height = 1;
  v1->blobs[1]->width = 3;
  v1->blobs[1]->n_data = 3;
  v1->blobs[1]->data = g_new0 (float, 3);
  model->n_layers = 1;
  model->layers = g_new (Caffe__V1LayerParameter *, 1);
  model->layers[0] = v1;

  g_assert_true (ct_net_copy_trained_layers_from (net, model, &error));
  g_assert_no_error (error);
  w = ct_blob_cpu_data (ct_net_layer_by_name (net, "ip2")->blobs->pdata[0], NULL);
  g_assert_cmpfloat (w[7], ==, 7.0f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/net/weights/round-trip", test_caffemodel_round_trip);
  g_test_add_func ("/engine/net/weights/protoc", test_caffemodel_protoc);
  g_test_add_func ("/engine/net/weights/errors", test_copy_weights_errors);
  g_test_add_func ("/engine/net/weights/legacy", test_copy_weights_legacy);
  return g_test_run ();
}
