/* test-filler.c: every weight filler's values and statistics, the seeded
 * generator's repeatability, and the errors a bad filler gives. */
#include <math.h>
#include <string.h>

#include "filler.h"
#include "engine-error.h"

static CtBlob *
blob_4d (gint64 n, gint64 c, gint64 h, gint64 w)
{
  gint64 dims[] = { n, c, h, w };
  CtBlob *blob = ct_blob_new_with_shape (dims, 4, NULL);

  g_assert_nonnull (blob);
  return blob;
}

static void
stats (CtBlob *blob, double *mean, double *std, double *lo, double *hi, gint64 *zeros)
{
  const float *d = ct_blob_cpu_data (blob, NULL);
  gint64 n = ct_blob_count (blob);
  double sum = 0, sq = 0;

  *lo = INFINITY;
  *hi = -INFINITY;
  *zeros = 0;
  for (gint64 i = 0; i < n; i++)
    {
      sum += d[i];
      sq += (double) d[i] * d[i];
      *lo = MIN (*lo, d[i]);
      *hi = MAX (*hi, d[i]);
      *zeros += d[i] == 0.0f;
    }
  *mean = sum / n;
  *std = sqrt (sq / n - *mean * *mean);
}

static void
fill_ok (Caffe__FillerParameter *p, CtBlob *blob, guint64 seed)
{
  g_autoptr (CtRng) rng = ct_rng_new (seed);
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_filler_fill (p, blob, rng, &error));
  g_assert_no_error (error);
}

static void
test_constant (void)
{
  g_autoptr (CtBlob) blob = blob_4d (2, 3, 4, 5);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  const float *d;

  p.type = (char *) "constant";
  p.value = 0.25f;
  fill_ok (&p, blob, 1);
  d = ct_blob_cpu_data (blob, NULL);
  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    g_assert_cmpfloat (d[i], ==, 0.25f);

  /* No parameter at all: Caffe's default, constant 0. */
  fill_ok (NULL, blob, 1);
  d = ct_blob_cpu_data (blob, NULL);
  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    g_assert_cmpfloat (d[i], ==, 0.0f);
}

static void
test_uniform (void)
{
  g_autoptr (CtBlob) blob = blob_4d (10, 10, 20, 20);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  double mean, std, lo, hi;
  gint64 zeros;

  p.type = (char *) "uniform";
  p.min = 1.0f;
  p.max = 2.0f;
  fill_ok (&p, blob, 7);
  stats (blob, &mean, &std, &lo, &hi, &zeros);
  g_assert_cmpfloat (lo, >=, 1.0);
  g_assert_cmpfloat (hi, <=, 2.0);
  g_assert_cmpfloat_with_epsilon (mean, 1.5, 0.01);
  g_assert_cmpfloat_with_epsilon (std, 1.0 / sqrt (12.0), 0.01);
}

static void
test_gaussian (void)
{
  g_autoptr (CtBlob) blob = blob_4d (10, 10, 20, 20);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  double mean, std, lo, hi;
  gint64 zeros;

  p.type = (char *) "gaussian";
  p.mean = 3.0f;
  p.std = 0.5f;
  fill_ok (&p, blob, 7);
  stats (blob, &mean, &std, &lo, &hi, &zeros);
  g_assert_cmpfloat_with_epsilon (mean, 3.0, 0.02);
  g_assert_cmpfloat_with_epsilon (std, 0.5, 0.02);
  g_assert_cmpint (zeros, ==, 0);
}

/* sparse = 3 over 30 outputs keeps about one weight in ten. */
static void
test_gaussian_sparse (void)
{
  gint64 dims[] = { 30, 2000 };
  g_autoptr (CtBlob) blob = ct_blob_new_with_shape (dims, 2, NULL);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  double mean, std, lo, hi, kept;
  gint64 zeros;

  p.type = (char *) "gaussian";
  p.std = 1.0f;
  p.sparse = 3;
  fill_ok (&p, blob, 7);
  stats (blob, &mean, &std, &lo, &hi, &zeros);
  kept = 1.0 - (double) zeros / ct_blob_count (blob);
  g_assert_cmpfloat_with_epsilon (kept, 0.1, 0.01);
}

static void
test_positive_unitball (void)
{
  g_autoptr (CtBlob) blob = blob_4d (6, 3, 4, 5);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  const float *d;

  p.type = (char *) "positive_unitball";
  fill_ok (&p, blob, 3);
  d = ct_blob_cpu_data (blob, NULL);
  for (int i = 0; i < 6; i++)
    {
      double sum = 0;
      for (int j = 0; j < 60; j++)
        {
          g_assert_cmpfloat (d[i * 60 + j], >=, 0.0f);
          sum += d[i * 60 + j];
        }
      g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-5);
    }
}

