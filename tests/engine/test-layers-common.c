/* test-layers-common.c: the Common layers that compute (InnerProduct,
 * Bias, Scale, Eltwise, Reduction, ArgMax, Embed): forward values against
 * hand-computed cases, finite-difference gradients for every parameter
 * variant, in-place use and setup errors that name the layer. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"
#include "common-test-util.h"

static void
check_exhaustive_with (const CtGradientChecker *checker, const char *text, GPtrArray *bottom,
                       GPtrArray *top, int check_bottom)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text);

  ct_check_gradient_exhaustive (checker, layer, bottom, top, check_bottom);
}

/* ---- InnerProduct ---- */

static void
test_inner_product_forward (void)
{
  static const gint64 in_dims[] = { 2, 3 };
  static const float in_values[] = { 1, 2, 3, -1, 0, 2 };
  static const float weights[] = { 1, 0, -1, 0.5f, 0.5f, 0.5f };
  static const float bias[] = { 0.25f, -1 };
  /* row 0: 1 - 3 + .25 = -1.75, 3 - 1 = 2; row 1: -1 - 2 + .25 = -2.75, .5 - 1 = -.5 */
  static const float want[] = { -1.75f, 2.0f, -2.75f, -0.5f };
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 2 }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (in_dims, 2, in_values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

  ct_test_setup_ok (layer, bottom, top);
  g_assert_cmpuint (layer->blobs->len, ==, 2);
  ct_test_assert_shape (g_ptr_array_index (layer->blobs, 0), 2, 2, 3);
  ct_test_assert_shape (g_ptr_array_index (layer->blobs, 1), 1, 2);
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL), weights,
          sizeof weights);
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL), bias,
          sizeof bias);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 2);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 4, 1e-6f);
}

static void
test_inner_product_transpose (void)
{
  /* The same product with W stored transposed gives the same top. */
  g_autoptr (CtLayer) plain = ct_test_layer_from_text (
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 3 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }");
  g_autoptr (CtLayer) transposed = ct_test_layer_from_text (
    "name: 'ipt' type: 'InnerProduct' inner_product_param { num_output: 3 transpose: true }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) top1 = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);
  const float *w;
  float *wt;

  ct_test_setup_ok (plain, bottom, top1);
  ct_test_setup_ok (transposed, bottom, top2);
  ct_test_assert_shape (g_ptr_array_index (transposed->blobs, 0), 2, 12, 3);
  w = ct_blob_cpu_data (g_ptr_array_index (plain->blobs, 0), NULL);
  wt = ct_blob_mutable_cpu_data (g_ptr_array_index (transposed->blobs, 0), NULL);
  for (int n = 0; n < 3; n++)
    for (int k = 0; k < 12; k++)
      wt[k * 3 + n] = w[n * 12 + k];
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (transposed->blobs, 1), NULL),
          ct_blob_cpu_data (g_ptr_array_index (plain->blobs, 1), NULL), 3 * sizeof (float));
  ct_test_forward_ok (plain, bottom, top1);
  ct_test_forward_ok (transposed, bottom, top2);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top2, 0), NULL),
                 ct_blob_cpu_data (CT_TOP (top1, 0), NULL), 6, 1e-5f);
}

static void
test_inner_product_gradient (void)
{
  static const char *const variants[] = {
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 4 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 4 transpose: true "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 3 bias_term: false "
    "weight_filler { type: 'uniform' min: -1 max: 1 } }",
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 3 axis: 2 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
  };

  for (gsize v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (10 + v, 4, 2, 3, 2, 2), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      ct_test_check_exhaustive (variants[v], bottom, top, -1);
      if (v == 3)
        ct_test_assert_shape (CT_TOP (top, 0), 3, 2, 3, 3);
    }
}

