/* bnll.c: BNLL (binomial normal log likelihood), y = ln(1 + exp(x)), the
 * softplus. Backward reads the bottom, as Caffe's does: run in place, it
 * reads the top instead (as Caffe would). */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static const CtNeuronKernels bnll_kernels = {
  .forward = ct_cpu_bnll_forward,
  .backward = ct_cpu_bnll_backward,
  .backward_reads_top = FALSE,
};

const CtLayerClass ct_bnll_layer_class = {
  .type = "BNLL",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Binomial normal log likelihood (softplus), ln(1 + exp(x))"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .backward_cpu = ct_neuron_backward,
  .type_data = &bnll_kernels,
};
