/* test-layers-neuron.c: the neuron layers (ReLU, PReLU, ELU, Sigmoid, TanH,
 * AbsVal, Power, Exp, Log, BNLL, Threshold, Dropout, Swish, Clip): forward
 * values computed by hand, finite-difference gradients for every parameter
 * variant, in-place runs against out-of-place ones, setup errors that name
 * the layer, and layer_zoo's neurons against real Caffe's reference dump. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "blas.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "neuron.h"
#include "proto-file.h"
#include "reference-dump.h"

static const gint64 small_dims[] = { 2, 3, 4, 5 };

/* A LayerParameter on the stack: name "neuron", the given type, and the
 * type's parameter message set by the caller. */
static void
init_param (Caffe__LayerParameter *param, const char *type)
{
  Caffe__LayerParameter init = CAFFE__LAYER_PARAMETER__INIT;

  *param = init;
  param->name = (char *) "neuron";
  param->type = (char *) type;
}

static CtLayer *
new_layer (const Caffe__LayerParameter *param, Caffe__Phase phase)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (param->type);

  g_assert_nonnull (klass);
  return ct_layer_new (klass, param, phase);
}

static GPtrArray *
one_blob (CtBlob *blob)
{
  GPtrArray *list = g_ptr_array_new ();

  g_ptr_array_add (list, blob);
  return list;
}

/* Finite-difference check of an element-wise layer on X (borrowed). */
static void
check_gradient (const Caffe__LayerParameter *param, Caffe__Phase phase, CtBlob *x,
                float kink, float kink_range, gboolean exhaustive)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = new_layer (param, phase);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);

  checker.kink = kink;
  checker.kink_range = kink_range;
  if (exhaustive)
    ct_check_gradient_exhaustive (&checker, layer, bottom, top, -1);
  else
    ct_check_gradient_eltwise (&checker, layer, bottom, top);
  g_assert_cmpint (ct_blob_count (y), ==, ct_blob_count (x));
}

static void
check_gradient_gaussian (const Caffe__LayerParameter *param, float kink, float kink_range)
{
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 1701);

  check_gradient (param, CAFFE__PHASE__TRAIN, x, kink, kink_range, FALSE);
}

/* Runs the layer on IN (1 x N) and compares the top with EXPECTED. */
static void
check_forward (const Caffe__LayerParameter *param, Caffe__Phase phase,
               const float *in, const double *expected, gint64 n)
{
  const gint64 dims[] = { 1, n };
  g_autoptr (CtLayer) layer = new_layer (param, phase);
  g_autoptr (CtBlob) x = ct_blob_new_with_shape (dims, 2, NULL);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);
  g_autoptr (GError) error = NULL;
  const float *out;

  memcpy (ct_blob_mutable_cpu_data (x, NULL), in, n * sizeof (float));
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_blob_count (y), ==, n);
  out = ct_blob_cpu_data (y, NULL);
  for (gint64 i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (out[i], expected[i], 1e-6 * MAX (1.0, fabs (expected[i])));
}

/* Setup must fail with a message naming the layer and mentioning WHAT. */
static void
check_setup_fails (const Caffe__LayerParameter *param, CtBlob *x, gboolean in_place,
                   const char *what)
{
  g_autoptr (CtLayer) layer = new_layer (param, CAFFE__PHASE__TRAIN);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (in_place ? x : y);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'neuron'"));
  g_assert_nonnull (strstr (error->message, param->type));
  g_assert_nonnull (strstr (error->message, what));
}

/* Forward and backward in place on a copy of X must give the top and the
 * bottom diff that separate blobs give, for a top diff DY. */
