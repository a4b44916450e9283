/* test-blob-stats.c: the statistics the runner and `cortado-cli forward
 * --stats` show (app/run/blob-stats.c) are the kernel's (kernels/stats.h)
 * bit for bit, also where large arrays are spread over the CPU pool: on
 * arrays whose sums depend on the order of addition (values of very
 * different sizes, over the whole float range), with zeros of both
 * signs, NaNs and infinities, all values equal, none finite; the
 * parallel path cut into 1, 2 or 4 lane groups and 1 to 15 histogram
 * slices; and the same while copying the values on the way, the copy
 * exact to the bit. meson runs it with several CT_NUM_THREADS. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "blob-stats-private.h"
#include "switches.h"

/* STATS are GOT's to the bit, and COPY holds X's N values to the bit
 * (NaN payloads, signs of zeros). */
static void
assert_same_copy (const CtBlobStats *got, const CtBlobStats *stats, const float *x,
                  const float *copy, gint64 n)
{
  g_assert_cmpmem (&stats->stats, sizeof (CtStats), &got->stats, sizeof (CtStats));
  g_assert_cmpmem (stats->histogram, sizeof stats->histogram, got->histogram,
                   sizeof got->histogram);
  g_assert_cmpmem (copy, (gsize) n * sizeof (float), x, (gsize) n * sizeof (float));
}

static void
check_same (const float *x, gint64 n)
{
  g_autoptr (CtBlobStats) got = ct_blob_stats_compute (x, n);
  g_autofree float *copy = g_new (float, n);
  CtStats want;
  gint64 bins[CT_BLOB_STATS_BINS];

  g_assert_cmpint (ct_cpu_stats (n, x, CT_BLOB_STATS_BINS, bins, &want), ==, CT_STATUS_OK);
  g_assert_cmpint (got->stats.count, ==, want.count);
  g_assert_cmpint (got->stats.n_finite, ==, want.n_finite);
  g_assert_cmpint (got->stats.n_zeros, ==, want.n_zeros);
  g_assert_cmpint (got->stats.n_nan, ==, want.n_nan);
  g_assert_cmpint (got->stats.n_inf, ==, want.n_inf);
  /* to the bit, not within a tolerance */
  g_assert_cmpmem (&got->stats.min, sizeof (double), &want.min, sizeof (double));
  g_assert_cmpmem (&got->stats.max, sizeof (double), &want.max, sizeof (double));
  g_assert_cmpmem (&got->stats.mean, sizeof (double), &want.mean, sizeof (double));
  g_assert_cmpmem (&got->stats.std, sizeof (double), &want.std, sizeof (double));
  g_assert_cmpmem (&got->stats.l2_norm, sizeof (double), &want.l2_norm, sizeof (double));
  g_assert_cmpmem (&got->stats.zero_share, sizeof (double), &want.zero_share, sizeof (double));
  g_assert_cmpmem (got->histogram, sizeof bins, bins, sizeof bins);

  /* the same while copying the values (one pass reads them for both) */
  {
    g_autoptr (CtBlobStats) copied = NULL;

    memset (copy, 0xa5, (gsize) n * sizeof (float));
    copied = ct_blob_stats_compute_copy (x, n, copy);
    assert_same_copy (got, copied, x, copy, n);
  }

  /* and the parallel path, however it is cut, copying or not */
  for (int groups = 1; groups <= 4; groups *= 2)
    for (int slices = 1; slices <= 16; slices += 7)
      {
        CtBlobStats lanes = { 0 }, copied = { 0 };

        ct_blob_stats_compute_lanes (&lanes, x, n, NULL, groups, slices);
        g_assert_cmpmem (&lanes.stats, sizeof (CtStats), &got->stats, sizeof (CtStats));
        g_assert_cmpmem (lanes.histogram, sizeof bins, bins, sizeof bins);
        memset (copy, 0xa5, (gsize) n * sizeof (float));
        ct_blob_stats_compute_lanes (&copied, x, n, copy, groups, slices);
        assert_same_copy (got, &copied, x, copy, n);
      }
}

static void
test_same_as_kernel (void)
{
  static const gint64 sizes[] = { 1000, (1 << 17) - 1, (1 << 17) + 3, 1000003, 3 << 20 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      gint64 n = sizes[s];
      g_autofree float *x = g_new (float, n);

      /* values spanning many binades: the lanes' sums round differently
       * in any other order */
      for (gint64 i = 0; i < n; i++)
        x[i] = (float) (g_rand_double_range (rand, -1.0, 1.0)
                        * pow (10.0, g_rand_int_range (rand, -6, 7)));
      check_same (x, n);

      /* zeros of both signs, an extreme at -0 */
      for (gint64 i = 0; i < n; i += 7)
        x[i] = (i / 7) % 2 == 0 ? 0.0f : -0.0f;
      check_same (x, n);

      /* the whole float range: differences to the minimum that round,
       * products at the very top of the last bin */
      {
        g_autofree float *wide = g_memdup2 (x, (gsize) n * sizeof (float));

        for (gint64 i = 0; i < n; i += 5)
          wide[i] = (float) (g_rand_double_range (rand, -1.0, 1.0)
                             * pow (10.0, g_rand_int_range (rand, -45, 39)));
        wide[n / 5] = FLT_MAX;
        wide[n / 4] = -FLT_MAX;
        wide[n / 3] = FLT_TRUE_MIN;
        check_same (wide, n);
      }

      /* NaNs and infinities here and there, not in every block */
      x[n / 3] = NAN;
      x[n / 2] = INFINITY;
      x[n - 1] = -INFINITY;
      check_same (x, n);

      /* one value everywhere: a single bin */
      for (gint64 i = 0; i < n; i++)
        x[i] = 0.25f;
      check_same (x, n);

      /* nothing finite */
      for (gint64 i = 0; i < n; i++)
        x[i] = i % 2 == 0 ? NAN : -INFINITY;
      check_same (x, n);
    }
}

/* The histogram counted with SSE2 alone (on machines with AVX2). */
static void
test_same_as_kernel_sse2 (void)
{
  ct_cpu_stats_set_avx2 (0);
  test_same_as_kernel ();
  ct_cpu_stats_set_avx2 (1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/blob-stats/same-as-kernel", test_same_as_kernel);
  g_test_add_func ("/run/blob-stats/same-as-kernel-sse2", test_same_as_kernel_sse2);
  return g_test_run ();
}
