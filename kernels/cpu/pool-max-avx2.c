/* cpu/pool-max-avx2.c: MAX pooling's interior rows on AVX2, eight
 * outputs per vector (pool-max-isa.h). The same reads in the same order
 * as the SSE2 and scalar rows of cpu/pool-max.c, so the same winners;
 * compiled for AVX2 by attribute, called only where the CPU has it. */
#include <float.h>
#include <stdint.h>

#include "pool-max-isa.h"

#ifdef HAVE_AVX2_ROWS
#include <immintrin.h>

/* The AVX2 twin of max_four_interior (cpu/pool-max.c): eight outputs, a blend instruction
 * per selection instead of three. At stride 2 the lanes' values come from
 * two loads of eight that end at the last lane's element, never beyond. */
__attribute__ ((target ("avx2"))) static inline __attribute__ ((always_inline)) void
max_eight_interior (const float *window, int32_t first, int64_t width, int64_t stride_w,
                    int64_t kh, int64_t kw, float *top, int32_t *mask)
{
  const __m256i lanes = stride_w == 1 ? _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7)
                                      : _mm256_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14);
  const __m256i evens = _mm256_setr_epi32 (0, 2, 4, 6, 0, 0, 0, 0);
  const __m256i odds = _mm256_setr_epi32 (0, 0, 0, 0, 1, 3, 5, 7);
  __m256 best = _mm256_set1_ps (-FLT_MAX);
  __m256 winner = _mm256_castsi256_ps (_mm256_set1_epi32 (-1));

  for (int64_t h = 0; h < kh; h++)
    for (int64_t w = 0; w < kw; w++)
      {
        const float *at = window + h * width + w;
        __m256 v = stride_w == 1
                     ? _mm256_loadu_ps (at)
                     : _mm256_blend_ps (_mm256_permutevar8x32_ps (_mm256_loadu_ps (at), evens),
                                        _mm256_permutevar8x32_ps (_mm256_loadu_ps (at + 7), odds),
                                        0xf0);
        __m256 take = _mm256_cmp_ps (v, best, _CMP_GT_OQ);
        __m256i index = _mm256_add_epi32 (lanes,
                                          _mm256_set1_epi32 (first + (int32_t) (h * width + w)));

        winner = _mm256_blendv_ps (winner, _mm256_castsi256_ps (index), take);
        best = _mm256_blendv_ps (best, v, take);
      }
  _mm256_storeu_ps (top, best);
  _mm256_storeu_si256 ((__m256i *) mask, _mm256_castps_si256 (winner));
}

/* Outputs [PW_LO, PW_HI) of a row, at least eight, at stride 1 or 2, eight
 * at a time; the last eight are moved back to end at PW_HI. */
__attribute__ ((target ("avx2"))) static inline __attribute__ ((always_inline)) void
max_row_eights (const float *in, int64_t width, int64_t hstart, int64_t stride_w,
                int64_t pad_w, int64_t pw_lo, int64_t pw_hi, int64_t kh, int64_t kw,
                float *top, int32_t *mask)
{
  for (int64_t pw = pw_lo;;)
    {
      const int64_t at = pw + 8 <= pw_hi ? pw : pw_hi - 8;
      const int64_t wstart = at * stride_w - pad_w;

      max_eight_interior (in + hstart * width + wstart, (int32_t) (hstart * width + wstart),
                          width, stride_w, kh, kw, top + (at - pw_lo), mask + (at - pw_lo));
      pw = at + 8;
      if (pw == pw_hi)
        return;
    }
}

/* max_row_eights with the common kernels as constants, so that their
 * window loops unroll. */
__attribute__ ((target ("avx2"))) void
ct_pool_max_row_avx2 (const CtPoolGeometry *g, const float *in, int64_t hstart, int64_t pw_lo,
              int64_t pw_hi, float *top, int32_t *mask)
{
  if (g->kernel_h == 2 && g->kernel_w == 2)
    max_row_eights (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, 2, 2, top, mask);
  else if (g->kernel_h == 3 && g->kernel_w == 3)
    max_row_eights (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, 3, 3, top, mask);
  else
    max_row_eights (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, g->kernel_h,
                    g->kernel_w, top, mask);
}

#endif
