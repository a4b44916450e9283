/* test-cuda-im2col.c: every function of im2col.h on the GPU against its CPU
 * twin on random images: 2-D with padding, stride, dilation and
 * rectangular kernels, the _ld forms with room between the rows, N-D with
 * one to three axes, batch pack/unpack with row sums and bias, col2im run
 * twice (results repeat bit for bit), and invalid arguments. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "im2col.h"

/* im2col is a copy and col2im adds each element's entries in the CPU's
 * order: both should agree exactly; the bound leaves room only for the
 * compiler fusing nothing differently. */
#define TOL 1e-6

typedef struct {
  int64_t c, h, w, kh, kw, ph, pw, sh, sw, dh, dw;
} Shape2d;

static const Shape2d shapes_2d[] = {
  { 3, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1 },
  { 2, 11, 13, 3, 5, 2, 1, 2, 3, 1, 1 },   /* rectangular, stride */
  { 4, 9, 9, 3, 3, 2, 2, 1, 1, 2, 2 },     /* dilation */
  { 5, 6, 5, 1, 1, 0, 0, 1, 1, 1, 1 },     /* 1x1 */
  { 3, 8, 8, 1, 1, 0, 0, 2, 2, 1, 1 },     /* 1x1, stride 2 */
  { 3, 35, 35, 11, 11, 0, 0, 4, 4, 1, 1 }, /* AlexNet's conv1 */
  { 2, 5, 5, 5, 5, 3, 3, 1, 1, 1, 1 },     /* pad wider than half the kernel */
  { 1, 4, 17, 2, 3, 0, 4, 3, 2, 1, 3 },
  { 16, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1 },
};

static int64_t
out_size (int64_t in, int64_t k, int64_t p, int64_t s, int64_t d)
{
  return (in + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

static void
bit_equal (const char *what, const float *device, const float *host, int64_t n)
{
  g_autofree float *got = ct_cuda_test_download (device, n);

  if (memcmp (got, host, (size_t) n * sizeof (float)) != 0)
    g_test_message ("%s: not bit-identical to the CPU (within %g)", what, TOL);
  ct_cuda_test_assert_close (what, device, host, n, TOL);
}

static void
check_2d (const Shape2d *s, int64_t extra_ld)
{
  const int64_t oh = out_size (s->h, s->kh, s->ph, s->sh, s->dh);
  const int64_t ow = out_size (s->w, s->kw, s->pw, s->sw, s->dw);
  const int64_t im_n = s->c * s->h * s->w, rows = s->c * s->kh * s->kw;
  const int64_t ld = oh * ow + extra_ld, col_n = rows * ld;
  g_autofree float *im = ct_cuda_test_random (im_n, -1, 1, 11);
  /* The spare columns between rows keep their random values. */
  g_autofree float *col = ct_cuda_test_random (col_n, -1, 1, 12);
  g_autofree float *col_in = ct_cuda_test_random (col_n, -1, 1, 13);
  g_autofree float *im_out = ct_cuda_test_random (im_n, -1, 1, 14);
  float *d_im = ct_cuda_test_upload (im, im_n), *d_col = ct_cuda_test_upload (col, col_n);
  float *d_col_in = ct_cuda_test_upload (col_in, col_n);
  float *d_im_out = ct_cuda_test_upload (im_out, im_n);
  g_autofree char *what = g_strdup_printf ("2-D c%" G_GINT64_FORMAT " %" G_GINT64_FORMAT "x%"
                                           G_GINT64_FORMAT " k%" G_GINT64_FORMAT "x%"
                                           G_GINT64_FORMAT " ld+%" G_GINT64_FORMAT,
                                           s->c, s->h, s->w, s->kh, s->kw, extra_ld);
  g_autofree char *what_col = g_strconcat (what, " im2col", NULL);
  g_autofree char *what_im = g_strconcat (what, " col2im", NULL);

  if (extra_ld == 0)
    {
      g_assert_cmpint (ct_cpu_im2col (im, s->c, s->h, s->w, s->kh, s->kw, s->ph, s->pw, s->sh,
                                      s->sw, s->dh, s->dw, col), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_im2col (d_im, s->c, s->h, s->w, s->kh, s->kw, s->ph, s->pw,
                                       s->sh, s->sw, s->dh, s->dw, d_col), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_col2im (col_in, s->c, s->h, s->w, s->kh, s->kw, s->ph, s->pw,
                                      s->sh, s->sw, s->dh, s->dw, im_out), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_col2im (d_col_in, s->c, s->h, s->w, s->kh, s->kw, s->ph, s->pw,
                                       s->sh, s->sw, s->dh, s->dw, d_im_out), ==, CT_STATUS_OK);
    }
  else
    {
      g_assert_cmpint (ct_cpu_im2col_ld (im, s->c, s->h, s->w, s->kh, s->kw, s->ph, s->pw,
                                         s->sh, s->sw, s->dh, s->dw, col, ld), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_im2col_ld (d_im, s->c, s->h, s->w, s->kh, s->kw, s->ph, s->pw,
                                          s->sh, s->sw, s->dh, s->dw, d_col, ld),
                       ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_col2im_ld (col_in, ld, s->c, s->h, s->w, s->kh, s->kw, s->ph,
                                         s->pw, s->sh, s->sw, s->dh, s->dw, im_out),
                       ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_col2im_ld (d_col_in, ld, s->c, s->h, s->w, s->kh, s->kw, s->ph,
                                          s->pw, s->sh, s->sw, s->dh, s->dw, d_im_out),
                       ==, CT_STATUS_OK);
    }
  bit_equal (what_col, d_col, col, col_n);
  bit_equal (what_im, d_im_out, im_out, im_n);

  /* The gather repeats exactly. */
  {
    g_autofree float *first = ct_cuda_test_download (d_im_out, im_n);
    g_autofree float *second = NULL;

    g_assert_cmpint (ct_cuda_col2im_ld (d_col_in, ld, s->c, s->h, s->w, s->kh, s->kw, s->ph,
                                        s->pw, s->sh, s->sw, s->dh, s->dw, d_im_out),
                     ==, CT_STATUS_OK);
    second = ct_cuda_test_download (d_im_out, im_n);
    g_assert_true (memcmp (first, second, (size_t) im_n * sizeof (float)) == 0);
  }
  ct_cuda_test_free (d_im);
  ct_cuda_test_free (d_col);
  ct_cuda_test_free (d_col_in);
  ct_cuda_test_free (d_im_out);
}

static void
test_2d (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes_2d); i++)
    {
      check_2d (&shapes_2d[i], 0);
      check_2d (&shapes_2d[i], 5);
    }
}

