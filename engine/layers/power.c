/* power.c: Power, y = (shift + scale * x) ^ power, with the special cases of
 * Caffe's backward (constant output, power 1, power 2, shift 0). Backward
 * reads the bottom as Caffe's does; run in place, it reads the top there
 * instead, exactly as Caffe would. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static gboolean
power_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  float *params = CT_NEURON_PARAMS (layer);
  const Caffe__PowerParameter *p = layer->param->power_param;

  params[0] = p != NULL ? p->power : 1.0f;
  params[1] = p != NULL ? p->scale : 1.0f;
  params[2] = p != NULL ? p->shift : 0.0f;
  return TRUE;
}

/* params: power, scale, shift. */
static CtStatus
power_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_power_forward : ct_cpu_power_forward) (n, p[0], p[1], p[2], x, y);
}

static CtStatus
power_backward (const float *p, gboolean gpu, int64_t n, const float *x, const float *y,
                const float *dy, float *dx)
{
  return (gpu ? ct_cuda_power_backward : ct_cpu_power_backward) (n, p[0], p[1], p[2], x, y,
                                                                  dy, dx);
}

static const CtNeuronKernels power_kernels = {
  .forward_with = power_forward,
  .backward_with = power_backward,
};

static const CtLayerExplanation power_explanation = {
  .summary = N_("Raises an affine map of the input to a power."),
  .formula = N_("y = (shift + scale · x)^power"),
  .parameters = N_("power, scale, shift."),
  .gradient = N_("The input diff is the output diff times power · scale · (shift + scale · "
                 "x)^(power − 1)."),
};

CT_DEFINE_NEURON_CLASS (power, "Power",
                        N_("Power of an affine map, (shift + scale x) ^ power"),
                        CtNeuronLayer, power_setup, power_kernels,
                        .explanation = &power_explanation);
