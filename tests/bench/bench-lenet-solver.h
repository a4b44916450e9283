/* bench-lenet-solver.h: what the training benchmarks share: the
 * lenet-fashion example's solver written into a scratch folder with its
 * LMDBs (LeNet on DummyData when the example or the dataset is missing),
 * set to train only (no tests, no snapshots), and `cortado-cli train`
 * timed on it. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

/* Writes WORKDIR/lenet_solver.prototxt (and the net and LMDBs beside
 * it) for ITERS training iterations and reads it back. CLI converts the
 * dataset; DESCRIPTION (owned) says which net it is. The Data layers'
 * sources are relative: run from WORKDIR. */
Caffe__SolverParameter *ct_bench_lenet_solver (const char *workdir, const char *cli, int iters,
                                               char **solver_path, char **description);

/* Runs `CLI train --solver=SOLVER_PATH`: TRAIN gets the seconds between
 * its log's "Starting Optimization" and "Optimization Done." stamps,
 * TOTAL the whole process's. */
void ct_bench_run_cli (const char *cli, const char *solver_path, double *train, double *total);

/* A solver parameter from prototxt TEXT (aborts on an error: the
 * benchmarks' own texts). */
Caffe__SolverParameter *ct_bench_parse_solver (const char *text);
