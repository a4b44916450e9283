/* test-blas.c: every function of kernels/blas.h on the CPU against a naive
 * loop in double precision: all transposes of gemm and gemv, odd sizes,
 * alpha/beta cases, degenerate sizes, and counts out of range. */
#include <cblas.h>
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "blas.h"

static float *
random_floats (GRand *rand, gsize n)
{
  float *v = g_new (float, MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
  return v;
}

/* |got - want| within float rounding of a sum of MAGNITUDE (a NaN never
 * is, so a beta 0 that let a NaN of C through fails). */
static void
assert_close (float got, double want, double magnitude)
{
  double tolerance = 1e-5 * (1.0 + magnitude);

  if (!(fabs (got - want) <= tolerance))
    g_error ("got %.9g, want %.9g (tolerance %.3g)", got, want, tolerance);
}

/* Element (i, j) of the ROWS x COLS matrix op(M): M is stored row-major as
 * ROWS x COLS, or as COLS x ROWS when TRANS. */
static double
element (const float *m, gboolean trans, int64_t rows, int64_t cols, int64_t i, int64_t j)
{
  return trans ? m[j * rows + i] : m[i * cols + j];
}

static const float alphas[] = { 1.0f, 1.0f, 0.5f, 0.0f, -1.5f };
static const float betas[] = { 0.0f, 1.0f, -2.0f, 3.0f, 0.25f };

static void
test_gemm (void)
{
  static const int64_t sizes[][3] = {
    { 1, 1, 1 }, { 3, 5, 7 }, { 17, 13, 9 }, { 64, 33, 129 }, { 1, 31, 1 }, { 31, 1, 17 },
    /* A B^T with few columns and long rows (cpu/gemm-narrow.c): whole
     * and partial tiles, a K with a masked tail. */
    { 20, 25, 576 }, { 6, 3, 77 }, { 64, 10, 500 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);
  guint cases = 0;

  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (gsize ab = 0; ab < G_N_ELEMENTS (alphas); ab++)
          {
            int64_t m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
            g_autofree float *a = random_floats (rand, m * k);
            g_autofree float *b = random_floats (rand, k * n);
            g_autofree float *c = random_floats (rand, m * n);
            float alpha = alphas[ab], beta = betas[ab];

            /* beta 0 overwrites C, NaNs included. */
            if (beta == 0.0f)
              c[0] = c[m * n - 1] = NAN;
            g_autofree float *c0 = g_memdup2 (c, m * n * sizeof (float));
            g_assert_cmpint (ct_cpu_gemm (ta ? CT_TRANS : CT_NO_TRANS, tb ? CT_TRANS : CT_NO_TRANS,
                                          m, n, k, alpha, a, b, beta, c), ==, CT_STATUS_OK);
            for (int64_t i = 0; i < m; i++)
              for (int64_t j = 0; j < n; j++)
                {
                  double sum = 0, mag = 0;
                  for (int64_t l = 0; l < k; l++)
                    {
                      /* A is stored M x K, or K x M when transposed. */
                      double x = element (a, ta, m, k, i, l);
                      double y = element (b, tb, k, n, l, j);
                      sum += x * y;
                      mag += fabs (x * y);
                    }
                  double before = beta == 0.0f ? 0.0 : beta * c0[i * n + j];

                  assert_close (c[i * n + j], alpha * sum + before, fabs (alpha) * mag + fabs (before));
                }
            cases++;
          }
  g_test_message ("checked %u gemm cases", cases);
  g_assert_cmpuint (cases, ==, 4 * G_N_ELEMENTS (sizes) * 5);
}

/* C = alpha A op(B) + beta C with few rows against the naive sum, over
 * every alpha/beta case, for each (M, N, K) of SIZES; beta 0 must
 * overwrite the NaNs put in every row of C. The naive sums walk B in its
 * storage order (rows of B for NoTrans, so one row of C at a time). */
static void
check_few_rows (CtTranspose trans_b, const int64_t (*sizes)[3], gsize n_sizes, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);

  for (gsize s = 0; s < n_sizes; s++)
    for (gsize ab = 0; ab < G_N_ELEMENTS (alphas); ab++)
      {
        int64_t m = sizes[s][0], n = sizes[s][1], k = sizes[s][2];
        g_autofree float *a = random_floats (rand, m * k);
        g_autofree float *b = random_floats (rand, k * n);
        g_autofree float *c = random_floats (rand, m * n);
        g_autofree float *c0 = g_memdup2 (c, m * n * sizeof (float));
        g_autofree double *sum = g_new0 (double, n), *mag = g_new0 (double, n);
        float alpha = alphas[ab], beta = betas[ab];

        if (beta == 0.0f)
          for (int64_t i = 0; i < m; i++)
            {
              c[i * n] = NAN;
              c[i * n + n / 2] = NAN;
              c[i * n + n - 1] = NAN;
            }
        g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, trans_b, m, n, k, alpha, a, b, beta, c), ==,
                         CT_STATUS_OK);
        for (int64_t i = 0; i < m; i++)
          {
            memset (sum, 0, n * sizeof (double));
            memset (mag, 0, n * sizeof (double));
            if (trans_b == CT_NO_TRANS)
              for (int64_t l = 0; l < k; l++)
                for (int64_t j = 0; j < n; j++)
                  {
                    double x = (double) a[i * k + l] * b[l * n + j];
                    sum[j] += x;
                    mag[j] += fabs (x);
                  }
            else
              for (int64_t j = 0; j < n; j++)
                for (int64_t l = 0; l < k; l++)
                  {
                    double x = (double) a[i * k + l] * b[j * k + l];
                    sum[j] += x;
                    mag[j] += fabs (x);
                  }
            for (int64_t j = 0; j < n; j++)
              assert_close (c[i * n + j], alpha * sum[j] + beta * c0[i * n + j],
                            fabs (alpha) * mag[j] + fabs (beta * c0[i * n + j]));
          }
      }
}

