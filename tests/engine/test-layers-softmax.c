/* test-layers-softmax.c: the Softmax layer: forward values against a
 * softmax computed in double over every axis, stability with huge scores,
 * finite-difference gradients, in-place use, bad axes, and real Caffe's
 * softmax1 from the layer-zoo reference dump. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"

static CtLayer *
softmax_layer (int axis, gboolean set_axis)
{
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__SoftmaxParameter sp = CAFFE__SOFTMAX_PARAMETER__INIT;
  const CtLayerClass *klass = ct_layer_catalogue_lookup ("Softmax");

  g_assert_nonnull (klass);
  param.name = (char *) "prob";
  param.type = (char *) "Softmax";
  if (set_axis)
    {
      sp.has_axis = TRUE;
      sp.axis = axis;
      param.softmax_param = &sp;
    }
  return ct_layer_new (klass, &param, CAFFE__PHASE__TEST);
}

/* Softmax of X over AXIS in double: what the layer must give. */
static void
reference_softmax (CtBlob *x, int axis, double *out)
{
  const float *d = ct_blob_cpu_data (x, NULL);
  gint64 outer = ct_blob_count_range (x, 0, axis, NULL);
  gint64 channels = ct_blob_get_shape (x)[axis];
  gint64 inner = ct_blob_count_from (x, axis + 1, NULL);

  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        double m = -INFINITY, sum = 0.0;

        for (gint64 c = 0; c < channels; c++)
          m = MAX (m, d[(i * channels + c) * inner + k]);
        for (gint64 c = 0; c < channels; c++)
          sum += exp (d[(i * channels + c) * inner + k] - m);
        for (gint64 c = 0; c < channels; c++)
          out[(i * channels + c) * inner + k] = exp (d[(i * channels + c) * inner + k] - m) / sum;
      }
}

static void
test_catalogue (void)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup ("Softmax");

  g_assert_nonnull (klass);
  g_assert_cmpint (klass->family, ==, CT_LAYER_FAMILY_COMMON);
  g_assert_cmpstr (klass->type, ==, "Softmax");
}

static void
test_forward_axes (void)
{
  static const gint64 dims[] = { 2, 3, 4, 5 };
  static const int axes[] = { 0, 1, 2, 3, -1, -3 };
  guint checked = 0;

  for (gsize a = 0; a < G_N_ELEMENTS (axes); a++)
    {
      g_autoptr (CtLayer) layer = softmax_layer (axes[a], TRUE);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (dims, 4, 1701 + a), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
      g_autoptr (GError) error = NULL;
      g_autofree double *want = g_new (double, 120);
      int axis = axes[a] < 0 ? axes[a] + 4 : axes[a];
      const float *got;

      g_assert_true (ct_layer_setup (layer, bottom, top, &error));
      g_assert_no_error (error);
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
      g_assert_cmpint (ct_blob_count (CT_TOP (top, 0)), ==, 120);
      reference_softmax (CT_BOTTOM (bottom, 0), axis, want);
      got = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
      for (int i = 0; i < 120; i++, checked++)
        g_assert_cmpfloat_with_epsilon (got[i], want[i], 1e-6);
    }
  g_assert_cmpuint (checked, ==, 720);
}

/* The default axis is 1, and a hand-computed row. */
static void
test_forward_by_hand (void)
{
  static const gint64 dims[] = { 2, 3 };
  static const float x[] = { 0.0f, 1.0f, 2.0f, 1000.0f, 1000.0f, 1000.0f };
  g_autoptr (CtLayer) layer = softmax_layer (0, FALSE);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_blob_new_with_shape (dims, 2, NULL), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  double e1 = exp (1.0), e2 = exp (2.0), s = 1.0 + e1 + e2;
  const float *y;

  memcpy (ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL), x, sizeof x);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  y = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  g_assert_cmpfloat_with_epsilon (y[0], 1.0 / s, 1e-7);
  g_assert_cmpfloat_with_epsilon (y[1], e1 / s, 1e-7);
  g_assert_cmpfloat_with_epsilon (y[2], e2 / s, 1e-7);
  /* Huge equal scores: no overflow, as the maximum is subtracted first. */
  for (int i = 3; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (y[i], 1.0 / 3.0, 1e-7);
}

static void
check_gradient (int axis)
{
  static const gint64 dims[] = { 2, 10, 2, 3 };
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = softmax_layer (axis, TRUE);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (dims, 4, 1701), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

  ct_check_gradient_exhaustive (&checker, layer, bottom, top, -1);
}

