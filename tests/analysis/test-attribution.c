#define _GNU_SOURCE
/* test-attribution.c: saliency against a finite-difference gradient of the
 * score, Grad-CAM on a net whose answer is worked out by hand, occlusion on
 * an image whose informative region is known, and the exports. */
#include <math.h>
#include <string.h>

#include "analysis-test-util.h"
#include "attribution-export.h"
#include "grad-cam.h"
#include "occlusion.h"
#include "saliency.h"
#include "test-files.h"

/* A smooth net (TanH, average pooling, softmax), so that central
 * differences converge. */
static const char *smooth_net =
  "force_backward: true\n"
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 2 dim: 5 dim: 5 } } }\n"
  "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv'\n"
  "  convolution_param { num_output: 3 kernel_size: 3\n"
  "    weight_filler { type: 'gaussian' std: 0.5 } bias_filler { type: 'gaussian' std: 0.1 } } }\n"
  "layer { name: 'tanh' type: 'TanH' bottom: 'conv' top: 'conv' }\n"
  "layer { name: 'pool' type: 'Pooling' bottom: 'conv' top: 'pool'\n"
  "  pooling_param { pool: AVE kernel_size: 2 stride: 1 } }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'pool' top: 'score'\n"
  "  inner_product_param { num_output: 4\n"
  "    weight_filler { type: 'gaussian' std: 0.5 } bias_filler { type: 'gaussian' std: 0.1 } } }\n"
  "layer { name: 'prob' type: 'Softmax' bottom: 'score' top: 'prob' }\n";

static float
score_of (CtNet *net, const CtClassifier *c, const CtAnalysisPath *path, const float *image,
          guint klass)
{
  float *input = ct_analysis_path_batch (path, net, 1, NULL);
  const float *scores;
  guint k = 0;

  memcpy (input, image, sizeof (float) * 50);
  g_assert_true (ct_analysis_path_forward (path, net, NULL));
  scores = ct_analysis_path_scores (path, net, c, &k, NULL);
  g_assert_cmpuint (k, ==, 4);
  return scores[klass];
}

static void
check_saliency (const char *score_name)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (smooth_net);
  g_autoptr (GError) error = NULL;
  CtClassifier c;
  CtAnalysisPath path;
  float image[50];
  const float eps = 1e-2f;

  g_assert_true (ct_classifier_find (net, score_name, &c, &error));
  g_assert_true (ct_analysis_path_init (&path, net, &c, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (path.first_layer, ==, 1);
  for (guint i = 0; i < 50; i++)
    image[i] = sinf (0.7f * i) * 0.8f;
  for (guint klass = 0; klass < 4; klass++)
    {
      float score = 0.0f;
      g_autofree float *gradient = ct_saliency_gradient (net, &c, &path, image, klass, &score,
                                                         &error);
      double max_abs = 0.0;

      g_assert_no_error (error);
      g_assert_cmpfloat_with_epsilon (score, score_of (net, &c, &path, image, klass), 1e-6);
      for (guint i = 0; i < 50; i++)
        max_abs = MAX (max_abs, fabs (gradient[i]));
      g_assert_cmpfloat (max_abs, >, 1e-3);
      for (guint i = 0; i < 50; i++)
        {
          float saved = image[i];
          double up, down, numeric;

          image[i] = saved + eps;
          up = score_of (net, &c, &path, image, klass);
          image[i] = saved - eps;
          down = score_of (net, &c, &path, image, klass);
          image[i] = saved;
          numeric = (up - down) / (2.0 * eps);
          if (fabs (numeric - gradient[i]) > 1e-3 * max_abs)
            g_error ("class %u, input %u: backward %g, finite differences %g", klass, i,
                     (double) gradient[i], numeric);
        }
    }
}

static void
test_saliency_probability (void)
{
  check_saliency (NULL); /* the Softmax's output */
}

static void
test_saliency_score (void)
{
  check_saliency ("score");
}

static void
test_saliency_map (void)
{
  const float gradient[] = { 1, -3, 0, 2, /* channel 1 */ -2, 1, 0.5f, -4 };
  g_autofree float *map = ct_saliency_map (gradient, 2, 2, 2);

  g_assert_cmpfloat (map[0], ==, 2);
  g_assert_cmpfloat (map[1], ==, 3);
  g_assert_cmpfloat (map[2], ==, 0.5f);
  g_assert_cmpfloat (map[3], ==, 4);
}

/* A net that does not carry a gradient to its input says so. */
static void
test_saliency_no_gradient (void)
{
  g_autofree char *text = g_strdup (smooth_net + strlen ("force_backward: true\n"));
  g_autoptr (CtNet) net = ct_test_analysis_net (text);
  g_autoptr (GError) error = NULL;
  g_autofree float *gradient = NULL;
  float image[50] = { 0 };
  CtClassifier c;
  CtAnalysisPath path;

  g_assert_true (ct_classifier_find (net, NULL, &c, &error));
  g_assert_true (ct_analysis_path_init (&path, net, &c, NULL, &error));
  gradient = ct_saliency_gradient (net, &c, &path, image, 0, NULL, &error);
  g_assert_null (gradient);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "force_backward"));
}

