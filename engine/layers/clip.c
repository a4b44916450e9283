/* clip.c: Clip, y = max(min, min(x, max)); the gradient passes where
 * min <= x <= max. Backward reads the bottom as Caffe's does; run in
 * place, it reads the clipped top there instead, as Caffe would. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float min, max;
} CtClipLayer;

static gboolean
clip_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtClipLayer *self = (CtClipLayer *) layer;
  const Caffe__ClipParameter *p = layer->param->clip_param;

  /* min and max are required fields: without them there is no clipping to do. */
  if (p == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("clip_param with min and max is required"));
  self->min = p->min;
  self->max = p->max;
  return TRUE;
}

static gboolean
clip_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtClipLayer *self = (CtClipLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_clip_forward (n, self->min, self->max, x, y), error);
}

static gboolean
clip_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, GError **error)
{
  CtClipLayer *self = (CtClipLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_clip_backward (n, self->min, self->max, x, dy, dx),
                          error);
}

const CtLayerClass ct_clip_layer_class = {
  .type = "Clip",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Clamps values to the range [min, max]"),
  .instance_size = sizeof (CtClipLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = clip_setup,
  .reshape = ct_neuron_reshape,
  .forward_cpu = clip_forward,
  .backward_cpu = clip_backward,
};
