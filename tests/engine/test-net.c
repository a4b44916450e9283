/* test-net.c: CtNet as Caffe's Net behaves: NetState filtering, split
 * insertion with Caffe's names, in-place layers, parameter sharing, which
 * layers and blobs need backward, loss weights, running ranges, observers,
 * reshaping, seeds, loading and saving weights, and shape inference that
 * goes on past errors. */
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "net.h"
#include "text-format.h"

static void
net_param_free (Caffe__NetParameter *param)
{
  if (param != NULL)
    protobuf_c_message_free_unpacked (&param->base, NULL);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Caffe__NetParameter, net_param_free)

static Caffe__NetParameter *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                         "test.prototxt", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__NetParameter *) msg;
}

static CtNet *
build (const char *text, Caffe__Phase phase, GError **error)
{
  g_autoptr (Caffe__NetParameter) param = parse (text);

  return ct_net_new (param, phase, 0, NULL, 1701, error);
}

static CtNet *
build_ok (const char *text, Caffe__Phase phase)
{
  g_autoptr (GError) error = NULL;
  CtNet *net = build (text, phase, &error);

  g_assert_no_error (error);
  g_assert_nonnull (net);
  return net;
}

static void
fill_sine (CtBlob *blob, double offset)
{
  float *data = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    data[i] = (float) sin (0.1 * (double) i + offset);
}

static void
fill_labels (CtBlob *blob, int n_classes)
{
  float *data = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    data[i] = (float) (i % n_classes);
}

static gboolean
has_layer (CtNet *net, const char *name)
{
  return ct_net_layer_index (net, name) >= 0;
}

/* A small classifier used by several tests: data 4x6 -> ip1 (5) -> relu
 * (in place) -> ip2 (3) -> loss with label. */
static const char *classifier =
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

static void
fill_classifier_inputs (CtNet *net)
{
  fill_sine (ct_net_blob_by_name (net, "data"), 0.0);
  fill_labels (ct_net_blob_by_name (net, "label"), 3);
}

/* NetState rules */

static const char *filtered =
  "name: 'filtered'\n"
  "layer { name: 'input' type: 'Input' top: 'data' input_param { shape { dim: 2 dim: 3 } } }\n"
  "layer { name: 'train_only' type: 'ReLU' bottom: 'data' top: 'a' include { phase: TRAIN } }\n"
  "layer { name: 'test_only' type: 'ReLU' bottom: 'data' top: 'a' include { phase: TEST } }\n"
  "layer { name: 'not_test' type: 'ReLU' bottom: 'a' top: 'b' exclude { phase: TEST } }\n"
  "layer { name: 'level2' type: 'ReLU' bottom: 'a' top: 'c' include { min_level: 2 } }\n"
  "layer { name: 'upto1' type: 'ReLU' bottom: 'a' top: 'd' include { max_level: 1 } }\n"
  "layer { name: 'staged' type: 'ReLU' bottom: 'a' top: 'e'\n"
  "  include { stage: 'x' stage: 'y' } }\n"
  "layer { name: 'not_x' type: 'ReLU' bottom: 'a' top: 'f' include { not_stage: 'x' } }\n"
  "layer { name: 'either' type: 'ReLU' bottom: 'a' top: 'g'\n"
  "  include { stage: 'x' } include { phase: TRAIN } }\n";

static void
test_filter_rules (void)
{
  g_autoptr (Caffe__NetParameter) param = parse (filtered);
  g_autoptr (GError) error = NULL;
  const char *const xy[] = { "x", "y", NULL };
  const char *const x[] = { "x", NULL };
  g_autoptr (CtNet) test0 = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1, &error);
  g_autoptr (CtNet) train3 = NULL;
  g_autoptr (CtNet) test_xy = NULL;
  g_autoptr (CtNet) test_x = NULL;

  g_assert_no_error (error);
  g_assert_true (has_layer (test0, "test_only"));
  g_assert_false (has_layer (test0, "train_only"));
  g_assert_false (has_layer (test0, "not_test"));
  g_assert_false (has_layer (test0, "level2"));
  g_assert_true (has_layer (test0, "upto1"));
  g_assert_false (has_layer (test0, "staged"));
  g_assert_true (has_layer (test0, "not_x"));
  g_assert_false (has_layer (test0, "either"));

  train3 = ct_net_new (param, CAFFE__PHASE__TRAIN, 3, NULL, 1, &error);
  g_assert_no_error (error);
  g_assert_true (has_layer (train3, "train_only"));
  g_assert_false (has_layer (train3, "test_only"));
  g_assert_true (has_layer (train3, "not_test"));
  g_assert_true (has_layer (train3, "level2"));
  g_assert_false (has_layer (train3, "upto1"));
  g_assert_true (has_layer (train3, "either"));
  g_assert_cmpint (ct_net_get_phase (train3), ==, CAFFE__PHASE__TRAIN);
  /* Every layer gets the net's phase. */
  for (guint i = 0; i < ct_net_n_layers (train3); i++)
    g_assert_cmpint (ct_net_get_layer (train3, i)->phase, ==, CAFFE__PHASE__TRAIN);

  test_xy = ct_net_new (param, CAFFE__PHASE__TEST, 0, xy, 1, &error);
  g_assert_no_error (error);
  g_assert_true (has_layer (test_xy, "staged"));
  g_assert_false (has_layer (test_xy, "not_x"));
  g_assert_true (has_layer (test_xy, "either"));

  test_x = ct_net_new (param, CAFFE__PHASE__TEST, 0, x, 1, &error);
  g_assert_no_error (error);
  g_assert_false (has_layer (test_x, "staged"));
  g_assert_true (has_layer (test_x, "either"));
}

