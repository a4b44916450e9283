/* apply-update.c: one update of the learnable parameters, in Caffe's
 * order (SGDSolver::ApplyUpdate): clip the gradients by their global L2
 * norm; then per parameter: scale by 1/iter_size, add the weight-decay
 * gradient (weight_decay times its decay_mult, L2 or L1), turn the result
 * into a step with the update rule at the learning rate times its lr_mult;
 * finally data -= step for every parameter (on the CPU, rules that can
 * take that step in the pass that computes it do: SGD, which adds the L2
 * decay in that pass too).
 *
 * All of it runs on the device the train net runs on: the diffs, the
 * weights and the solver's history stay on the GPU of a net trained there,
 * and CtMem brings over whatever was last written on the other side (a
 * layer that fell back to the CPU, weights loaded from a file). */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "blas.h"
#include "engine-error.h"
#include "solver-private.h"
#include "solver-update.h"

static gboolean
clip_gradients (CtSolver *solver, gboolean gpu, GError **error)
{
  const float clip = solver->param->clip_gradients;
  CtNet *net = solver->net;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];
  float sumsq = 0.0f, norm, scale;

  if (clip < 0.0f)
    return TRUE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    {
      CtBlob *blob = ct_net_get_learnable (net, i)->blob;
      const float *diff = ct_blob_diff_on (blob, gpu, error);
      float part = 0.0f;

      if (diff == NULL ||
          !ct_solver_check_update ((gpu ? ct_cuda_dot : ct_cpu_dot) (ct_blob_count (blob), diff,
                                                                    diff, &part), error))
        return FALSE;
      sumsq += part;
    }
  norm = sqrtf (sumsq);
  if (!(norm > clip))
    return TRUE;
  scale = clip / norm;
  CT_SOLVER_LOG (solver, "Gradient clipping: scaling down gradients (L2 norm %s > %s) "
                 "by scale factor %s", ct_solver_format_number (a, norm),
                 ct_solver_format_number (b, clip), ct_solver_format_number (c, scale));
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    {
      CtBlob *blob = ct_net_get_learnable (net, i)->blob;
      float *diff = ct_blob_mutable_diff_on (blob, gpu, error);

      if (diff == NULL ||
          !ct_solver_check_update ((gpu ? ct_cuda_scal : ct_cpu_scal) (ct_blob_count (blob),
                                                                      scale, diff), error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ct_solver_check_update (CtStatus status, GError **error)
{
  return ct_engine_check_status (status, _("Updating the parameters"), error);
}

static gboolean
is_l1 (const CtSolver *solver)
{
  return strcmp (solver->param->regularization_type, "L1") == 0;
}

/* The weight decay of one learnable: the solver's times its decay_mult. */
static float
local_decay (const CtSolver *solver, const CtNetLearnable *learnable)
{
  return solver->param->weight_decay * learnable->decay_mult;
}

static gboolean
regularize (CtSolver *solver, const CtNetLearnable *learnable, float *diff, gint64 n,
            gboolean gpu, GError **error)
{
  const float decay = local_decay (solver, learnable);
  const float *data;

  if (decay == 0.0f)
    return TRUE;
  data = ct_blob_data_on (learnable->blob, gpu, error);
  if (data == NULL)
    return FALSE;
  if (is_l1 (solver))
    return ct_solver_check_update ((gpu ? ct_cuda_l1_decay : ct_cpu_l1_decay)
                                     (n, decay, data, diff), error);
  return ct_solver_check_update ((gpu ? ct_cuda_axpy : ct_cpu_axpy) (n, decay, data, diff),
                                 error);
}

/* Whether the rule takes its step in the pass that computes it: on the
 * CPU, where the parameters are memory-bound arrays (LeNet's ip1: 400,000
 * weights, each pass over data, diff and history 5 MB). */
static gboolean
fused (CtSolver *solver, gboolean gpu)
{
  return !gpu && solver->type->compute_and_apply != NULL;
}

static gboolean
update_one (CtSolver *solver, guint learnable_id, float rate, gboolean gpu, GError **error)
{
  const CtNetLearnable *learnable = ct_net_get_learnable (solver->net, learnable_id);
  gint64 n = ct_blob_count (learnable->blob);
  float *diff = ct_blob_mutable_diff_on (learnable->blob, gpu, error);
  /* A fused rule adds the L2 decay in its own pass. */
  const gboolean decay_in_step = fused (solver, gpu) && !is_l1 (solver);
  float *data;

  if (diff == NULL)
    return FALSE;
  if (solver->param->iter_size > 1 &&
      !ct_solver_check_update ((gpu ? ct_cuda_scal : ct_cpu_scal)
                                 (n, 1.0f / (float) solver->param->iter_size, diff), error))
    return FALSE;
  if (!decay_in_step && !regularize (solver, learnable, diff, n, gpu, error))
    return FALSE;
  if (!fused (solver, gpu))
    return solver->type->compute_update (solver, learnable_id, rate * learnable->lr_mult, diff,
                                         n, gpu, error);
  if ((data = ct_blob_mutable_data_on (learnable->blob, FALSE, error)) == NULL)
    return FALSE;
  return solver->type->compute_and_apply (solver, learnable_id, rate * learnable->lr_mult,
                                          decay_in_step ? local_decay (solver, learnable) : 0.0f,
                                          diff, data, n, error);
}

gboolean
ct_solver_apply_update (CtSolver *solver, float rate, GError **error)
{
  CtNet *net = solver->net;
  const gboolean gpu = ct_net_get_use_gpu (net);

  if (!clip_gradients (solver, gpu, error))
    return FALSE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    if (!update_one (solver, i, rate, gpu, error))
      return FALSE;
  if (fused (solver, gpu))
    return TRUE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    {
      CtBlob *blob = ct_net_get_learnable (net, i)->blob;

      /* ct_blob_update works where the data's head is: bring weights that
       * were last written on the host (loaded, restored) to the device */
      if ((gpu && ct_blob_data_on (blob, TRUE, error) == NULL) || !ct_blob_update (blob, error))
        return FALSE;
    }
  return TRUE;
}
