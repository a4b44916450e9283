/* convolution.c: Convolution, Caffe's convolution over any number of
 * spatial axes (those after convolution_param.axis), with groups, padding,
 * stride and dilation, run by the convolution kernels (kernels/conv.h)
 * through base-conv.c. Several bottoms may share the weights: each bottom
 * gives the top of the same index. */
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "engine-error.h"
#include "net.h"

static gboolean
convolution_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_base_conv_setup (layer, bottom, top, FALSE, error);
}

/* A multiply-add per weight of a filter for each output, and the bias. */
static double
convolution_flops (const CtNetShapeLayer *l)
{
  return 2.0 * ct_layer_shapes_first_count (l->tops) * ct_layer_shapes_weights_per_row (l)
         + ct_layer_shapes_bias (l);
}

static const CtLayerExplanation convolution_explanation = {
  .summary = N_("Slides small learned filters over the input. Each output value is the "
                "dot product of one filter with the window of the input under it, plus a "
                "bias: a filter that matches a pattern (an edge, a blob of colour) gives "
                "a large value where the pattern is. Each output channel is one filter's "
                "map of where its pattern appears."),
  .formula = N_("y[n, c, i, j] = b[c] + Σ_k Σ_u Σ_v W[c, k, u, v] · x[n, k, i·s − p + "
                "u·d, j·s − p + v·d]"),
  .parameters = N_("num_output: number of filters (output channels); kernel_size: the "
                   "window's size; stride s: the step between windows; pad p: zeros added "
                   "around the input; dilation d: gaps inside the window; group: channels "
                   "split into independent groups; bias_term: whether b is added."),
  .gradient = N_("The output diff ∂L/∂y says how the loss changes with each output. "
                 "Backward gives the filter diff (each window times the output diff, "
                 "summed over positions and the batch), the bias diff (the output diff "
                 "summed), and the input diff (the output diff sent back through the "
                 "filters to every input the windows covered)."),
};

const CtLayerClass ct_convolution_layer_class = {
  .explanation = &convolution_explanation,
  .type = "Convolution",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Learned filters slid over the input (groups, stride, padding, dilation)"),
  .instance_size = sizeof (CtBaseConv),
  .bottoms = CT_AT_LEAST (1),
  .tops = CT_AT_LEAST (1),
  .equal_bottom_top_counts = TRUE,
  .setup = convolution_setup,
  .reshape = ct_base_conv_reshape,
  .forward = ct_base_conv_forward,
  .backward = ct_base_conv_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "convolution_param { num_output: 32 pad: 1 kernel_size: 3 stride: 1"
                    " weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } }",
  .flops = convolution_flops,
  .name_prefix = "conv",
  .backward_reads_data = ct_layer_backward_reads_bottoms,
};
