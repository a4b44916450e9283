/* absval.c: AbsVal, y = |x|. Backward needs the bottom's signs, which running
 * in place would erase, so like Caffe it refuses to run in place. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

static gboolean
absval_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_absval_forward (n, x, y), error);
}

static gboolean
absval_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                 GPtrArray *bottom, GError **error)
{
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_absval_backward (n, x, dy, dx), error);
}

const CtLayerClass ct_absval_layer_class = {
  .type = "AbsVal",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Absolute value, |x|"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = ct_neuron_refuse_in_place,
  .reshape = ct_neuron_reshape,
  .forward_cpu = absval_forward,
  .backward_cpu = absval_backward,
};
