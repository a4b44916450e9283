/* test-layers-common.c: the Common and Utility layer types (InnerProduct,
 * Bias, Scale, Concat, Slice, Split, Eltwise, Flatten, Reshape, Tile,
 * Reduction, ArgMax, Embed, Filter, BatchReindex, Silence, Parameter,
 * Python) and DummyData: forward values against hand-computed cases,
 * finite-difference gradients for every parameter variant, in-place use,
 * setup errors that name the layer, and real Caffe's numbers for the
 * layer-zoo reference dump's layers of these types. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"

/* ---- helpers ---- */

static CtLayer *
layer_from_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  Caffe__LayerParameter *param;
  const CtLayerClass *klass;
  CtLayer *layer;

  param = (Caffe__LayerParameter *) ct_text_parse (&caffe__layer_parameter__descriptor, text, -1,
                                                   "<test>", CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  klass = ct_layer_catalogue_lookup (param->type);
  g_assert_nonnull (klass);
  layer = ct_layer_new (klass, param, CAFFE__PHASE__TRAIN);
  layer->seed = 1701;
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return layer;
}

static void
assert_shape (CtBlob *blob, guint n_axes, ...)
{
  va_list args;

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, n_axes);
  va_start (args, n_axes);
  for (guint i = 0; i < n_axes; i++)
    g_assert_cmpint (ct_blob_get_shape (blob)[i], ==, va_arg (args, int));
  va_end (args);
}

static void
assert_floats (const float *got, const float *want, gint64 n, float tolerance)
{
  for (gint64 i = 0; i < n; i++)
    if (fabsf (got[i] - want[i]) > tolerance * MAX (1.0f, fabsf (want[i])))
      g_error ("element %" G_GINT64_FORMAT ": got %.9g, want %.9g", i, got[i], want[i]);
}

static void
setup_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_setup (layer, bottom, top, &error))
    g_error ("setup failed: %s", error->message);
}

static void
forward_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_forward (layer, bottom, top, FALSE, NULL, &error))
    g_error ("forward failed: %s", error->message);
}

static void
backward_ok (CtLayer *layer, GPtrArray *top, GPtrArray *bottom)
{
  g_autoptr (GError) error = NULL;
  g_autofree gboolean *down = g_new (gboolean, MAX (bottom->len, 1));

  for (guint i = 0; i < bottom->len; i++)
    down[i] = TRUE;
  if (!ct_layer_backward (layer, top, down, bottom, FALSE, &error))
    g_error ("backward failed: %s", error->message);
}

/* Set-up must fail for TEXT with the layer named and WANT in the message. */
static void
expect_setup_error (const char *text, GPtrArray *bottom, guint n_tops, const char *want)
{
  g_autoptr (CtLayer) layer = layer_from_text (text);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("'%s'", ct_layer_get_name (layer));

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("expected error: %s", error->message);
  g_assert_nonnull (strstr (error->message, name));
  if (strstr (error->message, want) == NULL)
    g_error ("error '%s' does not say '%s'", error->message, want);
}

static void
check_exhaustive (const char *text, GPtrArray *bottom, GPtrArray *top, int check_bottom)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = layer_from_text (text);

  ct_check_gradient_exhaustive (&checker, layer, bottom, top, check_bottom);
}

static void
check_exhaustive_with (const CtGradientChecker *checker, const char *text, GPtrArray *bottom,
                       GPtrArray *top, int check_bottom)
{
  g_autoptr (CtLayer) layer = layer_from_text (text);

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
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 2 }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (in_dims, 2, in_values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

  setup_ok (layer, bottom, top);
  g_assert_cmpuint (layer->blobs->len, ==, 2);
  assert_shape (g_ptr_array_index (layer->blobs, 0), 2, 2, 3);
  assert_shape (g_ptr_array_index (layer->blobs, 1), 1, 2);
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL), weights,
          sizeof weights);
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL), bias,
          sizeof bias);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 2, 2, 2);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 4, 1e-6f);
}

static void
test_inner_product_transpose (void)
{
  /* The same product with W stored transposed gives the same top. */
  g_autoptr (CtLayer) plain = layer_from_text (
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 3 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }");
  g_autoptr (CtLayer) transposed = layer_from_text (
    "name: 'ipt' type: 'InnerProduct' inner_product_param { num_output: 3 transpose: true }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) top1 = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);
  const float *w;
  float *wt;

  setup_ok (plain, bottom, top1);
  setup_ok (transposed, bottom, top2);
  assert_shape (g_ptr_array_index (transposed->blobs, 0), 2, 12, 3);
  w = ct_blob_cpu_data (g_ptr_array_index (plain->blobs, 0), NULL);
  wt = ct_blob_mutable_cpu_data (g_ptr_array_index (transposed->blobs, 0), NULL);
  for (int n = 0; n < 3; n++)
    for (int k = 0; k < 12; k++)
      wt[k * 3 + n] = w[n * 12 + k];
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (transposed->blobs, 1), NULL),
          ct_blob_cpu_data (g_ptr_array_index (plain->blobs, 1), NULL), 3 * sizeof (float));
  forward_ok (plain, bottom, top1);
  forward_ok (transposed, bottom, top2);
  assert_floats (ct_blob_cpu_data (CT_TOP (top2, 0), NULL),
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

      check_exhaustive (variants[v], bottom, top, -1);
      if (v == 3)
        assert_shape (CT_TOP (top, 0), 3, 2, 3, 3);
    }
}

static void
test_inner_product_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), NULL);
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'ip' type: 'InnerProduct' inner_product_param { num_output: 2 }");
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) wider = ct_test_blobs (ct_test_gaussian (1, 2, 2, 4), NULL);
  g_autoptr (GError) error = NULL;

  expect_setup_error ("name: 'ip0' type: 'InnerProduct' inner_product_param { num_output: 0 }",
                      bottom, 1, "num_output");
  expect_setup_error ("name: 'ipa' type: 'InnerProduct' inner_product_param { num_output: 2 "
                      "axis: 3 }", bottom, 1, "axis");
  /* A bottom that no longer fits the weights fails at reshape. */
  setup_ok (layer, bottom, top);
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
  g_autoptr (CtLayer) layer = layer_from_text ("name: 'b' type: 'Bias'");
  g_autoptr (CtLayer) learned = layer_from_text (
    "name: 'bl' type: 'Bias' bias_param { filler { type: 'constant' value: 2 } }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 3, values),
                                        ct_test_blob_with (bias_dims, 1, bias), NULL);
  g_autoptr (GPtrArray) one = ct_test_blobs (ct_test_blob_with (dims, 3, values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 12, 0.0f);

  setup_ok (learned, one, top2);
  assert_shape (g_ptr_array_index (learned->blobs, 0), 1, 3);
  forward_ok (learned, one, top2);
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

      check_exhaustive (bias_variants[v], bottom, top, -1);
    }
  {
    /* Bias as a second bottom, 3-D from axis 1, and a scalar. */
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (30, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (31, 2, 3, 2), NULL);
    g_autoptr (GPtrArray) scalar = ct_test_blobs (ct_test_gaussian (32, 3, 2, 3, 2),
                                          ct_test_gaussian (33, 0), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

    check_exhaustive ("name: 'b2' type: 'Bias'", bottom, top, -1);
    check_exhaustive ("name: 'b2' type: 'Bias'", scalar, top2, -1);
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

      check_exhaustive (scale_variants[v], bottom, top, -1);
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

    check_exhaustive ("name: 's2' type: 'Scale'", bottom, top, -1);
    check_exhaustive ("name: 's2' type: 'Scale' scale_param { bias_term: true "
                      "bias_filler { type: 'gaussian' } }", with_bias, top2, -1);
    check_exhaustive ("name: 's2' type: 'Scale'", scalar, top3, -1);
  }
}

