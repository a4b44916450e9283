/* test-cuda-normalization.c: every function of normalization.h on the GPU
 * against its CPU twin, over BatchNorm-like (N x C x HW) and MVN-like
 * (1 x rows x length) shapes, both paths of the channel sums (channels as
 * columns when INNER is 1), in place, and bit-for-bit repeatable. */
#include <glib.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "normalization.h"

#define TOL 1e-5

static void
assert_same_bits (const char *what, const float *device_a, const float *device_b, int64_t n)
{
  g_autofree float *a = ct_cuda_test_download (device_a, n);
  g_autofree float *b = ct_cuda_test_download (device_b, n);

  if (memcmp (a, b, (size_t) n * sizeof (float)) != 0)
    g_error ("%s: two runs differ", what);
}

static void
check_shape (int64_t outer, int64_t channels, int64_t inner, guint64 seed)
{
  int64_t n = outer * channels * inner;
  /* Off-centre, so that the means are not lost in their own rounding. */
  g_autofree float *x = ct_cuda_test_random (n, 0.5f, 2.5f, seed);
  g_autofree float *dy = ct_cuda_test_random (n, -1, 1, seed + 1);
  g_autofree float *mean = g_new (float, channels > 0 ? channels : 1);
  g_autofree float *var = g_new (float, channels > 0 ? channels : 1);
  g_autofree float *std = g_new (float, channels > 0 ? channels : 1);
  g_autofree float *y = g_new (float, n > 0 ? n : 1);
  g_autofree float *dx = g_new (float, n > 0 ? n : 1);
  g_autofree float *in_place = g_memdup2 (dy, (gsize) (n > 0 ? n : 1) * sizeof (float));
  float *d_x = ct_cuda_test_upload (x, n), *d_dy = ct_cuda_test_upload (dy, n);
  float *d_mean = ct_cuda_test_device_zeros (channels);
  float *d_var = ct_cuda_test_device_zeros (channels);
  float *d_mean2 = ct_cuda_test_device_zeros (channels);
  float *d_std = ct_cuda_test_device_zeros (channels);
  float *d_y = ct_cuda_test_device_zeros (n), *d_dx = ct_cuda_test_device_zeros (n);
  float *d_in_place = ct_cuda_test_upload (dy, n);
  g_autofree char *what = g_strdup_printf ("%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " x %"
                                           G_GINT64_FORMAT, outer, channels, inner);

  g_assert_cmpint (ct_cpu_channel_mean (outer, channels, inner, x, mean), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_channel_mean (outer, channels, inner, d_x, d_mean), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_channel_mean (outer, channels, inner, d_x, d_mean2), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_mean, mean, channels, TOL);
  assert_same_bits (what, d_mean, d_mean2, channels);

  /* Center with the same (CPU) mean on both sides. */
  ct_cuda_test_free (d_mean);
  d_mean = ct_cuda_test_upload (mean, channels);
  g_assert_cmpint (ct_cpu_channel_center (outer, channels, inner, x, mean, y, var), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_channel_center (outer, channels, inner, d_x, d_mean, d_y, d_var), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_y, y, n, TOL);
  ct_cuda_test_assert_close (what, d_var, var, channels, TOL);
  /* Without a variance, and in place. */
  g_assert_cmpint (ct_cuda_channel_center (outer, channels, inner, d_x, d_mean, d_x, NULL), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_x, y, n, TOL);

  for (int kind = 0; kind < 2; kind++)
    {
      g_assert_cmpint ((kind ? ct_cpu_mvn_std : ct_cpu_batch_norm_std) (channels, 1e-3f, var,
                                                                         std), ==,
                       CT_STATUS_OK);
      g_assert_cmpint ((kind ? ct_cuda_mvn_std : ct_cuda_batch_norm_std) (channels, 1e-3f,
                                                                           d_var, d_std), ==,
                       CT_STATUS_OK);
      ct_cuda_test_assert_close (what, d_std, std, channels, TOL);
    }

  /* Normalise with the same (CPU) divisor on both sides. */
  ct_cuda_test_free (d_std);
  d_std = ct_cuda_test_upload (std, channels);
  ct_cuda_test_free (d_y);
  d_y = ct_cuda_test_upload (y, n);
  g_assert_cmpint (ct_cpu_channel_divide (outer, channels, inner, y, std, y), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_channel_divide (outer, channels, inner, d_y, d_std, d_y), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_y, y, n, TOL);

  ct_cuda_test_free (d_y);
  d_y = ct_cuda_test_upload (y, n);
  g_assert_cmpint (ct_cpu_channel_normalize_backward (outer, channels, inner, y, dy, std, dx),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_channel_normalize_backward (outer, channels, inner, d_y, d_dy, d_std,
                                                       d_dx), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_dx, dx, n, TOL);
  /* DX may be DY. */
  g_assert_cmpint (ct_cpu_channel_normalize_backward (outer, channels, inner, y, in_place, std,
                                                      in_place), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_channel_normalize_backward (outer, channels, inner, d_y, d_in_place,
                                                       d_std, d_in_place), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_in_place, in_place, n, TOL);
  assert_same_bits (what, d_in_place, d_dx, n);

  ct_cuda_test_free (d_x);
  ct_cuda_test_free (d_dy);
  ct_cuda_test_free (d_mean);
  ct_cuda_test_free (d_mean2);
  ct_cuda_test_free (d_var);
  ct_cuda_test_free (d_std);
  ct_cuda_test_free (d_y);
  ct_cuda_test_free (d_dx);
  ct_cuda_test_free (d_in_place);
}

static void
test_shapes (void)
{
  check_shape (2, 3, 1000, 1);       /* BatchNorm, small batch */
  check_shape (64, 100, 1, 2);       /* BatchNorm after InnerProduct: channels are columns */
  check_shape (64, 10, 1, 3);        /* few columns: the row path */
  check_shape (1, 5, 100000, 4);     /* MVN across a long row */
  check_shape (1, 640, 49, 5);       /* MVN per channel */
  check_shape (10, 7, 3, 6);
  check_shape (32, 16, 196, 7);
}

static void
test_invalid (void)
{
  g_assert_cmpint (ct_cuda_channel_mean (-1, 1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_channel_normalize_backward (1, -1, 1, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_batch_norm_std (-1, 0.0f, NULL, NULL), ==, CT_STATUS_INVALID);
  /* Nothing to do is fine. */
  g_assert_cmpint (ct_cuda_channel_divide (0, 3, 3, NULL, NULL, NULL), ==, CT_STATUS_OK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/normalization/shapes", test_shapes);
  g_test_add_func ("/cuda/normalization/invalid", test_invalid);
  return g_test_run ();
}
