/* rmsprop.c: RMSProp, Caffe's "RMSProp": the rate divided by the root of a
 * decaying mean (rms_decay) of squared gradients, plus delta. As in Caffe,
 * no momentum, and rms_decay in [0, 1). */
#include <glib/gi18n-lib.h>

#include "solver-private.h"
#include "solver-update.h"

static gboolean
rmsprop_check (const Caffe__SolverParameter *param, const char **field_out, GError **error)
{
  if (param->momentum != 0.0f)
    {
      *field_out = "momentum";
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                   _("momentum cannot be used with RMSProp; remove it or set it to 0"));
      return FALSE;
    }
  if (!(param->rms_decay >= 0.0f && param->rms_decay < 1.0f))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      *field_out = "rms_decay";
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                   _("rms_decay must lie in [0, 1), not %s"),
                   ct_solver_format_number (buf, param->rms_decay));
      return FALSE;
    }
  return TRUE;
}

static gboolean
rmsprop_compute_update (CtSolver *solver, guint learnable_id, float rate, float *diff,
                        gint64 n, gboolean gpu, GError **error)
{
  float *history = ct_solver_history_on (solver, 0, learnable_id, gpu, error);

  return history != NULL &&
         ct_solver_check_update ((gpu ? ct_cuda_rmsprop_update : ct_cpu_rmsprop_update)
                                   (n, solver->param->rms_decay, solver->param->delta, rate,
                                    diff, history),
                                 error);
}

const CtSolverType ct_solver_type_rmsprop = {
  .name = "RMSProp",
  .n_history_sets = 1,
  .check = rmsprop_check,
  .compute_update = rmsprop_compute_update,
};
