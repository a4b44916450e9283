/* absval.c: AbsVal, y = |x|. Backward needs the bottom's signs, which running
 * in place would erase, so like Caffe it refuses to run in place. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static const CtNeuronKernels absval_kernels = {
  .forward = ct_cpu_absval_forward,
  .backward = ct_cpu_absval_backward,
  .backward_reads_top = FALSE,
};

const CtLayerClass ct_absval_layer_class = {
  .type = "AbsVal",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Absolute value, |x|"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = ct_neuron_refuse_in_place,
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .backward_cpu = ct_neuron_backward,
  .type_data = &absval_kernels,
};
