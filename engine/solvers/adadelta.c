/* adadelta.c: AdaDelta, Caffe's "AdaDelta": decaying means (with
 * `momentum` as the decay) of squared gradients and of squared steps; the
 * step is the gradient times the ratio of their roots (each sum plus
 * delta), times the learning rate. Two history sets: gradients, then
 * steps. */
#include "solver-private.h"
#include "solver-update.h"

static gboolean
adadelta_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff,
                         gint64 n, gboolean gpu, GError **error)
{
  float *grads = ct_solver_history_on (solver, 0, learnable_id, gpu, error);
  float *steps = grads != NULL ? ct_solver_history_on (solver, 1, learnable_id, gpu, error)
                               : NULL;

  return steps != NULL &&
         ct_solver_check_update ((gpu ? ct_cuda_adadelta_update : ct_cpu_adadelta_update)
                                   (n, solver->param->momentum, solver->param->delta, rate,
                                    diff, grads, steps),
                                 error);
}

const CtSolverType ct_solver_type_adadelta = {
  .name = "AdaDelta",
  .n_history_sets = 2,
  .compute_update = adadelta_compute_update,
};
