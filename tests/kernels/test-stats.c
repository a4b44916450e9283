/* test-stats.c: ct_cpu_stats (kernels/stats.h) against hand-computed
 * cases: a small array worked out on paper, NaN and infinities left out of
 * the moments but counted, the empty array, a constant array, the
 * histogram's edges, precision on a large offset (where E[x²] - E[x]²
 * would cancel), blocks with and without non-finite values against a
 * plain loop, and refusal of bad arguments. */
#include <glib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "parallel.h"
#include "stats.h"
#include "switches.h"

static void
test_hand_computed (void)
{
  /* 1, -2, 0, 3, 0, 4: sum 6, mean 1, squares 1+4+9+16 = 30,
   * deviations 0+9+1+4+1+9 = 24 → std 2, L2 √30, zeros 2 of 6. */
  const float x[] = { 1, -2, 0, 3, 0, 4 };
  int64_t bins[3];
  CtStats s;

  g_assert_cmpint (ct_cpu_stats (6, x, 3, bins, &s), ==, CT_STATUS_OK);
  g_assert_cmpint (s.count, ==, 6);
  g_assert_cmpint (s.n_finite, ==, 6);
  g_assert_cmpint (s.n_zeros, ==, 2);
  g_assert_cmpint (s.n_nan, ==, 0);
  g_assert_cmpint (s.n_inf, ==, 0);
  g_assert_cmpfloat (s.min, ==, -2.0);
  g_assert_cmpfloat (s.max, ==, 4.0);
  g_assert_cmpfloat (s.mean, ==, 1.0);
  g_assert_cmpfloat (s.std, ==, 2.0);
  g_assert_cmpfloat_with_epsilon (s.l2_norm, sqrt (30.0), 1e-15);
  g_assert_cmpfloat_with_epsilon (s.zero_share, 1.0 / 3.0, 1e-15);
  /* Bins of width 2 over [-2, 4]: [-2, 0) holds -2; [0, 2) holds 0, 0, 1;
   * [2, 4] holds 3 and the maximum 4. */
  g_assert_cmpint (bins[0], ==, 1);
  g_assert_cmpint (bins[1], ==, 3);
  g_assert_cmpint (bins[2], ==, 2);
}

static void
test_non_finite (void)
{
  const float x[] = { NAN, 2, INFINITY, -0.0f, -INFINITY, 6, NAN };
  int64_t bins[2];
  CtStats s;

  g_assert_cmpint (ct_cpu_stats (G_N_ELEMENTS (x), x, 2, bins, &s), ==, CT_STATUS_OK);
  g_assert_cmpint (s.count, ==, 7);
  g_assert_cmpint (s.n_nan, ==, 2);
  g_assert_cmpint (s.n_inf, ==, 2);
  g_assert_cmpint (s.n_finite, ==, 3);
  g_assert_cmpint (s.n_zeros, ==, 1); /* -0 is an exact zero */
  g_assert_cmpfloat (s.min, ==, 0.0);
  g_assert_false (signbit (s.min)); /* and the minimum reads 0, not -0 */
  g_assert_cmpfloat (s.max, ==, 6.0);
  g_assert_cmpfloat (s.mean, ==, 8.0 / 3.0);
  /* Deviations from 8/3: (8/3)², (2/3)², (10/3)² → (64 + 4 + 100) / 9 / 3. */
  g_assert_cmpfloat_with_epsilon (s.std, sqrt (168.0 / 27.0), 1e-14);
  g_assert_cmpfloat_with_epsilon (s.l2_norm, sqrt (40.0), 1e-14);
  g_assert_cmpfloat_with_epsilon (s.zero_share, 1.0 / 7.0, 1e-15);
  g_assert_cmpint (bins[0], ==, 2);
  g_assert_cmpint (bins[1], ==, 1);
}

