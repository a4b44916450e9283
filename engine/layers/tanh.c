/* tanh.c: TanH, the hyperbolic tangent. Backward uses only the top
 * (1 - y^2), so it runs in place. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static const CtNeuronKernels tanh_kernels = {
  .forward = ct_cpu_tanh_forward,
  .backward = ct_cpu_tanh_backward,
  .backward_reads_top = TRUE,
};

const CtLayerClass ct_tanh_layer_class = {
  .type = "TanH",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Hyperbolic tangent"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .backward_cpu = ct_neuron_backward,
  .type_data = &tanh_kernels,
};
