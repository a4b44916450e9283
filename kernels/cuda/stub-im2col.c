/* cuda/stub-im2col.c: im2col.h's CUDA twins for builds without CUDA; each
 * answers CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include "im2col.h"

CtStatus
ct_cuda_im2col (const float *data_im, int64_t channels, int64_t height, int64_t width,
                int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                float *data_col)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_col2im (const float *data_col, int64_t channels, int64_t height, int64_t width,
                int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                float *data_im)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_im2col_ld (const float *data_im, int64_t channels, int64_t height, int64_t width,
                   int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                   int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                   float *data_col, int64_t ld_col)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_col2im_ld (const float *data_col, int64_t ld_col, int64_t channels, int64_t height,
                   int64_t width, int64_t kernel_h, int64_t kernel_w, int64_t pad_h,
                   int64_t pad_w, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                   int64_t dilation_w, float *data_im)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_batch_pack (int64_t num, int64_t rows, int64_t spatial, const float *src, float *dst,
                    float *row_sums)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_batch_unpack (int64_t num, int64_t rows, int64_t spatial, const float *src,
                      const float *bias, float *dst)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_im2col_nd (const float *data_im, int num_spatial_axes, const int64_t *im_shape,
                   const int64_t *col_shape, const int64_t *kernel, const int64_t *pad,
                   const int64_t *stride, const int64_t *dilation, float *data_col)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_col2im_nd (const float *data_col, int num_spatial_axes, const int64_t *im_shape,
                   const int64_t *col_shape, const int64_t *kernel, const int64_t *pad,
                   const int64_t *stride, const int64_t *dilation, float *data_im)
{
  return CT_STATUS_NO_DEVICE;
}
