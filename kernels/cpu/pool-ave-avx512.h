/* cpu/pool-ave-avx512.h: AVE pooling over planes whose padded rows fit
 * one AVX-512 vector (cpu/pool-ave-avx512.c), with Caffe's adds in
 * Caffe's order, so the same bits as cpu/pool-ave.c's rows. Private to
 * kernels/cpu; x86-64 with GCC's builtins only. */
#pragma once

#include <stdint.h>

#include "pooling-private.h"

/* Whether G's planes fit: padded rows of at most 16 floats, at most 16
 * outputs a row and 64 rows (the CPU is not asked). */
int ct_pool_ave_plane_fits (const CtPoolGeometry *g);
/* Planes [BEGIN, END): the forward pass, and the backward pass adding
 * onto BOTTOM_DIFF (or over it, with CLEAR). */
void ct_pool_ave_forward_avx512 (const CtPoolGeometry *g, int64_t begin, int64_t end,
                                 const float *bottom, float *top);
void ct_pool_ave_backward_avx512 (const CtPoolGeometry *g, int64_t begin, int64_t end,
                                  const float *top_diff, int clear, float *bottom_diff);
