/* log.c: Log, y = log_base(shift + scale * x), base -1 meaning e. Backward
 * reads the bottom as Caffe's does; run in place, it reads the top there
 * instead, exactly as Caffe would. */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"

static gboolean
log_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__LogParameter defaults = CAFFE__LOG_PARAMETER__INIT;
  float *params = CT_NEURON_PARAMS (layer);
  const Caffe__LogParameter *p = layer->param->log_param ? layer->param->log_param : &defaults;
  gboolean natural = p->base == -1.0f;
  float log_base;

  if (!natural && !(p->base > 0.0f && isfinite (p->base)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("log_param.base must be a finite number above 0, or -1 for e"));
  log_base = natural ? 1.0f : logf (p->base);
  if (log_base == 0.0f)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("log_param.base must not be 1: there is no logarithm to base 1"));
  params[0] = p->scale;
  params[1] = p->shift;
  params[2] = 1.0f / log_base;
  params[3] = p->scale / log_base;
  return TRUE;
}

/* params: scale, shift, base_scale, backward_scale. */
static CtStatus
log_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_log_forward : ct_cpu_log_forward) (n, p[0], p[1], p[2], x, y);
}

static CtStatus
log_backward (const float *p, gboolean gpu, int64_t n, const float *x, const float *y,
              const float *dy, float *dx)
{
  return (gpu ? ct_cuda_log_backward : ct_cpu_log_backward) (n, p[0], p[1], p[3], x, dy, dx);
}

static const CtNeuronKernels log_kernels = {
  .forward_with = log_forward,
  .backward_with = log_backward,
};

static const CtLayerExplanation log_explanation = {
  .summary = N_("A logarithm of an affine map of the input."),
  .formula = N_("y = log_base(shift + scale · x)  (base e by default)"),
  .parameters = N_("base (−1: e), scale, shift."),
  .gradient = N_("The input diff is the output diff times scale / ((shift + scale · x) · "
                 "ln(base))."),
};

CT_DEFINE_NEURON_CLASS (log, "Log",
                        N_("Logarithm, log_base(shift + scale x)"),
                        CtNeuronLayer, log_setup, log_kernels,
                        .explanation = &log_explanation);
