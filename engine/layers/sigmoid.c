/* sigmoid.c: Sigmoid, y = 1 / (1 + exp(-x)), evaluated as 0.5 tanh(x / 2) +
 * 0.5 as Caffe does. Backward uses only the top, so it runs in place. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static const CtNeuronKernels sigmoid_kernels = {
  .forward = ct_cpu_sigmoid_forward,
  .backward = ct_cpu_sigmoid_backward,
  .backward_reads_top = TRUE,
};

const CtLayerClass ct_sigmoid_layer_class = {
  .type = "Sigmoid",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Logistic sigmoid, 1 / (1 + exp(-x))"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .backward_cpu = ct_neuron_backward,
  .type_data = &sigmoid_kernels,
};
