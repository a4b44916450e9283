/* test-im2col.c: im2col and col2im, 2-D and N-D, against naive loops; the
 * N-D kernels against the 2-D ones; col2im as the adjoint of im2col; and
 * the statuses for geometries out of range. */
#include <math.h>
#include <string.h>
#include <glib.h>

#include "im2col.h"
#include "switches.h"

typedef struct {
  int n;
  int64_t channels;
  int64_t dims[3], kernel[3], pad[3], stride[3], dilation[3];
} Geometry;

static const Geometry cases[] = {
  { 2, 3, { 6, 5 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { 2, 2, { 7, 6 }, { 3, 2 }, { 2, 0 }, { 2, 1 }, { 2, 3 } },
  { 2, 1, { 5, 9 }, { 1, 4 }, { 0, 3 }, { 3, 2 }, { 1, 1 } },
  { 2, 4, { 4, 4 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 2, 2, { 3, 3 }, { 3, 3 }, { 2, 2 }, { 4, 1 }, { 2, 2 } },
  /* Rows of the AVX-512 window path: LeNet's conv2 (rows of 8, two per
   * vector); a padded plane 13 wide with a dilated kernel; rows of
   * exactly 16; rows of 30, past one vector (col2im then takes the loops). */
  { 2, 20, { 12, 12 }, { 5, 5 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 2, 3, { 9, 11 }, { 3, 3 }, { 2, 1 }, { 2, 1 }, { 1, 2 } },
  { 2, 1, { 4, 18 }, { 2, 3 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 2, 2, { 5, 30 }, { 2, 3 }, { 0, 1 }, { 1, 1 }, { 1, 1 } },
  /* Padded planes past the window path's buffer (4096 floats), which
   * take the general path: 72 x 70, and 4102 rows of 2. */
  { 2, 2, { 70, 66 }, { 3, 3 }, { 1, 2 }, { 1, 2 }, { 1, 1 } },
  { 2, 1, { 4100, 2 }, { 2, 1 }, { 1, 0 }, { 3, 1 }, { 1, 1 } },
  { 1, 3, { 11 }, { 3 }, { 1 }, { 2 }, { 2 } },
  { 3, 2, { 4, 5, 3 }, { 2, 3, 2 }, { 1, 0, 1 }, { 1, 2, 2 }, { 1, 1, 2 } },
};

static int64_t
out_dim (const Geometry *g, int i)
{
  return (g->dims[i] + 2 * g->pad[i] - (g->dilation[i] * (g->kernel[i] - 1) + 1))
         / g->stride[i] + 1;
}

static void
shapes (const Geometry *g, int64_t *im_shape, int64_t *col_shape, int64_t *im_count,
        int64_t *col_count)
{
  int64_t ks = 1, ip = 1, op = 1;

  for (int i = 0; i < g->n; i++)
    {
      ks *= g->kernel[i];
      ip *= g->dims[i];
      op *= out_dim (g, i);
      im_shape[i + 1] = g->dims[i];
      col_shape[i + 1] = out_dim (g, i);
    }
  im_shape[0] = g->channels;
  col_shape[0] = g->channels * ks;
  *im_count = g->channels * ip;
  *col_count = g->channels * ks * op;
}

/* The column buffer by its definition, one entry at a time. */
static void
naive_im2col (const Geometry *g, const float *im, float *col)
{
  int64_t im_shape[4], col_shape[4], im_count, col_count;
  int64_t ks, out_count;

  shapes (g, im_shape, col_shape, &im_count, &col_count);
  ks = col_shape[0] / g->channels;
  out_count = col_count / col_shape[0];
  for (int64_t row = 0; row < col_shape[0]; row++)
    for (int64_t o = 0; o < out_count; o++)
      {
        int64_t c = row / ks, k = row % ks, rest_o = o;
        int64_t index = c;
        int64_t kpos[3], opos[3];
        gboolean inside = TRUE;

        for (int i = g->n - 1; i >= 0; i--)
          {
            kpos[i] = k % g->kernel[i];
            k /= g->kernel[i];
            opos[i] = rest_o % col_shape[i + 1];
            rest_o /= col_shape[i + 1];
          }
        for (int i = 0; i < g->n; i++)
          {
            int64_t p = opos[i] * g->stride[i] - g->pad[i] + kpos[i] * g->dilation[i];

            inside = inside && p >= 0 && p < g->dims[i];
            index = index * g->dims[i] + p;
          }
        col[row * out_count + o] = inside ? im[index] : 0.0f;
      }
}

static float *
random_floats (int64_t n, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  float *v = g_new (float, MAX (n, 1));

  for (int64_t i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
  g_rand_free (rand);
  return v;
}

/* How a 2-D geometry runs: 0 and 1 the 2-D functions, with and without
 * the AVX-512 windows (the same where the CPU lacks them), 2 the N-D
 * functions. N-D geometries run as 2 only. */
static int
first_way (const Geometry *g)
{
  return g->n == 2 ? 0 : 2;
}

static CtStatus
run_im2col (const Geometry *g, int way, const float *im, float *col)
{
  gboolean nd = way == 2;
  int avx512 = ct_cpu_im2col_set_avx512 (way == 0);
  CtStatus status;
  int64_t im_shape[4], col_shape[4], a, b;

  shapes (g, im_shape, col_shape, &a, &b);
  if (!nd)
    status = ct_cpu_im2col (im, g->channels, g->dims[0], g->dims[1], g->kernel[0],
                            g->kernel[1], g->pad[0], g->pad[1], g->stride[0], g->stride[1],
                            g->dilation[0], g->dilation[1], col);
  else
    status = ct_cpu_im2col_nd (im, g->n, im_shape, col_shape, g->kernel, g->pad, g->stride,
                               g->dilation, col);
  ct_cpu_im2col_set_avx512 (avx512);
  return status;
}

static CtStatus
run_col2im (const Geometry *g, int way, const float *col, float *im)
{
  int64_t im_shape[4], col_shape[4], a, b;
  gboolean nd = way == 2;
  int avx512 = ct_cpu_im2col_set_avx512 (way == 0);
  CtStatus status;

  shapes (g, im_shape, col_shape, &a, &b);
  if (!nd)
    status = ct_cpu_col2im (col, g->channels, g->dims[0], g->dims[1], g->kernel[0],
                            g->kernel[1], g->pad[0], g->pad[1], g->stride[0], g->stride[1],
                            g->dilation[0], g->dilation[1], im);
  else
    status = ct_cpu_col2im_nd (col, g->n, im_shape, col_shape, g->kernel, g->pad, g->stride,
                               g->dilation, im);
  ct_cpu_im2col_set_avx512 (avx512);
  return status;
}

static void
test_against_naive (void)
{
  guint checked = 0;

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const Geometry *g = &cases[c];
      int64_t im_shape[4], col_shape[4], im_count, col_count;
      g_autofree float *im = NULL, *expected = NULL, *col = NULL;

      shapes (g, im_shape, col_shape, &im_count, &col_count);
      im = random_floats (im_count, (guint32) c + 1);
      expected = g_new (float, col_count);
      col = g_new (float, col_count);
      naive_im2col (g, im, expected);
      for (int way = first_way (g); way <= 2; way++)
        {
          /* Poison the buffer: every entry must be written. */
          memset (col, 0xff, (gsize) col_count * sizeof (float));
          g_assert_cmpint (run_im2col (g, way, im, col), ==, CT_STATUS_OK);
          g_assert_cmpmem (col, col_count * sizeof (float), expected,
                           col_count * sizeof (float));
          checked++;
        }
    }
  g_test_message ("%u im2col runs equal the naive buffer", checked);
  g_assert_cmpuint (checked, ==, 11 * 3 + 2);
}

/* <im2col (x), y> = <x, col2im (y)>, and col2im overwrites the image;
 * every way of running col2im gives the same floats (each sum adds in
 * Caffe's order). */
static void
test_adjoint (void)
{
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const Geometry *g = &cases[c];
      int64_t im_shape[4], col_shape[4], im_count, col_count;
      g_autofree float *x = NULL, *y = NULL, *col = NULL, *im = NULL, *im_first = NULL;

      shapes (g, im_shape, col_shape, &im_count, &col_count);
      x = random_floats (im_count, 100 + (guint32) c);
      y = random_floats (col_count, 200 + (guint32) c);
      col = g_new (float, col_count);
      im = g_new (float, im_count);
      for (int way = first_way (g); way <= 2; way++)
        {
          double lhs = 0.0, rhs = 0.0;

          g_assert_cmpint (run_im2col (g, way, x, col), ==, CT_STATUS_OK);
          for (int i = 0; i < 2; i++)
            {
              memset (im, 0x7f, (gsize) im_count * sizeof (float));
              g_assert_cmpint (run_col2im (g, way, y, im), ==, CT_STATUS_OK);
            }
          for (int64_t i = 0; i < col_count; i++)
            lhs += (double) col[i] * y[i];
          for (int64_t i = 0; i < im_count; i++)
            rhs += (double) x[i] * im[i];
          g_assert_cmpfloat (fabs (lhs - rhs), <, 1e-4 * MAX (1.0, fabs (lhs)));
          if (way == first_way (g))
            im_first = g_memdup2 (im, (gsize) im_count * sizeof (float));
          else if (im_first != NULL)
            g_assert_cmpmem (im, im_count * sizeof (float), im_first, im_count * sizeof (float));
        }
    }
}

static void
test_invalid (void)
{
  float im[64] = { 0 }, col[512];
  int64_t im_shape[3] = { 1, 4, 4 }, col_shape[3] = { 9, 2, 2 };
  int64_t kernel[2] = { 3, 3 }, pad[2] = { 0, 0 }, stride[2] = { 1, 1 }, dilation[2] = { 1, 1 };
  int64_t zero[2] = { 0, 1 }, negative[2] = { -1, 0 };

  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 3, 3, 0, 0, 0, 1, 1, 1, col), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 0, 3, 0, 0, 1, 1, 1, 1, col), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 3, 3, -1, 0, 1, 1, 1, 1, col), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 3, 3, 0, 0, 1, 1, 0, 1, col), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 5, 3, 0, 0, 1, 1, 1, 1, col), ==,
                   CT_STATUS_INVALID); /* kernel larger than the padded image */
  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 3, 3, 0, 0, 1, 1, 2, 1, col), ==,
                   CT_STATUS_INVALID); /* dilated to 5 */
  g_assert_cmpint (ct_cpu_im2col (im, -1, 4, 4, 3, 3, 0, 0, 1, 1, 1, 1, col), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_col2im (col, 1, 0, 4, 3, 3, 0, 0, 1, 1, 1, 1, im), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col (im, 1, 4, 4, 3, 3, 0, 0, 1, 1, 1, 1, col), ==, CT_STATUS_OK);

  g_assert_cmpint (ct_cpu_im2col_nd (im, 2, im_shape, col_shape, kernel, pad, stride, dilation,
                                     col), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_im2col_nd (im, 0, im_shape, col_shape, kernel, pad, stride, dilation,
                                     col), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col_nd (im, CT_IM2COL_MAX_AXES + 1, im_shape, col_shape, kernel,
                                     pad, stride, dilation, col), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col_nd (im, 2, im_shape, col_shape, zero, pad, stride, dilation,
                                     col), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_im2col_nd (im, 2, im_shape, col_shape, kernel, negative, stride,
                                     dilation, col), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_col2im_nd (col, 2, im_shape, col_shape, kernel, pad, zero, dilation,
                                     im), ==, CT_STATUS_INVALID);
  col_shape[0] = 8; /* not channels x prod (kernel) */
  g_assert_cmpint (ct_cpu_im2col_nd (im, 2, im_shape, col_shape, kernel, pad, stride, dilation,
                                     col), ==, CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/im2col/naive", test_against_naive);
  g_test_add_func ("/kernels/im2col/adjoint", test_adjoint);
  g_test_add_func ("/kernels/im2col/invalid", test_invalid);
  return g_test_run ();
}
