/* deconvolution.c: Deconvolution, Caffe's transposed convolution: the
 * forward pass is a convolution's backward-data pass (spread each input
 * value over a kernel-sized patch of the output, col2im), the backward pass
 * a convolution's forward pass. The weights are shaped (input channels,
 * output channels / group, kernel…), as Caffe's. */
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "engine-error.h"
#include "net.h"

static gboolean
deconvolution_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_base_conv_setup (layer, bottom, top, TRUE, error);
}

/* A multiply-add per weight of a filter for each input, and the bias. */
static double
deconvolution_flops (const CtNetShapeLayer *l)
{
  return 2.0 * ct_layer_shapes_first_count (l->bottoms) * ct_layer_shapes_weights_per_row (l)
         + ct_layer_shapes_bias (l);
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
  .forward = ct_base_conv_forward,
  .backward = ct_base_conv_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "convolution_param { num_output: 32 bias_term: false pad: 1 kernel_size: 4 stride: 2"
                    " weight_filler { type: \"bilinear\" } }",
  .param_field = "convolution_param",
  .flops = deconvolution_flops,
  .name_prefix = "deconv",
};
