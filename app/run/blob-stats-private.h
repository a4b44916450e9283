/* blob-stats-private.h: the statistics' parallel path, for its test. */
#pragma once

#include "blob-stats.h"

G_BEGIN_DECLS

/* Fill STATS with the statistics of the COUNT floats at VALUES through
 * ct_cpu_stats_lanes, its lanes cut into N_GROUPS groups (1, 2 or 4) and
 * the histogram into N_SLICES slices (1 to 16), copying them to COPY when
 * not NULL: ct_cpu_stats's results bit for bit whatever the cut.
 * ct_blob_stats_compute takes this path for large arrays. */
void ct_blob_stats_compute_lanes (CtBlobStats *stats, const float *values, gint64 count,
                                  float *copy, int n_groups, int n_slices);

G_END_DECLS