static void
test_scale_forward (void)
{
  static const gint64 dims[] = { 2, 2, 2 };
  static const float values[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  g_autoptr (CtLayer) identity = layer_from_text ("name: 's' type: 'Scale'");
  g_autoptr (CtLayer) affine = layer_from_text (
    "name: 's' type: 'Scale' scale_param { filler { type: 'constant' value: 3 } "
    "bias_term: true bias_filler { type: 'constant' value: -1 } }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 3, values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

  /* Without a filler the scale is 1: the identity. */
  setup_ok (identity, bottom, top);
  g_assert_cmpuint (identity->blobs->len, ==, 1);
  forward_ok (identity, bottom, top);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), values, 8, 0.0f);

  setup_ok (affine, bottom, top2);
  g_assert_cmpuint (affine->blobs->len, ==, 2);
  assert_shape (g_ptr_array_index (affine->blobs, 1), 1, 2);
  forward_ok (affine, bottom, top2);
  for (int i = 0; i < 8; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top2, 0), NULL)[i], ==, 3 * values[i] - 1);
}

/* In place (top == bottom) gives the same top, bottom diff and parameter
 * diffs as out of place. */
static void
check_in_place_matches (const char *text)
{
  g_autoptr (CtLayer) out_of_place = layer_from_text (text);
  g_autoptr (CtLayer) in_place = layer_from_text (text);
  g_autoptr (GPtrArray) bottom1 = ct_test_blobs (ct_test_gaussian (60, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) bottom2 = ct_test_blobs (ct_test_gaussian (60, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) top1 = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_borrowed (CT_BOTTOM (bottom2, 0), NULL);
  g_autoptr (CtBlob) grad = ct_test_gaussian (61, 4, 2, 3, 2, 2);
  gint64 count = ct_blob_count (grad);

  setup_ok (out_of_place, bottom1, top1);
  setup_ok (in_place, bottom2, top2);
  forward_ok (out_of_place, bottom1, top1);
  forward_ok (in_place, bottom2, top2);
  assert_floats (ct_blob_cpu_data (CT_TOP (top2, 0), NULL),
                 ct_blob_cpu_data (CT_TOP (top1, 0), NULL), count, 0.0f);
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top1, 0), NULL), ct_blob_cpu_data (grad, NULL),
          count * sizeof (float));
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top2, 0), NULL), ct_blob_cpu_data (grad, NULL),
          count * sizeof (float));
  backward_ok (out_of_place, top1, bottom1);
  backward_ok (in_place, top2, bottom2);
  assert_floats (ct_blob_cpu_diff (CT_BOTTOM (bottom2, 0), NULL),
                 ct_blob_cpu_diff (CT_BOTTOM (bottom1, 0), NULL), count, 0.0f);
  for (guint i = 0; i < out_of_place->blobs->len; i++)
    {
      CtBlob *a = g_ptr_array_index (out_of_place->blobs, i);
      CtBlob *b = g_ptr_array_index (in_place->blobs, i);

      assert_floats (ct_blob_cpu_diff (b, NULL), ct_blob_cpu_diff (a, NULL), ct_blob_count (a),
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

  expect_setup_error ("name: 'sx' type: 'Scale' scale_param { num_axes: 3 }", bottom, 1,
                      "axes");
  expect_setup_error ("name: 'sx' type: 'Scale' scale_param { num_axes: -2 }", bottom, 1,
                      "num_axes");
  expect_setup_error ("name: 'sx' type: 'Scale' scale_param { axis: 5 }", bottom, 1, "xis");
  expect_setup_error ("name: 'sx' type: 'Scale'", mismatch, 1, "does not match");
  expect_setup_error ("name: 'sx' type: 'Scale'", too_long, 1, "extends past");
  expect_setup_error ("name: 'bx' type: 'Bias' bias_param { axis: 2 num_axes: 2 }", bottom, 1,
                      "axes");
  expect_setup_error ("name: 'bx' type: 'Bias'", mismatch, 1, "does not match");
  expect_setup_error ("name: 'bx' type: 'Bias' bias_param { filler { type: 'nonsense' } }",
                      bottom, 1, "nonsense");
}

/* ---- Concat, Slice, Split ---- */

static void
test_concat_forward (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), ct_test_gaussian (2, 4, 2, 1, 2, 2),
                                        NULL);
  g_autoptr (GPtrArray) batch = ct_test_blobs (ct_test_gaussian (3, 3, 2, 3, 2), ct_test_gaussian (4, 3, 1, 3, 2), NULL);
  g_autoptr (CtLayer) channels = layer_from_text ("name: 'c' type: 'Concat'");
  g_autoptr (CtLayer) legacy = layer_from_text (
    "name: 'c0' type: 'Concat' concat_param { concat_dim: 0 }");
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);
  const float *a = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  const float *b = ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  const float *out;

  setup_ok (channels, bottom, top);
  forward_ok (channels, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 4, 2, 2);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 4; c++)
      for (int i = 0; i < 4; i++)
        g_assert_cmpfloat (out[(n * 4 + c) * 4 + i], ==,
                           c < 3 ? a[(n * 3 + c) * 4 + i] : b[n * 4 + i]);

  setup_ok (legacy, batch, top2);
  forward_ok (legacy, batch, top2);
  assert_shape (CT_TOP (top2, 0), 3, 3, 3, 2);
  assert_floats (ct_blob_cpu_data (CT_TOP (top2, 0), NULL) + 12,
                 ct_blob_cpu_data (CT_BOTTOM (batch, 1), NULL), 6, 0.0f);
}

