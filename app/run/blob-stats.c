/* blob-stats.c: statistics of a blob's data or diff, shared between the
 * runner's snapshots and `cortado-cli forward --stats`. The arithmetic is
 * the kernel's (kernels/stats.h); this file only owns the result. */
#include <math.h>

#include "blob-stats.h"

CtBlobStats *
ct_blob_stats_compute (const float *values, gint64 count)
{
  CtBlobStats *stats = g_atomic_rc_box_new0 (CtBlobStats);
  CtStatus status;

  g_return_val_if_fail (count >= 0, stats);
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
