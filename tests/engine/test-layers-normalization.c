/* test-layers-normalization.c: BatchNorm and MVN: forward values against
 * statistics computed in double, BatchNorm's running sums after one and two
 * passes, its frozen statistics (lr_mult 0, no param propagate-down),
 * finite-difference gradients of every variant, in-place runs, setup errors
 * that name the layer, and layer_zoo's bn1 (batch statistics) and bn2
 * (stored statistics) against real Caffe's reference dump. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "proto-file.h"
#include "reference-dump.h"

static const gint64 small_dims[] = { 2, 3, 4, 5 };

static void
init_param (Caffe__LayerParameter *param, const char *type)
{
  Caffe__LayerParameter init = CAFFE__LAYER_PARAMETER__INIT;

  *param = init;
  param->name = (char *) "norm";
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

/* Statistics of X over OUTER x CHANNELS x INNER in double: mean and
 * biased variance per channel. */
static void
channel_stats (CtBlob *x, gint64 outer, gint64 channels, gint64 inner,
               double *mean, double *var)
{
  const float *d = ct_blob_cpu_data (x, NULL);

  for (gint64 c = 0; c < channels; c++)
    {
      double s = 0.0, ss = 0.0;

      for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++)
          s += d[(o * channels + c) * inner + i];
      mean[c] = s / (outer * inner);
      for (gint64 o = 0; o < outer; o++)
        for (gint64 i = 0; i < inner; i++)
          {
            double v = d[(o * channels + c) * inner + i] - mean[c];
            ss += v * v;
          }
      var[c] = ss / (outer * inner);
    }
}

static void
check_normalized (CtBlob *x, CtBlob *y, gint64 outer, gint64 channels, gint64 inner,
                  const double *mean, const double *std)
{
  const float *in = ct_blob_cpu_data (x, NULL), *out = ct_blob_cpu_data (y, NULL);

  g_assert_cmpint (ct_blob_count (y), ==, outer * channels * inner);
  for (gint64 o = 0; o < outer; o++)
    for (gint64 c = 0; c < channels; c++)
      for (gint64 i = 0; i < inner; i++)
        {
          gint64 k = (o * channels + c) * inner + i;
          double expected = (in[k] - mean[c]) / std[c];

          g_assert_cmpfloat_with_epsilon (out[k], expected, 2e-5 * MAX (1.0, fabs (expected)));
        }
}

static void
test_catalogue (void)
{
  g_autoptr (GPtrArray) all = ct_layer_catalogue_list ();
  guint found = 0;

  g_assert_cmpint (ct_layer_catalogue_lookup ("BatchNorm")->family, ==,
                   CT_LAYER_FAMILY_NORMALIZATION);
  g_assert_cmpint (ct_layer_catalogue_lookup ("MVN")->family, ==,
                   CT_LAYER_FAMILY_NORMALIZATION);
  for (guint i = 0; i < all->len; i++)
    if (((const CtLayerClass *) g_ptr_array_index (all, i))->family
        == CT_LAYER_FAMILY_NORMALIZATION)
      found++;
  g_assert_cmpuint (found, ==, 2);
}

/* ---- BatchNorm ---- */

