/* pooling.h: 2-D pooling over independent planes, as Caffe's Pooling layer
 * computes it: MAX (with the index of the winner), AVE (padding counted in
 * the divisor up to the padded edge), and STOCHASTIC (a sample drawn in
 * proportion to the activations when training, their activation-weighted
 * average when testing).
 *
 * A CtPoolGeometry describes PLANES planes of HEIGHT x WIDTH floats, one
 * after the other, pooled into planes of POOLED_HEIGHT x POOLED_WIDTH. The
 * window of output (ph, pw) starts at (ph * stride_h - pad_h, pw * stride_w -
 * pad_w); the caller chooses the pooled size (Caffe's ceil or floor rule).
 * STOCHASTIC ignores padding, as Caffe does.
 *
 * Winner indices are positions inside their input plane (h * width + w),
 * stored as int32_t, or as float in a mask top as Caffe's second top does;
 * -1 means no element won (a window of NaNs or -inf only).
 *
 * The backward functions ADD into the bottom diff, so that several poolings
 * of one input (spatial pyramids) can accumulate; clear it first otherwise.
 * A geometry out of range (non-positive sizes, strides or kernels, negative
 * pads, planes over INT32_MAX elements) gives CT_STATUS_INVALID.
 *
 * Each ct_cpu_X has a CUDA twin ct_cuda_X (cuda/pooling.cu) taking the same
 * arguments (the geometry on the host, the arrays on the device) with the
 * same results, winners and ties included. The CUDA backward passes gather
 * (each bottom element sums the windows that cover it, in the CPU's order)
 * instead of scattering, so they use no atomics and repeat exactly. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t planes;
  int64_t height, width;
  int64_t pooled_height, pooled_width;
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
} CtPoolGeometry;

/* MAX: TOP gets each window's largest value (-FLT_MAX for an empty or
 * all-NaN window). The winner goes to MASK or TOP_MASK, whichever is not
 * NULL (both may be given, or neither: a pass that no backward pass
 * follows keeps no winners). */
CtStatus ct_cpu_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                                  int32_t *mask, float *top_mask);
CtStatus ct_cuda_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                                   int32_t *mask, float *top_mask);
/* Adds each top diff to its winner; reads MASK, or TOP_MASK when MASK is NULL. */
CtStatus ct_cpu_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                                   const int32_t *mask, const float *top_mask,
                                   float *bottom_diff);
/* The same, but BOTTOM_DIFF is written, not added to: zero where no winner
 * lies. Each plane is cleared just before its diffs land, while it is in
 * cache, instead of in a pass over the whole blob of its own. */
CtStatus ct_cpu_max_pool_backward_set (const CtPoolGeometry *g, const float *top_diff,
                                       const int32_t *mask, const float *top_mask,
                                       float *bottom_diff);
CtStatus ct_cuda_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                                    const int32_t *mask, const float *top_mask,
                                    float *bottom_diff);

CtStatus ct_cpu_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top);
CtStatus ct_cuda_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top);
CtStatus ct_cpu_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                                   float *bottom_diff);
/* The same, writing BOTTOM_DIFF instead of adding to it (as
 * ct_cpu_max_pool_backward_set). */
CtStatus ct_cpu_ave_pool_backward_set (const CtPoolGeometry *g, const float *top_diff,
                                       float *bottom_diff);
CtStatus ct_cuda_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                                    float *bottom_diff);

/* STOCHASTIC, training: UNIFORM holds one draw in [0, 1] per output; the
 * window element where the running sum first reaches draw * window sum is
 * taken (the last element if rounding never lets it). INDEX gets it. */
CtStatus ct_cpu_stochastic_pool_forward_train (const CtPoolGeometry *g, const float *bottom,
                                               const float *uniform, float *top,
                                               int32_t *index);
CtStatus ct_cuda_stochastic_pool_forward_train (const CtPoolGeometry *g, const float *bottom,
                                                const float *uniform, float *top,
                                                int32_t *index);
CtStatus ct_cpu_stochastic_pool_backward_train (const CtPoolGeometry *g, const float *top_diff,
                                                const int32_t *index, float *bottom_diff);
CtStatus ct_cuda_stochastic_pool_backward_train (const CtPoolGeometry *g, const float *top_diff,
                                                 const int32_t *index, float *bottom_diff);

/* STOCHASTIC, testing: sum(x^2) / (FLT_MIN + sum(x)) over each window. Its
 * backward is the exact derivative, (2 x - y) / (FLT_MIN + sum(x)). */
CtStatus ct_cpu_stochastic_pool_forward_test (const CtPoolGeometry *g, const float *bottom,
                                              float *top);
CtStatus ct_cuda_stochastic_pool_forward_test (const CtPoolGeometry *g, const float *bottom,
                                               float *top);
CtStatus ct_cpu_stochastic_pool_backward_test (const CtPoolGeometry *g, const float *bottom,
                                               const float *top, const float *top_diff,
                                               float *bottom_diff);
CtStatus ct_cuda_stochastic_pool_backward_test (const CtPoolGeometry *g, const float *bottom,
                                                const float *top, const float *top_diff,
                                                float *bottom_diff);

#ifdef __cplusplus
}
#endif