static void
test_concat_gradient (void)
{
  g_autoptr (GPtrArray) channels = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (2, 4, 2, 2, 2, 2), NULL);
  g_autoptr (GPtrArray) last = ct_test_blobs (ct_test_gaussian (3, 3, 2, 3, 2), ct_test_gaussian (4, 3, 2, 3, 1),
                                      ct_test_gaussian (5, 3, 2, 3, 3), NULL);
  g_autoptr (GPtrArray) single = ct_test_blobs (ct_test_gaussian (6, 2, 3, 4), NULL);
  g_autoptr (GPtrArray) t1 = ct_test_empty_blobs (1), t2 = ct_test_empty_blobs (1), t3 = ct_test_empty_blobs (1);

  check_exhaustive ("name: 'c' type: 'Concat'", channels, t1, -1);
  check_exhaustive ("name: 'c' type: 'Concat' concat_param { axis: -1 }", last, t2, -1);
  check_exhaustive ("name: 'c' type: 'Concat'", single, t3, -1);
}

static void
test_concat_errors (void)
{
  g_autoptr (GPtrArray) mismatch = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (2, 4, 2, 3, 3, 2), NULL);
  g_autoptr (GPtrArray) axes = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), ct_test_gaussian (2, 3, 2, 3, 2),
                                      NULL);
  g_autoptr (GPtrArray) fine = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), ct_test_gaussian (2, 2, 2, 3), NULL);

  expect_setup_error ("name: 'cm' type: 'Concat'", mismatch, 1, "does not match");
  expect_setup_error ("name: 'cm' type: 'Concat'", axes, 1, "does not match");
  expect_setup_error ("name: 'cb' type: 'Concat' concat_param { axis: 1 concat_dim: 1 }", fine,
                      1, "concat_dim");
  expect_setup_error ("name: 'cd' type: 'Concat' concat_param { concat_dim: 2 }", fine, 1,
                      "concat_dim 2");
  expect_setup_error ("name: 'ca' type: 'Concat' concat_param { axis: -3 }", fine, 1, "xis");
}

static void
test_slice_forward (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 6, 2, 2), NULL);
  g_autoptr (CtLayer) points = layer_from_text (
    "name: 'sl' type: 'Slice' slice_param { slice_point: 1 slice_point: 4 }");
  g_autoptr (CtLayer) even = layer_from_text (
    "name: 'se' type: 'Slice' slice_param { slice_dim: 0 }");
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (3);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (2);
  const float *in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);

  setup_ok (points, bottom, top);
  forward_ok (points, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 1, 2, 2);
  assert_shape (CT_TOP (top, 1), 4, 2, 3, 2, 2);
  assert_shape (CT_TOP (top, 2), 4, 2, 2, 2, 2);
  for (int n = 0; n < 2; n++)
    {
      assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + n * 4, in + n * 24, 4, 0.0f);
      assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL) + n * 12, in + n * 24 + 4, 12, 0.0f);
      assert_floats (ct_blob_cpu_data (CT_TOP (top, 2), NULL) + n * 8, in + n * 24 + 16, 8, 0.0f);
    }

  setup_ok (even, bottom, top2);
  forward_ok (even, bottom, top2);
  assert_shape (CT_TOP (top2, 1), 4, 1, 6, 2, 2);
  assert_floats (ct_blob_cpu_data (CT_TOP (top2, 1), NULL), in + 24, 24, 0.0f);
}

static void
test_slice_gradient (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 5, 2, 2), NULL);
  g_autoptr (GPtrArray) bottom2 = ct_test_blobs (ct_test_gaussian (2, 3, 2, 3, 4), NULL);
  g_autoptr (GPtrArray) t1 = ct_test_empty_blobs (3), t2 = ct_test_empty_blobs (2);

  check_exhaustive ("name: 'sl' type: 'Slice' slice_param { slice_point: 1 slice_point: 3 }",
                    bottom, t1, -1);
  check_exhaustive ("name: 'sl' type: 'Slice' slice_param { axis: -1 }", bottom2, t2, -1);
}

static void
test_slice_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 5, 2, 2), NULL);

  expect_setup_error ("name: 'sx' type: 'Slice'", bottom, 2, "evenly");
  expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_point: 2 }", bottom, 3,
                      "slice_point");
  expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_point: 3 slice_point: 2 }",
                      bottom, 3, "increase");
  expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_point: 5 }", bottom, 2,
                      "increase");
  expect_setup_error ("name: 'sx' type: 'Slice' slice_param { axis: 1 slice_dim: 1 }", bottom, 5,
                      "slice_dim");
  expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_dim: 4 }", bottom, 1,
                      "slice_dim 4");
}

static void
test_split (void)
{
  g_autoptr (CtLayer) layer = layer_from_text ("name: 'x_split' type: 'Split'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 3, 2, 3, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (3);
  g_autoptr (GPtrArray) grad_top = ct_test_empty_blobs (2);
  gint64 count = 24;
  float want[24];

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  for (guint t = 0; t < 3; t++)
    {
      float *diff = ct_blob_mutable_cpu_diff (CT_TOP (top, t), NULL);

      assert_shape (CT_TOP (top, t), 3, 2, 3, 4);
      assert_floats (ct_blob_cpu_data (CT_TOP (top, t), NULL),
                     ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), count, 0.0f);
      for (int i = 0; i < count; i++)
        diff[i] = (float) (i * (t + 1)) - 3.0f * t;
    }
  for (int i = 0; i < count; i++)
    want[i] = (float) (6 * i) - 9.0f;
  backward_ok (layer, top, bottom);
  assert_floats (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), want, count, 0.0f);

  /* The tops follow the bottom's data, as shared memory does. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[5] = 42.0f;
  g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 2), NULL)[5], ==, 42.0f);

  check_exhaustive ("name: 's' type: 'Split'", bottom, grad_top, -1);
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
      g_autoptr (CtLayer) layer = layer_from_text (texts[v]);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
      const float *out;

      setup_ok (layer, bottom, top);
      forward_ok (layer, bottom, top);
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

      check_exhaustive (texts[v], bottom, top, -1);
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
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'e' type: 'Eltwise' eltwise_param { operation: MAX }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 1, a), ct_test_blob_with (dims, 1, b), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  float *diff;

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  diff = ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL);
  diff[0] = 10;
  diff[1] = 20;
  diff[2] = 30;
  backward_ok (layer, top, bottom);
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

  expect_setup_error ("name: 'ex' type: 'Eltwise' eltwise_param { coeff: 1 }", bottom, 1,
                      "coeff");
  expect_setup_error ("name: 'ex' type: 'Eltwise' eltwise_param { operation: PROD coeff: 1 "
                      "coeff: 2 }", bottom, 1, "SUM");
  expect_setup_error ("name: 'ex' type: 'Eltwise'", mismatch, 1, "shape");
}

/* ---- Flatten, Reshape ---- */