static void
test_batch_norm_batch_stats (void)
{
  Caffe__LayerParameter param;
  Caffe__BatchNormParameter bp = CAFFE__BATCH_NORM_PARAMETER__INIT;
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 31);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);
  g_autoptr (GError) error = NULL;
  double mean[3], var[3], std[3];
  const float eps = 1e-3f, f = 0.9f;
  const double m = 2 * 4 * 5, correction = m / (m - 1);
  const float *sum_mean, *sum_var, *weight;

  init_param (&param, "BatchNorm");
  bp.has_eps = TRUE;
  bp.eps = eps;
  bp.has_moving_average_fraction = TRUE;
  bp.moving_average_fraction = f;
  param.batch_norm_param = &bp;
  /* TRAIN without use_global_stats: batch statistics. */
  layer = new_layer (&param, CAFFE__PHASE__TRAIN);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);

  /* Three zeroed statistics blobs, frozen as Caffe freezes them. */
  g_assert_cmpuint (layer->blobs->len, ==, 3);
  g_assert_cmpint (ct_blob_count (g_ptr_array_index (layer->blobs, 0)), ==, 3);
  g_assert_cmpint (ct_blob_count (g_ptr_array_index (layer->blobs, 1)), ==, 3);
  g_assert_cmpint (ct_blob_count (g_ptr_array_index (layer->blobs, 2)), ==, 1);
  g_assert_cmpuint (layer->param->n_param, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_false (ct_layer_param_propagate_down (layer, i));
      g_assert_true (layer->param->param[i]->has_lr_mult);
      g_assert_cmpfloat (layer->param->param[i]->lr_mult, ==, 0.0f);
      g_assert_cmpfloat (ct_blob_asum_data (g_ptr_array_index (layer->blobs, i), NULL), ==, 0.0f);
    }

  channel_stats (x, 2, 3, 20, mean, var);
  for (int c = 0; c < 3; c++)
    std[c] = sqrt (var[c] + eps);
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  check_normalized (x, y, 2, 3, 20, mean, std);

  /* One pass folded in: weight 1, sums = mean and unbiased variance. */
  sum_mean = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL);
  sum_var = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL);
  weight = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 2), NULL);
  g_assert_cmpfloat (weight[0], ==, 1.0f);
  for (int c = 0; c < 3; c++)
    {
      g_assert_cmpfloat_with_epsilon (sum_mean[c], mean[c], 1e-6);
      g_assert_cmpfloat_with_epsilon (sum_var[c], var[c] * correction, 1e-5);
    }
  /* A second pass: weight 1 + f, sums (1 + f) times the statistics. */
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  sum_mean = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL);
  sum_var = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL);
  weight = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 2), NULL);
  g_assert_cmpfloat_with_epsilon (weight[0], 1.0f + f, 1e-6);
  for (int c = 0; c < 3; c++)
    {
      g_assert_cmpfloat_with_epsilon (sum_mean[c], (1 + f) * mean[c], 1e-5);
      g_assert_cmpfloat_with_epsilon (sum_var[c], (1 + f) * var[c] * correction, 1e-5);
    }
  check_normalized (x, y, 2, 3, 20, mean, std);
}

/* Stored statistics: the sums divided by their weight; weight 0 reads as
 * zero statistics. */
static void
test_batch_norm_global_stats (void)
{
  static const float sums_mean[] = { 0.4f, -0.8f, 2.0f };
  static const float sums_var[] = { 1.0f, 0.5f, 8.0f };
  const float eps = 1e-5f;
  Caffe__LayerParameter param;

  init_param (&param, "BatchNorm");
  for (int weight_zero = 0; weight_zero < 2; weight_zero++)
    {
      /* TEST without use_global_stats: the stored statistics. */
      g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TEST);
      g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 32);
      g_autoptr (CtBlob) y = ct_blob_new ();
      g_autoptr (CtBlob) dy = ct_test_blob_gaussian (small_dims, 4, 33);
      g_autoptr (GPtrArray) bottom = one_blob (x);
      g_autoptr (GPtrArray) top = one_blob (y);
      g_autoptr (GError) error = NULL;
      const gint64 three = 3, one = 1;
      CtBlob *blobs[3];
      double mean[3], std[3];
      gboolean down = TRUE;
      const float *dx, *g;
      float w = weight_zero ? 0.0f : 2.0f;

      blobs[0] = ct_blob_new_with_shape (&three, 1, NULL);
      blobs[1] = ct_blob_new_with_shape (&three, 1, NULL);
      blobs[2] = ct_blob_new_with_shape (&one, 1, NULL);
      memcpy (ct_blob_mutable_cpu_data (blobs[0], NULL), sums_mean, sizeof sums_mean);
      memcpy (ct_blob_mutable_cpu_data (blobs[1], NULL), sums_var, sizeof sums_var);
      ct_blob_mutable_cpu_data (blobs[2], NULL)[0] = w;
      for (int i = 0; i < 3; i++)
        g_ptr_array_add (layer->blobs, blobs[i]);

      g_assert_true (ct_layer_setup (layer, bottom, top, &error));
      g_assert_no_error (error);
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
      for (int c = 0; c < 3; c++)
        {
          mean[c] = w == 0.0f ? 0.0 : sums_mean[c] / w;
          std[c] = sqrt ((w == 0.0f ? 0.0 : sums_var[c] / w) + eps);
        }
      check_normalized (x, y, 2, 3, 20, mean, std);
      /* The stored sums are read, never updated. */
      g_assert_cmpfloat (ct_blob_cpu_data (blobs[2], NULL)[0], ==, w);
      g_assert_cmpmem (ct_blob_cpu_data (blobs[0], NULL), sizeof sums_mean, sums_mean,
                       sizeof sums_mean);

      /* The statistics are constants: dx = dy / std. */
      memcpy (ct_blob_mutable_cpu_diff (y, NULL), ct_blob_cpu_data (dy, NULL),
              120 * sizeof (float));
      g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
      g_assert_no_error (error);
      dx = ct_blob_cpu_diff (x, NULL);
      g = ct_blob_cpu_data (dy, NULL);
      for (int k = 0; k < 120; k++)
        g_assert_cmpfloat_with_epsilon (dx[k], g[k] / std[(k / 20) % 3],
                                        2e-5 * MAX (1.0, fabs (g[k] / std[(k / 20) % 3])));
    }
}

