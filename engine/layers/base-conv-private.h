/* base-conv-private.h: what Convolution, Deconvolution and Im2col share.
 *
 * CtConvGeometry is the spatial part of a ConvolutionParameter read against
 * a bottom blob as Caffe reads it: the channel axis, the number of spatial
 * axes after it, and per spatial axis the kernel, stride, pad and dilation
 * (from the repeated fields, given once or once per axis, or from the 2-D
 * _h/_w fields).
 *
 * CtBaseConv is the state of a Convolution or Deconvolution layer. Both run
 * the convolution kernels (kernels/conv.h); a deconvolution is a convolution
 * run backwards ("reverse"), so its forward pass is the convolution's
 * backward-data pass and the other way round. */
#pragma once

#include <stdint.h>

#include "conv.h"
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

/* The convolution output size of spatial axis I for input size IN; fails
 * when the dilated kernel is larger than the padded input. */
gboolean ct_conv_geometry_output (const CtLayer *layer, const CtConvGeometry *g, int i,
                                  gint64 in, gint64 *out, GError **error);

/* im2col / col2im of one image with CHANNELS channels and spatial dims
 * IM_DIMS, into / from a column buffer with spatial dims COL_DIMS: the 2-D
 * kernel when there are two spatial axes and force_nd_im2col is off, the
 * N-D one otherwise, as Caffe chooses; on the GPU (device pointers) when
 * GPU. */
gboolean ct_conv_geometry_im2col (const CtLayer *layer, const CtConvGeometry *g,
                                  gint64 channels, const int64_t *im_dims,
                                  const int64_t *col_dims, const float *im, float *col,
                                  gboolean gpu, GError **error);
gboolean ct_conv_geometry_col2im (const CtLayer *layer, const CtConvGeometry *g,
                                  gint64 channels, const int64_t *im_dims,
                                  const int64_t *col_dims, const float *col, float *im,
                                  gboolean gpu, GError **error);

typedef struct {
  CtLayer parent;

  CtConvGeometry geometry;
  gboolean reverse;  /* Deconvolution */
  gboolean bias_term;
  gint64 channels;   /* bottom channels */
  gint64 num_output; /* top channels */
  gint64 group;
  /* The convolution being computed (for Deconvolution, the one whose
   * backward pass is the forward pass), for the kernels (conv.h): set up
   * here, its batch and spatial sizes filled in by reshape. */
  CtConvShape shape;
  gint64 top_spatial_dim;  /* positions per channel of the top */
} CtBaseConv;

/* The class hooks both types use; REVERSE says which one. */
gboolean ct_base_conv_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                             gboolean reverse, GError **error);
gboolean ct_base_conv_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                               GError **error);

/* Forward and backward of every bottom/top pair through the convolution
 * kernels: for Convolution the kernels' forward and backward passes; for
 * Deconvolution the backward-data pass forward, and the forward pass (and
 * the weight gradient with the roles of input and output swapped)
 * backward. The _gpu hooks run the same on the GPU's kernels, with a
 * device workspace. */
gboolean ct_base_conv_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                               GError **error);
gboolean ct_base_conv_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                                GPtrArray *bottom, gboolean gpu, GError **error);

G_END_DECLS
