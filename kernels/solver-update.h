/* solver-update.h: the arithmetic of the solvers' update rules, element by
 * element, as Caffe's SGD, Nesterov, AdaGrad, RMSProp, AdaDelta and Adam
 * solvers compute them, plus the L1 weight-decay term.
 *
 * Each function turns a parameter's gradient DIFF (already scaled for
 * iter_size and regularised) into the step that the net then subtracts from
 * the data (data -= diff), updating the solver's history in place. Every
 * rule works one element at a time, so the CPU versions fuse Caffe's chains
 * of vector calls into one loop while keeping Caffe's order of float
 * operations (x * x and sqrtf for Caffe's powx squares and square roots).
 *
 * Counts are int64_t; a negative count gives CT_STATUS_INVALID without
 * touching memory. Each rule has a CUDA twin (kernels/cuda/solver-update.cu)
 * with the same arguments as device pointers, so that a net trained on the
 * GPU keeps its solver history there; built without CUDA the twins answer
 * CT_STATUS_NO_DEVICE (kernels/cuda/stub-solver-update.c). */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* diff += decay * sign (data), sign (0) = 0: the L1 penalty's gradient. */
CtStatus ct_cpu_l1_decay (int64_t n, float decay, const float *data, float *diff);

/* SGD with momentum: h = momentum * h + rate * diff; diff = h. */
CtStatus ct_cpu_sgd_update (int64_t n, float momentum, float rate,
                            float *diff, float *history);

/* The same, with the L2 weight decay first (diff += decay * data, as
 * ct_cpu_axpy adds it), then the step taken: data -= diff, all in one pass
 * over the three arrays (data - diff rounds as Caffe's axpy with -1
 * does). */
CtStatus ct_cpu_sgd_step (int64_t n, float momentum, float rate, float decay,
                          float *diff, float *history, float *data);

/* Nesterov: h' = momentum * h + rate * diff;
 * diff = (1 + momentum) * h' - momentum * h. */
CtStatus ct_cpu_nesterov_update (int64_t n, float momentum, float rate,
                                 float *diff, float *history);

/* AdaGrad: h += diff^2; diff = rate * diff / (sqrt (h) + delta). */
CtStatus ct_cpu_adagrad_update (int64_t n, float delta, float rate,
                                float *diff, float *history);

/* RMSProp: h = (1 - decay) * diff^2 + decay * h;
 * diff = rate * diff / (sqrt (h) + delta). */
CtStatus ct_cpu_rmsprop_update (int64_t n, float rms_decay, float delta, float rate,
                                float *diff, float *history);

/* AdaDelta: g = (1 - momentum) * diff^2 + momentum * g;
 * step = diff * sqrt ((u + delta) / (g + delta));
 * u = (1 - momentum) * step^2 + momentum * u; diff = rate * step.
 * GRAD_HISTORY is g, UPDATE_HISTORY is u. */
CtStatus ct_cpu_adadelta_update (int64_t n, float momentum, float delta, float rate,
                                 float *diff, float *grad_history, float *update_history);

/* Adam: m = (1 - beta1) * diff + beta1 * m; v = (1 - beta2) * diff^2 + beta2 * v;
 * diff = rate * m / (sqrt (v) + eps_hat), where RATE already holds the bias
 * correction sqrt (1 - beta2^t) / (1 - beta1^t). */
CtStatus ct_cpu_adam_update (int64_t n, float beta1, float beta2, float eps_hat, float rate,
                             float *diff, float *m, float *v);

/* The CUDA twins: the same arguments, device pointers, and per element the
 * same float operations in the same order, each rounded on its own (no
 * fused multiply-add), squares and roots x * x and sqrtf as on the CPU, so
 * the two agree to the last bit. */
CtStatus ct_cuda_l1_decay (int64_t n, float decay, const float *data, float *diff);
CtStatus ct_cuda_sgd_update (int64_t n, float momentum, float rate,
                             float *diff, float *history);
CtStatus ct_cuda_nesterov_update (int64_t n, float momentum, float rate,
                                  float *diff, float *history);
CtStatus ct_cuda_adagrad_update (int64_t n, float delta, float rate,
                                 float *diff, float *history);
CtStatus ct_cuda_rmsprop_update (int64_t n, float rms_decay, float delta, float rate,
                                 float *diff, float *history);
CtStatus ct_cuda_adadelta_update (int64_t n, float momentum, float delta, float rate,
                                  float *diff, float *grad_history, float *update_history);
CtStatus ct_cuda_adam_update (int64_t n, float beta1, float beta2, float eps_hat, float rate,
                              float *diff, float *m, float *v);

#ifdef __cplusplus
}
#endif
