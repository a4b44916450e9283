/* common.h: the arithmetic of the Common and Utility layer families: strided
 * block copies (Concat, Slice), Eltwise MAX with its argmax mask, Tile,
 * Reduction, broadcasting a bias or a scale over a blob (Bias, Scale,
 * InnerProduct's bias), row gathers and scatters (Filter, BatchReindex,
 * Embed) and ArgMax. Everything else these layers compute is plain BLAS
 * (blas.h).
 *
 * Blobs are seen as three nested dimensions, as Caffe sees them: OUTER
 * (the axes before the ones a layer works on), the layer's own DIM, and
 * INNER (the axes after). Counts are int64_t; a negative count gives
 * CT_STATUS_INVALID without touching memory.
 *
 * Each ct_cpu_ function has a ct_cuda_ twin with the same arguments, its
 * arrays in device memory (cuda/common.cu): the same results, computed
 * deterministically. The twins of float_indices and filter_select wait for
 * the device, to answer *BAD and *N_SELECTED on the host; ArgMax's twin
 * needs no scratch and ignores it. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NUM blocks of BLOCK floats: block i of SRC starts at i * SRC_STRIDE, and
 * goes to i * DST_STRIDE in DST. Concat's forward and Slice's backward write
 * one bottom into its place in the top; Concat's backward and Slice's
 * forward read it back out. */
CtStatus ct_cpu_copy_blocks (int64_t num, int64_t block,
                             const float *src, int64_t src_stride,
                             float *dst, int64_t dst_stride);
CtStatus ct_cuda_copy_blocks (int64_t num, int64_t block,
                              const float *src, int64_t src_stride,
                              float *dst, int64_t dst_stride);

/* Eltwise SUM with every coefficient 1: Y = ((0 + X[0]) + X[1]) + ... +
 * X[N - 1] element by element (N >= 1), the bits of setting Y to 0 and
 * adding each X with ct_cpu_axpy (alpha 1), in one pass over memory on the
 * pool instead of N + 1. Y must not be one of the X. */
CtStatus ct_cpu_eltwise_sum (int64_t count, int n, const float *const *x, float *y);
CtStatus ct_cuda_eltwise_sum (int64_t count, int n, const float *const *x, float *y);
/* ct_cpu_eltwise_sum, then ct_cpu_relu_forward of NEGATIVE_SLOPE on Y, in
 * one pass while each block is in the cache (a ReLU in place after a
 * sum, as ResNets have), with their bits. No CUDA twin. */
CtStatus ct_cpu_eltwise_sum_relu (int64_t count, int n, const float *const *x, float *y,
                                  float negative_slope);

/* Eltwise MAX over two bottoms: top = max (a, b), mask = 0 where a wins
 * and 1 otherwise (ties go to B, as in Caffe). */
CtStatus ct_cpu_eltwise_max_first (int64_t n, const float *a, const float *b,
                                   float *top, int32_t *mask);
CtStatus ct_cuda_eltwise_max_first (int64_t n, const float *a, const float *b,
                                    float *top, int32_t *mask);
/* Each further bottom X (number INDEX) replaces the top where it is
 * strictly larger. */
CtStatus ct_cpu_eltwise_max_next (int64_t n, const float *x, int32_t index,
                                  float *top, int32_t *mask);
CtStatus ct_cuda_eltwise_max_next (int64_t n, const float *x, int32_t index,
                                   float *top, int32_t *mask);
/* Bottom INDEX's diff: the top's diff where the mask names it, else 0. */
CtStatus ct_cpu_eltwise_max_backward (int64_t n, const float *top_diff, const int32_t *mask,
                                      int32_t index, float *bottom_diff);
CtStatus ct_cuda_eltwise_max_backward (int64_t n, const float *top_diff, const int32_t *mask,
                                       int32_t index, float *bottom_diff);

/* Tile: each of OUTER blocks of INNER floats repeated TILES times. The
 * backward sums the TILES copies' diffs back into the block. */
