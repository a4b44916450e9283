/* test-layers-loss.c: the Loss family -- SoftmaxWithLoss, EuclideanLoss,
 * SigmoidCrossEntropyLoss, HingeLoss, InfogainLoss, MultinomialLogisticLoss,
 * ContrastiveLoss and Accuracy. For each: forward values against the
 * formula evaluated in double, finite-difference gradients with respect to
 * the prediction bottoms (labels in range), every normalization mode and
 * the legacy `normalize`, ignore_label, loss weights, refused gradients to
 * labels, labels out of range reported with the layer, value and index,
 * setup errors, and the loss layers of real Caffe's reference dumps
 * (layer_zoo's loss_cls and loss_reg, LeNet's loss). */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "binary-io.h"
#include "blas.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"

/* Gaussian scores times SCALE. */
static CtBlob *
scores (const gint64 *dims, guint n_axes, float scale, guint64 seed)
{
  CtBlob *blob = ct_test_blob_gaussian (dims, n_axes, seed);
  float *d = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    d[i] *= scale;
  return blob;
}

/* Labels in [0, N_CLASSES), as floats. */
static CtBlob *
labels (const gint64 *dims, guint n_axes, int n_classes, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, NULL);
  float *d = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    d[i] = (float) g_rand_int_range (rand, 0, n_classes);
  return blob;
}

static CtLayer *
make_layer (const char *type, Caffe__LayerParameter *param)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);

  g_assert_nonnull (klass);
  param->name = (char *) "loss";
  param->type = (char *) type;
  return ct_layer_new (klass, param, CAFFE__PHASE__TRAIN);
}

static CtLayer *
plain_layer (const char *type)
{
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;

  return make_layer (type, &param);
}

/* Setup and forward; the value of top 0. */
static float
forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_setup (layer, bottom, top, &error) ||
      !ct_layer_forward (layer, bottom, top, FALSE, NULL, &error))
    g_error ("%s", error->message);
  g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, 0);
  g_assert_cmpint (ct_blob_count (CT_TOP (top, 0)), ==, 1);
  return ct_blob_cpu_data (CT_TOP (top, 0), NULL)[0];
}

static void
assert_layer_error (const GError *error, const char *type)
{
  g_autofree char *who = g_strdup_printf ("'loss' (%s)", type);

  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, who));
}

/* Setup must fail with an error that names the layer. */
static void
assert_setup_fails (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  assert_layer_error (error, ct_layer_get_type (layer));
}

static void
assert_close (double got, double want, double rel)
{
  if (fabs (got - want) > rel * MAX (1.0, fabs (want)))
    g_error ("got %.9g, want %.9g", got, want);
}

static Caffe__LossParameter
loss_param (int mode, int normalize, gboolean has_ignore, int ignore_label)
{
  Caffe__LossParameter p = CAFFE__LOSS_PARAMETER__INIT;

  if (mode >= 0)
    {
      p.has_normalization = TRUE;
      p.normalization = mode;
    }
  if (normalize >= 0)
    {
      p.has_normalize = TRUE;
      p.normalize = normalize;
    }
  p.has_ignore_label = has_ignore;
  p.ignore_label = ignore_label;
  return p;
}

static const CtGradientChecker loss_checker = { 1e-2f, 1e-2f, 1701, 0.0f, -1.0f };

/* ---- the catalogue ---- */

static void
test_catalogue (void)
{
  static const char *losses[] = {
    "SoftmaxWithLoss", "EuclideanLoss", "SigmoidCrossEntropyLoss", "HingeLoss",
    "InfogainLoss", "MultinomialLogisticLoss", "ContrastiveLoss",
  };
  const CtLayerClass *accuracy = ct_layer_catalogue_lookup ("Accuracy");

  for (gsize i = 0; i < G_N_ELEMENTS (losses); i++)
    {
      const CtLayerClass *k = ct_layer_catalogue_lookup (losses[i]);

      g_assert_nonnull (k);
      g_assert_cmpint (k->family, ==, CT_LAYER_FAMILY_LOSS);
      g_assert_true (k->is_loss);
      g_assert_true (k->auto_top_blobs);
      g_assert_nonnull (k->backward_cpu);
    }
  g_assert_nonnull (accuracy);
  g_assert_cmpint (accuracy->family, ==, CT_LAYER_FAMILY_LOSS);
  g_assert_false (accuracy->is_loss);
  g_assert_null (accuracy->backward_cpu);
}

/* ---- SoftmaxWithLoss ---- */

/* -sum log softmax (x)[label] over labels not ignored, in double. */
static double
reference_softmax_loss (const float *x, const float *lab, gint64 outer, gint64 channels,
                        gint64 inner, gboolean has_ignore, int ignore, gint64 *valid)
{
  double loss = 0.0;

  *valid = 0;
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        int l = (int) lab[i * inner + k];
        double m = -INFINITY, sum = 0.0;

        if (has_ignore && l == ignore)
          continue;
        for (gint64 c = 0; c < channels; c++)
          m = MAX (m, x[(i * channels + c) * inner + k]);
        for (gint64 c = 0; c < channels; c++)
          sum += exp (x[(i * channels + c) * inner + k] - m);
        loss -= x[(i * channels + l) * inner + k] - m - log (sum);
        (*valid)++;
      }
  return loss;
}

static void
test_softmax_loss_by_hand (void)
{
  static const gint64 x_dims[] = { 2, 3 }, l_dims[] = { 2 };
  static const float x[] = { 1.0f, 2.0f, 3.0f, -1.0f, 0.0f, 5.0f };
  static const float l[] = { 2.0f, 0.0f };
  g_autoptr (CtLayer) layer = plain_layer ("SoftmaxWithLoss");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  double want = (-(3.0 - log (exp (1.0) + exp (2.0) + exp (3.0)))
                 - (-1.0 - log (exp (-1.0) + 1.0 + exp (5.0)))) / 2.0;

  assert_close (forward (layer, bottom, top), want, 1e-6);
  g_assert_true (ct_layer_allow_force_backward (layer, 0));
  g_assert_false (ct_layer_allow_force_backward (layer, 1));
  g_assert_cmpfloat (ct_layer_loss_weight (layer, 0), ==, 1.0f);
}

