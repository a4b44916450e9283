/* deconvolution.c: Deconvolution, Caffe's transposed convolution: the
 * forward pass is a convolution's backward-data pass (spread each input
 * value over a kernel-sized patch of the output, col2im), the backward pass
 * a convolution's forward pass. The weights are shaped (input channels,
 * output channels / group, kernel…), as Caffe's. */
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "engine-error.h"

static gboolean
deconvolution_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_base_conv_setup (layer, bottom, top, TRUE, error);
}

static gboolean
deconvolution_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
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
      for (gint64 n = 0; n < conv->num; n++)
        {
          float *image_out = out + n * conv->top_dim;

          if (!ct_base_conv_backward_gemm (conv, in + n * conv->bottom_dim, weights, image_out,
                                           error))
            return FALSE;
          if (bias != NULL && !ct_base_conv_forward_bias (conv, image_out, bias, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
deconvolution_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
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

          /* The weight gradient leaves im2col (top diff) in the column
           * buffer; the input gradient reuses it. */
          if (weight_down
              && !ct_base_conv_weight_gemm (conv, image_top_diff, in + n * conv->bottom_dim,
                                            weight_diff, error))
            return FALSE;
          if (in_diff != NULL
              && !ct_base_conv_forward_gemm (conv, image_top_diff, weights,
                                             in_diff + n * conv->bottom_dim, weight_down,
                                             error))
            return FALSE;
        }
    }
  return TRUE;
}

const CtLayerClass ct_deconvolution_layer_class = {
  .type = "Deconvolution",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Transposed convolution: learned upsampling filters"),
  .instance_size = sizeof (CtBaseConv),
  .bottoms = CT_AT_LEAST (1),
  .tops = CT_AT_LEAST (1),
  .equal_bottom_top_counts = TRUE,
  .setup = deconvolution_setup,
  .reshape = ct_base_conv_reshape,
  .forward_cpu = deconvolution_forward,
  .backward_cpu = deconvolution_backward,
  .finalize = ct_base_conv_finalize,
};
