/* cpu/pool-max-avx512.c: MAX pooling's rows on AVX-512, sixteen outputs
 * per vector (pool-max-isa.h): the interior rows, and the masked rows
 * that take their edges too. The same reads in the same order as the
 * SSE2 and scalar rows of cpu/pool-max.c, so the same winners; compiled
 * for AVX-512 by attribute, called only where the CPU has it.
 *
 * Interior rows: the last vector of a row masked to the outputs left
 * instead of moved back (as the SSE2 and AVX2 rows do), and the selections
 * made under a compare mask. At stride 2 a permute picks the even
 * elements of two masked loads, which read no element past the last
 * lane's. Rows of fewer than AVX512_ROW_MIN interior outputs are slower
 * here than on SSE2; they go to the masked rows. */
#include <float.h>
#include <stdint.h>

#include "pool-max-isa.h"

#ifdef HAVE_AVX2_ROWS
#include <immintrin.h>

__attribute__ ((target ("avx512f"))) static inline __attribute__ ((always_inline)) void
max_sixteen_interior (const float *window, int32_t first, int64_t width, int64_t stride_w,
                      int64_t kh, int64_t kw, int64_t n, float *top, int32_t *mask)
{
  const __m512i offsets = stride_w == 1 ? _mm512_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                             11, 12, 13, 14, 15)
                                        : _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16,
                                                             18, 20, 22, 24, 26, 28, 30);
  const __mmask16 lanes = (__mmask16) ((1u << n) - 1);
  /* At stride 2, the elements 0 .. 2 (n - 1) of each window row. */
  const int64_t last = 2 * (n - 1);
  const __mmask16 low = last >= 15 ? 0xffff : (__mmask16) ((1u << (last + 1)) - 1);
  const __mmask16 high = last >= 16 ? (__mmask16) ((1u << (last - 15)) - 1) : 0;
  __m512 best = _mm512_set1_ps (-FLT_MAX);
  __m512i winner = _mm512_set1_epi32 (-1);

  for (int64_t h = 0; h < kh; h++)
    for (int64_t w = 0; w < kw; w++)
      {
        const float *at = window + h * width + w;
        __m512 v;
        __mmask16 take;

        if (stride_w == 1)
          v = _mm512_maskz_loadu_ps (lanes, at);
        else
          v = _mm512_permutex2var_ps (_mm512_maskz_loadu_ps (low, at), offsets,
                                      high != 0 ? _mm512_maskz_loadu_ps (high, at + 16)
                                                : _mm512_setzero_ps ());
        take = _mm512_mask_cmp_ps_mask (lanes, v, best, _CMP_GT_OQ);
        best = _mm512_mask_mov_ps (best, take, v);
        winner = _mm512_mask_mov_epi32 (
          winner, take,
          _mm512_add_epi32 (offsets, _mm512_set1_epi32 (first + (int32_t) (h * width + w))));
      }
  _mm512_mask_storeu_ps (top, lanes, best);
  _mm512_mask_storeu_epi32 (mask, lanes, winner);
}

__attribute__ ((target ("avx512f"))) static inline __attribute__ ((always_inline)) void
max_row_sixteens (const float *in, int64_t width, int64_t hstart, int64_t stride_w,
                  int64_t pad_w, int64_t pw_lo, int64_t pw_hi, int64_t kh, int64_t kw,
                  float *top, int32_t *mask)
{
  for (int64_t pw = pw_lo; pw < pw_hi; pw += 16)
    {
      const int64_t wstart = pw * stride_w - pad_w;

      max_sixteen_interior (in + hstart * width + wstart, (int32_t) (hstart * width + wstart),
                            width, stride_w, kh, kw, min64 (16, pw_hi - pw), top + (pw - pw_lo),
                            mask + (pw - pw_lo));
    }
}

__attribute__ ((target ("avx512f"))) void
ct_pool_max_interior_avx512 (const CtPoolGeometry *g, const float *in, int64_t hstart,
                             int64_t pw_lo, int64_t pw_hi, float *top, int32_t *mask)
{
  if (g->kernel_h == 2 && g->kernel_w == 2)
    max_row_sixteens (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, 2, 2, top,
                      mask);
  else if (g->kernel_h == 3 && g->kernel_w == 3)
    max_row_sixteens (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, 3, 3, top,
                      mask);
  else
    max_row_sixteens (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, g->kernel_h,
                      g->kernel_w, top, mask);
}

/* AVX-512 rows with their edges: sixteen outputs per vector, each
 * window element one load for all sixteen, the lanes whose element lies
 * outside the image masked off (and never read), so that the clipped
 * windows at the edges need no scalar code. They take the rows at stride
 * 1 and those with fewer than AVX512_ROW_MIN interior outputs, which the
 * interior rows above left to SSE2 and scalar edges; longer rows at
 * stride 2 stay there, where this path is slower. */

/* Lanes [LO, HI) of 16. */
static inline __mmask16
lane_range (int64_t lo, int64_t hi)
{
  uint32_t upto_hi = hi >= 16 ? 0xffffu : hi <= 0 ? 0u : (1u << hi) - 1;
  uint32_t below_lo = lo >= 16 ? 0xffffu : lo <= 0 ? 0u : (1u << lo) - 1;

  return (__mmask16) (upto_hi & ~below_lo);
}

/* Where window column K's values lie for the N outputs from OW0 (lane l
 * reads column C0 + S l, C0 = OW0 S - pad + K, S 1 or 2), worked out once
 * per 16 outputs for all the window's rows. */