/* Products with few rows and a large B (an inner product's data gradient
 * at a small batch), which cpu/gemm-skinny.c streams: M = 1, a group of
 * rows, M = 10, 13 (uneven groups), 16 and just past it; N off its tiles,
 * over several strips (M = 1 and 10) and at its limit; K off its blocks
 * and at its limit; N and K one past their limits (left to BLAS). */
static void
test_gemm_few_rows (void)
{
  static const int64_t sizes[][3] = {
    { 1, 8300, 256 },  { 5, 1100, 1001 }, { 10, 1700, 1003 }, { 16, 700, 1600 },
    { 17, 600, 2048 }, { 3, 4099, 300 },  { 2, 256, 4099 },   { 7, 255, 4500 },
    { 4, 4200, 255 },  { 13, 1000, 1111 },
  };

  check_few_rows (CT_NO_TRANS, sizes, G_N_ELEMENTS (sizes), 42);
}

/* The forward product of an inner product at a small batch, C = A B^T
 * with few rows and a large B (N x K), which cpu/gemm-skinny.c computes
 * as dot products: M = 1, even and odd M, M = 16 and just past it, N not a
 * multiple of its groups of rows, K not a multiple of its lanes or K
 * blocks. */
static void
test_gemm_few_rows_transposed (void)
{
  static const int64_t sizes[][3] = {
    { 1, 1031, 1040 }, { 10, 1300, 1013 }, { 7, 2049, 600 }, { 16, 1100, 1000 },
    { 3, 300, 4000 },  { 17, 1200, 1024 },
  };

  check_few_rows (CT_TRANS, sizes, G_N_ELEMENTS (sizes), 4096);
}

static void
test_gemm_known (void)
{
  /* A (2x3) = [1 2 3; 4 5 6], B (3x2) = [7 8; 9 10; 11 12]: A B = [58 64; 139 154]. */
  const float a[] = { 1, 2, 3, 4, 5, 6 };
  const float b[] = { 7, 8, 9, 10, 11, 12 };
  const float at[] = { 1, 4, 2, 5, 3, 6 };     /* A stored transposed (3x2) */
  const float bt[] = { 7, 9, 11, 8, 10, 12 };  /* B stored transposed (2x3) */
  const float want[] = { 58, 64, 139, 154 };
  float c[4];

  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 2, 2, 3, 1, a, b, 0, c), ==, CT_STATUS_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (c[i], ==, want[i]);
  g_assert_cmpint (ct_cpu_gemm (CT_TRANS, CT_TRANS, 2, 2, 3, 1, at, bt, 0, c), ==, CT_STATUS_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (c[i], ==, want[i]);
  g_assert_cmpint (ct_cpu_gemm (CT_TRANS, CT_NO_TRANS, 2, 2, 3, 1, at, b, 0, c), ==, CT_STATUS_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (c[i], ==, want[i]);
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_TRANS, 2, 2, 3, 1, a, bt, 0, c), ==, CT_STATUS_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (c[i], ==, want[i]);
}

