/* lrn.h: local response normalisation, as Caffe's LRN layer computes it.
 *
 * ACROSS_CHANNELS: scale = k + alpha / size * sum of x^2 over the SIZE
 * channels centred on each one (channels beyond the edges count as zeros),
 * y = x * scale^-beta. The sum slides from channel to channel (add the
 * channel entering the window, subtract the one leaving), as Caffe's does.
 *
 * WITHIN_CHANNEL: scale = 1 + alpha * (sum of x^2 over the SIZE x SIZE
 * window centred on each position, divided by the window's size counted up
 * to one SIZE/2 border of padding), y = x * scale^-beta. Caffe builds this
 * from split, power, average pooling, power and product layers; these
 * functions compute the same numbers in one pass (k is not used, as in
 * Caffe).
 *
 * Blobs are NUM x CHANNELS x SPATIAL (ACROSS) or PLANES of HEIGHT x WIDTH
 * (WITHIN), contiguous. SCALE (the same size as the input) is written by
 * forward and read by backward; the CPU's forward passes take NULL where
 * no backward pass follows, and keep nothing. SIZE must be odd and positive; otherwise,
 * or for negative counts, CT_STATUS_INVALID. Backward overwrites the bottom
 * diff. Scratch buffers are the caller's: SPATIAL floats for ACROSS (the
 * CPU side, which works on blocks of positions, may leave it unused), one
 * float per input element for WITHIN. Large blobs are shared between the
 * threads of parallel.h.
 *
 * Each ct_cpu_X has a CUDA twin ct_cuda_X (cuda/lrn.cu) taking the same
 * arguments, with device arrays, and computing the same operations in the
 * same order (one thread slides the channel window of one position; the
 * WITHIN backward first writes each window's share into SCRATCH, then every
 * element gathers the shares of the windows covering it). ACROSS leaves
 * SCRATCH unused on the GPU too. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

CtStatus ct_cpu_lrn_across_forward (int64_t num, int64_t channels, int64_t spatial,
                                    int64_t size, float alpha, float beta, float k,
                                    const float *bottom, float *scale, float *top);
CtStatus ct_cuda_lrn_across_forward (int64_t num, int64_t channels, int64_t spatial,
                                     int64_t size, float alpha, float beta, float k,
                                     const float *bottom, float *scale, float *top);

CtStatus ct_cpu_lrn_across_backward (int64_t num, int64_t channels, int64_t spatial,
                                     int64_t size, float alpha, float beta,
                                     const float *bottom, const float *top,
                                     const float *scale, const float *top_diff,
                                     float *scratch, float *bottom_diff);
CtStatus ct_cuda_lrn_across_backward (int64_t num, int64_t channels, int64_t spatial,
                                      int64_t size, float alpha, float beta,
                                      const float *bottom, const float *top,
                                      const float *scale, const float *top_diff,
                                      float *scratch, float *bottom_diff);
/* The same with no scale kept: each block's scales are slid again from
 * BOTTOM (K as the forward pass had it), with the forward pass's
 * operations, so that the bottom diff is ct_cpu_lrn_across_backward's bit
 * for bit. It reads one blob less than that pass (the scale, as large as
 * the input), so that it costs about the same; the forward pass then keeps
 * nothing (scale NULL). CPU only: the GPU's forward pass keeps its scale. */
CtStatus ct_cpu_lrn_across_backward_again (int64_t num, int64_t channels, int64_t spatial,
                                           int64_t size, float alpha, float beta, float k,
                                           const float *bottom, const float *top,
                                           const float *top_diff, float *bottom_diff);

CtStatus ct_cpu_lrn_within_forward (int64_t planes, int64_t height, int64_t width,
                                    int64_t size, float alpha, float beta,
                                    const float *bottom, float *scale, float *top);
CtStatus ct_cuda_lrn_within_forward (int64_t planes, int64_t height, int64_t width,
                                     int64_t size, float alpha, float beta,
                                     const float *bottom, float *scale, float *top);

CtStatus ct_cpu_lrn_within_backward (int64_t planes, int64_t height, int64_t width,
                                     int64_t size, float alpha, float beta,
                                     const float *bottom, const float *scale,
                                     const float *top_diff, float *scratch,
                                     float *bottom_diff);
CtStatus ct_cuda_lrn_within_backward (int64_t planes, int64_t height, int64_t width,
                                      int64_t size, float alpha, float beta,
                                      const float *bottom, const float *scale,
                                      const float *top_diff, float *scratch,
                                      float *bottom_diff);

#ifdef __cplusplus
}
#endif