static void
test_filter_state_stages (void)
{
  /* Stages in the NetParameter's own state count, and ours are added. */
  g_autoptr (Caffe__NetParameter) param = parse (
    "state { stage: 'y' }\n"
    "layer { name: 'input' type: 'Input' top: 'data' input_param { shape { dim: 2 } } }\n"
    "layer { name: 'staged' type: 'ReLU' bottom: 'data' top: 'e'\n"
    "  include { stage: 'x' stage: 'y' } }\n");
  const char *const x[] = { "x", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) without = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1, &error);
  g_autoptr (CtNet) with = NULL;

  g_assert_no_error (error);
  g_assert_false (has_layer (without, "staged"));
  with = ct_net_new (param, CAFFE__PHASE__TEST, 0, x, 1, &error);
  g_assert_no_error (error);
  g_assert_true (has_layer (with, "staged"));
}

static void
test_filter_include_and_exclude (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = build (
    "layer { name: 'input' type: 'Input' top: 'data' input_param { shape { dim: 2 } } }\n"
    "layer { name: 'both' type: 'ReLU' bottom: 'data' top: 'a'\n"
    "  include { phase: TEST } exclude { phase: TRAIN } }\n", CAFFE__PHASE__TEST, &error);

  g_assert_null (net);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "'both'"));
}

/* Splits */

static void
test_split_names (void)
{
  g_autoptr (CtNet) net = build_ok (
    "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2 dim: 3 } } }\n"
    "layer { name: 'a' type: 'ReLU' bottom: 'x' top: 'a' }\n"
    "layer { name: 'b' type: 'Sigmoid' bottom: 'x' top: 'b' }\n"
    "layer { name: 'c' type: 'Eltwise' bottom: 'x' bottom: 'a' top: 'c' }\n",
    CAFFE__PHASE__TEST);
  const char *expected_blobs[] = { "x", "x_in_0_split_0", "x_in_0_split_1", "x_in_0_split_2",
                                   "a", "b", "c" };
  const char *expected_layers[] = { "in", "x_in_0_split", "a", "b", "c" };
  GPtrArray *bottoms;

  g_assert_cmpuint (ct_net_n_blobs (net), ==, G_N_ELEMENTS (expected_blobs));
  for (guint i = 0; i < G_N_ELEMENTS (expected_blobs); i++)
    g_assert_cmpstr (ct_net_get_blob_name (net, i), ==, expected_blobs[i]);
  g_assert_cmpuint (ct_net_n_layers (net), ==, G_N_ELEMENTS (expected_layers));
  for (guint i = 0; i < G_N_ELEMENTS (expected_layers); i++)
    g_assert_cmpstr (ct_layer_get_name (ct_net_get_layer (net, i)), ==, expected_layers[i]);
  g_assert_cmpstr (ct_layer_get_type (ct_net_get_layer (net, 1)), ==, "Split");
  /* Readers get the split tops in order. */
  bottoms = ct_net_get_bottoms (net, 4);
  g_assert_true (bottoms->pdata[0] == ct_net_blob_by_name (net, "x_in_0_split_2"));
  g_assert_true (bottoms->pdata[1] == ct_net_blob_by_name (net, "a"));
  g_assert_true (ct_net_get_bottoms (net, 2)->pdata[0] ==
                 ct_net_blob_by_name (net, "x_in_0_split_0"));
  /* The only output is what nobody reads. */
  g_assert_cmpuint (ct_net_n_outputs (net), ==, 2);
  g_assert_cmpstr (ct_net_get_blob_name (net, ct_net_output_index (net, 0)), ==, "b");
  g_assert_cmpstr (ct_net_get_blob_name (net, ct_net_output_index (net, 1)), ==, "c");
  g_assert_cmpuint (ct_net_n_inputs (net), ==, 1);
  g_assert_cmpuint (ct_net_input_index (net, 0), ==, 0);
}

static void
test_split_loss_weight (void)
{
  /* A weighted top that is also read: the Split's first top carries the
   * weight and the producer's weight is cleared, as in Caffe. */
  g_autoptr (CtNet) net = build_ok (
    "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2 dim: 3 } } }\n"
    "layer { name: 'p' type: 'Power' bottom: 'x' top: 'p' loss_weight: 3 }\n"
    "layer { name: 'twice' type: 'Power' bottom: 'p' top: 't' loss_weight: 1\n"
    "  power_param { scale: 2 } }\n",
    CAFFE__PHASE__TRAIN);
  int split = ct_net_layer_index (net, "p_p_0_split");
  CtLayer *layer;
  float loss = 0.0f, sum = 0.0f;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (split, ==, 2);
  layer = ct_net_get_layer (net, split);
  g_assert_cmpuint (layer->param->n_top, ==, 2);
  g_assert_cmpuint (layer->param->n_loss_weight, ==, 2);
  g_assert_cmpfloat (layer->param->loss_weight[0], ==, 3.0f);
  g_assert_cmpfloat (layer->param->loss_weight[1], ==, 0.0f);
  g_assert_cmpuint (ct_net_layer_by_name (net, "p")->param->n_loss_weight, ==, 0);
  g_assert_cmpfloat (ct_net_blob_loss_weight (net, ct_net_blob_index (net, "p")), ==, 0.0f);
  g_assert_cmpfloat (ct_net_blob_loss_weight (net, ct_net_blob_index (net, "p_p_0_split_0")),
                     ==, 3.0f);
  /* The reader got split top 1, since 0 went to the loss. */
  g_assert_true (ct_net_get_bottoms (net, 3)->pdata[0] ==
                 ct_net_blob_by_name (net, "p_p_0_split_1"));

  fill_sine (ct_net_blob_by_name (net, "x"), 0.5);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 6; i++)
    sum += ct_blob_cpu_data (ct_net_blob_by_name (net, "x"), NULL)[i];
  g_assert_cmpfloat_with_epsilon (loss, 3.0f * sum + 2.0f * sum, 1e-5);
}

