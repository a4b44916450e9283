/* test-layers-loss.c: the Loss family's element-wise and pairwise losses
 * -- EuclideanLoss, SigmoidCrossEntropyLoss, HingeLoss, ContrastiveLoss --
 * and MultinomialLogisticLoss and Accuracy: forward values against the
 * formula evaluated in double, finite-difference gradients with respect to
 * the prediction bottoms, normalization, loss weights, refused gradients
 * to labels, labels out of range, setup errors; and the family in the
 * layer catalogue. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "binary-io.h"
#include "blas.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "loss-test-util.h"

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
      g_assert_nonnull (k->backward);
    }
  g_assert_nonnull (accuracy);
  g_assert_cmpint (accuracy->family, ==, CT_LAYER_FAMILY_LOSS);
  g_assert_false (accuracy->is_loss);
  g_assert_null (accuracy->backward);
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
      g_autoptr (CtLayer) layer = ct_test_plain_layer (types[t]);
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_uniform (x_dims, 2, 0.1f, 1.0f, 1),
                                                sce ? ct_test_blob_uniform (x_dims, 2, 0, 1, 2)
                                                    : ct_test_labels (l_dims, 1, 4, 3), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
      g_autoptr (GError) error = NULL;
      gboolean down[3] = { TRUE, TRUE, FALSE };

      if (strcmp (types[t], "InfogainLoss") == 0)
        g_ptr_array_add (bottom, ct_test_blob_uniform (h_dims, 2, 0.0f, 1.0f, 4));
      g_assert_false (ct_layer_allow_force_backward (layer, 1));
      g_assert_true (ct_layer_allow_force_backward (layer, 0));
      ct_test_forward (layer, bottom, top);
      g_assert_false (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
      ct_test_assert_layer_error (error, types[t]);
      g_clear_error (&error);
      down[1] = FALSE;
      g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
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
  g_autoptr (CtLayer) layer = ct_test_plain_layer ("EuclideanLoss");
  g_autoptr (CtLayer) heavy = NULL;
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (dims, 2, a), ct_test_blob_with (other, 3, b),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, TRUE };
  const float *da, *db;

  /* (4 + 16 + 25 + 36) / 2 items / 2 */
  g_assert_cmpfloat_with_epsilon (ct_test_forward (layer, bottom, top), 81.0 / 4.0, 1e-6);
  g_assert_true (ct_layer_allow_force_backward (layer, 1));
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
  da = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  db = ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL);
  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpfloat_with_epsilon (da[i], (a[i] - b[i]) / 2.0f, 1e-7);
      g_assert_cmpfloat_with_epsilon (db[i], -(a[i] - b[i]) / 2.0f, 1e-7);
    }

  param.n_loss_weight = 1;
  param.loss_weight = &weight;
  heavy = ct_test_make_layer ("EuclideanLoss", &param);
  g_assert_true (ct_layer_setup (heavy, bottom, top, &error));
  g_assert_true (ct_layer_forward (heavy, bottom, top, ct_test_use_gpu (), &weighted, &error));
  g_assert_cmpfloat_with_epsilon (weighted, 3.0 * 81.0 / 4.0, 1e-5);

  {
    static const gint64 g[] = { 10, 5, 1, 1 };
    g_autoptr (CtLayer) grad = ct_test_plain_layer ("EuclideanLoss");
    g_autoptr (GPtrArray) gb = ct_test_blobs (ct_test_blob_gaussian (g, 4, 1),
                                          ct_test_blob_gaussian (g, 4, 2), NULL);
    g_autoptr (GPtrArray) gt = ct_test_blobs (ct_blob_new (), NULL);

    ct_check_gradient_exhaustive (&ct_test_loss_checker, grad, gb, gt, -1);
  }
  {
    g_autoptr (CtLayer) wrong = ct_test_plain_layer ("EuclideanLoss");
    g_autoptr (GPtrArray) wb = ct_test_blobs (ct_test_blob_with (dims, 2, a), ct_test_blob_gaussian (bad, 2, 3),
                                          NULL);
    g_autoptr (GPtrArray) wt = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (wrong, wb, wt);
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
        Caffe__LossParameter lp = ct_test_loss_param (cases[c].mode, cases[c].normalize, ignore, -1);
        g_autoptr (CtLayer) layer = NULL;
        g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (dims, 2, 2.0f, 17),
                                                  ct_test_blob_uniform (dims, 2, 0.0f, 1.0f, 18),
                                                  NULL);
        g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
        float *t = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
        gint64 valid;
        double raw, divisor = ignore ? cases[c].divisor_ignored : cases[c].divisor_all;

        t[3] = t[7] = -1.0f; /* ignored when asked */
        param.loss_param = &lp;
        layer = ct_test_make_layer ("SigmoidCrossEntropyLoss", &param);
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
        ct_test_assert_close (ct_test_forward (layer, bottom, top), raw / divisor, 1e-5);
        ct_check_gradient_exhaustive (&ct_test_loss_checker, layer, bottom, top, 0);
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
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("SigmoidCrossEntropyLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (d2, 2, x), ct_test_blob_with (d2, 2, t), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_close (ct_test_forward (layer, bottom, top), (100.0 + 100.0) / 2.0, 1e-6);
  }
  {
    static const gint64 a[] = { 4, 3 }, b[] = { 4, 2 };
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("SigmoidCrossEntropyLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (a, 2, 1, 1),
                                              ct_test_blob_uniform (b, 2, 0, 1, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (layer, bottom, top);
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
      layer = ct_test_make_layer ("HingeLoss", &param);
      ct_test_assert_close (ct_test_forward (layer, bottom, top), norm == 1 ? l1 : l2, 1e-6);
      g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
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
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (g, 4, 10.0f, 21), ct_test_labels (gl, 4, 5, 22),
                                                NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

      hp.has_norm = TRUE;
      hp.norm = norm;
      param.hinge_loss_param = &hp;
      layer = ct_test_make_layer ("HingeLoss", &param);
      ct_check_gradient_exhaustive (&checker, layer, bottom, top, 0);
    }

  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                              NULL);

    ct_test_check_bad_label ("HingeLoss", &param, bottom, 1, 3.0f, 1, "3");
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
    layer = ct_test_make_layer ("HingeLoss", &param);
    ct_test_assert_setup_fails (layer, bottom, top);
  }
}