static void
check_in_place (const Caffe__LayerParameter *param, Caffe__Phase phase, CtBlob *x)
{
  gint64 n = ct_blob_count (x);
  g_autoptr (CtBlob) dy = ct_test_blob_gaussian (ct_blob_get_shape (x), ct_blob_num_axes (x), 7);
  g_autoptr (CtBlob) a = ct_blob_new ();
  g_autoptr (CtBlob) b = ct_blob_new ();
  g_autoptr (CtBlob) c = ct_blob_new ();
  g_autoptr (CtLayer) separate = new_layer (param, phase);
  g_autoptr (CtLayer) in_place = new_layer (param, phase);
  g_autoptr (GPtrArray) bottom_a = one_blob (a);
  g_autoptr (GPtrArray) top_b = one_blob (b);
  g_autoptr (GPtrArray) both_c = one_blob (c);
  g_autoptr (GError) error = NULL;
  gboolean down = TRUE;

  g_assert_true (ct_blob_copy_from (a, x, CT_BLOB_COPY_RESHAPE, NULL));
  g_assert_true (ct_blob_copy_from (c, x, CT_BLOB_COPY_RESHAPE, NULL));
  separate->seed = in_place->seed = 99;

  g_assert_true (ct_layer_setup (separate, bottom_a, top_b, &error));
  g_assert_true (ct_layer_forward (separate, bottom_a, top_b, ct_test_use_gpu (), NULL,
                                   &error));
  memcpy (ct_blob_mutable_cpu_diff (b, NULL), ct_blob_cpu_data (dy, NULL), n * sizeof (float));
  g_assert_true (ct_layer_backward (separate, top_b, &down, bottom_a, ct_test_use_gpu (),
                                    &error));

  g_assert_true (ct_layer_setup (in_place, both_c, both_c, &error));
  g_assert_true (ct_layer_forward (in_place, both_c, both_c, ct_test_use_gpu (), NULL,
                                   &error));
  g_assert_no_error (error);
  g_assert_cmpmem (ct_blob_cpu_data (c, NULL), n * sizeof (float),
                   ct_blob_cpu_data (b, NULL), n * sizeof (float));
  memcpy (ct_blob_mutable_cpu_diff (c, NULL), ct_blob_cpu_data (dy, NULL), n * sizeof (float));
  g_assert_true (ct_layer_backward (in_place, both_c, &down, both_c, ct_test_use_gpu (),
                                    &error));
  g_assert_no_error (error);
  g_assert_cmpmem (ct_blob_cpu_diff (c, NULL), n * sizeof (float),
                   ct_blob_cpu_diff (a, NULL), n * sizeof (float));
  for (guint i = 0; i < separate->blobs->len; i++)
    {
      CtBlob *p = g_ptr_array_index (separate->blobs, i);
      CtBlob *q = g_ptr_array_index (in_place->blobs, i);

      g_assert_cmpmem (ct_blob_cpu_diff (p, NULL), ct_blob_count (p) * sizeof (float),
                       ct_blob_cpu_diff (q, NULL), ct_blob_count (q) * sizeof (float));
    }
}

static void
test_catalogue (void)
{
  static const char *const types[] = {
    "ReLU", "PReLU", "ELU", "Sigmoid", "TanH", "AbsVal", "Power", "Exp", "Log", "BNLL",
    "Threshold", "Dropout", "Swish", "Clip",
  };
  g_autoptr (GPtrArray) all = ct_layer_catalogue_list ();
  guint neurons = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const CtLayerClass *klass = ct_layer_catalogue_lookup (types[i]);

      g_assert_nonnull (klass);
      g_assert_cmpstr (klass->type, ==, types[i]);
      g_assert_cmpint (klass->family, ==, CT_LAYER_FAMILY_NEURON);
      g_assert_nonnull (klass->description);
      /* Threshold alone has no gradient, as in Caffe. */
      g_assert_true ((klass->backward == NULL) == (strcmp (types[i], "Threshold") == 0));
    }
  for (guint i = 0; i < all->len; i++)
    if (((const CtLayerClass *) g_ptr_array_index (all, i))->family == CT_LAYER_FAMILY_NEURON)
      neurons++;
  g_assert_cmpuint (neurons, ==, G_N_ELEMENTS (types));
}

/* ---- ReLU ---- */

static void
test_relu (void)
{
  static const float in[] = { -2.0f, -0.5f, 0.0f, 0.25f, 3.0f };
  static const double plain[] = { 0, 0, 0, 0.25, 3 };
  static const double leaky[] = { -0.2, -0.05, 0, 0.25, 3 };
  Caffe__LayerParameter param;
  Caffe__ReLUParameter relu = CAFFE__RE_LUPARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 11);

  init_param (&param, "ReLU");
  check_forward (&param, CAFFE__PHASE__TEST, in, plain, 5);
  check_gradient_gaussian (&param, 0.0f, 0.01f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);

  relu.has_negative_slope = TRUE;
  relu.negative_slope = 0.1f;
  param.relu_param = &relu;
  check_forward (&param, CAFFE__PHASE__TEST, in, leaky, 5);
  check_gradient_gaussian (&param, 0.0f, 0.01f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);

  /* Caffe's max(x, 0) + 0 * min(x, 0) is +0 for a negative x, bit for bit;
   * NaN stays NaN. */
  {
    const float xs[] = { -3.0f, NAN };
    float ys[2];

    g_assert_cmpint (ct_cpu_relu_forward (2, 0.0f, xs, ys), ==, CT_STATUS_OK);
    g_assert_true (ys[0] == 0.0f && !signbit (ys[0]));
    g_assert_true (isnan (ys[1]));
  }
}

/* ---- PReLU ---- */

