/* cpu/conv-sampled.h: 1x1 convolutions at a stride (ResNet's downsampling
 * layers) as the stride-1 convolution of the input's samples, for
 * cpu/conv.c (see cpu/conv-sampled.c). Private to the CPU kernels. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "conv.h"

/* Whether S is a 2-D 1x1 convolution without padding at a stride above 1
 * on some axis; then *SUB is the same convolution at stride 1 over the
 * samples (in_dims = S's out_dims). */
int ct_conv_sampled_shape (const CtConvShape *s, CtConvShape *sub);

/* Floats of the samples of S's input (or of their gradient), rounded up
 * to a cache line. */
size_t ct_conv_sampled_floats (const CtConvShape *s);

/* SAMPLES = the inputs the windows of S read: every stride-th row and
 * column of each plane, in SUB's input layout. */
void ct_conv_sampled_gather (const CtConvShape *s, const float *input, float *samples);

/* INPUT_DIFF = the gradient of S's input from the gradient of its samples:
 * those at the sampled positions, 0 everywhere else. */
void ct_conv_sampled_scatter (const CtConvShape *s, const float *samples_diff,
                              float *input_diff);