static void
test_flatten (void)
{
  static const struct {
    const char *text;
    guint n_axes;
    int dims[4];
  } cases[] = {
    { "name: 'f' type: 'Flatten'", 2, { 2, 60 } },
    { "name: 'f' type: 'Flatten' flatten_param { axis: 2 }", 3, { 2, 3, 20 } },
    { "name: 'f' type: 'Flatten' flatten_param { axis: 1 end_axis: 2 }", 3, { 2, 12, 5 } },
    { "name: 'f' type: 'Flatten' flatten_param { axis: 0 end_axis: -2 }", 2, { 24, 5 } },
    { "name: 'f' type: 'Flatten' flatten_param { axis: 3 }", 4, { 2, 3, 4, 5 } },
  };

  for (gsize v = 0; v < G_N_ELEMENTS (cases); v++)
    {
      g_autoptr (CtLayer) layer = layer_from_text (cases[v].text);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      setup_ok (layer, bottom, top);
      forward_ok (layer, bottom, top);
      g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, cases[v].n_axes);
      for (guint i = 0; i < cases[v].n_axes; i++)
        g_assert_cmpint (ct_blob_get_shape (CT_TOP (top, 0))[i], ==, cases[v].dims[i]);
      assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL),
                     ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), 120, 0.0f);
    }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    check_exhaustive ("name: 'f' type: 'Flatten'", bottom, top, -1);
  }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);

    expect_setup_error ("name: 'fx' type: 'Flatten' flatten_param { axis: 4 }", bottom, 1,
                        "xis");
    expect_setup_error ("name: 'fx' type: 'Flatten' flatten_param { axis: 2 end_axis: 1 }",
                        bottom, 1, "end_axis");
  }
}

static void
test_reshape (void)
{
  static const struct {
    const char *text;
    guint n_axes;
    int dims[6];
  } cases[] = {
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 6 dim: 2 dim: 10 } }",
      3, { 6, 2, 10 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 0 dim: -1 } }", 2, { 2, 60 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 0 dim: 0 dim: -1 dim: 1 } }",
      4, { 2, 3, 20, 1 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: -1 dim: 0 dim: 2 } }",
      3, { 20, 3, 2 } },
    /* axis and num_axes: replace a part of the shape */
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 2 dim: 2 } axis: 2 num_axes: 1 }",
      5, { 2, 3, 2, 2, 5 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 1 } axis: 0 num_axes: 0 }",
      5, { 1, 2, 3, 4, 5 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 1 } axis: -1 num_axes: 0 }",
      5, { 2, 3, 4, 5, 1 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: -1 } axis: 1 }", 2, { 2, 60 } },
    /* axis -2 is the place before the last axis: the 0 copies 5, the -1 is 1 */
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: 0 dim: -1 } axis: -2 }",
      5, { 2, 3, 4, 5, 1 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { dim: -1 dim: 0 } axis: 1 num_axes: 2 }",
      4, { 2, 3, 4, 5 } },
    { "name: 'r' type: 'Reshape' reshape_param { shape { } axis: 1 num_axes: 0 }",
      4, { 2, 3, 4, 5 } },
  };

  for (gsize v = 0; v < G_N_ELEMENTS (cases); v++)
    {
      g_autoptr (CtLayer) layer = layer_from_text (cases[v].text);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
      g_autofree char *shape = NULL;

      setup_ok (layer, bottom, top);
      forward_ok (layer, bottom, top);
      shape = ct_blob_shape_string (CT_TOP (top, 0));
      g_test_message ("%s -> %s", cases[v].text, shape);
      g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, cases[v].n_axes);
      for (guint i = 0; i < cases[v].n_axes; i++)
        g_assert_cmpint (ct_blob_get_shape (CT_TOP (top, 0))[i], ==, cases[v].dims[i]);
      assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL),
                     ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), 120, 0.0f);
    }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    check_exhaustive ("name: 'r' type: 'Reshape' reshape_param { shape { dim: -1 dim: 4 } }",
                      bottom, top, -1);
  }
}

static void
test_reshape_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);

  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: -1 dim: -1 } }",
                      bottom, 1, "-1");
  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 7 dim: -1 } }",
                      bottom, 1, "divisible");
  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 7 dim: 3 } }",
                      bottom, 1, "values");
  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 0 dim: 0 } "
                      "axis: 3 }", bottom, 1, "no axis");
  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: -2 } }",
                      bottom, 1, "-2");
  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 1 } axis: 6 }",
                      bottom, 1, "axis 6");
  expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 1 } axis: 2 "
                      "num_axes: 3 }", bottom, 1, "num_axes");
}

/* ---- Tile, Reduction, ArgMax ---- */

