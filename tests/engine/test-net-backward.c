/* test-net-backward.c: which layers and blobs of a CtNet need backward
 * (lr_mult 0, branches without a loss), loss weights, and parameters
 * shared by name, with their errors and summed gradients. */
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "net.h"
#include "text-format.h"
#include "net-test-util.h"

/* Backward decisions */

static void
test_backward_needs (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (CtNet) forced = NULL;
  g_autofree char *forced_text = g_strconcat ("force_backward: true\n", ct_test_classifier, NULL);

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
  forced = ct_test_build_ok (forced_text, CAFFE__PHASE__TRAIN);
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
  g_autoptr (CtNet) net = ct_test_build_ok (
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
  g_autoptr (CtNet) net = ct_test_build_ok (
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
  g_autoptr (CtNet) net = ct_test_build_ok (
    "force_backward: true\n"
    "layer { name: 'in' type: 'Input' top: 'x' top: 'y'\n"
    "  input_param { shape { dim: 2 dim: 3 } } }\n"
    "layer { name: 'l2' type: 'EuclideanLoss' bottom: 'x' bottom: 'y' top: 'l2'\n"
    "  loss_weight: 2.5 }\n", CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  float loss = 0.0f;
  float value;

  ct_test_fill_sine (ct_net_blob_by_name (net, "x"), 0.0);
  ct_test_fill_sine (ct_net_blob_by_name (net, "y"), 2.0);
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
  return ct_test_build (text, CAFFE__PHASE__TRAIN, error);
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

  net = ct_test_build_ok (text, CAFFE__PHASE__TRAIN);
  ct_test_fill_sine (ct_net_blob_by_name (net, "x"), 0.0);
  ct_test_fill_sine (ct_net_blob_by_name (net, "y"), 0.7);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/net/backward/needs", test_backward_needs);
  g_test_add_func ("/engine/net/backward/lr-mult-zero", test_backward_lr_mult_zero);
  g_test_add_func ("/engine/net/backward/no-loss-branch", test_backward_no_loss_branch);
  g_test_add_func ("/engine/net/loss-weights", test_loss_weights);
  g_test_add_func ("/engine/net/sharing/basic", test_sharing);
  g_test_add_func ("/engine/net/sharing/errors", test_sharing_errors);
  g_test_add_func ("/engine/net/sharing/gradients", test_sharing_gradients);
  return g_test_run ();
}
