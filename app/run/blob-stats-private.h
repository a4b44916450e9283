/* blob-stats-private.h: the statistics' parallel path, for its test. */
#pragma once

#include "blob-stats.h"

G_BEGIN_DECLS

/* Fill STATS (zeroed) with the statistics of the COUNT floats at VALUES,
 * the kernel's lanes cut into N_GROUPS groups (1, 2 or 4) and the
 * histogram into N_SLICES slices (1 to 16), on the CPU pool, copying them
 * to COPY when not NULL: the kernel's
 * results bit for bit whatever the cut. ct_blob_stats_compute takes this
 * path for large arrays when the pool has threads to spare. */
void ct_blob_stats_compute_lanes (CtBlobStats *stats, const float *values, gint64 count,
                                  float *copy, int n_groups, int n_slices);

/* Whether the histogram may be counted with AVX2 where the CPU has it
 * (the default): tests turn it off to check the SSE2 path too. */
void ct_blob_stats_set_avx2 (gboolean use);

G_END_DECLS