static void
test_inner_product_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), NULL);
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 2 }");
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) wider = ct_test_blobs (ct_test_gaussian (1, 2, 2, 4), NULL);
  g_autoptr (GError) error = NULL;

  ct_test_expect_setup_error ("name: 'ip0' type: 'InnerProduct' inner_product_param { num_output: 0 }",
                      bottom, 1, "num_output");
  ct_test_expect_setup_error ("name: 'ipa' type: 'InnerProduct' inner_product_param { num_output: 2 "
                      "axis: 3 }", bottom, 1, "axis");
  /* A bottom that no longer fits the weights fails at reshape. */
  ct_test_setup_ok (layer, bottom, top);
  g_assert_false (ct_layer_reshape (layer, wider, top, &error));
  g_assert_nonnull (strstr (error->message, "'ip'"));
}

/* ---- Bias and Scale ---- */

static void
test_bias_forward (void)
{
  static const gint64 dims[] = { 2, 3, 2 };
  static const float values[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
  static const gint64 bias_dims[] = { 3 };
  static const float bias[3] = { 10, 20, 30 };
  static const float want[12] = { 10, 11, 22, 23, 34, 35, 16, 17, 28, 29, 40, 41 };
  g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 'b' type: 'Bias'");
  g_autoptr (CtLayer) learned = ct_test_layer_from_text (
    "name: 'bl' type: 'Bias' bias_param { filler { type: 'constant' value: 2 } }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 3, values),
                                        ct_test_blob_with (bias_dims, 1, bias), NULL);
  g_autoptr (GPtrArray) one = ct_test_blobs (ct_test_blob_with (dims, 3, values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 12, 0.0f);

  ct_test_setup_ok (learned, one, top2);
  ct_test_assert_shape (g_ptr_array_index (learned->blobs, 0), 1, 3);
  ct_test_forward_ok (learned, one, top2);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top2, 0), NULL)[i], ==, values[i] + 2);
}

static const char *const bias_variants[] = {
  "name: 'b' type: 'Bias' bias_param { filler { type: 'gaussian' } }",
  "name: 'b' type: 'Bias' bias_param { axis: 0 num_axes: 2 filler { type: 'gaussian' } }",
  "name: 'b' type: 'Bias' bias_param { num_axes: 0 filler { type: 'gaussian' } }",
  "name: 'b' type: 'Bias' bias_param { num_axes: -1 filler { type: 'gaussian' } }",
  "name: 'b' type: 'Bias' bias_param { axis: -1 filler { type: 'gaussian' } }",
};

static void
test_bias_gradient (void)
{
  for (gsize v = 0; v < G_N_ELEMENTS (bias_variants); v++)
    {
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (20 + v, 4, 2, 3, 2, 2), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      ct_test_check_exhaustive (bias_variants[v], bottom, top, -1);
    }
  {
    /* Bias as a second bottom, 3-D from axis 1, and a scalar. */
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (30, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (31, 2, 3, 2), NULL);
    g_autoptr (GPtrArray) scalar = ct_test_blobs (ct_test_gaussian (32, 3, 2, 3, 2),
                                          ct_test_gaussian (33, 0), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

    ct_test_check_exhaustive ("name: 'b2' type: 'Bias'", bottom, top, -1);
    ct_test_check_exhaustive ("name: 'b2' type: 'Bias'", scalar, top2, -1);
  }
}

static const char *const scale_variants[] = {
  "name: 's' type: 'Scale' scale_param { filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { axis: 0 num_axes: 2 filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { num_axes: 0 filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { num_axes: -1 filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { axis: -1 filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { filler { type: 'gaussian' } bias_term: true "
  "bias_filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { axis: 2 num_axes: -1 filler { type: 'gaussian' } "
  "bias_term: true bias_filler { type: 'gaussian' } }",
  "name: 's' type: 'Scale' scale_param { num_axes: 0 filler { type: 'gaussian' } "
  "bias_term: true bias_filler { type: 'gaussian' } }",
};

static void
test_scale_gradient (void)
{
  for (gsize v = 0; v < G_N_ELEMENTS (scale_variants); v++)
    {
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (40 + v, 4, 2, 3, 2, 2), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      ct_test_check_exhaustive (scale_variants[v], bottom, top, -1);
    }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (50, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (51, 2, 3, 2), NULL);
    g_autoptr (GPtrArray) with_bias = ct_test_blobs (ct_test_gaussian (52, 4, 2, 3, 2, 2),
                                             ct_test_gaussian (53, 1, 3), NULL);
    g_autoptr (GPtrArray) scalar = ct_test_blobs (ct_test_gaussian (54, 3, 2, 3, 2), ct_test_gaussian (55, 0), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);
    g_autoptr (GPtrArray) top3 = ct_test_empty_blobs (1);

    ct_test_check_exhaustive ("name: 's2' type: 'Scale'", bottom, top, -1);
    ct_test_check_exhaustive ("name: 's2' type: 'Scale' scale_param { bias_term: true "
                      "bias_filler { type: 'gaussian' } }", with_bias, top2, -1);
    ct_test_check_exhaustive ("name: 's2' type: 'Scale'", scalar, top3, -1);
  }
}

