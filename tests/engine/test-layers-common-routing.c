/* test-layers-common-routing.c: the Common and Utility layers that move
 * or reshape blobs (Concat, Slice, Split, Flatten, Reshape, Tile, Filter,
 * BatchReindex, Silence, Parameter, Python) and DummyData: values, gradients
 * and setup errors. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"
#include "common-test-util.h"

/* ---- Concat, Slice, Split ---- */

static void
test_concat_forward (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), ct_test_gaussian (2, 4, 2, 1, 2, 2),
                                        NULL);
  g_autoptr (GPtrArray) batch = ct_test_blobs (ct_test_gaussian (3, 3, 2, 3, 2), ct_test_gaussian (4, 3, 1, 3, 2), NULL);
  g_autoptr (CtLayer) channels = ct_test_layer_from_text ("name: 'c' type: 'Concat'");
  g_autoptr (CtLayer) legacy = ct_test_layer_from_text (
    "name: 'c0' type: 'Concat' concat_param { concat_dim: 0 }");
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);
  const float *a = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  const float *b = ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  const float *out;

  ct_test_setup_ok (channels, bottom, top);
  ct_test_forward_ok (channels, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 4, 2, 2);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 4; c++)
      for (int i = 0; i < 4; i++)
        g_assert_cmpfloat (out[(n * 4 + c) * 4 + i], ==,
                           c < 3 ? a[(n * 3 + c) * 4 + i] : b[n * 4 + i]);

  ct_test_setup_ok (legacy, batch, top2);
  ct_test_forward_ok (legacy, batch, top2);
  ct_test_assert_shape (CT_TOP (top2, 0), 3, 3, 3, 2);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top2, 0), NULL) + 12,
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

  ct_test_check_exhaustive ("name: 'c' type: 'Concat'", channels, t1, -1);
  ct_test_check_exhaustive ("name: 'c' type: 'Concat' concat_param { axis: -1 }", last, t2, -1);
  ct_test_check_exhaustive ("name: 'c' type: 'Concat'", single, t3, -1);
}

static void
test_concat_errors (void)
{
  g_autoptr (GPtrArray) mismatch = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2),
                                          ct_test_gaussian (2, 4, 2, 3, 3, 2), NULL);
  g_autoptr (GPtrArray) axes = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), ct_test_gaussian (2, 3, 2, 3, 2),
                                      NULL);
  g_autoptr (GPtrArray) fine = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), ct_test_gaussian (2, 2, 2, 3), NULL);

  ct_test_expect_setup_error ("name: 'cm' type: 'Concat'", mismatch, 1, "does not match");
  ct_test_expect_setup_error ("name: 'cm' type: 'Concat'", axes, 1, "does not match");
  ct_test_expect_setup_error ("name: 'cb' type: 'Concat' concat_param { axis: 1 concat_dim: 1 }", fine,
                      1, "concat_dim");
  ct_test_expect_setup_error ("name: 'cd' type: 'Concat' concat_param { concat_dim: 2 }", fine, 1,
                      "concat_dim 2");
  ct_test_expect_setup_error ("name: 'ca' type: 'Concat' concat_param { axis: -3 }", fine, 1, "xis");
}

static void
test_slice_forward (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 6, 2, 2), NULL);
  g_autoptr (CtLayer) points = ct_test_layer_from_text (
    "name: 'sl' type: 'Slice' slice_param { slice_point: 1 slice_point: 4 }");
  g_autoptr (CtLayer) even = ct_test_layer_from_text (
    "name: 'se' type: 'Slice' slice_param { slice_dim: 0 }");
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (3);
  g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (2);
  const float *in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);

  ct_test_setup_ok (points, bottom, top);
  ct_test_forward_ok (points, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 1, 2, 2);
  ct_test_assert_shape (CT_TOP (top, 1), 4, 2, 3, 2, 2);
  ct_test_assert_shape (CT_TOP (top, 2), 4, 2, 2, 2, 2);
  for (int n = 0; n < 2; n++)
    {
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + n * 4, in + n * 24, 4, 0.0f);
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL) + n * 12, in + n * 24 + 4, 12, 0.0f);
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 2), NULL) + n * 8, in + n * 24 + 16, 8, 0.0f);
    }

  ct_test_setup_ok (even, bottom, top2);
  ct_test_forward_ok (even, bottom, top2);
  ct_test_assert_shape (CT_TOP (top2, 1), 4, 1, 6, 2, 2);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top2, 1), NULL), in + 24, 24, 0.0f);
}

