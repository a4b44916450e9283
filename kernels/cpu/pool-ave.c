/* cpu/pool-ave.c: AVE pooling (pooling.h), forward and backward.
 *
 * AVE divides by the window clipped to the padded image (padding counts as
 * zeros inside the image's padded frame, not beyond it), and sums in
 * Caffe's order (rows, then columns) so that results round as Caffe's do.
 * Rows inside the image run on SSE2; whole planes that fit run on AVX-512. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "isa.h"
#include "parallel.h"
#include "pooling-private.h"

/* The divisor of an AVE window: its extent clipped to the padded image. */
static inline int64_t
ave_pool_size (const CtPoolGeometry *g, int64_t hstart, int64_t wstart)
{
  int64_t hend = min64 (hstart + g->kernel_h, g->height + g->pad_h);
  int64_t wend = min64 (wstart + g->kernel_w, g->width + g->pad_w);

  return (hend - hstart) * (wend - wstart);
}

#ifdef __SSE2__
/* Four neighbouring outputs of an AVE row whose windows start at WINDOW,
 * WINDOW + STRIDE_W, ... (a stride of 1 or 2) and lie inside the image:
 * the same adds in the same order as ave_output's (rows, then columns),
 * one lane per output, gathered at stride 2 as in max_four_interior. */
static inline __attribute__ ((always_inline)) void
ave_four_interior (const float *window, int64_t width, int64_t stride_w, int64_t kh,
                   int64_t kw, float divisor, float *top)
{
  __m128 sum = _mm_setzero_ps ();

  for (int64_t h = 0; h < kh; h++)
    for (int64_t w = 0; w < kw; w++)
      {
        const float *at = window + h * width + w;
        __m128 v = load_four (at, stride_w);

        sum = _mm_add_ps (sum, v);
      }
  _mm_storeu_ps (top, _mm_div_ps (sum, _mm_set1_ps (divisor)));
}
#endif

/* One AVE output: the sum of its window clipped to the image, over the
 * window's size clipped to the padded image, as Caffe divides. */
static inline float
ave_output (const CtPoolGeometry *g, const float *in, int64_t ph, int64_t pw)
{
  const int64_t width = g->width;
  int64_t hstart = ph * g->stride_h - g->pad_h;
  int64_t wstart = pw * g->stride_w - g->pad_w;
  int64_t pool_size = ave_pool_size (g, hstart, wstart);
  int64_t hend = min64 (hstart + g->kernel_h, g->height);
  int64_t wend = min64 (wstart + g->kernel_w, width);
  float sum = 0.0f;

  hstart = max64 (hstart, 0);
  wstart = max64 (wstart, 0);
  for (int64_t h = hstart; h < hend; h++)
    for (int64_t w = wstart; w < wend; w++)
      sum += in[h * width + w];
  return sum / (float) pool_size;
}

/* Row PH of plane IN into TOP: the interior outputs [INNER->pw_lo,
 * INNER->pw_hi) four at a time where the row is inside the image (the
 * last four moved back to end at pw_hi), the rest one at a time. */
static void
ave_row (const CtPoolGeometry *g, const Interior *inner, const float *in, int64_t ph,
         float *top)
{
  const int64_t pooled_width = g->pooled_width;
  int64_t pw = 0;

#ifdef __SSE2__
  const int64_t lo = inner->pw_lo, hi = inner->pw_hi, stride_w = g->stride_w;

  if (ph >= inner->ph_lo && ph < inner->ph_hi && (stride_w == 1 || stride_w == 2)
      && hi - lo >= 4)
    {
      const float *row = in + (ph * g->stride_h - g->pad_h) * g->width - g->pad_w;
      const float divisor = (float) (g->kernel_h * g->kernel_w);

      for (; pw < lo; pw++)
        top[pw] = ave_output (g, in, ph, pw);
      for (; pw < hi; pw += 4)
        {
          const int64_t at = pw + 4 <= hi ? pw : hi - 4;

          ave_four_interior (row + at * stride_w, g->width, stride_w, g->kernel_h, g->kernel_w,
                             divisor, top + at);
        }
      pw = hi;
    }
#endif
  for (; pw < pooled_width; pw++)
    top[pw] = ave_output (g, in, ph, pw);
}