static void
test_prelu_forward (void)
{
  /* 1 x 2 channels x 3: slopes 0.25 (default filler) or from a filler. */
  static const gint64 dims[] = { 1, 2, 3 };
  static const float in[] = { -4.0f, 1.0f, -1.0f, -2.0f, 0.0f, 5.0f };
  Caffe__LayerParameter param;
  Caffe__PReLUParameter prelu = CAFFE__PRE_LUPARAMETER__INIT;
  Caffe__FillerParameter filler = CAFFE__FILLER_PARAMETER__INIT;

  init_param (&param, "PReLU");
  for (int variant = 0; variant < 2; variant++)
    {
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (CtBlob) x = ct_blob_new_with_shape (dims, 3, NULL);
      g_autoptr (CtBlob) y = ct_blob_new ();
      g_autoptr (GPtrArray) bottom = one_blob (x);
      g_autoptr (GPtrArray) top = one_blob (y);
      g_autoptr (GError) error = NULL;
      const float *out;
      float *slope;

      if (variant == 1)
        {
          prelu.has_channel_shared = TRUE;
          prelu.channel_shared = TRUE;
          filler.type = (char *) "constant";
          filler.has_value = TRUE;
          filler.value = 0.5f;
          prelu.filler = &filler;
          param.prelu_param = &prelu;
        }
      layer = new_layer (&param, CAFFE__PHASE__TEST);
      memcpy (ct_blob_mutable_cpu_data (x, NULL), in, sizeof in);
      g_assert_true (ct_layer_setup (layer, bottom, top, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (layer->blobs->len, ==, 1);
      g_assert_true (ct_layer_param_propagate_down (layer, 0));
      if (variant == 0)
        {
          /* One slope per channel, filled with 0.25; then set to 0.25 and 0.1. */
          g_assert_cmpuint (ct_blob_num_axes (g_ptr_array_index (layer->blobs, 0)), ==, 1);
          g_assert_cmpint (ct_blob_count (g_ptr_array_index (layer->blobs, 0)), ==, 2);
          slope = ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL);
          g_assert_cmpfloat (slope[0], ==, 0.25f);
          g_assert_cmpfloat (slope[1], ==, 0.25f);
          slope[1] = 0.1f;
        }
      else
        {
          /* channel_shared: a scalar blob (no axes), as Caffe stores it. */
          g_assert_cmpuint (ct_blob_num_axes (g_ptr_array_index (layer->blobs, 0)), ==, 0);
          g_assert_cmpint (ct_blob_count (g_ptr_array_index (layer->blobs, 0)), ==, 1);
          slope = ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL);
          g_assert_cmpfloat (slope[0], ==, 0.5f);
        }
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
      out = ct_blob_cpu_data (y, NULL);
      if (variant == 0)
        {
          const float expected[] = { -1.0f, 1.0f, -0.25f, -0.2f, 0.0f, 5.0f };
          for (int i = 0; i < 6; i++)
            g_assert_cmpfloat_with_epsilon (out[i], expected[i], 1e-7);
        }
      else
        {
          const float expected[] = { -2.0f, 1.0f, -0.5f, -1.0f, 0.0f, 5.0f };
          for (int i = 0; i < 6; i++)
            g_assert_cmpfloat_with_epsilon (out[i], expected[i], 1e-7);
        }
    }
}

static void
test_prelu_gradient (void)
{
  Caffe__LayerParameter param;
  Caffe__PReLUParameter prelu = CAFFE__PRE_LUPARAMETER__INIT;
  Caffe__FillerParameter filler = CAFFE__FILLER_PARAMETER__INIT;

  init_param (&param, "PReLU");
  /* Random slopes, so that a mixed-up channel shows. */
  filler.type = (char *) "uniform";
  filler.has_min = filler.has_max = TRUE;
  filler.min = -0.5f;
  filler.max = 0.9f;
  prelu.filler = &filler;
  param.prelu_param = &prelu;
  for (int shared = 0; shared < 2; shared++)
    {
      g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 1701);

      prelu.has_channel_shared = TRUE;
      prelu.channel_shared = shared;
      check_gradient (&param, CAFFE__PHASE__TRAIN, x, 0.0f, 0.01f, TRUE);
      check_in_place (&param, CAFFE__PHASE__TRAIN, x);
    }
}

/* The slope gradient adds to what the diff holds, as Caffe accumulates
 * parameter gradients over iter_size passes. */
static void
test_prelu_accumulates (void)
{
  Caffe__LayerParameter param;
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 5);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);
  g_autoptr (GError) error = NULL;
  gboolean down = FALSE;
  float once[3];
  const float *diff;

  init_param (&param, "PReLU");
  layer = new_layer (&param, CAFFE__PHASE__TRAIN);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  /* dy = x: the slope gradient is the sum of the squares of the negative inputs. */
  ct_cpu_copy (ct_blob_count (y), ct_blob_cpu_data (x, NULL), ct_blob_mutable_cpu_diff (y, NULL));
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  diff = ct_blob_cpu_diff (g_ptr_array_index (layer->blobs, 0), NULL);
  memcpy (once, diff, sizeof once);
  g_assert_cmpfloat (fabsf (once[0]) + fabsf (once[1]) + fabsf (once[2]), >, 0.1f);
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
  diff = ct_blob_cpu_diff (g_ptr_array_index (layer->blobs, 0), NULL);
  for (int c = 0; c < 3; c++)
    g_assert_cmpfloat_with_epsilon (diff[c], 2.0f * once[c], 1e-5);
}

