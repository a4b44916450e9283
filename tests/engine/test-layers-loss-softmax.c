/* test-layers-loss-softmax.c: SoftmaxWithLoss and InfogainLoss: values
 * against the formula in double, every normalization mode and the legacy
 * `normalize`, ignore_label, axis, the probability top and loss weights,
 * labels out of range reported with the layer, value and index, setup
 * errors and finite-difference gradients. */
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
  g_autoptr (CtLayer) layer = ct_test_plain_layer ("SoftmaxWithLoss");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (x_dims, 2, x), ct_test_blob_with (l_dims, 1, l),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  double want = (-(3.0 - log (exp (1.0) + exp (2.0) + exp (3.0)))
                 - (-1.0 - log (exp (-1.0) + 1.0 + exp (5.0)))) / 2.0;

  ct_test_assert_close (ct_test_forward (layer, bottom, top), want, 1e-6);
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
        Caffe__LossParameter lp = ct_test_loss_param (cases[c].mode, cases[c].normalize, ignore, 3);
        g_autoptr (CtLayer) layer = NULL;
        g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 4, 3.0f, 1701),
                                                  ct_test_labels (l_dims, 4, 3, 42), NULL);
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
        layer = ct_test_make_layer ("SoftmaxWithLoss", &param);
        raw = reference_softmax_loss (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), lab,
                                      3, 4, 4, ignore, 3, &valid);
        g_assert_cmpint (valid, ==, ignore ? 9 : 12);
        divisor = mode == CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL ? full
                  : mode == CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID ? (double) valid
                  : mode == CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE ? batch
                  : 1.0;
        g_test_message ("%s, ignore %d: divisor %g", cases[c].what, ignore, divisor);
        ct_test_assert_close (ct_test_forward (layer, bottom, top), raw / divisor, 1e-5);
        ct_check_gradient_exhaustive (&ct_test_loss_checker, layer, bottom, top, 0);
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
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 3, 2.0f, 5), ct_test_labels (l_dims, 2, 4, 6),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  gint64 valid;
  double raw;

  sp.has_axis = TRUE;
  sp.axis = -1;
  param.softmax_param = &sp;
  layer = ct_test_make_layer ("SoftmaxWithLoss", &param);
  raw = reference_softmax_loss (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL),
                                ct_blob_cpu_data (CT_BOTTOM (bottom, 1), NULL), 6, 4, 1,
                                FALSE, 0, &valid);
  ct_test_assert_close (ct_test_forward (layer, bottom, top), raw / 6.0, 1e-5);
  ct_check_gradient_exhaustive (&ct_test_loss_checker, layer, bottom, top, 0);
}

/* The optional second top holds the probabilities; the loss weight scales
 * the loss and the gradient. */
static void
test_softmax_loss_prob_top_and_weight (void)
{
  static const gint64 x_dims[] = { 4, 5 }, l_dims[] = { 4 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  float weights[] = { 0.5f, 0.0f };
  g_autoptr (CtLayer) layer = NULL, plain = ct_test_plain_layer ("SoftmaxWithLoss");
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 2, 2.0f, 9), ct_test_labels (l_dims, 1, 5, 10),
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
  layer = ct_test_make_layer ("SoftmaxWithLoss", &param);

  plain_loss = ct_test_forward (plain, bottom, plain_top);
  g_assert_true (ct_layer_backward (plain, plain_top, down, bottom, ct_test_use_gpu (), &error));
  plain_dx = g_memdup2 (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), 20 * sizeof (float));

  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), &weighted_loss, &error));
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
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
  dx = ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL);
  for (int i = 0; i < 20; i++)
    g_assert_cmpfloat_with_epsilon (dx[i], 0.5f * plain_dx[i], 1e-7);

  /* With the probabilities as a top, the gradient still follows the loss. */
  ct_check_gradient_single (&ct_test_loss_checker, layer, bottom, top, 0, 0, 0, FALSE);
}

/* Labels outside [0, classes) that are not the ignore label are errors
 * that name the layer, the value and the index; the ignore label is not. */
