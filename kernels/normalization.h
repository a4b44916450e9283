/* normalization.h: per-channel statistics and normalisation, for BatchNorm
 * and MVN.
 *
 * A blob is viewed as OUTER x CHANNELS x INNER, row-major, and every
 * statistic of channel c runs over its OUTER * INNER elements: BatchNorm
 * uses N x C x (H*W), MVN uses 1 x (rows) x (row length). Sums accumulate
 * in float lanes combined in double, so long channels lose no precision.
 * Outputs may be the same array as the input of the same role (Y may be X,
 * DX may be DY). A negative size gives CT_STATUS_INVALID untouched.
 *
 * Each ct_cpu_ function has a ct_cuda_ twin with the same arguments, its
 * arrays in device memory (cuda/normalization.cu); its sums run in double
 * in a fixed order, so they are deterministic. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MEAN[c] = the mean of channel c of X. */
CtStatus ct_cpu_channel_mean (int64_t outer, int64_t channels, int64_t inner,
                              const float *x, float *mean);
CtStatus ct_cuda_channel_mean (int64_t outer, int64_t channels, int64_t inner,
                               const float *x, float *mean);

/* Y = X - MEAN[c]; when VARIANCE is not NULL, VARIANCE[c] = the mean of
 * the squares of channel c of Y (the biased variance of X). */
CtStatus ct_cpu_channel_center (int64_t outer, int64_t channels, int64_t inner,
                                const float *x, const float *mean,
                                float *y, float *variance);
CtStatus ct_cuda_channel_center (int64_t outer, int64_t channels, int64_t inner,
                                 const float *x, const float *mean,
                                 float *y, float *variance);

/* Y = X / DIVISOR[c]. */
CtStatus ct_cpu_channel_divide (int64_t outer, int64_t channels, int64_t inner,
                                const float *x, const float *divisor, float *y);
CtStatus ct_cuda_channel_divide (int64_t outer, int64_t channels, int64_t inner,
                                 const float *x, const float *divisor, float *y);

/* The gradient of y = (x - mean(x)) / s through the batch statistics, with
 * Y the normalised output, DY its gradient and S[c] the divisor:
 * DX = (DY - mean(DY) - Y * mean(DY * Y)) / S[c], means per channel. */
CtStatus ct_cpu_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                            const float *y, const float *dy,
                                            const float *s, float *dx);
CtStatus ct_cuda_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                             const float *y, const float *dy,
                                             const float *s, float *dx);

/* BatchNorm's forward pass in one call: with BATCH_STATS, MEAN[c] and
 * VARIANCE[c] (the biased variance) are computed from X and written,
 * otherwise they are read; STD[c] = sqrt (VARIANCE[c] + EPS) and
 * Y = (X - MEAN[c]) / STD[c]; KEEP, when not NULL, receives a copy of Y.
 * The values of ct_cpu_channel_mean, ct_cpu_channel_center,
 * ct_cpu_batch_norm_std and ct_cpu_channel_divide in turn, bit for bit,
 * in one read of X from memory where a core's cache holds a block of
 * channels (cpu/normalization.c). Y may be X; STD may not be VARIANCE. */
CtStatus ct_cpu_batch_norm_forward (int64_t outer, int64_t channels, int64_t inner,
                                    int batch_stats, float eps, const float *x,
                                    float *mean, float *variance, float *std,
                                    float *y, float *keep);
CtStatus ct_cuda_batch_norm_forward (int64_t outer, int64_t channels, int64_t inner,
                                     int batch_stats, float eps, const float *x,
                                     float *mean, float *variance, float *std,
                                     float *y, float *keep);

/* Standard deviations from N variances: BatchNorm's sqrt(var + eps) and
 * MVN's sqrt(var) + eps. STD may be VARIANCE. */
CtStatus ct_cpu_batch_norm_std (int64_t n, float eps, const float *variance, float *std);
CtStatus ct_cuda_batch_norm_std (int64_t n, float eps, const float *variance, float *std);
CtStatus ct_cpu_mvn_std (int64_t n, float eps, const float *variance, float *std);
CtStatus ct_cuda_mvn_std (int64_t n, float eps, const float *variance, float *std);

/* The chain ResNets put after every convolution, BatchNorm then Scale
 * then ReLU, each in place on one blob, in one pass a block of channels at
 * a time (cpu/norm-chain.c): a block is read from memory once and the
 * layers after BatchNorm find it in the cache. The results are the bits
 * of the three layers' own kernels run one after the other. Rows of fewer
 * than CT_NORM_CHAIN_MIN_INNER floats (which Scale's kernels sum another
 * way) run the three kernels one after the other. No CUDA
 * twin: on the GPU the layers run one by one.
 *
 * Forward: ct_cpu_batch_norm_forward's arguments, then Y = Y * SCALE[c]
 * (+ BIAS[c] when BIAS is not NULL), then, when RELU, Y = ReLU (Y) with
 * NEGATIVE_SLOPE. */
#define CT_NORM_CHAIN_MIN_INNER 8

CtStatus ct_cpu_norm_chain_forward (int64_t outer, int64_t channels, int64_t inner,
                                    int batch_stats, float eps, const float *x, float *mean,
                                    float *variance, float *std, float *y, float *keep,
                                    const float *scale, const float *bias, int relu,
                                    float negative_slope);

/* Backward, with the batch's statistics: when RELU, the ReLU's gradient
 * from Y (the chain's output) and DY; then Scale's, adding to SCALE_DIFF
 * and BIAS_DIFF (either may be NULL) from KEEP (BatchNorm's normalized
 * output); then BatchNorm's from KEEP and STD into DX, which may be DY. */
CtStatus ct_cpu_norm_chain_backward (int64_t outer, int64_t channels, int64_t inner, int relu,
                                     float negative_slope, const float *y, const float *keep,
                                     const float *std, const float *scale, const float *dy,
                                     float *scale_diff, float *bias_diff, float *dx);

#ifdef __cplusplus
}
#endif
