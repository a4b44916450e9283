/* test-layers-pooling.c: Pooling (MAX, AVE, STOCHASTIC) and SPP: values
 * by hand, Caffe's pooled sizes, gradient checks, and setup errors. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "blas.h"
#include "engine-error.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"
#include "vision-test-util.h"

/* Distinct values 0.05 apart in a shuffled order, so that no max changes
 * hands under a small finite-difference step. */
static CtBlob *
distinct (guint64 seed, guint n, ...)
{
  gint64 dims[8];
  va_list args;
  CtBlob *blob;
  float *data;
  gint64 count;
  GRand *rand = g_rand_new_with_seed ((guint32) seed);

  va_start (args, n);
  for (guint i = 0; i < n; i++)
    dims[i] = va_arg (args, int);
  va_end (args);
  blob = ct_blob_new_with_shape (dims, n, NULL);
  data = ct_blob_mutable_cpu_data (blob, NULL);
  count = ct_blob_count (blob);
  for (gint64 i = 0; i < count; i++)
    data[i] = 0.05f * (float) (i - count / 2);
  for (gint64 i = count - 1; i > 0; i--)
    {
      gint64 j = g_rand_int_range (rand, 0, (gint32) i + 1);
      float t = data[i];

      data[i] = data[j];
      data[j] = t;
    }
  g_rand_free (rand);
  return blob;
}

/* ---- Pooling ------------------------------------------------------------ */

static const float pool_image[] = { 4, 1, 7, 2,
                                    3, 9, 5, 6,
                                    8, 0, 2, 11 };

/* Pool the 3 x 4 image above (twice: 2 images x 1 channel) with TEXT. */
static void
check_pool_by_hand (const char *text, guint n_tops, int ph, int pw, const float *expected,
                    const float *expected_mask)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
  float input[24];
  g_autoptr (GPtrArray) bottom = NULL;
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);
  gint64 n = ph * pw;

  memcpy (input, pool_image, sizeof pool_image);
  memcpy (input + 12, pool_image, sizeof pool_image);
  bottom = ct_test_blobs (ct_test_from_values (input, 4, 2, 1, 3, 4), NULL);
  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 1, ph, pw);
  ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), expected, n, 1e-6);
  ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + n, expected, n, 1e-6);
  if (expected_mask != NULL)
    {
      ct_test_assert_shape (CT_TOP (top, 1), 4, 2, 1, ph, pw);
      ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 1), NULL), expected_mask, n, 0);
      ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 1), NULL) + n, expected_mask, n, 0);
    }
}

static void
test_pool_by_hand (void)
{
  static const float max_2x2[] = { 9, 9, 7, 9, 9, 11 };
  static const float max_2x2_mask[] = { 5, 5, 2, 5, 5, 11 };
  static const float ave_2x2[] = { 4.25f, 5.5f, 5, 5, 4, 6 };
  /* Kernel 3, stride 2, pad 1: a 2 x 3 output (ceil); AVE divides by the
   * window clipped to the padded image (9, 9, 6 per row). */
  static const float max_pad[] = { 9, 9, 6, 9, 11, 11 };
  static const float max_pad_mask[] = { 5, 5, 7, 5, 11, 11 };
  static const float ave_pad[] = { 17.0f / 9, 30.0f / 9, 8.0f / 6, 20.0f / 9, 33.0f / 9,
                                   17.0f / 6 };
  static const float max_global[] = { 11 };
  static const float ave_global[] = { 58.0f / 12 };
  static const float sto_test_global[] = { 410.0f / 58 };

  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 2 }",
                      2, 2, 3, max_2x2, max_2x2_mask);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 2 }",
                      1, 2, 3, max_2x2, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_h: 2 "
                      "kernel_w: 2 }", 1, 2, 3, ave_2x2, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
                      "stride: 2 pad: 1 }", 2, 2, 3, max_pad, max_pad_mask);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 3 "
                      "stride_h: 2 stride_w: 2 pad_h: 1 pad_w: 1 }", 1, 2, 3, ave_pad, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX "
                      "global_pooling: true }", 1, 1, 1, max_global, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: AVE "
                      "global_pooling: true }", 1, 1, 1, ave_global, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: STOCHASTIC "
                      "global_pooling: true }", 1, 1, 1, sto_test_global, NULL);
}

/* Output sizes: Caffe's ceil, the clip when the last window would start in
 * the padding, and round_mode FLOOR. */
static void
check_pool_size (const char *pool_param, int h, int w, int ph, int pw)
{
  g_autofree char *text = g_strdup_printf ("name: 'p' type: 'Pooling' pooling_param { %s }",
                                           pool_param);
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, h, w), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

  ct_test_setup_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 1, 1, ph, pw);
}