static void
test_in_place (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
  int relu = ct_net_layer_index (net, "relu1");

  g_assert_cmpint (relu, ==, 2);
  g_assert_true (ct_net_get_bottoms (net, relu)->pdata[0] == ct_net_get_tops (net, relu)->pdata[0]);
  /* data, label, ip1, ip2, loss: ReLU made no blob. */
  g_assert_cmpuint (ct_net_n_blobs (net), ==, 5);
}

/* Errors a prototxt can make */

static void
assert_build_error (const char *text, const char *const *fragments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = build (text, CAFFE__PHASE__TEST, &error);

  g_assert_null (net);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  for (guint i = 0; fragments[i] != NULL; i++)
    if (strstr (error->message, fragments[i]) == NULL)
      g_error ("'%s' is not in '%s'", fragments[i], error->message);
}

static void
test_build_errors (void)
{
  const char *unknown_bottom[] = { "'relu'", "'nothing'", NULL };
  const char *cycle[] = { "'a'", "'b'", NULL };
  const char *duplicate[] = { "'second'", "'a'", NULL };
  const char *unknown_type[] = { "'mystery'", "'Convolutionn'", "InnerProduct", NULL };
  const char *propagate[] = { "'relu'", "propagate_down", NULL };
  const char *too_many_specs[] = { "'relu'", "param", NULL };
  const char *input = "layer { name: 'in' type: 'Input' top: 'x' "
                      "input_param { shape { dim: 2 dim: 3 } } }\n";
  g_autofree char *t1 = g_strconcat (input,
    "layer { name: 'relu' type: 'ReLU' bottom: 'nothing' top: 'y' }\n", NULL);
  g_autofree char *t2 = g_strconcat (input,
    "layer { name: 'a' type: 'ReLU' bottom: 'b' top: 'a' }\n"
    "layer { name: 'b' type: 'ReLU' bottom: 'a' top: 'b' }\n", NULL);
  g_autofree char *t3 = g_strconcat (input,
    "layer { name: 'first' type: 'ReLU' bottom: 'x' top: 'a' }\n"
    "layer { name: 'second' type: 'Sigmoid' bottom: 'x' top: 'a' }\n", NULL);
  g_autofree char *t4 = g_strconcat (input,
    "layer { name: 'mystery' type: 'Convolutionn' bottom: 'x' top: 'y' }\n", NULL);
  g_autofree char *t5 = g_strconcat (input,
    "layer { name: 'relu' type: 'ReLU' bottom: 'x' top: 'y' propagate_down: true "
    "propagate_down: false }\n", NULL);
  g_autofree char *t6 = g_strconcat (input,
    "layer { name: 'relu' type: 'ReLU' bottom: 'x' top: 'y' param { lr_mult: 1 } }\n", NULL);

  assert_build_error (t1, unknown_bottom);
  assert_build_error (t2, cycle);
  assert_build_error (t3, duplicate);
  assert_build_error (t4, unknown_type);
  assert_build_error (t5, propagate);
  assert_build_error (t6, too_many_specs);
}

static void
test_build_error_setup (void)
{
  /* A shape mismatch found by a layer's setup names the layer. */
  const char *eltwise[] = { "'sum'", NULL };

  assert_build_error (
    "layer { name: 'in' type: 'Input' top: 'x' top: 'y'\n"
    "  input_param { shape { dim: 2 dim: 3 } shape { dim: 2 dim: 4 } } }\n"
    "layer { name: 'sum' type: 'Eltwise' bottom: 'x' bottom: 'y' top: 'z' }\n", eltwise);
}

static void
test_build_error_layer_params (void)
{
  const char *kernel[] = { "'conv'", NULL };
  const char *zero[] = { "'ip'", "num_output", NULL };
  const char *concat[] = { "'cat'", NULL };
  const char *input = "layer { name: 'in' type: 'Input' top: 'x' top: 'y'\n"
                      "  input_param { shape { dim: 2 dim: 3 dim: 4 dim: 4 }\n"
                      "                shape { dim: 2 dim: 3 dim: 5 dim: 4 } } }\n";
  g_autofree char *big_kernel = g_strconcat (input,
    "layer { name: 'conv' type: 'Convolution' bottom: 'x' top: 'c'\n"
    "  convolution_param { num_output: 2 kernel_size: 5 pad: 0 } }\n", NULL);
  g_autofree char *no_outputs = g_strconcat (input,
    "layer { name: 'ip' type: 'InnerProduct' bottom: 'x' top: 'c'\n"
    "  inner_product_param { num_output: 0 } }\n", NULL);
  g_autofree char *bad_concat = g_strconcat (input,
    "layer { name: 'cat' type: 'Concat' bottom: 'x' bottom: 'y' top: 'c' }\n", NULL);

  assert_build_error (big_kernel, kernel);
  assert_build_error (no_outputs, zero);
  assert_build_error (bad_concat, concat);
}

static void
test_strict_unknown_text (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (Caffe__NetParameter) param = (Caffe__NetParameter *) ct_text_parse (
    &caffe__net_parameter__descriptor,
    "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2 } } }\n"
    "layer { name: 'r' type: 'ReLU' bottom: 'x' top: 'y'\n"
    "  prior_box_param { min_size: 3 } }\n", -1, "fork.prototxt", CT_TEXT_LENIENT, &error);
  CtNetConfig config = { .phase = CAFFE__PHASE__TEST, .source_name = "fork.prototxt" };
  g_autoptr (CtNet) net = NULL;

  g_assert_no_error (error);
  net = ct_net_new_with_config (param, &config, &error);
  g_assert_null (net);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "fork.prototxt:3:3"));
  g_assert_nonnull (strstr (error->message, "prior_box_param"));
}

/* Backward decisions */