static void
test_empty_and_constant (void)
{
  const float nothing_finite[] = { NAN, INFINITY };
  const float same[] = { 2.5f, 2.5f, 2.5f, 2.5f };
  int64_t bins[4] = { 9, 9, 9, 9 };
  CtStats s;

  g_assert_cmpint (ct_cpu_stats (0, NULL, 4, bins, &s), ==, CT_STATUS_OK);
  g_assert_cmpint (s.count, ==, 0);
  g_assert_cmpfloat (s.min, ==, 0.0);
  g_assert_cmpfloat (s.max, ==, 0.0);
  g_assert_cmpfloat (s.std, ==, 0.0);
  g_assert_cmpfloat (s.zero_share, ==, 0.0);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (bins[i], ==, 0);

  g_assert_cmpint (ct_cpu_stats (2, nothing_finite, 4, bins, &s), ==, CT_STATUS_OK);
  g_assert_cmpint (s.n_finite, ==, 0);
  g_assert_cmpfloat (s.mean, ==, 0.0);
  g_assert_cmpfloat (s.l2_norm, ==, 0.0);

  g_assert_cmpint (ct_cpu_stats (4, same, 4, bins, &s), ==, CT_STATUS_OK);
  g_assert_cmpfloat (s.min, ==, 2.5);
  g_assert_cmpfloat (s.max, ==, 2.5);
  g_assert_cmpfloat (s.mean, ==, 2.5);
  g_assert_cmpfloat (s.std, ==, 0.0);
  g_assert_cmpfloat (s.l2_norm, ==, 5.0);
  g_assert_cmpint (bins[0], ==, 4);
  g_assert_cmpint (bins[1] + bins[2] + bins[3], ==, 0);

  /* No histogram wanted. */
  g_assert_cmpint (ct_cpu_stats (4, same, 0, NULL, &s), ==, CT_STATUS_OK);
  g_assert_cmpfloat (s.mean, ==, 2.5);
}

/* 10⁶ values 1e4 + (i % 2 ? 1 : -1): mean 1e4, std exactly 1. In float,
 * or with one pass of E[x²] - E[x]², the 1e8 squares swallow the answer. */
static void
test_precision (void)
{
  const int64_t n = 1000000;
  g_autofree float *x = g_new (float, n);
  int64_t bins[2];
  CtStats s;

  for (int64_t i = 0; i < n; i++)
    x[i] = 10000.0f + (i % 2 ? 1.0f : -1.0f);
  g_assert_cmpint (ct_cpu_stats (n, x, 2, bins, &s), ==, CT_STATUS_OK);
  g_assert_cmpfloat (s.mean, ==, 10000.0);
  g_assert_cmpfloat_with_epsilon (s.std, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.l2_norm, sqrt ((double) n * (1e8 + 1.0)), 1e-6);
  g_assert_cmpint (bins[0], ==, n / 2);
  g_assert_cmpint (bins[1], ==, n / 2);
}

/* Several blocks, some with a NaN or an infinity and some without: the
 * same numbers as a plain loop in long double over the finite values. */
static void
test_blocks (void)
{
  const int64_t n = 5000;
  g_autofree float *x = g_new (float, n);
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);

  for (int with_odd = 0; with_odd < 2; with_odd++)
    {
      long double sum = 0, sumsq = 0, dev = 0;
      double lo = INFINITY, hi = -INFINITY;
      int64_t finite = 0, zeros = 0, bins[8], total = 0;
      CtStats s;

      for (int64_t i = 0; i < n; i++)
        x[i] = i % 97 == 0 ? 0.0f : (float) g_rand_double_range (rand, -3.0, 5.0);
      if (with_odd)
        {
          x[1500] = NAN;
          x[4100] = -INFINITY;
          x[4999] = NAN;
        }
      for (int64_t i = 0; i < n; i++)
        if (isfinite (x[i]))
          {
            finite++;
            zeros += x[i] == 0.0f;
            sum += x[i];
            sumsq += (long double) x[i] * x[i];
            lo = MIN (lo, x[i]);
            hi = MAX (hi, x[i]);
          }
      for (int64_t i = 0; i < n; i++)
        if (isfinite (x[i]))
          dev += (x[i] - sum / finite) * (x[i] - sum / finite);

      g_assert_cmpint (ct_cpu_stats (n, x, 8, bins, &s), ==, CT_STATUS_OK);
      g_assert_cmpint (s.n_finite, ==, finite);
      g_assert_cmpint (s.n_nan, ==, with_odd ? 2 : 0);
      g_assert_cmpint (s.n_inf, ==, with_odd ? 1 : 0);
      g_assert_cmpint (s.n_zeros, ==, zeros);
      g_assert_cmpfloat (s.min, ==, lo);
      g_assert_cmpfloat (s.max, ==, hi);
      g_assert_cmpfloat_with_epsilon (s.mean, (double) (sum / finite), 1e-12);
      g_assert_cmpfloat_with_epsilon (s.std, sqrt ((double) (dev / finite)), 1e-12);
      g_assert_cmpfloat_with_epsilon (s.l2_norm, sqrt ((double) sumsq), 1e-9);
      for (int b = 0; b < 8; b++)
        total += bins[b];
      g_assert_cmpint (total, ==, finite);
    }
}