static void
test_scale_forward (void)
{
  static const gint64 dims[] = { 2, 2, 2 };
  static const float values[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  g_autoptr (CtLayer) identity = ct_test_layer_from_text ("name: 's' type: 'Scale'");
  g_autoptr (CtLayer) affine = ct_test_layer_from_text (
    "name: 's' type: 'Scale' scale_param { filler { type: 'constant' value: 3 } "
    "bias_term: true bias_filler { type: 'constant' value: -1 } }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 3, values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

  /* Without a filler the scale is 1: the identity. */
  ct_test_setup_ok (identity, bottom, top);
  g_assert_cmpuint (identity->blobs->len, ==, 1);
  ct_test_forward_ok (identity, bottom, top);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), values, 8, 0.0f);

  ct_test_setup_ok (affine, bottom, top2);
  g_assert_cmpuint (affine->blobs->len, ==, 2);
  ct_test_assert_shape (g_ptr_array_index (affine->blobs, 1), 1, 2);
  ct_test_forward_ok (affine, bottom, top2);
  for (int i = 0; i < 8; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top2, 0), NULL)[i], ==, 3 * values[i] - 1);
}

/* In place (top == bottom) gives the same top, bottom diff and parameter
 * diffs as out of place. */
static void
check_in_place_matches (const char *text)
{
  g_autoptr (CtLayer) out_of_place = ct_test_layer_from_text (text);
  g_autoptr (CtLayer) in_place = ct_test_layer_from_text (text);
  g_autoptr (GPtrArray) bottom1 = ct_test_blobs (ct_test_gaussian (60, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) bottom2 = ct_test_blobs (ct_test_gaussian (60, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) top1 = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_borrowed (CT_BOTTOM (bottom2, 0));
  g_autoptr (CtBlob) grad = ct_test_gaussian (61, 4, 2, 3, 2, 2);
  gint64 count = ct_blob_count (grad);

  ct_test_setup_ok (out_of_place, bottom1, top1);
  ct_test_setup_ok (in_place, bottom2, top2);
  ct_test_forward_ok (out_of_place, bottom1, top1);
  ct_test_forward_ok (in_place, bottom2, top2);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top2, 0), NULL),
                 ct_blob_cpu_data (CT_TOP (top1, 0), NULL), count, 0.0f);
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top1, 0), NULL), ct_blob_cpu_data (grad, NULL),
          count * sizeof (float));
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top2, 0), NULL), ct_blob_cpu_data (grad, NULL),
          count * sizeof (float));
  ct_test_backward_ok (out_of_place, top1, bottom1);
  ct_test_backward_ok (in_place, top2, bottom2);
  ct_test_assert_floats (ct_blob_cpu_diff (CT_BOTTOM (bottom2, 0), NULL),
                 ct_blob_cpu_diff (CT_BOTTOM (bottom1, 0), NULL), count, 0.0f);
  for (guint i = 0; i < out_of_place->blobs->len; i++)
    {
      CtBlob *a = g_ptr_array_index (out_of_place->blobs, i);
      CtBlob *b = g_ptr_array_index (in_place->blobs, i);

      ct_test_assert_floats (ct_blob_cpu_diff (b, NULL), ct_blob_cpu_diff (a, NULL), ct_blob_count (a),
                     1e-6f);
    }
}

