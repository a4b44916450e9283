/* test-top-activations.c: receptive fields worked out by hand (LeNet's,
 * padding), and the images that excite a channel most in a batch made by
 * hand. */
#include <string.h>

#include "analysis-error.h"
#include "analysis-test-util.h"
#include "top-activations.h"

static const char *lenet_like =
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 28 dim: 28 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 2 kernel_size: 5 } }\n"
  "layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'conv2' type: 'Convolution' bottom: 'pool1' top: 'conv2'\n"
  "  convolution_param { num_output: 2 kernel_size: 5 } }\n"
  "layer { name: 'relu' type: 'ReLU' bottom: 'conv2' top: 'conv2' }\n"
  "layer { name: 'pool2' type: 'Pooling' bottom: 'conv2' top: 'pool2'\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'pad' type: 'Convolution' bottom: 'data' top: 'pad'\n"
  "  convolution_param { num_output: 1 kernel_size: 3 pad: 1 } }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'pool2' top: 'ip'\n"
  "  inner_product_param { num_output: 3 } }\n";

static void
check_field (CtNet *net, const char *blob, double size, double jump, double centre)
{
  g_autoptr (GError) error = NULL;
  CtReceptiveField f;

  g_assert_true (ct_receptive_field (net, (guint) ct_net_blob_index (net, "data"),
                                     (guint) ct_net_blob_index (net, blob), &f, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (f.size_h, ==, size);
  g_assert_cmpfloat (f.size_w, ==, size);
  g_assert_cmpfloat (f.jump_h, ==, jump);
  g_assert_cmpfloat (f.centre_h, ==, centre);
}

static void
test_receptive_field (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (lenet_like);
  CtReceptiveField f;
  int top, left, h, w;

  check_field (net, "data", 1, 1, 0);
  check_field (net, "conv1", 5, 1, 2);
  check_field (net, "pool1", 6, 2, 2.5);
  check_field (net, "conv2", 14, 2, 6.5);
  check_field (net, "pool2", 16, 4, 7.5);
  check_field (net, "pad", 3, 1, 0);
  check_field (net, "ip", 28, 0, 13.5);
  g_assert_true (ct_receptive_field (net, 0, (guint) ct_net_blob_index (net, "pool2"), &f, NULL));
  ct_receptive_field_box (&f, 1, 2, 28, 28, &top, &left, &h, &w);
  g_assert_cmpint (top, ==, 4);
  g_assert_cmpint (left, ==, 8);
  g_assert_cmpint (h, ==, 16);
  g_assert_cmpint (w, ==, 16);
  g_assert_true (ct_receptive_field (net, 0, (guint) ct_net_blob_index (net, "pad"), &f, NULL));
  ct_receptive_field_box (&f, 0, 27, 28, 28, &top, &left, &h, &w);
  g_assert_cmpint (top, ==, 0);
  g_assert_cmpint (h, ==, 2);
  g_assert_cmpint (left, ==, 26);
  g_assert_cmpint (w, ==, 2);
}

static const char *pick_net =
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 3 dim: 1 dim: 4 dim: 4 } } }\n"
  "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv'\n"
  "  convolution_param { num_output: 2 kernel_size: 1 } }\n";

static void
test_top (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (pick_net);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtTopActivations) top = NULL;
  const float w[] = { 1, -1 }, b[] = { 0, 0 };
  float images[48] = { 0 };
  const CtTopActivation *first, *second;

  images[0 * 16 + 1 * 4 + 2] = 5;  /* image 0: 5 at (1, 2) */
  images[1 * 16 + 3 * 4 + 0] = 9;  /* image 1: 9 at (3, 0) */
  images[2 * 16 + 0] = 2;          /* image 2: 2 at (0, 0), and −7 at (2, 2) */
  images[2 * 16 + 2 * 4 + 2] = -7;
  ct_test_set_param (net, "conv", 0, w, 2);
  ct_test_set_param (net, "conv", 1, b, 2);
  ct_test_set_blob (net, "data", images, 48);
  top = ct_top_activations_run (net, NULL, "conv", 0, 2, 1, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (top->items->len, ==, 2);
  first = &g_array_index (top->items, CtTopActivation, 0);
  second = &g_array_index (top->items, CtTopActivation, 1);
  g_assert_cmpuint (first->index, ==, 1);
  g_assert_cmpfloat (first->value, ==, 9);
  g_assert_cmpuint (first->y, ==, 3);
  g_assert_cmpuint (first->x, ==, 0);
  g_assert_cmpint (first->top, ==, 3);
  g_assert_cmpint (first->box_h, ==, 1);
  g_assert_cmpmem (first->image, 16 * sizeof (float), images + 16, 16 * sizeof (float));
  g_assert_cmpuint (second->index, ==, 0);
  g_assert_cmpuint (second->y, ==, 1);
  g_assert_cmpuint (second->x, ==, 2);
  {
    g_autofree float *patch = ct_top_activation_patch (top, second);

    g_assert_cmpfloat (patch[0], ==, 5);
  }
  g_clear_pointer (&top, ct_top_activations_free);

  /* channel 1 is −x: image 2's −(−7) wins; two passes number on */
  top = ct_top_activations_run (net, NULL, "conv", 1, 2, 2, NULL, NULL, &error);
  g_assert_no_error (error);
  first = &g_array_index (top->items, CtTopActivation, 0);
  second = &g_array_index (top->items, CtTopActivation, 1);
  g_assert_cmpuint (first->index, ==, 2);
  g_assert_cmpfloat (first->value, ==, 7);
  g_assert_cmpuint (second->index, ==, 5);
  g_clear_pointer (&top, ct_top_activations_free);

  top = ct_top_activations_run (net, NULL, "conv", 2, 2, 1, NULL, NULL, &error);
  g_assert_null (top);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  top = ct_top_activations_run (net, NULL, "nothing", 0, 2, 1, NULL, NULL, &error);
  g_assert_null (top);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT);
}

