/* test-normalization.c: BatchNorm's CPU kernels of kernels/normalization.h.
 * The one-call forward pass gives the bits of the per-pass kernels it
 * replaces (mean, centring, standard deviation, division), with batch and
 * with stored statistics, in place or not, whatever the blocks of channels
 * and the pool's chunks; the gradient through the batch statistics agrees
 * with the formula in double and is the same in place. The chain of
 * BatchNorm, Scale and ReLU in one pass gives the bits of the three
 * layers' kernels (normalization.h, common.h, neuron.h) one after the
 * other, forward and backward. */
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "neuron.h"
#include "normalization.h"

/* Shapes OUTER x CHANNELS x INNER: tiny ones, rows shorter than the sums'
 * lanes, ResNet's 7x7 planes, channels that fill several blocks and chunks
 * of the pool, a channel longer than a block, and an empty batch. */
static const int64_t shapes[][3] = {
  { 2, 3, 5 }, { 3, 7, 1 }, { 4, 40, 49 }, { 2, 70, 1024 }, { 1, 600, 16 },
  { 2, 1, 70000 }, { 0, 3, 4 },
};

static float *
random_floats (GRand *rand, int64_t n, double lo, double hi)
{
  float *v = g_new (float, MAX (n, 1));

  for (int64_t i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rand, lo, hi);
  return v;
}

static void
assert_same_bits (const float *got, const float *want, int64_t n, const char *what)
{
  if (n > 0 && memcmp (got, want, (size_t) n * sizeof (float)) != 0)
    for (int64_t i = 0; i < n; i++)
      if (memcmp (&got[i], &want[i], sizeof (float)) != 0)
        g_error ("%s[%" G_GINT64_FORMAT "]: %.9g, the per-pass kernels give %.9g", what, i,
                 got[i], want[i]);
}

/* ct_cpu_batch_norm_forward against the passes it fuses. */
static void
test_forward (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);

  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (int batch_stats = 0; batch_stats < 2; batch_stats++)
      {
        int64_t outer = shapes[s][0], channels = shapes[s][1], inner = shapes[s][2];
        int64_t n = outer * channels * inner;
        const float eps = 1e-5f;
        /* An offset larger than the spread, as after a convolution's bias. */
        g_autofree float *x = random_floats (rand, n, 2.0, 5.0);
        g_autofree float *stored_mean = random_floats (rand, channels, 2.0, 5.0);
        g_autofree float *stored_var = random_floats (rand, channels, 0.1, 2.0);
        g_autofree float *want_mean = g_memdup2 (stored_mean, channels * sizeof (float));
        g_autofree float *want_var = g_memdup2 (stored_var, channels * sizeof (float));
        g_autofree float *want_std = g_new (float, channels);
        g_autofree float *want_y = g_new (float, MAX (n, 1));
        g_autofree float *mean = g_memdup2 (stored_mean, channels * sizeof (float));
        g_autofree float *var = g_memdup2 (stored_var, channels * sizeof (float));
        g_autofree float *std = g_new (float, channels);
        g_autofree float *y = g_new (float, MAX (n, 1));
        g_autofree float *keep = g_new (float, MAX (n, 1));
        g_autofree float *in_place = g_memdup2 (x, MAX (n, 1) * sizeof (float));

        if (batch_stats)
          g_assert_cmpint (ct_cpu_channel_mean (outer, channels, inner, x, want_mean), ==,
                           CT_STATUS_OK);
        g_assert_cmpint (ct_cpu_channel_center (outer, channels, inner, x, want_mean, want_y,
                                                batch_stats ? want_var : NULL), ==,
                         CT_STATUS_OK);
        g_assert_cmpint (ct_cpu_batch_norm_std (channels, eps, want_var, want_std), ==,
                         CT_STATUS_OK);
        g_assert_cmpint (ct_cpu_channel_divide (outer, channels, inner, want_y, want_std,
                                                want_y), ==, CT_STATUS_OK);

        g_assert_cmpint (ct_cpu_batch_norm_forward (outer, channels, inner, batch_stats, eps, x,
                                                    mean, var, std, y, keep), ==,
                         CT_STATUS_OK);
        assert_same_bits (mean, want_mean, channels, "mean");
        assert_same_bits (var, want_var, channels, "variance");
        assert_same_bits (std, want_std, channels, "std");
        assert_same_bits (y, want_y, n, "y");
        assert_same_bits (keep, want_y, n, "keep");

        /* In place and without a copy kept: the same values. */
        g_assert_cmpint (ct_cpu_batch_norm_forward (outer, channels, inner, batch_stats, eps,
                                                    in_place, mean, var, std, in_place, NULL),
                         ==, CT_STATUS_OK);
        assert_same_bits (in_place, want_y, n, "y in place");
      }
  g_assert_cmpint (ct_cpu_batch_norm_forward (1, -1, 1, 1, 0.0f, NULL, NULL, NULL, NULL, NULL,
                                              NULL), ==, CT_STATUS_INVALID);
}