static void
test_prelu_errors (void)
{
  static const gint64 one_axis[] = { 6 };
  Caffe__LayerParameter param;
  g_autoptr (CtBlob) flat = ct_blob_new_with_shape (one_axis, 1, NULL);
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 5);
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);
  g_autoptr (GError) error = NULL;
  const gint64 wrong = 5;

  init_param (&param, "PReLU");
  check_setup_fails (&param, flat, FALSE, "axes");

  /* Slopes the net loaded for another channel count. */
  layer = new_layer (&param, CAFFE__PHASE__TRAIN);
  g_ptr_array_add (layer->blobs, ct_blob_new_with_shape (&wrong, 1, NULL));
  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'neuron' (PReLU)"));
  g_assert_nonnull (strstr (error->message, "5 negative slopes"));
}

/* ---- ELU, Sigmoid, TanH, AbsVal, BNLL ---- */

static void
test_elu (void)
{
  static const float in[] = { -1.0f, 0.0f, 2.0f, -20.0f };
  double expected[4];
  Caffe__LayerParameter param;
  Caffe__ELUParameter elu = CAFFE__ELUPARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 12);

  init_param (&param, "ELU");
  for (int i = 0; i < 4; i++)
    expected[i] = in[i] > 0 ? in[i] : expm1 (in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 4);
  check_gradient_gaussian (&param, 0.0f, -1.0f);

  elu.has_alpha = TRUE;
  elu.alpha = 0.5f;
  param.elu_param = &elu;
  for (int i = 0; i < 4; i++)
    expected[i] = in[i] > 0 ? in[i] : 0.5 * expm1 (in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 4);
  /* alpha != 1 bends the function at 0. */
  check_gradient_gaussian (&param, 0.0f, 0.01f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);
}

static void
test_sigmoid_tanh (void)
{
  static const float in[] = { -100.0f, -2.0f, 0.0f, 0.5f, 100.0f };
  double sig[5], th[5];
  Caffe__LayerParameter param;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 13);

  for (int i = 0; i < 5; i++)
    {
      sig[i] = 1.0 / (1.0 + exp (-(double) in[i]));
      th[i] = tanh ((double) in[i]);
    }
  init_param (&param, "Sigmoid");
  check_forward (&param, CAFFE__PHASE__TEST, in, sig, 5);
  check_gradient_gaussian (&param, 0.0f, -1.0f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);

  init_param (&param, "TanH");
  check_forward (&param, CAFFE__PHASE__TEST, in, th, 5);
  check_gradient_gaussian (&param, 0.0f, -1.0f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);
}

static void
test_absval (void)
{
  static const float in[] = { -3.0f, -0.0f, 0.0f, 2.5f };
  static const double expected[] = { 3, 0, 0, 2.5 };
  Caffe__LayerParameter param;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 14);

  init_param (&param, "AbsVal");
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 4);
  check_gradient_gaussian (&param, 0.0f, 0.01f);
  /* Backward needs the bottom's signs: in place is refused, as in Caffe. */
  check_setup_fails (&param, x, TRUE, "in place");
}

static void
test_bnll (void)
{
  static const float in[] = { -100.0f, -1.0f, 0.0f, 1.0f, 100.0f };
  double expected[5];
  Caffe__LayerParameter param;

  for (int i = 0; i < 5; i++)
    expected[i] = in[i] > 0 ? in[i] + log1p (exp (-(double) in[i])) : log1p (exp (in[i]));
  init_param (&param, "BNLL");
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 5);
  g_assert_cmpfloat_with_epsilon (expected[2], G_LN2, 1e-12);
  check_gradient_gaussian (&param, 0.0f, -1.0f);
}

/* ---- Power, Exp, Log ---- */

static void
power_param (Caffe__PowerParameter *p, float power, float scale, float shift)
{
  Caffe__PowerParameter init = CAFFE__POWER_PARAMETER__INIT;

  *p = init;
  p->has_power = p->has_scale = p->has_shift = TRUE;
  p->power = power;
  p->scale = scale;
  p->shift = shift;
}