static void
check_batch_norm_gradient (const Caffe__LayerParameter *param, const gint64 *dims,
                           guint n_axes)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = new_layer (param, CAFFE__PHASE__TRAIN);
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (dims, n_axes, 1701);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);

  /* The statistics blobs are checked too: nothing flows to them, and in
   * batch mode the output does not depend on them. */
  ct_check_gradient_exhaustive (&checker, layer, bottom, top, -1);
  g_assert_cmpint (ct_blob_count (y), ==, ct_blob_count (x));
}

static void
test_batch_norm_gradient (void)
{
  static const gint64 two_axes[] = { 5, 4 };
  static const gint64 one_axis[] = { 12 };
  Caffe__LayerParameter param;
  Caffe__BatchNormParameter bp = CAFFE__BATCH_NORM_PARAMETER__INIT;

  init_param (&param, "BatchNorm");
  check_batch_norm_gradient (&param, small_dims, 4);
  /* Explicit batch statistics in TEST, another eps. */
  bp.has_use_global_stats = TRUE;
  bp.use_global_stats = FALSE;
  bp.has_eps = TRUE;
  bp.eps = 0.01f;
  param.batch_norm_param = &bp;
  check_batch_norm_gradient (&param, small_dims, 4);
  /* N x C, and a single axis (one channel). */
  check_batch_norm_gradient (&param, two_axes, 2);
  check_batch_norm_gradient (&param, one_axis, 1);
}

