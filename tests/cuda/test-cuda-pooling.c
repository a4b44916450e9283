/* test-cuda-pooling.c: every function of pooling.h on the GPU against its
 * CPU twin, over geometries with padding, odd sizes, overlapping and gapped
 * windows, global pooling and single pixels. MAX winners (int and float
 * masks) and STOCHASTIC samples must be equal exactly, ties and windows
 * without a winner included; values to 1e-5. Backward passes start from a
 * random bottom diff, since they add to it. */
#include <float.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "pooling.h"

#define TOL 1e-5

/* Caffe's pooled size (rounded up; with padding, one less when the last
 * window would start in the padding). */
static int64_t
pooled (int64_t in, int64_t kernel, int64_t stride, int64_t pad)
{
  int64_t p = (in + 2 * pad - kernel + stride - 1) / stride + 1;

  if (pad > 0 && (p - 1) * stride >= in + pad)
    p--;
  return p;
}

static CtPoolGeometry
geometry (int64_t planes, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
          int64_t ph, int64_t pw)
{
  CtPoolGeometry g = {
    .planes = planes, .height = h, .width = w,
    .pooled_height = pooled (h, kh, sh, ph), .pooled_width = pooled (w, kw, sw, pw),
    .kernel_h = kh, .kernel_w = kw, .stride_h = sh, .stride_w = sw, .pad_h = ph, .pad_w = pw,
  };
  return g;
}

static const CtPoolGeometry *
geometries (guint *n)
{
  static CtPoolGeometry g[9];

  g[0] = geometry (6, 7, 9, 3, 3, 2, 2, 1, 1);      /* padded, odd */
  g[1] = geometry (5, 13, 11, 3, 2, 2, 3, 0, 0);    /* rectangular kernel and stride */
  g[2] = geometry (4, 8, 8, 2, 2, 2, 2, 0, 0);      /* LeNet's */
  g[3] = geometry (7, 6, 5, 6, 5, 1, 1, 0, 0);      /* global */
  g[4] = geometry (3, 15, 17, 5, 4, 1, 1, 2, 1);    /* stride 1, heavy overlap */
  g[5] = geometry (2, 1, 1, 1, 1, 1, 1, 0, 0);      /* one pixel */
  g[6] = geometry (192, 27, 27, 3, 3, 2, 2, 0, 0);  /* AlexNet's, many planes */
  g[7] = geometry (3, 10, 9, 2, 3, 3, 4, 0, 0);     /* gaps between windows */
  g[8] = geometry (4, 9, 9, 4, 4, 3, 3, 3, 3);      /* pad near the kernel */
  *n = G_N_ELEMENTS (g);
  return g;
}

static int64_t
in_count (const CtPoolGeometry *g)
{
  return g->planes * g->height * g->width;
}

static int64_t
out_count (const CtPoolGeometry *g)
{
  return g->planes * g->pooled_height * g->pooled_width;
}

static char *
describe (const char *what, const CtPoolGeometry *g)
{
  return g_strdup_printf ("%s %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                          " k%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " s%" G_GINT64_FORMAT
                          "x%" G_GINT64_FORMAT " p%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT,
                          what, g->planes, g->height, g->width, g->kernel_h, g->kernel_w,
                          g->stride_h, g->stride_w, g->pad_h, g->pad_w);
}

static void
assert_ints_equal (const char *what, const int32_t *device, const int32_t *cpu, int64_t n)
{
  g_autofree int32_t *gpu = g_new (int32_t, MAX (n, 1));

  g_assert_cmpint (ct_cuda_memcpy (gpu, device, (size_t) n * sizeof (int32_t),
                                   CT_MEMCPY_DEVICE_TO_HOST), ==, CT_STATUS_OK);
  for (int64_t i = 0; i < n; i++)
    if (gpu[i] != cpu[i])
      g_error ("%s: winner %" G_GINT64_FORMAT " is %d on the GPU, %d on the CPU", what, i,
               gpu[i], cpu[i]);
}

