/* cpu/pool-ave-avx512.c: AVE pooling of small planes on AVX-512
 * (pool-ave-avx512.h), a plane at a time; cpu/pool-ave.c picks it where
 * the CPU has AVX-512 and the plane fits. */
#include <stdint.h>
#include <string.h>

#include "pool-ave-avx512.h"

#ifdef HAVE_AVX2_ROWS
#include <immintrin.h>

/* AVE over planes whose rows, with their padding, fit one AVX-512 vector
 * (CIFAR-10's pool2 and pool3: 16 and 8 wide, 3 x 3 at stride 2, the last
 * window clipped). A row of the plane sits in the lanes of its padded row,
 * and a permute gathers, for every output of a row at once, the element
 * at one kernel column; in the backward pass the reverse permute spreads
 * the outputs' shares onto the row. The adds are Caffe's, in Caffe's
 * order: forward, each window's rows and then its columns; backward, the
 * outputs in order (kernel columns from the last, so that an element that
 * two windows of one row share gets the left window's share first), and
 * elements outside the image masked off. */
int
ct_pool_ave_plane_fits (const CtPoolGeometry *g)
{
  return g->width + 2 * g->pad_w <= 16 && g->pooled_width <= 16 && g->kernel_w <= 16
         && g->height <= 64;
}

/* What the permutes of a plane need, per kernel column KW: GATHER[KW]
 * holds, for output lane PW, the padded-row lane PW * stride + KW, and
 * GATHERED[KW] the outputs whose element there is in the image; SPREAD[KW]
 * holds, for padded-row lane L, the output whose window column KW lies at
 * L, and SPREAD_TO[KW] the image lanes that some output's column KW
 * reaches. SIZE_W is each output's window width clipped to the padded
 * image. */
typedef struct {
  __m512i gather[16], spread[16];
  __mmask16 gathered[16], spread_to[16];
  __mmask16 outputs, image;
  int32_t size_w[16];
} AveLanes;

__attribute__ ((target ("avx512f"))) static void
ave_lanes (const CtPoolGeometry *g, AveLanes *l)
{
  const int64_t pad_w = g->pad_w, width = g->width, stride = g->stride_w;
  int32_t gather[16], spread[16];

  l->outputs = (__mmask16) ((1u << g->pooled_width) - 1);
  l->image = (__mmask16) (((1u << width) - 1) << pad_w);
  for (int64_t pw = 0; pw < 16; pw++)
    {
      int64_t wstart = pw * stride - pad_w;

      l->size_w[pw] = (int32_t) (min64 (wstart + g->kernel_w, width + pad_w) - wstart);
    }
  for (int64_t kw = 0; kw < g->kernel_w; kw++)
    {
      l->gathered[kw] = 0;
      l->spread_to[kw] = 0;
      for (int64_t i = 0; i < 16; i++)
        {
          int64_t lane = i * stride + kw;   /* output i's column KW */
          int64_t from = i - kw;            /* lane i from output from / stride */

          gather[i] = (int32_t) (lane < 16 ? lane : 0);
          if (i < g->pooled_width && lane >= pad_w && lane < pad_w + width)
            l->gathered[kw] |= (__mmask16) (1u << i);
          spread[i] = 0;
          if (from >= 0 && from % stride == 0 && from / stride < g->pooled_width && i >= pad_w
              && i < pad_w + width)
            {
              spread[i] = (int32_t) (from / stride);
              l->spread_to[kw] |= (__mmask16) (1u << i);
            }
        }
      l->gather[kw] = _mm512_loadu_si512 (gather);
      l->spread[kw] = _mm512_loadu_si512 (spread);
    }
}

/* The divisors of row PH's outputs, and its rows in the image [*H0, *H1). */
__attribute__ ((target ("avx512f"))) static inline __m512
ave_divisors (const CtPoolGeometry *g, const AveLanes *l, int64_t ph, int64_t *h0, int64_t *h1)
{
  const int64_t hstart = ph * g->stride_h - g->pad_h;
  const int64_t size_h = min64 (hstart + g->kernel_h, g->height + g->pad_h) - hstart;

  *h0 = max64 (hstart, 0);
  *h1 = min64 (hstart + g->kernel_h, g->height);
  return _mm512_cvtepi32_ps (_mm512_mullo_epi32 (_mm512_loadu_si512 (l->size_w),
                                                 _mm512_set1_epi32 ((int32_t) size_h)));
}

