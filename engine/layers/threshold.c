/* threshold.c: Threshold, y = 1 where x > threshold, else 0. A step has no
 * useful gradient; like Caffe it has no backward, so nothing below it
 * learns through it. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float threshold;
} CtThresholdLayer;

static gboolean
threshold_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtThresholdLayer *self = (CtThresholdLayer *) layer;
  const Caffe__ThresholdParameter *p = layer->param->threshold_param;

  self->threshold = p != NULL ? p->threshold : 0.0f;
  return TRUE;
}

static gboolean
threshold_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtThresholdLayer *self = (CtThresholdLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_threshold_forward (n, self->threshold, x, y), error);
}

const CtLayerClass ct_threshold_layer_class = {
  .type = "Threshold",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Step function: 1 above threshold, 0 otherwise (no gradient)"),
  .instance_size = sizeof (CtThresholdLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = threshold_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = threshold_forward,
};
