/* data-shard.h: which share of a database the Data layers of this thread
 * read in the TRAIN phase, as Caffe's solver_rank and solver_count say.
 *
 * With N solvers training one net data-parallel (processes under MPI, or
 * threads with one GPU each), solver R reads record i only when
 * i mod N == R, so that N solvers with batch B see in each iteration the
 * records one solver with batch N·B sees. TEST phases read every record.
 * The share is per thread (each solver thread sets its own before it
 * builds its nets) and is read when a Data layer is set up; the default,
 * solver 0 of 1, reads everything. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void ct_data_shard_set (guint rank, guint count);
void ct_data_shard_get (guint *rank, guint *count);

G_END_DECLS
