/* power.c: Power, y = (shift + scale * x) ^ power, with the special cases of
 * Caffe's backward (constant output, power 1, power 2, shift 0). Backward
 * reads the bottom as Caffe's does; run in place, it reads the top there
 * instead, exactly as Caffe would. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float power, scale, shift;
} CtPowerLayer;

static gboolean
power_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtPowerLayer *self = (CtPowerLayer *) layer;
  const Caffe__PowerParameter *p = layer->param->power_param;

  self->power = p != NULL ? p->power : 1.0f;
  self->scale = p != NULL ? p->scale : 1.0f;
  self->shift = p != NULL ? p->shift : 0.0f;
  return TRUE;
}

static gboolean
power_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtPowerLayer *self = (CtPowerLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_power_forward (n, self->power, self->scale,
                                                       self->shift, x, y), error);
}

static gboolean
power_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, GError **error)
{
  CtPowerLayer *self = (CtPowerLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_power_backward (n, self->power, self->scale,
                                                        self->shift, x, y, dy, dx), error);
}

const CtLayerClass ct_power_layer_class = {
  .type = "Power",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Power of an affine map, (shift + scale x) ^ power"),
  .instance_size = sizeof (CtPowerLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = power_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = power_forward,
  .backward_cpu = power_backward,
};
