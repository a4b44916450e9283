/* cpu/pool-max.c: MAX pooling (pooling.h), forward and backward.
 *
 * The window is clipped to the image, as in Caffe; the first largest value
 * wins, ties and NaNs never replace it. Rows whose windows need no
 * clipping run on SSE2, AVX2 or AVX-512 (with the same reads in the same
 * order, so the same winners), 2 x 2 windows at stride 2 a plane at a time
 * (cpu/pool-2x2.c). This file holds the scalar and SSE2 rows and picks the
 * path; the AVX2 and AVX-512 rows are in cpu/pool-max-avx2.c and
 * cpu/pool-max-avx512.c. */
#include <float.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "isa.h"
#include "parallel.h"
#include "pool-max-isa.h"
#include "pooling-private.h"

/* The first largest value of a window clipped to [HSTART, HEND) x [WSTART,
 * WEND) and its position: selects instead of a branch (twice as fast on
 * random data); ties and NaNs never replace the first winner, as in Caffe. */
static inline void
max_window (const float *in, int64_t width, int64_t hstart, int64_t hend, int64_t wstart,
            int64_t wend, float *best_out, int32_t *winner_out)
{
  float best = -FLT_MAX;
  int32_t winner = -1;

  for (int64_t h = hstart; h < hend; h++)
    for (int64_t w = wstart; w < wend; w++)
      {
        float v = in[h * width + w];
        int32_t take = -(int32_t) (v > best); /* all ones when v wins */

        winner = (winner & ~take) | ((int32_t) (h * width + w) & take);
        best = v > best ? v : best;
      }
  *best_out = best;
  *winner_out = winner;
}

/* Outputs [PW_LO, PW_HI) of one row whose windows need no clipping, into
 * TOP[0 ..] and MASK[0 ..]; always inlined, so that with constant KH and
 * KW the window loops unroll. The same reads in the same order as
 * max_window, so the same winners. */
#ifdef __SSE2__
/* The lanes of A where MASK is set, the lanes of B elsewhere. */
static inline __m128
blend4 (__m128 mask, __m128 a, __m128 b)
{
  return _mm_or_ps (_mm_and_ps (mask, a), _mm_andnot_ps (mask, b));
}

/* Four neighbouring outputs of one row, whose windows start at WINDOW,
 * WINDOW + STRIDE_W, ... (a stride of 1 or 2), as max_row_interior's
 * scalar loop computes them: the same reads in the same order, a lane
 * taking a value only when it is larger (so ties and NaNs keep the first
 * winner). At stride 2 the lanes' values are gathered from two loads of
 * four that end at the last lane's element, never beyond it. */
static inline __attribute__ ((always_inline)) void
max_four_interior (const float *window, int32_t first, int64_t width, int64_t stride_w,
                   int64_t kh, int64_t kw, float *top, int32_t *mask)
{
  const __m128i lanes = stride_w == 1 ? _mm_setr_epi32 (0, 1, 2, 3) : _mm_setr_epi32 (0, 2, 4, 6);
  __m128 best = _mm_set1_ps (-FLT_MAX);
  __m128 winner = _mm_castsi128_ps (_mm_set1_epi32 (-1));

  for (int64_t h = 0; h < kh; h++)
    for (int64_t w = 0; w < kw; w++)
      {
        const float *at = window + h * width + w;
        __m128 v = load_four (at, stride_w);
        __m128 take = _mm_cmpgt_ps (v, best);
        __m128i index = _mm_add_epi32 (lanes, _mm_set1_epi32 (first + (int32_t) (h * width + w)));

        winner = blend4 (take, _mm_castsi128_ps (index), winner);
        best = blend4 (take, v, best);
      }
  _mm_storeu_ps (top, best);
  _mm_storeu_si128 ((__m128i *) mask, _mm_castps_si128 (winner));
}
#endif

