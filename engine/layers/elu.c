/* elu.c: ELU, y = x for x > 0 and alpha * (exp(x) - 1) otherwise. Backward
 * uses the top (dy/dx = y + alpha on the negative side), so it runs in
 * place as in Caffe. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static float
read_alpha (const Caffe__LayerParameter *param)
{
  return param->elu_param != NULL ? param->elu_param->alpha : 1.0f;
}

static const CtNeuronKernels elu_kernels = {
  .read_param = read_alpha,
  .forward_with = ct_cpu_elu_forward,
  .backward_with = ct_cpu_elu_backward,
};

const CtLayerClass ct_elu_layer_class = {
  .type = "ELU",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Exponential linear unit: x above 0, alpha (exp(x) - 1) below"),
  .instance_size = sizeof (CtNeuronLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = ct_neuron_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .backward_cpu = ct_neuron_backward,
  .type_data = &elu_kernels,
};
