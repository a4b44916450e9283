/* adadelta.c: AdaDelta, Caffe's "AdaDelta": decaying means (with
 * `momentum` as the decay) of squared gradients and of squared steps; the
 * step is the gradient times the ratio of their roots (each sum plus
 * delta), times the learning rate. Two history sets: gradients, then
 * steps. */
#include "solver-private.h"
#include "solver-update.h"

static CtStatus
adadelta_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff,
                         gint64 n)
{
  float *grads = ct_blob_mutable_cpu_data (ct_solver_history_blob (solver, 0, learnable_id),
                                           NULL);
  float *steps = ct_blob_mutable_cpu_data (ct_solver_history_blob (solver, 1, learnable_id),
                                           NULL);

  if (grads == NULL || steps == NULL)
    return CT_STATUS_OUT_OF_MEMORY;
  return ct_cpu_adadelta_update (n, solver->param->momentum, solver->param->delta, rate,
                                 diff, grads, steps);
}

const CtSolverType ct_solver_type_adadelta = {
  .name = "AdaDelta",
  .n_history_sets = 2,
  .compute_update = adadelta_compute_update,
};
