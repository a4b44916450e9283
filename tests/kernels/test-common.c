/* test-common.c: the kernels of kernels/common.h against naive loops in
 * double precision (broadcasts, reductions, tiles, block copies, gathers,
 * ArgMax), Scale's one-call passes against the broadcasts they fuse, a
 * sum and the ReLU after it in one pass against the two kernels, and
 * their refusal of negative counts. */
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "blas.h"
#include "common.h"
#include "neuron.h"

static float *
random_floats (GRand *rand, gsize n)
{
  float *v = g_new (float, MAX (n, 1));

  for (gsize i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
  return v;
}

static void
assert_close (float got, double want, double magnitude)
{
  double tolerance = 1e-5 * (1.0 + magnitude);

  if (fabs (got - want) > tolerance)
    g_error ("got %.9g, want %.9g (tolerance %.3g)", got, want, tolerance);
}

static void
test_broadcast (void)
{
  static const int64_t shapes[][3] = { { 1, 1, 1 }, { 2, 3, 5 }, { 3, 7, 1 }, { 1, 4, 33 },
                                       { 5, 1, 17 } };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);
  guint cases = 0;

  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      int64_t outer = shapes[s][0], dim = shapes[s][1], inner = shapes[s][2];
      int64_t n = outer * dim * inner;
      g_autofree float *x = random_floats (rand, n);
      g_autofree float *g = random_floats (rand, n);
      g_autofree float *v = random_floats (rand, dim);
      g_autofree float *y = g_new (float, n);
      g_autofree float *acc = random_floats (rand, dim);
      g_autofree float *start = g_memdup2 (acc, dim * sizeof (float));

      g_assert_cmpint (ct_cpu_bias_forward (outer, dim, inner, x, v, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (y[i], ==, x[i] + v[(i / inner) % dim]);
      g_assert_cmpint (ct_cpu_scale_forward (outer, dim, inner, x, v, y), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (y[i], ==, x[i] * v[(i / inner) % dim]);

      /* Gradients: written, then accumulated onto what is there. */
      for (int accumulate = 0; accumulate < 2; accumulate++)
        {
          memcpy (acc, start, dim * sizeof (float));
          g_assert_cmpint (ct_cpu_bias_backward (outer, dim, inner, g, accumulate, acc), ==,
                           CT_STATUS_OK);
          for (int64_t d = 0; d < dim; d++)
            {
              double want = accumulate ? start[d] : 0.0, mag = fabs (want);

              for (int64_t o = 0; o < outer; o++)
                for (int64_t i = 0; i < inner; i++)
                  {
                    want += g[(o * dim + d) * inner + i];
                    mag += fabs (g[(o * dim + d) * inner + i]);
                  }
              assert_close (acc[d], want, mag);
            }
          memcpy (acc, start, dim * sizeof (float));
          g_assert_cmpint (ct_cpu_scale_backward (outer, dim, inner, g, x, accumulate, acc), ==,
                           CT_STATUS_OK);
          for (int64_t d = 0; d < dim; d++)
            {
              double want = accumulate ? start[d] : 0.0, mag = fabs (want);

              for (int64_t o = 0; o < outer; o++)
                for (int64_t i = 0; i < inner; i++)
                  {
                    int64_t at = (o * dim + d) * inner + i;
                    want += (double) g[at] * x[at];
                    mag += fabs ((double) g[at] * x[at]);
                  }
              assert_close (acc[d], want, mag);
            }
          cases++;
        }
    }
  g_assert_cmpuint (cases, ==, 2 * G_N_ELEMENTS (shapes));
  g_assert_cmpint (ct_cpu_bias_forward (-1, 1, 1, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_scale_backward (1, -2, 1, NULL, NULL, 0, NULL), ==, CT_STATUS_INVALID);
}

static void
assert_same_bits (const float *got, const float *want, int64_t n, const char *what)
{
  if (n > 0 && memcmp (got, want, (size_t) n * sizeof (float)) != 0)
    g_error ("%s: not the bits of the separate kernels", what);
}

/* Scale's one-call passes give the bits of the kernels above called in
 * turn: rows shorter than the sums' lanes (the plain kernels), channels in
 * several blocks and several chunks of the pool, in place or not, with and
 * without each output. */
static void
test_scale_bias (void)
{
  static const int64_t shapes[][3] = { { 2, 3, 5 }, { 3, 7, 1 }, { 4, 40, 49 },
                                       { 2, 70, 1024 }, { 2, 600, 9 }, { 2, 1, 70000 } };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1702);

  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (int variant = 0; variant < 4; variant++)
      {
        int64_t outer = shapes[s][0], dim = shapes[s][1], inner = shapes[s][2];
        int64_t n = outer * dim * inner;
        gboolean with_bias = variant & 1, accumulate = variant & 2;
        g_autofree float *x = random_floats (rand, n);
        g_autofree float *g = random_floats (rand, n);
        g_autofree float *scale = random_floats (rand, dim);
        g_autofree float *bias = random_floats (rand, dim);
        g_autofree float *start = random_floats (rand, dim);
        g_autofree float *want = g_new (float, n);
        g_autofree float *got = g_memdup2 (x, n * sizeof (float));
        g_autofree float *want_scale = g_memdup2 (start, dim * sizeof (float));
        g_autofree float *want_bias = g_memdup2 (start, dim * sizeof (float));
        g_autofree float *scale_diff = g_memdup2 (start, dim * sizeof (float));
        g_autofree float *bias_diff = g_memdup2 (start, dim * sizeof (float));
        g_autofree float *in_place = g_memdup2 (g, n * sizeof (float));

        g_assert_cmpint (ct_cpu_scale_forward (outer, dim, inner, x, scale, want), ==,
                         CT_STATUS_OK);
        if (with_bias)
          g_assert_cmpint (ct_cpu_bias_forward (outer, dim, inner, want, bias, want), ==,
                           CT_STATUS_OK);
        /* in place */
        g_assert_cmpint (ct_cpu_scale_bias_forward (outer, dim, inner, got, scale,
                                                    with_bias ? bias : NULL, got), ==,
                         CT_STATUS_OK);
        assert_same_bits (got, want, n, "forward");

        g_assert_cmpint (ct_cpu_bias_backward (outer, dim, inner, g, TRUE, want_bias), ==,
                         CT_STATUS_OK);
        g_assert_cmpint (ct_cpu_scale_backward (outer, dim, inner, g, x, accumulate,
                                                want_scale), ==, CT_STATUS_OK);
        g_assert_cmpint (ct_cpu_scale_forward (outer, dim, inner, g, scale, want), ==,
                         CT_STATUS_OK);
        g_assert_cmpint (ct_cpu_scale_bias_backward (outer, dim, inner, g, x, scale, accumulate,
                                                     scale_diff, with_bias ? bias_diff : NULL,
                                                     got), ==, CT_STATUS_OK);
        assert_same_bits (got, want, n, "bottom diff");
        assert_same_bits (scale_diff, want_scale, dim, "scale diff");
        assert_same_bits (bias_diff, with_bias ? want_bias : start, dim, "bias diff");

        /* In place, the sums see the top's diff before it is overwritten;
         * outputs left out are left alone. */
        memcpy (scale_diff, start, dim * sizeof (float));
        g_assert_cmpint (ct_cpu_scale_bias_backward (outer, dim, inner, in_place, x, scale,
                                                     accumulate, scale_diff, NULL, in_place),
                         ==, CT_STATUS_OK);
        assert_same_bits (in_place, want, n, "bottom diff in place");
        assert_same_bits (scale_diff, want_scale, dim, "scale diff in place");
        memcpy (bias_diff, start, dim * sizeof (float));
        g_assert_cmpint (ct_cpu_scale_bias_backward (outer, dim, inner, g, NULL, NULL, 0, NULL,
                                                     bias_diff, NULL), ==, CT_STATUS_OK);
        assert_same_bits (bias_diff, want_bias, dim, "bias diff alone");
      }
  g_assert_cmpint (ct_cpu_scale_bias_forward (1, -1, 1, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_scale_bias_backward (-1, 1, 1, NULL, NULL, NULL, 0, NULL, NULL, NULL),
                   ==, CT_STATUS_INVALID);
}

/* Eltwise's one-pass unit sum gives the bits of a zeroed top and one
 * axpy per bottom, signed zeros included, over several chunks of the
 * pool and a ragged last block. */
static void
test_eltwise_sum (void)
{
  const int64_t count = 200003;
  g_autoptr (GRand) rand = g_rand_new_with_seed (1703);
  float *x[3];
  g_autofree float *want = g_new (float, count);
  g_autofree float *got = g_new (float, count);

  for (int k = 0; k < 3; k++)
    {
      x[k] = random_floats (rand, count);
      /* every pair of signed zeros at the start */
      for (int64_t i = 0; i < 8; i++)
        x[k][i] = (i >> k) & 1 ? -0.0f : 0.0f;
    }
  for (int n = 1; n <= 3; n++)
    {
      g_assert_cmpint (ct_cpu_set (count, 0.0f, want), ==, CT_STATUS_OK);
      for (int k = 0; k < n; k++)
        g_assert_cmpint (ct_cpu_axpy (count, 1.0f, x[k], want), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_eltwise_sum (count, n, (const float *const *) x, got), ==,
                       CT_STATUS_OK);
      assert_same_bits (got, want, count, "eltwise sum");
    }
  g_assert_false (signbit (got[7]));
  g_assert_cmpint (ct_cpu_eltwise_sum (count, 0, (const float *const *) x, got), ==,
                   CT_STATUS_INVALID);
  for (int k = 0; k < 3; k++)
    g_free (x[k]);
}

/* A unit sum and a ReLU in place after it, in one pass each way: the
 * bits of ct_cpu_eltwise_sum then ct_cpu_relu_forward, and of
 * ct_cpu_relu_backward then a copy of the gradient to each bottom;
 * plain and leaky, several chunks of the pool and a ragged last block,
 * the first bottom's diff in place of the top's. */
static void
test_sum_relu (void)
{
  const int64_t count = 200003;
  g_autoptr (GRand) rand = g_rand_new_with_seed (1704);
  g_autofree float *a = random_floats (rand, count);
  g_autofree float *b = random_floats (rand, count);
  g_autofree float *dy = random_floats (rand, count);
  g_autofree float *want = g_new (float, count);
  g_autofree float *got = g_new (float, count);
  g_autofree float *want_dx = g_new (float, count);
  g_autofree float *dx0 = g_new (float, count);
  g_autofree float *dx1 = g_new (float, count);
  const float *x[2] = { a, b };
  float *dx[2] = { dx0, dx1 };
  static const float slopes[] = { 0.0f, 0.1f };

  for (gsize t = 0; t < G_N_ELEMENTS (slopes); t++)
    {
      g_assert_cmpint (ct_cpu_eltwise_sum (count, 2, x, want), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_relu_forward (count, slopes[t], want, want), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_eltwise_sum_relu (count, 2, x, got, slopes[t]), ==,
                       CT_STATUS_OK);
      assert_same_bits (got, want, count, "sum and ReLU");

      g_assert_cmpint (ct_cpu_relu_backward (count, slopes[t], want, dy, want_dx), ==,
                       CT_STATUS_OK);
      memcpy (dx0, dy, count * sizeof (float));
      memset (dx1, 0, count * sizeof (float));
      g_assert_cmpint (ct_cpu_relu_backward_fanout (count, slopes[t], got, dx0, 2, dx), ==,
                       CT_STATUS_OK);
      assert_same_bits (dx0, want_dx, count, "ReLU gradient, first bottom");
      assert_same_bits (dx1, want_dx, count, "ReLU gradient, second bottom");
    }
  g_assert_cmpint (ct_cpu_eltwise_sum_relu (-1, 2, x, got, 0.0f), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_relu_backward_fanout (count, 0.0f, got, dy, 0, dx), ==,
                   CT_STATUS_INVALID);
}

static void
test_reduce (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  int64_t num = 3, dim = 37;
  g_autofree float *x = random_floats (rand, num * dim);
  g_autofree float *g = random_floats (rand, num);
  float top[3];
  g_autofree float *dx = g_new (float, num * dim);

  for (int op = CT_REDUCE_SUM; op <= CT_REDUCE_MEAN; op++)
    {
      float coeff = op == CT_REDUCE_MEAN ? 0.5f / dim : 0.5f;

      g_assert_cmpint (ct_cpu_reduce_forward (op, num, dim, coeff, x, top), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_reduce_backward (op, num, dim, coeff, x, g, dx), ==, CT_STATUS_OK);
      for (int64_t i = 0; i < num; i++)
        {
          double want = 0.0;

          for (int64_t j = 0; j < dim; j++)
            {
              double v = x[i * dim + j];
              double grad = op == CT_REDUCE_ASUM ? (v > 0) - (v < 0)
                          : op == CT_REDUCE_SUMSQ ? 2 * v : 1.0;

              want += op == CT_REDUCE_ASUM ? fabs (v) : op == CT_REDUCE_SUMSQ ? v * v : v;
              assert_close (dx[i * dim + j], grad * g[i] * coeff, 1.0);
            }
          assert_close (top[i], want * coeff, (double) dim);
        }
    }
  g_assert_cmpint (ct_cpu_reduce_forward (99, 1, 1, 1.0f, x, top), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_reduce_forward (CT_REDUCE_SUM, -1, 1, 1.0f, x, top), ==,
                   CT_STATUS_INVALID);
}

static void
test_copies (void)
{
  static const float src[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
  static const float tiled[] = { 0, 1, 0, 1, 2, 3, 2, 3 };
  static const int64_t rows[] = { 2, 0, 2 };
  float dst[12] = { 0 };
  float back[4];

  /* Two blocks of 2, stride 6 in SRC, packed in DST. */
  g_assert_cmpint (ct_cpu_copy_blocks (2, 2, src + 1, 6, dst, 2), ==, CT_STATUS_OK);
  g_assert_cmpfloat (dst[0], ==, 1);
  g_assert_cmpfloat (dst[1], ==, 2);
  g_assert_cmpfloat (dst[2], ==, 7);
  g_assert_cmpfloat (dst[3], ==, 8);
  g_assert_cmpint (ct_cpu_copy_blocks (2, 3, src, 2, dst, 3), ==, CT_STATUS_INVALID);

  g_assert_cmpint (ct_cpu_tile_forward (2, 2, 2, src, dst), ==, CT_STATUS_OK);
  g_assert_cmpmem (dst, sizeof tiled, tiled, sizeof tiled);
  g_assert_cmpint (ct_cpu_tile_backward (2, 2, 2, tiled, back), ==, CT_STATUS_OK);
  g_assert_cmpfloat (back[0], ==, 0);
  g_assert_cmpfloat (back[1], ==, 2);
  g_assert_cmpfloat (back[2], ==, 4);
  g_assert_cmpfloat (back[3], ==, 6);

  g_assert_cmpint (ct_cpu_gather_rows (3, 4, rows, src, dst), ==, CT_STATUS_OK);
  g_assert_cmpmem (dst, 4 * sizeof (float), src + 8, 4 * sizeof (float));
  g_assert_cmpmem (dst + 4, 4 * sizeof (float), src, 4 * sizeof (float));
  memset (back, 0, sizeof back);
  {
    float sums[12] = { 0 };

    g_assert_cmpint (ct_cpu_scatter_add_rows (3, 4, rows, src, sums), ==, CT_STATUS_OK);
    g_assert_cmpfloat (sums[0], ==, 4);   /* row 1 of src into row 0 */
    g_assert_cmpfloat (sums[8], ==, 0 + 8); /* rows 0 and 2 of src into row 2 */
    g_assert_cmpfloat (sums[4], ==, 0);
  }
}

static void
test_indices (void)
{
  static const float good[] = { 0, 3, 1 };
  static const float fraction[] = { 0, 2.5f };
  static const float out_of_range[] = { 1, 4 };
  static const float selector[] = { 0, 1, -1, 0, 0.5f };
  int64_t out[5], bad = -1, n = -1;

  g_assert_cmpint (ct_cpu_float_indices (3, good, 4, 1, out, &bad), ==, CT_STATUS_OK);
  g_assert_cmpint (out[1], ==, 3);
  g_assert_cmpint (ct_cpu_float_indices (2, fraction, 4, 1, out, &bad), ==, CT_STATUS_INVALID);
  g_assert_cmpint (bad, ==, 1);
  g_assert_cmpint (ct_cpu_float_indices (2, fraction, 4, 0, out, &bad), ==, CT_STATUS_OK);
  g_assert_cmpint (out[1], ==, 2);
  g_assert_cmpint (ct_cpu_float_indices (2, out_of_range, 4, 0, out, &bad), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (bad, ==, 1);

  g_assert_cmpint (ct_cpu_filter_select (5, selector, out, &n), ==, CT_STATUS_OK);
  g_assert_cmpint (n, ==, 3);
  g_assert_cmpint (out[0], ==, 1);
  g_assert_cmpint (out[1], ==, 2);
  g_assert_cmpint (out[2], ==, 4);
}

static void
test_argmax (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  int64_t num = 4, dim = 50, k = 7;
  g_autofree float *x = random_floats (rand, num * dim);
  float top[4 * 2 * 7];
  float val[7];
  int64_t idx[7];

  /* Equal values rank by the larger index. */
  x[10] = x[20] = 2.0f;
  g_assert_cmpint (ct_cpu_argmax (num, dim, 1, k, 0, 1, x, top, val, idx), ==, CT_STATUS_OK);
  g_assert_cmpfloat (top[0], ==, 20);
  g_assert_cmpfloat (top[1], ==, 10);
  for (int64_t i = 0; i < num; i++)
    for (int64_t j = 0; j < k; j++)
      {
        int64_t at = (int64_t) top[2 * i * k + j];
        float v = top[2 * i * k + k + j];
        int larger = 0;

        g_assert_cmpfloat (x[i * dim + at], ==, v);
        /* Exactly J values rank before the J-th. */
        for (int64_t m = 0; m < dim; m++)
          if (x[i * dim + m] > v || (x[i * dim + m] == v && m > at))
            larger++;
        g_assert_cmpint (larger, ==, j);
      }
  g_assert_cmpint (ct_cpu_argmax (num, dim, 1, dim + 1, 0, 0, x, top, val, idx), ==,
                   CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/kernels/common/broadcast", test_broadcast);
  g_test_add_func ("/kernels/common/scale-bias", test_scale_bias);
  g_test_add_func ("/kernels/common/eltwise-sum", test_eltwise_sum);
  g_test_add_func ("/kernels/common/sum-relu", test_sum_relu);
  g_test_add_func ("/kernels/common/reduce", test_reduce);
  g_test_add_func ("/kernels/common/copies", test_copies);
  g_test_add_func ("/kernels/common/indices", test_indices);
  g_test_add_func ("/kernels/common/argmax", test_argmax);
  return g_test_run ();
}
