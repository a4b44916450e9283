/* cpu/reference/im2col.c: im2col and col2im of two spatial axes as
 * Caffe's im2col_cpu and col2im_cpu write them (reference.h). */
#include <string.h>

#include "reference.h"

static int64_t
out_size (int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation)
{
  return (in + 2 * pad - (dilation * (kernel - 1) + 1)) / stride + 1;
}

void
ct_ref_im2col (const float *im, int64_t channels, int64_t height, int64_t width,
               int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
               int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
               float *col)
{
  const int64_t oh = out_size (height, kernel_h, pad_h, stride_h, dilation_h);
  const int64_t ow = out_size (width, kernel_w, pad_w, stride_w, dilation_w);

  for (int64_t c = 0; c < channels; c++)
    for (int64_t kh = 0; kh < kernel_h; kh++)
      for (int64_t kw = 0; kw < kernel_w; kw++)
        for (int64_t y = 0; y < oh; y++)
          for (int64_t x = 0; x < ow; x++)
            {
              int64_t h = y * stride_h - pad_h + kh * dilation_h;
              int64_t w = x * stride_w - pad_w + kw * dilation_w;
              int64_t row = (c * kernel_h + kh) * kernel_w + kw;

              col[(row * oh + y) * ow + x] = h >= 0 && h < height && w >= 0 && w < width
                                             ? im[(c * height + h) * width + w] : 0.0f;
            }
}

void
ct_ref_col2im (const float *col, int64_t channels, int64_t height, int64_t width,
               int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
               int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
               float *im)
{
  const int64_t oh = out_size (height, kernel_h, pad_h, stride_h, dilation_h);
  const int64_t ow = out_size (width, kernel_w, pad_w, stride_w, dilation_w);

  memset (im, 0, (size_t) (channels * height * width) * sizeof (float));
  for (int64_t c = 0; c < channels; c++)
    for (int64_t kh = 0; kh < kernel_h; kh++)
      for (int64_t kw = 0; kw < kernel_w; kw++)
        for (int64_t y = 0; y < oh; y++)
          for (int64_t x = 0; x < ow; x++)
            {
              int64_t h = y * stride_h - pad_h + kh * dilation_h;
              int64_t w = x * stride_w - pad_w + kw * dilation_w;
              int64_t row = (c * kernel_h + kh) * kernel_w + kw;

              if (h >= 0 && h < height && w >= 0 && w < width)
                im[(c * height + h) * width + w] += col[(row * oh + y) * ow + x];
            }
}