/* Values on a coarse grid, so that many windows hold ties. */
static float *
tied_inputs (int64_t n, guint64 seed)
{
  float *x = ct_cuda_test_random (n, -1, 1, seed);

  for (int64_t i = 0; i < n; i++)
    x[i] = floorf (x[i] * 3.0f) / 3.0f;
  return x;
}

static void
check_max (const CtPoolGeometry *g, float *x)
{
  int64_t ni = in_count (g), no = out_count (g);
  g_autofree float *top = g_new (float, MAX (no, 1)), *top_mask = g_new (float, MAX (no, 1));
  g_autofree int32_t *mask = g_new (int32_t, MAX (no, 1));
  g_autofree float *dy = ct_cuda_test_random (no, -1, 1, 52);
  g_autofree float *dx = ct_cuda_test_random (ni, -1, 1, 53);
  g_autofree float *dx2 = g_memdup2 (dx, (gsize) ni * sizeof (float));
  g_autofree char *what = describe ("max", g);
  float *gx = ct_cuda_test_upload (x, ni), *gdy = ct_cuda_test_upload (dy, no);
  float *gtop = ct_cuda_test_device_zeros (no), *gtop_mask = ct_cuda_test_device_zeros (no);
  float *gdx = ct_cuda_test_upload (dx, ni), *gdx2 = ct_cuda_test_upload (dx, ni);
  int32_t *gmask = (int32_t *) ct_cuda_test_device_zeros (no);

  g_assert_cmpint (ct_cpu_max_pool_forward (g, x, top, mask, top_mask), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_max_pool_forward (g, gx, gtop, gmask, gtop_mask), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gtop, top, no, 0);
  ct_cuda_test_assert_close (what, gtop_mask, top_mask, no, 0);
  assert_ints_equal (what, gmask, mask, no);

  /* Backward through the int mask, then through the float one. */
  g_assert_cmpint (ct_cpu_max_pool_backward (g, dy, mask, NULL, dx), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_max_pool_backward (g, gdy, gmask, NULL, gdx), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gdx, dx, ni, TOL);
  g_assert_cmpint (ct_cpu_max_pool_backward (g, dy, NULL, top_mask, dx2), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_max_pool_backward (g, gdy, NULL, gtop_mask, gdx2), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gdx2, dx2, ni, TOL);

  ct_cuda_test_free (gx);
  ct_cuda_test_free (gdy);
  ct_cuda_test_free (gtop);
  ct_cuda_test_free (gtop_mask);
  ct_cuda_test_free (gdx);
  ct_cuda_test_free (gdx2);
  ct_cuda_test_free ((float *) gmask);
}

static void
test_max (void)
{
  guint n;
  const CtPoolGeometry *g = geometries (&n);

  for (guint i = 0; i < n; i++)
    {
      g_autofree float *x = ct_cuda_test_random (in_count (&g[i]), -1, 1, 50 + i);
      g_autofree float *tied = tied_inputs (in_count (&g[i]), 60 + i);

      check_max (&g[i], x);
      check_max (&g[i], tied);
    }
}

/* NaN never wins; a window of NaNs and -inf only has no winner (-FLT_MAX,
 * -1); -FLT_MAX itself never beats the start. */
static void
test_max_special_values (void)
{
  CtPoolGeometry g = geometry (2, 4, 4, 2, 2, 2, 2, 0, 0);
  float x[32];

  for (int i = 0; i < 32; i++)
    x[i] = (float) (i % 5) - 2.0f;
  x[0] = x[1] = x[4] = x[5] = NAN;         /* plane 0, window (0, 0): NaNs */
  x[2] = NAN, x[3] = 1.0f, x[6] = 1.0f;    /* window (0, 1): a NaN first, then a tie */
  x[8] = x[9] = -INFINITY;                 /* window (1, 0): -inf and NaN */
  x[12] = x[13] = NAN;
  x[16] = x[17] = x[20] = x[21] = -FLT_MAX; /* plane 1, window (0, 0) */
  check_max (&g, x);
}

/* A float mask edited by the caller: winners outside their window, in
 * other rows, fractions, NaN, out of the plane. The GPU adds them all as
 * the CPU does. */
