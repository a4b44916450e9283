/* relu.c: ReLU, y = max(x, 0) + negative_slope * min(x, 0) (leaky when the
 * slope is not 0). It runs in place as in Caffe: backward then reads the
 * top where the bottom was, which has the same signs for any slope >= 0. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static float
read_negative_slope (const Caffe__LayerParameter *param)
{
  return param->relu_param != NULL ? param->relu_param->negative_slope : 0.0f;
}

/* ReLU's backward reads the bottom only (the top, in place: the same signs). */
static CtStatus
relu_backward (int64_t n, float negative_slope, const float *x, const float *y,
               const float *dy, float *dx)
{
  return ct_cpu_relu_backward (n, negative_slope, x, dy, dx);
}

static const CtNeuronKernels relu_kernels = {
  .read_param = read_negative_slope,
  .forward_with = ct_cpu_relu_forward,
  .backward_with = relu_backward,
};

const CtLayerClass ct_relu_layer_class = {
  .type = "ReLU",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Rectified linear unit, max(x, 0), leaky with negative_slope"),
  .instance_size = sizeof (CtNeuronLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = ct_neuron_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .backward_cpu = ct_neuron_backward,
  .type_data = &relu_kernels,
};