static void
test_bias_scale_in_place (void)
{
  check_in_place_matches (scale_variants[0]);
  check_in_place_matches (scale_variants[5]);
  check_in_place_matches (scale_variants[7]);
  check_in_place_matches (bias_variants[0]);
  check_in_place_matches (bias_variants[1]);
}

static void
test_bias_scale_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 3, 2, 3, 4), NULL);
  g_autoptr (GPtrArray) mismatch = ct_test_blobs (ct_test_gaussian (1, 3, 2, 3, 4), ct_test_gaussian (2, 1, 4), NULL);
  g_autoptr (GPtrArray) too_long = ct_test_blobs (ct_test_gaussian (1, 3, 2, 3, 4), ct_test_gaussian (2, 3, 3, 4, 5),
                                          NULL);

  ct_test_expect_setup_error ("name: 'sx' type: 'Scale' scale_param { num_axes: 3 }", bottom, 1,
                      "axes");
  ct_test_expect_setup_error ("name: 'sx' type: 'Scale' scale_param { num_axes: -2 }", bottom, 1,
                      "num_axes");
  ct_test_expect_setup_error ("name: 'sx' type: 'Scale' scale_param { axis: 5 }", bottom, 1, "xis");
  ct_test_expect_setup_error ("name: 'sx' type: 'Scale'", mismatch, 1, "does not match");
  ct_test_expect_setup_error ("name: 'sx' type: 'Scale'", too_long, 1, "extends past");
  ct_test_expect_setup_error ("name: 'bx' type: 'Bias' bias_param { axis: 2 num_axes: 2 }", bottom, 1,
                      "axes");
  ct_test_expect_setup_error ("name: 'bx' type: 'Bias'", mismatch, 1, "does not match");
  ct_test_expect_setup_error ("name: 'bx' type: 'Bias' bias_param { filler { type: 'nonsense' } }",
                      bottom, 1, "nonsense");
}

/* ---- Eltwise ---- */

static void
test_eltwise_forward (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), ct_test_gaussian (2, 4, 2, 3, 4, 5),
                                        ct_test_gaussian (3, 4, 2, 3, 4, 5), NULL);
  static const char *const texts[] = {
    "name: 'e' type: 'Eltwise' eltwise_param { operation: PROD }",
    "name: 'e' type: 'Eltwise' eltwise_param { operation: SUM }",
    "name: 'e' type: 'Eltwise' eltwise_param { operation: SUM coeff: 1 coeff: -0.5 coeff: 2 }",
    "name: 'e' type: 'Eltwise' eltwise_param { operation: MAX }",
  };
  const float *a = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  const float *b = ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  const float *c = ct_blob_cpu_data (CT_BOTTOM (bottom, 2), NULL);

  for (gsize v = 0; v < G_N_ELEMENTS (texts); v++)
    {
      g_autoptr (CtLayer) layer = ct_test_layer_from_text (texts[v]);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
      const float *out;

      ct_test_setup_ok (layer, bottom, top);
      ct_test_forward_ok (layer, bottom, top);
      out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
      for (int i = 0; i < 120; i++)
        {
          float want = v == 0 ? a[i] * b[i] * c[i]
                     : v == 1 ? a[i] + b[i] + c[i]
                     : v == 2 ? a[i] - 0.5f * b[i] + 2 * c[i]
                     : MAX (MAX (a[i], b[i]), c[i]);
          g_assert_cmpfloat_with_epsilon (out[i], want, 1e-5);
        }
    }
}