static void
test_gemm_beta_zero_overwrites (void)
{
  const float a[] = { 1, 2 }, b[] = { 3, 4 };
  float c[4] = { NAN, NAN, INFINITY, NAN };

  /* (2x1) (1x2): an outer product. */
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 2, 2, 1, 1, a, b, 0, c), ==, CT_STATUS_OK);
  g_assert_cmpfloat (c[0], ==, 3);
  g_assert_cmpfloat (c[1], ==, 4);
  g_assert_cmpfloat (c[2], ==, 6);
  g_assert_cmpfloat (c[3], ==, 8);
}

static void
test_gemm_degenerate (void)
{
  float c[6] = { 1, 2, 3, 4, 5, 6 };

  /* M or N zero: nothing to write; the pointers are never read. */
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 0, 3, 4, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_gemm (CT_TRANS, CT_NO_TRANS, 3, 0, 4, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_OK);
  /* K zero: an empty sum, C = beta C. */
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 2, 3, 0, 1, NULL, NULL, 2, c), ==, CT_STATUS_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (c[i], ==, 2 * (i + 1));
  c[1] = NAN;
  g_assert_cmpint (ct_cpu_gemm (CT_TRANS, CT_TRANS, 2, 3, 0, 1, NULL, NULL, 0, c), ==, CT_STATUS_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (c[i], ==, 0);
}

