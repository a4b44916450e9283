/* softmax.c: Softmax, normalised exponentials over one axis (softmax_param
 * axis, default 1): each position's values become positive and sum to 1.
 * The largest value is subtracted first, as Caffe does, so large scores do
 * not overflow. Works in place. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "softmax.h"

typedef struct {
  CtLayer parent;
  gint64 outer, channels, inner;
  float *scratch; /* inner floats: per-position maxima, sums and dots */
} CtSoftmaxLayer;

static gboolean
softmax_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSoftmaxLayer *self = (CtSoftmaxLayer *) layer;
  static const Caffe__SoftmaxParameter defaults = CAFFE__SOFTMAX_PARAMETER__INIT;
  const Caffe__SoftmaxParameter *p = layer->param->softmax_param ? layer->param->softmax_param
                                                                 : &defaults;
  CtBlob *x = CT_BOTTOM (bottom, 0);
  g_autoptr (GError) local = NULL;
  int axis = ct_blob_canonical_axis_index (x, p->axis, &local);

  if (axis < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, _("softmax_param axis: %s"),
                          local->message);
  self->outer = ct_blob_count_range (x, 0, axis, NULL);
  self->channels = ct_blob_get_shape (x)[axis];
  self->inner = ct_blob_count_from (x, axis + 1, NULL);
  self->scratch = g_renew (float, self->scratch, MAX (self->inner, 1));
  if (CT_TOP (top, 0) != x)
    return ct_blob_reshape_like (CT_TOP (top, 0), x, error);
  return TRUE;
}

static gboolean
softmax_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSoftmaxLayer *self = (CtSoftmaxLayer *) layer;
  const float *x = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), error);
  float *y;

  if (x == NULL || (y = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  return ct_engine_check_status (ct_cpu_softmax_forward (self->outer, self->channels,
                                                         self->inner, x, y, self->scratch),
                                 _("Computing a softmax"), error);
}

static gboolean
softmax_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                  GPtrArray *bottom, GError **error)
{
  CtSoftmaxLayer *self = (CtSoftmaxLayer *) layer;
  CtBlob *t = CT_TOP (top, 0);
  const float *y, *dy;
  float *dx;

  if (!propagate_down[0])
    return TRUE;
  if ((y = ct_blob_cpu_data (t, error)) == NULL || (dy = ct_blob_cpu_diff (t, error)) == NULL
      || (dx = ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, 0), error)) == NULL)
    return FALSE;
  return ct_engine_check_status (ct_cpu_softmax_backward (self->outer, self->channels,
                                                          self->inner, y, dy, dx,
                                                          self->scratch),
                                 _("Computing a softmax gradient"), error);
}

static void
softmax_finalize (CtLayer *layer)
{
  g_free (((CtSoftmaxLayer *) layer)->scratch);
}

const CtLayerClass ct_softmax_layer_class = {
  .type = "Softmax",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Normalised exponentials over one axis, summing to 1"),
  .instance_size = sizeof (CtSoftmaxLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = softmax_reshape,
  .forward_cpu = softmax_forward,
  .backward_cpu = softmax_backward,
  .finalize = softmax_finalize,
};
