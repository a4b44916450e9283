/* cpu/conv-tiles.h: 2-D convolutions of small planes on column tiles that
 * stay in the L1 cache, for cpu/conv.c (see cpu/conv-tiles.c). Private to
 * the CPU kernels. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "conv.h"

/* How a shape runs on tiles, worked out once per call. */
typedef struct {
  int64_t m;                  /* output channels per group */
  int64_t k;                  /* weights per output channel: in / group * window */
  int64_t positions;          /* output positions per image */
  int64_t width;              /* output positions per row */
  int64_t window;             /* kernel_h * kernel_w */
  int64_t in_channels;        /* input channels per group */
  int64_t channels_per_tile;  /* input channels whose column rows make a tile */
  int64_t rows_per_tile;      /* output rows of a tile: all of them, or a strip */
  int mr_forward;             /* output channels per block of the forward kernel */
  int mr_backward;            /* column rows per block of the input-gradient kernel */
} CtConvTiles;

/* Whether S runs on tiles (a 2-D shape whose column rows of one input
 * channel fit a tile, or of a strip of its output rows, a CPU with
 * AVX-512, tiles allowed by ct_cpu_conv_set_tiles); fills *T. Strips are
 * for the forward pass only: the input gradient needs whole planes
 * (rows_per_tile == out_dims[0]). */
int ct_conv_tiles_plan (const CtConvShape *s, CtConvTiles *t);

/* Floats of one image's tile (per thread). */
size_t ct_conv_tiles_tile_floats (const CtConvTiles *t);

/* One image: OUTPUT = conv (INPUT, WEIGHTS) + BIAS (BIAS may be NULL),
 * the bias added to each finished sum, as Caffe adds it. */
void ct_conv_tiles_forward (const CtConvTiles *t, const CtConvShape *s, const float *input,
                            const float *weights, const float *bias, float *output,
                            float *tile);

/* One image: INPUT_DIFF (overwritten) from OUTPUT_DIFF and WEIGHTS. */
void ct_conv_tiles_backward_data (const CtConvTiles *t, const CtConvShape *s,
                                  const float *output_diff, const float *weights,
                                  float *input_diff, float *tile);