static inline __attribute__ ((always_inline)) void
max_row_interior (const float *in, int64_t width, int64_t hstart, int64_t stride_w,
                  int64_t pad_w, int64_t pw_lo, int64_t pw_hi, int64_t kh, int64_t kw,
                  float *top, int32_t *mask)
{
  int64_t pw = pw_lo;

#ifdef __SSE2__
  /* Pooling windows mostly step by 1 or 2: four outputs at a time. The
   * last four are moved back to end at PW_HI, computing up to three
   * outputs twice (with the same result) instead of one at a time: rows
   * of 15 interior outputs (CIFAR-10's pool1) had left a fifth of the
   * work to the scalar loop. */
  if (stride_w == 1 || stride_w == 2)
    {
      for (; pw + 4 <= pw_hi; pw += 4)
        {
          const int64_t wstart = pw * stride_w - pad_w;

          max_four_interior (in + hstart * width + wstart, (int32_t) (hstart * width + wstart),
                             width, stride_w, kh, kw, top + (pw - pw_lo), mask + (pw - pw_lo));
        }
      if (pw < pw_hi && pw_hi - pw_lo >= 4)
        {
          const int64_t wstart = (pw_hi - 4) * stride_w - pad_w;

          max_four_interior (in + hstart * width + wstart, (int32_t) (hstart * width + wstart),
                             width, stride_w, kh, kw, top + (pw_hi - 4 - pw_lo),
                             mask + (pw_hi - 4 - pw_lo));
          pw = pw_hi;
        }
    }
#endif
  for (; pw < pw_hi; pw++)
    {
      const int64_t wstart = pw * stride_w - pad_w;
      const float *window = in + hstart * width + wstart;
      const int32_t first = (int32_t) (hstart * width + wstart);
      float best = -FLT_MAX;
      int32_t winner = -1;

      for (int64_t h = 0; h < kh; h++)
        for (int64_t w = 0; w < kw; w++)
          {
            float v = window[h * width + w];
            int32_t take = -(int32_t) (v > best);

            winner = (winner & ~take) | ((first + (int32_t) (h * width + w)) & take);
            best = v > best ? v : best;
          }
      top[pw - pw_lo] = best;
      mask[pw - pw_lo] = winner;
    }
}


/* Whether MAX may take cpu/pool-2x2.c: its AVX-512 code goes with the
 * rows' switch. */
static int
pairs_allowed (void)
{
  return ct_pool_avx512_switch ();
}

static void
max_row_fast (const CtPoolGeometry *g, const float *in, int64_t hstart, int64_t pw_lo,
              int64_t pw_hi, float *top, int32_t *mask)
{
#ifdef HAVE_AVX2_ROWS
  if ((g->stride_w == 1 || g->stride_w == 2) && pw_hi - pw_lo >= AVX512_ROW_MIN
      && ct_pool_have_avx512 ())
    {
      ct_pool_max_interior_avx512 (g, in, hstart, pw_lo, pw_hi, top, mask);
      return;
    }
  if ((g->stride_w == 1 || g->stride_w == 2) && pw_hi - pw_lo >= AVX2_ROW_MIN
      && ct_pool_have_avx2 ())
    {
      ct_pool_max_row_avx2 (g, in, hstart, pw_lo, pw_hi, top, mask);
      return;
    }
#endif
  if (g->kernel_h == 2 && g->kernel_w == 2)
    max_row_interior (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, 2, 2, top,
                      mask);
  else if (g->kernel_h == 3 && g->kernel_w == 3)
    max_row_interior (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, 3, 3, top,
                      mask);
  else
    max_row_interior (in, g->width, hstart, g->stride_w, g->pad_w, pw_lo, pw_hi, g->kernel_h,
                      g->kernel_w, top, mask);
}

/* Outputs [W0, W1) of row PH of plane IN into TOP[0 ..] and MASK[0 ..]. */
static void
max_row (const CtPoolGeometry *g, const Interior *inner, const float *in, int64_t ph,
         int64_t w0, int64_t w1, float *top, int32_t *mask)
{
  const int64_t row_start = ph * g->stride_h - g->pad_h;
  const int64_t hstart = max64 (row_start, 0);
  const int64_t hend = min64 (row_start + g->kernel_h, g->height);
  CtPoolGeometry clipped = *g;

  /* A row of windows that the top or bottom edge clips (the last one,
   * where Caffe rounds the output size up: CIFAR-10's pool1) still takes
   * the fast rows, with fewer rows per window: the same elements in the
   * same order. */
  clipped.kernel_h = hend - hstart;
#ifdef HAVE_AVX2_ROWS
  if ((g->stride_w == 1 || inner->pw_hi - inner->pw_lo < AVX512_ROW_MIN)
      && (g->stride_w == 1 || g->stride_w == 2) && g->pad_w < 16
      && g->kernel_w <= MASKED_KERNEL_MAX && ct_pool_have_avx512 ())
    {
      ct_pool_max_row_avx512 (g, in, hstart, hend, w0, w1, top, mask);
      return;
    }
#endif
  for (int64_t pw = w0; pw < w1; pw++)
    {
      int64_t wstart, wend;

      if (hend > hstart && pw >= inner->pw_lo && pw < inner->pw_hi)
        {
          int64_t last = min64 (inner->pw_hi, w1);

          max_row_fast (&clipped, in, hstart, pw, last, top + (pw - w0), mask + (pw - w0));
          pw = last - 1;
          continue;
        }
      wstart = pw * g->stride_w - g->pad_w;
      wend = min64 (wstart + g->kernel_w, g->width);
      wstart = max64 (wstart, 0);
      max_window (in, g->width, hstart, hend, wstart, wend, &top[pw - w0], &mask[pw - w0]);
    }
}

/* Planes [BEGIN, END), each row in pieces of at most 64 outputs, whose
 * winners go to the int mask, or through a scratch row to the float one. */