/* conv makes A0 = x and A1 = −x; class 0 sums A0 (α = 1, 0), class 1
 * sums 2·A1 (α = 0, 2). So class 0's map is ReLU(x), class 1's
 * ReLU(−2x). */
static const char *cam_net =
  "force_backward: true\n"
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 2 dim: 2 } } }\n"
  "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv'\n"
  "  convolution_param { num_output: 2 kernel_size: 1 } }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'conv' top: 'score'\n"
  "  inner_product_param { num_output: 2 } }\n";

static void
test_grad_cam (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (cam_net);
  g_autoptr (GError) error = NULL;
  const float conv_w[] = { 1, -1 }, conv_b[] = { 0, 0 };
  const float ip_w[] = { 1, 1, 1, 1, 0, 0, 0, 0, /* class 1 */ 0, 0, 0, 0, 2, 2, 2, 2 };
  const float ip_b[] = { 0, 0 };
  const float image[] = { 1, -2, 3, 0 };
  const float want0[] = { 1, 0, 3, 0 }, want1[] = { 0, 4, 0, 0 };
  CtClassifier c;
  CtAnalysisPath path;

  ct_test_set_param (net, "conv", 0, conv_w, 2);
  ct_test_set_param (net, "conv", 1, conv_b, 2);
  ct_test_set_param (net, "ip", 0, ip_w, 16);
  ct_test_set_param (net, "ip", 1, ip_b, 2);
  g_assert_true (ct_classifier_find (net, "score", &c, &error));
  g_assert_true (ct_analysis_path_init (&path, net, &c, NULL, &error));
  for (guint klass = 0; klass < 2; klass++)
    {
      g_autoptr (CtGradCam) cam = ct_grad_cam_compute (net, &c, &path, image, klass, "conv",
                                                       &error);
      const float *want = klass == 0 ? want0 : want1;

      g_assert_no_error (error);
      g_assert_cmpuint (cam->channels, ==, 2);
      g_assert_cmpfloat_with_epsilon (cam->weights[0], klass == 0 ? 1.0f : 0.0f, 1e-6);
      g_assert_cmpfloat_with_epsilon (cam->weights[1], klass == 0 ? 0.0f : 2.0f, 1e-6);
      g_assert_cmpfloat_with_epsilon (cam->score, klass == 0 ? 2.0f : -4.0f, 1e-5);
      for (guint i = 0; i < 4; i++)
        {
          g_assert_cmpfloat_with_epsilon (cam->cam[i], want[i], 1e-5);
          g_assert_cmpfloat_with_epsilon (cam->image_cam[i], want[i], 1e-5);
        }
    }
  {
    g_autoptr (CtGradCam) cam = ct_grad_cam_compute (net, &c, &path, image, 0, "ip", &error);

    g_assert_null (cam);
    g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT);
  }
}

static void
test_resize (void)
{
  const float src[] = { 0, 1, 2, 3 };
  g_autofree float *same = ct_resize_bilinear (src, 2, 2, 2, 2);
  g_autofree float *big = ct_resize_bilinear (src, 2, 2, 4, 4);

  g_assert_cmpmem (same, sizeof (src), src, sizeof (src));
  /* corners keep their values; the middle is the mean */
  g_assert_cmpfloat (big[0], ==, 0);
  g_assert_cmpfloat (big[15], ==, 3);
  g_assert_cmpfloat_with_epsilon (big[1], 0.25f, 1e-6);
  g_assert_cmpfloat_with_epsilon ((big[5] + big[6] + big[9] + big[10]) / 4, 1.5f, 1e-6);
}

/* Class 0's score sums the 2×2 top-left corner of a 6×6 image of ones;
 * a 2×2 patch of zeros at (y, x) takes away the pixels it shares with
 * that corner. */
static const char *corner_net =
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 6 dim: 6 } } }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'score'\n"
  "  inner_product_param { num_output: 2 } }\n";

static gboolean
count_calls (double fraction, gpointer user_data)
{
  double *last = user_data;

  g_assert_cmpfloat (fraction, >, *last);
  *last = fraction;
  return TRUE;
}

static gboolean
cancel_now (double fraction, gpointer user_data)
{
  return FALSE;
}

