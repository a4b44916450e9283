/* data-parallel.h: CtDataParallel, which makes a solver one of N that
 * train the same net together, with Caffe's semantics:
 *
 * - at the start, rank 0's weights (and solver history) go to every rank,
 *   so that all ranks begin equal whatever their fillers drew;
 * - each iteration the parameter gradients are summed over the ranks and
 *   divided by N (so N ranks with batch B step as one process with batch
 *   N·B; the learning rate is unchanged), then every rank applies the same
 *   update to the same weights;
 * - the sums start layer by layer as the backward pass leaves each layer,
 *   in buckets of a few MB, so that they travel while the layers below
 *   compute (with iter_size > 1, on the last pass only);
 * - stop and snapshot requests are agreed by all ranks between iterations;
 *   only rank 0 tests, logs and snapshots.
 *
 * The ranks' data shares are set apart from this (ct_data_shard_set,
 * before the solver builds its nets). */
#pragma once

#include "comm.h"
#include "solver.h"

G_BEGIN_DECLS

typedef struct _CtDataParallel CtDataParallel;

/* The default size of a bucket of gradients. */
#define CT_DATA_PARALLEL_BUCKET_BYTES (4u << 20)

/* Join SOLVER (borrowed; it must outlive the result) to COMM's ranks
 * (borrowed). BUCKET_BYTES: how many bytes of gradients travel together.
 * A COMM that sums in device memory (NCCL) needs a solver on the GPU; the
 * buckets are then on the GPU too. */
CtDataParallel *ct_data_parallel_new (CtSolver *solver, CtComm *comm, gsize bucket_bytes,
                                      GError **error);
void ct_data_parallel_free (CtDataParallel *dp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtDataParallel, ct_data_parallel_free)

/* Give every rank rank 0's weights and solver history (after a restore,
 * before training). */
gboolean ct_data_parallel_broadcast_state (CtDataParallel *dp, GError **error);

/* What the exchanges cost so far. */
typedef struct {
  guint64 iterations;       /* gradient exchanges done */
  guint64 floats;           /* floats summed per exchange */
  guint n_buckets;
  double blocked_seconds;   /* waiting for sums once the backward was done */
  double busy_seconds;      /* every moment spent in the exchange's code */
} CtDataParallelStats;

void ct_data_parallel_get_stats (const CtDataParallel *dp, CtDataParallelStats *stats);

G_END_DECLS