typedef struct {
  int n;
  int64_t c;
  int64_t dims[3], kernel[3], pad[3], stride[3], dilation[3];
} ShapeNd;

static const ShapeNd shapes_nd[] = {
  { 1, 3, { 17 }, { 4 }, { 1 }, { 2 }, { 1 } },
  { 1, 2, { 9 }, { 3 }, { 2 }, { 1 }, { 3 } },
  { 2, 3, { 7, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { 2, 2, { 11, 6 }, { 3, 2 }, { 2, 0 }, { 2, 1 }, { 1, 2 } },
  { 3, 2, { 5, 6, 7 }, { 3, 2, 3 }, { 1, 0, 1 }, { 1, 2, 1 }, { 1, 1, 2 } },
  { 3, 3, { 4, 4, 4 }, { 1, 1, 1 }, { 0, 0, 0 }, { 1, 1, 1 }, { 1, 1, 1 } },
  { 3, 1, { 6, 5, 8 }, { 2, 3, 2 }, { 1, 1, 0 }, { 2, 1, 3 }, { 2, 1, 1 } },
};

static void
check_nd (const ShapeNd *s)
{
  int64_t im_shape[4], col_shape[4], im_n = s->c, col_n, kernel_size = 1;
  g_autofree float *im = NULL, *col = NULL, *col_in = NULL, *im_out = NULL;
  float *d_im, *d_col, *d_col_in, *d_im_out;
  g_autofree char *what = g_strdup_printf ("%d-D c%" G_GINT64_FORMAT, s->n, s->c);
  g_autofree char *what_col = g_strconcat (what, " im2col_nd", NULL);
  g_autofree char *what_im = g_strconcat (what, " col2im_nd", NULL);

  im_shape[0] = s->c;
  for (int i = 0; i < s->n; i++)
    {
      im_shape[i + 1] = s->dims[i];
      col_shape[i + 1] = out_size (s->dims[i], s->kernel[i], s->pad[i], s->stride[i],
                                   s->dilation[i]);
      im_n *= s->dims[i];
      kernel_size *= s->kernel[i];
    }
  col_shape[0] = s->c * kernel_size;
  col_n = col_shape[0];
  for (int i = 0; i < s->n; i++)
    col_n *= col_shape[i + 1];

  im = ct_cuda_test_random (im_n, -1, 1, 21);
  col = ct_cuda_test_random (col_n, -1, 1, 22);
  col_in = ct_cuda_test_random (col_n, -1, 1, 23);
  im_out = ct_cuda_test_random (im_n, -1, 1, 24);
  d_im = ct_cuda_test_upload (im, im_n);
  d_col = ct_cuda_test_device_zeros (col_n);
  d_col_in = ct_cuda_test_upload (col_in, col_n);
  d_im_out = ct_cuda_test_upload (im_out, im_n);

  g_assert_cmpint (ct_cpu_im2col_nd (im, s->n, im_shape, col_shape, s->kernel, s->pad,
                                     s->stride, s->dilation, col), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_im2col_nd (d_im, s->n, im_shape, col_shape, s->kernel, s->pad,
                                      s->stride, s->dilation, d_col), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_col2im_nd (col_in, s->n, im_shape, col_shape, s->kernel, s->pad,
                                     s->stride, s->dilation, im_out), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_col2im_nd (d_col_in, s->n, im_shape, col_shape, s->kernel, s->pad,
                                      s->stride, s->dilation, d_im_out), ==, CT_STATUS_OK);
  bit_equal (what_col, d_col, col, col_n);
  bit_equal (what_im, d_im_out, im_out, im_n);

  ct_cuda_test_free (d_im);
  ct_cuda_test_free (d_col);
  ct_cuda_test_free (d_col_in);
  ct_cuda_test_free (d_im_out);
}

static void
test_nd (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes_nd); i++)
    check_nd (&shapes_nd[i]);
}