static void
test_backward_needs (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (CtNet) forced = NULL;
  g_autofree char *forced_text = g_strconcat ("force_backward: true\n", classifier, NULL);

  /* Without force_backward no input needs a gradient, every layer but
   * the input runs backward. */
  g_assert_false (ct_net_blob_need_backward (net, ct_net_blob_index (net, "data")));
  g_assert_false (ct_net_blob_need_backward (net, ct_net_blob_index (net, "label")));
  g_assert_true (ct_net_blob_need_backward (net, ct_net_blob_index (net, "ip1")));
  g_assert_false (ct_net_layer_need_backward (net, 0));
  for (guint i = 1; i < ct_net_n_layers (net); i++)
    g_assert_true (ct_net_layer_need_backward (net, i));
  g_assert_false (ct_net_bottom_need_backward (net, 1, 0));
  g_assert_true (ct_net_bottom_need_backward (net, 4, 0));
  g_assert_false (ct_net_bottom_need_backward (net, 4, 1));
  g_assert_cmpfloat (ct_net_blob_loss_weight (net, ct_net_blob_index (net, "loss")), ==, 1.0f);

  /* force_backward asks for the data's gradient, never the label's. */
  forced = build_ok (forced_text, CAFFE__PHASE__TRAIN);
  g_assert_true (ct_net_blob_need_backward (forced, ct_net_blob_index (forced, "data")));
  g_assert_false (ct_net_blob_need_backward (forced, ct_net_blob_index (forced, "label")));
  g_assert_true (ct_net_bottom_need_backward (forced, 1, 0));
  g_assert_false (ct_net_bottom_need_backward (forced, 4, 1));
  g_assert_true (ct_net_layer_need_backward (forced, 0));
}

static void
test_backward_lr_mult_zero (void)
{
  /* ip1 frozen: nothing below the first learnable layer needs backward. */
  g_autoptr (CtNet) net = build_ok (
    "layer { name: 'input' type: 'Input' top: 'data' top: 'label'\n"
    "  input_param { shape { dim: 4 dim: 6 } shape { dim: 4 } } }\n"
    "layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1'\n"
    "  param { lr_mult: 0 } param { lr_mult: 0 }\n"
    "  inner_product_param { num_output: 5 } }\n"
    "layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'r1' }\n"
    "layer { name: 'ip2' type: 'InnerProduct' bottom: 'r1' top: 'ip2'\n"
    "  param { lr_mult: 1 } param { lr_mult: 0 }\n"
    "  inner_product_param { num_output: 3 } }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }\n",
    CAFFE__PHASE__TRAIN);
  CtLayer *ip2 = ct_net_layer_by_name (net, "ip2");

  g_assert_false (ct_net_layer_need_backward (net, 1));
  g_assert_false (ct_net_layer_need_backward (net, 2));
  g_assert_true (ct_net_layer_need_backward (net, 3));
  g_assert_false (ct_net_bottom_need_backward (net, 3, 0));
  g_assert_false (ct_net_blob_need_backward (net, ct_net_blob_index (net, "ip1")));
  g_assert_true (ct_layer_param_propagate_down (ip2, 0));
  g_assert_false (ct_layer_param_propagate_down (ip2, 1));
  g_assert_false (ct_layer_param_propagate_down (ct_net_layer_by_name (net, "ip1"), 0));
}

static void
test_backward_no_loss_branch (void)
{
  /* A branch that reaches no loss (Accuracy) runs no backward; a bottom
   * with propagate_down: false gets no gradient, nor does its producer
   * when nobody else needs one. */
  g_autoptr (CtNet) net = build_ok (
    "layer { name: 'input' type: 'Input' top: 'data' top: 'label'\n"
    "  input_param { shape { dim: 4 dim: 6 } shape { dim: 4 } } }\n"
    "layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1'\n"
    "  inner_product_param { num_output: 3 } }\n"
    "layer { name: 'ip_side' type: 'InnerProduct' bottom: 'data' top: 'side'\n"
    "  inner_product_param { num_output: 3 } }\n"
    "layer { name: 'acc' type: 'Accuracy' bottom: 'side' bottom: 'label' top: 'acc' }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip1' bottom: 'label' top: 'loss'\n"
    "  propagate_down: false propagate_down: false }\n",
    CAFFE__PHASE__TRAIN);

  g_assert_false (ct_net_layer_need_backward (net, ct_net_layer_index (net, "acc")));
  g_assert_false (ct_net_layer_need_backward (net, ct_net_layer_index (net, "ip_side")));
  /* The loss skips both bottoms (it still runs, as in Caffe, since its
   * top is a loss), so ip1's backward is skipped. */
  g_assert_true (ct_net_layer_need_backward (net, ct_net_layer_index (net, "loss")));
  g_assert_false (ct_net_bottom_need_backward (net, ct_net_layer_index (net, "loss"), 0));
  g_assert_false (ct_net_bottom_need_backward (net, ct_net_layer_index (net, "loss"), 1));
  g_assert_false (ct_net_layer_need_backward (net, ct_net_layer_index (net, "ip1")));
  /* data and label feed two layers each: two splits after the input. */
  g_assert_cmpint (ct_net_layer_index (net, "data_input_0_split"), ==, 1);
  g_assert_cmpint (ct_net_layer_index (net, "label_input_1_split"), ==, 2);
}

