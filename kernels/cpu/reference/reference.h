/* cpu/reference/reference.h: plain versions of the CPU kernels that have
 * optimised paths, written from the definitions (Caffe's loops) with no
 * vectors, no threads, no blocking: what tests/kernels compares every
 * optimised path against. Built into ctkernels-reference, linked by the
 * tests only; the engine never calls them.
 *
 * Where a kernel promises an order of operations (pooling, im2col and
 * col2im, axpby, the double sums of dot), the reference follows it and a
 * test can ask for the same bits. Products and convolutions sum in double
 * here, so a test compares them within a tolerance proportional to the
 * terms' size. Arguments are not checked: the tests pass valid ones. */
#pragma once

#include <stdint.h>

#include "blas.h"
#include "conv.h"
#include "pooling.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pooling.h: Caffe's PoolingLayer loops ---- */

/* MAX: each window from -FLT_MAX, an element taken when strictly greater
 * (ties to the first in row-major order; NaN never), MASK the winner's
 * index in its plane or -1. */
void ct_ref_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                              int32_t *mask);
/* Adds each top diff onto its winner's bottom diff, outputs in order. */
void ct_ref_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                               const int32_t *mask, float *bottom_diff);
/* AVE: the window's rows, then its columns, summed from 0 in float and
 * divided by the window's size counted with the padding (clipped to the
 * padded image), as Caffe does. */
void ct_ref_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top);
/* Adds top_diff / size onto every element of each window, outputs in
 * order. */
void ct_ref_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                               float *bottom_diff);

/* ---- im2col.h, two spatial axes: Caffe's im2col_cpu and col2im_cpu ---- */

void ct_ref_im2col (const float *im, int64_t channels, int64_t height, int64_t width,
                    int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                    int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                    int64_t dilation_w, float *col);
/* Overwrites IM (Caffe clears it first), then adds the columns' entries
 * in Caffe's order: channel, kernel row, kernel column, output row,
 * output column. */
void ct_ref_col2im (const float *col, int64_t channels, int64_t height, int64_t width,
                    int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                    int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                    int64_t dilation_w, float *im);

/* ---- blas.h ---- */

/* C = alpha op(A) op(B) + beta C, row-major, each sum in double in K
 * order, then rounded once; beta 0 overwrites C (NaN in C ignored). */
void ct_ref_gemm (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, const float *b, float beta, float *c);
/* The sum of |alpha op(A)_ip op(B)_pj| over p, for each element of C, in
 * double: the scale a test's tolerance is taken against. */
void ct_ref_gemm_magnitude (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n,
                            int64_t k, float alpha, const float *a, const float *b,
                            double *out);
/* y = fmaf (alpha, x, beta y) element by element (vector.c's promise). */
void ct_ref_axpby (int64_t n, float alpha, const float *x, float beta, float *y);
/* The dot product as vector.c defines it: products in double, element i
 * into partial sum i mod 8, the partial sums combined pairwise
 * ((0+4)+(2+6)) + ((1+5)+(3+7)), rounded to float once. */
float ct_ref_dot (int64_t n, const float *x, const float *y);
/* The sum of |x| in the same eight double lanes and tree. */
float ct_ref_asum (int64_t n, const float *x);

/* ---- solver-update.h ---- */

/* Caffe's SGD step with a weight decay, element by element: diff =
 * fmaf (decay, data, diff) (the decay's axpy, fused as vector.c's), history
 * = rate diff + momentum history (two roundings and a sum), diff =
 * history, data -= diff. */
void ct_ref_sgd_step (int64_t n, float momentum, float rate, float decay, float *diff,
                      float *history, float *data);

/* ---- conv.h, two spatial axes: the definition, in double ---- */

/* OUTPUT = weights (*) input + bias, every output a double sum over its
 * group's input channels and kernel offsets (padding reads zero). */
void ct_ref_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                          const float *bias, float *output);
/* The three gradients, each a double sum, overwritten (not added):
 * WEIGHT_DIFF, BIAS_DIFF (may be NULL), INPUT_DIFF (may be NULL). */
void ct_ref_conv_backward (const CtConvShape *s, const float *input, const float *output_diff,
                           const float *weights, float *weight_diff, float *bias_diff,
                           float *input_diff);

#ifdef __cplusplus
}
#endif
