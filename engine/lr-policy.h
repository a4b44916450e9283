/* lr-policy.h: the learning rate at each iteration, by the SolverParameter's
 * lr_policy, as Caffe computes it:
 *
 *   fixed      base_lr
 *   step       base_lr * gamma ^ floor (iter / stepsize)
 *   exp        base_lr * gamma ^ iter
 *   inv        base_lr * (1 + gamma * iter) ^ (-power)
 *   multistep  base_lr * gamma ^ (number of stepvalue entries passed)
 *   poly       base_lr * (1 - iter / max_iter) ^ power
 *   sigmoid    base_lr / (1 + exp (-gamma * (iter - stepsize)))
 *
 * step and multistep keep a "current step" (saved in the solverstate). */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

typedef enum {
  CT_LR_FIXED,
  CT_LR_STEP,
  CT_LR_EXP,
  CT_LR_INV,
  CT_LR_MULTISTEP,
  CT_LR_POLY,
  CT_LR_SIGMOID,
} CtLrPolicy;

/* The policy named NAME; FALSE (and ERROR naming the known ones) when there
 * is none of that name. */
gboolean ct_lr_policy_from_name (const char *name, CtLrPolicy *policy, GError **error);

/* Whether PARAM's policy exists and has what it needs (step: stepsize > 0,
 * poly: max_iter > 0, multistep: increasing stepvalues). Errors name the
 * field ("lr_policy", "stepsize", ...) in FIELD_OUT when not NULL. */
gboolean ct_lr_policy_check (const Caffe__SolverParameter *param, const char **field_out,
                             GError **error);

/* The rate at ITER. *CURRENT_STEP is read and updated for step and
 * multistep (multistep passes at most one boundary per call, as Caffe; it
 * sets *STEPPED then). PARAM must have passed ct_lr_policy_check. */
float ct_lr_policy_rate (const Caffe__SolverParameter *param, int iter, int *current_step,
                         gboolean *stepped);

G_END_DECLS
