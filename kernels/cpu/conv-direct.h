/* cpu/conv-direct.h: the forward pass of 2-D convolutions of inputs with
 * a few channels (a net's first layer) at stride 1, straight from a padded
 * copy of each image, for cpu/conv.c (see cpu/conv-direct.c). Private to the CPU
 * kernels. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "conv.h"

/* The most weights per output channel (in_channels * kernel_h * kernel_w)
 * the direct kernels take: CIFAR-10's conv1 has 75. */
#define CT_CONV_DIRECT_MAX_K 128

/* How a shape runs on the direct kernels, worked out once per call. */
typedef struct {
  int64_t k;          /* weights per output channel */
  int64_t out_h, out_w, positions;
  int64_t pitch;      /* floats per row of the padded copy */
  int64_t plane;      /* floats per channel of the padded copy */
  int vectors;        /* 16-float vectors per block of a row's outputs: 1 or 2 */
  int32_t offset[CT_CONV_DIRECT_MAX_K];  /* weight k's input, from an output's corner */
} CtConvDirect;

/* Whether S runs on the direct kernels (2-D, no groups, stride and
 * dilation 1, at most 4 input channels and CT_CONV_DIRECT_MAX_K weights
 * per output channel, a CPU with AVX-512, allowed by
 * ct_cpu_conv_set_direct); fills *D. */
int ct_conv_direct_plan (const CtConvShape *s, CtConvDirect *d);

/* Floats of scratch one thread needs: the padded copy of an image. */
size_t ct_conv_direct_forward_floats (const CtConvDirect *d, const CtConvShape *s);

/* NUM images: OUTPUT = conv (INPUT, WEIGHTS) + BIAS (BIAS may be NULL),
 * the bias added to each finished sum, as Caffe adds it. */
void ct_conv_direct_forward (const CtConvDirect *d, const CtConvShape *s, int64_t num,
                             const float *input, const float *weights, const float *bias,
                             float *output, float *scratch);