CtStatus ct_cpu_tile_forward (int64_t outer, int64_t inner, int64_t tiles,
                              const float *bottom, float *top);
CtStatus ct_cuda_tile_forward (int64_t outer, int64_t inner, int64_t tiles,
                               const float *bottom, float *top);
CtStatus ct_cpu_tile_backward (int64_t outer, int64_t inner, int64_t tiles,
                               const float *top_diff, float *bottom_diff);
CtStatus ct_cuda_tile_backward (int64_t outer, int64_t inner, int64_t tiles,
                                const float *top_diff, float *bottom_diff);

typedef enum {
  CT_REDUCE_SUM = 1,
  CT_REDUCE_ASUM = 2,
  CT_REDUCE_SUMSQ = 3,
  CT_REDUCE_MEAN = 4,
} CtReduceOp;

/* top[i] = COEFF * op (bottom[i * DIM .. (i + 1) * DIM)) for i < NUM.
 * COEFF is the final multiplier: for MEAN the caller passes coeff / dim. */
CtStatus ct_cpu_reduce_forward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                                const float *bottom, float *top);
CtStatus ct_cuda_reduce_forward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                                 const float *bottom, float *top);
/* The matching bottom diff (BOTTOM_DATA is read by ASUM and SUMSQ only). */
CtStatus ct_cpu_reduce_backward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                                 const float *bottom_data, const float *top_diff,
                                 float *bottom_diff);
CtStatus ct_cuda_reduce_backward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                                  const float *bottom_data, const float *top_diff,
                                  float *bottom_diff);

/* Broadcasts over a blob seen as OUTER x DIM x INNER with a vector of DIM
 * values: top = bottom + bias[d], top = bottom * scale[d]. TOP may be
 * BOTTOM. */
CtStatus ct_cpu_bias_forward (int64_t outer, int64_t dim, int64_t inner,
                              const float *bottom, const float *bias, float *top);
CtStatus ct_cuda_bias_forward (int64_t outer, int64_t dim, int64_t inner,
                               const float *bottom, const float *bias, float *top);
CtStatus ct_cpu_scale_forward (int64_t outer, int64_t dim, int64_t inner,
                               const float *bottom, const float *scale, float *top);
CtStatus ct_cuda_scale_forward (int64_t outer, int64_t dim, int64_t inner,
                                const float *bottom, const float *scale, float *top);
/* bias_diff[d] = sum over outer and inner of top_diff, added to what
 * BIAS_DIFF holds when ACCUMULATE (parameter diffs), else written. */
CtStatus ct_cpu_bias_backward (int64_t outer, int64_t dim, int64_t inner,
                               const float *top_diff, int accumulate, float *bias_diff);
CtStatus ct_cuda_bias_backward (int64_t outer, int64_t dim, int64_t inner,
                                const float *top_diff, int accumulate, float *bias_diff);
/* scale_diff[d] = sum over outer and inner of top_diff * bottom_data,
 * added or written as for the bias. */
CtStatus ct_cpu_scale_backward (int64_t outer, int64_t dim, int64_t inner,
                                const float *top_diff, const float *bottom_data,
                                int accumulate, float *scale_diff);
CtStatus ct_cuda_scale_backward (int64_t outer, int64_t dim, int64_t inner,
                                 const float *top_diff, const float *bottom_data,
                                 int accumulate, float *scale_diff);

/* Scale's passes in one call each, for a Scale with or without a bias.
 * Forward: top = bottom * scale[d] (+ bias[d] when BIAS is not NULL); TOP
 * may be BOTTOM. Backward: BIAS_DIFF[d] += the sum of TOP_DIFF, SCALE_DIFF
 * as ct_cpu_scale_backward (added when ACCUMULATE), BOTTOM_DIFF =
 * TOP_DIFF * SCALE[d], each only when not NULL; BOTTOM_DIFF may be
 * TOP_DIFF. The values of the kernels above called in turn, bit for bit;
 * on the CPU the passes share their reads where a core's cache holds a
 * block of channels. */
