/* cpu/vector-private.h: what cpu/vector.c shares with its AVX2 loop
 * (cpu/vector-avx2.c). Private to kernels/cpu. */
#pragma once

#include <math.h>
#include <stdint.h>

/* axpby's arguments, for the pool's range functions. */
typedef struct {
  float alpha, beta;
  const float *x;
  float *y;
} Axpby;

static inline __attribute__ ((always_inline)) void
axpby_loop (int64_t begin, int64_t end, const Axpby *e)
{
  const float alpha = e->alpha, beta = e->beta;
  const float *x = e->x;
  float *y = e->y;

  if (beta == 1.0f)
    for (int64_t i = begin; i < end; i++)
      y[i] = fmaf (alpha, x[i], y[i]);
  else
    for (int64_t i = begin; i < end; i++)
      y[i] = fmaf (alpha, x[i], beta * y[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AXPBY_FMA 1
/* axpby_loop over [BEGIN, END) of the Axpby at DATA on AVX2 and FMA: a
 * CtParallelFunc, run where the CPU has both. */
void ct_axpby_range_fma (int64_t begin, int64_t end, int chunk, void *data);
#endif
