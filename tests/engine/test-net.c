/* test-net.c: building a CtNet as Caffe's Net builds one: NetState
 * filtering, split insertion with Caffe's names, in-place layers, errors
 * that name the layer, the blobs allocated after a build, seeds, and shape
 * inference that goes on past errors. */
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "error-place.h"
#include "net.h"
#include "text-format.h"
#include "net-test-util.h"

static gboolean
has_layer (CtNet *net, const char *name)
{
  return ct_net_layer_index (net, name) >= 0;
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
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (filtered);
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
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (
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
  g_autoptr (CtNet) net = ct_test_build (
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
  g_autoptr (CtNet) net = ct_test_build_ok (
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
  g_autoptr (CtNet) net = ct_test_build_ok (
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

  ct_test_fill_sine (ct_net_blob_by_name (net, "x"), 0.5);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 6; i++)
    sum += ct_blob_cpu_data (ct_net_blob_by_name (net, "x"), NULL)[i];
  g_assert_cmpfloat_with_epsilon (loss, 3.0f * sum + 2.0f * sum, 1e-5);
}

static void
test_in_place (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
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
  g_autoptr (CtNet) net = ct_test_build (text, CAFFE__PHASE__TEST, &error);

  g_assert_null (net);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  for (guint i = 0; fragments[i] != NULL; i++)
    if (strstr (error->message, fragments[i]) == NULL)
      g_error ("'%s' is not in '%s'", fragments[i], error->message);
}

/* As assert_build_error, and the layer FRAGMENTS[0] quotes is the one the
 * error carries as data. */
static void
assert_layer_error (const char *text, const char *const *fragments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_test_build (text, CAFFE__PHASE__TEST, &error);
  g_autofree char *layer = g_strndup (fragments[0] + 1, strlen (fragments[0]) - 2);

  g_assert_null (net);
  assert_build_error (text, fragments);
  g_assert_nonnull (error);
  g_assert_cmpstr (ct_error_get_layer (error), ==, layer);
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

  assert_layer_error (t1, unknown_bottom);
  assert_layer_error (t2, cycle);
  assert_layer_error (t3, duplicate);
  assert_layer_error (t4, unknown_type);
  assert_layer_error (t5, propagate);
  assert_layer_error (t6, too_many_specs);
}

static void
test_build_error_setup (void)
{
  /* A shape mismatch found by a layer's setup names the layer. */
  const char *eltwise[] = { "'sum'", NULL };

  assert_layer_error (
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

  assert_layer_error (big_kernel, kernel);
  assert_layer_error (no_outputs, zero);
  assert_layer_error (bad_concat, concat);
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

static void
test_allocated_after_build (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);

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
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (ct_test_classifier);
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
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (half_broken);
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
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (ct_test_classifier);
  CtNetConfig config = { .phase = CAFFE__PHASE__TRAIN };
  g_autoptr (CtNetShapes) shapes = ct_net_infer_shapes (param, &config);
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);

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

  g_test_add_func ("/engine/net/filter/rules", test_filter_rules);
  g_test_add_func ("/engine/net/filter/state-stages", test_filter_state_stages);
  g_test_add_func ("/engine/net/filter/include-and-exclude", test_filter_include_and_exclude);
  g_test_add_func ("/engine/net/split/names", test_split_names);
  g_test_add_func ("/engine/net/split/loss-weight", test_split_loss_weight);
  g_test_add_func ("/engine/net/in-place", test_in_place);
  g_test_add_func ("/engine/net/errors/ct_test_build", test_build_errors);
  g_test_add_func ("/engine/net/errors/setup", test_build_error_setup);
  g_test_add_func ("/engine/net/errors/layer-params", test_build_error_layer_params);
  g_test_add_func ("/engine/net/errors/strict-unknown-text", test_strict_unknown_text);
  g_test_add_func ("/engine/net/allocated", test_allocated_after_build);
  g_test_add_func ("/engine/net/seeds", test_seeds);
  g_test_add_func ("/engine/net/shapes/half-broken", test_infer_shapes);
  g_test_add_func ("/engine/net/shapes/good-net", test_infer_shapes_good_net);
  return g_test_run ();
}
