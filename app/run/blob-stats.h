/* blob-stats.h: CtBlobStats, the statistics the workbench shows for a
 * blob's data or diff, and that `cortado-cli forward --stats` prints: the
 * kernel's CtStats (kernels/stats.h) and a histogram of CT_BLOB_STATS_BINS
 * bins over [min, max]. Immutable once computed and reference counted
 * (atomically), so that the runner's worker can hand the same statistics
 * to several snapshots, and the main thread can drop them. */
#pragma once

#include <glib.h>

#include "stats.h"

G_BEGIN_DECLS

#define CT_BLOB_STATS_BINS 32

typedef struct {
  CtStats stats;
  gint64 histogram[CT_BLOB_STATS_BINS]; /* over [stats.min, stats.max] */
} CtBlobStats;

/* The statistics of the COUNT floats at VALUES (never NULL: a COUNT below
 * 0 is a programming error and counts as 0). */
CtBlobStats *ct_blob_stats_compute (const float *values, gint64 count);
/* The same, copying the values to COPY (room for COUNT floats, apart from
 * VALUES) on the way: a big array is read once for its copy and the
 * first of the statistics' two passes. */
CtBlobStats *ct_blob_stats_compute_copy (const float *values, gint64 count, float *copy);
CtBlobStats *ct_blob_stats_ref (CtBlobStats *stats);
void ct_blob_stats_unref (CtBlobStats *stats);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtBlobStats, ct_blob_stats_unref)

/* Gradient health: ‖diff‖ / ‖data‖ over the finite values. NaN when
 * either side holds a NaN or an infinity (the window paints it red);
 * +inf when the data's norm is 0 and the diff's is not; 0 when both are
 * 0. */
double ct_blob_stats_health (const CtBlobStats *data, const CtBlobStats *diff);

G_END_DECLS