static void
test_loss_weights (void)
{
  g_autoptr (CtNet) net = build_ok (
    "force_backward: true\n"
    "layer { name: 'in' type: 'Input' top: 'x' top: 'y'\n"
    "  input_param { shape { dim: 2 dim: 3 } } }\n"
    "layer { name: 'l2' type: 'EuclideanLoss' bottom: 'x' bottom: 'y' top: 'l2'\n"
    "  loss_weight: 2.5 }\n", CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  float loss = 0.0f;
  float value;

  fill_sine (ct_net_blob_by_name (net, "x"), 0.0);
  fill_sine (ct_net_blob_by_name (net, "y"), 2.0);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  value = ct_blob_cpu_data (ct_net_blob_by_name (net, "l2"), NULL)[0];
  g_assert_cmpfloat (value, >, 0.0f);
  g_assert_cmpfloat_with_epsilon (loss, 2.5f * value, 1e-6);
  g_assert_cmpfloat (ct_net_blob_loss_weight (net, ct_net_blob_index (net, "l2")), ==, 2.5f);
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  /* d(2.5 * sum (x-y)^2 / 2N) / dx = 2.5 (x - y) / N, N = 2 */
  {
    const float *x = ct_blob_cpu_data (ct_net_blob_by_name (net, "x"), NULL);
    const float *y = ct_blob_cpu_data (ct_net_blob_by_name (net, "y"), NULL);
    const float *dx = ct_blob_cpu_diff (ct_net_blob_by_name (net, "x"), NULL);

    for (int i = 0; i < 6; i++)
      g_assert_cmpfloat_with_epsilon (dx[i], 2.5f * (x[i] - y[i]) / 2.0f, 1e-5);
  }
}

/* Parameter sharing */

#define SHARED_TEMPLATE \
  "layer { name: 'in' type: 'Input' top: 'x' top: 'y'\n" \
  "  input_param { shape { dim: 2 dim: 6 } shape { dim: 2 dim: %d } } }\n" \
  "layer { name: 'ip_a' type: 'InnerProduct' bottom: 'x' top: 'a'\n" \
  "  param { name: 'w' lr_mult: 2 } param { name: 'b' }\n" \
  "  inner_product_param { num_output: 4 weight_filler { type: 'gaussian' std: 1 } } }\n" \
  "layer { name: 'ip_b' type: 'InnerProduct' bottom: 'y' top: 'b'\n" \
  "  param { name: 'w' %s } param { name: '%s' decay_mult: 3 }\n" \
  "  inner_product_param { num_output: %d weight_filler { type: 'gaussian' std: 1 } } }\n"

static CtNet *
build_shared (int y_width, const char *spec_extra, int n_out, GError **error)
{
  /* The biases are shared only when the widths agree. */
  g_autofree char *text = g_strdup_printf (SHARED_TEMPLATE, y_width, spec_extra,
                                           n_out == 4 ? "b" : "b_own", n_out);
  return build (text, CAFFE__PHASE__TRAIN, error);
}

static void
test_sharing (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = build_shared (6, "", 4, &error);
  CtLayer *a, *b;
  const CtNetLearnable *w;

  g_assert_no_error (error);
  a = ct_net_layer_by_name (net, "ip_a");
  b = ct_net_layer_by_name (net, "ip_b");
  g_assert_cmpuint (ct_net_n_params (net), ==, 4);
  g_assert_cmpuint (ct_net_n_learnable (net), ==, 2);
  g_assert_cmpint (ct_net_get_param_owner (net, 0), ==, -1);
  g_assert_cmpint (ct_net_get_param_owner (net, 2), ==, 0);
  g_assert_cmpint (ct_net_get_param_owner (net, 3), ==, 1);
  g_assert_cmpstr (ct_net_get_param_display_name (net, 2), ==, "w");
  /* Same memory, data and diff. */
  g_assert_true (ct_blob_cpu_data (a->blobs->pdata[0], NULL) ==
                 ct_blob_cpu_data (b->blobs->pdata[0], NULL));
  g_assert_true (ct_blob_cpu_diff (a->blobs->pdata[0], NULL) ==
                 ct_blob_cpu_diff (b->blobs->pdata[0], NULL));
  w = ct_net_get_learnable (net, 0);
  g_assert_cmpfloat (w->lr_mult, ==, 2.0f);
  g_assert_true (w->has_lr_mult);
  g_assert_true (w->blob == a->blobs->pdata[0]);
  /* The sharer gave decay_mult for 'b': the owner adopts it. */
  g_assert_cmpfloat (ct_net_get_learnable (net, 1)->decay_mult, ==, 3.0f);
  g_assert_cmpuint (ct_net_get_param_learnable_id (net, 3), ==, 1);
}

static void
test_sharing_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) strict = build_shared (2, "", 12, &error);
  g_autoptr (CtNet) permissive = NULL;
  g_autoptr (CtNet) wrong_count = NULL;
  g_autoptr (CtNet) wrong_lr = NULL;

  /* 12x2 against 4x6: same count, other shape. */
  g_assert_null (strict);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'ip_b'"));
  g_assert_nonnull (strstr (error->message, "'ip_a'"));
  g_assert_nonnull (strstr (error->message, "4 6"));
  g_assert_nonnull (strstr (error->message, "12 2"));
  g_clear_error (&error);

  permissive = build_shared (2, "share_mode: PERMISSIVE", 12, &error);
  g_assert_no_error (error);
  g_assert_nonnull (permissive);

  wrong_count = build_shared (3, "share_mode: PERMISSIVE", 12, &error);
  g_assert_null (wrong_count);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);

  wrong_lr = build_shared (6, "lr_mult: 1", 4, &error);
  g_assert_null (wrong_lr);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "lr_mult"));
}