/* Every normalization mode, with and without ignored labels, and the
 * legacy `normalize` in both senses, forward against the reference and
 * the gradient by finite differences. */
static void
test_softmax_loss_normalization (void)
{
  static const gint64 x_dims[] = { 3, 4, 2, 2 }, l_dims[] = { 3, 1, 2, 2 };
  struct { int mode, normalize; const char *what; } cases[] = {
    { -1, -1, "default (VALID)" },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL, -1, "FULL" },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID, -1, "VALID" },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE, -1, "BATCH_SIZE" },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE, -1, "NONE" },
    { -1, 1, "normalize: true (VALID)" },
    { -1, 0, "normalize: false (BATCH_SIZE)" },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE, 1, "NONE over normalize" },
  };
  /* The divisor each case must use: outer 3, inner 4, valid 12 or 9. */
  static const double full = 12.0, batch = 3.0;
  guint checked = 0;

  for (int ignore = 0; ignore < 2; ignore++)
    for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
        Caffe__LossParameter lp = loss_param (cases[c].mode, cases[c].normalize, ignore, 3);
        g_autoptr (CtLayer) layer = NULL;
        g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 4, 3.0f, 1701),
                                                  labels (l_dims, 4, 3, 42), NULL);
        g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
        float *lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
        gint64 valid;
        double raw, divisor;
        int mode = cases[c].mode >= 0 ? cases[c].mode
                   : cases[c].normalize == 0 ? CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE
                   : CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID;

        /* Three labels set to the ignore label (3, a class that exists). */
        lab[1] = lab[5] = lab[10] = 3.0f;
        param.loss_param = &lp;
        layer = make_layer ("SoftmaxWithLoss", &param);
        raw = reference_softmax_loss (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), lab,
                                      3, 4, 4, ignore, 3, &valid);
        g_assert_cmpint (valid, ==, ignore ? 9 : 12);
        divisor = mode == CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL ? full
                  : mode == CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID ? (double) valid
                  : mode == CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE ? batch
                  : 1.0;
        g_test_message ("%s, ignore %d: divisor %g", cases[c].what, ignore, divisor);
        assert_close (forward (layer, bottom, top), raw / divisor, 1e-5);
        ct_check_gradient_exhaustive (&loss_checker, layer, bottom, top, 0);
        if (ignore)
          {
            /* Ignored positions get no gradient at all. */
            const float *dx = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);

            for (int ch = 0; ch < 4; ch++)
              g_assert_cmpfloat (dx[(0 * 4 + ch) * 4 + 1], ==, 0.0f);
          }
        checked++;
      }
  g_assert_cmpuint (checked, ==, 16);
}

/* Softmax over axis 2 of N x H x C x W ... and a negative axis. */
static void
test_softmax_loss_axis (void)
{
  static const gint64 x_dims[] = { 2, 3, 4 }, l_dims[] = { 2, 3 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__SoftmaxParameter sp = CAFFE__SOFTMAX_PARAMETER__INIT;
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 3, 2.0f, 5), labels (l_dims, 2, 4, 6),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  gint64 valid;
  double raw;

  sp.has_axis = TRUE;
  sp.axis = -1;
  param.softmax_param = &sp;
  layer = make_layer ("SoftmaxWithLoss", &param);
  raw = reference_softmax_loss (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL),
                                ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL), 6, 4, 1,
                                FALSE, 0, &valid);
  assert_close (forward (layer, bottom, top), raw / 6.0, 1e-5);
  ct_check_gradient_exhaustive (&loss_checker, layer, bottom, top, 0);
}

/* The optional second top holds the probabilities; the loss weight scales
 * the loss and the gradient. */
static void
test_softmax_loss_prob_top_and_weight (void)
{
  static const gint64 x_dims[] = { 4, 5 }, l_dims[] = { 4 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  float weights[] = { 0.5f, 0.0f };
  g_autoptr (CtLayer) layer = NULL, plain = plain_layer ("SoftmaxWithLoss");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 2, 2.0f, 9), labels (l_dims, 1, 5, 10),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
  g_autoptr (GPtrArray) plain_top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, FALSE };
  const float *x, *prob, *dx;
  float weighted_loss, plain_loss;
  g_autofree float *plain_dx = NULL;

  param.n_loss_weight = 2;
  param.loss_weight = weights;
  layer = make_layer ("SoftmaxWithLoss", &param);

  plain_loss = forward (plain, bottom, plain_top);
  g_assert_true (ct_layer_backward (plain, plain_top, down, bottom, FALSE, &error));
  plain_dx = g_memdup2 (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), 20 * sizeof (float));

  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, FALSE, &weighted_loss, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (weighted_loss, 0.5f * plain_loss, 1e-6);
  g_assert_cmpint (ct_blob_count (CT_TOP (top, 1)), ==, 20);
  x = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  prob = ct_blob_cpu_data (CT_TOP (top, 1), NULL);
  for (int i = 0; i < 4; i++)
    {
      double sum = 0.0;

      for (int c = 0; c < 5; c++)
        sum += exp (x[i * 5 + c]);
      for (int c = 0; c < 5; c++)
        g_assert_cmpfloat_with_epsilon (prob[i * 5 + c], exp (x[i * 5 + c]) / sum, 1e-6);
    }
  g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
  g_assert_no_error (error);
  dx = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  for (int i = 0; i < 20; i++)
    g_assert_cmpfloat_with_epsilon (dx[i], 0.5f * plain_dx[i], 1e-7);

  /* With the probabilities as a top, the gradient still follows the loss. */
  ct_check_gradient_single (&loss_checker, layer, bottom, top, 0, 0, 0, FALSE);
}