__attribute__ ((target ("avx512f"))) static void
ave_forward_plane_avx512 (const CtPoolGeometry *g, const AveLanes *l, const float *in,
                          float *top)
{
  for (int64_t ph = 0; ph < g->pooled_height; ph++)
    {
      int64_t h0, h1;
      const __m512 divisors = ave_divisors (g, l, ph, &h0, &h1);
      __m512 sum = _mm512_setzero_ps ();

      for (int64_t h = h0; h < h1; h++)
        {
          const __m512 row = _mm512_maskz_expandloadu_ps (l->image, in + h * g->width);

          for (int64_t kw = 0; kw < g->kernel_w; kw++)
            sum = _mm512_mask_add_ps (sum, l->gathered[kw], sum,
                                      _mm512_permutexvar_ps (l->gather[kw], row));
        }
      _mm512_mask_storeu_ps (top + ph * g->pooled_width, l->outputs,
                             _mm512_maskz_div_ps (l->outputs, sum, divisors));
    }
}

/* The bottom diff of a plane, its rows kept as vectors; CLEAR: the sums
 * start from 0, else from the diff already there. */
__attribute__ ((target ("avx512f"))) static void
ave_backward_plane_avx512 (const CtPoolGeometry *g, const AveLanes *l, const float *td,
                           int clear, float *diff)
{
  __m512 rows[64];

  for (int64_t h = 0; h < g->height; h++)
    rows[h] = clear ? _mm512_setzero_ps ()
                    : _mm512_maskz_expandloadu_ps (l->image, diff + h * g->width);
  for (int64_t ph = 0; ph < g->pooled_height; ph++)
    {
      int64_t h0, h1;
      const __m512 divisors = ave_divisors (g, l, ph, &h0, &h1);
      /* Lanes past the outputs divide nothing (their divisors may be 0). */
      const __m512 shares = _mm512_maskz_div_ps (
        l->outputs, _mm512_maskz_loadu_ps (l->outputs, td + ph * g->pooled_width), divisors);

      for (int64_t h = h0; h < h1; h++)
        for (int64_t kw = g->kernel_w - 1; kw >= 0; kw--)
          rows[h] = _mm512_mask_add_ps (rows[h], l->spread_to[kw], rows[h],
                                        _mm512_permutexvar_ps (l->spread[kw], shares));
    }
  for (int64_t h = 0; h < g->height; h++)
    _mm512_mask_compressstoreu_ps (diff + h * g->width, l->image, rows[h]);
}

__attribute__ ((target ("avx512f"))) void
ct_pool_ave_forward_avx512 (const CtPoolGeometry *g, int64_t begin, int64_t end,
                            const float *bottom, float *top)
{
  const int64_t in_plane = g->height * g->width;
  const int64_t out_plane = g->pooled_height * g->pooled_width;
  AveLanes lanes;

  ave_lanes (g, &lanes);
  for (int64_t p = begin; p < end; p++)
    ave_forward_plane_avx512 (g, &lanes, bottom + p * in_plane, top + p * out_plane);
}

__attribute__ ((target ("avx512f"))) void
ct_pool_ave_backward_avx512 (const CtPoolGeometry *g, int64_t begin, int64_t end,
                             const float *top_diff, int clear, float *bottom_diff)
{
  const int64_t in_plane = g->height * g->width;
  const int64_t out_plane = g->pooled_height * g->pooled_width;
  AveLanes lanes;

  ave_lanes (g, &lanes);
  for (int64_t p = begin; p < end; p++)
    ave_backward_plane_avx512 (g, &lanes, top_diff + p * out_plane, clear,
                               bottom_diff + p * in_plane);
}

#endif