static void
test_sharing_gradients (void)
{
  /* A shared weight's diff is the sum of both layers' gradients. */
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  const char *text =
    "force_backward: true\n"
    "layer { name: 'in' type: 'Input' top: 'x' top: 'y'\n"
    "  input_param { shape { dim: 2 dim: 3 } } }\n"
    "layer { name: 'ip_a' type: 'InnerProduct' bottom: 'x' top: 'a' param { name: 'w' }\n"
    "  inner_product_param { num_output: 2 bias_term: false\n"
    "    weight_filler { type: 'gaussian' std: 1 } } }\n"
    "layer { name: 'ip_b' type: 'InnerProduct' bottom: 'y' top: 'b' param { name: 'w' }\n"
    "  inner_product_param { num_output: 2 bias_term: false\n"
    "    weight_filler { type: 'gaussian' std: 1 } } }\n"
    "layer { name: 'l' type: 'EuclideanLoss' bottom: 'a' bottom: 'b' top: 'l' }\n";
  CtLayer *a;
  const float *diff;
  float expected[6] = { 0 };

  net = build_ok (text, CAFFE__PHASE__TRAIN);
  fill_sine (ct_net_blob_by_name (net, "x"), 0.0);
  fill_sine (ct_net_blob_by_name (net, "y"), 0.7);
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);

  /* a - b = W (x - y) per row; dL/dW = sum_n (da_n x_n^T + db_n y_n^T). */
  {
    const float *x = ct_blob_cpu_data (ct_net_blob_by_name (net, "x"), NULL);
    const float *y = ct_blob_cpu_data (ct_net_blob_by_name (net, "y"), NULL);
    const float *da = ct_blob_cpu_diff (ct_net_blob_by_name (net, "a"), NULL);
    const float *db = ct_blob_cpu_diff (ct_net_blob_by_name (net, "b"), NULL);

    for (int n = 0; n < 2; n++)
      for (int o = 0; o < 2; o++)
        for (int k = 0; k < 3; k++)
          expected[o * 3 + k] += da[n * 2 + o] * x[n * 3 + k] + db[n * 2 + o] * y[n * 3 + k];
  }
  a = ct_net_layer_by_name (net, "ip_a");
  diff = ct_blob_cpu_diff (a->blobs->pdata[0], NULL);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (diff[i], expected[i], 1e-5);
}

/* Running */

static void
test_forward_from_to (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  float full = 0.0f, part1 = -1.0f, part2 = 0.0f;
  guint n = ct_net_n_layers (net);
  g_autofree float *diff = NULL;
  CtBlob *ip1_w;

  fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, &full, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (full, >, 0.0f);
  g_assert_true (ct_net_forward_from_to (net, 0, 2, &part1, &error));
  g_assert_cmpfloat (part1, ==, 0.0f);
  g_assert_true (ct_net_forward_from_to (net, 3, n - 1, &part2, &error));
  g_assert_cmpfloat (part2, ==, full);

  /* Backward in two parts equals one backward (diffs accumulate). */
  ip1_w = ct_net_layer_by_name (net, "ip1")->blobs->pdata[0];
  g_assert_true (ct_net_backward (net, &error));
  diff = g_memdup2 (ct_blob_cpu_diff (ip1_w, NULL), ct_blob_count (ip1_w) * sizeof (float));
  g_assert_true (ct_net_clear_param_diffs (net, &error));
  g_assert_cmpfloat (ct_blob_cpu_diff (ip1_w, NULL)[0], ==, 0.0f);
  g_assert_true (ct_net_backward_from_to (net, n - 1, 3, &error));
  g_assert_cmpfloat (ct_blob_cpu_diff (ip1_w, NULL)[0], ==, 0.0f);
  g_assert_true (ct_net_backward_from_to (net, 2, 0, &error));
  g_assert_no_error (error);
  for (gint64 i = 0; i < ct_blob_count (ip1_w); i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (ip1_w, NULL)[i], ==, diff[i]);

  /* Bad ranges are errors, not crashes. */
  g_assert_false (ct_net_forward_from_to (net, 2, 1, NULL, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ct_net_backward_from_to (net, n, 0, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID);
}

typedef struct {
  GString *log;
  CtNet *net;
  guint remove_id;
} ObserverLog;

static void
log_event (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  ObserverLog *log = user_data;
  const char *names[] = { "F", "f", "B", "b" };

  g_string_append_printf (log->log, "%s%u ", names[event], layer_index);
}

static void
remove_other (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  ObserverLog *log = user_data;

  if (log->remove_id != 0)
    ct_net_remove_observer (net, log->remove_id);
  log->remove_id = 0;
}

static void
count_destroy (gpointer data)
{
  (*(int *) data)++;
}

static void
test_observers (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  ObserverLog log = { g_string_new (NULL), net, 0 };
  ObserverLog remover = { NULL, net, 0 };
  int destroyed = 0;
  guint id = ct_net_add_observer (net, log_event, &log, NULL);
  guint id2;

  g_assert_cmpuint (id, !=, 0);
  fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  /* Backward tells about every layer, the input (which skips it) too. */
  g_assert_cmpstr (log.log->str, ==,
                   "F0 f0 F1 f1 F2 f2 F3 f3 F4 f4 B4 b4 B3 b3 B2 b2 B1 b1 B0 b0 ");

  g_string_truncate (log.log, 0);
  g_assert_true (ct_net_forward_from_to (net, 1, 2, NULL, &error));
  g_assert_cmpstr (log.log->str, ==, "F1 f1 F2 f2 ");

  /* An observer removing another during a pass. */
  id2 = ct_net_add_observer (net, remove_other, &remover, NULL);
  remover.remove_id = id;
  g_string_truncate (log.log, 0);
  g_assert_true (ct_net_forward_from_to (net, 0, 1, NULL, &error));
  /* The log ran before the remover in the first event only. */
  g_assert_cmpstr (log.log->str, ==, "F0 ");
  ct_net_remove_observer (net, id2);
  ct_net_remove_observer (net, ct_net_add_observer (net, log_event, &destroyed, count_destroy));
  g_assert_cmpint (destroyed, ==, 1);
  g_string_free (log.log, TRUE);
}

static void
test_timing (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;

  fill_classifier_inputs (net);
  for (int i = 0; i < 3; i++)
    {
      g_assert_true (ct_net_forward (net, NULL, &error));
      g_assert_true (ct_net_backward (net, &error));
    }
  g_assert_no_error (error);
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      const CtNetLayerTiming *t = ct_net_get_layer_timing (net, i);

      g_assert_cmpuint (t->forward_calls, ==, 3);
      g_assert_cmpuint (t->backward_calls, ==, i == 0 ? 0 : 3);
      g_assert_cmpfloat (t->forward_us, >=, 0.0);
    }
  g_assert_cmpfloat (ct_net_get_layer_timing (net, 1)->forward_us, >, 0.0);
  ct_net_reset_timing (net);
  g_assert_cmpuint (ct_net_get_layer_timing (net, 1)->forward_calls, ==, 0);
}

static void
test_reshape (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  const gint64 data_shape[] = { 7, 6 };
  const gint64 label_shape[] = { 7 };
  CtBlob *ip2 = ct_net_blob_by_name (net, "ip2");
  float loss = 0.0f;

  g_assert_cmpint (ct_blob_shape_at (ip2, 0, NULL), ==, 4);
  g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "data"), data_shape, 2, &error));
  g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "label"), label_shape, 1, &error));
  g_assert_true (ct_net_reshape (net, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_blob_shape_at (ip2, 0, NULL), ==, 7);
  g_assert_cmpint (ct_blob_shape_at (ip2, 1, NULL), ==, 3);
  fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  g_assert_true (isfinite (loss) && loss > 0.0f);

  /* A forward alone carries a new shape down, as in Caffe. */
  {
    const gint64 smaller[] = { 2, 6 };
    const gint64 smaller_label[] = { 2 };
    g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "data"), smaller, 2, &error));
    g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "label"), smaller_label, 1, &error));
    g_assert_true (ct_net_forward (net, &loss, &error));
    g_assert_no_error (error);
    g_assert_cmpint (ct_blob_shape_at (ip2, 0, NULL), ==, 2);
  }
}

