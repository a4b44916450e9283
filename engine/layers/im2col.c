/* im2col.c: Im2col, Caffe's layer that exposes a convolution's column
 * buffer: for each image, every kernel-sized patch (with the padding,
 * stride and dilation of convolution_param) becomes a column, so the top
 * has channels x prod (kernel) channels and the convolution's output size
 * on each spatial axis. Backward is col2im. Both run on either device. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "engine-error.h"
#include "vision-private.h"

typedef struct {
  CtLayer parent;
  CtConvGeometry geometry;
  int num_axes;
  gint64 channels;
  gint64 num, bottom_dim, top_dim;
  int64_t im_dims[CT_BLOB_MAX_AXES];
  int64_t col_dims[CT_BLOB_MAX_AXES];
} CtIm2colLayer;

static gboolean
im2col_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__ConvolutionParameter defaults = CAFFE__CONVOLUTION_PARAMETER__INIT;
  CtIm2colLayer *self = (CtIm2colLayer *) layer;
  const Caffe__ConvolutionParameter *p = layer->param->convolution_param != NULL
                                         ? layer->param->convolution_param : &defaults;

  if (!ct_vision_refuse_in_place (layer, bottom, top, error)
      || !ct_conv_geometry_read (layer, p, CT_BOTTOM (bottom, 0), &self->geometry, error))
    return FALSE;
  if (self->geometry.num_spatial_axes < 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the input needs at least one spatial axis after axis %d"),
                          self->geometry.channel_axis);
  self->num_axes = (int) ct_blob_num_axes (CT_BOTTOM (bottom, 0));
  return TRUE;
}

static gboolean
im2col_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtIm2colLayer *self = (CtIm2colLayer *) layer;
  const CtConvGeometry *g = &self->geometry;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const int first_spatial = g->channel_axis + 1;
  gint64 shape[CT_BLOB_MAX_AXES];
  g_autoptr (GError) local = NULL;

  if ((int) ct_blob_num_axes (input) != self->num_axes)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the input has %u axes; it had %d when the layer was set up, "
                            "and that may not change"),
                          ct_blob_num_axes (input), self->num_axes);
  memcpy (shape, ct_blob_get_shape (input), (gsize) self->num_axes * sizeof (gint64));
  self->channels = shape[g->channel_axis];
  for (int i = 0; i < g->num_spatial_axes; i++)
    {
      self->im_dims[i] = shape[first_spatial + i];
      shape[g->channel_axis] *= g->kernel[i];
      if (!ct_conv_geometry_output (layer, g, i, self->im_dims[i], &shape[first_spatial + i],
                                    error))
        return FALSE;
      self->col_dims[i] = shape[first_spatial + i];
    }
  if (!ct_blob_reshape (CT_TOP (top, 0), shape, self->num_axes, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  self->num = ct_blob_count_range (input, 0, g->channel_axis, NULL);
  self->bottom_dim = ct_blob_count_from (input, g->channel_axis, NULL);
  self->top_dim = ct_blob_count_from (CT_TOP (top, 0), g->channel_axis, NULL);
  return TRUE;
}

static gboolean
im2col_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  CtIm2colLayer *self = (CtIm2colLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);

  if (in == NULL || out == NULL)
    return FALSE;
  for (gint64 n = 0; n < self->num; n++)
    if (!ct_conv_geometry_im2col (layer, &self->geometry, self->channels, self->im_dims,
                                  self->col_dims, in + n * self->bottom_dim,
                                  out + n * self->top_dim, gpu, error))
      return FALSE;
  return TRUE;
}

static gboolean
im2col_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                 GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtIm2colLayer *self = (CtIm2colLayer *) layer;
  const float *out_diff;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  if ((out_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  for (gint64 n = 0; n < self->num; n++)
    if (!ct_conv_geometry_col2im (layer, &self->geometry, self->channels, self->im_dims,
                                  self->col_dims, out_diff + n * self->top_dim,
                                  in_diff + n * self->bottom_dim, gpu, error))
      return FALSE;
  return TRUE;
}

static const CtLayerExplanation im2col_explanation = {
  .summary = N_("Unfolds every window a convolution would read into a column, so that the "
                "convolution becomes one matrix product. It shows what a convolution "
                "sees."),
  .formula = N_("col[(k, u, v), (i, j)] = x[k, i·s − p + u, j·s − p + v]"),
  .parameters = N_("kernel_size, stride, pad, dilation: as Convolution."),
  .gradient = N_("Backward folds the columns' diff back, adding up where windows overlap."),
};

const CtLayerClass ct_im2col_layer_class = {
  .explanation = &im2col_explanation,
  .type = "Im2col",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Unfold image patches into columns, as a convolution sees them"),
  .instance_size = sizeof (CtIm2colLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = im2col_setup,
  .reshape = im2col_reshape,
  .forward = im2col_forward,
  .backward = im2col_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .param_field = "convolution_param",
};