/* For an 800x3x4x5 blob, fan_in = 3*4*5 = 60 and fan_out = 800*4*5 = 16000. */
static void
test_xavier (void)
{
  const Caffe__FillerParameter__VarianceNorm norms[] = {
    CAFFE__FILLER_PARAMETER__VARIANCE_NORM__FAN_IN,
    CAFFE__FILLER_PARAMETER__VARIANCE_NORM__FAN_OUT,
    CAFFE__FILLER_PARAMETER__VARIANCE_NORM__AVERAGE,
  };
  const double fan[] = { 60.0, 16000.0, (60.0 + 16000.0) / 2.0 };

  for (guint k = 0; k < G_N_ELEMENTS (norms); k++)
    {
      g_autoptr (CtBlob) blob = blob_4d (800, 3, 4, 5);
      Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
      double mean, std, lo, hi, scale;
      gint64 zeros;

      p.type = (char *) "xavier";
      p.has_variance_norm = TRUE;
      p.variance_norm = norms[k];
      fill_ok (&p, blob, 11);
      stats (blob, &mean, &std, &lo, &hi, &zeros);
      scale = sqrt (3.0 / fan[k]);
      g_assert_cmpfloat (lo, >=, -scale);
      g_assert_cmpfloat (hi, <=, scale);
      g_assert_cmpfloat_with_epsilon (mean, 0.0, scale * 0.02);
      g_assert_cmpfloat_with_epsilon (std, scale / sqrt (3.0), scale * 0.02);
    }
}

static void
test_msra (void)
{
  g_autoptr (CtBlob) blob = blob_4d (500, 3, 4, 5);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  double mean, std, lo, hi;
  gint64 zeros;

  p.type = (char *) "msra";
  fill_ok (&p, blob, 13);
  stats (blob, &mean, &std, &lo, &hi, &zeros);
  g_assert_cmpfloat_with_epsilon (mean, 0.0, 0.01);
  g_assert_cmpfloat_with_epsilon (std, sqrt (2.0 / 60.0), 0.005);
}

/* A 4x4 bilinear kernel: f = 2, c = 0.75, so the 1-D weights are
 * 0.25 0.75 0.75 0.25 and the kernel is their outer product. */
static void
test_bilinear (void)
{
  g_autoptr (CtBlob) blob = blob_4d (2, 1, 4, 4);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  const float w[] = { 0.25f, 0.75f, 0.75f, 0.25f };
  const float *d;

  p.type = (char *) "bilinear";
  fill_ok (&p, blob, 1);
  d = ct_blob_cpu_data (blob, NULL);
  for (int k = 0; k < 2; k++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++)
        g_assert_cmpfloat_with_epsilon (d[k * 16 + y * 4 + x], w[y] * w[x], 1e-7);
}

static void
test_seeded (void)
{
  g_autoptr (CtBlob) a = blob_4d (4, 3, 5, 5);
  g_autoptr (CtBlob) b = blob_4d (4, 3, 5, 5);
  g_autoptr (CtBlob) c = blob_4d (4, 3, 5, 5);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;

  p.type = (char *) "gaussian";
  fill_ok (&p, a, 1701);
  fill_ok (&p, b, 1701);
  fill_ok (&p, c, 1702);
  g_assert_cmpmem (ct_blob_cpu_data (a, NULL), 300 * sizeof (float),
                   ct_blob_cpu_data (b, NULL), 300 * sizeof (float));
  g_assert_true (memcmp (ct_blob_cpu_data (a, NULL), ct_blob_cpu_data (c, NULL),
                         300 * sizeof (float)) != 0);
}

static void
test_errors (void)
{
  g_autoptr (CtRng) rng = ct_rng_new (1);
  Caffe__FillerParameter p = CAFFE__FILLER_PARAMETER__INIT;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtBlob) blob = blob_4d (2, 3, 4, 5);
  g_autoptr (CtBlob) empty = ct_blob_new ();

  p.type = (char *) "gausian";
  g_assert_false (ct_filler_fill (&p, blob, rng, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "'gausian'"));
  g_clear_error (&error);
  g_assert_false (ct_filler_type_is_known ("gausian"));
  g_assert_true (ct_filler_type_is_known ("msra"));

  /* Non-square kernels cannot take the bilinear filler. */
  p.type = (char *) "bilinear";
  g_assert_false (ct_filler_fill (&p, blob, rng, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);

  /* xavier needs a fan. */
  p.type = (char *) "xavier";
  g_assert_false (ct_filler_fill (&p, empty, rng, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/filler/constant", test_constant);
  g_test_add_func ("/engine/filler/uniform", test_uniform);
  g_test_add_func ("/engine/filler/gaussian", test_gaussian);
  g_test_add_func ("/engine/filler/gaussian-sparse", test_gaussian_sparse);
  g_test_add_func ("/engine/filler/positive-unitball", test_positive_unitball);
  g_test_add_func ("/engine/filler/xavier", test_xavier);
  g_test_add_func ("/engine/filler/msra", test_msra);
  g_test_add_func ("/engine/filler/bilinear", test_bilinear);
  g_test_add_func ("/engine/filler/seeded", test_seeded);
  g_test_add_func ("/engine/filler/errors", test_errors);
  return g_test_run ();
}