static void
check_bad_label (const char *type, Caffe__LayerParameter *param, GPtrArray *bottom,
                 guint n_tops, float bad_value, gint64 bad_index, const char *value_text)
{
  g_autoptr (CtLayer) layer = make_layer (type, param);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *at = g_strdup_printf ("label %s at index %" G_GINT64_FORMAT, value_text,
                                         bad_index);
  float *lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  float saved = lab[bad_index];

  while (top->len < n_tops)
    g_ptr_array_add (top, ct_blob_new ());
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  lab[bad_index] = bad_value;
  g_assert_false (ct_layer_forward (layer, bottom, top, FALSE, NULL, &error));
  assert_layer_error (error, type);
  g_assert_nonnull (strstr (error->message, at));
  lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  lab[bad_index] = saved;
}

/* Labels outside [0, classes) that are not the ignore label are errors
 * that name the layer, the value and the index; the ignore label is not. */
static void
test_softmax_loss_bad_labels (void)
{
  static const gint64 x_dims[] = { 4, 5 }, l_dims[] = { 4 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__LossParameter lp = loss_param (-1, -1, TRUE, -1);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 2, 1.0f, 1), labels (l_dims, 1, 5, 2),
                                            NULL);
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

  check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, 5.0f, 3, "5");
  check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, -1.0f, 0, "-1");
  check_bad_label ("SoftmaxWithLoss", &param, bottom, 2, 1e10f, 2, "1e+10");
  check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, NAN, 1, "nan");
  param.loss_param = &lp;
  check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, -2.0f, 1, "-2");

  /* -1 is the ignore label here: fine, and it adds nothing. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL)[2] = -1.0f;
  layer = make_layer ("SoftmaxWithLoss", &param);
  g_assert_true (isfinite (forward (layer, bottom, top)));
  /* A truncated fraction names a class, as Caffe's cast does. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL)[2] = 4.7f;
  g_assert_true (isfinite (forward (layer, bottom, top)));
}

static void
test_softmax_loss_setup_errors (void)
{
  static const gint64 x_dims[] = { 4, 5 }, l3[] = { 3 }, l8[] = { 4, 2 }, x3[] = { 4, 5, 2 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__SoftmaxParameter sp = CAFFE__SOFTMAX_PARAMETER__INIT;
  Caffe__LossParameter lp = loss_param (9, -1, FALSE, 0);

  {
    g_autoptr (CtLayer) layer = plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 2, 1.0f, 1), labels (l3, 1, 5, 2),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (layer, bottom, top); /* first dimensions differ */
  }
  {
    g_autoptr (CtLayer) layer = plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 2, 1.0f, 1), labels (l8, 2, 5, 2),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (layer, bottom, top); /* 8 labels for 4 predictions */
  }
  {
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x3, 3, 1.0f, 1), labels (l8, 2, 5, 2),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    sp.has_axis = TRUE;
    sp.axis = 3;
    param.softmax_param = &sp;
    layer = make_layer ("SoftmaxWithLoss", &param);
    assert_setup_fails (layer, bottom, top); /* axis out of range */
  }
  {
    Caffe__LayerParameter p2 = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 2, 1.0f, 1),
                                              labels (x_dims, 1, 5, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    p2.loss_param = &lp;
    layer = make_layer ("SoftmaxWithLoss", &p2);
    assert_setup_fails (layer, bottom, top); /* unknown normalization */
  }
  {
    g_autoptr (CtLayer) layer = plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 2, 1.0f, 1), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (layer, bottom, top); /* one bottom */
  }
}

/* Caffe's LossLayer refuses to backpropagate to labels. */
static void
test_refuse_label_gradient (void)
{
  static const char *types[] = {
    "SoftmaxWithLoss", "SigmoidCrossEntropyLoss", "HingeLoss", "MultinomialLogisticLoss",
    "InfogainLoss",
  };
  static const gint64 x_dims[] = { 3, 4 }, l_dims[] = { 3 }, h_dims[] = { 4, 4 };
  guint checked = 0;

  for (gsize t = 0; t < G_N_ELEMENTS (types); t++)
    {
      gboolean sce = strcmp (types[t], "SigmoidCrossEntropyLoss") == 0;
      g_autoptr (CtLayer) layer = plain_layer (types[t]);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_uniform (x_dims, 2, 0.1f, 1.0f, 1),
                                                sce ? ct_test_blob_uniform (x_dims, 2, 0, 1, 2)
                                                    : labels (l_dims, 1, 4, 3), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
      g_autoptr (GError) error = NULL;
      gboolean down[3] = { TRUE, TRUE, FALSE };

      if (strcmp (types[t], "InfogainLoss") == 0)
        g_ptr_array_add (bottom, ct_test_blob_uniform (h_dims, 2, 0.0f, 1.0f, 4));
      g_assert_false (ct_layer_allow_force_backward (layer, 1));
      g_assert_true (ct_layer_allow_force_backward (layer, 0));
      forward (layer, bottom, top);
      g_assert_false (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
      assert_layer_error (error, types[t]);
      g_clear_error (&error);
      down[1] = FALSE;
      g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
      g_assert_no_error (error);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 5);
}

/* ---- EuclideanLoss ---- */

static void
test_euclidean_loss (void)
{
  static const gint64 dims[] = { 2, 3 }, other[] = { 2, 3, 1 }, bad[] = { 2, 4 };
  static const float a[] = { 1, 2, 3, 4, 5, 6 }, b[] = { 1, 0, 3, 0, 0, 0 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  float weight = 3.0f, weighted;
  g_autoptr (CtLayer) layer = plain_layer ("EuclideanLoss");
  g_autoptr (CtLayer) heavy = NULL;
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, a), ct_test_blob_with (other, 3, b),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, TRUE };
  const float *da, *db;

  /* (4 + 16 + 25 + 36) / 2 items / 2 */
  g_assert_cmpfloat_with_epsilon (forward (layer, bottom, top), 81.0 / 4.0, 1e-6);
  g_assert_true (ct_layer_allow_force_backward (layer, 1));
  g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
  da = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  db = ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL);
  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpfloat_with_epsilon (da[i], (a[i] - b[i]) / 2.0f, 1e-7);
      g_assert_cmpfloat_with_epsilon (db[i], -(a[i] - b[i]) / 2.0f, 1e-7);
    }

  param.n_loss_weight = 1;
  param.loss_weight = &weight;
  heavy = make_layer ("EuclideanLoss", &param);
  g_assert_true (ct_layer_setup (heavy, bottom, top, &error));
  g_assert_true (ct_layer_forward (heavy, bottom, top, FALSE, &weighted, &error));
  g_assert_cmpfloat_with_epsilon (weighted, 3.0 * 81.0 / 4.0, 1e-5);

  {
    static const gint64 g[] = { 10, 5, 1, 1 };
    g_autoptr (CtLayer) grad = plain_layer ("EuclideanLoss");
    g_autoptr (GPtrArray) gb = ct_test_blobs (ct_test_blob_gaussian (g, 4, 1),
                                          ct_test_blob_gaussian (g, 4, 2), NULL);
    g_autoptr (GPtrArray) gt = ct_test_blobs (ct_blob_new (), NULL);

    ct_check_gradient_exhaustive (&loss_checker, grad, gb, gt, -1);
  }
  {
    g_autoptr (CtLayer) wrong = plain_layer ("EuclideanLoss");
    g_autoptr (GPtrArray) wb = ct_test_blobs (ct_test_blob_with (dims, 2, a), ct_test_blob_gaussian (bad, 2, 3),
                                          NULL);
    g_autoptr (GPtrArray) wt = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (wrong, wb, wt);
  }
}

