/* cpu/solver-update-private.h: what cpu/solver-update.c shares with its
 * AVX-512 step (cpu/solver-update-avx512.c). Private to kernels/cpu. */
#pragma once

#include <stdint.h>

/* One rule's arguments: its constants, then its arrays. */
typedef struct {
  float a, b, c, d;
  const float *data;
  float *diff, *h1, *h2;
} Rule;

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_STEP_AVX512 1
/* The SGD step with a decay over elements [BEGIN, END) of the Rule at
 * DATA (momentum a, rate b, decay c; diff, history h1, weights h2): a
 * CtParallelFunc, run where the CPU has AVX-512. */
void ct_sgd_step_range_avx512 (int64_t begin, int64_t end, int chunk, void *data);
#endif
