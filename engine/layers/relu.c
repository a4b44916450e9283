/* relu.c: ReLU, y = max(x, 0) + negative_slope * min(x, 0) (leaky when the
 * slope is not 0). It runs in place as in Caffe: backward then reads the
 * top where the bottom was, which has the same signs for any slope >= 0. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static gboolean
relu_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CT_NEURON_PARAMS (layer)[0] = layer->param->relu_param != NULL
                                ? layer->param->relu_param->negative_slope : 0.0f;
  return TRUE;
}

float
ct_relu_layer_slope (const CtLayer *relu)
{
  return CT_NEURON_PARAMS (relu)[0];
}

/* params[0]: negative_slope. */
static CtStatus
relu_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_relu_forward : ct_cpu_relu_forward) (n, p[0], x, y);
}

static CtStatus
relu_backward (const float *p, gboolean gpu, int64_t n, const float *x, const float *y,
               const float *dy, float *dx)
{
  return (gpu ? ct_cuda_relu_backward : ct_cpu_relu_backward) (n, p[0], x, dy, dx);
}

static const CtNeuronKernels relu_kernels = {
  .forward_with = relu_forward,
  .backward_with = relu_backward,
};

static const CtLayerExplanation relu_explanation = {
  .summary = N_("Rectified linear unit: keeps positive values and sets negative ones to 0 "
                "(or scales them by a small slope). It is the non-linearity that lets "
                "stacked layers learn more than one linear map."),
  .formula = N_("y = max(0, x) + negative_slope · min(0, x)"),
  .parameters = N_("negative_slope: the slope below 0 (0: plain ReLU; 0.01: leaky ReLU)."),
  .gradient = N_("The diff passes unchanged where the input was positive and is cut to 0 "
                 "(or scaled by negative_slope) where it was negative: a unit that is "
                 "never positive never learns."),
};

CT_DEFINE_NEURON_CLASS (relu, "ReLU",
                        N_("Rectified linear unit, max(x, 0), leaky with negative_slope"),
                        CtNeuronLayer, relu_setup, relu_kernels,
                        .param_field = "relu_param", .usually_in_place = TRUE,
                        .explanation = &relu_explanation,
                        .backward_reads_data = ct_layer_backward_reads_bottoms);
