/* cpu/im2col-private.h: what cpu/im2col.c shares with its AVX-512 half
 * (cpu/im2col-avx512.c): the window path's sizes. Private to
 * kernels/cpu. */
#pragma once

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX512_WINDOWS 1
#endif

/* The sizes of the window path: a plane PITCH floats wide, padded or not,
 * from which every window lies inside. */
typedef struct {
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t out_h, out_w, pitch;
} Windows;

#ifdef HAVE_AVX512_WINDOWS
/* windows_to_col (cpu/im2col.c) at stride 1 on AVX-512: PLANE's windows
 * into their rows of the column buffer, LD_COL floats apart; returns
 * where the next channel's rows begin. */
float *ct_im2col_windows_to_col_avx512 (const Windows *w, const float *plane, float *col,
                                        int64_t ld_col);
/* Whether ct_col2im_rows_avx512 takes a channel of this shape: stride 1,
 * a padded plane at most 16 floats wide and ROWS_MAX rows high. */
int ct_col2im_rows_take (const Windows *w, int64_t ld_col, int64_t height, int64_t width,
                         int64_t pad_h, int64_t pad_w);
/* col2im of one channel into PLANE (HEIGHT x WIDTH, overwritten); returns
 * where the next channel's columns begin. */
const float *ct_col2im_rows_avx512 (const Windows *w, const float *col, int64_t ld_col,
                                    int64_t height, int64_t width, int64_t pad_h,
                                    int64_t pad_w, float *plane);
#endif
