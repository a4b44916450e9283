/* cpu/pool-max-isa.h: MAX pooling's rows for one instruction set each
 * (cpu/pool-max-avx2.c, cpu/pool-max-avx512.c), which cpu/pool-max.c
 * picks from. Each writes TOP[0 ..] and MASK[0 ..] (the winner's index in
 * its plane) for the outputs of one row, exactly as the scalar rows do.
 * Private to kernels/cpu; x86-64 with GCC's builtins only. */
#pragma once

#include <stdint.h>

#include "pooling-private.h"

/* Rows of at least this many interior outputs take the AVX2 rows. Shorter
 * ones waste too much of the last, moved-back group of eight, and run no
 * faster than on SSE2 (PERFORMANCE.md). */
#define AVX2_ROW_MIN 13
/* Rows of fewer interior outputs than this are slower on the AVX-512
 * interior rows than on SSE2; they go to the masked rows. */
#define AVX512_ROW_MIN 8
/* The most window columns of the masked rows. */
#define MASKED_KERNEL_MAX 16

/* Interior outputs [PW_LO, PW_HI) of the row whose windows start at input
 * row HSTART (G's kernel_h rows, none clipped), stride 1 or 2. */
void ct_pool_max_row_avx2 (const CtPoolGeometry *g, const float *in, int64_t hstart,
                           int64_t pw_lo, int64_t pw_hi, float *top, int32_t *mask);
void ct_pool_max_interior_avx512 (const CtPoolGeometry *g, const float *in, int64_t hstart,
                                  int64_t pw_lo, int64_t pw_hi, float *top, int32_t *mask);
/* Outputs [W0, W1) of a row whose windows cover input rows [HSTART,
 * HEND), edges included: stride 1 or 2, pad_w below 16, kernel_w at most
 * MASKED_KERNEL_MAX. */
void ct_pool_max_row_avx512 (const CtPoolGeometry *g, const float *in, int64_t hstart,
                             int64_t hend, int64_t w0, int64_t w1, float *top, int32_t *mask);