static void
test_tile (void)
{
  static const gint64 dims[] = { 2, 2 };
  static const float values[] = { 1, 2, 3, 4 };
  static const float want_axis1[] = { 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4 };
  static const float want_axis0[] = { 1, 2, 3, 4, 1, 2, 3, 4 };
  g_autoptr (CtLayer) layer = layer_from_text ("name: 't' type: 'Tile' tile_param { tiles: 3 }");
  g_autoptr (CtLayer) layer0 = layer_from_text (
    "name: 't' type: 'Tile' tile_param { axis: 0 tiles: 2 }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top0 = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) gbottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) gtop2 = ct_test_empty_blobs (1);

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 2, 2, 6);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want_axis1, 12, 0.0f);
  setup_ok (layer0, bottom, top0);
  forward_ok (layer0, bottom, top0);
  assert_shape (CT_TOP (top0, 0), 2, 4, 2);
  assert_floats (ct_blob_cpu_data (CT_TOP (top0, 0), NULL), want_axis0, 8, 0.0f);

  check_exhaustive ("name: 't' type: 'Tile' tile_param { tiles: 3 }", gbottom, gtop, -1);
  check_exhaustive ("name: 't' type: 'Tile' tile_param { axis: -1 tiles: 2 }", gbottom, gtop2,
                    -1);

  expect_setup_error ("name: 'tx' type: 'Tile'", bottom, 1, "tiles");
  expect_setup_error ("name: 'tx' type: 'Tile' tile_param { tiles: 0 }", bottom, 1, "tiles");
  expect_setup_error ("name: 'tx' type: 'Tile' tile_param { tiles: 2 axis: 2 }", bottom, 1,
                      "xis");
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
      g_autoptr (CtLayer) layer = layer_from_text (cases[v].text);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, values), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
      gint64 n = cases[v].n_axes == 0 ? 1 : 2;

      setup_ok (layer, bottom, top);
      forward_ok (layer, bottom, top);
      g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, cases[v].n_axes);
      g_assert_cmpint (ct_blob_count (CT_TOP (top, 0)), ==, n);
      assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), cases[v].want, n, 1e-6f);
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

      check_exhaustive (texts[v], bottom, top, -1);
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
    g_autoptr (CtLayer) layer = layer_from_text ("name: 'a' type: 'ArgMax'");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    setup_ok (layer, bottom, top);
    forward_ok (layer, bottom, top);
    assert_shape (CT_TOP (top, 0), 3, 2, 1, 1);
    assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 2, 0.0f);
  }
  {
    static const float want[] = { 3, 1, 2, 7, 7, 3,  4, 2, 3, 4, 4, 2 };
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { out_max_val: true top_k: 3 }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    setup_ok (layer, bottom, top);
    forward_ok (layer, bottom, top);
    assert_shape (CT_TOP (top, 0), 3, 2, 2, 3);
    assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 12, 0.0f);
  }
  {
    /* Along axis 0: per column, the row index of the larger value. */
    static const float want[] = { 0, 0, 1, 0, 1,  1, 1, 0, 1, 0 };
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { axis: 0 top_k: 2 }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    setup_ok (layer, bottom, top);
    forward_ok (layer, bottom, top);
    assert_shape (CT_TOP (top, 0), 2, 2, 5);
    assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 10, 0.0f);
  }
  {
    static const float want[] = { 7, 4 };
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { axis: -1 out_max_val: true }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    setup_ok (layer, bottom, top);
    forward_ok (layer, bottom, top);
    assert_shape (CT_TOP (top, 0), 2, 2, 1);
    assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want, 2, 0.0f);
    g_assert_false (ct_layer_allow_force_backward (layer, 0));
  }
  {
    /* A 4-D bottom, over channels at each pixel, against a plain search. */
    g_autoptr (GPtrArray) big = ct_test_blobs (ct_test_gaussian (5, 4, 2, 6, 3, 4), NULL);
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'a' type: 'ArgMax' argmax_param { axis: 1 }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    const float *in = ct_blob_cpu_data (CT_BOTTOM (big, 0), NULL);
    const float *out;

    setup_ok (layer, big, top);
    forward_ok (layer, big, top);
    assert_shape (CT_TOP (top, 0), 4, 2, 1, 3, 4);
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
  expect_setup_error ("name: 'ax' type: 'ArgMax' argmax_param { top_k: 6 }", bottom, 1, "top_k");
  expect_setup_error ("name: 'ax' type: 'ArgMax' argmax_param { axis: 0 top_k: 3 }", bottom, 1,
                      "top_k");
  expect_setup_error ("name: 'ax' type: 'ArgMax' argmax_param { top_k: 0 }", bottom, 1, "top_k");
}

/* ---- Embed, Filter, BatchReindex ---- */

static void
test_embed (void)
{
  static const gint64 dims[] = { 2, 2 };
  static const float words[] = { 3, 0, 1, 3 };
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'emb' type: 'Embed' embed_param { num_output: 3 input_dim: 4 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, words), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  const float *w, *b, *out;

  setup_ok (layer, bottom, top);
  assert_shape (g_ptr_array_index (layer->blobs, 0), 2, 4, 3);
  assert_shape (g_ptr_array_index (layer->blobs, 1), 1, 3);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 3, 2, 2, 3);
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
    g_autoptr (CtLayer) checked = layer_from_text (
      "name: 'emb' type: 'Embed' embed_param { num_output: 3 input_dim: 4 "
      "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }");
    g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);

    ct_check_gradient_exhaustive (&checker, checked, bottom, gtop, 99);
  }

  /* A bad word fails the forward with an error that names it. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = 4.0f;
  g_assert_false (ct_layer_forward (layer, bottom, top, FALSE, NULL, &error));
  g_test_message ("expected error: %s", error->message);
  g_assert_nonnull (strstr (error->message, "'emb'"));
  g_assert_nonnull (strstr (error->message, "bottom value 2 is 4"));
  g_clear_error (&error);
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = 1.5f;
  g_assert_false (ct_layer_forward (layer, bottom, top, FALSE, NULL, &error));
  g_assert_nonnull (strstr (error->message, "1.5"));
  g_clear_error (&error);
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = -1.0f;
  g_assert_false (ct_layer_forward (layer, bottom, top, FALSE, NULL, &error));
  g_clear_error (&error);
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[2] = NAN;
  g_assert_false (ct_layer_forward (layer, bottom, top, FALSE, NULL, &error));

  expect_setup_error ("name: 'ex' type: 'Embed' embed_param { input_dim: 4 }", bottom, 1,
                      "num_output");
  expect_setup_error ("name: 'ex' type: 'Embed' embed_param { num_output: 4 }", bottom, 1,
                      "input_dim");
}

static void
test_filter (void)
{
  static const gint64 sel_dims[] = { 4, 1 };
  static const float selector[] = { 0, 1, 0, 2 };
  g_autoptr (CtLayer) layer = layer_from_text ("name: 'flt' type: 'Filter'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 4, 3, 2, 2), ct_test_gaussian (2, 2, 4, 5),
                                        ct_test_blob_with (sel_dims, 2, selector), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (2);
  const float *a = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  const float *b = ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  float *diff;

  setup_ok (layer, bottom, top);
  /* Before any forward, the tops have the whole batch. */
  assert_shape (CT_TOP (top, 0), 4, 4, 3, 2, 2);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 3, 2, 2);
  assert_shape (CT_TOP (top, 1), 2, 2, 5);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), a + 12, 12, 0.0f);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + 12, a + 36, 12, 0.0f);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL), b + 5, 5, 0.0f);
  assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL) + 5, b + 15, 5, 0.0f);

  diff = ct_blob_mutable_cpu_diff (CT_TOP (top, 1), NULL);
  for (int i = 0; i < 10; i++)
    diff[i] = (float) (i + 1);
  diff = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, 2), NULL);
  diff[0] = 123.0f;
  backward_ok (layer, top, bottom);
  for (int i = 0; i < 20; i++)
    {
      float want = i >= 5 && i < 10 ? (float) (i - 4) : i >= 15 ? (float) (i - 9) : 0.0f;
      g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL)[i], ==, want);
    }
  /* The selector's diff is left alone. */
  g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 2), NULL)[0], ==, 123.0f);

  /* Gradients into the filtered bottoms (not the selector). */
  {
    CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;

    for (int b_i = 0; b_i < 2; b_i++)
      for (guint t = 0; t < top->len; t++)
        for (gint64 j = 0; j < ct_blob_count (CT_TOP (top, t)); j++)
          ct_check_gradient_single (&checker, layer, bottom, top, b_i, (int) t, j, FALSE);
  }
  {
    g_autoptr (GPtrArray) bad = ct_test_blobs (ct_test_gaussian (1, 2, 4, 3), ct_test_gaussian (2, 2, 3, 1), NULL);
    g_autoptr (GPtrArray) wide = ct_test_blobs (ct_test_gaussian (1, 2, 4, 3), ct_test_gaussian (2, 2, 4, 2), NULL);

    expect_setup_error ("name: 'fx' type: 'Filter'", bad, 1, "first dimension");
    expect_setup_error ("name: 'fx' type: 'Filter'", wide, 1, "must be 1");
    expect_setup_error ("name: 'fx' type: 'Filter'", wide, 2, "one top per");
  }
}