static void
test_slice_gradient (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 5, 2, 2), NULL);
  g_autoptr (GPtrArray) bottom2 = ct_test_blobs (ct_test_gaussian (2, 3, 2, 3, 4), NULL);
  g_autoptr (GPtrArray) t1 = ct_test_empty_blobs (3), t2 = ct_test_empty_blobs (2);

  ct_test_check_exhaustive ("name: 'sl' type: 'Slice' slice_param { slice_point: 1 slice_point: 3 }",
                    bottom, t1, -1);
  ct_test_check_exhaustive ("name: 'sl' type: 'Slice' slice_param { axis: -1 }", bottom2, t2, -1);
}

static void
test_slice_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 5, 2, 2), NULL);

  ct_test_expect_setup_error ("name: 'sx' type: 'Slice'", bottom, 2, "evenly");
  ct_test_expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_point: 2 }", bottom, 3,
                      "slice_point");
  ct_test_expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_point: 3 slice_point: 2 }",
                      bottom, 3, "increase");
  ct_test_expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_point: 5 }", bottom, 2,
                      "increase");
  ct_test_expect_setup_error ("name: 'sx' type: 'Slice' slice_param { axis: 1 slice_dim: 1 }", bottom, 5,
                      "slice_dim");
  ct_test_expect_setup_error ("name: 'sx' type: 'Slice' slice_param { slice_dim: 4 }", bottom, 1,
                      "slice_dim 4");
}

