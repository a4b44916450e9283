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

static const CtLayerExplanation deconvolution_explanation = {
  .summary = N_("A convolution run backwards: each input value stamps a learned filter, "
                "scaled by the value, onto a larger output, and overlapping stamps add "
                "up. It learns to upsample."),
  .formula = N_("y[n, c, i·s − p + u, j·s − p + v] += Σ_k W[k, c, u, v] · x[n, k, i, "
                "j], then + b[c]"),
  .parameters = N_("As Convolution: num_output, kernel_size, stride (the upsampling factor), "
                   "pad, dilation, group, bias_term."),
  .gradient = N_("Its backward is a convolution's forward: the input diff is the output "
                 "diff filtered by the same filters; the filter diff correlates the input "
                 "with the output diff."),
};

const CtLayerClass ct_deconvolution_layer_class = {
  .explanation = &deconvolution_explanation,
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
