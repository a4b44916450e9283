/* elu.c: ELU, y = x for x > 0 and alpha * (exp(x) - 1) otherwise. Backward
 * uses the top (dy/dx = y + alpha on the negative side), so it runs in
 * place as in Caffe. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float alpha;
} CtEluLayer;

static gboolean
elu_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEluLayer *self = (CtEluLayer *) layer;
  const Caffe__ELUParameter *p = layer->param->elu_param;

  self->alpha = p != NULL ? p->alpha : 1.0f;
  return TRUE;
}

static gboolean
elu_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEluLayer *self = (CtEluLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_elu_forward (n, self->alpha, x, y), error);
}

static gboolean
elu_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, GError **error)
{
  CtEluLayer *self = (CtEluLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_elu_backward (n, self->alpha, x, y, dy, dx), error);
}

const CtLayerClass ct_elu_layer_class = {
  .type = "ELU",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Exponential linear unit: x above 0, alpha (exp(x) - 1) below"),
  .instance_size = sizeof (CtEluLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = elu_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = elu_forward,
  .backward_cpu = elu_backward,
};