static void
test_gradient (void)
{
  check_gradient (1);
  check_gradient (2);
  check_gradient (-1);
}

static void
test_in_place (void)
{
  static const gint64 dims[] = { 3, 4, 2 };
  g_autoptr (CtLayer) apart = softmax_layer (1, TRUE);
  g_autoptr (CtLayer) inplace = softmax_layer (1, TRUE);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (dims, 3, 7), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GPtrArray) same = ct_test_blobs (ct_test_blob_gaussian (dims, 3, 7), NULL);
  g_autoptr (GPtrArray) diffs = ct_test_blobs (ct_test_blob_gaussian (dims, 3, 8), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down = TRUE;
  const float *a, *b;

  g_assert_true (ct_layer_setup (apart, bottom, top, &error));
  g_assert_true (ct_layer_setup (inplace, same, same, &error));
  g_assert_true (ct_layer_forward (apart, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_true (ct_layer_forward (inplace, same, same, ct_test_use_gpu (), NULL, &error));
  a = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  b = ct_blob_cpu_data (CT_TOP (same, 0), NULL);
  for (int i = 0; i < 24; i++)
    g_assert_cmpfloat (a[i], ==, b[i]);

  /* Backward with the same top diff, apart and in place. */
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL),
          ct_blob_cpu_data (CT_BOTTOM (diffs, 0), NULL), 24 * sizeof (float));
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (same, 0), NULL),
          ct_blob_cpu_data (CT_BOTTOM (diffs, 0), NULL), 24 * sizeof (float));
  g_assert_true (ct_layer_backward (apart, top, &down, bottom, ct_test_use_gpu (), &error));
  g_assert_true (ct_layer_backward (inplace, same, &down, same, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
  a = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  b = ct_blob_cpu_diff (CT_BOTTOM (same, 0), NULL);
  for (int i = 0; i < 24; i++)
    g_assert_cmpfloat_with_epsilon (a[i], b[i], 1e-7);
}

static void
test_bad_axis (void)
{
  static const gint64 dims[] = { 2, 3 };
  g_autoptr (CtLayer) layer = softmax_layer (2, TRUE);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (dims, 2, 1), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'prob'"));
  g_assert_nonnull (strstr (error->message, "axis"));
}

/* layer_zoo's softmax1 (axis 1 over 2 x 4 x 4) against real Caffe. */
static void
test_reference (void)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load ("layer_zoo_seed1701.bin");
  const CtTestDumpRecord *in, *out;
  g_autoptr (CtLayer) layer = softmax_layer (1, TRUE);
  g_autoptr (GPtrArray) bottom = NULL, top = NULL;
  g_autoptr (GError) error = NULL;
  gboolean down = TRUE;
  double err_data, err_diff;

  if (dump == NULL)
    {
      g_test_skip ("reference dump layer_zoo_seed1701.bin not found");
      return;
    }
  in = ct_test_dump_find (dump, 0, "reshape1", 0);
  out = ct_test_dump_find (dump, 0, "softmax1", 0);
  g_assert_cmpint (in->count, ==, 32);
  bottom = ct_test_blobs (ct_test_dump_blob (in), NULL);
  /* reshape1's diff is what backward must produce: start from NaN. */
  for (int i = 0; i < 32; i++)
    ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[i] = NAN;
  top = ct_test_blobs (ct_blob_new (), NULL);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL), out->diff, 32 * sizeof (float));
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
  err_data = ct_test_relative_error (ct_blob_cpu_data (CT_TOP (top, 0), NULL), out->data, 32);
  err_diff = ct_test_relative_error (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL),
                                     in->diff, 32);
  g_test_message ("softmax1: data relative error %.3g, reshape1 diff %.3g", err_data, err_diff);
  g_assert_cmpfloat (err_data, <=, 1e-4);
  g_assert_cmpfloat (err_diff, <=, 1e-4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/softmax/catalogue", test_catalogue);
  g_test_add_func ("/engine/layers/softmax/forward-axes", test_forward_axes);
  g_test_add_func ("/engine/layers/softmax/forward-by-hand", test_forward_by_hand);
  g_test_add_func ("/engine/layers/softmax/gradient", test_gradient);
  g_test_add_func ("/engine/layers/softmax/in-place", test_in_place);
  g_test_add_func ("/engine/layers/softmax/bad-axis", test_bad_axis);
  g_test_add_func ("/engine/layers/softmax/reference", test_reference);
  return g_test_run ();
}