static void
test_pool_sizes (void)
{
  check_pool_size ("kernel_size: 3 stride: 2 pad: 1", 12, 12, 7, 7);  /* layer_zoo */
  check_pool_size ("kernel_size: 3 stride: 2", 13, 12, 6, 6);
  check_pool_size ("kernel_size: 2 stride: 2", 5, 5, 3, 3);
  check_pool_size ("kernel_size: 2 stride: 2 round_mode: FLOOR", 5, 5, 2, 2);
  check_pool_size ("kernel_size: 2 stride: 2 pad: 1", 5, 5, 3, 3);  /* 4, clipped */
  check_pool_size ("kernel_size: 2 stride: 2 pad: 1 round_mode: FLOOR", 5, 5, 3, 3);
  check_pool_size ("kernel_size: 3 stride: 2", 2, 2, 1, 1); /* Caffe's ceil lets it fit */
  check_pool_size ("kernel_h: 3 kernel_w: 2 stride_h: 1 stride_w: 3 pad_h: 1 pad_w: 1", 4, 7,
                   4, 3);
  check_pool_size ("global_pooling: true", 5, 3, 1, 1);
  check_pool_size ("kernel_size: 3 stride: 1", 7, 7, 5, 5);
}

static void
test_pool_gradient (void)
{
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
                  "stride: 2 }", CAFFE__PHASE__TEST, ct_test_blobs (distinct (1, 4, 2, 3, 6, 5), NULL),
                  1, -1, 1e-4f, 1e-2f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
                  "stride: 2 pad: 1 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (distinct (2, 4, 2, 2, 7, 6), NULL), 2, -1, 1e-4f, 1e-2f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_h: 3 "
                  "kernel_w: 2 stride_h: 1 stride_w: 2 pad_h: 1 pad_w: 1 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (distinct (3, 4, 1, 2, 5, 4), NULL), 1, -1,
                  1e-4f, 1e-2f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 3 "
                  "stride: 2 pad: 1 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (4, 4, 2, 2, 7, 6), NULL), 1, -1, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_h: 2 "
                  "kernel_w: 3 stride: 2 pad_h: 1 pad_w: 2 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (5, 4, 2, 2, 5, 6), NULL), 1, -1, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 2 "
                  "stride: 2 round_mode: FLOOR }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (6, 4, 2, 2, 5, 5), NULL), 1, -1, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX "
                  "global_pooling: true }", CAFFE__PHASE__TEST,
                  ct_test_blobs (distinct (7, 4, 2, 3, 4, 5), NULL), 1, -1, 1e-4f, 1e-2f);
  ct_test_check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE "
                  "global_pooling: true }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (8, 4, 2, 3, 4, 5), NULL), 1, -1, 1e-2f, 1e-3f);
}

static void
test_pool_stochastic (void)
{
  const char *text = "name: 's' type: 'Pooling' pooling_param { pool: STOCHASTIC "
                     "kernel_size: 3 stride: 2 }";
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TRAIN);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_uniform (41, 0.1f, 1.0f, 4, 2, 3, 7, 6), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autofree float *first = NULL;
  const float *in, *out;
  guint differs = 0;

  /* Training: every output is one of its window's values; one seed
   * replays the same draws. */
  ct_test_setup_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 3, 3, 3);
  layer->seed = 5;
  ct_test_forward_ok (layer, bottom, top);
  g_assert_cmpuint (layer->seed, !=, 5);
  in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int p = 0; p < 6; p++)
    for (int ph = 0; ph < 3; ph++)
      for (int pw = 0; pw < 3; pw++)
        {
          gboolean found = FALSE;
          float v = out[p * 9 + ph * 3 + pw];

          for (int h = ph * 2; h < MIN (ph * 2 + 3, 7); h++)
            for (int w = pw * 2; w < MIN (pw * 2 + 3, 6); w++)
              found = found || in[p * 42 + h * 6 + w] == v;
          g_assert_true (found);
        }
  first = g_memdup2 (out, 54 * sizeof (float));
  layer->seed = 5;
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), first, 54, 0);
  ct_test_forward_ok (layer, bottom, top);
  for (int i = 0; i < 54; i++)
    differs += ct_blob_cpu_data (CT_TOP (top, 0), NULL)[i] != first[i];
  g_assert_cmpuint (differs, >, 0);

  ct_test_check_gradient (text, CAFFE__PHASE__TRAIN,
                  ct_test_blobs (ct_test_uniform (42, 0.1f, 1.0f, 4, 2, 2, 5, 5), NULL), 1, -1,
                  1e-4f, 1e-2f);
  /* Testing: the activation-weighted average, and its exact gradient. */
  ct_test_check_gradient (text, CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_uniform (43, 0.1f, 1.0f, 4, 2, 2, 5, 5), NULL), 1, -1,
                  1e-3f, 1e-2f);
}

static void
test_pool_errors (void)
{
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 "
                      "kernel_h: 2 kernel_w: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL),
                      1, "not both");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_h: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "kernel_w");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { stride: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "kernel");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { global_pooling: true "
                      "kernel_size: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "global_pooling");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { global_pooling: true "
                      "stride: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "stride 1");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 pad: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "smaller than the kernel");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { pool: STOCHASTIC "
                      "kernel_size: 3 pad: 1 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "MAX and AVE");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 pad: 1 "
                      "pad_h: 1 pad_w: 1 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "pad_h");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 "
                      "stride_h: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "stride_w");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 3, 1, 4, 4), NULL), 1, "4 axes");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { pool: AVE kernel_size: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 2, "second top");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 6 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "does not fit");
}

