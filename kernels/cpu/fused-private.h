/* cpu/fused-private.h: the pieces of the CPU kernels that the passes of
 * several layers in one (cpu/norm-chain.c: BatchNorm, Scale and ReLU;
 * ct_cpu_eltwise_sum_relu) run a block at a time, so that they give the
 * bits of the layers' kernels run one after the other. Private to the CPU
 * kernels. */
#pragma once

#include <stdint.h>

/* Channels of one block at most (cpu/normalization.c keeps per-channel
 * sums of a block on the stack). */
#define CT_NORM_BLOCK_CHANNELS 256

/* cpu/normalization.c: ct_cpu_batch_norm_forward over channels [C0, C0 +
 * NC) (NC <= CT_NORM_BLOCK_CHANNELS), its arguments as that function's. */
void ct_cpu_batch_norm_forward_channels (int64_t outer, int64_t channels, int64_t inner,
                                         int batch_stats, float eps, const float *x,
                                         float *mean, float *variance, float *std, float *y,
                                         float *keep, int64_t c0, int64_t nc);

/* cpu/normalization.c: ct_cpu_channel_normalize_backward over channels
 * [C0, C0 + NC). */
void ct_cpu_channel_normalize_backward_channels (int64_t outer, int64_t channels,
                                                 int64_t inner, const float *y,
                                                 const float *dy, const float *s, float *dx,
                                                 int64_t c0, int64_t nc);

/* cpu/common.c: ct_cpu_scale_bias_forward's row: Y = X * S (+ *B when B
 * is not NULL), N floats. */
void ct_cpu_scale_bias_row (int64_t n, const float *x, float s, const float *b, float *y);

/* cpu/common.c: ct_cpu_scale_bias_backward over channels [D0, D0 + ND)
 * (ND <= CT_NORM_BLOCK_CHANNELS), INNER >= 8, its arguments as that
 * function's. */
void ct_cpu_scale_bias_backward_channels (int64_t outer, int64_t dim, int64_t inner,
                                          const float *top_diff, const float *bottom_data,
                                          const float *scale, int accumulate,
                                          float *scale_diff, float *bias_diff,
                                          float *bottom_diff, int64_t d0, int64_t nd);

/* cpu/neuron.c: ct_cpu_relu_forward and ct_cpu_relu_backward on N floats
 * in the calling thread. */
void ct_cpu_relu_forward_run (int64_t n, float negative_slope, const float *x, float *y);
void ct_cpu_relu_backward_run (int64_t n, float negative_slope, const float *x,
                               const float *dy, float *dx);