static void
test_power (void)
{
  static const float in[] = { -1.0f, 0.5f, 2.0f };
  /* (power, scale, shift): Caffe's special cases and the general one. */
  static const float cases[][3] = {
    { 2.0f, 0.5f, 1.0f }, { 2.0f, 0.83f, 0.0f }, { 1.0f, 0.83f, -2.4f },
    { 0.0f, 0.83f, -2.4f }, { 3.0f, 0.0f, 1.5f }, { 0.37f, 0.83f, 0.0f },
    { 0.37f, 0.83f, 2.4f }, { -1.5f, 1.2f, 2.0f }, { 3.0f, -0.5f, 0.0f },
  };
  Caffe__LayerParameter param;
  Caffe__PowerParameter power;

  init_param (&param, "Power");
  param.power_param = &power;
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      float p = cases[k][0], a = cases[k][1], b = cases[k][2];
      gboolean integral = p == floorf (p);
      double expected[3];
      g_autoptr (CtBlob) x = NULL;

      power_param (&power, p, a, b);
      g_test_message ("power %g scale %g shift %g", p, a, b);
      if (integral)
        {
          for (int i = 0; i < 3; i++)
            expected[i] = pow (b + (double) a * in[i], p);
          check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
          x = ct_test_blob_gaussian (small_dims, 4, 1701 + k);
        }
      else
        {
          /* A fractional power needs shift + scale x > 0. */
          x = ct_test_blob_uniform (small_dims, 4, 0.5f, 2.0f, 1701 + k);
        }
      check_gradient (&param, CAFFE__PHASE__TRAIN, x, 0.0f, -1.0f, FALSE);
    }

  /* Caffe's convention for a constant output: 1 for power 0 ... */
  {
    static const double one[] = { 1, 1, 1 };
    static const double shift_cubed[] = { 3.375, 3.375, 3.375 };

    power_param (&power, 0.0f, 2.0f, 5.0f);
    check_forward (&param, CAFFE__PHASE__TEST, in, one, 3);
    /* ... and shift ^ power for scale 0. */
    power_param (&power, 3.0f, 0.0f, 1.5f);
    check_forward (&param, CAFFE__PHASE__TEST, in, shift_cubed, 3);
  }
  /* Defaults: the identity. */
  {
    static const double same[] = { -1, 0.5, 2 };

    param.power_param = NULL;
    check_forward (&param, CAFFE__PHASE__TEST, in, same, 3);
  }
}

static void
test_exp (void)
{
  static const float in[] = { -1.0f, 0.0f, 3.0f };
  Caffe__LayerParameter param;
  Caffe__ExpParameter ep = CAFFE__EXP_PARAMETER__INIT;
  double expected[3];

  init_param (&param, "Exp");
  for (int i = 0; i < 3; i++)
    expected[i] = exp (in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
  check_gradient_gaussian (&param, 0.0f, -1.0f);

  /* 2 ^ (1 + 0.5 x) */
  ep.has_base = ep.has_scale = ep.has_shift = TRUE;
  ep.base = 2.0f;
  ep.scale = 0.5f;
  ep.shift = 1.0f;
  param.exp_param = &ep;
  for (int i = 0; i < 3; i++)
    expected[i] = pow (2.0, 1.0 + 0.5 * in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
  check_gradient_gaussian (&param, 0.0f, -1.0f);

  /* base e with a shift: e ^ (1 + 0.3 x) */
  ep.base = -1.0f;
  ep.scale = 0.3f;
  for (int i = 0; i < 3; i++)
    expected[i] = exp (1.0 + 0.3 * in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
  check_gradient_gaussian (&param, 0.0f, -1.0f);
  {
    g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 15);

    check_in_place (&param, CAFFE__PHASE__TRAIN, x);
  }

  ep.base = 0.0f;
  {
    g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 15);

    check_setup_fails (&param, x, FALSE, "base");
    ep.base = -2.0f;
    check_setup_fails (&param, x, FALSE, "base");
    ep.base = INFINITY;
    check_setup_fails (&param, x, FALSE, "base");
  }
}

static void
test_log (void)
{
  static const float in[] = { 0.5f, 1.0f, 100.0f };
  Caffe__LayerParameter param;
  Caffe__LogParameter lp = CAFFE__LOG_PARAMETER__INIT;
  double expected[3];
  g_autoptr (CtBlob) positive = ct_test_blob_uniform (small_dims, 4, 0.5f, 3.0f, 16);

  init_param (&param, "Log");
  for (int i = 0; i < 3; i++)
    expected[i] = log (in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
  check_gradient (&param, CAFFE__PHASE__TRAIN, positive, 0.0f, -1.0f, FALSE);

  /* log10 (1 + 2 x) */
  lp.has_base = lp.has_scale = lp.has_shift = TRUE;
  lp.base = 10.0f;
  lp.scale = 2.0f;
  lp.shift = 1.0f;
  param.log_param = &lp;
  for (int i = 0; i < 3; i++)
    expected[i] = log10 (1.0 + 2.0 * in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
  check_gradient (&param, CAFFE__PHASE__TRAIN, positive, 0.0f, -1.0f, FALSE);

  /* natural log with scale only */
  lp.base = -1.0f;
  lp.scale = 0.5f;
  lp.shift = 0.0f;
  for (int i = 0; i < 3; i++)
    expected[i] = log (0.5 * in[i]);
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 3);
  check_gradient (&param, CAFFE__PHASE__TRAIN, positive, 0.0f, -1.0f, FALSE);

  lp.base = 1.0f;
  check_setup_fails (&param, positive, FALSE, "base");
  lp.base = -3.0f;
  check_setup_fails (&param, positive, FALSE, "base");
}

/* ---- Threshold, Clip, Swish ---- */

static void
test_threshold (void)
{
  static const float in[] = { -1.0f, 0.0f, 0.2f, 0.5f, 0.7f };
  static const double zero[] = { 0, 0, 1, 1, 1 };
  static const double half[] = { 0, 0, 0, 0, 1 };
  Caffe__LayerParameter param;
  Caffe__ThresholdParameter tp = CAFFE__THRESHOLD_PARAMETER__INIT;

  init_param (&param, "Threshold");
  check_forward (&param, CAFFE__PHASE__TEST, in, zero, 5);
  tp.has_threshold = TRUE;
  tp.threshold = 0.5f;
  param.threshold_param = &tp;
  check_forward (&param, CAFFE__PHASE__TEST, in, half, 5);
}

static void
test_clip (void)
{
  static const float in[] = { -3.0f, -1.0f, 0.25f, 1.0f, 7.0f, NAN };
  static const double expected[] = { -1, -1, 0.25, 1, 1, -1 };
  Caffe__LayerParameter param;
  Caffe__ClipParameter cp = CAFFE__CLIP_PARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 17);

  init_param (&param, "Clip");
  check_setup_fails (&param, x, FALSE, "clip_param");
  cp.min = -1.0f;
  cp.max = 1.0f;
  param.clip_param = &cp;
  /* NaN comes out as min, as Caffe's std::max (min, std::min (x, max)). */
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 6);
  check_gradient (&param, CAFFE__PHASE__TRAIN, x, 1.0f, 0.01f, FALSE);

  /* The gradient passes at the bounds themselves, stops outside. */
  {
    const gint64 dims[] = { 4 };
    static const float at[] = { -1.0f, 1.0f, -1.5f, 1.5f };
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    g_autoptr (CtBlob) b = ct_blob_new_with_shape (dims, 1, NULL);
    g_autoptr (CtBlob) t = ct_blob_new ();
    g_autoptr (GPtrArray) bottom = one_blob (b);
    g_autoptr (GPtrArray) top = one_blob (t);
    gboolean down = TRUE;
    const float *dx;

    memcpy (ct_blob_mutable_cpu_data (b, NULL), at, sizeof at);
    g_assert_true (ct_layer_setup (layer, bottom, top, NULL));
    g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, NULL));
    ct_cpu_set (4, 2.0f, ct_blob_mutable_cpu_diff (t, NULL));
    g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), NULL));
    dx = ct_blob_cpu_diff (b, NULL);
    g_assert_cmpfloat (dx[0], ==, 2.0f);
    g_assert_cmpfloat (dx[1], ==, 2.0f);
    g_assert_cmpfloat (dx[2], ==, 0.0f);
    g_assert_cmpfloat (dx[3], ==, 0.0f);
  }
}

