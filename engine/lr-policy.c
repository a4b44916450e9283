/* lr-policy.c: learning-rate policies (see lr-policy.h). The arithmetic
 * keeps Caffe's types: powers of gamma by an integer are taken in double,
 * the others in float, so that the rates equal Caffe's to the bit. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "lr-policy.h"

static const char *const policy_names[] = {
  [CT_LR_FIXED] = "fixed",
  [CT_LR_STEP] = "step",
  [CT_LR_EXP] = "exp",
  [CT_LR_INV] = "inv",
  [CT_LR_MULTISTEP] = "multistep",
  [CT_LR_POLY] = "poly",
  [CT_LR_SIGMOID] = "sigmoid",
};

gboolean
ct_lr_policy_from_name (const char *name, CtLrPolicy *policy, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (policy_names); i++)
    if (name != NULL && strcmp (name, policy_names[i]) == 0)
      {
        *policy = (CtLrPolicy) i;
        return TRUE;
      }
  if (name == NULL || name[0] == '\0')
    g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                 _("no learning rate policy (lr_policy) given; known policies: fixed, step, "
                   "exp, inv, multistep, poly, sigmoid"));
  else
    g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                 _("unknown learning rate policy '%s'; known policies: fixed, step, exp, inv, "
                   "multistep, poly, sigmoid"), name);
  return FALSE;
}

static gboolean
fail_field (const char **field_out, const char *field)
{
  if (field_out != NULL)
    *field_out = field;
  return FALSE;
}

gboolean
ct_lr_policy_check (const Caffe__SolverParameter *param, const char **field_out,
                    GError **error)
{
  CtLrPolicy policy;

  if (!ct_lr_policy_from_name (param->lr_policy, &policy, error))
    return fail_field (field_out, "lr_policy");
  switch (policy)
    {
    case CT_LR_STEP:
      if (param->stepsize <= 0)
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                       _("lr_policy 'step' needs a stepsize above 0 (it is %d)"),
                       param->stepsize);
          return fail_field (field_out, "stepsize");
        }
      break;
    case CT_LR_POLY:
      if (param->max_iter <= 0)
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                       _("lr_policy 'poly' needs a max_iter above 0 (it is %d)"),
                       param->max_iter);
          return fail_field (field_out, "max_iter");
        }
      break;
    case CT_LR_MULTISTEP:
      for (gsize i = 1; i < param->n_stepvalue; i++)
        if (param->stepvalue[i] <= param->stepvalue[i - 1])
          {
            g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                         _("lr_policy 'multistep': stepvalue %d does not come after %d; "
                           "give the steps in increasing order"),
                         param->stepvalue[i], param->stepvalue[i - 1]);
            return fail_field (field_out, "stepvalue");
          }
      break;
    case CT_LR_FIXED:
    case CT_LR_EXP:
    case CT_LR_INV:
    case CT_LR_SIGMOID:
      break;
    }
  return TRUE;
}

float
ct_lr_policy_rate (const Caffe__SolverParameter *param, int iter, int *current_step,
                   gboolean *stepped)
{
  CtLrPolicy policy = CT_LR_FIXED;
  const float base_lr = param->base_lr;
  const float gamma = param->gamma;
  const float power = param->power;

  if (stepped != NULL)
    *stepped = FALSE;
  if (!ct_lr_policy_from_name (param->lr_policy, &policy, NULL))
    return base_lr;
  switch (policy)
    {
    case CT_LR_FIXED:
      return base_lr;
    case CT_LR_STEP:
      *current_step = iter / param->stepsize;
      return (float) (base_lr * pow (gamma, *current_step));
    case CT_LR_EXP:
      return (float) (base_lr * pow (gamma, iter));
    case CT_LR_INV:
      return base_lr * powf (1.0f + gamma * (float) iter, -power);
    case CT_LR_MULTISTEP:
      if (*current_step >= 0 && (gsize) *current_step < param->n_stepvalue &&
          iter >= param->stepvalue[*current_step])
        {
          (*current_step)++;
          if (stepped != NULL)
            *stepped = TRUE;
        }
      return (float) (base_lr * pow (gamma, *current_step));
    case CT_LR_POLY:
      return base_lr * powf (1.0f - (float) iter / (float) param->max_iter, power);
    case CT_LR_SIGMOID:
      return base_lr * (1.0f / (1.0f + expf (-gamma * ((float) iter - (float) param->stepsize))));
    }
  return base_lr;
}