/* ---- SPP ---------------------------------------------------------------- */

/* SPP's levels are poolings: compare with Pooling layers built the same way. */
static void
test_spp_forward (void)
{
  g_autoptr (CtLayer) spp = ct_test_layer_from_text (
    "name: 's' type: 'SPP' spp_param { pyramid_height: 3 pool: AVE }", CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (51, 4, 2, 3, 9, 8), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  /* 9 x 8 input: level 0 kernel (9, 8); level 1 (5, 4) pad (1, 0), 2 x 2
   * bins after the clip; level 2 (3, 2) pad (2, 0), 4 x 4 bins. */
  const char *levels[] = {
    "name: 'l0' type: 'Pooling' pooling_param { pool: AVE kernel_h: 9 kernel_w: 8 "
    "stride_h: 9 stride_w: 8 }",
    "name: 'l1' type: 'Pooling' pooling_param { pool: AVE kernel_h: 5 kernel_w: 4 "
    "stride_h: 5 stride_w: 4 pad_h: 1 pad_w: 0 }",
    "name: 'l2' type: 'Pooling' pooling_param { pool: AVE kernel_h: 3 kernel_w: 2 "
    "stride_h: 3 stride_w: 2 pad_h: 2 pad_w: 0 }",
  };
  gint64 offset = 0;

  ct_test_setup_ok (spp, bottom, top);
  ct_test_forward_ok (spp, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 2, 2, 3 * (1 + 4 + 16));
  for (gsize l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      g_autoptr (CtLayer) pool = ct_test_layer_from_text (levels[l], CAFFE__PHASE__TEST);
      g_autoptr (GPtrArray) ptop = ct_test_empty_blobs (1);
      gint64 per_image;

      ct_test_setup_ok (pool, bottom, ptop);
      ct_test_forward_ok (pool, bottom, ptop);
      per_image = ct_blob_count (CT_TOP (ptop, 0)) / 2;
      for (int n = 0; n < 2; n++)
        ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + n * 63 + offset,
                      ct_blob_cpu_data (CT_TOP (ptop, 0), NULL) + n * per_image, per_image,
                      1e-6);
      offset += per_image;
    }
  g_assert_cmpint (offset, ==, 63);

  /* pyramid_height 1 keeps the pooling's 4-D shape. */
  {
    g_autoptr (CtLayer) one = ct_test_layer_from_text (
      "name: 's' type: 'SPP' spp_param { pyramid_height: 1 }", CAFFE__PHASE__TEST);
    g_autoptr (GPtrArray) top1 = ct_test_empty_blobs (1);

    ct_test_setup_ok (one, bottom, top1);
    ct_test_assert_shape (CT_TOP (top1, 0), 4, 2, 3, 1, 1);
  }
}

static void
test_spp_gradient (void)
{
  ct_test_check_gradient ("name: 's' type: 'SPP' spp_param { pyramid_height: 3 pool: MAX }",
                  CAFFE__PHASE__TEST, ct_test_blobs (distinct (52, 4, 2, 2, 9, 8), NULL), 1, -1,
                  1e-4f, 1e-2f);
  ct_test_check_gradient ("name: 's' type: 'SPP' spp_param { pyramid_height: 2 pool: AVE }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (53, 4, 2, 2, 5, 6), NULL), 1, -1,
                  1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 's' type: 'SPP' spp_param { pyramid_height: 1 pool: AVE }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (54, 4, 2, 2, 3, 4), NULL), 1, -1,
                  1e-2f, 1e-3f);
}

static void
test_spp_errors (void)
{
  ct_test_assert_setup_fails ("name: 'bad' type: 'SPP' spp_param { pool: MAX }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "pyramid_height");
  /* 5 rows in 4 bins: kernel 2 with padding 2, which pooling refuses. */
  ct_test_assert_setup_fails ("name: 'bad' type: 'SPP' spp_param { pyramid_height: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 8), NULL), 1, "pyramid level 2");
  ct_test_assert_setup_fails ("name: 'bad' type: 'SPP' spp_param { pyramid_height: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 2, 1, 8), NULL), 1, "4 axes");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/vision/pooling/by-hand", test_pool_by_hand);
  g_test_add_func ("/engine/layers/vision/pooling/sizes", test_pool_sizes);
  g_test_add_func ("/engine/layers/vision/pooling/gradient", test_pool_gradient);
  g_test_add_func ("/engine/layers/vision/pooling/stochastic", test_pool_stochastic);
  g_test_add_func ("/engine/layers/vision/pooling/errors", test_pool_errors);
  g_test_add_func ("/engine/layers/vision/spp/forward", test_spp_forward);
  g_test_add_func ("/engine/layers/vision/spp/gradient", test_spp_gradient);
  g_test_add_func ("/engine/layers/vision/spp/errors", test_spp_errors);
  return g_test_run ();
}