static void
test_occlusion (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (corner_net);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtOcclusion) o = NULL;
  float w[72] = { 0 }, b[2] = { 0, 0 }, image[36];
  CtOcclusionParams params = { .patch = 2, .stride = 1, .fill = 0.0f, .batch = 4 };
  CtClassifier c;
  CtAnalysisPath path;
  double last = 0.0;

  w[0] = w[1] = w[6] = w[7] = 1.0f;
  for (guint i = 0; i < 36; i++)
    {
      image[i] = 1.0f;
      w[36 + i] = 0.5f; /* class 1 sees everything */
    }
  ct_test_set_param (net, "ip", 0, w, 72);
  ct_test_set_param (net, "ip", 1, b, 2);
  g_assert_true (ct_classifier_find (net, "score", &c, &error));
  g_assert_true (ct_analysis_path_init (&path, net, &c, NULL, &error));
  o = ct_occlusion_compute (net, &c, &path, image, 0, &params, count_calls, &last, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (last, ==, 1.0);
  g_assert_cmpfloat (o->baseline, ==, 4.0f);
  g_assert_cmpuint (o->grid_height, ==, 5);
  g_assert_cmpuint (o->grid_width, ==, 5);
  for (guint y = 0; y < 5; y++)
    for (guint x = 0; x < 5; x++)
      {
        float overlap = (float) (MAX (0, 2 - (int) y) * MAX (0, 2 - (int) x));

        g_assert_cmpfloat_with_epsilon (o->grid[y * 5 + x], MIN (overlap, 4.0f), 1e-6);
      }
  /* pixel (0, 0): only place (0, 0) covers it; (1, 1): places (0..1, 0..1),
   * drops 4 2 2 1; (5, 5): only place (4, 4), drop 0 */
  g_assert_cmpfloat_with_epsilon (o->image_map[0], 4.0f, 1e-6);
  g_assert_cmpfloat_with_epsilon (o->image_map[7], 9.0f / 4.0f, 1e-6);
  g_assert_cmpfloat_with_epsilon (o->image_map[35], 0.0f, 1e-6);
  g_clear_pointer (&o, ct_occlusion_free);

  o = ct_occlusion_compute (net, &c, &path, image, 0, &params, cancel_now, NULL, &error);
  g_assert_null (o);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_CANCELLED);
  g_clear_error (&error);
  params.patch = 7;
  o = ct_occlusion_compute (net, &c, &path, image, 0, &params, NULL, NULL, &error);
  g_assert_null (o);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT);
}

static void
test_exports (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-attribution-XXXXXX");
  g_autofree char *png = g_build_filename (dir, "map.png", NULL);
  g_autofree char *npy = g_build_filename (dir, "map.npy", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *bytes = NULL;
  g_autofree guint32 *pixels = NULL;
  const float image[] = { 0, 1, 0, 1, 0, 1 };
  const float map[] = { -1, 0, 1, 0, 0, 0 };
  gsize length = 0;

  /* opacity 0: the image alone, stretched to black and white */
  pixels = ct_attribution_pixels (image, 1, 2, 3, map, 0.0, 2);
  g_assert_cmphex (pixels[0], ==, 0xff000000);
  g_assert_cmphex (pixels[2], ==, 0xffffffff);
  g_assert_cmphex (pixels[6], ==, 0xff000000); /* row 1 of the scaled pixel (0, 0) */
  g_clear_pointer (&pixels, g_free);
  /* opacity 1: the map alone; signed, so blue, white, red */
  pixels = ct_attribution_pixels (image, 1, 2, 3, map, 1.0, 1);
  g_assert_cmpuint (pixels[0] & 0xff, >, (pixels[0] >> 16) & 0xff);
  g_assert_cmpuint ((pixels[2] >> 16) & 0xff, >, pixels[2] & 0xff);
  g_assert_true (ct_attribution_save_png (png, image, 1, 2, 3, map, 0.5, 4, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (png, &bytes, &length, NULL));
  g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);
  g_clear_pointer (&bytes, g_free);
  g_assert_true (ct_attribution_save_npy (npy, map, 2, 3, &error));
  g_assert_true (g_file_get_contents (npy, &bytes, &length, NULL));
  g_assert_cmpuint (length, ==, 128 + sizeof map);
  g_assert_nonnull (memmem (bytes, 128, "'shape': (2, 3)", 15));
  g_assert_cmpmem (bytes + 128, sizeof map, map, sizeof map);
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/saliency/probability", test_saliency_probability);
  g_test_add_func ("/analysis/saliency/score", test_saliency_score);
  g_test_add_func ("/analysis/saliency/map", test_saliency_map);
  g_test_add_func ("/analysis/saliency/no-gradient", test_saliency_no_gradient);
  g_test_add_func ("/analysis/grad-cam/known", test_grad_cam);
  g_test_add_func ("/analysis/grad-cam/resize", test_resize);
  g_test_add_func ("/analysis/occlusion/corner", test_occlusion);
  g_test_add_func ("/analysis/attribution/exports", test_exports);
  return g_test_run ();
}
