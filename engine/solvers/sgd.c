/* sgd.c: stochastic gradient descent with momentum, Caffe's "SGD":
 * h = momentum * h + rate * g, then the step is h. */
#include "solver-private.h"
#include "solver-update.h"

static CtStatus
sgd_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff, gint64 n)
{
  float *history = ct_blob_mutable_cpu_data (ct_solver_history_blob (solver, 0, learnable_id),
                                             NULL);

  if (history == NULL)
    return CT_STATUS_OUT_OF_MEMORY;
  return ct_cpu_sgd_update (n, solver->param->momentum, rate, diff, history);
}

const CtSolverType ct_solver_type_sgd = {
  .name = "SGD",
  .n_history_sets = 1,
  .compute_update = sgd_compute_update,
};