static void
test_allocated_after_build (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);

  for (guint i = 0; i < ct_net_n_blobs (net); i++)
    {
      CtBlob *blob = ct_net_get_blob (net, i);
      g_assert_cmpint (ct_mem_get_head (ct_blob_get_data_mem (blob)), !=, CT_MEM_UNINITIALIZED);
      g_assert_cmpint (ct_mem_get_head (ct_blob_get_diff_mem (blob)), !=, CT_MEM_UNINITIALIZED);
    }
  for (guint i = 0; i < ct_net_n_params (net); i++)
    {
      CtBlob *blob = ct_net_get_param_blob (net, i);
      g_assert_cmpint (ct_mem_get_head (ct_blob_get_diff_mem (blob)), !=, CT_MEM_UNINITIALIZED);
    }
}

static void
test_seeds (void)
{
  g_autoptr (Caffe__NetParameter) param = parse (classifier);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) a = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 5, &error);
  g_autoptr (CtNet) b = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 5, &error);
  g_autoptr (CtNet) c = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 6, &error);
  CtBlob *wa, *wb, *wc;

  g_assert_no_error (error);
  wa = ct_net_layer_by_name (a, "ip1")->blobs->pdata[0];
  wb = ct_net_layer_by_name (b, "ip1")->blobs->pdata[0];
  wc = ct_net_layer_by_name (c, "ip1")->blobs->pdata[0];
  g_assert_cmpmem (ct_blob_cpu_data (wa, NULL), 30 * sizeof (float),
                   ct_blob_cpu_data (wb, NULL), 30 * sizeof (float));
  g_assert_true (memcmp (ct_blob_cpu_data (wa, NULL), ct_blob_cpu_data (wc, NULL),
                         30 * sizeof (float)) != 0);
  /* Layers get different seeds. */
  g_assert_true (ct_net_get_layer (a, 1)->seed != ct_net_get_layer (a, 3)->seed);
  g_assert_true (ct_net_get_layer (a, 1)->seed == ct_net_get_layer (b, 1)->seed);
}

/* Weights */

static void
test_caffemodel_round_trip (void)
{
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
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
    g_autoptr (Caffe__NetParameter) param = parse (classifier);
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
  fill_classifier_inputs (net);
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
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TEST);
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
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
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
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);
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

/* Shape inference */

static const char *half_broken =
  "name: 'half'\n"
  "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
  "  data_param { source: 'missing_lmdb' batch_size: 8 } }\n"
  "layer { name: 'in' type: 'Input' top: 'aux' input_param { shape { dim: 8 dim: 10 } } }\n"
  "layer { name: 'ip_data' type: 'InnerProduct' bottom: 'data' top: 'ip_data'\n"
  "  inner_product_param { num_output: 4 } }\n"
  "layer { name: 'ip_aux' type: 'InnerProduct' bottom: 'aux' top: 'ip_aux'\n"
  "  inner_product_param { num_output: 300 } }\n"
  "layer { name: 'bad' type: 'InnerProduct' bottom: 'ip_aux' top: 'bad'\n"
  "  inner_product_param { num_output: 0 } }\n"
  "layer { name: 'relu' type: 'ReLU' bottom: 'ip_aux' top: 'relu' }\n"
  "layer { name: 'ghost' type: 'ReLU' bottom: 'nowhere' top: 'ghost' }\n"
  "layer { name: 'after_ghost' type: 'ReLU' bottom: 'ghost' top: 'g2' }\n";

