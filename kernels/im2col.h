/* im2col.h: the rearrangement that turns a convolution into one matrix
 * product, as Caffe's im2col/col2im define it, for 2-D images and for any
 * number of spatial axes, with padding, stride and dilation.
 *
 * The column buffer of an image with C channels is a matrix whose rows are
 * (channel, kernel offset) pairs, C * prod(kernel) of them in C order, and
 * whose columns are the output positions, prod(output) of them in C order.
 * Positions that fall into the padding read as 0. col2im is the adjoint: it
 * overwrites the image with the sum, over every column entry, of the value
 * at the image position that entry was read from (padding entries dropped).
 *
 * In 2-D, the output size of each axis is Caffe's
 *   (in + 2 * pad - (dilation * (kernel - 1) + 1)) / stride + 1;
 * the N-D functions take the column shape instead, as Caffe's do. Sizes,
 * kernels, strides and dilations must be positive and pads non-negative,
 * otherwise CT_STATUS_INVALID is returned and nothing is written. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of spatial axes the N-D functions take. */
#define CT_IM2COL_MAX_AXES 32

CtStatus ct_cpu_im2col (const float *data_im, int64_t channels,
                        int64_t height, int64_t width,
                        int64_t kernel_h, int64_t kernel_w,
                        int64_t pad_h, int64_t pad_w,
                        int64_t stride_h, int64_t stride_w,
                        int64_t dilation_h, int64_t dilation_w,
                        float *data_col);

CtStatus ct_cpu_col2im (const float *data_col, int64_t channels,
                        int64_t height, int64_t width,
                        int64_t kernel_h, int64_t kernel_w,
                        int64_t pad_h, int64_t pad_w,
                        int64_t stride_h, int64_t stride_w,
                        int64_t dilation_h, int64_t dilation_w,
                        float *data_im);

/* The same with the column buffer's rows LD_COL floats apart (LD_COL >=
 * out_h * out_w): a batch of images side by side in one buffer, image i's
 * columns starting at i * out_h * out_w, so that one matrix product covers
 * them all. */
CtStatus ct_cpu_im2col_ld (const float *data_im, int64_t channels,
                           int64_t height, int64_t width,
                           int64_t kernel_h, int64_t kernel_w,
                           int64_t pad_h, int64_t pad_w,
                           int64_t stride_h, int64_t stride_w,
                           int64_t dilation_h, int64_t dilation_w,
                           float *data_col, int64_t ld_col);

CtStatus ct_cpu_col2im_ld (const float *data_col, int64_t ld_col, int64_t channels,
                           int64_t height, int64_t width,
                           int64_t kernel_h, int64_t kernel_w,
                           int64_t pad_h, int64_t pad_w,
                           int64_t stride_h, int64_t stride_w,
                           int64_t dilation_h, int64_t dilation_w,
                           float *data_im);

/* Batches of ROWS x SPATIAL matrices (one per image, NUM of them, one after
 * the other) to and from one ROWS x (NUM * SPATIAL) matrix whose row r holds
 * row r of every image side by side.
 *
 * pack: dst[r][i * SPATIAL + s] = src[i][r][s]; with ROW_SUMS (may be NULL)
 * each image's row sum is also added to row_sums[r] (a bias gradient).
 * unpack: dst[i][r][s] = src[r][i * SPATIAL + s] + (BIAS ? bias[r] : 0). */
CtStatus ct_cpu_batch_pack (int64_t num, int64_t rows, int64_t spatial,
                            const float *src, float *dst, float *row_sums);
CtStatus ct_cpu_batch_unpack (int64_t num, int64_t rows, int64_t spatial,
                              const float *src, const float *bias, float *dst);

/* N-D: IM_SHAPE is (channels, d1 … dN) of the image, COL_SHAPE is
 * (channels * prod(kernel), o1 … oN) of the column buffer; KERNEL, PAD,
 * STRIDE and DILATION have N entries. 1 <= N <= CT_IM2COL_MAX_AXES. */
CtStatus ct_cpu_im2col_nd (const float *data_im, int num_spatial_axes,
                           const int64_t *im_shape, const int64_t *col_shape,
                           const int64_t *kernel, const int64_t *pad,
                           const int64_t *stride, const int64_t *dilation,
                           float *data_col);

CtStatus ct_cpu_col2im_nd (const float *data_col, int num_spatial_axes,
                           const int64_t *im_shape, const int64_t *col_shape,
                           const int64_t *kernel, const int64_t *pad,
                           const int64_t *stride, const int64_t *dilation,
                           float *data_im);

/* The CUDA twins: the same arguments, device pointers for the arrays (the
 * N-D shapes and geometry stay host arrays). col2im gathers, so it adds
 * in the CPU's order and agrees with it bit for bit. Built without CUDA
 * they answer CT_STATUS_NO_DEVICE (cuda/stub-im2col.c). */
CtStatus ct_cuda_im2col (const float *data_im, int64_t channels,
                         int64_t height, int64_t width,
                         int64_t kernel_h, int64_t kernel_w,
                         int64_t pad_h, int64_t pad_w,
                         int64_t stride_h, int64_t stride_w,
                         int64_t dilation_h, int64_t dilation_w,
                         float *data_col);
CtStatus ct_cuda_col2im (const float *data_col, int64_t channels,
                         int64_t height, int64_t width,
                         int64_t kernel_h, int64_t kernel_w,
                         int64_t pad_h, int64_t pad_w,
                         int64_t stride_h, int64_t stride_w,
                         int64_t dilation_h, int64_t dilation_w,
                         float *data_im);
CtStatus ct_cuda_im2col_ld (const float *data_im, int64_t channels,
                            int64_t height, int64_t width,
                            int64_t kernel_h, int64_t kernel_w,
                            int64_t pad_h, int64_t pad_w,
                            int64_t stride_h, int64_t stride_w,
                            int64_t dilation_h, int64_t dilation_w,
                            float *data_col, int64_t ld_col);
CtStatus ct_cuda_col2im_ld (const float *data_col, int64_t ld_col, int64_t channels,
                            int64_t height, int64_t width,
                            int64_t kernel_h, int64_t kernel_w,
                            int64_t pad_h, int64_t pad_w,
                            int64_t stride_h, int64_t stride_w,
                            int64_t dilation_h, int64_t dilation_w,
                            float *data_im);
CtStatus ct_cuda_batch_pack (int64_t num, int64_t rows, int64_t spatial,
                             const float *src, float *dst, float *row_sums);
CtStatus ct_cuda_batch_unpack (int64_t num, int64_t rows, int64_t spatial,
                               const float *src, const float *bias, float *dst);
CtStatus ct_cuda_im2col_nd (const float *data_im, int num_spatial_axes,
                            const int64_t *im_shape, const int64_t *col_shape,
                            const int64_t *kernel, const int64_t *pad,
                            const int64_t *stride, const int64_t *dilation,
                            float *data_col);
CtStatus ct_cuda_col2im_nd (const float *data_col, int num_spatial_axes,
                            const int64_t *im_shape, const int64_t *col_shape,
                            const int64_t *kernel, const int64_t *pad,
                            const int64_t *stride, const int64_t *dilation,
                            float *data_im);

#ifdef __cplusplus
}
#endif
