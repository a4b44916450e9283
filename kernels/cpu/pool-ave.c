/* cpu/pool-ave.c: AVE pooling (pooling.h), forward and backward.
 *
 * AVE divides by the window clipped to the padded image (padding counts as
 * zeros inside the image's padded frame, not beyond it), and sums in
 * Caffe's order (rows, then columns) so that results round as Caffe's do.
 * Rows inside the image run on SSE2; whole planes that fit run on AVX-512
 * (cpu/pool-ave-avx512.c). */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "isa.h"
#include "parallel.h"
#include "pool-ave-avx512.h"
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
  if (ct_pool_ave_plane_fits (g) && ct_pool_have_avx512 ())
    {
      ct_pool_ave_forward_avx512 (g, begin, end, j->bottom, j->top);
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
  if (ct_pool_ave_plane_fits (&g) && ct_pool_have_avx512 ())
    {
      ct_pool_ave_backward_avx512 (&g, begin, end, top_diff, clear, bottom_diff);
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

