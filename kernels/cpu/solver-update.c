/* solver-update.c: the solvers' update rules on the CPU (see
 * solver-update.h). Each loop performs, per element, the float operations
 * Caffe's chain of vector calls performs, in the same order, so that a
 * Cortado step matches a Caffe step to the last bit wherever the BLAS calls
 * themselves agree. */
#include <math.h>

#include "solver-update.h"

CtStatus
ct_cpu_l1_decay (int64_t n, float decay, const float *data, float *diff)
{
  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float sign = (float) ((0.0f < data[i]) - (data[i] < 0.0f));

      diff[i] = decay * sign + diff[i];
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_sgd_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      history[i] = rate * diff[i] + momentum * history[i];
      diff[i] = history[i];
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_nesterov_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  const float ahead = 1.0f + momentum;

  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float previous = history[i];

      history[i] = rate * diff[i] + momentum * history[i];
      /* step back to where the old momentum led, then over-step */
      diff[i] = ahead * history[i] + -momentum * previous;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_adagrad_update (int64_t n, float delta, float rate, float *diff, float *history)
{
  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float root;

      history[i] = powf (diff[i], 2.0f) + history[i];
      root = powf (history[i], 0.5f) + delta;
      diff[i] = rate * (diff[i] / root);
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_rmsprop_update (int64_t n, float rms_decay, float delta, float rate,
                       float *diff, float *history)
{
  const float keep = 1.0f - rms_decay;

  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float root;

      history[i] = keep * powf (diff[i], 2.0f) + rms_decay * history[i];
      root = powf (history[i], 0.5f) + delta;
      diff[i] = rate * (diff[i] / root);
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_adadelta_update (int64_t n, float momentum, float delta, float rate,
                        float *diff, float *grad_history, float *update_history)
{
  const float keep = 1.0f - momentum;

  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float ratio, step;

      grad_history[i] = keep * powf (diff[i], 2.0f) + momentum * grad_history[i];
      /* delta guards both sums against zero, as Caffe adds it to each */
      ratio = (delta + update_history[i]) / (delta + grad_history[i]);
      step = diff[i] * powf (ratio, 0.5f);
      update_history[i] = keep * powf (step, 2.0f) + momentum * update_history[i];
      diff[i] = rate * step;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_adam_update (int64_t n, float beta1, float beta2, float eps_hat, float rate,
                    float *diff, float *m, float *v)
{
  const float keep1 = 1.0f - beta1;
  const float keep2 = 1.0f - beta2;

  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float g = diff[i];

      m[i] = keep1 * g + beta1 * m[i];
      v[i] = keep2 * (g * g) + beta2 * v[i];
      diff[i] = rate * (m[i] / (powf (v[i], 0.5f) + eps_hat));
    }
  return CT_STATUS_OK;
}