static void
test_softmax_loss_bad_labels (void)
{
  static const gint64 x_dims[] = { 4, 5 }, l_dims[] = { 4 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__LossParameter lp = ct_test_loss_param (-1, -1, TRUE, -1);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 2, 1.0f, 1), ct_test_labels (l_dims, 1, 5, 2),
                                            NULL);
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

  ct_test_check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, 5.0f, 3, "5");
  ct_test_check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, -1.0f, 0, "-1");
  ct_test_check_bad_label ("SoftmaxWithLoss", &param, bottom, 2, 1e10f, 2, "1e+10");
  ct_test_check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, NAN, 1, "nan");
  param.loss_param = &lp;
  ct_test_check_bad_label ("SoftmaxWithLoss", &param, bottom, 1, -2.0f, 1, "-2");

  /* -1 is the ignore label here: fine, and it adds nothing. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL)[2] = -1.0f;
  layer = ct_test_make_layer ("SoftmaxWithLoss", &param);
  g_assert_true (isfinite (ct_test_forward (layer, bottom, top)));
  /* A truncated fraction names a class, as Caffe's cast does. */
  ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL)[2] = 4.7f;
  g_assert_true (isfinite (ct_test_forward (layer, bottom, top)));
}

static void
test_softmax_loss_setup_errors (void)
{
  static const gint64 x_dims[] = { 4, 5 }, l3[] = { 3 }, l8[] = { 4, 2 }, x3[] = { 4, 5, 2 };
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__SoftmaxParameter sp = CAFFE__SOFTMAX_PARAMETER__INIT;
  Caffe__LossParameter lp = ct_test_loss_param (9, -1, FALSE, 0);

  {
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 2, 1.0f, 1), ct_test_labels (l3, 1, 5, 2),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (layer, bottom, top); /* first dimensions differ */
  }
  {
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 2, 1.0f, 1), ct_test_labels (l8, 2, 5, 2),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (layer, bottom, top); /* 8 labels for 4 predictions */
  }
  {
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x3, 3, 1.0f, 1), ct_test_labels (l8, 2, 5, 2),
                                              NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    sp.has_axis = TRUE;
    sp.axis = 3;
    param.softmax_param = &sp;
    layer = ct_test_make_layer ("SoftmaxWithLoss", &param);
    ct_test_assert_setup_fails (layer, bottom, top); /* axis out of range */
  }
  {
    Caffe__LayerParameter p2 = CAFFE__LAYER_PARAMETER__INIT;
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 2, 1.0f, 1),
                                              ct_test_labels (x_dims, 1, 5, 2), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    p2.loss_param = &lp;
    layer = ct_test_make_layer ("SoftmaxWithLoss", &p2);
    ct_test_assert_setup_fails (layer, bottom, top); /* unknown normalization */
  }
  {
    g_autoptr (CtLayer) layer = ct_test_plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 2, 1.0f, 1), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    ct_test_assert_setup_fails (layer, bottom, top); /* one bottom */
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
        Caffe__LossParameter lp = ct_test_loss_param (mode, -1, ignore, 4);
        g_autoptr (CtLayer) layer = NULL;
        g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 3, 1.0f, 31),
                                                  ct_test_labels (l_dims, 2, 5, 32),
                                                  ct_test_blob_uniform (h_dims, 2, 0, 1, 33),
                                                  NULL);
        g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
        float *lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
        static const double divisors[] = { 8, -1, 4, 1 };
        gint64 valid;
        double raw, divisor;

        lab[2] = 4.0f;
        param.loss_param = &lp;
        layer = ct_test_make_layer ("InfogainLoss", &param);
        raw = reference_infogain (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), lab,
                                  ct_blob_cpu_data (CT_BOTTOM (bottom, 2), NULL), 4, 5, 2,
                                  ignore, 4, &valid);
        divisor = divisors[mode] < 0 ? (double) valid : divisors[mode];
        ct_test_assert_close (ct_test_forward (layer, bottom, top), raw / divisor, 1e-5);
        g_assert_false (ct_layer_allow_force_backward (layer, 2));
        ct_check_gradient_exhaustive (&ct_test_loss_checker, layer, bottom, top, 0);
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
    g_autoptr (CtLayer) layer = NULL, softmax = ct_test_plain_layer ("SoftmaxWithLoss");
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_scores (x_dims, 3, 1.0f, 41),
                                              ct_test_labels (l_dims, 2, 5, 42), NULL);
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
    layer = ct_test_make_layer ("InfogainLoss", &param);
    a = ct_test_forward (layer, bottom, top);
    b = ct_test_forward (softmax, bottom, top2);
    g_test_message ("infogain with H = I: %.9g, softmax loss: %.9g", a, b);
    ct_test_assert_close (a, b, 1e-6);
    g_assert_cmpint (ct_blob_count (CT_TOP (top, 1)), ==, 40);
    ct_check_gradient_single (&ct_test_loss_checker, layer, bottom, top, 0, 0, 0, FALSE);
    g_unlink (path);
    g_rmdir (dir);
  }

  /* Errors: no matrix, a missing file, a matrix of the wrong size, the
   * deprecated normalize, a bad label. */
  {
    Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
    Caffe__InfogainLossParameter ip = CAFFE__INFOGAIN_LOSS_PARAMETER__INIT;
    Caffe__LossParameter lp = ct_test_loss_param (-1, 1, FALSE, 0);
    static const gint64 h4[] = { 4, 4 };
    g_autoptr (GPtrArray) two = ct_test_blobs (ct_test_scores (x_dims, 3, 1, 1), ct_test_labels (l_dims, 2, 5, 2),
                                           NULL);
    g_autoptr (GPtrArray) bad_h = ct_test_blobs (ct_test_scores (x_dims, 3, 1, 1), ct_test_labels (l_dims, 2, 5, 2),
                                             ct_test_blob_uniform (h4, 2, 0, 1, 3), NULL);
    g_autoptr (GPtrArray) three = ct_test_blobs (ct_test_scores (x_dims, 3, 1, 1), ct_test_labels (l_dims, 2, 5, 2),
                                             ct_test_blob_uniform (h_dims, 2, 0, 1, 3), NULL);
    g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

    {
      g_autoptr (CtLayer) layer = ct_test_plain_layer ("InfogainLoss");
      ct_test_assert_setup_fails (layer, two, top);
    }
    {
      g_autoptr (CtLayer) layer = NULL;
      ip.source = (char *) "/nonexistent/H.binaryproto";
      param.infogain_loss_param = &ip;
      layer = ct_test_make_layer ("InfogainLoss", &param);
      ct_test_assert_setup_fails (layer, two, top);
    }
    {
      g_autoptr (CtLayer) layer = ct_test_plain_layer ("InfogainLoss");
      ct_test_assert_setup_fails (layer, bad_h, top);
    }
    {
      Caffe__LayerParameter p2 = CAFFE__LAYER_PARAMETER__INIT;
      g_autoptr (CtLayer) layer = NULL;
      p2.loss_param = &lp;
      layer = ct_test_make_layer ("InfogainLoss", &p2);
      ct_test_assert_setup_fails (layer, three, top);
    }
    {
      Caffe__LayerParameter p3 = CAFFE__LAYER_PARAMETER__INIT;
      ct_test_check_bad_label ("InfogainLoss", &p3, three, 1, 5.0f, 6, "5");
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/loss/softmax-with-loss/by-hand", test_softmax_loss_by_hand);
  g_test_add_func ("/engine/layers/loss/softmax-with-loss/normalization",
                   test_softmax_loss_normalization);
  g_test_add_func ("/engine/layers/loss/softmax-with-loss/axis", test_softmax_loss_axis);
  g_test_add_func ("/engine/layers/loss/softmax-with-loss/prob-top-and-weight",
                   test_softmax_loss_prob_top_and_weight);
  g_test_add_func ("/engine/layers/loss/softmax-with-loss/bad-ct_test_labels", test_softmax_loss_bad_labels);
  g_test_add_func ("/engine/layers/loss/softmax-with-loss/setup-errors",
                   test_softmax_loss_setup_errors);
  g_test_add_func ("/engine/layers/loss/infogain", test_infogain_loss);
  return g_test_run ();
}
