/* neuron.h: the element-wise activations (neurons), forward and backward,
 * with the arithmetic Caffe's neuron layers use, special cases included.
 *
 * N counts elements. In every function the output may be the same array as
 * an input of the same role (Y may be X, DX may be DY), so that in-place
 * layers call them directly; other overlaps are not allowed. Backward
 * functions overwrite DX (they do not add to it), except the PReLU slope
 * gradient, which is accumulated as Caffe accumulates parameter diffs.
 * A negative count gives CT_STATUS_INVALID without touching memory.
 *
 * Each ct_cpu_X has a CUDA twin ct_cuda_X (cuda/neuron.cu) taking the same
 * arguments, with device arrays (float parameters stay host values), and
 * giving the same results: the same formulas, sign tests and order of
 * float operations, so bit for bit except where a transcendental function
 * rounds differently. The PReLU slope gradient sums each channel in double
 * in a fixed order on both sides (sequential on the CPU, a fixed tree on
 * the GPU): repeated runs agree exactly, the two sides to rounding. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ReLU: y = max(x, 0) + slope * min(x, 0); dx = dy * (x > 0 ? 1 : slope). */
CtStatus ct_cpu_relu_forward (int64_t n, float negative_slope, const float *x, float *y);
CtStatus ct_cuda_relu_forward (int64_t n, float negative_slope, const float *x, float *y);
CtStatus ct_cpu_relu_backward (int64_t n, float negative_slope, const float *x,
                               const float *dy, float *dx);
CtStatus ct_cuda_relu_backward (int64_t n, float negative_slope, const float *x,
                                const float *dy, float *dx);
/* ct_cpu_relu_backward from the ReLU's output Y and DY, the result
 * written to each of the N arrays DX (the diffs of a unit sum's bottoms,
 * whose backward pass copies the top's diff to each), in one pass. DX[0]
 * may be DY. No CUDA twin. */
CtStatus ct_cpu_relu_backward_fanout (int64_t count, float negative_slope, const float *y,
                                      const float *dy, int n, float *const *dx);

/* PReLU over a blob viewed as OUTER x CHANNELS x INNER: channel c's
 * negative part is scaled by SLOPE[c], or by SLOPE[0] for every channel
 * when CHANNEL_SHARED. */
CtStatus ct_cpu_prelu_forward (int64_t outer, int64_t channels, int64_t inner,
                               const float *slope, int channel_shared,
                               const float *x, float *y);
CtStatus ct_cuda_prelu_forward (int64_t outer, int64_t channels, int64_t inner,
                                const float *slope, int channel_shared,
                                const float *x, float *y);
CtStatus ct_cpu_prelu_backward (int64_t outer, int64_t channels, int64_t inner,
                                const float *slope, int channel_shared,
                                const float *x, const float *dy, float *dx);
CtStatus ct_cuda_prelu_backward (int64_t outer, int64_t channels, int64_t inner,
                                 const float *slope, int channel_shared,
                                 const float *x, const float *dy, float *dx);
/* SLOPE_DIFF[c] += sum of dy * x over the elements of channel c where
 * x <= 0 (one sum into SLOPE_DIFF[0] when CHANNEL_SHARED). */
CtStatus ct_cpu_prelu_slope_backward (int64_t outer, int64_t channels, int64_t inner,
                                      int channel_shared, const float *x, const float *dy,
                                      float *slope_diff);
CtStatus ct_cuda_prelu_slope_backward (int64_t outer, int64_t channels, int64_t inner,
                                       int channel_shared, const float *x, const float *dy,
                                       float *slope_diff);

/* ELU: y = x for x > 0, alpha * (exp(x) - 1) otherwise;
 * dx = dy for x > 0, dy * (y + alpha) otherwise. */
CtStatus ct_cpu_elu_forward (int64_t n, float alpha, const float *x, float *y);
CtStatus ct_cuda_elu_forward (int64_t n, float alpha, const float *x, float *y);
CtStatus ct_cpu_elu_backward (int64_t n, float alpha, const float *x, const float *y,
                              const float *dy, float *dx);
CtStatus ct_cuda_elu_backward (int64_t n, float alpha, const float *x, const float *y,
                               const float *dy, float *dx);

/* Sigmoid (as 0.5 tanh(x / 2) + 0.5, Caffe's stable form) and TanH; their
 * backward needs only the output Y. */
CtStatus ct_cpu_sigmoid_forward (int64_t n, const float *x, float *y);
CtStatus ct_cuda_sigmoid_forward (int64_t n, const float *x, float *y);
CtStatus ct_cpu_sigmoid_backward (int64_t n, const float *y, const float *dy, float *dx);
CtStatus ct_cuda_sigmoid_backward (int64_t n, const float *y, const float *dy, float *dx);
CtStatus ct_cpu_tanh_forward (int64_t n, const float *x, float *y);
CtStatus ct_cuda_tanh_forward (int64_t n, const float *x, float *y);
CtStatus ct_cpu_tanh_backward (int64_t n, const float *y, const float *dy, float *dx);
CtStatus ct_cuda_tanh_backward (int64_t n, const float *y, const float *dy, float *dx);