/* ---- SigmoidCrossEntropyLoss ---- */

static double
reference_sce (const float *x, const float *t, gint64 n, gboolean has_ignore, int ignore,
               gint64 *valid)
{
  double loss = 0.0;

  *valid = 0;
  for (gint64 i = 0; i < n; i++)
    {
      double p = 1.0 / (1.0 + exp (-(double) x[i]));

      if (has_ignore && (int) t[i] == ignore)
        continue;
      loss -= t[i] * log (p) + (1.0 - t[i]) * log (1.0 - p);
      (*valid)++;
    }
  return loss;
}

static void
test_sigmoid_cross_entropy (void)
{
  static const gint64 dims[] = { 4, 3 };
  struct { int mode, normalize; double divisor_all, divisor_ignored; } cases[] = {
    { -1, -1, 4, 4 },                                           /* BATCH_SIZE by default */
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL, -1, 12, 12 },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID, -1, 12, 10 },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE, -1, 4, 4 },
    { CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE, -1, 1, 1 },
    { -1, 1, 12, 10 },                                          /* normalize: VALID */
    { -1, 0, 4, 4 },
  };
  guint checked = 0;

  for (int ignore = 0; ignore < 2; ignore++)
    for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
      {
        Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
        Caffe__LossParameter lp = loss_param (cases[c].mode, cases[c].normalize, ignore, -1);
        g_autoptr (CtLayer) layer = NULL;
        g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (dims, 2, 2.0f, 17),
                                                  ct_test_blob_uniform (dims, 2, 0.0f, 1.0f, 18),
                                                  NULL);
        g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
        float *t = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
        gint64 valid;
        double raw, divisor = ignore ? cases[c].divisor_ignored : cases[c].divisor_all;

        t[3] = t[7] = -1.0f; /* ignored when asked */
        param.loss_param = &lp;
        layer = make_layer ("SigmoidCrossEntropyLoss", &param);
        raw = reference_sce (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), t, 12, ignore, -1,
                             &valid);
        g_assert_cmpint (valid, ==, ignore ? 10 : 12);
        if (!ignore)
          {
            /* Targets of -1 are not probabilities: keep them out of the reference. */
            t[3] = t[7] = 0.25f;
            raw = reference_sce (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), t, 12, FALSE, 0,
                                 &valid);
          }
        assert_close (forward (layer, bottom, top), raw / divisor, 1e-5);
        ct_check_gradient_exhaustive (&loss_checker, layer, bottom, top, 0);
        if (ignore)
          {
            g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[3], ==, 0.0f);
            g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[7], ==, 0.0f);
          }
        checked++;
      }
  g_assert_cmpuint (checked, ==, 14);

  /* Huge scores stay finite: the stable form never takes exp of a large number. */
  {
    static const gint64 d2[] = { 2, 2 };
    static const float x[] = { 100.0f, -100.0f, 80.0f, -90.0f }, t[] = { 0, 1, 1, 0 };
    g_autoptr (CtLayer) layer = plain_layer ("SigmoidCrossEntropyLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (d2, 2, x), ct_test_blob_with (d2, 2, t), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    assert_close (forward (layer, bottom, top), (100.0 + 100.0) / 2.0, 1e-6);
  }
  {
    static const gint64 a[] = { 4, 3 }, b[] = { 4, 2 };
    g_autoptr (CtLayer) layer = plain_layer ("SigmoidCrossEntropyLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (a, 2, 1, 1),
                                              ct_test_blob_uniform (b, 2, 0, 1, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (layer, bottom, top);
  }
}

/* ---- HingeLoss ---- */

static void
test_hinge_loss (void)
{
  static const gint64 x_dims[] = { 2, 3 }, l_dims[] = { 2 };
  static const float x[] = { 0.5f, -2.0f, 0.2f, 1.5f, 0.3f, -0.4f }, l[] = { 0, 2 };
  /* Margins: row 0 (label 0): 1-0.5, max(0,1-2), 1+0.2 = 0.5, 0, 1.2;
   * row 1 (label 2): 1+1.5, 1+0.3, 1+0.4 = 2.5, 1.3, 1.4. */
  static const double l1 = (0.5 + 0 + 1.2 + 2.5 + 1.3 + 1.4) / 2.0;
  static const double l2 = (0.25 + 0 + 1.44 + 6.25 + 1.69 + 1.96) / 2.0;
  static const float want_l1[] = { -0.5f, 0, 0.5f, 0.5f, 0.5f, -0.5f };
  static const float want_l2[] = { -0.5f, 0, 1.2f, 2.5f, 1.3f, -1.4f };

  for (int norm = 1; norm <= 2; norm++)
    {
      Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
      Caffe__HingeLossParameter hp = CAFFE__HINGE_LOSS_PARAMETER__INIT;
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x),
                                                ct_test_blob_with (l_dims, 1, l), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
      g_autoptr (GError) error = NULL;
      gboolean down[2] = { TRUE, FALSE };
      const float *dx;

      hp.has_norm = TRUE;
      hp.norm = norm;
      param.hinge_loss_param = &hp;
      layer = make_layer ("HingeLoss", &param);
      assert_close (forward (layer, bottom, top), norm == 1 ? l1 : l2, 1e-6);
      g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
      dx = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
      for (int i = 0; i < 6; i++)
        g_assert_cmpfloat_with_epsilon (dx[i], norm == 1 ? want_l1[i] : want_l2[i], 1e-6);
    }

  /* Gradients on scores away from the kinks at |x| = 1, as Caffe tests them. */
  for (int norm = 1; norm <= 2; norm++)
    {
      static const gint64 g[] = { 10, 5, 1, 1 }, gl[] = { 10, 1, 1, 1 };
      Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
      Caffe__HingeLossParameter hp = CAFFE__HINGE_LOSS_PARAMETER__INIT;
      CtGradientChecker checker = { 1e-2f, norm == 1 ? 2e-3f : 1e-2f, 1701, 1.0f, 0.01f };
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (g, 4, 10.0f, 21), labels (gl, 4, 5, 22),
                                                NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

      hp.has_norm = TRUE;
      hp.norm = norm;
      param.hinge_loss_param = &hp;
      layer = make_layer ("HingeLoss", &param);
      ct_check_gradient_exhaustive (&checker, layer, bottom, top, 0);
    }

  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                              NULL);

    check_bad_label ("HingeLoss", &param, bottom, 1, 3.0f, 1, "3");
  }
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    Caffe__HingeLossParameter hp = CAFFE__HINGE_LOSS_PARAMETER__INIT;
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    hp.has_norm = TRUE;
    hp.norm = 3;
    param.hinge_loss_param = &hp;
    layer = make_layer ("HingeLoss", &param);
    assert_setup_fails (layer, bottom, top);
  }
}