static void
test_batch_reindex (void)
{
  static const gint64 order_dims[] = { 5 };
  static const float order[] = { 2, 0, 2, 1, 2 };
  g_autoptr (CtLayer) layer = layer_from_text ("name: 'br' type: 'BatchReindex'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 3, 3, 2, 2),
                                        ct_test_blob_with (order_dims, 1, order), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  const float *in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  float *diff;

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 3, 5, 2, 2);
  for (int i = 0; i < 5; i++)
    assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + i * 4, in + (int) order[i] * 4, 4,
                   0.0f);
  diff = ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL);
  for (int i = 0; i < 20; i++)
    diff[i] = 1.0f;
  backward_ok (layer, top, bottom);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[i], ==,
                       i < 4 ? 1.0f : i < 8 ? 1.0f : 3.0f);
  g_assert_true (ct_layer_allow_force_backward (layer, 0));
  g_assert_false (ct_layer_allow_force_backward (layer, 1));

  check_exhaustive ("name: 'br' type: 'BatchReindex'", bottom, gtop, 0);

  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL)[3] = 3.0f;
  g_assert_false (ct_layer_forward (layer, bottom, top, FALSE, NULL, &error));
  g_test_message ("expected error: %s", error->message);
  g_assert_nonnull (strstr (error->message, "'br'"));
  g_assert_nonnull (strstr (error->message, "index 3 is 3"));
  {
    g_autoptr (GPtrArray) bad = ct_test_blobs (ct_test_gaussian (1, 3, 3, 2, 2), ct_test_gaussian (2, 2, 5, 1), NULL);

    expect_setup_error ("name: 'bx' type: 'BatchReindex'", bad, 1, "one axis");
  }
}

/* ---- Silence, Parameter, DummyData, Python ---- */

static void
test_silence (void)
{
  g_autoptr (CtLayer) layer = layer_from_text ("name: 'quiet' type: 'Silence'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), ct_test_gaussian (2, 1, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (0);

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  for (guint b = 0; b < 2; b++)
    {
      float *diff = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, b), NULL);

      for (gint64 i = 0; i < ct_blob_count (CT_BOTTOM (bottom, b)); i++)
        diff[i] = 5.0f;
    }
  backward_ok (layer, top, bottom);
  for (guint b = 0; b < 2; b++)
    for (gint64 i = 0; i < ct_blob_count (CT_BOTTOM (bottom, b)); i++)
      g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, b), NULL)[i], ==, 0.0f);
  expect_setup_error ("name: 'quiet' type: 'Silence'", bottom, 1, "top");
}

static void
test_parameter (void)
{
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'p' type: 'Parameter' parameter_param { shape { dim: 2 dim: 3 } }");
  g_autoptr (GPtrArray) bottom = g_ptr_array_new ();
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  CtBlob *param;

  setup_ok (layer, bottom, top);
  g_assert_cmpuint (layer->blobs->len, ==, 1);
  param = g_ptr_array_index (layer->blobs, 0);
  assert_shape (param, 2, 2, 3);
  assert_shape (CT_TOP (top, 0), 2, 2, 3);
  ct_blob_mutable_cpu_data (param, NULL)[4] = 7.0f;
  forward_ok (layer, bottom, top);
  g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[4], ==, 7.0f);
  /* A gradient reaching the top is the parameter's. */
  ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL)[1] = 3.0f;
  backward_ok (layer, top, bottom);
  g_assert_cmpfloat (ct_blob_cpu_diff (param, NULL)[1], ==, 3.0f);
  {
    g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);

    check_exhaustive ("name: 'p' type: 'Parameter' parameter_param { shape { dim: 3 } }",
                      bottom, gtop, -1);
  }
}

static void
test_dummy_data (void)
{
  g_autoptr (GPtrArray) bottom = g_ptr_array_new ();

  {
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'dd' type: 'DummyData' dummy_data_param { "
      "data_filler { type: 'constant' value: 3 } data_filler { type: 'uniform' min: 1 max: 2 } "
      "shape { dim: 2 dim: 3 } shape { dim: 4 } }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (2);
    float first[4];

    setup_ok (layer, bottom, top);
    assert_shape (CT_TOP (top, 0), 2, 2, 3);
    assert_shape (CT_TOP (top, 1), 1, 4);
    /* The constant top is filled at setup already. */
    for (int i = 0; i < 6; i++)
      g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[i], ==, 3.0f);
    forward_ok (layer, bottom, top);
    memcpy (first, ct_blob_cpu_data (CT_TOP (top, 1), NULL), sizeof first);
    for (int i = 0; i < 4; i++)
      g_assert_true (first[i] >= 1.0f && first[i] <= 2.0f);
    /* The random top changes at every forward; the constant one is not touched. */
    ct_blob_mutable_cpu_data (CT_TOP (top, 0), NULL)[0] = -1.0f;
    forward_ok (layer, bottom, top);
    g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[0], ==, -1.0f);
    g_assert_true (memcmp (first, ct_blob_cpu_data (CT_TOP (top, 1), NULL), sizeof first) != 0);
    /* The same seed replays the same draws. */
    layer->seed = 1701;
    forward_ok (layer, bottom, top);
    assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL), first, 4, 0.0f);
  }
  {
    /* Legacy dimensions, one filler for all tops, none: zeros. */
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'dd' type: 'DummyData' dummy_data_param { "
      "num: 2 channels: 3 channels: 1 height: 4 width: 5 }");
    g_autoptr (CtLayer) shared = layer_from_text (
      "name: 'dd' type: 'DummyData' dummy_data_param { "
      "data_filler { type: 'gaussian' std: 2 } shape { dim: 3 dim: 2 } }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (2);
    g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (2);

    setup_ok (layer, bottom, top);
    assert_shape (CT_TOP (top, 0), 4, 2, 3, 4, 5);
    assert_shape (CT_TOP (top, 1), 4, 2, 1, 4, 5);
    forward_ok (layer, bottom, top);
    for (int i = 0; i < 40; i++)
      g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 1), NULL)[i], ==, 0.0f);

    setup_ok (shared, bottom, top2);
    forward_ok (shared, bottom, top2);
    assert_shape (CT_TOP (top2, 1), 2, 3, 2);
    g_assert_cmpfloat (ct_blob_asum_data (CT_TOP (top2, 0), NULL), >, 0.0f);
    g_assert_cmpfloat (ct_blob_asum_data (CT_TOP (top2, 1), NULL), >, 0.0f);
  }
  expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { "
                      "data_filler { } data_filler { } shape { dim: 2 } }", bottom, 3,
                      "data_filler");
  expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { num: 2 channels: 2 "
                      "height: 1 width: 1 shape { dim: 2 } }", bottom, 1, "not both");
  expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { num: 2 channels: 2 "
                      "height: 1 }", bottom, 1, "'width'");
  expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { shape { dim: 2 } "
                      "shape { dim: 3 } }", bottom, 3, "'shape'");
  expect_setup_error ("name: 'dx' type: 'DummyData'", bottom, 1, "'shape'");
  expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { "
                      "data_filler { type: 'fancy' } shape { dim: 2 } }", bottom, 1, "fancy");
}

