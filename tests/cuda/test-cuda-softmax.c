/* test-cuda-softmax.c: softmax.h's CUDA twins against the CPU on random
 * scores over many shapes: a classifier (INNER 1, both the thread-per-
 * position and the block-per-position paths), spatial softmaxes (INNER >
 * 1), one channel, empty blobs, large scores that need the maximum taken
 * out, in place and apart, and repeated runs that must agree bit for bit. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "softmax.h"

#define TOL 1e-5

typedef struct {
  int64_t outer, channels, inner;
} Shape;

static const Shape shapes[] = {
  { 2, 10, 1 },     /* LeNet's classifier: a thread per position */
  { 64, 10, 1 },
  { 3, 1000, 1 },   /* ImageNet's: a block per position */
  { 5, 64, 31 },    /* the smallest block-per-position shape, spatial */
  { 2, 300, 5 },
  { 2, 5, 49 },     /* spatial, a thread per position */
  { 4, 21, 37 },    /* segmentation-like */
  { 1, 63, 1 },     /* the largest thread-per-position classifier */
  { 3, 1, 4 },      /* one channel: all ones, zero gradient */
  { 1, 4097, 2 },   /* more channels than a block has threads */
};

static void
check_shape (Shape s, float lo, float hi, guint64 seed)
{
  const int64_t n = s.outer * s.channels * s.inner;
  g_autofree float *x = ct_cuda_test_random (n, lo, hi, seed);
  g_autofree float *dy = ct_cuda_test_random (n, -1, 1, seed + 1);
  g_autofree float *y = g_new0 (float, n);
  g_autofree float *dx = g_new0 (float, n);
  g_autofree float *scratch = g_new (float, s.inner);
  g_autofree char *what = g_strdup_printf ("softmax %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                                           " x %" G_GINT64_FORMAT " in [%g, %g)",
                                           s.outer, s.channels, s.inner, lo, hi);
  g_autofree char *what_back = g_strconcat (what, " backward", NULL);
  g_autofree char *what_in = g_strconcat (what, " in place", NULL);
  g_autofree char *what_back_in = g_strconcat (what, " backward in place", NULL);
  float *d_x = ct_cuda_test_upload (x, n), *d_dy = ct_cuda_test_upload (dy, n);
  float *d_y = ct_cuda_test_device_zeros (n), *d_dx = ct_cuda_test_device_zeros (n);
  float *d_scratch = ct_cuda_test_device_zeros (s.inner);
  g_autofree float *first = NULL, *again = NULL;

  g_assert_cmpint (ct_cpu_softmax_forward (s.outer, s.channels, s.inner, x, y, scratch), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_softmax_forward (s.outer, s.channels, s.inner, d_x, d_y, d_scratch),
                   ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_y, y, n, TOL);

  /* The same run again gives the same bits. */
  first = ct_cuda_test_download (d_y, n);
  g_assert_cmpint (ct_cuda_softmax_forward (s.outer, s.channels, s.inner, d_x, d_y, d_scratch),
                   ==, CT_STATUS_OK);
  again = ct_cuda_test_download (d_y, n);
  g_assert_true (memcmp (first, again, (size_t) n * sizeof (float)) == 0);

  /* Backward takes the CPU's probabilities on both sides. */
  ct_cuda_test_free (d_y);
  d_y = ct_cuda_test_upload (y, n);
  g_assert_cmpint (ct_cpu_softmax_backward (s.outer, s.channels, s.inner, y, dy, dx, scratch),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_softmax_backward (s.outer, s.channels, s.inner, d_y, d_dy, d_dx,
                                             d_scratch), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what_back, d_dx, dx, n, TOL);

  /* In place: TOP is BOTTOM, BOTTOM_DIFF is TOP_DIFF. */
  g_assert_cmpint (ct_cuda_softmax_forward (s.outer, s.channels, s.inner, d_x, d_x, d_scratch),
                   ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what_in, d_x, y, n, TOL);
  g_assert_cmpint (ct_cuda_softmax_backward (s.outer, s.channels, s.inner, d_y, d_dy, d_dy,
                                             d_scratch), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what_back_in, d_dy, dx, n, TOL);

  ct_cuda_test_free (d_x);
  ct_cuda_test_free (d_dy);
  ct_cuda_test_free (d_y);
  ct_cuda_test_free (d_dx);
  ct_cuda_test_free (d_scratch);
}

static void
test_shapes (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    check_shape (shapes[i], -5, 5, 10 + i);
}

/* Scores near 90 overflow expf without the maximum taken out; scores far
 * apart make most probabilities underflow to 0. */
static void
test_large_scores (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      check_shape (shapes[i], 80, 100, 40 + i);
      check_shape (shapes[i], -200, 200, 70 + i);
    }
}

static void
test_degenerate (void)
{
  float v = 1.0f;

  /* Empty shapes do nothing (NULL pointers are never read). */
  g_assert_cmpint (ct_cuda_softmax_forward (0, 3, 3, NULL, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_softmax_forward (3, 0, 3, NULL, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_softmax_backward (3, 3, 0, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_OK);
  /* Negative or overflowing counts are refused before memory is touched. */
  g_assert_cmpint (ct_cuda_softmax_forward (-1, 3, 3, &v, &v, &v), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_softmax_forward (-1, 3, 3, &v, &v, &v), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_softmax_backward (3, -3, 3, &v, &v, &v, &v), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_softmax_forward (INT64_MAX, 2, 2, &v, &v, &v), ==,
                   CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/softmax/shapes", test_shapes);
  g_test_add_func ("/cuda/softmax/large-scores", test_large_scores);
  g_test_add_func ("/cuda/softmax/degenerate", test_degenerate);
  return g_test_run ();
}