static void
test_split (void)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 'x_split' type: 'Split'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 3, 2, 3, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (3);
  g_autoptr (GPtrArray) grad_top = ct_test_empty_blobs (2);
  gint64 count = 24;
  float want[24];

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  for (guint t = 0; t < 3; t++)
    {
      float *diff = ct_blob_mutable_cpu_diff (CT_TOP (top, t), NULL);

      ct_test_assert_shape (CT_TOP (top, t), 3, 2, 3, 4);
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, t), NULL),
                     ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), count, 0.0f);
      for (int i = 0; i < count; i++)
        diff[i] = (float) (i * (t + 1)) - 3.0f * t;
    }
  for (int i = 0; i < count; i++)
    want[i] = (float) (6 * i) - 9.0f;
  ct_test_backward_ok (layer, top, bottom);
  ct_test_assert_floats (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), want, count, 0.0f);

  /* The tops follow the bottom's data, as shared memory does. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL)[5] = 42.0f;
  g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 2), NULL)[5], ==, 42.0f);

  ct_test_check_exhaustive ("name: 's' type: 'Split'", bottom, grad_top, -1);
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
      g_autoptr (CtLayer) layer = ct_test_layer_from_text (cases[v].text);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

      ct_test_setup_ok (layer, bottom, top);
      ct_test_forward_ok (layer, bottom, top);
      g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, cases[v].n_axes);
      for (guint i = 0; i < cases[v].n_axes; i++)
        g_assert_cmpint (ct_blob_get_shape (CT_TOP (top, 0))[i], ==, cases[v].dims[i]);
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL),
                     ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), 120, 0.0f);
    }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    ct_test_check_exhaustive ("name: 'f' type: 'Flatten'", bottom, top, -1);
  }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);

    ct_test_expect_setup_error ("name: 'fx' type: 'Flatten' flatten_param { axis: 4 }", bottom, 1,
                        "xis");
    ct_test_expect_setup_error ("name: 'fx' type: 'Flatten' flatten_param { axis: 2 end_axis: 1 }",
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
      g_autoptr (CtLayer) layer = ct_test_layer_from_text (cases[v].text);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);
      g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
      g_autofree char *shape = NULL;

      ct_test_setup_ok (layer, bottom, top);
      ct_test_forward_ok (layer, bottom, top);
      shape = ct_blob_shape_string (CT_TOP (top, 0));
      g_test_message ("%s -> %s", cases[v].text, shape);
      g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, cases[v].n_axes);
      for (guint i = 0; i < cases[v].n_axes; i++)
        g_assert_cmpint (ct_blob_get_shape (CT_TOP (top, 0))[i], ==, cases[v].dims[i]);
      ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL),
                     ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), 120, 0.0f);
    }
  {
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

    ct_test_check_exhaustive ("name: 'r' type: 'Reshape' reshape_param { shape { dim: -1 dim: 4 } }",
                      bottom, top, -1);
  }
}

static void
test_reshape_errors (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 4, 5), NULL);

  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: -1 dim: -1 } }",
                      bottom, 1, "-1");
  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 7 dim: -1 } }",
                      bottom, 1, "divisible");
  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 7 dim: 3 } }",
                      bottom, 1, "values");
  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 0 dim: 0 } "
                      "axis: 3 }", bottom, 1, "no axis");
  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: -2 } }",
                      bottom, 1, "-2");
  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 1 } axis: 6 }",
                      bottom, 1, "axis 6");
  ct_test_expect_setup_error ("name: 'rx' type: 'Reshape' reshape_param { shape { dim: 1 } axis: 2 "
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
  g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 't' type: 'Tile' tile_param { tiles: 3 }");
  g_autoptr (CtLayer) layer0 = ct_test_layer_from_text (
    "name: 't' type: 'Tile' tile_param { axis: 0 tiles: 2 }");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, values), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) top0 = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) gbottom = ct_test_blobs (ct_test_gaussian (1, 4, 2, 3, 2, 2), NULL);
  g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) gtop2 = ct_test_empty_blobs (1);

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 6);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), want_axis1, 12, 0.0f);
  ct_test_setup_ok (layer0, bottom, top0);
  ct_test_forward_ok (layer0, bottom, top0);
  ct_test_assert_shape (CT_TOP (top0, 0), 2, 4, 2);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top0, 0), NULL), want_axis0, 8, 0.0f);

  ct_test_check_exhaustive ("name: 't' type: 'Tile' tile_param { tiles: 3 }", gbottom, gtop, -1);
  ct_test_check_exhaustive ("name: 't' type: 'Tile' tile_param { axis: -1 tiles: 2 }", gbottom, gtop2,
                    -1);

  ct_test_expect_setup_error ("name: 'tx' type: 'Tile'", bottom, 1, "tiles");
  ct_test_expect_setup_error ("name: 'tx' type: 'Tile' tile_param { tiles: 0 }", bottom, 1, "tiles");
  ct_test_expect_setup_error ("name: 'tx' type: 'Tile' tile_param { tiles: 2 axis: 2 }", bottom, 1,
                      "xis");
}

static void
test_filter (void)
{
  static const gint64 sel_dims[] = { 4, 1 };
  static const float selector[] = { 0, 1, 0, 2 };
  g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 'flt' type: 'Filter'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 4, 3, 2, 2), ct_test_gaussian (2, 2, 4, 5),
                                        ct_test_blob_with (sel_dims, 2, selector), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (2);
  const float *a = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  const float *b = ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  float *diff;

  ct_test_setup_ok (layer, bottom, top);
  /* Before any forward, the tops have the whole batch. */
  ct_test_assert_shape (CT_TOP (top, 0), 4, 4, 3, 2, 2);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 3, 2, 2);
  ct_test_assert_shape (CT_TOP (top, 1), 2, 2, 5);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL), a + 12, 12, 0.0f);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + 12, a + 36, 12, 0.0f);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL), b + 5, 5, 0.0f);
  ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL) + 5, b + 15, 5, 0.0f);

  diff = ct_blob_mutable_cpu_diff (CT_TOP (top, 1), NULL);
  for (int i = 0; i < 10; i++)
    diff[i] = (float) (i + 1);
  diff = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, 2), NULL);
  diff[0] = 123.0f;
  ct_test_backward_ok (layer, top, bottom);
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

    ct_test_expect_setup_error ("name: 'fx' type: 'Filter'", bad, 1, "first dimension");
    ct_test_expect_setup_error ("name: 'fx' type: 'Filter'", wide, 1, "must be 1");
    ct_test_expect_setup_error ("name: 'fx' type: 'Filter'", wide, 2, "one top per");
  }
}

