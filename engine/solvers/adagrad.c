/* adagrad.c: AdaGrad, Caffe's "AdaGrad": each weight's rate divided by the
 * root of its summed squared gradients (plus delta). Caffe refuses momentum
 * with it, and so do we. */
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "solver-private.h"
#include "solver-update.h"

static gboolean
adagrad_check (const Caffe__SolverParameter *param, const char **field_out, GError **error)
{
  if (param->momentum != 0.0f)
    {
      *field_out = "momentum";
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                   _("momentum cannot be used with AdaGrad; remove it or set it to 0"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
adagrad_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff,
                        gint64 n, gboolean gpu, GError **error)
{
  float *history = ct_solver_history_on (solver, 0, learnable_id, gpu, error);

  return history != NULL &&
         ct_solver_check_update ((gpu ? ct_cuda_adagrad_update : ct_cpu_adagrad_update)
                                   (n, solver->param->delta, rate, diff, history),
                                 error);
}

const CtSolverType ct_solver_type_adagrad = {
  .name = "AdaGrad",
  .n_history_sets = 1,
  .check = adagrad_check,
  .compute_update = adagrad_compute_update,
};