/* The same images kept in a store and fed two at a time: the same answer,
 * numbered by the store; and the filter beside a first layer. */
static void
test_of_store (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (pick_net);
  g_autoptr (CtNet) lenet = ct_test_analysis_net (lenet_like);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtTopActivations) top = NULL;
  g_autoptr (CtSampleStore) store = ct_sample_store_new (1 << 20);
  const float w[] = { 1, -1 }, b[] = { 0, 0 };
  float images[48] = { 0 };
  CtAnalysisPath path = { .input_blob = 0, .first_layer = 1, .score_layer = 1,
                          .channels = 1, .height = 4, .width = 4 };
  const CtTopActivation *first, *second;
  g_autofree float *filter = NULL;
  guint c = 0, h = 0, fw = 0;

  images[0 * 16 + 1 * 4 + 2] = 5;
  images[1 * 16 + 3 * 4 + 0] = 9;
  images[2 * 16 + 0] = 2;
  images[2 * 16 + 2 * 4 + 2] = -7;
  ct_test_set_param (net, "conv", 0, w, 2);
  ct_test_set_param (net, "conv", 1, b, 2);
  ct_test_set_blob (net, "data", images, 48);
  g_assert_true (ct_sample_store_add (store, ct_net_blob_by_name (net, "data"), &error));
  g_assert_true (ct_sample_store_add (store, ct_net_blob_by_name (net, "data"), &error));
  g_assert_no_error (error);
  /* scramble the input blob: the images must come from the store */
  memset (ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "data"), NULL), 0,
          sizeof images);
  top = ct_top_activations_of_store (net, &path, store, "conv", 1, 3, 2, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (top->items->len, ==, 3);
  first = &g_array_index (top->items, CtTopActivation, 0);
  second = &g_array_index (top->items, CtTopActivation, 1);
  g_assert_cmpuint (first->index, ==, 2);
  g_assert_cmpfloat (first->value, ==, 7);
  g_assert_cmpuint (first->y, ==, 2);
  g_assert_cmpuint (first->x, ==, 2);
  g_assert_cmpuint (second->index, ==, 5);
  g_assert_cmpmem (second->image, 16 * sizeof (float), images + 32, 16 * sizeof (float));
  g_assert_cmpfloat (g_array_index (top->items, CtTopActivation, 2).value, ==, 0);
  g_clear_pointer (&top, ct_top_activations_free);
  top = ct_top_activations_of_store (net, &path, store, "conv", 0, 1, 4, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_array_index (top->items, CtTopActivation, 0).index, ==, 1);
  g_clear_pointer (&top, ct_top_activations_free);
  top = ct_top_activations_of_store (net, &path, store, "conv", 5, 1, 4, NULL, NULL, &error);
  g_assert_null (top);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  filter = ct_top_activations_filter (net, 0, "conv", 1, &c, &h, &fw);
  g_assert_nonnull (filter);
  g_assert_cmpuint (c, ==, 1);
  g_assert_cmpuint (h, ==, 1);
  g_assert_cmpfloat (filter[0], ==, -1);
  g_clear_pointer (&filter, g_free);
  filter = ct_top_activations_filter (lenet, 0, "conv1", 1, &c, &h, &fw);
  g_assert_nonnull (filter);
  g_assert_cmpuint (h, ==, 5);
  g_assert_cmpuint (fw, ==, 5);
  g_clear_pointer (&filter, g_free);
  /* conv2 reads pool1, not the images: it has no picture in their pixels */
  g_assert_null (ct_top_activations_filter (lenet, 0, "conv2", 0, &c, &h, &fw));
  g_assert_null (ct_top_activations_filter (lenet, 0, "conv1", 2, &c, &h, &fw));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/top-activations/receptive-field", test_receptive_field);
  g_test_add_func ("/analysis/top-activations/top", test_top);
  g_test_add_func ("/analysis/top-activations/of-store", test_of_store);
  return g_test_run ();
}