static void
test_gemm_invalid (void)
{
  int64_t too_big = (int64_t) G_MAXINT32 + 1;

  /* Refused before any memory is touched: NULL pointers are never read. */
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, -1, 2, 2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 2, -1, 2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 2, 2, -1, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_gemm ((CtTranspose) 7, CT_NO_TRANS, 2, 2, 2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, (CtTranspose) -1, 2, 2, 2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  if (sizeof (blasint) == 4)
    {
      g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, too_big, 1, 1, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, 1, 1, too_big, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
    }
  /* gemv is Cortado's own loop (cpu/vector.c): any count whose matrix fits
   * in memory, no BLAS integer limit. */
  g_assert_cmpint (ct_cpu_gemv (CT_TRANS, G_MAXINT64 / 2, 3, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_gemv (CT_NO_TRANS, -3, 2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_gemv ((CtTranspose) 2, 3, 2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
}

static void
test_gemv (void)
{
  static const int64_t sizes[][2] = { { 1, 1 }, { 3, 7 }, { 17, 1 }, { 1, 19 }, { 65, 33 } };
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);
  guint cases = 0;

  for (int t = 0; t < 2; t++)
    for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (gsize ab = 0; ab < G_N_ELEMENTS (alphas); ab++)
        {
          int64_t m = sizes[s][0], n = sizes[s][1];
          int64_t x_len = t ? m : n, y_len = t ? n : m;
          g_autofree float *a = random_floats (rand, m * n);
          g_autofree float *x = random_floats (rand, x_len);
          g_autofree float *y = random_floats (rand, y_len);
          g_autofree float *y0 = g_memdup2 (y, y_len * sizeof (float));
          float alpha = alphas[ab], beta = betas[ab];

          g_assert_cmpint (ct_cpu_gemv (t ? CT_TRANS : CT_NO_TRANS, m, n, alpha, a, x, beta, y),
                           ==, CT_STATUS_OK);
          for (int64_t i = 0; i < y_len; i++)
            {
              double sum = 0, mag = 0;
              for (int64_t j = 0; j < x_len; j++)
                {
                  double p = (t ? a[j * n + i] : a[i * n + j]) * (double) x[j];
                  sum += p;
                  mag += fabs (p);
                }
              assert_close (y[i], alpha * sum + beta * y0[i], fabs (alpha) * mag + fabs (beta * y0[i]));
            }
          cases++;
        }
  g_test_message ("checked %u gemv cases", cases);
  g_assert_cmpuint (cases, ==, 2 * 5 * 5);
}

static void
test_gemv_edges (void)
{
  const float a[] = { 1, 2, 3, 4, 5, 6 }; /* 2 x 3 */
  const float x3[] = { 1, 1, 1 }, x2[] = { 1, -1 };
  float y[3] = { NAN, NAN, NAN };

  /* beta 0 overwrites whatever y held. */
  g_assert_cmpint (ct_cpu_gemv (CT_NO_TRANS, 2, 3, 1, a, x3, 0, y), ==, CT_STATUS_OK);
  g_assert_cmpfloat (y[0], ==, 6);
  g_assert_cmpfloat (y[1], ==, 15);
  y[0] = y[1] = y[2] = NAN;
  g_assert_cmpint (ct_cpu_gemv (CT_TRANS, 2, 3, 2, a, x2, 0, y), ==, CT_STATUS_OK);
  g_assert_cmpfloat (y[0], ==, -6);
  g_assert_cmpfloat (y[1], ==, -6);
  g_assert_cmpfloat (y[2], ==, -6);
  /* x empty: y = beta y. */
  g_assert_cmpint (ct_cpu_gemv (CT_NO_TRANS, 3, 0, 1, NULL, NULL, 0.5f, y), ==, CT_STATUS_OK);
  g_assert_cmpfloat (y[0], ==, -3);
  g_assert_cmpfloat (y[2], ==, -3);
  g_assert_cmpint (ct_cpu_gemv (CT_TRANS, 0, 3, 1, NULL, NULL, 0, y), ==, CT_STATUS_OK);
  g_assert_cmpfloat (y[1], ==, 0);
  /* y empty: nothing happens. */
  g_assert_cmpint (ct_cpu_gemv (CT_NO_TRANS, 0, 3, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_OK);
}

static const int64_t vector_sizes[] = { 0, 1, 7, 33, 1000, 4099 };

static void
test_vector_ops (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  guint cases = 0;

  for (gsize s = 0; s < G_N_ELEMENTS (vector_sizes); s++)
    {
      int64_t n = vector_sizes[s];
      g_autofree float *x = random_floats (rand, n);
      g_autofree float *y = random_floats (rand, n);
      g_autofree float *y0 = g_memdup2 (y, MAX (n, 1) * sizeof (float));
      g_autofree float *z = g_new (float, MAX (n, 1));
      double dot = 0, dot_mag = 0, asum = 0;
      float out;

      g_assert_cmpint (ct_cpu_axpy (n, 0.75f, x, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        assert_close (y[i], 0.75 * x[i] + y0[i], 2);

      memcpy (y, y0, n * sizeof (float));
      g_assert_cmpint (ct_cpu_axpby (n, -2.0f, x, 0.5f, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        assert_close (y[i], -2.0 * x[i] + 0.5 * y0[i], 3);

      memcpy (y, y0, n * sizeof (float));
      g_assert_cmpint (ct_cpu_scal (n, 3.0f, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        assert_close (y[i], 3.0 * y0[i], 3);

      for (int64_t i = 0; i < n; i++)
        {
          dot += (double) x[i] * y0[i];
          dot_mag += fabs ((double) x[i] * y0[i]);
          asum += fabs (x[i]);
        }
      out = NAN;
      g_assert_cmpint (ct_cpu_dot (n, x, y0, &out), ==, CT_STATUS_OK);
      assert_close (out, dot, dot_mag);
      out = NAN;
      g_assert_cmpint (ct_cpu_asum (n, x, &out), ==, CT_STATUS_OK);
      assert_close (out, asum, asum);

      g_assert_cmpint (ct_cpu_copy (n, x, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, x[i]);
      g_assert_cmpint (ct_cpu_copy (n, z, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, x[i]);

      g_assert_cmpint (ct_cpu_set (n, 0.0f, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, 0.0f);
      g_assert_cmpint (ct_cpu_set (n, -2.5f, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, -2.5f);

      g_assert_cmpint (ct_cpu_scale (n, 4.0f, x, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, 4.0f * x[i]);
      g_assert_cmpint (ct_cpu_scale (n, 0.5f, z, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, 2.0f * x[i]);

      g_assert_cmpint (ct_cpu_add (n, x, y0, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, x[i] + y0[i]);
      g_assert_cmpint (ct_cpu_sub (n, x, y0, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, x[i] - y0[i]);
      g_assert_cmpint (ct_cpu_mul (n, x, y0, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, x[i] * y0[i]);
      g_assert_cmpint (ct_cpu_div (n, x, y0, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, x[i] / y0[i]);
      /* In place: the output may be an input. */
      memcpy (z, x, n * sizeof (float));
      g_assert_cmpint (ct_cpu_add (n, z, z, z), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (z[i], ==, 2.0f * x[i]);
      cases++;
    }
  g_assert_cmpuint (cases, ==, G_N_ELEMENTS (vector_sizes));
}

/* The vector routines are defined to the bit (cpu/vector.c), whatever
 * the CPU or the BLAS library: axpy and axpby round once per element, as
 * fmaf does; dot, asum and gemv add exact double products in lanes of
 * element i mod 8, combined in one fixed tree. Lengths around the lane
 * count and the parallel grain, values that cancel. */
static double
lane_sum (const double *terms, int64_t n)
{
  double acc[8] = { 0 };

  for (int64_t i = 0; i < n; i++)
    acc[i % 8] += terms[i];
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

static void
test_vector_bits (void)
{
  static const int64_t sizes[] = { 1, 7, 8, 9, 63, 1000, (1 << 16) + 5, 3 * (1 << 16) + 11 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      int64_t n = sizes[s];
      g_autofree float *x = random_floats (rand, n);
      g_autofree float *y0 = random_floats (rand, n);
      g_autofree float *y = g_new (float, n);
      g_autofree double *terms = g_new (double, n);
      float out;

      for (int64_t i = 0; i < n; i++)
        x[i] *= (float) (1 << (i % 13)); /* magnitudes that cancel */
      memcpy (y, y0, n * sizeof (float));
      g_assert_cmpint (ct_cpu_axpy (n, 0.3f, x, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (y[i], ==, fmaf (0.3f, x[i], y0[i]));
      memcpy (y, y0, n * sizeof (float));
      g_assert_cmpint (ct_cpu_axpby (n, -1.7f, x, 0.9f, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (y[i], ==, fmaf (-1.7f, x[i], 0.9f * y0[i]));

      for (int64_t i = 0; i < n; i++)
        terms[i] = (double) x[i] * y0[i];
      g_assert_cmpint (ct_cpu_dot (n, x, y0, &out), ==, CT_STATUS_OK);
      g_assert_cmpfloat (out, ==, (float) lane_sum (terms, n));
      g_assert_cmpint (ct_cpu_strided_dot (n, x, 1, y0, 1, &out), ==, CT_STATUS_OK);
      g_assert_cmpfloat (out, ==, (float) lane_sum (terms, n));
      for (int64_t i = 0; i < n; i++)
        terms[i] = fabs ((double) x[i]);
      g_assert_cmpint (ct_cpu_asum (n, x, &out), ==, CT_STATUS_OK);
      g_assert_cmpfloat (out, ==, (float) lane_sum (terms, n));
    }
}

static void
test_strided_dot (void)
{
  static const int64_t incs[][2] = { { 1, 1 }, { 2, 3 }, { 3, 1 }, { -1, 1 }, { 2, -2 }, { -3, -1 } };
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  guint cases = 0;

  for (gsize s = 0; s < G_N_ELEMENTS (incs); s++)
    for (int64_t n = 0; n < 40; n += 13)
      {
        int64_t incx = incs[s][0], incy = incs[s][1];
        int64_t len_x = MAX (1, n * llabs (incx)), len_y = MAX (1, n * llabs (incy));
        g_autofree float *x = random_floats (rand, len_x);
        g_autofree float *y = random_floats (rand, len_y);
        double want = 0, mag = 0;
        float got = NAN;

        /* BLAS: a negative increment walks the vector from its far end. */
        for (int64_t i = 0; i < n; i++)
          {
            int64_t ix = incx >= 0 ? i * incx : (n - 1 - i) * -incx;
            int64_t iy = incy >= 0 ? i * incy : (n - 1 - i) * -incy;
            want += (double) x[ix] * y[iy];
            mag += fabs ((double) x[ix] * y[iy]);
          }
        g_assert_cmpint (ct_cpu_strided_dot (n, x, incx, y, incy, &got), ==, CT_STATUS_OK);
        assert_close (got, want, mag);
        cases++;
      }
  g_assert_cmpuint (cases, ==, G_N_ELEMENTS (incs) * 4);
}

static void
test_vector_invalid (void)
{
  float out = 1.0f;

  /* Negative counts are refused without touching the (NULL) arrays. The
   * loops (all of them Cortado's own, none a BLAS library's) take counts
   * past the 32-bit BLAS integer. */
  int64_t bad[] = { -1, INT64_MIN };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      int64_t n = bad[i];
      g_assert_cmpint (ct_cpu_axpy (n, 1, NULL, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_axpby (n, 1, NULL, 1, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_scal (n, 1, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_dot (n, NULL, NULL, &out), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_asum (n, NULL, &out), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_strided_dot (n, NULL, 1, NULL, 1, &out), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_copy (n, NULL, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_set (n, 1, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_scale (n, 1, NULL, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_add (n, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_sub (n, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_mul (n, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
      g_assert_cmpint (ct_cpu_div (n, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
    }
  g_assert_cmpint (ct_cpu_strided_dot (3, NULL, INT64_MAX, NULL, 1, &out), ==, CT_STATUS_INVALID);
  g_assert_cmpfloat (out, ==, 1.0f);
  /* A copy larger than memory can hold is refused, not truncated. */
  g_assert_cmpint (ct_cpu_copy (INT64_MAX, NULL, NULL), ==, CT_STATUS_INVALID);
}

/* ct_cpu_sum against the chain of ct_cpu_add and ct_cpu_axpy (alpha 1) it
 * replaces, bit for bit: one to five inputs, a count past the parallel
 * grain and not a multiple of the sum's blocks, and Y the first input.
 * The arrays start on cache lines, as blobs do, so that the blocks that
 * fill whole lines take the streaming stores. */
static void
test_sum (void)
{
  const int64_t count = 150001;
  float *x[5];
  float *y = g_aligned_alloc (count, sizeof (float), 64);
  g_autofree float *want = g_new (float, count);
  GRand *rand = g_rand_new_with_seed (11);

  for (int k = 0; k < 5; k++)
    {
      x[k] = g_aligned_alloc (count, sizeof (float), 64);
      for (int64_t i = 0; i < count; i++)
        x[k][i] = (float) g_rand_double_range (rand, -1e3, 1e3);
    }
  g_rand_free (rand);
  for (int n = 1; n <= 5; n++)
    {
      if (n == 1)
        memcpy (want, x[0], (size_t) count * sizeof (float));
      else
        g_assert_cmpint (ct_cpu_add (count, x[0], x[1], want), ==, CT_STATUS_OK);
      for (int k = 2; k < n; k++)
        g_assert_cmpint (ct_cpu_axpy (count, 1.0f, x[k], want), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_sum (count, n, (const float *const *) x, y), ==, CT_STATUS_OK);
      g_assert_cmpmem (y, count * sizeof (float), want, count * sizeof (float));
    }
  /* In place: x[0] = x[0] + x[1] + x[2] */
  g_assert_cmpint (ct_cpu_add (count, x[0], x[1], want), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_axpy (count, 1.0f, x[2], want), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_sum (count, 3, (const float *const *) x, x[0]), ==, CT_STATUS_OK);
  g_assert_cmpmem (x[0], count * sizeof (float), want, count * sizeof (float));
  g_assert_cmpint (ct_cpu_sum (count, 0, (const float *const *) x, y), ==, CT_STATUS_INVALID);
  for (int k = 0; k < 5; k++)
    g_aligned_free (x[k]);
  g_aligned_free (y);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/blas/gemm", test_gemm);
  g_test_add_func ("/kernels/blas/gemm-few-rows", test_gemm_few_rows);
  g_test_add_func ("/kernels/blas/gemm-few-rows-transposed", test_gemm_few_rows_transposed);
  g_test_add_func ("/kernels/blas/gemm-known", test_gemm_known);
  g_test_add_func ("/kernels/blas/gemm-beta-zero", test_gemm_beta_zero_overwrites);
  g_test_add_func ("/kernels/blas/gemm-degenerate", test_gemm_degenerate);
  g_test_add_func ("/kernels/blas/invalid-matrix", test_gemm_invalid);
  g_test_add_func ("/kernels/blas/gemv", test_gemv);
  g_test_add_func ("/kernels/blas/gemv-edges", test_gemv_edges);
  g_test_add_func ("/kernels/blas/vector", test_vector_ops);
  g_test_add_func ("/kernels/blas/vector-bits", test_vector_bits);
  g_test_add_func ("/kernels/blas/strided-dot", test_strided_dot);
  g_test_add_func ("/kernels/blas/invalid-vector", test_vector_invalid);
  g_test_add_func ("/kernels/blas/sum", test_sum);
  return g_test_run ();
}