/* ---- InfogainLoss ---- */

static double
reference_infogain (const float *x, const float *lab, const float *h, gint64 outer,
                    gint64 channels, gint64 inner, gboolean has_ignore, int ignore,
                    gint64 *valid)
{
  double loss = 0.0;

  *valid = 0;
  for (gint64 i = 0; i < outer; i++)
    for (gint64 k = 0; k < inner; k++)
      {
        int l = (int) lab[i * inner + k];
        double sum = 0.0;

        if (has_ignore && l == ignore)
          continue;
        for (gint64 c = 0; c < channels; c++)
          sum += exp (x[(i * channels + c) * inner + k]);
        for (gint64 c = 0; c < channels; c++)
          loss -= h[l * channels + c] * log (exp (x[(i * channels + c) * inner + k]) / sum);
        (*valid)++;
      }
  return loss;
}

static void
test_infogain_loss (void)
{
  static const gint64 x_dims[] = { 4, 5, 2 }, l_dims[] = { 4, 2 }, h_dims[] = { 5, 5 };
  guint checked = 0;

  /* H as a third bottom, every normalization, with and without ignore. */
  for (int ignore = 0; ignore < 2; ignore++)
    for (int mode = 0; mode <= 3; mode++)
      {
        Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
        Caffe__LossParameter lp = loss_param (mode, -1, ignore, 4);
        g_autoptr (CtLayer) layer = NULL;
        g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 3, 1.0f, 31),
                                                  labels (l_dims, 2, 5, 32),
                                                  ct_test_blob_uniform (h_dims, 2, 0, 1, 33),
                                                  NULL);
        g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
        float *lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
        static const double divisors[] = { 8, -1, 4, 1 };
        gint64 valid;
        double raw, divisor;

        lab[2] = 4.0f;
        param.loss_param = &lp;
        layer = make_layer ("InfogainLoss", &param);
        raw = reference_infogain (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), lab,
                                  ct_blob_cpu_data (CT_BOTTOM (bottom, 2), NULL), 4, 5, 2,
                                  ignore, 4, &valid);
        divisor = divisors[mode] < 0 ? (double) valid : divisors[mode];
        assert_close (forward (layer, bottom, top), raw / divisor, 1e-5);
        g_assert_false (ct_layer_allow_force_backward (layer, 2));
        ct_check_gradient_exhaustive (&loss_checker, layer, bottom, top, 0);
        checked++;
      }
  g_assert_cmpuint (checked, ==, 8);

  /* H = identity read from a .binaryproto: the same as SoftmaxWithLoss. */
  {
    g_autoptr (GError) error = NULL;
    g_autofree char *dir = g_dir_make_tmp ("ct-infogain-XXXXXX", &error);
    g_autofree char *path = g_build_filename (dir, "H.binaryproto", NULL);
    g_autoptr (CtBlob) h = ct_blob_new_with_shape (h_dims, 2, NULL);
    float *hd = ct_blob_mutable_cpu_data (h, NULL);
    Caffe__BlobProto *proto;
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    Caffe__InfogainLossParameter ip = CAFFE__INFOGAIN_LOSS_PARAMETER__INIT;
    g_autoptr (CtLayer) layer = NULL, softmax = plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (scores (x_dims, 3, 1.0f, 41),
                                              labels (l_dims, 2, 5, 42), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
    g_autoptr (GPtrArray) top2 = ct_test_blobs (ct_blob_new (), NULL);
    float a, b;

    g_assert_no_error (error);
    for (int i = 0; i < 25; i++)
      hd[i] = i % 6 == 0 ? 1.0f : 0.0f;
    proto = ct_blob_to_proto (h, CT_BLOB_PROTO_DEFAULT, &error);
    g_assert_no_error (error);
    g_assert_true (ct_binary_write_file (&proto->base, path, &error));
    protobuf_c_message_free_unpacked (&proto->base, NULL);
    ip.source = path;
    param.infogain_loss_param = &ip;
    layer = make_layer ("InfogainLoss", &param);
    a = forward (layer, bottom, top);
    b = forward (softmax, bottom, top2);
    g_test_message ("infogain with H = I: %.9g, softmax loss: %.9g", a, b);
    assert_close (a, b, 1e-6);
    g_assert_cmpint (ct_blob_count (CT_TOP (top, 1)), ==, 40);
    ct_check_gradient_single (&loss_checker, layer, bottom, top, 0, 0, 0, FALSE);
    g_unlink (path);
    g_rmdir (dir);
  }

  /* Errors: no matrix, a missing file, a matrix of the wrong size, the
   * deprecated normalize, a bad label. */
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    Caffe__InfogainLossParameter ip = CAFFE__INFOGAIN_LOSS_PARAMETER__INIT;
    Caffe__LossParameter lp = loss_param (-1, 1, FALSE, 0);
    static const gint64 h4[] = { 4, 4 };
    g_autoptr (GPtrArray) two = ct_test_blobs (scores (x_dims, 3, 1, 1), labels (l_dims, 2, 5, 2),
                                           NULL);
    g_autoptr (GPtrArray) bad_h = ct_test_blobs (scores (x_dims, 3, 1, 1), labels (l_dims, 2, 5, 2),
                                             ct_test_blob_uniform (h4, 2, 0, 1, 3), NULL);
    g_autoptr (GPtrArray) three = ct_test_blobs (scores (x_dims, 3, 1, 1), labels (l_dims, 2, 5, 2),
                                             ct_test_blob_uniform (h_dims, 2, 0, 1, 3), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    {
      g_autoptr (CtLayer) layer = plain_layer ("InfogainLoss");
      assert_setup_fails (layer, two, top);
    }
    {
      g_autoptr (CtLayer) layer = NULL;
      ip.source = (char *) "/nonexistent/H.binaryproto";
      param.infogain_loss_param = &ip;
      layer = make_layer ("InfogainLoss", &param);
      assert_setup_fails (layer, two, top);
    }
    {
      g_autoptr (CtLayer) layer = plain_layer ("InfogainLoss");
      assert_setup_fails (layer, bad_h, top);
    }
    {
      Caffe__LayerParameter p2 = CAFFE__LAYER_PARAMETER__INIT;
      g_autoptr (CtLayer) layer = NULL;
      p2.loss_param = &lp;
      layer = make_layer ("InfogainLoss", &p2);
      assert_setup_fails (layer, three, top);
    }
    {
      Caffe__LayerParameter p3 = CAFFE__LAYER_PARAMETER__INIT;
      check_bad_label ("InfogainLoss", &p3, three, 1, 5.0f, 6, "5");
    }
  }
}