static void
test_swish (void)
{
  static const float in[] = { -2.0f, 0.0f, 1.0f, 4.0f };
  double expected[4];
  Caffe__LayerParameter param;
  Caffe__SwishParameter sp = CAFFE__SWISH_PARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 18);

  init_param (&param, "Swish");
  for (int i = 0; i < 4; i++)
    expected[i] = in[i] / (1.0 + exp (-(double) in[i]));
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 4);
  check_gradient_gaussian (&param, 0.0f, -1.0f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);

  sp.has_beta = TRUE;
  sp.beta = 1.5f;
  param.swish_param = &sp;
  for (int i = 0; i < 4; i++)
    expected[i] = in[i] / (1.0 + exp (-1.5 * in[i]));
  check_forward (&param, CAFFE__PHASE__TEST, in, expected, 4);
  check_gradient_gaussian (&param, 0.0f, -1.0f);
  check_in_place (&param, CAFFE__PHASE__TRAIN, x);
}

/* ---- Dropout ---- */

static void
test_dropout_test_phase (void)
{
  static const float in[] = { -1.0f, 0.0f, 2.5f };
  static const double same[] = { -1, 0, 2.5 };
  Caffe__LayerParameter param;
  Caffe__DropoutParameter dp = CAFFE__DROPOUT_PARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 19);

  init_param (&param, "Dropout");
  dp.has_dropout_ratio = TRUE;
  dp.dropout_ratio = 0.3f;
  param.dropout_param = &dp;
  /* TEST: the identity, forward and backward. */
  check_forward (&param, CAFFE__PHASE__TEST, in, same, 3);
  check_gradient (&param, CAFFE__PHASE__TEST, x, 0.0f, -1.0f, FALSE);
  check_in_place (&param, CAFFE__PHASE__TEST, x);
}