/* ---- MultinomialLogisticLoss ---- */

static void
test_multinomial_logistic_loss (void)
{
  static const gint64 x_dims[] = { 2, 3 }, l_dims[] = { 2 };
  static const float p[] = { 0.2f, 0.5f, 0.3f, 0.0f, 0.9f, 0.1f }, l[] = { 1, 0 };
  g_autoptr (CtLayer) layer = ct_test_plain_layer ("MultinomialLogisticLoss");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, p), ct_test_blob_with (l_dims, 1, l),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, FALSE };
  const float *dx;

  /* A zero probability is floored at 1e-20 under the logarithm. */
  ct_test_assert_close (ct_test_forward (layer, bottom, top), (-log (0.5) - log (1e-20)) / 2.0, 1e-6);
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
  dx = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  g_assert_cmpfloat_with_epsilon (dx[1], -1.0 / 0.5 / 2.0, 1e-6);
  g_assert_cmpfloat (dx[0], ==, 0.0f);
  g_assert_cmpfloat (dx[2], ==, 0.0f);
  ct_test_assert_close (dx[3], -0.5 / 1e-20, 1e-6);

  {
    static const gint64 g[] = { 10, 5, 1, 1 }, gl[] = { 10, 1, 1, 1 };
    CtGradientChecker checker = { 1e-2f, 2e-2f, 1701, 0.0f, 0.05f };
    g_autoptr (CtLayer) grad = ct_test_plain_layer ("MultinomialLogisticLoss");
    g_autoptr (GPtrArray) gb = ct_test_blobs (ct_test_blob_uniform (g, 4, 0.3f, 1.0f, 51),
                                          ct_test_labels (gl, 4, 5, 52), NULL);
    g_autoptr (GPtrArray) gt = ct_test_blobs (ct_blob_new (), NULL);

    ct_check_gradient_exhaustive (&checker, grad, gb, gt, 0);
  }
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (GPtrArray) b2 = ct_test_blobs (ct_test_blob_with (x_dims, 2, p), ct_test_blob_with (l_dims, 1, l),
                                          NULL);

    ct_test_check_bad_label ("MultinomialLogisticLoss", &param, b2, 1, 3.0f, 0, "3");
  }
  {
    static const gint64 l2[] = { 2, 2 };
    g_autoptr (CtLayer) wrong = ct_test_plain_layer ("MultinomialLogisticLoss");
    g_autoptr (GPtrArray) wb = ct_test_blobs (ct_test_blob_with (x_dims, 2, p), ct_test_labels (l2, 2, 3, 1), NULL);
    g_autoptr (GPtrArray) wt = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (wrong, wb, wt);
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
      layer = ct_test_make_layer ("ContrastiveLoss", &param);
      want = reference_contrastive (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL),
                                    ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL), y, 8, 5, 2.0,
                                    legacy);
      ct_test_assert_close (ct_test_forward (layer, bottom, top), want, 1e-5);
      g_assert_true (ct_layer_allow_force_backward (layer, 1));
      g_assert_false (ct_layer_allow_force_backward (layer, 2));
      ct_check_gradient_exhaustive (&ct_test_loss_checker, layer, bottom, top, 0);
      ct_check_gradient_exhaustive (&ct_test_loss_checker, layer, bottom, top, 1);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 2);

  /* The default margin is 1; a dissimilar pair beyond it costs nothing. */
  {
    static const gint64 d[] = { 1, 2 }, yd[] = { 1 };
    static const float a[] = { 0, 0 }, b[] = { 3, 4 }, no[] = { 0 };
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("ContrastiveLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (d, 2, a), ct_test_blob_with (d, 2, b),
                                              ct_test_blob_with (yd, 1, no), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
    g_autoptr (GError) error = NULL;
    gboolean down[3] = { TRUE, TRUE, FALSE };

    g_assert_cmpfloat (ct_test_forward (layer, bottom, top), ==, 0.0f);
    g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
    g_assert_cmpfloat (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL)[1], ==, 0.0f);
    down[2] = TRUE;
    g_assert_false (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
    ct_test_assert_layer_error (error, "ContrastiveLoss");
  }
  {
    static const gint64 a[] = { 4, 5 }, b[] = { 4, 6 }, yd[] = { 4 };
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("ContrastiveLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (a, 2, 1),
                                              ct_test_blob_gaussian (b, 2, 2),
                                              ct_test_blob_gaussian (yd, 1, 3), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (layer, bottom, top);
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
      layer = ct_test_make_layer ("Accuracy", &param);
      g_assert_true (ct_layer_setup (layer, bottom, top, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (ct_layer_loss_weight (layer, 0), ==, 0.0f);
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), &loss, &error));
      g_assert_cmpfloat (loss, ==, 0.0f);
      ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[0], cases[c].want, 1e-7);
      g_assert_cmpint (ct_blob_count (CT_TOP (top, 1)), ==, 3);
      per_class = ct_blob_cpu_data (CT_TOP (top, 1), NULL);
      if (cases[c].ignore)
        g_assert_cmpfloat (per_class[0], ==, 0.0f);
      else
        ct_test_assert_close (per_class[0], cases[c].class0, 1e-7);
      ct_test_assert_close (per_class[1], cases[c].class1, 1e-7);
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
    layer = ct_test_make_layer ("Accuracy", &param);
    ct_test_assert_close (ct_test_forward (layer, bottom, top), 2.0 / 4.0, 1e-7);
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
    layer = ct_test_make_layer ("Accuracy", &param);
    ct_test_assert_setup_fails (layer, bottom, top);
  }
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                              NULL);

    ct_test_check_bad_label ("Accuracy", &param, bottom, 1, 3.0f, 2, "3");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/loss/catalogue", test_catalogue);
  g_test_add_func ("/engine/layers/loss/refuse-label-gradient", test_refuse_label_gradient);
  g_test_add_func ("/engine/layers/loss/euclidean", test_euclidean_loss);
  g_test_add_func ("/engine/layers/loss/sigmoid-cross-entropy", test_sigmoid_cross_entropy);
  g_test_add_func ("/engine/layers/loss/hinge", test_hinge_loss);
  g_test_add_func ("/engine/layers/loss/multinomial-logistic", test_multinomial_logistic_loss);
  g_test_add_func ("/engine/layers/loss/contrastive", test_contrastive_loss);
  g_test_add_func ("/engine/layers/loss/accuracy", test_accuracy);
  return g_test_run ();
}