/* AbsVal: y = |x|; dx = dy * sign(x), with sign(0) = 0. */
CtStatus ct_cpu_absval_forward (int64_t n, const float *x, float *y);
CtStatus ct_cuda_absval_forward (int64_t n, const float *x, float *y);
CtStatus ct_cpu_absval_backward (int64_t n, const float *x, const float *dy, float *dx);
CtStatus ct_cuda_absval_backward (int64_t n, const float *x, const float *dy, float *dx);

/* Power: y = (shift + scale * x) ^ power. Backward takes Caffe's special
 * cases: a constant output (power * scale == 0) has gradient 0; power 1
 * gives power * scale; power 2 is computed from X alone; shift 0 uses
 * power * y / x; otherwise power * scale * y / (shift + scale * x). */
CtStatus ct_cpu_power_forward (int64_t n, float power, float scale, float shift,
                               const float *x, float *y);
CtStatus ct_cuda_power_forward (int64_t n, float power, float scale, float shift,
                                const float *x, float *y);
CtStatus ct_cpu_power_backward (int64_t n, float power, float scale, float shift,
                                const float *x, const float *y, const float *dy, float *dx);
CtStatus ct_cuda_power_backward (int64_t n, float power, float scale, float shift,
                                 const float *x, const float *y, const float *dy, float *dx);

/* Exp: y = outer_scale * exp(inner_scale * x), where for base b (e when
 * -1), inner_scale = ln(b) * scale and outer_scale = b ^ shift;
 * dx = dy * y * inner_scale. */
CtStatus ct_cpu_exp_forward (int64_t n, float inner_scale, float outer_scale,
                             const float *x, float *y);
CtStatus ct_cuda_exp_forward (int64_t n, float inner_scale, float outer_scale,
                              const float *x, float *y);
CtStatus ct_cpu_exp_backward (int64_t n, float inner_scale, const float *y,
                              const float *dy, float *dx);
CtStatus ct_cuda_exp_backward (int64_t n, float inner_scale, const float *y,
                               const float *dy, float *dx);

/* Log: y = base_scale * ln(shift + scale * x), base_scale = 1 / ln(base);
 * dx = dy * backward_scale / (shift + scale * x), backward_scale =
 * scale * base_scale. */
CtStatus ct_cpu_log_forward (int64_t n, float scale, float shift, float base_scale,
                             const float *x, float *y);
CtStatus ct_cuda_log_forward (int64_t n, float scale, float shift, float base_scale,
                              const float *x, float *y);
CtStatus ct_cpu_log_backward (int64_t n, float scale, float shift, float backward_scale,
                              const float *x, const float *dy, float *dx);
CtStatus ct_cuda_log_backward (int64_t n, float scale, float shift, float backward_scale,
                               const float *x, const float *dy, float *dx);

/* BNLL: y = ln(1 + exp(x)), computed without overflow; dx = dy * sigmoid(x),
 * with x capped at 50 as Caffe does. */
CtStatus ct_cpu_bnll_forward (int64_t n, const float *x, float *y);
CtStatus ct_cuda_bnll_forward (int64_t n, const float *x, float *y);
CtStatus ct_cpu_bnll_backward (int64_t n, const float *x, const float *dy, float *dx);
CtStatus ct_cuda_bnll_backward (int64_t n, const float *x, const float *dy, float *dx);

/* Threshold: y = x > threshold ? 1 : 0 (no gradient). */
CtStatus ct_cpu_threshold_forward (int64_t n, float threshold, const float *x, float *y);
CtStatus ct_cuda_threshold_forward (int64_t n, float threshold, const float *x, float *y);

/* Dropout with a drawn MASK of 0s and 1s: y = x * mask * scale, and the
 * same for the gradient. */
CtStatus ct_cpu_dropout_forward (int64_t n, float scale, const float *mask,
                                 const float *x, float *y);
CtStatus ct_cuda_dropout_forward (int64_t n, float scale, const float *mask,
                                  const float *x, float *y);
CtStatus ct_cpu_dropout_backward (int64_t n, float scale, const float *mask,
                                  const float *dy, float *dx);
CtStatus ct_cuda_dropout_backward (int64_t n, float scale, const float *mask,
                                   const float *dy, float *dx);

/* Swish: SIG = sigmoid(beta * x) (kept for backward), y = x * SIG;
 * dx = dy * (beta * y + SIG * (1 - beta * y)). SIG must not overlap X or Y. */
CtStatus ct_cpu_swish_forward (int64_t n, float beta, const float *x, float *sig, float *y);
CtStatus ct_cuda_swish_forward (int64_t n, float beta, const float *x, float *sig, float *y);
CtStatus ct_cpu_swish_backward (int64_t n, float beta, const float *y, const float *sig,
                                const float *dy, float *dx);
CtStatus ct_cuda_swish_backward (int64_t n, float beta, const float *y, const float *sig,
                                 const float *dy, float *dx);

/* Clip: y = max(min, min(x, max)); dx = dy where min <= x <= max, else 0. */
CtStatus ct_cpu_clip_forward (int64_t n, float min, float max, const float *x, float *y);
CtStatus ct_cuda_clip_forward (int64_t n, float min, float max, const float *x, float *y);
CtStatus ct_cpu_clip_backward (int64_t n, float min, float max, const float *x,
                               const float *dy, float *dx);
CtStatus ct_cuda_clip_backward (int64_t n, float min, float max, const float *x,
                                const float *dy, float *dx);

#ifdef __cplusplus
}
#endif
