/* apply-update.c: one update of the learnable parameters, in Caffe's
 * order (SGDSolver::ApplyUpdate): clip the gradients by their global L2
 * norm; then per parameter: scale by 1/iter_size, add the weight-decay
 * gradient (weight_decay times its decay_mult, L2 or L1), turn the result
 * into a step with the update rule at the learning rate times its lr_mult;
 * finally data -= step for every parameter. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "blas.h"
#include "engine-error.h"
#include "solver-private.h"
#include "solver-update.h"

static gboolean
clip_gradients (CtSolver *solver, GError **error)
{
  const float clip = solver->param->clip_gradients;
  CtNet *net = solver->net;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];
  float sumsq = 0.0f, norm, scale;

  if (clip < 0.0f)
    return TRUE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    {
      g_autoptr (GError) local = NULL;

      sumsq += ct_blob_sumsq_diff (ct_net_get_learnable (net, i)->blob, &local);
      if (local != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
    }
  norm = sqrtf (sumsq);
  if (!(norm > clip))
    return TRUE;
  scale = clip / norm;
  CT_SOLVER_LOG (solver, "Gradient clipping: scaling down gradients (L2 norm %s > %s) "
                 "by scale factor %s", ct_solver_format_number (a, norm),
                 ct_solver_format_number (b, clip), ct_solver_format_number (c, scale));
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    if (!ct_blob_scale_diff (ct_net_get_learnable (net, i)->blob, scale, error))
      return FALSE;
  return TRUE;
}

static gboolean
check (CtStatus status, GError **error)
{
  return ct_engine_check_status (status, _("Updating the parameters"), error);
}

static gboolean
regularize (CtSolver *solver, const CtNetLearnable *learnable, float *diff, gint64 n,
            GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  const float local_decay = p->weight_decay * learnable->decay_mult;
  const float *data;

  if (local_decay == 0.0f)
    return TRUE;
  data = ct_blob_cpu_data (learnable->blob, error);
  if (data == NULL)
    return FALSE;
  if (strcmp (p->regularization_type, "L1") == 0)
    return check (ct_cpu_l1_decay (n, local_decay, data, diff), error);
  return check (ct_cpu_axpy (n, local_decay, data, diff), error);
}

static gboolean
update_one (CtSolver *solver, guint learnable_id, float rate, GError **error)
{
  const CtNetLearnable *learnable = ct_net_get_learnable (solver->net, learnable_id);
  gint64 n = ct_blob_count (learnable->blob);
  float *diff = ct_blob_mutable_cpu_diff (learnable->blob, error);

  if (diff == NULL)
    return FALSE;
  if (solver->param->iter_size > 1 &&
      !check (ct_cpu_scal (n, 1.0f / (float) solver->param->iter_size, diff), error))
    return FALSE;
  if (!regularize (solver, learnable, diff, n, error))
    return FALSE;
  return check (solver->type->compute_update (solver, learnable_id,
                                              rate * learnable->lr_mult, diff, n), error);
}

gboolean
ct_solver_apply_update (CtSolver *solver, float rate, GError **error)
{
  CtNet *net = solver->net;

  if (!clip_gradients (solver, error))
    return FALSE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    if (!update_one (solver, i, rate, error))
      return FALSE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    if (!ct_blob_update (ct_net_get_learnable (net, i)->blob, error))
      return FALSE;
  return TRUE;
}
