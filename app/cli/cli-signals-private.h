/* cli-signals-private.h: Caffe's SIGINT and SIGHUP effects for `cortado-cli
 * train` (see cli-signals.c for why a thread takes them, not a handler). */
#pragma once

#include "solver.h"

G_BEGIN_DECLS

/* Block SIGINT and SIGHUP in this thread, and so in every thread it starts
 * from now on, and start the thread that waits for them. Call it before
 * any other thread is started (MPI, solvers, data prefetchers). Until a
 * solver is watched, a signal whose effect is STOP ends the process, and a
 * SNAPSHOT is kept for the solver's first iteration. FALSE when the thread
 * cannot be started (nothing is blocked then). */
gboolean ct_cli_signals_start (CtSolverAction on_int, CtSolverAction on_hup);
/* From now on each SIGINT and SIGHUP is a request to SOLVER (borrowed;
 * NULL before it is freed: from then on the signals are dropped). */
void ct_cli_signals_watch (CtSolver *solver);
/* End the watching thread. The signals stay blocked (and so are dropped)
 * when a solver was watched; otherwise they are unblocked again. */
void ct_cli_signals_stop (void);

G_END_DECLS
