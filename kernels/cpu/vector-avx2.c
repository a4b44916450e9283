/* cpu/vector-avx2.c: axpy and axpby on AVX2 with FMA (vector-private.h),
 * for cpu/vector.c where the CPU has both: one rounding per element, the
 * same bits as the plain loop's fmaf. */
#include <math.h>
#include <stdint.h>

#include "vector-private.h"

#ifdef HAVE_AXPBY_FMA
#include <immintrin.h>

/* axpby_loop on AVX2 registers: GCC leaves a loop of fmaf scalar, one
 * element per instruction. _mm256_fmadd_ps rounds once, as fmaf does. */
__attribute__ ((target ("avx2,fma"))) void
ct_axpby_range_fma (int64_t begin, int64_t end, int chunk, void *data)
{
  const Axpby *e = data;
  const __m256 alpha = _mm256_set1_ps (e->alpha), beta = _mm256_set1_ps (e->beta);
  const float *x = e->x;
  float *y = e->y;
  int64_t i = begin;

  if (e->beta == 1.0f)
    for (; i + 8 <= end; i += 8)
      _mm256_storeu_ps (y + i, _mm256_fmadd_ps (alpha, _mm256_loadu_ps (x + i),
                                                _mm256_loadu_ps (y + i)));
  else
    for (; i + 8 <= end; i += 8)
      _mm256_storeu_ps (y + i, _mm256_fmadd_ps (alpha, _mm256_loadu_ps (x + i),
                                                _mm256_mul_ps (beta, _mm256_loadu_ps (y + i))));
  axpby_loop (i, end, e);
}
#endif