/* In place gives the separate blobs' top and bottom diff. */
static void
check_in_place (const Caffe__LayerParameter *param, Caffe__Phase phase)
{
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 34);
  g_autoptr (CtBlob) dy = ct_test_blob_gaussian (small_dims, 4, 35);
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
  gsize bytes = 120 * sizeof (float);

  g_assert_true (ct_blob_copy_from (a, x, CT_BLOB_COPY_RESHAPE, NULL));
  g_assert_true (ct_blob_copy_from (c, x, CT_BLOB_COPY_RESHAPE, NULL));
  g_assert_true (ct_layer_setup (separate, bottom_a, top_b, &error));
  g_assert_true (ct_layer_forward (separate, bottom_a, top_b, ct_test_use_gpu (), NULL, &error));
  memcpy (ct_blob_mutable_cpu_diff (b, NULL), ct_blob_cpu_data (dy, NULL), bytes);
  g_assert_true (ct_layer_backward (separate, top_b, &down, bottom_a, ct_test_use_gpu (), &error));

  g_assert_true (ct_layer_setup (in_place, both_c, both_c, &error));
  g_assert_true (ct_layer_forward (in_place, both_c, both_c, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (ct_blob_cpu_data (c, NULL), bytes, ct_blob_cpu_data (b, NULL), bytes);
  memcpy (ct_blob_mutable_cpu_diff (c, NULL), ct_blob_cpu_data (dy, NULL), bytes);
  g_assert_true (ct_layer_backward (in_place, both_c, &down, both_c, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
  g_assert_cmpmem (ct_blob_cpu_diff (c, NULL), bytes, ct_blob_cpu_diff (a, NULL), bytes);
}

static void
test_batch_norm_in_place (void)
{
  Caffe__LayerParameter param;

  init_param (&param, "BatchNorm");
  check_in_place (&param, CAFFE__PHASE__TRAIN);
  check_in_place (&param, CAFFE__PHASE__TEST);
}

static void
check_fails (CtLayer *layer, CtBlob *x, const char *what)
{
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'norm'"));
  g_assert_nonnull (strstr (error->message, layer->klass->type));
  g_assert_nonnull (strstr (error->message, what));
}

static void
test_batch_norm_errors (void)
{
  Caffe__LayerParameter param;
  Caffe__BatchNormParameter bp = CAFFE__BATCH_NORM_PARAMETER__INIT;
  Caffe__ParamSpec frozen = CAFFE__PARAM_SPEC__INIT, learned = CAFFE__PARAM_SPEC__INIT;
  Caffe__ParamSpec *specs[2] = { &frozen, &learned };
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 36);

  init_param (&param, "BatchNorm");
  /* Learned statistics are refused, as Caffe refuses them. */
  frozen.has_lr_mult = TRUE;
  frozen.lr_mult = 0.0f;
  learned.has_lr_mult = TRUE;
  learned.lr_mult = 1.0f;
  param.n_param = 2;
  param.param = specs;
  {
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    check_fails (layer, x, "lr_mult");
  }
  /* lr_mult 0 given for the first: the others are added. */
  param.n_param = 1;
  {
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    g_autoptr (CtBlob) y = ct_blob_new ();
    g_autoptr (GPtrArray) bottom = one_blob (x);
    g_autoptr (GPtrArray) top = one_blob (y);

    g_assert_true (ct_layer_setup (layer, bottom, top, NULL));
    g_assert_cmpuint (layer->param->n_param, ==, 3);
    g_assert_cmpfloat (layer->param->param[2]->lr_mult, ==, 0.0f);
  }
  param.n_param = 0;
  param.param = NULL;

  /* Statistics loaded for another channel count. */
  {
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    const gint64 four = 4, one = 1;

    g_ptr_array_add (layer->blobs, ct_blob_new_with_shape (&four, 1, NULL));
    g_ptr_array_add (layer->blobs, ct_blob_new_with_shape (&four, 1, NULL));
    g_ptr_array_add (layer->blobs, ct_blob_new_with_shape (&one, 1, NULL));
    check_fails (layer, x, "4 values");
  }
  {
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    const gint64 three = 3;

    g_ptr_array_add (layer->blobs, ct_blob_new_with_shape (&three, 1, NULL));
    check_fails (layer, x, "3 (mean");
  }
  /* A negative eps. */
  bp.has_eps = TRUE;
  bp.eps = -1e-5f;
  param.batch_norm_param = &bp;
  {
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    check_fails (layer, x, "eps");
  }
  param.batch_norm_param = NULL;
  /* A later reshape to another channel count. */
  {
    static const gint64 other[] = { 2, 4, 4, 5 };
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    g_autoptr (CtBlob) y = ct_blob_new ();
    g_autoptr (GPtrArray) bottom = one_blob (x);
    g_autoptr (GPtrArray) top = one_blob (y);
    g_autoptr (GError) error = NULL;

    g_assert_true (ct_layer_setup (layer, bottom, top, NULL));
    g_assert_true (ct_blob_reshape (x, other, 4, NULL));
    g_assert_false (ct_layer_reshape (layer, bottom, top, &error));
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "'norm' (BatchNorm)"));
    g_assert_nonnull (strstr (error->message, "4 channels"));
  }
}

/* ---- MVN ---- */

static void
mvn_param (Caffe__MVNParameter *mp, gboolean normalize_variance, gboolean across_channels)
{
  Caffe__MVNParameter init = CAFFE__MVNPARAMETER__INIT;

  *mp = init;
  mp->has_normalize_variance = TRUE;
  mp->normalize_variance = normalize_variance;
  mp->has_across_channels = TRUE;
  mp->across_channels = across_channels;
}

