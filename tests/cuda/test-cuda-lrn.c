/* test-cuda-lrn.c: every function of lrn.h on the GPU against its CPU twin:
 * ACROSS_CHANNELS with windows wider than the channels, size 1, beta 0.75
 * (the CPU's fast path) and others, k; WITHIN_CHANNEL with windows wider
 * than the plane and odd sizes. Scales, tops and bottom diffs to 1e-5. */
#include <glib.h>
#include <math.h>

#include "cuda-test-util.h"
#include "device.h"
#include "lrn.h"

#define TOL 1e-5

typedef struct {
  int64_t a, b, c; /* num, channels, spatial (ACROSS) or planes, height, width (WITHIN) */
  int64_t size;
  float alpha, beta, k;
} Case;

static void
check (const Case *t, gboolean within)
{
  int64_t n = t->a * t->b * t->c;
  int64_t scratch_n = within ? n : t->c;
  g_autofree float *x = ct_cuda_test_random (n, -2, 2, 400 + n + t->size);
  g_autofree float *dy = ct_cuda_test_random (n, -1, 1, 401 + n);
  g_autofree float *scale = g_new (float, n), *y = g_new (float, n), *dx = g_new (float, n);
  g_autofree float *scratch = g_new (float, scratch_n);
  g_autofree char *what = g_strdup_printf ("lrn %s %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%"
                                           G_GINT64_FORMAT " size %" G_GINT64_FORMAT
                                           " beta %g", within ? "within" : "across", t->a,
                                           t->b, t->c, t->size, t->beta);
  float *gx = ct_cuda_test_upload (x, n), *gdy = ct_cuda_test_upload (dy, n);
  float *gscale = ct_cuda_test_device_zeros (n), *gy = ct_cuda_test_device_zeros (n);
  float *gdx = ct_cuda_test_device_zeros (n), *gscratch = ct_cuda_test_device_zeros (scratch_n);

  if (within)
    {
      g_assert_cmpint (ct_cpu_lrn_within_forward (t->a, t->b, t->c, t->size, t->alpha, t->beta,
                                                  x, scale, y), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_lrn_within_forward (t->a, t->b, t->c, t->size, t->alpha,
                                                   t->beta, gx, gscale, gy), ==, CT_STATUS_OK);
    }
  else
    {
      g_assert_cmpint (ct_cpu_lrn_across_forward (t->a, t->b, t->c, t->size, t->alpha, t->beta,
                                                  t->k, x, scale, y), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_lrn_across_forward (t->a, t->b, t->c, t->size, t->alpha,
                                                   t->beta, t->k, gx, gscale, gy), ==,
                       CT_STATUS_OK);
    }
  ct_cuda_test_assert_close (what, gscale, scale, n, TOL);
  ct_cuda_test_assert_close (what, gy, y, n, TOL);

  /* The backward from the CPU's forward on both sides. */
  ct_cuda_test_free (gscale);
  ct_cuda_test_free (gy);
  gscale = ct_cuda_test_upload (scale, n);
  gy = ct_cuda_test_upload (y, n);
  if (within)
    {
      g_assert_cmpint (ct_cpu_lrn_within_backward (t->a, t->b, t->c, t->size, t->alpha,
                                                   t->beta, x, scale, dy, scratch, dx), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_lrn_within_backward (t->a, t->b, t->c, t->size, t->alpha,
                                                    t->beta, gx, gscale, gdy, gscratch, gdx),
                       ==, CT_STATUS_OK);
    }
  else
    {
      g_assert_cmpint (ct_cpu_lrn_across_backward (t->a, t->b, t->c, t->size, t->alpha,
                                                   t->beta, x, y, scale, dy, scratch, dx), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_lrn_across_backward (t->a, t->b, t->c, t->size, t->alpha,
                                                    t->beta, gx, gy, gscale, gdy, gscratch,
                                                    gdx), ==, CT_STATUS_OK);
    }
  ct_cuda_test_assert_close (what, gdx, dx, n, TOL);

  ct_cuda_test_free (gx);
  ct_cuda_test_free (gdy);
  ct_cuda_test_free (gscale);
  ct_cuda_test_free (gy);
  ct_cuda_test_free (gdx);
  ct_cuda_test_free (gscratch);
}

static void
test_across (void)
{
  static const Case cases[] = {
    { 2, 7, 13, 5, 1.0f, 0.75f, 1.0f },
    { 3, 16, 55 * 55, 5, 1e-4f, 0.75f, 2.0f },  /* AlexNet's norm1, three images */
    { 1, 3, 1, 5, 0.5f, 0.75f, 1.0f },          /* window wider than the channels */
    { 2, 4, 9, 1, 2.0f, 0.75f, 1.0f },          /* size 1 */
    { 2, 9, 17, 3, 0.5f, 1.5f, 2.0f },          /* another beta, k */
    { 1, 11, 300, 9, 3.0f, 0.6f, 1.0f },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check (&cases[i], FALSE);
}

static void
test_within (void)
{
  static const Case cases[] = {
    { 4, 7, 9, 3, 1.0f, 0.75f, 0 },
    { 2, 5, 5, 5, 0.5f, 0.75f, 0 },
    { 3, 1, 1, 3, 1.0f, 0.75f, 0 },   /* one pixel */
    { 2, 4, 3, 7, 2.0f, 1.3f, 0 },    /* window wider than the plane */
    { 6, 13, 12, 5, 0.1f, 0.5f, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check (&cases[i], TRUE);
}

static void
test_invalid (void)
{
  g_assert_cmpint (ct_cuda_lrn_across_forward (1, 3, 4, 4, 1, 0.75f, 1, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_lrn_within_forward (-1, 3, 4, 3, 1, 0.75f, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_lrn_within_backward (1, 3, 4, 0, 1, 0.75f, NULL, NULL, NULL, NULL,
                                                NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_lrn_across_backward (0, 3, 4, 3, 1, 0.75f, NULL, NULL, NULL, NULL,
                                                NULL, NULL), ==, CT_STATUS_OK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/lrn/across", test_across);
  g_test_add_func ("/cuda/lrn/within", test_within);
  g_test_add_func ("/cuda/lrn/invalid", test_invalid);
  return g_test_run ();
}
