/* relu.c: ReLU, y = max(x, 0) + negative_slope * min(x, 0) (leaky when the
 * slope is not 0). It runs in place as in Caffe: backward then reads the
 * top where the bottom was, which has the same signs for any slope >= 0. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float negative_slope;
} CtReluLayer;

static gboolean
relu_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtReluLayer *self = (CtReluLayer *) layer;
  const Caffe__ReLUParameter *p = layer->param->relu_param;

  self->negative_slope = p != NULL ? p->negative_slope : 0.0f;
  return TRUE;
}

static gboolean
relu_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtReluLayer *self = (CtReluLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_relu_forward (n, self->negative_slope, x, y), error);
}

static gboolean
relu_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, GError **error)
{
  CtReluLayer *self = (CtReluLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_relu_backward (n, self->negative_slope, x, dy, dx),
                          error);
}

const CtLayerClass ct_relu_layer_class = {
  .type = "ReLU",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Rectified linear unit, max(x, 0), leaky with negative_slope"),
  .instance_size = sizeof (CtReluLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = relu_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = relu_forward,
  .backward_cpu = relu_backward,
};