/* ---- MultinomialLogisticLoss ---- */

static void
test_multinomial_logistic_loss (void)
{
  static const gint64 x_dims[] = { 2, 3 }, l_dims[] = { 2 };
  static const float p[] = { 0.2f, 0.5f, 0.3f, 0.0f, 0.9f, 0.1f }, l[] = { 1, 0 };
  g_autoptr (CtLayer) layer = plain_layer ("MultinomialLogisticLoss");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, p), ct_test_blob_with (l_dims, 1, l),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, FALSE };
  const float *dx;

  /* A zero probability is floored at 1e-20 under the logarithm. */
  assert_close (forward (layer, bottom, top), (-log (0.5) - log (1e-20)) / 2.0, 1e-6);
  g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
  dx = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  g_assert_cmpfloat_with_epsilon (dx[1], -1.0 / 0.5 / 2.0, 1e-6);
  g_assert_cmpfloat (dx[0], ==, 0.0f);
  g_assert_cmpfloat (dx[2], ==, 0.0f);
  assert_close (dx[3], -0.5 / 1e-20, 1e-6);

  {
    static const gint64 g[] = { 10, 5, 1, 1 }, gl[] = { 10, 1, 1, 1 };
    CtGradientChecker checker = { 1e-2f, 2e-2f, 1701, 0.0f, 0.05f };
    g_autoptr (CtLayer) grad = plain_layer ("MultinomialLogisticLoss");
    g_autoptr (GPtrArray) gb = ct_test_blobs (ct_test_blob_uniform (g, 4, 0.3f, 1.0f, 51),
                                          labels (gl, 4, 5, 52), NULL);
    g_autoptr (GPtrArray) gt = ct_test_blobs (ct_blob_new (), NULL);

    ct_check_gradient_exhaustive (&checker, grad, gb, gt, 0);
  }
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (GPtrArray) b2 = ct_test_blobs (ct_test_blob_with (x_dims, 2, p), ct_test_blob_with (l_dims, 1, l),
                                          NULL);

    check_bad_label ("MultinomialLogisticLoss", &param, b2, 1, 3.0f, 0, "3");
  }
  {
    static const gint64 l2[] = { 2, 2 };
    g_autoptr (CtLayer) wrong = plain_layer ("MultinomialLogisticLoss");
    g_autoptr (GPtrArray) wb = ct_test_blobs (ct_test_blob_with (x_dims, 2, p), labels (l2, 2, 3, 1), NULL);
    g_autoptr (GPtrArray) wt = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (wrong, wb, wt);
  }
}

/* ---- ContrastiveLoss ---- */