static void
test_mvn_forward (void)
{
  Caffe__LayerParameter param;
  Caffe__MVNParameter mp;

  init_param (&param, "MVN");
  param.mvn_param = &mp;
  for (int variant = 0; variant < 4; variant++)
    {
      gboolean normalize = variant != 1, across = variant >= 2;
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 40 + variant);
      g_autoptr (CtBlob) y = ct_blob_new ();
      g_autoptr (GPtrArray) bottom = one_blob (x);
      g_autoptr (GPtrArray) top = one_blob (y);
      gint64 rows = across ? 2 : 6, dim = 120 / rows;
      double mean[6], var[6], std[6];

      mvn_param (&mp, normalize, across);
      if (variant == 3)
        {
          mp.has_eps = TRUE;
          mp.eps = 0.5f;
        }
      layer = new_layer (&param, CAFFE__PHASE__TEST);
      g_assert_true (ct_layer_setup (layer, bottom, top, NULL));
      g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, NULL));
      channel_stats (x, 1, rows, dim, mean, var);
      for (int r = 0; r < rows; r++)
        std[r] = normalize ? sqrt (var[r]) + mp.eps : 1.0;
      check_normalized (x, y, 1, rows, dim, mean, std);
    }

  /* N x D across channels: each row on its own. */
  {
    static const gint64 dims[] = { 3, 7 };
    g_autoptr (CtLayer) layer = NULL;
    g_autoptr (CtBlob) x = ct_test_blob_uniform (dims, 2, -2.0f, 5.0f, 44);
    g_autoptr (CtBlob) y = ct_blob_new ();
    g_autoptr (GPtrArray) bottom = one_blob (x);
    g_autoptr (GPtrArray) top = one_blob (y);
    double mean[3], var[3], std[3];

    mvn_param (&mp, TRUE, TRUE);
    layer = new_layer (&param, CAFFE__PHASE__TEST);
    g_assert_true (ct_layer_setup (layer, bottom, top, NULL));
    g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, NULL));
    channel_stats (x, 1, 3, 7, mean, var);
    for (int r = 0; r < 3; r++)
      std[r] = sqrt (var[r]) + 1e-9;
    check_normalized (x, y, 1, 3, 7, mean, std);
  }
}

static void
test_mvn_gradient (void)
{
  Caffe__LayerParameter param;
  Caffe__MVNParameter mp;

  init_param (&param, "MVN");
  /* The defaults first (per channel, normalize_variance). */
  for (int variant = 0; variant < 4; variant++)
    {
      CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
      g_autoptr (CtLayer) layer = NULL;
      g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 1701);
      g_autoptr (CtBlob) y = ct_blob_new ();
      g_autoptr (GPtrArray) bottom = one_blob (x);
      g_autoptr (GPtrArray) top = one_blob (y);

      if (variant > 0)
        {
          mvn_param (&mp, variant != 2, variant >= 2);
          param.mvn_param = &mp;
        }
      layer = new_layer (&param, CAFFE__PHASE__TRAIN);
      ct_check_gradient_exhaustive (&checker, layer, bottom, top, -1);
      g_assert_cmpint (ct_blob_count (y), ==, 120);
    }
  mvn_param (&mp, TRUE, FALSE);
  param.mvn_param = &mp;
  check_in_place (&param, CAFFE__PHASE__TRAIN);
  mvn_param (&mp, FALSE, TRUE);
  check_in_place (&param, CAFFE__PHASE__TRAIN);
}

static void
test_mvn_errors (void)
{
  static const gint64 five_axes[] = { 2, 3, 2, 2, 2 };
  Caffe__LayerParameter param;
  Caffe__MVNParameter mp;
  g_autoptr (CtBlob) x5 = ct_test_blob_gaussian (five_axes, 5, 45);
  g_autoptr (CtBlob) x = ct_test_blob_gaussian (small_dims, 4, 46);

  init_param (&param, "MVN");
  {
    /* Caffe reads MVN's bottom through the legacy 4-D view. */
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    check_fails (layer, x5, "4");
  }
  mvn_param (&mp, TRUE, FALSE);
  mp.has_eps = TRUE;
  mp.eps = -1.0f;
  param.mvn_param = &mp;
  {
    g_autoptr (CtLayer) layer = new_layer (&param, CAFFE__PHASE__TRAIN);
    check_fails (layer, x, "eps");
  }
}

/* ---- real Caffe ---- */

static const Caffe__LayerParameter *
find_layer (const Caffe__NetParameter *net, const char *name)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return net->layer[i];
  g_assert_not_reached ();
  return NULL;
}