static void
test_batch_reindex (void)
{
  static const gint64 order_dims[] = { 5 };
  static const float order[] = { 2, 0, 2, 1, 2 };
  g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 'br' type: 'BatchReindex'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 3, 3, 2, 2),
                                        ct_test_blob_with (order_dims, 1, order), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  const float *in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  float *diff;

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 3, 5, 2, 2);
  for (int i = 0; i < 5; i++)
    ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + i * 4, in + (int) order[i] * 4, 4,
                   0.0f);
  diff = ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL);
  for (int i = 0; i < 20; i++)
    diff[i] = 1.0f;
  ct_test_backward_ok (layer, top, bottom);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[i], ==,
                       i < 4 ? 1.0f : i < 8 ? 1.0f : 3.0f);
  g_assert_true (ct_layer_allow_force_backward (layer, 0));
  g_assert_false (ct_layer_allow_force_backward (layer, 1));

  ct_test_check_exhaustive ("name: 'br' type: 'BatchReindex'", bottom, gtop, 0);

  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL)[3] = 3.0f;
  g_assert_false (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_test_message ("expected error: %s", error->message);
  g_assert_nonnull (strstr (error->message, "'br'"));
  g_assert_nonnull (strstr (error->message, "index 3 is 3"));
  {
    g_autoptr (GPtrArray) bad = ct_test_blobs (ct_test_gaussian (1, 3, 3, 2, 2), ct_test_gaussian (2, 2, 5, 1), NULL);

    ct_test_expect_setup_error ("name: 'bx' type: 'BatchReindex'", bad, 1, "one axis");
  }
}

/* ---- Silence, Parameter, DummyData, Python ---- */

static void
test_silence (void)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text ("name: 'quiet' type: 'Silence'");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 2, 2, 3), ct_test_gaussian (2, 1, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (0);

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  for (guint b = 0; b < 2; b++)
    {
      float *diff = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, b), NULL);

      for (gint64 i = 0; i < ct_blob_count (CT_BOTTOM (bottom, b)); i++)
        diff[i] = 5.0f;
    }
  ct_test_backward_ok (layer, top, bottom);
  for (guint b = 0; b < 2; b++)
    for (gint64 i = 0; i < ct_blob_count (CT_BOTTOM (bottom, b)); i++)
      g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, b), NULL)[i], ==, 0.0f);
  ct_test_expect_setup_error ("name: 'quiet' type: 'Silence'", bottom, 1, "top");
}

static void
test_parameter (void)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'p' type: 'Parameter' parameter_param { shape { dim: 2 dim: 3 } }");
  g_autoptr (GPtrArray) bottom = g_ptr_array_new ();
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  CtBlob *param;

  ct_test_setup_ok (layer, bottom, top);
  g_assert_cmpuint (layer->blobs->len, ==, 1);
  param = g_ptr_array_index (layer->blobs, 0);
  ct_test_assert_shape (param, 2, 2, 3);
  ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 3);
  ct_blob_mutable_cpu_data (param, NULL)[4] = 7.0f;
  ct_test_forward_ok (layer, bottom, top);
  g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[4], ==, 7.0f);
  /* A gradient reaching the top is the parameter's. */
  ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL)[1] = 3.0f;
  ct_test_backward_ok (layer, top, bottom);
  g_assert_cmpfloat (ct_blob_cpu_diff (param, NULL)[1], ==, 3.0f);
  {
    g_autoptr (GPtrArray) gtop = ct_test_empty_blobs (1);

    ct_test_check_exhaustive ("name: 'p' type: 'Parameter' parameter_param { shape { dim: 3 } }",
                      bottom, gtop, -1);
  }
}

