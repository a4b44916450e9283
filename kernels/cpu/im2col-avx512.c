/* cpu/im2col-avx512.c: the window path of cpu/im2col.c on AVX-512
 * (im2col-private.h): windows at stride 1 into the column buffer, and
 * col2im of planes at most 16 floats wide, with the same floats and, for
 * col2im, the same adds in the same order as the plain loops. Compiled for
 * AVX-512 by attribute, called only where the CPU has it. */
#include <stdint.h>

#include "im2col-private.h"

#ifdef HAVE_AVX512_WINDOWS
#include <immintrin.h>

/* AVX-512 windows at stride 1. LeNet's conv2 (20 channels of 12 x 12, 5 x
 * 5 kernel: 500 rows of 8 x 8) has rows of 8 floats, for which the plain
 * loops spend most of their time starting and ending. */

/* A window into its row of the column buffer, 16 outputs at a time; rows
 * of at most 8 go two per store (the second row's load lands in the upper
 * lanes). The same floats as windows_to_col. */
__attribute__ ((target ("avx512f"))) float *
ct_im2col_windows_to_col_avx512 (const Windows *w, const float *plane, float *col,
                                 int64_t ld_col)
{
  const int64_t out_h = w->out_h, out_w = w->out_w, row_step = w->stride_h * w->pitch;
  const __mmask16 tail = (__mmask16) ((1u << (out_w % 16 != 0 ? out_w % 16 : 16)) - 1);

  for (int64_t kh = 0; kh < w->kernel_h; kh++)
    for (int64_t kw = 0; kw < w->kernel_w; kw++, col += ld_col)
      {
        const float *src = plane + kh * w->dilation_h * w->pitch + kw * w->dilation_w;
        float *dst = col;
        int64_t oh = 0;

        if (2 * out_w <= 16)
          {
            const __mmask16 upper = (__mmask16) (tail << out_w), both = tail | upper;

            for (; oh + 2 <= out_h; oh += 2, dst += 2 * out_w, src += 2 * row_step)
              {
                __m512 v = _mm512_maskz_loadu_ps (tail, src);

                v = _mm512_mask_loadu_ps (v, upper, src + row_step - out_w);
                _mm512_mask_storeu_ps (dst, both, v);
              }
          }
        for (; oh < out_h; oh++, dst += out_w, src += row_step)
          {
            int64_t ow = 0;

            for (; ow + 16 < out_w; ow += 16)
              _mm512_storeu_ps (dst + ow, _mm512_loadu_ps (src + ow));
            _mm512_mask_storeu_ps (dst + ow, tail, _mm512_maskz_loadu_ps (tail, src + ow));
          }
      }
  return col;
}

/* col2im of one channel whose padded plane is at most 16 floats wide and
 * ROWS_MAX rows high, one vector per row of the plane: each (kernel row,
 * output row) adds its kernel_w windows to its row, in the order of the
 * kernel offsets, as Caffe does. The interior then goes
 * to PLANE (HEIGHT x WIDTH), the padding's lanes compressed out. Rows
 * kept as whole vectors reach the next load of the same row straight from
 * the store; summing in the plane itself with masked stores stalls every
 * such load. */
#define ROWS_MAX 64

/* The loads start SHIFT floats before each window's row, in the row
 * before it (LD_COL >= dilation_w keeps that inside the buffer); the
 * lanes before the row are masked off. */
int
ct_col2im_rows_take (const Windows *w, int64_t ld_col, int64_t height, int64_t width,
                     int64_t pad_h, int64_t pad_w)
{
  return w->stride_w == 1 && width + 2 * pad_w <= 16 && height + 2 * pad_h <= ROWS_MAX
         && ld_col >= w->dilation_w;
}

__attribute__ ((target ("avx512f"))) const float *
ct_col2im_rows_avx512 (const Windows *w, const float *col, int64_t ld_col, int64_t height,
                       int64_t width, int64_t pad_h, int64_t pad_w, float *plane)
{
  const int64_t out_h = w->out_h, out_w = w->out_w, kernel_w = w->kernel_w;
  const int64_t dilation_w = w->dilation_w;
  const __mmask16 outputs = (__mmask16) ((1u << out_w) - 1);
  const __mmask16 interior = (__mmask16) (((1u << width) - 1) << pad_w);
  __m512 rows[ROWS_MAX];

  for (int64_t y = 0; y < height + 2 * pad_h; y++)
    rows[y] = _mm512_setzero_ps ();
  for (int64_t kh = 0; kh < w->kernel_h; kh++, col += kernel_w * ld_col)
    {
      __m512 *row = rows + kh * w->dilation_h;

      for (int64_t oh = 0; oh < out_h; oh++, row += w->stride_h)
        {
          __m512 sum = *row;
          const float *src = col + oh * out_w;

          for (int64_t kw = 0; kw < kernel_w; kw++, src += ld_col)
            {
              const int64_t shift = kw * dilation_w;
              const __mmask16 lanes = (__mmask16) (outputs << shift);

              sum = _mm512_mask_add_ps (sum, lanes, sum,
                                        _mm512_maskz_loadu_ps (lanes, src - shift));
            }
          *row = sum;
        }
    }
  for (int64_t y = 0; y < height; y++)
    _mm512_mask_compressstoreu_ps (plane + y * width, interior, rows[y + pad_h]);
  return col;
}

#endif