static void
test_eltwise_gradient (void)
{
  static const char *const texts[] = {
    "name: 'e' type: 'Eltwise' eltwise_param { operation: PROD }",
    "name: 'e' type: 'Eltwise' eltwise_param { operation: PROD stable_prod_grad: false }",
    "name: 'e' type: 'Eltwise' eltwise_param { operation: SUM }",
    "name: 'e' type: 'Eltwise' eltwise_param { operation: SUM coeff: 1 coeff: -0.5 coeff: 2 }",
  };

  for (gsize v = 0; v < G_N_ELEMENTS (texts); v++)
    {
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (70 + v, 4, 2, 3, 2, 2),
                                            ct_test_gaussian (80 + v, 4, 2, 3, 2, 2),
                                            ct_test_gaussian (90 + v, 4, 2, 3, 2, 2), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      ct_test_check_exhaustive (texts[v], bottom, top, -1);
    }
  {
    /* MAX, with Caffe's smaller step so that no two values swap places. */
    CtGradientChecker checker = { 1e-4f, 1e-2f, 1701, 0.0f, -1.0f };
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (100, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (101, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (102, 4, 2, 3, 2, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    check_exhaustive_with (&checker, "name: 'e' type: 'Eltwise' eltwise_param { operation: MAX }",
                           bottom, top, -1);
  }
}

static void
test_eltwise_max_ties (void)
{
  /* Equal values: the later bottom wins, as in Caffe; only it gets the diff. */
  static const gint64 dims[] = { 3 };
  static const float a[] = { 1, 2, 3 }, b[] = { 1, 5, 3 };
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'e' type: 'Eltwise' eltwise_param { operation: MAX }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 1, a), ct_test_blob_with (dims, 1, b), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  float *diff;

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  diff = ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL);
  diff[0] = 10;
  diff[1] = 20;
  diff[2] = 30;
  ct_test_backward_ok (layer, top, bottom);
  g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[0], ==, 0);
  g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL)[0], ==, 10);
  g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[1], ==, 0);
  g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL)[1], ==, 20);
  g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL)[2], ==, 30);
}

static void
test_eltwise_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), ct_test_gaussian (2, 2, 2, 3), NULL);
  g_autoptr (GPtrArray) mismatch = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), ct_test_gaussian (2, 2, 3, 2), NULL);

  ct_test_expect_setup_error ("name: 'ex' type: 'Eltwise' eltwise_param { coeff: 1 }", bottom, 1,
                      "coeff");
  ct_test_expect_setup_error ("name: 'ex' type: 'Eltwise' eltwise_param { operation: PROD coeff: 1 "
                      "coeff: 2 }", bottom, 1, "SUM");
  ct_test_expect_setup_error ("name: 'ex' type: 'Eltwise'", mismatch, 1, "shape");
}

static void
test_reduction_forward (void)
{
  static const gint64 dims[] = { 2, 3 };
  static const float values[] = { 1, -2, 3, -4, 5, 0 };
  static const struct {
    const char *text;
    guint n_axes;
    float want[2];
  } cases[] = {
    { "name: 'r' type: 'Reduction'", 0, { 3 } },
    { "name: 'r' type: 'Reduction' reduction_param { operation: ASUM }", 0, { 15 } },
    { "name: 'r' type: 'Reduction' reduction_param { operation: SUMSQ }", 0, { 55 } },
    { "name: 'r' type: 'Reduction' reduction_param { operation: MEAN }", 0, { 0.5f } },
    { "name: 'r' type: 'Reduction' reduction_param { axis: 1 coeff: 2 }", 1, { 4, 2 } },
    { "name: 'r' type: 'Reduction' reduction_param { operation: MEAN axis: -1 coeff: 3 }",
      1, { 2, 1 } },
    { "name: 'r' type: 'Reduction' reduction_param { operation: ASUM axis: 1 }", 1, { 6, 9 } },
  };

  for (gsize v = 0; v < G_N_ELEMENTS (cases); v++)
    {
      g_autoptr (CtLayer) layer = ct_test_layer_from_text (cases[v].text);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, values), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
      gint64 n = cases[v].n_axes == 0 ? 1 : 2;

      ct_test_setup_ok (layer, bottom, top);
      ct_test_forward_ok (layer, bottom, top);
      g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, cases[v].n_axes);
      g_assert_cmpint (ct_blob_count (CT_TOP (top, 0)), ==, n);
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), cases[v].want, n, 1e-6f);
    }
}