#ifdef HAVE_AVX2_ROWS
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
static int
ave_plane_fits (const CtPoolGeometry *g)
{
  return g->width + 2 * g->pad_w <= 16 && g->pooled_width <= 16 && g->kernel_w <= 16
         && g->height <= 64 && ct_pool_have_avx512 ();
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
#endif

static void
ave_forward_planes (int64_t begin, int64_t end, int chunk, void *data)
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
#ifdef HAVE_AVX2_ROWS
  if (ave_plane_fits (g))
    {
      AveLanes lanes;

      ave_lanes (g, &lanes);
      for (int64_t p = begin; p < end; p++)
        ave_forward_plane_avx512 (g, &lanes, j->bottom + p * in_plane, j->top + p * out_plane);
      return;
    }
#endif
  for (int64_t p = begin; p < end; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      ave_row (g, &inner, j->bottom + p * in_plane, ph,
               j->top + p * out_plane + ph * g->pooled_width);
}

CtStatus
ct_cpu_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top)
{
  PoolJob j = { .g = g, .bottom = bottom, .top = top };

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (g->planes, plane_grain (g), ave_forward_planes, &j);
  return CT_STATUS_OK;
}

static void
ave_backward_planes (int64_t begin, int64_t end, int chunk, void *data)
{
  const PoolJob *j = data;
  /* A copy of the geometry, and locals: under -fno-strict-aliasing every
   * store to a diff could change *J->G, and the loops would reload it. */
  const CtPoolGeometry g = *j->g;
  const int64_t in_plane = g.height * g.width, out_plane = g.pooled_height * g.pooled_width;
  const float *top_diff = j->top_diff;
  float *bottom_diff = j->bottom_diff;
  const int clear = j->clear;

#ifdef HAVE_AVX2_ROWS
  if (ave_plane_fits (&g))
    {
      AveLanes lanes;

      ave_lanes (&g, &lanes);
      for (int64_t p = begin; p < end; p++)
        ave_backward_plane_avx512 (&g, &lanes, top_diff + p * out_plane, clear,
                                   bottom_diff + p * in_plane);
      return;
    }
#endif
  for (int64_t p = begin; p < end; p++)
    {
      float *diff = bottom_diff + p * in_plane;
      const float *td = top_diff + p * out_plane;

      if (clear)
        memset (diff, 0, (size_t) in_plane * sizeof (float));
      for (int64_t ph = 0; ph < g.pooled_height; ph++)
        for (int64_t pw = 0; pw < g.pooled_width; pw++)
          {
            int64_t hstart = ph * g.stride_h - g.pad_h;
            int64_t wstart = pw * g.stride_w - g.pad_w;
            int64_t pool_size = ave_pool_size (&g, hstart, wstart);
            int64_t hend = min64 (hstart + g.kernel_h, g.height);
            int64_t wend = min64 (wstart + g.kernel_w, g.width);
            float share = td[ph * g.pooled_width + pw] / (float) pool_size;

            hstart = max64 (hstart, 0);
            wstart = max64 (wstart, 0);
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                diff[h * g.width + w] += share;
          }
    }
}

static CtStatus
ave_backward (const CtPoolGeometry *g, const float *top_diff, float *bottom_diff, int clear)
{
  PoolJob j = { .g = g, .top_diff = top_diff, .bottom_diff = bottom_diff, .clear = clear };

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (g->planes, plane_grain (g), ave_backward_planes, &j);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff, float *bottom_diff)
{
  return ave_backward (g, top_diff, bottom_diff, 0);
}

CtStatus
ct_cpu_ave_pool_backward_set (const CtPoolGeometry *g, const float *top_diff, float *bottom_diff)
{
  return ave_backward (g, top_diff, bottom_diff, 1);
}

