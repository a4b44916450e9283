/* bnll.c: BNLL (binomial normal log likelihood), y = ln(1 + exp(x)), the
 * softplus. Backward reads the bottom, as Caffe's does: run in place, it
 * reads the top instead (as Caffe would). */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

static gboolean
bnll_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_bnll_forward (n, x, y), error);
}

static gboolean
bnll_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, GError **error)
{
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_bnll_backward (n, x, dy, dx), error);
}

const CtLayerClass ct_bnll_layer_class = {
  .type = "BNLL",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Binomial normal log likelihood (softplus), ln(1 + exp(x))"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = ct_neuron_reshape,
  .forward_cpu = bnll_forward,
  .backward_cpu = bnll_backward,
};