static double
reference_contrastive (const float *a, const float *b, const float *y, int num, int channels,
                       double margin, gboolean legacy)
{
  double loss = 0.0;

  for (int i = 0; i < num; i++)
    {
      double d2 = 0.0;

      for (int c = 0; c < channels; c++)
        d2 += ((double) a[i * channels + c] - b[i * channels + c])
              * ((double) a[i * channels + c] - b[i * channels + c]);
      if ((int) y[i] != 0)
        loss += d2;
      else if (legacy)
        loss += MAX (margin - d2, 0.0);
      else
        loss += pow (MAX (margin - sqrt (d2), 0.0), 2);
    }
  return loss / num / 2.0;
}

static void
test_contrastive_loss (void)
{
  static const gint64 f_dims[] = { 8, 5, 1, 1 }, y_dims[] = { 8, 1, 1, 1 };
  static const float y[] = { 1, 0, 0, 1, 0, 1, 0, 0 };
  guint checked = 0;

  for (int legacy = 0; legacy < 2; legacy++)
    {
      Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
      Caffe__ContrastiveLossParameter cp = CAFFE__CONTRASTIVE_LOSS_PARAMETER__INIT;
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_uniform (f_dims, 4, -0.6f, 0.6f, 61),
                                                ct_test_blob_uniform (f_dims, 4, -0.6f, 0.6f, 62),
                                                ct_test_blob_with (y_dims, 4, y), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
      double want;

      cp.has_margin = TRUE;
      cp.margin = 2.0f;
      cp.has_legacy_version = TRUE;
      cp.legacy_version = legacy;
      param.contrastive_loss_param = &cp;
      layer = make_layer ("ContrastiveLoss", &param);
      want = reference_contrastive (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL),
                                    ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL), y, 8, 5, 2.0,
                                    legacy);
      assert_close (forward (layer, bottom, top), want, 1e-5);
      g_assert_true (ct_layer_allow_force_backward (layer, 1));
      g_assert_false (ct_layer_allow_force_backward (layer, 2));
      ct_check_gradient_exhaustive (&loss_checker, layer, bottom, top, 0);
      ct_check_gradient_exhaustive (&loss_checker, layer, bottom, top, 1);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 2);

  /* The default margin is 1; a dissimilar pair beyond it costs nothing. */
  {
    static const gint64 d[] = { 1, 2 }, yd[] = { 1 };
    static const float a[] = { 0, 0 }, b[] = { 3, 4 }, no[] = { 0 };
    g_autoptr (CtLayer) layer = plain_layer ("ContrastiveLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (d, 2, a), ct_test_blob_with (d, 2, b),
                                              ct_test_blob_with (yd, 1, no), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
    g_autoptr (GError) error = NULL;
    gboolean down[3] = { TRUE, TRUE, FALSE };

    g_assert_cmpfloat (forward (layer, bottom, top), ==, 0.0f);
    g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
    g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[1], ==, 0.0f);
    down[2] = TRUE;
    g_assert_false (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
    assert_layer_error (error, "ContrastiveLoss");
  }
  {
    static const gint64 a[] = { 4, 5 }, b[] = { 4, 6 }, yd[] = { 4 };
    g_autoptr (CtLayer) layer = plain_layer ("ContrastiveLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (a, 2, 1),
                                              ct_test_blob_gaussian (b, 2, 2),
                                              ct_test_blob_gaussian (yd, 1, 3), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    assert_setup_fails (layer, bottom, top);
  }
}

/* ---- Accuracy ---- */

static void
test_accuracy (void)
{
  static const gint64 x_dims[] = { 4, 3 }, l_dims[] = { 4 };
  static const float x[] = {
    0.1f, 0.7f, 0.2f, /* label 1: top-1 hit */
    0.5f, 0.3f, 0.2f, /* label 1: second, a top-2 hit */
    0.2f, 0.3f, 0.5f, /* label 0: third */
    0.4f, 0.4f, 0.2f, /* label 0: tied with class 1 -- the tie counts against */
  };
  static const float l[] = { 1, 1, 0, 0 };
  struct { guint top_k; gboolean ignore; double want; double class0, class1; } cases[] = {
    { 1, FALSE, 1.0 / 4.0, 0.0, 0.5 },
    { 2, FALSE, 3.0 / 4.0, 0.5, 1.0 },
    { 3, FALSE, 1.0, 1.0, 1.0 },
    { 1, TRUE, 1.0 / 2.0, 0.0, 0.5 }, /* ignore_label 0 */
  };

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
      Caffe__AccuracyParameter ap = CAFFE__ACCURACY_PARAMETER__INIT;
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x),
                                                ct_test_blob_with (l_dims, 1, l), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
      g_autoptr (GError) error = NULL;
      float loss = -1.0f;
      const float *per_class;

      ap.has_top_k = TRUE;
      ap.top_k = cases[c].top_k;
      ap.has_ignore_label = cases[c].ignore;
      ap.ignore_label = 0;
      param.accuracy_param = &ap;
      layer = make_layer ("Accuracy", &param);
      g_assert_true (ct_layer_setup (layer, bottom, top, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (ct_layer_loss_weight (layer, 0), ==, 0.0f);
      g_assert_true (ct_layer_forward (layer, bottom, top, FALSE, &loss, &error));
      g_assert_cmpfloat (loss, ==, 0.0f);
      assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[0], cases[c].want, 1e-7);
      g_assert_cmpint (ct_blob_count (CT_TOP (top, 1)), ==, 3);
      per_class = ct_blob_cpu_data (CT_TOP (top, 1), NULL);
      if (cases[c].ignore)
        g_assert_cmpfloat (per_class[0], ==, 0.0f);
      else
        assert_close (per_class[0], cases[c].class0, 1e-7);
      assert_close (per_class[1], cases[c].class1, 1e-7);
      g_assert_cmpfloat (per_class[2], ==, 0.0f); /* no label of class 2 */
      g_assert_false (ct_layer_allow_force_backward (layer, 0));
    }

  /* Over axis 2 (N x H x C), one top. */
  {
    static const gint64 xd[] = { 2, 2, 3 }, ld[] = { 2, 2 };
    static const float xv[] = { 1, 2, 3, 3, 2, 1, 0, 5, 1, 9, 0, 0 }, lv[] = { 2, 0, 0, 1 };
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    Caffe__AccuracyParameter ap = CAFFE__ACCURACY_PARAMETER__INIT;
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (xd, 3, xv), ct_test_blob_with (ld, 2, lv), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ap.has_axis = TRUE;
    ap.axis = 2;
    param.accuracy_param = &ap;
    layer = make_layer ("Accuracy", &param);
    assert_close (forward (layer, bottom, top), 2.0 / 4.0, 1e-7);
  }
  /* Errors: top_k beyond the classes, a bad label. */
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    Caffe__AccuracyParameter ap = CAFFE__ACCURACY_PARAMETER__INIT;
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ap.has_top_k = TRUE;
    ap.top_k = 4;
    param.accuracy_param = &ap;
    layer = make_layer ("Accuracy", &param);
    assert_setup_fails (layer, bottom, top);
  }
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                              NULL);

    check_bad_label ("Accuracy", &param, bottom, 1, 3.0f, 2, "3");
  }
}