static void
test_python (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 1, 3), NULL);
  g_autoptr (GPtrArray) none = g_ptr_array_new ();

  expect_setup_error ("name: 'data' type: 'Python' python_param { module: 'voc_layers' "
                      "layer: 'SBDDSegDataLayer' param_str: 'x' }", none, 2, "voc_layers");
  expect_setup_error ("name: 'data' type: 'Python' python_param { module: 'voc_layers' "
                      "layer: 'SBDDSegDataLayer' }", bottom, 1, "SBDDSegDataLayer");
  expect_setup_error ("name: 'py' type: 'Python'", bottom, 0, "Python layers cannot run");
}

static void
test_catalogue (void)
{
  static const struct {
    const char *type;
    CtLayerFamily family;
  } types[] = {
    { "InnerProduct", CT_LAYER_FAMILY_COMMON }, { "Bias", CT_LAYER_FAMILY_COMMON },
    { "Scale", CT_LAYER_FAMILY_COMMON }, { "Concat", CT_LAYER_FAMILY_COMMON },
    { "Slice", CT_LAYER_FAMILY_COMMON }, { "Split", CT_LAYER_FAMILY_COMMON },
    { "Eltwise", CT_LAYER_FAMILY_COMMON }, { "Flatten", CT_LAYER_FAMILY_COMMON },
    { "Reshape", CT_LAYER_FAMILY_COMMON }, { "Tile", CT_LAYER_FAMILY_COMMON },
    { "Reduction", CT_LAYER_FAMILY_COMMON }, { "ArgMax", CT_LAYER_FAMILY_COMMON },
    { "Embed", CT_LAYER_FAMILY_COMMON }, { "Filter", CT_LAYER_FAMILY_COMMON },
    { "BatchReindex", CT_LAYER_FAMILY_COMMON }, { "Silence", CT_LAYER_FAMILY_COMMON },
    { "Parameter", CT_LAYER_FAMILY_COMMON }, { "DummyData", CT_LAYER_FAMILY_DATA },
    { "Python", CT_LAYER_FAMILY_UTILITY },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const CtLayerClass *klass = ct_layer_catalogue_lookup (types[i].type);

      g_assert_nonnull (klass);
      g_assert_cmpstr (klass->type, ==, types[i].type);
      g_assert_cmpint (klass->family, ==, types[i].family);
      g_assert_cmpstr (ct_layer_class_describe (klass), !=, "");
    }
  g_test_message ("checked %" G_GSIZE_FORMAT " types", G_N_ELEMENTS (types));
}

/* ---- the layer-zoo reference dump ---- */

typedef struct {
  const char *text;
  const char *bottoms[5];
  const char *tops[4];
  int n_params;   /* parameter blobs, found under the layer's name */
} ZooLayer;

static const ZooLayer zoo_layers[] = {
  { "name: 'scale1' type: 'Scale' scale_param { bias_term: true }", { "bn1" }, { "scale1" }, 2 },
  { "name: 'elu1_split' type: 'Split'", { "elu1" },
    { "elu1_elu1_0_split_0", "elu1_elu1_0_split_1" }, 0 },
  { "name: 'pool_max_split' type: 'Split'", { "pool_max" },
    { "pool_max_pool_max_0_split_0", "pool_max_pool_max_0_split_1",
      "pool_max_pool_max_0_split_2" }, 0 },
  { "name: 'pool_ave_split' type: 'Split'", { "pool_ave" },
    { "pool_ave_pool_ave_0_split_0", "pool_ave_pool_ave_0_split_1",
      "pool_ave_pool_ave_0_split_2" }, 0 },
  { "name: 'esum' type: 'Eltwise' eltwise_param { operation: SUM coeff: 1.0 coeff: -0.5 }",
    { "pool_max_pool_max_0_split_0", "pool_ave_pool_ave_0_split_0" }, { "esum" }, 0 },
  { "name: 'eprod' type: 'Eltwise' eltwise_param { operation: PROD }",
    { "pool_max_pool_max_0_split_1", "pool_ave_pool_ave_0_split_1" }, { "eprod" }, 0 },
  { "name: 'emax' type: 'Eltwise' eltwise_param { operation: MAX }",
    { "pool_max_pool_max_0_split_2", "pool_ave_pool_ave_0_split_2" }, { "emax" }, 0 },
  { "name: 'concat1' type: 'Concat' concat_param { axis: 1 }",
    { "esum", "eprod", "emax" }, { "concat1" }, 0 },
  { "name: 'concat1_split' type: 'Split'", { "concat1" },
    { "concat1_concat1_0_split_0", "concat1_concat1_0_split_1" }, 0 },
  { "name: 'slice1' type: 'Slice' slice_param { axis: 1 slice_point: 4 slice_point: 8 }",
    { "lrn_across" }, { "sl1", "sl2", "sl3" }, 0 },
  { "name: 'concat2' type: 'Concat'", { "sigmoid1", "tanh1", "abs1", "power1" },
    { "concat2" }, 0 },
  { "name: 'scale2' type: 'Scale' scale_param { bias_term: false }", { "bn2" }, { "scale2" }, 1 },
  { "name: 'scale2_split' type: 'Split'", { "scale2" },
    { "scale2_scale2_0_split_0", "scale2_scale2_0_split_1" }, 0 },
  { "name: 'concat3' type: 'Concat'", { "gap", "gmp" }, { "concat3" }, 0 },
  { "name: 'flat1' type: 'Flatten'", { "concat3" }, { "flat1" }, 0 },
  { "name: 'drop1_split' type: 'Split'", { "drop1" },
    { "drop1_drop1_0_split_0", "drop1_drop1_0_split_1" }, 0 },
  { "name: 'ip1' type: 'InnerProduct' inner_product_param { num_output: 16 }",
    { "drop1_drop1_0_split_0" }, { "ip1" }, 2 },
  { "name: 'reshape1' type: 'Reshape' reshape_param { shape { dim: 0 dim: 4 dim: -1 } }",
    { "ip1" }, { "reshape1" }, 0 },
  { "name: 'flat2' type: 'Flatten'", { "softmax1" }, { "flat2" }, 0 },
  { "name: 'ip2' type: 'InnerProduct' inner_product_param { num_output: 10 }",
    { "flat2" }, { "ip2" }, 2 },
  { "name: 'ip3' type: 'InnerProduct' inner_product_param { num_output: 6 }",
    { "drop1_drop1_0_split_1" }, { "ip3" }, 2 },
};

