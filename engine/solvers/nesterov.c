/* nesterov.c: Nesterov's accelerated gradient, Caffe's "Nesterov": the
 * momentum update of SGD, stepping from where the momentum would take the
 * weights: step = (1 + momentum) * h_new - momentum * h_old. */
#include "solver-private.h"
#include "solver-update.h"

static CtStatus
nesterov_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff,
                         gint64 n)
{
  float *history = ct_blob_mutable_cpu_data (ct_solver_history_blob (solver, 0, learnable_id),
                                             NULL);

  if (history == NULL)
    return CT_STATUS_OUT_OF_MEMORY;
  return ct_cpu_nesterov_update (n, solver->param->momentum, rate, diff, history);
}

const CtSolverType ct_solver_type_nesterov = {
  .name = "Nesterov",
  .n_history_sets = 1,
  .compute_update = nesterov_compute_update,
};
