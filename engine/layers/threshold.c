/* threshold.c: Threshold, y = 1 where x > threshold, else 0. A step has no
 * useful gradient; like Caffe it has no backward, so nothing below it
 * learns through it. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static float
read_threshold (const Caffe__LayerParameter *param)
{
  return param->threshold_param != NULL ? param->threshold_param->threshold : 0.0f;
}

static const CtNeuronKernels threshold_kernels = {
  .read_param = read_threshold,
  .forward_with = ct_cpu_threshold_forward,
};

const CtLayerClass ct_threshold_layer_class = {
  .type = "Threshold",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Step function: 1 above threshold, 0 otherwise (no gradient)"),
  .instance_size = sizeof (CtNeuronLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = ct_neuron_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = ct_neuron_forward,
  .type_data = &threshold_kernels,
};