static void
test_dummy_data (void)
{
  g_autoptr (GPtrArray) bottom = g_ptr_array_new ();

  {
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'dd' type: 'DummyData' dummy_data_param { "
      "data_filler { type: 'constant' value: 3 } data_filler { type: 'uniform' min: 1 max: 2 } "
      "shape { dim: 2 dim: 3 } shape { dim: 4 } }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (2);
    float first[4];

    ct_test_setup_ok (layer, bottom, top);
    ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 3);
    ct_test_assert_shape (CT_TOP (top, 1), 1, 4);
    /* The constant top is filled at setup already. */
    for (int i = 0; i < 6; i++)
      g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[i], ==, 3.0f);
    ct_test_forward_ok (layer, bottom, top);
    memcpy (first, ct_blob_cpu_data (CT_TOP (top, 1), NULL), sizeof first);
    for (int i = 0; i < 4; i++)
      g_assert_true (first[i] >= 1.0f && first[i] <= 2.0f);
    /* The random top changes at every forward; the constant one is not touched. */
    ct_blob_mutable_cpu_data (CT_TOP (top, 0), NULL)[0] = -1.0f;
    ct_test_forward_ok (layer, bottom, top);
    g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[0], ==, -1.0f);
    g_assert_true (memcmp (first, ct_blob_cpu_data (CT_TOP (top, 1), NULL), sizeof first) != 0);
    /* The same seed replays the same draws. */
    layer->seed = 1701;
    ct_test_forward_ok (layer, bottom, top);
    ct_test_assert_floats (ct_blob_cpu_data (CT_TOP (top, 1), NULL), first, 4, 0.0f);
  }
  {
    /* Legacy dimensions, one filler for all tops, none: zeros. */
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'dd' type: 'DummyData' dummy_data_param { "
      "num: 2 channels: 3 channels: 1 height: 4 width: 5 }");
    g_autoptr (CtLayer) shared = ct_test_layer_from_text (
      "name: 'dd' type: 'DummyData' dummy_data_param { "
      "data_filler { type: 'gaussian' std: 2 } shape { dim: 3 dim: 2 } }");
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (2);
    g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (2);

    ct_test_setup_ok (layer, bottom, top);
    ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 3, 4, 5);
    ct_test_assert_shape (CT_TOP (top, 1), 4, 2, 1, 4, 5);
    ct_test_forward_ok (layer, bottom, top);
    for (int i = 0; i < 40; i++)
      g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 1), NULL)[i], ==, 0.0f);

    ct_test_setup_ok (shared, bottom, top2);
    ct_test_forward_ok (shared, bottom, top2);
    ct_test_assert_shape (CT_TOP (top2, 1), 2, 3, 2);
    g_assert_cmpfloat (ct_blob_asum_data (CT_TOP (top2, 0), NULL), >, 0.0f);
    g_assert_cmpfloat (ct_blob_asum_data (CT_TOP (top2, 1), NULL), >, 0.0f);
  }
  ct_test_expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { "
                      "data_filler { } data_filler { } shape { dim: 2 } }", bottom, 3,
                      "data_filler");
  ct_test_expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { num: 2 channels: 2 "
                      "height: 1 width: 1 shape { dim: 2 } }", bottom, 1, "not both");
  ct_test_expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { num: 2 channels: 2 "
                      "height: 1 }", bottom, 1, "'width'");
  ct_test_expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { shape { dim: 2 } "
                      "shape { dim: 3 } }", bottom, 3, "'shape'");
  ct_test_expect_setup_error ("name: 'dx' type: 'DummyData'", bottom, 1, "'shape'");
  ct_test_expect_setup_error ("name: 'dx' type: 'DummyData' dummy_data_param { "
                      "data_filler { type: 'fancy' } shape { dim: 2 } }", bottom, 1, "fancy");
}

static void
test_python (void)
{
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 1, 3), NULL);
  g_autoptr (GPtrArray) none = g_ptr_array_new ();

  ct_test_expect_setup_error ("name: 'data' type: 'Python' python_param { module: 'voc_layers' "
                      "layer: 'SBDDSegDataLayer' param_str: 'x' }", none, 2, "voc_layers");
  ct_test_expect_setup_error ("name: 'data' type: 'Python' python_param { module: 'voc_layers' "
                      "layer: 'SBDDSegDataLayer' }", bottom, 1, "SBDDSegDataLayer");
  ct_test_expect_setup_error ("name: 'py' type: 'Python'", bottom, 0, "Python layers cannot run");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/layers/common/concat/forward", test_concat_forward);
  g_test_add_func ("/engine/layers/common/concat/gradient", test_concat_gradient);
  g_test_add_func ("/engine/layers/common/concat/errors", test_concat_errors);
  g_test_add_func ("/engine/layers/common/slice/forward", test_slice_forward);
  g_test_add_func ("/engine/layers/common/slice/gradient", test_slice_gradient);
  g_test_add_func ("/engine/layers/common/slice/errors", test_slice_errors);
  g_test_add_func ("/engine/layers/common/split", test_split);
  g_test_add_func ("/engine/layers/common/flatten", test_flatten);
  g_test_add_func ("/engine/layers/common/reshape", test_reshape);
  g_test_add_func ("/engine/layers/common/reshape/errors", test_reshape_errors);
  g_test_add_func ("/engine/layers/common/tile", test_tile);
  g_test_add_func ("/engine/layers/common/filter", test_filter);
  g_test_add_func ("/engine/layers/common/batch-reindex", test_batch_reindex);
  g_test_add_func ("/engine/layers/common/silence", test_silence);
  g_test_add_func ("/engine/layers/common/parameter", test_parameter);
  g_test_add_func ("/engine/layers/data/dummy-data", test_dummy_data);
  g_test_add_func ("/engine/layers/utility/python", test_python);
  return g_test_run ();
}