static double worst_error;

static void
compare (const char *what, const char *name, const float *ours, const float *ref, gint64 n)
{
  double err = ct_test_relative_error (ours, ref, n);

  g_test_message ("%-28s %s relative error %.3g", name, what, err);
  worst_error = MAX (worst_error, err);
  if (!(err <= 1e-4))
    g_error ("%s %s: relative error %.3g against Caffe", name, what, err);
}

static void
run_zoo_layer (const CtTestDump *dump, const ZooLayer *z)
{
  g_autoptr (CtLayer) layer = layer_from_text (z->text);
  g_autoptr (GPtrArray) bottom = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (GPtrArray) top = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  const char *name = ct_layer_get_name (layer);

  for (guint i = 0; i < G_N_ELEMENTS (z->bottoms) && z->bottoms[i] != NULL; i++)
    g_ptr_array_add (bottom, ct_test_dump_blob (ct_test_dump_find (dump, 0, z->bottoms[i], 0)));
  for (guint i = 0; i < G_N_ELEMENTS (z->tops) && z->tops[i] != NULL; i++)
    g_ptr_array_add (top, ct_blob_new ());
  /* The weights Caffe used, as the net loads them before setup. */
  for (int i = 0; i < z->n_params; i++)
    {
      CtBlob *blob = ct_test_dump_blob (ct_test_dump_find (dump, 1, name, i));

      memset (ct_blob_mutable_cpu_diff (blob, NULL), 0, sizeof (float) * ct_blob_count (blob));
      g_ptr_array_add (layer->blobs, blob);
    }

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  for (guint i = 0; i < top->len; i++)
    {
      const CtTestDumpRecord *ref = ct_test_dump_find (dump, 0, z->tops[i], 0);
      CtBlob *out = CT_TOP (top, i);

      g_assert_cmpint (ct_blob_count (out), ==, ref->count);
      g_assert_cmpuint (ct_blob_num_axes (out), ==, ref->n_axes);
      compare ("data", z->tops[i], ct_blob_cpu_data (out, NULL), ref->data, ref->count);
      memcpy (ct_blob_mutable_cpu_diff (out, NULL), ref->diff, sizeof (float) * ref->count);
    }
  backward_ok (layer, top, bottom);
  for (guint i = 0; i < bottom->len; i++)
    {
      const CtTestDumpRecord *ref = ct_test_dump_find (dump, 0, z->bottoms[i], 0);

      compare ("diff", z->bottoms[i], ct_blob_cpu_diff (CT_BOTTOM (bottom, i), NULL), ref->diff,
               ref->count);
    }
  for (int i = 0; i < z->n_params; i++)
    {
      const CtTestDumpRecord *ref = ct_test_dump_find (dump, 1, name, i);
      g_autofree char *label = g_strdup_printf ("%s[%d]", name, i);

      compare ("param diff", label, ct_blob_cpu_diff (g_ptr_array_index (layer->blobs, i), NULL),
               ref->diff, ref->count);
    }
}

static void
test_layer_zoo_reference (void)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load ("layer_zoo_seed1701.bin");

  if (dump == NULL)
    {
      g_test_skip ("reference dump layer_zoo_seed1701.bin not found");
      return;
    }
  worst_error = 0.0;
  for (gsize i = 0; i < G_N_ELEMENTS (zoo_layers); i++)
    run_zoo_layer (dump, &zoo_layers[i]);
  g_test_message ("checked %" G_GSIZE_FORMAT " layers against Caffe; worst relative error %.3g",
                  G_N_ELEMENTS (zoo_layers), worst_error);
  g_assert_cmpuint (G_N_ELEMENTS (zoo_layers), ==, 21);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/layers/common/inner-product/forward", test_inner_product_forward);
  g_test_add_func ("/layers/common/inner-product/transpose", test_inner_product_transpose);
  g_test_add_func ("/layers/common/inner-product/gradient", test_inner_product_gradient);
  g_test_add_func ("/layers/common/inner-product/errors", test_inner_product_errors);
  g_test_add_func ("/layers/common/bias/forward", test_bias_forward);
  g_test_add_func ("/layers/common/bias/gradient", test_bias_gradient);
  g_test_add_func ("/layers/common/scale/forward", test_scale_forward);
  g_test_add_func ("/layers/common/scale/gradient", test_scale_gradient);
  g_test_add_func ("/layers/common/bias-scale/in-place", test_bias_scale_in_place);
  g_test_add_func ("/layers/common/bias-scale/errors", test_bias_scale_errors);
  g_test_add_func ("/layers/common/concat/forward", test_concat_forward);
  g_test_add_func ("/layers/common/concat/gradient", test_concat_gradient);
  g_test_add_func ("/layers/common/concat/errors", test_concat_errors);
  g_test_add_func ("/layers/common/slice/forward", test_slice_forward);
  g_test_add_func ("/layers/common/slice/gradient", test_slice_gradient);
  g_test_add_func ("/layers/common/slice/errors", test_slice_errors);
  g_test_add_func ("/layers/common/split", test_split);
  g_test_add_func ("/layers/common/eltwise/forward", test_eltwise_forward);
  g_test_add_func ("/layers/common/eltwise/gradient", test_eltwise_gradient);
  g_test_add_func ("/layers/common/eltwise/max-ties", test_eltwise_max_ties);
  g_test_add_func ("/layers/common/eltwise/errors", test_eltwise_errors);
  g_test_add_func ("/layers/common/flatten", test_flatten);
  g_test_add_func ("/layers/common/reshape", test_reshape);
  g_test_add_func ("/layers/common/reshape/errors", test_reshape_errors);
  g_test_add_func ("/layers/common/tile", test_tile);
  g_test_add_func ("/layers/common/reduction/forward", test_reduction_forward);
  g_test_add_func ("/layers/common/reduction/gradient", test_reduction_gradient);
  g_test_add_func ("/layers/common/argmax", test_argmax);
  g_test_add_func ("/layers/common/embed", test_embed);
  g_test_add_func ("/layers/common/filter", test_filter);
  g_test_add_func ("/layers/common/batch-reindex", test_batch_reindex);
  g_test_add_func ("/layers/common/silence", test_silence);
  g_test_add_func ("/layers/common/parameter", test_parameter);
  g_test_add_func ("/layers/data/dummy-data", test_dummy_data);
  g_test_add_func ("/layers/utility/python", test_python);
  g_test_add_func ("/layers/common/catalogue", test_catalogue);
  g_test_add_func ("/layers/common/layer-zoo-reference", test_layer_zoo_reference);
  return g_test_run ();
}