static void
check_reference_bn (const Caffe__NetParameter *net, const CtTestDump *dump, const char *name,
                    const char *bottom_name, gboolean preload)
{
  g_autoptr (CtLayer) layer = new_layer (find_layer (net, name), CAFFE__PHASE__TEST);
  const CtTestDumpRecord *in = ct_test_dump_find (dump, 0, bottom_name, 0);
  const CtTestDumpRecord *out = ct_test_dump_find (dump, 0, name, 0);
  g_autoptr (CtBlob) x = ct_test_dump_blob (in);
  g_autoptr (CtBlob) y = ct_blob_new ();
  g_autoptr (GPtrArray) bottom = one_blob (x);
  g_autoptr (GPtrArray) top = one_blob (y);
  g_autoptr (GError) error = NULL;
  gboolean down = TRUE;
  double err_data, err_diff;

  /* bn2's stored statistics come from the caffemodel; bn1 starts from
   * zeros, as Caffe's setup leaves them, and the dump holds its sums after
   * the one forward. */
  if (preload)
    for (int p = 0; p < 3; p++)
      g_ptr_array_add (layer->blobs, ct_test_dump_blob (ct_test_dump_find (dump, 1, name, p)));
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  memcpy (ct_blob_mutable_cpu_diff (y, NULL), out->diff, out->count * sizeof (float));
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);

  err_data = ct_test_relative_error (ct_blob_cpu_data (y, NULL), out->data, out->count);
  err_diff = ct_test_relative_error (ct_blob_cpu_diff (x, NULL), in->diff, in->count);
  g_test_message ("%s: data relative error %.3g, %s diff %.3g", name, err_data, bottom_name,
                  err_diff);
  g_assert_cmpfloat (err_data, <=, 1e-4);
  g_assert_cmpfloat (err_diff, <=, 1e-4);
  for (int p = 0; p < 3; p++)
    {
      const CtTestDumpRecord *r = ct_test_dump_find (dump, 1, name, p);
      CtBlob *blob = g_ptr_array_index (layer->blobs, p);
      double err = ct_test_relative_error (ct_blob_cpu_data (blob, NULL), r->data, r->count);

      g_test_message ("%s: statistics blob %d relative error %.3g", name, p, err);
      g_assert_cmpint (ct_blob_count (blob), ==, r->count);
      g_assert_cmpfloat (err, <=, 1e-4);
      g_assert_cmpfloat (ct_blob_asum_diff (blob, NULL), ==, 0.0f);
    }
}

static void
test_reference (void)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load ("layer_zoo_seed1701.bin");
  g_autofree char *prototxt = NULL;
  Caffe__NetParameter *net;
  g_autoptr (GError) error = NULL;

  if (dump == NULL)
    {
      g_test_skip ("reference dump layer_zoo_seed1701.bin not found");
      return;
    }
  prototxt = g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", "layer_zoo.prototxt",
                               NULL);
  net = ct_net_load_text_file (prototxt, CT_TEXT_STRICT, NULL, &error);
  g_assert_no_error (error);
  /* bn1: batch statistics in TEST (use_global_stats: false). */
  check_reference_bn (net, dump, "bn1", "prelu1", FALSE);
  /* bn2: stored statistics, eps 0.001. */
  check_reference_bn (net, dump, "bn2", "concat2", TRUE);
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/normalization/catalogue", test_catalogue);
  g_test_add_func ("/engine/layers/normalization/batch-norm/batch-stats", test_batch_norm_batch_stats);
  g_test_add_func ("/engine/layers/normalization/batch-norm/global-stats",
                   test_batch_norm_global_stats);
  g_test_add_func ("/engine/layers/normalization/batch-norm/gradient", test_batch_norm_gradient);
  g_test_add_func ("/engine/layers/normalization/batch-norm/in-place", test_batch_norm_in_place);
  g_test_add_func ("/engine/layers/normalization/batch-norm/errors", test_batch_norm_errors);
  g_test_add_func ("/engine/layers/normalization/mvn/forward", test_mvn_forward);
  g_test_add_func ("/engine/layers/normalization/mvn/gradient", test_mvn_gradient);
  g_test_add_func ("/engine/layers/normalization/mvn/errors", test_mvn_errors);
  g_test_add_func ("/engine/layers/normalization/reference", test_reference);
  return g_test_run ();
}
