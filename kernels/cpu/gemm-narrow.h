/* cpu/gemm-narrow.h: C = A B^T with few columns of C and long rows, as
 * dot products in AVX-512 registers; ct_cpu_gemm (cpu/blas.c) offers it
 * every product. */
#pragma once

#include <stdint.h>

#include "blas.h"

/* Computes C as ct_cpu_gemm does and returns 1 when the shape is one it
 * takes and the CPU has AVX-512 (arguments already checked by the
 * caller); returns 0 and touches nothing otherwise. */
int ct_cpu_gemm_narrow (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n,
                        int64_t k, float alpha, const float *a, const float *b, float beta,
                        float *c);
