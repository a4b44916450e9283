/* threshold.c: Threshold, y = 1 where x > threshold, else 0. A step has no
 * useful gradient; like Caffe it has no backward, so nothing below it
 * learns through it. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static gboolean
threshold_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CT_NEURON_PARAMS (layer)[0] = layer->param->threshold_param != NULL
                                ? layer->param->threshold_param->threshold : 0.0f;
  return TRUE;
}

/* params[0]: threshold. */
static CtStatus
threshold_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_threshold_forward : ct_cpu_threshold_forward) (n, p[0], x, y);
}

static const CtNeuronKernels threshold_kernels = {
  .forward_with = threshold_forward,
};

static const CtLayerExplanation threshold_explanation = {
  .summary = N_("A step: 1 where the input is above the threshold, 0 elsewhere."),
  .formula = N_("y = 1 if x > t, else 0"),
  .parameters = N_("threshold t."),
  .gradient = N_("A step has no useful slope: no diff flows back."),
};

const CtLayerClass ct_threshold_layer_class = {
  .explanation = &threshold_explanation,
  .type = "Threshold",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Step function: 1 above threshold, 0 otherwise (no gradient)"),
  .instance_size = sizeof (CtNeuronLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = threshold_setup,
  .reshape = ct_neuron_reshape,
  .forward = ct_neuron_forward,
  .gpu_forward = TRUE,
  .type_data = &threshold_kernels,
  .flops_per_top = 1,
};