static void
test_max_edited_mask (void)
{
  CtPoolGeometry g = geometry (3, 7, 6, 3, 2, 2, 2, 1, 0);
  int64_t ni = in_count (&g), no = out_count (&g), plane = g.height * g.width;
  g_autofree float *top_mask = ct_cuda_test_random (no, -3, (float) plane + 3, 70);
  g_autofree float *dy = ct_cuda_test_random (no, -1, 1, 71);
  g_autofree float *dx = ct_cuda_test_random (ni, -1, 1, 72);
  float *gmask, *gdy = ct_cuda_test_upload (dy, no), *gdx = ct_cuda_test_upload (dx, ni);

  top_mask[0] = NAN;
  top_mask[1] = -0.5f; /* truncates to 0 */
  top_mask[2] = (float) plane - 0.25f;
  gmask = ct_cuda_test_upload (top_mask, no);
  g_assert_cmpint (ct_cpu_max_pool_backward (&g, dy, NULL, top_mask, dx), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_max_pool_backward (&g, gdy, NULL, gmask, gdx), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close ("max backward, edited mask", gdx, dx, ni, TOL);
  ct_cuda_test_free (gmask);
  ct_cuda_test_free (gdy);
  ct_cuda_test_free (gdx);
}

static void
test_ave (void)
{
  guint n;
  const CtPoolGeometry *gs = geometries (&n);

  for (guint i = 0; i < n; i++)
    {
      const CtPoolGeometry *g = &gs[i];
      int64_t ni = in_count (g), no = out_count (g);
      g_autofree float *x = ct_cuda_test_random (ni, -1, 1, 80 + i);
      g_autofree float *top = g_new (float, no);
      g_autofree float *dy = ct_cuda_test_random (no, -1, 1, 90 + i);
      g_autofree float *dx = ct_cuda_test_random (ni, -1, 1, 100 + i);
      g_autofree char *what = describe ("ave", g);
      float *gx = ct_cuda_test_upload (x, ni), *gtop = ct_cuda_test_device_zeros (no);
      float *gdy = ct_cuda_test_upload (dy, no), *gdx = ct_cuda_test_upload (dx, ni);

      g_assert_cmpint (ct_cpu_ave_pool_forward (g, x, top), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_ave_pool_forward (g, gx, gtop), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, gtop, top, no, TOL);
      g_assert_cmpint (ct_cpu_ave_pool_backward (g, dy, dx), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_ave_pool_backward (g, gdy, gdx), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, gdx, dx, ni, TOL);
      ct_cuda_test_free (gx);
      ct_cuda_test_free (gtop);
      ct_cuda_test_free (gdy);
      ct_cuda_test_free (gdx);
    }
}

static void
check_stochastic (const CtPoolGeometry *g, guint64 seed)
{
  int64_t ni = in_count (g), no = out_count (g);
  g_autofree float *x = ct_cuda_test_random (ni, 0, 1, seed);
  g_autofree float *u = ct_cuda_test_random (no, 0, 1, seed + 1);
  g_autofree float *dy = ct_cuda_test_random (no, -1, 1, seed + 2);
  g_autofree float *dx = ct_cuda_test_random (ni, -1, 1, seed + 3);
  g_autofree float *dx2 = g_memdup2 (dx, (gsize) ni * sizeof (float));
  g_autofree float *top = g_new (float, no), *test_top = g_new (float, no);
  g_autofree int32_t *index = g_new (int32_t, no);
  g_autofree char *what = describe ("stochastic", g);
  float *gx, *gu, *gdy, *gdx, *gdx2, *gtop, *gtest_top;
  int32_t *gindex;

  /* Draws at the ends, zeros in the input: the running sum's edges. */
  u[0] = 0.0f;
  if (no > 1)
    u[1] = 1.0f;
  for (int64_t i = 0; i < ni; i += 7)
    x[i] = 0.0f;
  gx = ct_cuda_test_upload (x, ni);
  gu = ct_cuda_test_upload (u, no);
  gdy = ct_cuda_test_upload (dy, no);
  gdx = ct_cuda_test_upload (dx, ni);
  gdx2 = ct_cuda_test_upload (dx, ni);
  gtop = ct_cuda_test_device_zeros (no);
  gtest_top = ct_cuda_test_device_zeros (no);
  gindex = (int32_t *) ct_cuda_test_device_zeros (no);

  g_assert_cmpint (ct_cpu_stochastic_pool_forward_train (g, x, u, top, index), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_stochastic_pool_forward_train (g, gx, gu, gtop, gindex), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gtop, top, no, 0);
  assert_ints_equal (what, gindex, index, no);
  g_assert_cmpint (ct_cpu_stochastic_pool_backward_train (g, dy, index, dx), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_stochastic_pool_backward_train (g, gdy, gindex, gdx), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gdx, dx, ni, TOL);

  g_assert_cmpint (ct_cpu_stochastic_pool_forward_test (g, x, test_top), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_stochastic_pool_forward_test (g, gx, gtest_top), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gtest_top, test_top, no, TOL);
  /* The backward from the CPU's top on both sides. */
  ct_cuda_test_free (gtest_top);
  gtest_top = ct_cuda_test_upload (test_top, no);
  g_assert_cmpint (ct_cpu_stochastic_pool_backward_test (g, x, test_top, dy, dx2), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_stochastic_pool_backward_test (g, gx, gtest_top, gdy, gdx2), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gdx2, dx2, ni, TOL);

  ct_cuda_test_free (gx);
  ct_cuda_test_free (gu);
  ct_cuda_test_free (gdy);
  ct_cuda_test_free (gdx);
  ct_cuda_test_free (gdx2);
  ct_cuda_test_free (gtop);
  ct_cuda_test_free (gtest_top);
  ct_cuda_test_free ((float *) gindex);
}

static void
test_stochastic (void)
{
  guint n;
  const CtPoolGeometry *g = geometries (&n);

  for (guint i = 0; i < n; i++)
    {
      /* STOCHASTIC has no padding: the same windows without it. */
      CtPoolGeometry unpadded = geometry (g[i].planes, g[i].height, g[i].width, g[i].kernel_h,
                                          g[i].kernel_w, g[i].stride_h, g[i].stride_w, 0, 0);
      check_stochastic (&unpadded, 110 + 10 * i);
    }
  /* Windows that lie wholly beyond the image (kernel 1, stride 3 over 5
   * rows rounds up to a third row at 6): the CPU takes the last pixel,
   * outside the window, and the GPU's backward must find it too. */
  {
    CtPoolGeometry beyond = geometry (3, 5, 5, 1, 1, 3, 3, 0, 0);

    g_assert_cmpint (beyond.pooled_height, ==, 3);
    check_stochastic (&beyond, 300);
  }
}

static void
test_invalid (void)
{
  CtPoolGeometry g = geometry (1, 4, 4, 2, 2, 2, 2, 0, 0);
  CtPoolGeometry bad = g;

  bad.kernel_h = 0;
  g_assert_cmpint (ct_cuda_max_pool_forward (&bad, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  bad = g;
  bad.pad_w = -1;
  g_assert_cmpint (ct_cuda_ave_pool_forward (&bad, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_max_pool_backward (&g, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_ave_pool_backward (NULL, NULL, NULL), ==, CT_STATUS_INVALID);
  /* No planes: nothing to do. */
  bad = g;
  bad.planes = 0;
  g_assert_cmpint (ct_cuda_stochastic_pool_forward_test (&bad, NULL, NULL), ==, CT_STATUS_OK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/pooling/max", test_max);
  g_test_add_func ("/cuda/pooling/max-special-values", test_max_special_values);
  g_test_add_func ("/cuda/pooling/max-edited-mask", test_max_edited_mask);
  g_test_add_func ("/cuda/pooling/ave", test_ave);
  g_test_add_func ("/cuda/pooling/stochastic", test_stochastic);
  g_test_add_func ("/cuda/pooling/invalid", test_invalid);
  return g_test_run ();
}