static void
test_reduction_gradient (void)
{
  static const char *const texts[] = {
    "name: 'r' type: 'Reduction'",
    "name: 'r' type: 'Reduction' reduction_param { operation: SUMSQ axis: 1 coeff: -0.5 }",
    "name: 'r' type: 'Reduction' reduction_param { operation: MEAN axis: 2 coeff: 2 }",
    "name: 'r' type: 'Reduction' reduction_param { operation: SUM axis: -1 coeff: 0.5 }",
  };

  for (gsize v = 0; v < G_N_ELEMENTS (texts); v++)
    {
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (110 + v, 4, 2, 3, 2, 2), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      ct_test_check_exhaustive (texts[v], bottom, top, -1);
    }
  {
    /* ASUM has a kink at 0. */
    CtGradientChecker checker = { 1e-2f, 1e-3f, 1701, 0.0f, 1.1e-2f };
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (120, 4, 2, 3, 2, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    check_exhaustive_with (&checker, "name: 'r' type: 'Reduction' reduction_param { "
                           "operation: ASUM axis: 1 }", bottom, top, -1);
  }
}

static void
test_argmax (void)
{
  static const gint64 dims[] = { 2, 5 };
  static const float values[] = { 1, 7, 3, 7, 0,  -1, -5, 4, 2, 4 };
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, values), NULL);

  {
    /* Ties go to the larger index, as Caffe's sort of (value, index) pairs. */
    static const float want[] = { 3, 4 };
    g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 'a' type: 'ArgMax'");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    ct_test_setup_ok (layer, bottom, top);
    ct_test_forward_ok (layer, bottom, top);
    ct_test_assert_shape (CT_TOP (top, 0), 3, 2, 1, 1);
    ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 2, 0.0f);
  }
  {
    static const float want[] = { 3, 1, 2, 7, 7, 3,  4, 2, 3, 4, 4, 2 };
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { out_max_val: true top_k: 3 }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    ct_test_setup_ok (layer, bottom, top);
    ct_test_forward_ok (layer, bottom, top);
    ct_test_assert_shape (CT_TOP (top, 0), 3, 2, 2, 3);
    ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 12, 0.0f);
  }
  {
    /* Along axis 0: per column, the row index of the larger value. */
    static const float want[] = { 0, 0, 1, 0, 1,  1, 1, 0, 1, 0 };
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { axis: 0 top_k: 2 }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    ct_test_setup_ok (layer, bottom, top);
    ct_test_forward_ok (layer, bottom, top);
    ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 5);
    ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 10, 0.0f);
  }
  {
    static const float want[] = { 7, 4 };
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { axis: -1 out_max_val: true }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    ct_test_setup_ok (layer, bottom, top);
    ct_test_forward_ok (layer, bottom, top);
    ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 1);
    ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 2, 0.0f);
    g_assert_false (ct_layer_allow_force_backward (layer, 0));
  }
  {
    /* A 4-D bottom, over channels at each pixel, against a plain search. */
    g_autoptr (GPtrArray) big = ct_test_blobs (ct_test_gaussian (5, 4, 2, 6, 3, 4), NULL);
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { axis: 1 }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    const float *in = ct_blob_cpu_data (CT_BOTTOM (big, 0), NULL);
    const float *out;

    ct_test_setup_ok (layer, big, top);
    ct_test_forward_ok (layer, big, top);
    ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 1, 3, 4);
    out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
    for (int n = 0; n < 2; n++)
      for (int p = 0; p < 12; p++)
        {
          int best = 0;

          for (int c = 1; c < 6; c++)
            if (in[(n * 6 + c) * 12 + p] > in[(n * 6 + best) * 12 + p])
              best = c;
          g_assert_cmpfloat (out[n * 12 + p], ==, best);
        }
  }
  ct_test_expect_setup_error ("name: 'ax' type: 'ArgMax' argmax_param { top_k: 6 }", bottom, 1, "top_k");
  ct_test_expect_setup_error ("name: 'ax' type: 'ArgMax' argmax_param { axis: 0 top_k: 3 }", bottom, 1,
                      "top_k");
  ct_test_expect_setup_error ("name: 'ax' type: 'ArgMax' argmax_param { top_k: 0 }", bottom, 1, "top_k");
}

