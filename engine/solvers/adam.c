/* adam.c: Adam, Caffe's "Adam": decaying means of the gradient (beta1 =
 * momentum) and of its square (beta2 = momentum2); the step is their ratio
 * (root of the second, plus delta) times the rate with Caffe's bias
 * correction sqrt (1 - beta2^t) / (1 - beta1^t), t = iter + 1. Two history
 * sets: m, then v. */
#include <math.h>

#include "solver-private.h"
#include "solver-update.h"

static gboolean
adam_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff, gint64 n,
                     gboolean gpu, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  float *m = ct_solver_history_on (solver, 0, learnable_id, gpu, error);
  float *v = m != NULL ? ct_solver_history_on (solver, 1, learnable_id, gpu, error) : NULL;
  const int t = solver->iter + 1;
  /* in double, then float, as Caffe's mixed float/double expression */
  const float correction = (float) (sqrt (1.0 - pow (p->momentum2, t)) /
                                    (1.0 - pow (p->momentum, t)));

  return v != NULL &&
         ct_solver_check_update ((gpu ? ct_cuda_adam_update : ct_cpu_adam_update)
                                   (n, p->momentum, p->momentum2, p->delta, rate * correction,
                                    diff, m, v),
                                 error);
}

const CtSolverType ct_solver_type_adam = {
  .name = "Adam",
  .n_history_sets = 2,
  .compute_update = adam_compute_update,
};
