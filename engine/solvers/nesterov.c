/* nesterov.c: Nesterov's accelerated gradient, Caffe's "Nesterov": the
 * momentum update of SGD, stepping from where the momentum would take the
 * weights: step = (1 + momentum) * h_new - momentum * h_old. */
#include "solver-private.h"
#include "solver-update.h"

static gboolean
nesterov_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff,
                         gint64 n, gboolean gpu, GError **error)
{
  float *history = ct_solver_history_on (solver, 0, learnable_id, gpu, error);

  return history != NULL &&
         ct_solver_check_update ((gpu ? ct_cuda_nesterov_update : ct_cpu_nesterov_update)
                                   (n, solver->param->momentum, rate, diff, history),
                                 error);
}

const CtSolverType ct_solver_type_nesterov = {
  .name = "Nesterov",
  .n_history_sets = 1,
  .compute_update = nesterov_compute_update,
};
