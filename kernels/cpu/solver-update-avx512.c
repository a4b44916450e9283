/* cpu/solver-update-avx512.c: the SGD step with a weight decay on
 * AVX-512 (solver-update-private.h), for ct_cpu_sgd_step where the CPU
 * has it: the same bits as the plain loop. */
#include <stdint.h>

#include "solver-update-private.h"

#ifdef HAVE_STEP_AVX512
#include <immintrin.h>

/* sgd_step_range (cpu/solver-update.c) on AVX-512, 16 elements a vector,
 * with the same roundings: the decay fused (as decay_block), the step's
 * two products and their sum rounded apart (contraction off, which GCC takes as an
 * attribute and clang as a pragma). */
#if defined(__clang__)
__attribute__ ((target ("avx512f")))
#else
__attribute__ ((target ("avx512f"), optimize ("fp-contract=off")))
#endif
void
ct_sgd_step_range_avx512 (int64_t begin, int64_t end, int chunk, void *data)
{
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  const Rule *r = data;
  const __m512 momentum = _mm512_set1_ps (r->a), rate = _mm512_set1_ps (r->b);
  const __m512 decay = _mm512_set1_ps (r->c);
  float *weights = r->h2, *diff = r->diff, *history = r->h1;

  for (int64_t i = begin; i < end; i += 16)
    {
      const __mmask16 lanes = end - i >= 16 ? 0xffff : (__mmask16) ((1u << (end - i)) - 1);
      const __m512 w = _mm512_maskz_loadu_ps (lanes, weights + i);
      __m512 d = _mm512_maskz_loadu_ps (lanes, diff + i);
      __m512 h = _mm512_maskz_loadu_ps (lanes, history + i);

      d = _mm512_fmadd_ps (decay, w, d);
      h = _mm512_add_ps (_mm512_mul_ps (rate, d), _mm512_mul_ps (momentum, h));
      _mm512_mask_storeu_ps (history + i, lanes, h);
      _mm512_mask_storeu_ps (diff + i, lanes, h);
      _mm512_mask_storeu_ps (weights + i, lanes, _mm512_sub_ps (w, h));
    }
}
#endif
