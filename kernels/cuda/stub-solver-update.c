/* cuda/stub-solver-update.c: the CUDA twins of solver-update.h for builds
 * without CUDA. A negative count is CT_STATUS_INVALID, as in the real
 * twins; anything else answers CT_STATUS_NO_DEVICE, and the solver reports
 * that no GPU can be used. */
#include "solver-update.h"

CtStatus
ct_cuda_l1_decay (int64_t n, float decay, const float *data, float *diff)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_sgd_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nesterov_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_adagrad_update (int64_t n, float delta, float rate, float *diff, float *history)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_rmsprop_update (int64_t n, float rms_decay, float delta, float rate, float *diff,
                        float *history)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_adadelta_update (int64_t n, float momentum, float delta, float rate, float *diff,
                         float *grad_history, float *update_history)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_adam_update (int64_t n, float beta1, float beta2, float eps_hat, float rate,
                     float *diff, float *m, float *v)
{
  return n < 0 ? CT_STATUS_INVALID : CT_STATUS_NO_DEVICE;
}