static void
test_dropout_train_phase (void)
{
  static const gint64 dims[] = { 100, 100 };
  Caffe__LayerParameter param;
  Caffe__DropoutParameter dp = CAFFE__DROPOUT_PARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_uniform (dims, 2, 1.0f, 2.0f, 20);
  g_autoptr (CtBlob) small = ct_test_blob_gaussian (small_dims, 4, 21);
  const float ratios[] = { 0.5f, 0.2f };

  init_param (&param, "Dropout");
  param.dropout_param = &dp;
  for (gsize r = 0; r < G_N_ELEMENTS (ratios); r++)
    {
      float ratio = ratios[r];
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (CtBlob) y = ct_blob_new ();
      g_autoptr (GPtrArray) bottom = one_blob (x);
      g_autoptr (GPtrArray) top = one_blob (y);
      g_autofree float *first = NULL;
      const float *in = ct_blob_cpu_data (x, NULL), *out;
      gint64 kept = 0, n = ct_blob_count (x);
      float scale = 1.0f / (1.0f - ratio);

      dp.has_dropout_ratio = TRUE;
      dp.dropout_ratio = ratio;
      layer = new_layer (&param, CAFFE__PHASE__TRAIN);
      layer->seed = 42;
      g_assert_true (ct_layer_setup (layer, bottom, top, NULL));
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, NULL));
      out = ct_blob_cpu_data (y, NULL);
      for (gint64 i = 0; i < n; i++)
        {
          if (out[i] != 0.0f)
            {
              kept++;
              g_assert_cmpfloat_with_epsilon (out[i], in[i] * scale, 1e-6);
            }
        }
      g_test_message ("ratio %g: kept %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
                      ratio, kept, n);
      /* 10000 draws: the kept share is within 5 standard deviations. */
      g_assert_cmpfloat (fabs ((double) kept / n - (1.0 - ratio)), <, 0.025);

      /* The seed moved on: the next forward draws another mask ... */
      g_assert_cmpuint (layer->seed, !=, 42);
      first = g_memdup2 (out, n * sizeof (float));
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, NULL));
      g_assert_true (memcmp (first, ct_blob_cpu_data (y, NULL), n * sizeof (float)) != 0);
      /* ... and resetting it replays the first. */
      layer->seed = 42;
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, NULL));
      g_assert_cmpmem (first, n * sizeof (float), ct_blob_cpu_data (y, NULL), n * sizeof (float));

      /* The gradient goes through the kept units only, with the same scale. */
      check_gradient (&param, CAFFE__PHASE__TRAIN, small, 0.0f, -1.0f, FALSE);
      check_in_place (&param, CAFFE__PHASE__TRAIN, small);
    }
}

static void
test_dropout_errors (void)
{
  Caffe__LayerParameter param;
  Caffe__DropoutParameter dp = CAFFE__DROPOUT_PARAMETER__INIT;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 22);
  const float bad[] = { 1.0f, 1.5f, -0.1f, NAN };

  init_param (&param, "Dropout");
  param.dropout_param = &dp;
  dp.has_dropout_ratio = TRUE;
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      dp.dropout_ratio = bad[i];
      check_setup_fails (&param, x, FALSE, "dropout_ratio");
    }
}

/* ---- kernels ---- */

static void
test_kernels_refuse_bad_counts (void)
{
  float v = 1.0f;

  g_assert_cmpint (ct_cpu_relu_forward (-1, 0.0f, &v, &v), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_sigmoid_backward (-5, &v, &v, &v), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_prelu_forward (2, -1, 3, &v, 0, &v, &v), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_prelu_forward (G_MAXINT64 / 2, 4, 4, &v, 0, &v, &v), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_power_backward (-1, 2.0f, 1.0f, 0.0f, &v, &v, &v, &v), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpfloat (v, ==, 1.0f);
  /* Empty is fine. */
  g_assert_cmpint (ct_cpu_exp_forward (0, 1.0f, 1.0f, NULL, NULL), ==, CT_STATUS_OK);
  {
    float acc[3] = { 0.5f, 0.5f, 0.5f };

    g_assert_cmpint (ct_cpu_prelu_slope_backward (0, 3, 4, 0, NULL, NULL, acc), ==, CT_STATUS_OK);
    g_assert_cmpfloat (acc[0] + acc[1] + acc[2], ==, 1.5f);
  }
}

/* ---- real Caffe ---- */

/* Runs layer_zoo's layer NAME from BOTTOM to TOP on the reference's data
 * and compares the top, the bottom diff and any parameter diffs. */
static void
check_reference_layer (const Caffe__NetParameter *net, const CtTestDump *dump,
                       const char *name, const char *bottom_name, const char *top_name)
{
  const Caffe__LayerParameter *lp = NULL;
  const CtTestDumpRecord *in, *out;
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (CtBlob) x = NULL;
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = NULL, top = NULL;
  g_autoptr (GError) error = NULL;
  gboolean down = TRUE;
  double err_data, err_diff;

  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      lp = net->layer[i];
  g_assert_nonnull (lp);
  layer = new_layer (lp, CAFFE__PHASE__TEST);
  in = ct_test_dump_find (dump, 0, bottom_name, 0);
  out = ct_test_dump_find (dump, 0, top_name, 0);
  g_assert_cmpint (in->count, ==, out->count);
  x = ct_test_dump_blob (in);
  bottom = one_blob (x);
  top = one_blob (y);

  /* Parameters as the net loads them: the reference's values, zero diffs. */
  for (int p = 0; ; p++)
    {
      const CtTestDumpRecord *r = NULL;
      CtBlob *blob;

      for (guint k = 0; k < dump->records->len; k++)
        {
          const CtTestDumpRecord *rec = g_ptr_array_index (dump->records, k);
          if (rec->kind == 1 && rec->index == p && g_strcmp0 (rec->name, name) == 0)
            r = rec;
        }
      if (r == NULL)
        break;
      blob = ct_test_dump_blob (r);
      memset (ct_blob_mutable_cpu_diff (blob, NULL), 0, r->count * sizeof (float));
      g_ptr_array_add (layer->blobs, blob);
    }

  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_blob_count (y), ==, out->count);
  memcpy (ct_blob_mutable_cpu_diff (y, NULL), out->diff, out->count * sizeof (float));
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);

  err_data = ct_test_relative_error (ct_blob_cpu_data (y, NULL), out->data, out->count);
  err_diff = ct_test_relative_error (ct_blob_cpu_diff (x, NULL), in->diff, in->count);
  g_test_message ("%s: %s data relative error %.3g, %s diff %.3g",
                  name, top_name, err_data, bottom_name, err_diff);
  g_assert_cmpfloat (err_data, <=, 1e-4);
  g_assert_cmpfloat (err_diff, <=, 1e-4);
  for (guint p = 0; p < layer->blobs->len; p++)
    {
      const CtTestDumpRecord *r = ct_test_dump_find (dump, 1, name, p);
      double err = ct_test_relative_error (ct_blob_cpu_diff (g_ptr_array_index (layer->blobs, p),
                                                             NULL), r->diff, r->count);

      g_test_message ("%s: param %u diff relative error %.3g", name, p, err);
      g_assert_cmpfloat (err, <=, 1e-4);
    }
}

