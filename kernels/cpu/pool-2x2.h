/* cpu/pool-2x2.h: MAX pooling with 2 x 2 windows at stride 2 that tile
 * the plane exactly (LeNet's pool1 and pool2), a plane at a time with
 * AVX-512, for cpu/pooling.c (see cpu/pool-2x2.c). Private to the CPU
 * kernels. */
#pragma once

#include <stdint.h>

#include "pooling.h"

/* How a geometry's planes are cut into units of at most 16 outputs, each
 * read from or written to 64 floats of the plane held in four vectors;
 * worked out once per call. */
typedef struct {
  int64_t rows_per_unit;  /* whole output rows per unit; 0: a unit is part of one row */
  int32_t tap[4][16];     /* window element T of lane L: its float among the unit's 64 */
  int32_t winner[4][16];  /* the same element's place in the plane, from the unit's base */
  int32_t source[4][16];  /* backward: float 16 J + Q of the unit comes from lane
                           * SOURCE[J][Q] of the four taps' diffs side by side */
} CtPool2x2;

/* Whether G's MAX pooling runs here: 2 x 2 windows, stride 2, no
 * padding, 2 * pooled size = size on both axes, a CPU with AVX-512; fills
 * *P. (pooling.c also leaves it to the rows when the AVX-512 code is
 * switched off.) */
int ct_pool_2x2_plan (const CtPoolGeometry *g, CtPool2x2 *p);

/* Planes [BEGIN, END): TOP and MASK as the definition gives them (the
 * first largest value of each window in row-major order, -FLT_MAX and -1
 * where no value exceeds -FLT_MAX). MASK may be NULL. */
void ct_pool_2x2_forward (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t begin,
                          int64_t end, const float *bottom, float *top, int32_t *mask);

/* Planes [BEGIN, END) of the bottom diff, each written whole: each
 * output's diff at the element its MASK names, zero elsewhere. Stops at
 * the first plane where a mask names an element outside its own window,
 * with that plane half-written, and returns it (the caller then scatters
 * that plane's diffs instead); returns END when all are done. */
int64_t ct_pool_2x2_backward (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t begin,
                              int64_t end, const float *top_diff, const int32_t *mask,
                              float *bottom_diff);
