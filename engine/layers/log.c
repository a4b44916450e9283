/* log.c: Log, y = log_base(shift + scale * x), base -1 meaning e. Backward
 * reads the bottom as Caffe's does; run in place, it reads the top there
 * instead, exactly as Caffe would. */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float scale, shift, base_scale, backward_scale;
} CtLogLayer;

static gboolean
log_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__LogParameter defaults = CAFFE__LOG_PARAMETER__INIT;
  CtLogLayer *self = (CtLogLayer *) layer;
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
  self->scale = p->scale;
  self->shift = p->shift;
  self->base_scale = 1.0f / log_base;
  self->backward_scale = p->scale / log_base;
  return TRUE;
}

static gboolean
log_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtLogLayer *self = (CtLogLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_log_forward (n, self->scale, self->shift,
                                                     self->base_scale, x, y), error);
}

static gboolean
log_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, GError **error)
{
  CtLogLayer *self = (CtLogLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_log_backward (n, self->scale, self->shift,
                                                      self->backward_scale, x, dy, dx),
                          error);
}

const CtLayerClass ct_log_layer_class = {
  .type = "Log",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Logarithm, log_base(shift + scale x)"),
  .instance_size = sizeof (CtLogLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = log_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = log_forward,
  .backward_cpu = log_backward,
};
