/* tanh.c: TanH, the hyperbolic tangent. Backward uses only the top
 * (1 - y^2), so it runs in place. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

static gboolean
tanh_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_tanh_forward (n, x, y), error);
}

static gboolean
tanh_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, GError **error)
{
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_tanh_backward (n, y, dy, dx), error);
}

const CtLayerClass ct_tanh_layer_class = {
  .type = "TanH",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Hyperbolic tangent"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = ct_neuron_reshape,
  .forward_cpu = tanh_forward,
  .backward_cpu = tanh_backward,
};