static void
test_infer_shapes (void)
{
  g_autoptr (Caffe__NetParameter) param = parse (half_broken);
  CtNetConfig config = { .phase = CAFFE__PHASE__TEST };
  g_autoptr (CtNetShapes) shapes = ct_net_infer_shapes (param, &config);
  const char *names[] = { "data", "in", "ip_data", "ip_aux", "ip_aux_ip_aux_0_split",
                          "bad", "relu", "ghost", "after_ghost" };
  const CtNetLayerStatus expected[] = { CT_NET_LAYER_FAILED, CT_NET_LAYER_OK,
                                        CT_NET_LAYER_SKIPPED, CT_NET_LAYER_OK,
                                        CT_NET_LAYER_OK, CT_NET_LAYER_FAILED,
                                        CT_NET_LAYER_OK, CT_NET_LAYER_FAILED,
                                        CT_NET_LAYER_SKIPPED };
  CtNetShapeLayer *l;
  CtNetShapeBlob *top;

  g_assert_no_error (shapes->error);
  g_assert_cmpuint (shapes->layers->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      l = shapes->layers->pdata[i];
      g_test_message ("%s: %d %s", l->name, l->status, l->error ? l->error->message : "");
      g_assert_cmpstr (l->name, ==, names[i]);
      g_assert_cmpint (l->status, ==, expected[i]);
      g_assert_true ((l->error != NULL) == (l->status != CT_NET_LAYER_OK));
    }
  g_assert_cmpuint (shapes->n_failed, ==, 3);
  g_assert_cmpuint (shapes->n_skipped, ==, 2);

  l = shapes->layers->pdata[0];
  /* No such type yet, or no such database: either way the layer. */
  g_assert_nonnull (strstr (l->error->message, "'data'"));
  g_assert_cmpuint (l->tops->len, ==, 2);
  g_assert_false (((CtNetShapeBlob *) l->tops->pdata[0])->known);
  l = shapes->layers->pdata[2];
  g_assert_nonnull (strstr (l->error->message, "'data'"));
  l = shapes->layers->pdata[3];
  g_assert_cmpint (l->source_index, ==, 3);
  top = l->tops->pdata[0];
  g_assert_true (top->known);
  g_assert_cmpuint (top->n_axes, ==, 2);
  g_assert_cmpint (top->dims[0], ==, 8);
  g_assert_cmpint (top->dims[1], ==, 300);
  g_assert_cmpuint (l->params->len, ==, 2);
  g_assert_cmpint (((CtNetShapeBlob *) l->params->pdata[0])->dims[1], ==, 10);
  l = shapes->layers->pdata[4];
  g_assert_cmpint (l->source_index, ==, -1);
  g_assert_cmpuint (l->tops->len, ==, 2);
  l = shapes->layers->pdata[6];
  g_assert_cmpstr (((CtNetShapeBlob *) l->bottoms->pdata[0])->name, ==,
                   "ip_aux_ip_aux_0_split_1");
  g_assert_cmpint (((CtNetShapeBlob *) l->tops->pdata[0])->dims[1], ==, 300);
  l = shapes->layers->pdata[7];
  g_assert_nonnull (strstr (l->error->message, "'nowhere'"));
  g_assert_cmpstr (l->param->name, ==, "ghost");
}

static void
test_infer_shapes_good_net (void)
{
  /* On a sound net, inference and a real build agree. */
  g_autoptr (Caffe__NetParameter) param = parse (classifier);
  CtNetConfig config = { .phase = CAFFE__PHASE__TRAIN };
  g_autoptr (CtNetShapes) shapes = ct_net_infer_shapes (param, &config);
  g_autoptr (CtNet) net = build_ok (classifier, CAFFE__PHASE__TRAIN);

  g_assert_cmpuint (shapes->n_failed + shapes->n_skipped, ==, 0);
  g_assert_cmpuint (shapes->layers->len, ==, ct_net_n_layers (net));
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      CtNetShapeLayer *l = shapes->layers->pdata[i];
      GPtrArray *tops = ct_net_get_tops (net, i);

      g_assert_cmpuint (l->tops->len, ==, tops->len);
      for (guint j = 0; j < tops->len; j++)
        {
          CtNetShapeBlob *s = l->tops->pdata[j];
          g_assert_true (s->known);
          g_assert_cmpuint (s->n_axes, ==, ct_blob_num_axes (tops->pdata[j]));
          if (s->n_axes > 0)
            g_assert_cmpmem (s->dims, s->n_axes * sizeof (gint64),
                             ct_blob_get_shape (tops->pdata[j]), s->n_axes * sizeof (gint64));
        }
    }
  /* relu1 computes in place. */
  g_assert_true (((CtNetShapeBlob *) ((CtNetShapeLayer *) shapes->layers->pdata[2])->tops->pdata[0])
                 ->in_place);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/net/filter/rules", test_filter_rules);
  g_test_add_func ("/net/filter/state-stages", test_filter_state_stages);
  g_test_add_func ("/net/filter/include-and-exclude", test_filter_include_and_exclude);
  g_test_add_func ("/net/split/names", test_split_names);
  g_test_add_func ("/net/split/loss-weight", test_split_loss_weight);
  g_test_add_func ("/net/in-place", test_in_place);
  g_test_add_func ("/net/errors/build", test_build_errors);
  g_test_add_func ("/net/errors/setup", test_build_error_setup);
  g_test_add_func ("/net/errors/layer-params", test_build_error_layer_params);
  g_test_add_func ("/net/errors/strict-unknown-text", test_strict_unknown_text);
  g_test_add_func ("/net/backward/needs", test_backward_needs);
  g_test_add_func ("/net/backward/lr-mult-zero", test_backward_lr_mult_zero);
  g_test_add_func ("/net/backward/no-loss-branch", test_backward_no_loss_branch);
  g_test_add_func ("/net/loss-weights", test_loss_weights);
  g_test_add_func ("/net/sharing/basic", test_sharing);
  g_test_add_func ("/net/sharing/errors", test_sharing_errors);
  g_test_add_func ("/net/sharing/gradients", test_sharing_gradients);
  g_test_add_func ("/net/run/from-to", test_forward_from_to);
  g_test_add_func ("/net/run/observers", test_observers);
  g_test_add_func ("/net/run/timing", test_timing);
  g_test_add_func ("/net/run/reshape", test_reshape);
  g_test_add_func ("/net/allocated", test_allocated_after_build);
  g_test_add_func ("/net/seeds", test_seeds);
  g_test_add_func ("/net/weights/round-trip", test_caffemodel_round_trip);
  g_test_add_func ("/net/weights/protoc", test_caffemodel_protoc);
  g_test_add_func ("/net/weights/errors", test_copy_weights_errors);
  g_test_add_func ("/net/weights/legacy", test_copy_weights_legacy);
  g_test_add_func ("/net/shapes/half-broken", test_infer_shapes);
  g_test_add_func ("/net/shapes/good-net", test_infer_shapes_good_net);
  return g_test_run ();
}
