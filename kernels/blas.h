/* blas.h: BLAS-level float32 arithmetic, the way Caffe's math functions
 * define it, for the CPU (kernels/cpu/blas.c, on OpenBLAS) and CUDA.
 *
 * Matrices are row-major and C-contiguous. As in Caffe, a matrix op takes
 * the shape of the product (M, N, K) and derives the leading dimensions from
 * the transposes, so a caller never passes strides. Counts are int64_t; a
 * count that the BLAS library's integer cannot hold, or a negative one, gives
 * CT_STATUS_INVALID without touching memory. The CUDA twins take device
 * pointers and the same arguments; built without CUDA they answer
 * CT_STATUS_NO_DEVICE. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CT_NO_TRANS = 0,
  CT_TRANS = 1,
} CtTranspose;

/* C (M x N) = alpha * op(A) * op(B) + beta * C, where op(A) is M x K and
 * op(B) is K x N. A is stored M x K (K x M when TRANS_A), B is K x N (N x K
 * when TRANS_B). With beta 0, C is overwritten and need not hold numbers. */
CtStatus ct_cpu_gemm (CtTranspose trans_a, CtTranspose trans_b,
                      int64_t m, int64_t n, int64_t k,
                      float alpha, const float *a, const float *b,
                      float beta, float *c);

/* Whether ct_cpu_gemm runs on oneDNN's sgemm (builds with oneDNN, unless
 * CT_GEMM=openblas) rather than OpenBLAS's. */
int ct_cpu_gemm_uses_dnnl (void);

/* y = alpha * op(A) * x + beta * y with A stored M x N: y has M entries and
 * x has N (NO_TRANS), or y has N and x has M (TRANS). */
CtStatus ct_cpu_gemv (CtTranspose trans_a, int64_t m, int64_t n,
                      float alpha, const float *a, const float *x,
                      float beta, float *y);

/* y = alpha * x + y */
CtStatus ct_cpu_axpy (int64_t n, float alpha, const float *x, float *y);

/* y = alpha * x + beta * y */
CtStatus ct_cpu_axpby (int64_t n, float alpha, const float *x, float beta, float *y);

/* x = alpha * x */
CtStatus ct_cpu_scal (int64_t n, float alpha, float *x);

/* *out = sum x[i] * y[i] */
CtStatus ct_cpu_dot (int64_t n, const float *x, const float *y, float *out);

/* *out = sum x[i * incx] * y[i * incy] (BLAS increments; negative ones walk
 * the vector from its far end, as BLAS does). */
CtStatus ct_cpu_strided_dot (int64_t n, const float *x, int64_t incx,
                             const float *y, int64_t incy, float *out);

/* *out = sum |x[i]| */
CtStatus ct_cpu_asum (int64_t n, const float *x, float *out);

/* y = x (the ranges may be the same array, not otherwise overlapping) */
CtStatus ct_cpu_copy (int64_t n, const float *x, float *y);

/* y[i] = alpha */
CtStatus ct_cpu_set (int64_t n, float alpha, float *y);

/* y = alpha * x (X and Y may be the same array) */
CtStatus ct_cpu_scale (int64_t n, float alpha, const float *x, float *y);

/* Element-wise y = a OP b; Y may be A or B. */
CtStatus ct_cpu_add (int64_t n, const float *a, const float *b, float *y);
CtStatus ct_cpu_sub (int64_t n, const float *a, const float *b, float *y);
CtStatus ct_cpu_mul (int64_t n, const float *a, const float *b, float *y);
CtStatus ct_cpu_div (int64_t n, const float *a, const float *b, float *y);

/* y = x[0] + x[1] + ... + x[n - 1], added in that order for each element,
 * as a chain of ct_cpu_add and ct_cpu_axpy calls with alpha 1 adds them,
 * in one pass over memory; y may be one of the x (CPU only). */
CtStatus ct_cpu_sum (int64_t count, int n, const float *const *x, float *y);

/* The CUDA twins: same arguments, device pointers; *OUT of dot/asum is a
 * host pointer, as in Caffe's GPU math. */
CtStatus ct_cuda_gemm (CtTranspose trans_a, CtTranspose trans_b,
                       int64_t m, int64_t n, int64_t k,
                       float alpha, const float *a, const float *b,
                       float beta, float *c);
CtStatus ct_cuda_gemv (CtTranspose trans_a, int64_t m, int64_t n,
                       float alpha, const float *a, const float *x,
                       float beta, float *y);
CtStatus ct_cuda_axpy (int64_t n, float alpha, const float *x, float *y);
CtStatus ct_cuda_axpby (int64_t n, float alpha, const float *x, float beta, float *y);
CtStatus ct_cuda_scal (int64_t n, float alpha, float *x);
CtStatus ct_cuda_dot (int64_t n, const float *x, const float *y, float *out);
CtStatus ct_cuda_strided_dot (int64_t n, const float *x, int64_t incx,
                              const float *y, int64_t incy, float *out);
CtStatus ct_cuda_asum (int64_t n, const float *x, float *out);
CtStatus ct_cuda_copy (int64_t n, const float *x, float *y);
CtStatus ct_cuda_set (int64_t n, float alpha, float *y);
CtStatus ct_cuda_scale (int64_t n, float alpha, const float *x, float *y);
CtStatus ct_cuda_add (int64_t n, const float *a, const float *b, float *y);
CtStatus ct_cuda_sub (int64_t n, const float *a, const float *b, float *y);
CtStatus ct_cuda_mul (int64_t n, const float *a, const float *b, float *y);
CtStatus ct_cuda_div (int64_t n, const float *a, const float *b, float *y);

#ifdef __cplusplus
}
#endif
