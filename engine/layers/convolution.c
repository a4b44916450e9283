/* convolution.c: Convolution, Caffe's convolution over any number of
 * spatial axes (those after convolution_param.axis), with groups, padding,
 * stride and dilation, computed as im2col and one matrix product per
 * group over a chunk of images side by side, or per image when the layer
 * cannot batch (base-conv.c). Several bottoms may share the weights:
 * each bottom gives the top of the same index. */
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "engine-error.h"

static gboolean
convolution_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_base_conv_setup (layer, bottom, top, FALSE, error);
}

static gboolean
convolution_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBaseConv *conv = (CtBaseConv *) layer;
  const float *weights = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 0), error);
  const float *bias = NULL;

  if (weights == NULL)
    return FALSE;
  if (conv->bias_term && (bias = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 1),
                                                    error)) == NULL)
    return FALSE;

  for (guint i = 0; i < bottom->len; i++)
    {
      const float *in = ct_blob_cpu_data (CT_BOTTOM (bottom, i), error);
      float *out = ct_blob_mutable_cpu_data (CT_TOP (top, i), error);

      if (in == NULL || out == NULL)
        return FALSE;
      if (ct_base_conv_can_batch (conv))
        {
          if (!ct_base_conv_forward_batch (conv, in, weights, bias, out, error))
            return FALSE;
          continue;
        }
      for (gint64 n = 0; n < conv->num; n++)
        {
          float *image_out = out + n * conv->top_dim;

          if (!ct_base_conv_forward_gemm (conv, in + n * conv->bottom_dim, weights, image_out,
                                          FALSE, error))
            return FALSE;
          if (bias != NULL && !ct_base_conv_forward_bias (conv, image_out, bias, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
convolution_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                      GPtrArray *bottom, GError **error)
{
  CtBaseConv *conv = (CtBaseConv *) layer;
  CtBlob *weight_blob = g_ptr_array_index (layer->blobs, 0);
  gboolean weight_down = ct_layer_param_propagate_down (layer, 0);
  gboolean bias_down = conv->bias_term && ct_layer_param_propagate_down (layer, 1);
  const float *weights = ct_blob_cpu_data (weight_blob, error);
  float *weight_diff = NULL, *bias_diff = NULL;

  if (weights == NULL)
    return FALSE;
  if (weight_down && (weight_diff = ct_blob_mutable_cpu_diff (weight_blob, error)) == NULL)
    return FALSE;
  if (bias_down && (bias_diff = ct_blob_mutable_cpu_diff (g_ptr_array_index (layer->blobs, 1),
                                                          error)) == NULL)
    return FALSE;

  for (guint i = 0; i < top->len; i++)
    {
      const float *top_diff = ct_blob_cpu_diff (CT_TOP (top, i), error);
      const float *in;
      float *in_diff = NULL;

      if (top_diff == NULL)
        return FALSE;
      if ((weight_down || propagate_down[i]) && ct_base_conv_can_batch (conv))
        {
          if ((in = ct_blob_cpu_data (CT_BOTTOM (bottom, i), error)) == NULL
              || (propagate_down[i]
                  && (in_diff = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, i), error)) == NULL)
              || !ct_base_conv_backward_batch (conv, in, top_diff, weights, weight_diff,
                                               bias_diff, in_diff, error))
            return FALSE;
          continue;
        }
      for (gint64 n = 0; bias_down && n < conv->num; n++)
        if (!ct_base_conv_backward_bias (conv, bias_diff, top_diff + n * conv->top_dim, error))
          return FALSE;
      if (!weight_down && !propagate_down[i])
        continue;

      if ((in = ct_blob_cpu_data (CT_BOTTOM (bottom, i), error)) == NULL)
        return FALSE;
      if (propagate_down[i]
          && (in_diff = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, i), error)) == NULL)
        return FALSE;
      for (gint64 n = 0; n < conv->num; n++)
        {
          const float *image_top_diff = top_diff + n * conv->top_dim;

          if (weight_down
              && !ct_base_conv_weight_gemm (conv, in + n * conv->bottom_dim, image_top_diff,
                                            weight_diff, error))
            return FALSE;
          if (in_diff != NULL
              && !ct_base_conv_backward_gemm (conv, image_top_diff, weights,
                                              in_diff + n * conv->bottom_dim, error))
            return FALSE;
        }
    }
  return TRUE;
}

const CtLayerClass ct_convolution_layer_class = {
  .type = "Convolution",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Learned filters slid over the input (groups, stride, padding, dilation)"),
  .instance_size = sizeof (CtBaseConv),
  .bottoms = CT_AT_LEAST (1),
  .tops = CT_AT_LEAST (1),
  .equal_bottom_top_counts = TRUE,
  .setup = convolution_setup,
  .reshape = ct_base_conv_reshape,
  .forward_cpu = convolution_forward,
  .backward_cpu = convolution_backward,
  .finalize = ct_base_conv_finalize,
};