CtStatus ct_cpu_scale_bias_forward (int64_t outer, int64_t dim, int64_t inner,
                                    const float *bottom, const float *scale,
                                    const float *bias, float *top);
CtStatus ct_cuda_scale_bias_forward (int64_t outer, int64_t dim, int64_t inner,
                                     const float *bottom, const float *scale,
                                     const float *bias, float *top);
CtStatus ct_cpu_scale_bias_backward (int64_t outer, int64_t dim, int64_t inner,
                                     const float *top_diff, const float *bottom_data,
                                     const float *scale, int accumulate, float *scale_diff,
                                     float *bias_diff, float *bottom_diff);
CtStatus ct_cuda_scale_bias_backward (int64_t outer, int64_t dim, int64_t inner,
                                      const float *top_diff, const float *bottom_data,
                                      const float *scale, int accumulate, float *scale_diff,
                                      float *bias_diff, float *bottom_diff);

/* dst row i = src row indices[i], rows of ROW floats, for N rows. */
CtStatus ct_cpu_gather_rows (int64_t n, int64_t row, const int64_t *indices,
                             const float *src, float *dst);
CtStatus ct_cuda_gather_rows (int64_t n, int64_t row, const int64_t *indices,
                              const float *src, float *dst);
/* The adjoint of a gather: src row i is added into dst row indices[i]
 * (the caller zeroes DST first when it wants the plain adjoint). */
CtStatus ct_cpu_scatter_add_rows (int64_t n, int64_t row, const int64_t *indices,
                                  const float *src, float *dst);
CtStatus ct_cuda_scatter_add_rows (int64_t n, int64_t row, const int64_t *indices,
                                   const float *src, float *dst);

/* Row indices from float values (Embed's words, BatchReindex's
 * permutation): out[i] = (int64_t) values[i], truncated as Caffe casts.
 * Each value must lie in [0, LIMIT), and be a whole number when WHOLE;
 * otherwise *BAD (if not NULL) is the position of the first that is not and
 * the result is CT_STATUS_INVALID. */
CtStatus ct_cpu_float_indices (int64_t n, const float *values, int64_t limit, int whole,
                               int64_t *out, int64_t *bad);
CtStatus ct_cuda_float_indices (int64_t n, const float *values, int64_t limit, int whole,
                                int64_t *out, int64_t *bad);

/* Filter's selection: the positions i < N where selector[i] != 0, in order,
 * into INDICES; *N_SELECTED is their number. */
CtStatus ct_cpu_filter_select (int64_t n, const float *selector, int64_t *indices,
                               int64_t *n_selected);
CtStatus ct_cuda_filter_select (int64_t n, const float *selector, int64_t *indices,
                                int64_t *n_selected);

/* ArgMax over a blob seen as NUM rows of DIM values each, a row's values
 * AXIS_DIST apart (1 without an axis): the TOP_K largest (ties to the
 * larger index, as Caffe's sort does), best first. With HAS_AXIS the top has
 * the bottom's shape with DIM replaced by TOP_K, and holds the indices, or
 * the values when OUT_MAX_VAL. Without it each row of the top holds the
 * TOP_K indices, followed by the TOP_K values when OUT_MAX_VAL. SCRATCH_VAL
 * and SCRATCH_IDX hold TOP_K entries each. */
CtStatus ct_cpu_argmax (int64_t num, int64_t dim, int64_t axis_dist, int64_t top_k,
                        int has_axis, int out_max_val, const float *bottom, float *top,
                        float *scratch_val, int64_t *scratch_idx);
CtStatus ct_cuda_argmax (int64_t num, int64_t dim, int64_t axis_dist, int64_t top_k,
                         int has_axis, int out_max_val, const float *bottom, float *top,
                         float *scratch_val, int64_t *scratch_idx);

#ifdef __cplusplus
}
#endif
