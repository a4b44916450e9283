/* exp.c: Exp, y = base ^ (shift + scale * x), base -1 meaning e. As Caffe,
 * it is computed as outer * exp(inner * x) with inner = ln(base) * scale
 * and outer = base ^ shift. Backward uses only the top: runs in place. */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float inner_scale, outer_scale;
} CtExpLayer;

static gboolean
exp_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__ExpParameter defaults = CAFFE__EXP_PARAMETER__INIT;
  CtExpLayer *self = (CtExpLayer *) layer;
  const Caffe__ExpParameter *p = layer->param->exp_param ? layer->param->exp_param : &defaults;
  gboolean natural = p->base == -1.0f;
  float log_base;

  if (!natural && !(p->base > 0.0f && isfinite (p->base)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("exp_param.base must be a finite number above 0, or -1 for e"));
  log_base = natural ? 1.0f : logf (p->base);
  self->inner_scale = log_base * p->scale;
  if (p->shift == 0.0f)
    self->outer_scale = 1.0f;
  else
    self->outer_scale = natural ? expf (p->shift) : powf (p->base, p->shift);
  return TRUE;
}

static gboolean
exp_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtExpLayer *self = (CtExpLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_exp_forward (n, self->inner_scale, self->outer_scale,
                                                     x, y), error);
}

static gboolean
exp_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, GError **error)
{
  CtExpLayer *self = (CtExpLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_exp_backward (n, self->inner_scale, y, dy, dx), error);
}

const CtLayerClass ct_exp_layer_class = {
  .type = "Exp",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Exponential, base ^ (shift + scale x)"),
  .instance_size = sizeof (CtExpLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = exp_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = exp_forward,
  .backward_cpu = exp_backward,
};
