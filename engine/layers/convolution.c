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
