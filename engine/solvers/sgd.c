/* sgd.c: stochastic gradient descent with momentum, Caffe's "SGD":
 * h = momentum * h + rate * g, then the step is h. */
#include "solver-private.h"
#include "solver-update.h"

static gboolean
sgd_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff, gint64 n,
                    gboolean gpu, GError **error)
{
  float *history = ct_solver_history_on (solver, 0, learnable_id, gpu, error);

  return history != NULL &&
         ct_solver_check_update ((gpu ? ct_cuda_sgd_update : ct_cpu_sgd_update)
                                   (n, solver->param->momentum, rate, diff, history),
                                 error);
}

static gboolean
sgd_compute_and_apply (CtSolver *solver, guint learnable_id, float rate, float decay,
                       float *diff, float *data, gint64 n, GError **error)
{
  float *history = ct_solver_history_on (solver, 0, learnable_id, FALSE, error);

  return history != NULL &&
         ct_solver_check_update (ct_cpu_sgd_step (n, solver->param->momentum, rate, decay,
                                                  diff, history, data),
                                 error);
}

const CtSolverType ct_solver_type_sgd = {
  .name = "SGD",
  .n_history_sets = 1,
  .compute_update = sgd_compute_update,
  .compute_and_apply = sgd_compute_and_apply,
};
