/* elu.c: ELU, y = x for x > 0 and alpha * (exp(x) - 1) otherwise. Backward
 * uses the top (dy/dx = y + alpha on the negative side), so it runs in
 * place as in Caffe. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static gboolean
elu_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CT_NEURON_PARAMS (layer)[0] = layer->param->elu_param != NULL
                                ? layer->param->elu_param->alpha : 1.0f;
  return TRUE;
}

/* params[0]: alpha. */
static CtStatus
elu_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_elu_forward : ct_cpu_elu_forward) (n, p[0], x, y);
}

static CtStatus
elu_backward (const float *p, gboolean gpu, int64_t n, const float *x, const float *y,
              const float *dy, float *dx)
{
  return (gpu ? ct_cuda_elu_backward : ct_cpu_elu_backward) (n, p[0], x, y, dy, dx);
}

static const CtNeuronKernels elu_kernels = {
  .forward_with = elu_forward,
  .backward_with = elu_backward,
};

static const CtLayerExplanation elu_explanation = {
  .summary = N_("Exponential linear unit: x above 0, a smooth curve towards −α below, so "
                "that mean activations stay closer to 0."),
  .formula = N_("y = x if x > 0, else α · (exp(x) − 1)"),
  .parameters = N_("alpha α: the value approached for very negative inputs."),
  .gradient = N_("The diff passes unchanged above 0 and is multiplied by y + α below."),
};

CT_DEFINE_NEURON_CLASS (elu, "ELU",
                        N_("Exponential linear unit: x above 0, alpha (exp(x) - 1) below"),
                        CtNeuronLayer, elu_setup, elu_kernels,
                        .usually_in_place = TRUE,
                        .explanation = &elu_explanation);
