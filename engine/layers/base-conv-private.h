/* base-conv-private.h: what Convolution, Deconvolution and Im2col share.
 *
 * CtConvGeometry is the spatial part of a ConvolutionParameter read against
 * a bottom blob as Caffe reads it: the channel axis, the number of spatial
 * axes after it, and per spatial axis the kernel, stride, pad and dilation
 * (from the repeated fields, given once or once per axis, or from the 2-D
 * _h/_w fields).
 *
 * CtBaseConv is the state of a Convolution or Deconvolution layer. Both are
 * one matrix product per image and group over an im2col buffer; a
 * deconvolution is a convolution run backwards ("reverse"), so its forward
 * pass is the convolution's backward-data pass and the other way round. */
#pragma once

#include <stdint.h>

#include "layer.h"

G_BEGIN_DECLS

typedef struct {
  int channel_axis;
  int num_spatial_axes;
  gboolean force_nd_im2col;
  int64_t kernel[CT_BLOB_MAX_AXES];
  int64_t stride[CT_BLOB_MAX_AXES];
  int64_t pad[CT_BLOB_MAX_AXES];
  int64_t dilation[CT_BLOB_MAX_AXES];
} CtConvGeometry;

/* Read P's geometry for BOTTOM (validated: positive kernels, strides and
 * dilations; the _h/_w fields only in 2-D and not with the repeated ones). */
gboolean ct_conv_geometry_read (const CtLayer *layer, const Caffe__ConvolutionParameter *p,
                                CtBlob *bottom, CtConvGeometry *g, GError **error);

/* The extent of axis I's dilated kernel. */
gint64 ct_conv_geometry_extent (const CtConvGeometry *g, int i);

/* Whether the column buffer is the image itself (all kernels 1, strides 1,
 * pads 0), so that im2col is skipped. */
gboolean ct_conv_geometry_is_1x1 (const CtConvGeometry *g);

/* The convolution output size of spatial axis I for input size IN; fails
 * when the dilated kernel is larger than the padded input. */
gboolean ct_conv_geometry_output (const CtLayer *layer, const CtConvGeometry *g, int i,
                                  gint64 in, gint64 *out, GError **error);

/* im2col / col2im of one image with CHANNELS channels and spatial dims
 * IM_DIMS, into / from a column buffer with spatial dims COL_DIMS: the 2-D
 * kernel when there are two spatial axes and force_nd_im2col is off, the
 * N-D one otherwise, as Caffe chooses. */
gboolean ct_conv_geometry_im2col (const CtLayer *layer, const CtConvGeometry *g,
                                  gint64 channels, const int64_t *im_dims,
                                  const int64_t *col_dims, const float *im, float *col,
                                  GError **error);
gboolean ct_conv_geometry_col2im (const CtLayer *layer, const CtConvGeometry *g,
                                  gint64 channels, const int64_t *im_dims,
                                  const int64_t *col_dims, const float *col, float *im,
                                  GError **error);

typedef struct {
  CtLayer parent;

  CtConvGeometry geometry;
  gboolean reverse;  /* Deconvolution */
  gboolean is_1x1;
  gboolean bias_term;
  gint64 channels;   /* bottom channels */
  gint64 num_output; /* top channels */
  gint64 group;
  /* The convolution being computed (for Deconvolution, the one whose
   * backward pass is the forward pass): its input and output channels. */
  gint64 conv_in_channels, conv_out_channels;
  gint64 kernel_dim;    /* weights per output channel: in / group * prod (kernel) */
  gint64 weight_offset; /* weights per group */

  /* From reshape. */
  gint64 num;                       /* images: the count of the axes before the channels */
  gint64 bottom_dim, top_dim;       /* floats per image */
  int64_t conv_input_dims[CT_BLOB_MAX_AXES];  /* spatial dims of the convolution's input */
  int64_t conv_output_dims[CT_BLOB_MAX_AXES]; /* and of its output */
  gint64 conv_out_spatial_dim;      /* prod (conv_output_dims) */
  gint64 out_spatial_dim;           /* spatial size of the top */
  gint64 col_offset, output_offset; /* per group, in the column buffer and the output */
  CtBlob *col_buffer;
  CtBlob *bias_multiplier;          /* out_spatial_dim ones */
} CtBaseConv;

/* The class hooks both types use; REVERSE says which one. */
gboolean ct_base_conv_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                             gboolean reverse, GError **error);
gboolean ct_base_conv_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                               GError **error);
void ct_base_conv_finalize (CtLayer *layer);

/* One image, as Caffe's BaseConvolutionLayer helpers:
 * forward_gemm: OUTPUT = W * im2col (INPUT) (SKIP_IM2COL: the column buffer
 * already holds it); backward_gemm: INPUT = col2im (W^T * OUTPUT);
 * weight_gemm: W_DIFF += OUTPUT * im2col (INPUT)^T; the bias ones add BIAS to
 * every position of OUTPUT, or the sum over positions of INPUT to BIAS_DIFF. */
gboolean ct_base_conv_forward_gemm (CtBaseConv *conv, const float *input, const float *weights,
                                    float *output, gboolean skip_im2col, GError **error);
gboolean ct_base_conv_forward_bias (CtBaseConv *conv, float *output, const float *bias,
                                    GError **error);
gboolean ct_base_conv_backward_gemm (CtBaseConv *conv, const float *output,
                                     const float *weights, float *input, GError **error);
gboolean ct_base_conv_weight_gemm (CtBaseConv *conv, const float *input, const float *output,
                                   float *weight_diff, GError **error);
gboolean ct_base_conv_backward_bias (CtBaseConv *conv, float *bias_diff, const float *input,
                                     GError **error);

/* The whole batch at once, for Convolution: the images are shared
 * between the threads of the kernels' pool (kernels/parallel.h), and each
 * thread multiplies a few images at a time when they are small (their
 * column matrices side by side, so that the product is not tiny), with
 * its own column buffer. Parameter gradients are summed per thread and
 * added in a fixed order, so results repeat for a given thread count.
 *
 * can_batch: whether the layer's shapes allow it (2-D im2col or 1x1, not
 * reversed); otherwise the caller runs the per-image helpers above.
 * forward: OUTPUT (num images) = conv (INPUT) + BIAS (may be NULL).
 * backward: WEIGHT_DIFF += and BIAS_DIFF += (each may be NULL) the
 * parameter gradients; INPUT_DIFF (may be NULL) = the input gradient. */
gboolean ct_base_conv_can_batch (CtBaseConv *conv);
gboolean ct_base_conv_forward_batch (CtBaseConv *conv, const float *input, const float *weights,
                                     const float *bias, float *output, GError **error);
gboolean ct_base_conv_backward_batch (CtBaseConv *conv, const float *input,
                                      const float *output_diff, const float *weights,
                                      float *weight_diff, float *bias_diff, float *input_diff,
                                      GError **error);

G_END_DECLS