/* ct_cpu_channel_normalize_backward against
 * dx = (dy - mean (dy) - y * mean (dy * y)) / s in double. */
static void
test_backward (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (29);

  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      int64_t outer = shapes[s][0], channels = shapes[s][1], inner = shapes[s][2];
      int64_t n = outer * channels * inner, m = outer * inner;
      g_autofree float *y = random_floats (rand, n, -2.0, 2.0);
      g_autofree float *dy = random_floats (rand, n, -1.0, 1.0);
      g_autofree float *div = random_floats (rand, channels, 0.5, 2.0);
      g_autofree float *dx = g_new (float, MAX (n, 1));
      g_autofree float *in_place = g_memdup2 (dy, MAX (n, 1) * sizeof (float));

      g_assert_cmpint (ct_cpu_channel_normalize_backward (outer, channels, inner, y, dy, div,
                                                          dx), ==, CT_STATUS_OK);
      for (int64_t c = 0; c < channels; c++)
        {
          double sum_dy = 0.0, sum_dy_y = 0.0;

          for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++)
              {
                int64_t at = (o * channels + c) * inner + i;

                sum_dy += dy[at];
                sum_dy_y += (double) dy[at] * y[at];
              }
          for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++)
              {
                int64_t at = (o * channels + c) * inner + i;
                double want = (dy[at] - sum_dy / m - y[at] * sum_dy_y / m) / div[c];

                if (fabs (dx[at] - want) > 1e-4 * (1.0 + fabs (want)))
                  g_error ("shape %" G_GSIZE_FORMAT ", dx[%" G_GINT64_FORMAT "] = %.9g, want "
                           "%.9g", s, at, dx[at], want);
              }
        }
      g_assert_cmpint (ct_cpu_channel_normalize_backward (outer, channels, inner, y, in_place,
                                                          div, in_place), ==, CT_STATUS_OK);
      assert_same_bits (in_place, dx, n, "dx in place");
    }
  g_assert_cmpint (ct_cpu_channel_normalize_backward (-1, 1, 1, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

/* One chain case: SHAPE, with a bias or not, a ReLU (of SLOPE) or not,
 * batch statistics or stored ones. */
static void
check_chain (GRand *rand, const int64_t *shape, gboolean bias, gboolean relu, float slope,
             gboolean batch_stats)
{
  const int64_t outer = shape[0], channels = shape[1], inner = shape[2];
  const int64_t n = outer * channels * inner;
  g_autofree float *x = random_floats (rand, n, -2.0, 3.0);
  g_autofree float *gamma = random_floats (rand, channels, -1.5, 1.5);
  g_autofree float *beta = random_floats (rand, channels, -0.5, 0.5);
  g_autofree float *dy = random_floats (rand, n, -1.0, 1.0);
  g_autofree float *d_gamma0 = random_floats (rand, channels, -1.0, 1.0);
  g_autofree float *d_beta0 = random_floats (rand, channels, -1.0, 1.0);
  g_autofree float *mean0 = random_floats (rand, channels, -0.5, 0.5);
  g_autofree float *var0 = random_floats (rand, channels, 0.5, 2.0);
  /* [0]: the layers one by one; [1]: the chain */
  float *y[2], *keep[2], *mean[2], *var[2], *std[2], *dx[2], *dg[2], *db[2];

  for (int k = 0; k < 2; k++)
    {
      y[k] = g_memdup2 (x, MAX (n, 1) * sizeof (float));
      keep[k] = g_new0 (float, MAX (n, 1));
      mean[k] = g_memdup2 (mean0, MAX (channels, 1) * sizeof (float));
      var[k] = g_memdup2 (var0, MAX (channels, 1) * sizeof (float));
      std[k] = g_new0 (float, MAX (channels, 1));
      dx[k] = g_memdup2 (dy, MAX (n, 1) * sizeof (float));
      dg[k] = g_memdup2 (d_gamma0, MAX (channels, 1) * sizeof (float));
      db[k] = g_memdup2 (d_beta0, MAX (channels, 1) * sizeof (float));
    }
  /* in place, as the layers run in a net */
  g_assert_cmpint (ct_cpu_batch_norm_forward (outer, channels, inner, batch_stats, 1e-5f, y[0],
                                              mean[0], var[0], std[0], y[0], keep[0]),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_scale_bias_forward (outer, channels, inner, y[0], gamma,
                                              bias ? beta : NULL, y[0]), ==, CT_STATUS_OK);
  if (relu)
    g_assert_cmpint (ct_cpu_relu_forward (n, slope, y[0], y[0]), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_norm_chain_forward (outer, channels, inner, batch_stats, 1e-5f, y[1],
                                              mean[1], var[1], std[1], y[1], keep[1], gamma,
                                              bias ? beta : NULL, relu, slope),
                   ==, CT_STATUS_OK);
  assert_same_bits (y[1], y[0], n, "chain forward: y");
  assert_same_bits (keep[1], keep[0], n, "chain forward: kept");
  assert_same_bits (mean[1], mean[0], channels, "chain forward: mean");
  assert_same_bits (var[1], var[0], channels, "chain forward: variance");
  assert_same_bits (std[1], std[0], channels, "chain forward: std");
  if (!batch_stats)
    goto out;

  {
    const float *g = dy;
    g_autofree float *out = g_new0 (float, MAX (n, 1));

    if (relu)
      {
        g_assert_cmpint (ct_cpu_relu_backward (n, slope, y[0], dy, dx[0]), ==, CT_STATUS_OK);
        g = dx[0];
      }
    g_assert_cmpint (ct_cpu_scale_bias_backward (outer, channels, inner, g, keep[0], gamma, 1,
                                                 dg[0], bias ? db[0] : NULL, dx[0]),
                     ==, CT_STATUS_OK);
    g_assert_cmpint (ct_cpu_channel_normalize_backward (outer, channels, inner, keep[0],
                                                        dx[0], std[0], dx[0]),
                     ==, CT_STATUS_OK);
    /* in place, as in a net, and into another array */
    g_assert_cmpint (ct_cpu_norm_chain_backward (outer, channels, inner, relu, slope, y[1],
                                                 keep[1], std[1], gamma, dx[1], dg[1],
                                                 bias ? db[1] : NULL, dx[1]),
                     ==, CT_STATUS_OK);
    assert_same_bits (dx[1], dx[0], n, "chain backward: dx");
    assert_same_bits (dg[1], dg[0], channels, "chain backward: scale diff");
    assert_same_bits (db[1], db[0], channels, "chain backward: bias diff");
    memcpy (dg[1], d_gamma0, channels * sizeof (float));
    memcpy (db[1], d_beta0, channels * sizeof (float));
    g_assert_cmpint (ct_cpu_norm_chain_backward (outer, channels, inner, relu, slope, y[1],
                                                 keep[1], std[1], gamma, dy, dg[1],
                                                 bias ? db[1] : NULL, out),
                     ==, CT_STATUS_OK);
    assert_same_bits (out, dx[0], n, "chain backward into another array: dx");
    assert_same_bits (dg[1], dg[0], channels, "chain backward into another array: scale diff");
  }

out:
  for (int k = 0; k < 2; k++)
    {
      g_free (y[k]);
      g_free (keep[k]);
      g_free (mean[k]);
      g_free (var[k]);
      g_free (std[k]);
      g_free (dx[k]);
      g_free (dg[k]);
      g_free (db[k]);
    }
}

/* ResNet's 7x7 and 14x14 planes, rows that are not a multiple of the
 * lanes, channels that fill several blocks and chunks of the pool, a
 * channel longer than a block, an empty batch, and rows shorter than the
 * lanes (the three kernels in turn); a negative size is refused. */
static void
test_chain (void)
{
  static const int64_t chain_shapes[][3] = {
    { 4, 40, 49 }, { 3, 300, 196 }, { 2, 70, 1024 }, { 1, 600, 16 }, { 2, 5, 9 },
    { 2, 1, 70000 }, { 0, 3, 8 }, { 3, 7, 1 }, { 2, 3, 5 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1234);
  float one = 1.0f;

  for (gsize i = 0; i < G_N_ELEMENTS (chain_shapes); i++)
    for (int v = 0; v < 8; v++)
      check_chain (rand, chain_shapes[i], v & 1, (v & 2) != 0, (v & 4) ? 0.1f : 0.0f,
                   TRUE);
  /* stored statistics: forward only */
  check_chain (rand, chain_shapes[1], TRUE, TRUE, 0.0f, FALSE);
  g_assert_cmpint (ct_cpu_norm_chain_forward (-1, 1, 7, 1, 1e-5f, &one, &one, &one, &one, &one,
                                              NULL, &one, NULL, 1, 0.0f),
                   ==, CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/normalization/forward", test_forward);
  g_test_add_func ("/kernels/normalization/backward", test_backward);
  g_test_add_func ("/kernels/normalization/chain", test_chain);
  return g_test_run ();
}