static void
max_forward_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const PoolJob *j = data;
  const CtPoolGeometry *g = j->g;
  const int64_t in_plane = g->height * g->width;
  const int64_t out_plane = g->pooled_height * g->pooled_width;
  Interior inner;

  if (j->on_2x2)
    {
      ct_pool_2x2_forward (&j->pairs, g, begin, end, j->bottom, j->top, j->mask);
      return;
    }
  interior (g->pooled_height, g->stride_h, g->pad_h, g->kernel_h, g->height, &inner.ph_lo,
            &inner.ph_hi);
  interior (g->pooled_width, g->stride_w, g->pad_w, g->kernel_w, g->width, &inner.pw_lo,
            &inner.pw_hi);
  for (int64_t p = begin; p < end; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t w0 = 0; w0 < g->pooled_width; w0 += 64)
        {
          const int64_t w1 = min64 (w0 + 64, g->pooled_width);
          const int64_t out = p * out_plane + ph * g->pooled_width + w0;
          int32_t scratch[64];
          int32_t *mask = j->mask != NULL ? j->mask + out : scratch;

          max_row (g, &inner, j->bottom + p * in_plane, ph, w0, w1, j->top + out, mask);
          if (j->top_mask != NULL)
            for (int64_t i = 0; i < w1 - w0; i++)
              j->top_mask[out + i] = (float) mask[i];
        }
}

CtStatus
ct_cpu_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                         int32_t *mask, float *top_mask)
{
  PoolJob j = { .g = g, .bottom = bottom, .top = top, .mask = mask, .top_mask = top_mask };

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  j.on_2x2 = top_mask == NULL && pairs_allowed () && ct_pool_2x2_plan (g, &j.pairs);
  ct_cpu_parallel_for (g->planes, plane_grain (g), max_forward_planes, &j);
  return CT_STATUS_OK;
}

/* Plane P's bottom diff: each output's diff added to its winner's. */
static void
max_backward_plane (const PoolJob *j, int64_t p)
{
  const CtPoolGeometry *g = j->g;
  const int64_t in_plane = g->height * g->width;
  const int64_t out_plane = g->pooled_height * g->pooled_width;
  float *diff = j->bottom_diff + p * in_plane;
  const float *td = j->top_diff + p * out_plane;

  /* Locals: under -fno-strict-aliasing every store to a diff could
   * change *J, and the loop would reload it. */
  const int32_t *mask = j->mask_in;
  const float *top_mask = j->top_mask_in;

  if (j->clear)
    memset (diff, 0, (size_t) in_plane * sizeof (float));
  /* A mask may have been edited by the caller (a mask top): ignore
   * what does not point into the plane. */
  if (mask != NULL)
    for (int64_t i = 0; i < out_plane; i++)
      {
        int64_t winner = mask[p * out_plane + i];

        if (winner >= 0 && winner < in_plane)
          diff[winner] += td[i];
      }
  else
    for (int64_t i = 0; i < out_plane; i++)
      {
        float at = top_mask[p * out_plane + i];

        /* Compared as a float first: converting a NaN or a huge
         * value to an integer is undefined. */
        if (at >= 0.0f && at < (float) in_plane && (int64_t) at < in_plane)
          diff[(int64_t) at] += td[i];
      }
}

static void
max_backward_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const PoolJob *j = data;

  for (int64_t p = begin; p < end; p++)
    {
      /* The 2 x 2 planes write whole planes, up to one whose mask names
       * an element outside its window. */
      if (j->on_2x2
          && (p = ct_pool_2x2_backward (&j->pairs, j->g, p, end, j->top_diff, j->mask_in,
                                        j->bottom_diff))
               == end)
        break;
      max_backward_plane (j, p);
    }
}

static CtStatus
max_backward (const CtPoolGeometry *g, const float *top_diff, const int32_t *mask,
              const float *top_mask, float *bottom_diff, int clear)
{
  PoolJob j = { .g = g, .top_diff = top_diff, .mask_in = mask, .top_mask_in = top_mask,
                .bottom_diff = bottom_diff, .clear = clear };

  if (!valid_geometry (g) || (mask == NULL && top_mask == NULL))
    return CT_STATUS_INVALID;
  j.on_2x2 = clear && mask != NULL && pairs_allowed () && ct_pool_2x2_plan (g, &j.pairs);
  ct_cpu_parallel_for (g->planes, plane_grain (g), max_backward_planes, &j);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                          const int32_t *mask, const float *top_mask, float *bottom_diff)
{
  return max_backward (g, top_diff, mask, top_mask, bottom_diff, 0);
}

CtStatus
ct_cpu_max_pool_backward_set (const CtPoolGeometry *g, const float *top_diff,
                              const int32_t *mask, const float *top_mask, float *bottom_diff)
{
  return max_backward (g, top_diff, mask, top_mask, bottom_diff, 1);
}

