/* test-solver-common.h: what the solver tests share: solvers built from
 * prototxt text, deterministic feeding of Input layers, temporary folders
 * and weight comparisons. */
#pragma once

#include <glib.h>

#include "solver.h"
#include "test-files.h"

/* A solver from SolverParameter TEXT (parsed strictly; must parse). NULL
 * with ERROR when the solver cannot be built. */
CtSolver *ct_test_solver_new (const char *text, GError **error);
/* The same, asserting success. */
CtSolver *ct_test_solver_new_ok (const char *text);

/* An observer whose feed fills every Input top of the net being run:
 * element i of sample s (s counting across iterations and iter_size
 * passes: s = (iter * iter_size + pass) * batch + n) gets a value that
 * depends only on s, i and the blob's index k, so that a batch of 64
 * equals two batches of 32. Labels (blobs named "label") get s % 2 and the
 * data of sample s is shifted by ±1 accordingly (a learnable task). Test
 * nets use negative sample numbers so that they never see training data. */
guint ct_test_solver_feed_inputs (CtSolver *solver);

/* A fresh temporary folder (removed with its files by the cleanup). */
char *ct_test_tmpdir_new (void);

/* Whether every learnable parameter of A and B is bit for bit the same;
 * logs the first difference. */
gboolean ct_test_same_weights (CtNet *a, CtNet *b);
/* The largest absolute difference between A's and B's learnables. */
double ct_test_max_weight_diff (CtNet *a, CtNet *b);