/* ---- real Caffe ---- */

static void
compare (const char *what, const float *ours, const float *ref, gint64 n)
{
  double err = ct_test_relative_error (ours, ref, n);

  g_test_message ("%s: relative error %.3g over %" G_GINT64_FORMAT " values", what, err, n);
  g_assert_cmpfloat (err, <=, 1e-4);
}

/* One loss layer of a dump: its bottoms' data in, its loss and the bottoms'
 * diffs compared with Caffe's (LOSS_WEIGHT as in the prototxt). */
static void
check_dump_loss (const char *file, const char *type, const char *loss_top,
                 const char *first, const char *second, float loss_weight,
                 gboolean second_has_gradient, float want_total)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load (file);
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  const CtTestDumpRecord *a, *b, *loss;
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (GPtrArray) bottom = NULL;
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, second_has_gradient };
  float weighted = 0.0f;

  if (dump == NULL)
    {
      g_test_skip ("reference dump not found");
      return;
    }
  if (want_total != 0.0f)
    assert_close (dump->loss, want_total, 1e-6);
  a = ct_test_dump_find (dump, 0, first, 0);
  b = ct_test_dump_find (dump, 0, second, 0);
  loss = ct_test_dump_find (dump, 0, loss_top, 0);
  bottom = ct_test_blobs (ct_test_dump_blob (a), ct_test_dump_blob (b), NULL);
  /* The dump's diffs are what backward must produce: start from NaN. */
  for (guint i = 0; i < 2; i++)
    ct_cpu_set (ct_blob_count (CT_BOTTOM (bottom, i)), NAN,
                ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, i), NULL));
  if (loss_weight != 1.0f)
    {
      param.n_loss_weight = 1;
      param.loss_weight = &loss_weight;
    }
  layer = make_layer (type, &param);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  /* The diff of the loss top holds the loss weight, as Caffe's does. */
  compare ("loss top diff", ct_blob_cpu_diff (CT_TOP (top, 0), NULL), loss->diff, 1);
  g_assert_true (ct_layer_forward (layer, bottom, top, FALSE, &weighted, &error));
  g_assert_no_error (error);
  compare (loss_top, ct_blob_cpu_data (CT_TOP (top, 0), NULL), loss->data, 1);
  assert_close (weighted, loss_weight * loss->data[0], 1e-5);
  g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
  g_assert_no_error (error);
  compare (first, ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), a->diff, a->count);
  if (second_has_gradient)
    compare (second, ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL), b->diff, b->count);
}

static void
test_reference_layer_zoo (void)
{
  check_dump_loss ("layer_zoo_seed1701.bin", "SoftmaxWithLoss", "loss_cls", "ip2", "label",
                   1.0f, FALSE, 4.54867125f);
  check_dump_loss ("layer_zoo_seed1701.bin", "EuclideanLoss", "loss_reg", "ip3", "target",
                   0.5f, TRUE, 4.54867125f);
}

static void
test_reference_lenet (void)
{
  check_dump_loss ("lenet_fashion_sin.bin", "SoftmaxWithLoss", "loss", "ip2", "label",
                   1.0f, FALSE, 17.9418221f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layers/loss/catalogue", test_catalogue);
  g_test_add_func ("/layers/loss/softmax-with-loss/by-hand", test_softmax_loss_by_hand);
  g_test_add_func ("/layers/loss/softmax-with-loss/normalization",
                   test_softmax_loss_normalization);
  g_test_add_func ("/layers/loss/softmax-with-loss/axis", test_softmax_loss_axis);
  g_test_add_func ("/layers/loss/softmax-with-loss/prob-top-and-weight",
                   test_softmax_loss_prob_top_and_weight);
  g_test_add_func ("/layers/loss/softmax-with-loss/bad-labels", test_softmax_loss_bad_labels);
  g_test_add_func ("/layers/loss/softmax-with-loss/setup-errors",
                   test_softmax_loss_setup_errors);
  g_test_add_func ("/layers/loss/refuse-label-gradient", test_refuse_label_gradient);
  g_test_add_func ("/layers/loss/euclidean", test_euclidean_loss);
  g_test_add_func ("/layers/loss/sigmoid-cross-entropy", test_sigmoid_cross_entropy);
  g_test_add_func ("/layers/loss/hinge", test_hinge_loss);
  g_test_add_func ("/layers/loss/infogain", test_infogain_loss);
  g_test_add_func ("/layers/loss/multinomial-logistic", test_multinomial_logistic_loss);
  g_test_add_func ("/layers/loss/contrastive", test_contrastive_loss);
  g_test_add_func ("/layers/loss/accuracy", test_accuracy);
  g_test_add_func ("/layers/loss/reference/layer-zoo", test_reference_layer_zoo);
  g_test_add_func ("/layers/loss/reference/lenet", test_reference_lenet);
  return g_test_run ();
}
