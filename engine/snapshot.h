/* snapshot.h: the files a solver leaves behind and resumes from, in
 * Caffe's two formats.
 *
 * A snapshot is the trained net (`PREFIX_iter_N.caffemodel`) and the solver
 * state (`PREFIX_iter_N.solverstate`: the iteration, the model's file name,
 * the lr policy's current step and the solver's history blobs). With
 * `snapshot_format: HDF5` they are `.caffemodel.h5` and `.solverstate.h5`
 * in Caffe's HDF5 layout: groups `data` (and `diff`) holding one group per
 * layer with datasets "0", "1", ... for its parameter blobs; and datasets
 * `iter`, `learned_net`, `current_step` and a group `history`.
 *
 * Every file is written whole in memory first and then saved atomically, so
 * an interrupted snapshot never leaves a torn file behind. Readers take
 * files written by Cortado or by Caffe and report bad content as errors
 * naming the file. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "net.h"

G_BEGIN_DECLS

typedef Caffe__SolverParameter__SnapshotFormat CtSnapshotFormat;

/* PREFIX_iter_ITER.caffemodel (or .caffemodel.h5). */
char *ct_snapshot_model_filename (const char *prefix, int iter, CtSnapshotFormat format);
/* PREFIX_iter_ITER.solverstate (or .solverstate.h5). */
char *ct_snapshot_state_filename (const char *prefix, int iter, CtSnapshotFormat format);

/* Whether PATH names an HDF5 file by Caffe's rule: it ends in ".h5". */
gboolean ct_snapshot_path_is_hdf5 (const char *path);

/* The net's parameters as a caffemodel (binary NetParameter or HDF5), with
 * diffs when WRITE_DIFF. */
gboolean ct_snapshot_write_model (CtNet *net, const char *path, CtSnapshotFormat format,
                                  gboolean write_diff, GError **error);

/* Copy trained weights into NET from PATH: a binary caffemodel, or an HDF5
 * one when PATH ends in ".h5". Layers are matched by name; layers the file
 * has and the net lacks are ignored, as Caffe ignores them. */
gboolean ct_snapshot_load_weights (CtNet *net, const char *path, GError **error);
/* The same for each file of a comma-separated LIST, in order. */
gboolean ct_snapshot_load_weights_list (CtNet *net, const char *list, GError **error);

/* What a .solverstate holds. */
typedef struct {
  int iter;
  char *learned_net;  /* the caffemodel written with it; NULL when absent */
  int current_step;
  GPtrArray *history; /* CtBlob*, owned, shaped as stored */
} CtSolverState;

void ct_solver_state_free (CtSolverState *state);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtSolverState, ct_solver_state_free)

/* Write a solver state. HISTORY holds CtBlob* (borrowed); their data are
 * written. */
gboolean ct_solver_state_write (const char *path, CtSnapshotFormat format, int iter,
                                const char *learned_net, int current_step,
                                GPtrArray *history, GError **error);

/* Read a solver state (HDF5 when PATH ends in ".h5"). */
CtSolverState *ct_solver_state_read (const char *path, GError **error);

G_END_DECLS