typedef struct {
  int64_t c0;
  __mmask16 lanes;        /* outputs whose column lies in [0, width) */
  __mmask16 low, high;    /* the loads' elements (S 2: of 32) */
  int expand;             /* C0 < 0: the first load expands from column 0 */
} WindowColumn;

static inline __attribute__ ((always_inline)) void
plan_column (int64_t width, int64_t c0, int64_t s, int64_t n, WindowColumn *c)
{
  /* Columns [FIRST, LAST) of the image, as offsets from C0. */
  const int64_t first = c0 < 0 ? -c0 : 0, last = width - c0;

  c->c0 = c0;
  c->expand = first > 0;
  c->lanes = lane_range ((first + s - 1) / s, min64 (n, (last + s - 1) / s));
  if (s == 1)
    c->low = c->lanes, c->high = 0;
  else
    {
      const int64_t end = min64 (last, 2 * n - 1);

      c->low = lane_range (first, end);
      c->high = lane_range (first - 16, end - 16);
    }
}

/* Column C's values in input row ROW. */
__attribute__ ((target ("avx512f"))) static inline __attribute__ ((always_inline)) __m512
load_column (const float *row, int64_t s, const WindowColumn *c)
{
  const __m512i evens = _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
  /* An expanding load puts column 0 in its lane without an address
   * before the row's start. */
  const __m512 a = c->expand ? _mm512_maskz_expandloadu_ps (c->low, row)
                             : _mm512_maskz_loadu_ps (c->low, row + c->c0);

  if (s == 1)
    return a;
  return _mm512_permutex2var_ps (a, evens,
                                 c->high != 0 ? _mm512_maskz_loadu_ps (c->high, row + c->c0 + 16)
                                              : _mm512_setzero_ps ());
}


/* Outputs [W0, W1) of a row whose windows cover input rows [HSTART, HEND);
 * S and KW are constants in the instances below. */
__attribute__ ((target ("avx512f"))) static inline __attribute__ ((always_inline)) void
max_row_masked (const float *in, int64_t width, int64_t hstart, int64_t hend, int64_t s,
                int64_t pad_w, int64_t kw, int64_t w0, int64_t w1, float *top, int32_t *mask)
{
  const __m512i step = s == 1 ? _mm512_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                   13, 14, 15)
                              : _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                                                   24, 26, 28, 30);
  WindowColumn columns[MASKED_KERNEL_MAX];

  for (int64_t ow0 = w0; ow0 < w1; ow0 += 16)
    {
      const int64_t n = min64 (16, w1 - ow0);
      int64_t used = 0;
      __m512 best = _mm512_set1_ps (-FLT_MAX);
      __m512i winner = _mm512_set1_epi32 (-1);

      for (int64_t k = 0; k < kw; k++)
        if (ow0 * s - pad_w + k < width)
          plan_column (width, ow0 * s - pad_w + k, s, n, &columns[used++]);
      for (int64_t h = hstart; h < hend; h++)
        for (int64_t k = 0; k < used; k++)
          {
            const WindowColumn *c = &columns[k];
            const __m512 v = load_column (in + h * width, s, c);
            const __mmask16 take = _mm512_mask_cmp_ps_mask (c->lanes, v, best, _CMP_GT_OQ);

            best = _mm512_mask_mov_ps (best, take, v);
            winner = _mm512_mask_mov_epi32 (
              winner, take,
              _mm512_add_epi32 (step, _mm512_set1_epi32 ((int32_t) (h * width + c->c0))));
          }
      _mm512_mask_storeu_ps (top + (ow0 - w0), lane_range (0, n), best);
      _mm512_mask_storeu_epi32 (mask + (ow0 - w0), lane_range (0, n), winner);
    }
}

#define MAX_ROW_MASKED(S, KW)                                                                 \
  __attribute__ ((target ("avx512f"))) static void max_row_masked_##S##_##KW (              \
    const CtPoolGeometry *g, const float *in, int64_t hstart, int64_t hend, int64_t w0,       \
    int64_t w1, float *top, int32_t *mask)                                                    \
  {                                                                                           \
    max_row_masked (in, g->width, hstart, hend, S, g->pad_w, KW > 0 ? KW : g->kernel_w, w0,   \
                    w1, top, mask);                                                           \
  }
MAX_ROW_MASKED (1, 2)
MAX_ROW_MASKED (1, 3)
MAX_ROW_MASKED (1, 0)
MAX_ROW_MASKED (2, 2)
MAX_ROW_MASKED (2, 3)
MAX_ROW_MASKED (2, 0)

void
ct_pool_max_row_avx512 (const CtPoolGeometry *g, const float *in, int64_t hstart, int64_t hend,
                        int64_t w0, int64_t w1, float *top, int32_t *mask)
{
  static void (*const rows[2][3]) (const CtPoolGeometry *, const float *, int64_t, int64_t,
                                   int64_t, int64_t, float *, int32_t *) = {
    { max_row_masked_1_2, max_row_masked_1_3, max_row_masked_1_0 },
    { max_row_masked_2_2, max_row_masked_2_3, max_row_masked_2_0 },
  };

  rows[g->stride_w - 1][g->kernel_w == 2 ? 0 : g->kernel_w == 3 ? 1 : 2](g, in, hstart, hend, w0,
                                                                         w1, top, mask);
}

#endif
