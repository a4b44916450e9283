/* run-diff.h: how an earlier training run's settings differ from the
 * current run's, for the Training view to say beside its legend. Each
 * solver setting that differs ("base_lr 0.01→0.001"), each data layer's
 * batch size that differs, and one line for the rest of the net ("net
 * changed: conv1 num_output 20→50, conv3 added"), earlier values first.
 * The nets are the solvers' net_param (the window puts the net trained
 * there); the fields the window sets itself (the net's file names, the
 * snapshot prefix) are left out. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

/* The differences as translated lines (a GPtrArray of strings), empty when
 * the runs' settings are the same. */
GPtrArray *ct_run_diff_lines (const Caffe__SolverParameter *earlier,
                              const Caffe__SolverParameter *current);

/* LINES joined by ", ", at most MAX_LINES of them then "…"; NULL when
 * there are none. */
char *ct_run_diff_summary (GPtrArray *lines, guint max_lines);

G_END_DECLS
