/* blob-stats.c: statistics of a blob's data or diff, shared between the
 * runner's snapshots and `cortado-cli forward --stats`. Small arrays go to
 * ct_cpu_stats, large ones to ct_cpu_stats_lanes (kernels/stats.h), whose
 * results are the same bit for bit.
 *
 * A step through a net computes the statistics of every blob it wrote
 * (AlexNet's conv1 at batch 10 is 2.9 million values, fc6's weight
 * gradient 37.7 million), so the large path matters. Its lanes stay in one
 * group: every group reads the whole array, and on a machine with few
 * cores any split is slower than one thread. Only with four threads or
 * more in the pool is the histogram counted beside the deviations.
 *
 * The runner copies the blobs the window shows and computes their
 * statistics at the same time (ct_blob_stats_compute_copy): the kernel's
 * first pass copies each block before it reads it, so the array comes
 * from memory once for both. */
#include <math.h>
#include <string.h>

#include "blob-stats-private.h"
#include "parallel.h"

/* Below this many values ct_cpu_stats is as quick. */
#define LANES_MIN ((gint64) 1 << 15)
/* With this many threads in the pool, the histogram is counted beside the
 * deviations. */
#define PARALLEL_MIN_THREADS 4

G_STATIC_ASSERT (CT_BLOB_STATS_BINS <= CT_STATS_LANES_MAX_BINS);

void
ct_blob_stats_compute_lanes (CtBlobStats *stats, const float *values, gint64 count,
                             float *copy, int n_groups, int n_slices)
{
  CtStatus status = ct_cpu_stats_lanes (count, values, copy, CT_BLOB_STATS_BINS,
                                        stats->histogram, n_groups, n_slices, &stats->stats);

  g_return_if_fail (status == CT_STATUS_OK);
}

CtBlobStats *
ct_blob_stats_compute (const float *values, gint64 count)
{
  return ct_blob_stats_compute_copy (values, count, NULL);
}

CtBlobStats *
ct_blob_stats_compute_copy (const float *values, gint64 count, float *copy)
{
  CtBlobStats *stats = g_atomic_rc_box_new0 (CtBlobStats);
  int threads;
  CtStatus status;

  g_return_val_if_fail (count >= 0, stats);
  if (count >= LANES_MIN)
    {
      threads = ct_cpu_num_threads ();
      ct_blob_stats_compute_lanes (stats, values, count, copy, 1,
                                   threads >= PARALLEL_MIN_THREADS ? threads - 1 : 1);
      return stats;
    }
  if (copy != NULL)
    memcpy (copy, values, (gsize) count * sizeof (float));
  status = ct_cpu_stats (count, values, CT_BLOB_STATS_BINS, stats->histogram, &stats->stats);
  /* Only arguments out of range fail, which the checks above exclude. */
  g_warn_if_fail (status == CT_STATUS_OK);
  return stats;
}

CtBlobStats *
ct_blob_stats_ref (CtBlobStats *stats)
{
  return g_atomic_rc_box_acquire (stats);
}

void
ct_blob_stats_unref (CtBlobStats *stats)
{
  if (stats != NULL)
    g_atomic_rc_box_release (stats);
}

double
ct_blob_stats_health (const CtBlobStats *data, const CtBlobStats *diff)
{
  double data_norm = data->stats.l2_norm, diff_norm = diff->stats.l2_norm;

  if (data->stats.n_nan + data->stats.n_inf + diff->stats.n_nan + diff->stats.n_inf > 0)
    return NAN;
  if (diff_norm == 0.0)
    return 0.0;
  if (data_norm == 0.0)
    return INFINITY;
  return diff_norm / data_norm;
}