static void
test_reference (void)
{
  static const char *const cases[][3] = {
    { "relu1", "conv1", "relu1" },       /* negative_slope 0.1 */
    { "prelu1", "conv2", "prelu1" },     /* per-channel slopes, their gradient */
    { "elu1", "deconv1", "elu1" },       /* alpha 0.5 */
    { "sigmoid1", "sl1", "sigmoid1" },
    { "tanh1", "sl2", "tanh1" },
    { "abs1", "sl3", "abs1" },
    { "power1", "lrn_within", "power1" }, /* power 2, scale 0.5, shift 1 */
    { "drop1", "flat1", "drop1" },       /* TEST: the identity */
  };
  g_autoptr (CtTestDump) dump = ct_test_dump_load ("layer_zoo_seed1701.bin");
  g_autofree char *prototxt = NULL;
  Caffe__NetParameter *net;
  g_autoptr (GError) error = NULL;
  guint checked = 0;

  if (dump == NULL)
    {
      g_test_skip ("reference dump layer_zoo_seed1701.bin not found");
      return;
    }
  prototxt = g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", "layer_zoo.prototxt",
                               NULL);
  net = ct_net_load_text_file (prototxt, CT_TEXT_STRICT, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (net);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++, checked++)
    check_reference_layer (net, dump, cases[i][0], cases[i][1], cases[i][2]);
  g_assert_cmpuint (checked, ==, 8);
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/neuron/catalogue", test_catalogue);
  g_test_add_func ("/engine/layers/neuron/relu", test_relu);
  g_test_add_func ("/engine/layers/neuron/prelu/forward", test_prelu_forward);
  g_test_add_func ("/engine/layers/neuron/prelu/gradient", test_prelu_gradient);
  g_test_add_func ("/engine/layers/neuron/prelu/accumulates", test_prelu_accumulates);
  g_test_add_func ("/engine/layers/neuron/prelu/errors", test_prelu_errors);
  g_test_add_func ("/engine/layers/neuron/elu", test_elu);
  g_test_add_func ("/engine/layers/neuron/sigmoid-tanh", test_sigmoid_tanh);
  g_test_add_func ("/engine/layers/neuron/absval", test_absval);
  g_test_add_func ("/engine/layers/neuron/bnll", test_bnll);
  g_test_add_func ("/engine/layers/neuron/power", test_power);
  g_test_add_func ("/engine/layers/neuron/exp", test_exp);
  g_test_add_func ("/engine/layers/neuron/log", test_log);
  g_test_add_func ("/engine/layers/neuron/threshold", test_threshold);
  g_test_add_func ("/engine/layers/neuron/clip", test_clip);
  g_test_add_func ("/engine/layers/neuron/swish", test_swish);
  g_test_add_func ("/engine/layers/neuron/dropout/test-phase", test_dropout_test_phase);
  g_test_add_func ("/engine/layers/neuron/dropout/train-phase", test_dropout_train_phase);
  g_test_add_func ("/engine/layers/neuron/dropout/errors", test_dropout_errors);
  g_test_add_func ("/engine/layers/neuron/kernels/bad-counts", test_kernels_refuse_bad_counts);
  g_test_add_func ("/engine/layers/neuron/reference", test_reference);
  return g_test_run ();
}