static void
check_batch (int64_t num, int64_t rows, int64_t spatial)
{
  const int64_t n = num * rows * spatial;
  g_autofree float *src = ct_cuda_test_random (n, -1, 1, 31);
  g_autofree float *dst = g_new0 (float, n > 0 ? n : 1);
  g_autofree float *sums = ct_cuda_test_random (rows, -1, 1, 32);
  g_autofree float *bias = ct_cuda_test_random (rows, -1, 1, 33);
  g_autofree float *out = g_new0 (float, n > 0 ? n : 1);
  g_autofree float *out_bias = g_new0 (float, n > 0 ? n : 1);
  float *d_src = ct_cuda_test_upload (src, n), *d_dst = ct_cuda_test_device_zeros (n);
  float *d_sums = ct_cuda_test_upload (sums, rows), *d_bias = ct_cuda_test_upload (bias, rows);
  float *d_out = ct_cuda_test_device_zeros (n);
  g_autofree char *what = g_strdup_printf ("batch %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%"
                                           G_GINT64_FORMAT, num, rows, spatial);

  g_assert_cmpint (ct_cpu_batch_pack (num, rows, spatial, src, dst, sums), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_batch_pack (num, rows, spatial, d_src, d_dst, d_sums),
                   ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_dst, dst, n, 0.0);
  ct_cuda_test_assert_close (what, d_sums, sums, rows, 1e-5);

  g_assert_cmpint (ct_cpu_batch_unpack (num, rows, spatial, dst, NULL, out), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_batch_unpack (num, rows, spatial, d_dst, NULL, d_out),
                   ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_out, out, n, 0.0);
  g_assert_cmpint (ct_cpu_batch_unpack (num, rows, spatial, dst, bias, out_bias),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_batch_unpack (num, rows, spatial, d_dst, d_bias, d_out),
                   ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, d_out, out_bias, n, 0.0);
  /* Unpacking the packed matrix gives the images back. */
  ct_cuda_test_assert_close (what, d_src, out, n, 0.0);

  ct_cuda_test_free (d_src);
  ct_cuda_test_free (d_dst);
  ct_cuda_test_free (d_sums);
  ct_cuda_test_free (d_bias);
  ct_cuda_test_free (d_out);
}

static void
test_batch (void)
{
  check_batch (3, 5, 7);
  check_batch (1, 4, 100);
  check_batch (16, 64, 49);
  check_batch (64, 1000, 1);   /* row sums as column sums */
  check_batch (2, 3, 20000);   /* long rows */
  check_batch (0, 3, 4);
}

static void
test_invalid (void)
{
  const int64_t im_shape[2] = { 1, 5 }, col_shape[2] = { 3, 3 }, kernel[1] = { 3 };
  const int64_t zero[1] = { 0 }, one[1] = { 1 };

  g_assert_cmpint (ct_cuda_im2col (NULL, 1, 3, 3, 5, 5, 0, 0, 1, 1, 1, 1, NULL),
                   ==, CT_STATUS_INVALID);   /* kernel larger than the image */
  g_assert_cmpint (ct_cuda_col2im (NULL, -1, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, NULL),
                   ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_im2col (NULL, 1, 3, 3, 1, 1, 0, 0, 0, 1, 1, 1, NULL),
                   ==, CT_STATUS_INVALID);   /* stride 0 */
  g_assert_cmpint (ct_cuda_im2col_ld (NULL, 1, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, NULL, 8),
                   ==, CT_STATUS_INVALID);   /* ld shorter than a row */
  g_assert_cmpint (ct_cuda_col2im_ld (NULL, 8, 1, 3, 3, 1, 1, -1, 0, 1, 1, 1, 1, NULL),
                   ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_im2col_nd (NULL, 0, im_shape, col_shape, kernel, zero, one, one,
                                      NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_col2im_nd (NULL, 1, im_shape, col_shape, kernel, zero, zero, one,
                                      NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_batch_pack (-1, 1, 1, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_batch_unpack (1, -1, 1, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
  /* Empty is fine and touches nothing. */
  g_assert_cmpint (ct_cuda_im2col (NULL, 0, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, NULL),
                   ==, CT_STATUS_OK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/im2col/2d", test_2d);
  g_test_add_func ("/cuda/im2col/nd", test_nd);
  g_test_add_func ("/cuda/im2col/batch", test_batch);
  g_test_add_func ("/cuda/im2col/invalid", test_invalid);
  return g_test_run ();
}
