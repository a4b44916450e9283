/* exp.c: Exp, y = base ^ (shift + scale * x), base -1 meaning e. As Caffe,
 * it is computed as outer * exp(inner * x) with inner = ln(base) * scale
 * and outer = base ^ shift. Backward uses only the top: runs in place. */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"

static gboolean
exp_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__ExpParameter defaults = CAFFE__EXP_PARAMETER__INIT;
  float *params = CT_NEURON_PARAMS (layer);
  const Caffe__ExpParameter *p = layer->param->exp_param ? layer->param->exp_param : &defaults;
  gboolean natural = p->base == -1.0f;
  float log_base;

  if (!natural && !(p->base > 0.0f && isfinite (p->base)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("exp_param.base must be a finite number above 0, or -1 for e"));
  log_base = natural ? 1.0f : logf (p->base);
  params[0] = log_base * p->scale;
  if (p->shift == 0.0f)
    params[1] = 1.0f;
  else
    params[1] = natural ? expf (p->shift) : powf (p->base, p->shift);
  return TRUE;
}

/* params: inner_scale, outer_scale. */
static CtStatus
exp_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_exp_forward : ct_cpu_exp_forward) (n, p[0], p[1], x, y);
}

static CtStatus
exp_backward (const float *p, gboolean gpu, int64_t n, const float *x, const float *y,
              const float *dy, float *dx)
{
  return (gpu ? ct_cuda_exp_backward : ct_cpu_exp_backward) (n, p[0], y, dy, dx);
}

static const CtNeuronKernels exp_kernels = {
  .forward_with = exp_forward,
  .backward_with = exp_backward,
};

static const CtLayerExplanation exp_explanation = {
  .summary = N_("An exponential of an affine map of the input."),
  .formula = N_("y = base^(shift + scale · x)  (base e by default)"),
  .parameters = N_("base (−1: e), scale, shift."),
  .gradient = N_("The input diff is the output diff times y · scale · ln(base)."),
};

CT_DEFINE_NEURON_CLASS (exp, "Exp",
                        N_("Exponential, base ^ (shift + scale x)"),
                        CtNeuronLayer, exp_setup, exp_kernels,
                        .explanation = &exp_explanation);