/* ---- Embed, Filter, BatchReindex ---- */

static void
test_embed (void)
{
  static const gint64 dims[] = { 2, 2 };
  static const float words[] = { 3, 0, 1, 3 };
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'emb' type: 'Embed' embed_param { num_output: 3 input_dim: 4 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, words), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  const float *w, *b, *out;

  ct_test_setup_ok (layer, bottom, top);
  ct_test_assert_shape (g_ptr_array_index (layer->blobs, 0), 2, 4, 3);
  ct_test_assert_shape (g_ptr_array_index (layer->blobs, 1), 1, 3);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 3, 2, 2, 3);
  w = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL);
  b = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpfloat (out[i * 3 + j], ==, w[(int) words[i] * 3 + j] + b[j]);
  g_assert_false (ct_layer_allow_force_backward (layer, 0));

  /* Gradients of the weights and bias only: the words have none. */
  {
    CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
    g_autoptr (CtLayer) checked = ct_test_layer_from_text (
      "name: 'emb' type: 'Embed' embed_param { num_output: 3 input_dim: 4 "
      "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }");
    g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);

    ct_check_gradient_exhaustive (&checker, checked, bottom, gtop, 99);
  }

  /* A bad word fails the forward with an error that names it. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = 4.0f;
  g_assert_false (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_test_message ("expected error: %s", error->message);
  g_assert_nonnull (strstr (error->message, "'emb'"));
  g_assert_nonnull (strstr (error->message, "bottom value 2 is 4"));
  g_clear_error (&error);
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = 1.5f;
  g_assert_false (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_nonnull (strstr (error->message, "1.5"));
  g_clear_error (&error);
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = -1.0f;
  g_assert_false (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_clear_error (&error);
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = NAN;
  g_assert_false (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));

  ct_test_expect_setup_error ("name: 'ex' type: 'Embed' embed_param { input_dim: 4 }", bottom, 1,
                      "num_output");
  ct_test_expect_setup_error ("name: 'ex' type: 'Embed' embed_param { num_output: 4 }", bottom, 1,
                      "input_dim");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/layers/common/inner-product/forward", test_inner_product_forward);
  g_test_add_func ("/engine/layers/common/inner-product/transpose", test_inner_product_transpose);
  g_test_add_func ("/engine/layers/common/inner-product/gradient", test_inner_product_gradient);
  g_test_add_func ("/engine/layers/common/inner-product/errors", test_inner_product_errors);
  g_test_add_func ("/engine/layers/common/bias/forward", test_bias_forward);
  g_test_add_func ("/engine/layers/common/bias/gradient", test_bias_gradient);
  g_test_add_func ("/engine/layers/common/scale/forward", test_scale_forward);
  g_test_add_func ("/engine/layers/common/scale/gradient", test_scale_gradient);
  g_test_add_func ("/engine/layers/common/bias-scale/in-place", test_bias_scale_in_place);
  g_test_add_func ("/engine/layers/common/bias-scale/errors", test_bias_scale_errors);
  g_test_add_func ("/engine/layers/common/eltwise/forward", test_eltwise_forward);
  g_test_add_func ("/engine/layers/common/eltwise/gradient", test_eltwise_gradient);
  g_test_add_func ("/engine/layers/common/eltwise/max-ties", test_eltwise_max_ties);
  g_test_add_func ("/engine/layers/common/eltwise/errors", test_eltwise_errors);
  g_test_add_func ("/engine/layers/common/reduction/forward", test_reduction_forward);
  g_test_add_func ("/engine/layers/common/reduction/gradient", test_reduction_gradient);
  g_test_add_func ("/engine/layers/common/argmax", test_argmax);
  g_test_add_func ("/engine/layers/common/embed", test_embed);
  return g_test_run ();
}