static void
test_invalid (void)
{
  const float x[] = { 1 };
  int64_t bins[1];
  CtStats s = { .count = 42 };

  g_assert_cmpint (ct_cpu_stats (-1, x, 1, bins, &s), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats (1, x, -1, bins, &s), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats (1, x, 1, NULL, &s), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats (1, NULL, 1, bins, &s), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats (1, x, 1, bins, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (s.count, ==, 42);
}

/* ct_cpu_stats_lanes against ct_cpu_stats, to the bit: odd lengths (the
 * vector loops' tails), NaN and infinities in some blocks only, every cut
 * of lanes and slices, with and without AVX2, with and without a copy. */
static void
test_lanes_same_bits (void)
{
  static const int64_t sizes[] = { 0, 1, 7, 1023, 1025, 4099, 70001 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);

  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (int special = 0; special < 2; special++)
      {
        int64_t n = sizes[k];
        g_autofree float *x = g_new (float, MAX (n, 1));
        g_autofree float *copy = g_new (float, MAX (n, 1));
        int64_t want_bins[32], got_bins[32];
        CtStats want, got;

        for (int64_t i = 0; i < n; i++)
          x[i] = (float) g_rand_double_range (rand, -3.0, 5.0) * (i % 13 == 0 ? 0.0f : 1.0f);
        if (special && n > 600)
          {
            x[5] = NAN;
            x[n - 2] = INFINITY;
            x[n / 2] = -INFINITY;
          }
        g_assert_cmpint (ct_cpu_stats (n, x, 32, want_bins, &want), ==, CT_STATUS_OK);
        for (int avx2 = 0; avx2 < 2; avx2++)
          for (int groups = 1; groups <= 4; groups *= 2)
            for (int slices = 1; slices <= 16; slices += 5)
              {
                int before = ct_cpu_stats_set_avx2 (avx2);

                memset (copy, 0xa5, (gsize) MAX (n, 1) * sizeof (float));
                g_assert_cmpint (ct_cpu_stats_lanes (n, x, copy, 32, got_bins, groups, slices,
                                                     &got), ==, CT_STATUS_OK);
                ct_cpu_stats_set_avx2 (before);
                g_assert_cmpmem (&got, sizeof got, &want, sizeof want);
                g_assert_cmpmem (got_bins, sizeof got_bins, want_bins, sizeof want_bins);
                g_assert_cmpmem (copy, (gsize) n * sizeof (float), x, (gsize) n * sizeof (float));
              }
      }
}

static void
test_lanes_invalid (void)
{
  float x[4] = { 1, 2, 3, 4 };
  int64_t bins[CT_STATS_LANES_MAX_BINS + 1];
  CtStats st;

  g_assert_cmpint (ct_cpu_stats_lanes (-1, x, NULL, 4, bins, 1, 1, &st), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats_lanes (4, x, NULL, 0, bins, 1, 1, &st), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats_lanes (4, x, NULL, CT_STATS_LANES_MAX_BINS + 1, bins, 1, 1, &st),
                   ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_stats_lanes (4, x, NULL, 4, bins, 3, 1, &st), ==, CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/stats/hand-computed", test_hand_computed);
  g_test_add_func ("/kernels/stats/non-finite", test_non_finite);
  g_test_add_func ("/kernels/stats/empty-and-constant", test_empty_and_constant);
  g_test_add_func ("/kernels/stats/precision", test_precision);
  g_test_add_func ("/kernels/stats/blocks", test_blocks);
  g_test_add_func ("/kernels/stats/invalid", test_invalid);
  g_test_add_func ("/kernels/stats/lanes-same-bits", test_lanes_same_bits);
  g_test_add_func ("/kernels/stats/lanes-invalid", test_lanes_invalid);
  return g_test_run ();
}
