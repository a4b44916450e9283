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
  CtBlob *scratch; /* inner floats: per-position maxima, sums and dots */
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
  gint64 scratch_count;

  if (axis < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, _("softmax_param axis: %s"),
                          local->message);
  self->outer = ct_blob_count_range (x, 0, axis, NULL);
  self->channels = ct_blob_get_shape (x)[axis];
  self->inner = ct_blob_count_from (x, axis + 1, NULL);
  scratch_count = MAX (self->inner, 1);
  if (self->scratch == NULL)
    self->scratch = ct_blob_new ();
  if (!ct_blob_reshape (self->scratch, &scratch_count, 1, error))
    return FALSE;
  if (CT_TOP (top, 0) != x)
    return ct_blob_reshape_like (CT_TOP (top, 0), x, error);
  return TRUE;
}

static gboolean
softmax_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                 GError **error)
{
  CtSoftmaxLayer *self = (CtSoftmaxLayer *) layer;
  const float *x = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *y, *scratch;

  if (x == NULL || (y = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (scratch = ct_blob_mutable_data_on (self->scratch, gpu, error)) == NULL)
    return FALSE;
  return ct_engine_check_status ((gpu ? ct_cuda_softmax_forward : ct_cpu_softmax_forward) (
                                   self->outer, self->channels, self->inner, x, y, scratch),
                                 _("Computing a softmax"), error);
}

static gboolean
softmax_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                  GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtSoftmaxLayer *self = (CtSoftmaxLayer *) layer;
  CtBlob *t = CT_TOP (top, 0);
  const float *y, *dy;
  float *dx, *scratch;

  if (!propagate_down[0])
    return TRUE;
  if ((y = ct_blob_data_on (t, gpu, error)) == NULL
      || (dy = ct_blob_diff_on (t, gpu, error)) == NULL
      || (dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (scratch = ct_blob_mutable_data_on (self->scratch, gpu, error)) == NULL)
    return FALSE;
  return ct_engine_check_status ((gpu ? ct_cuda_softmax_backward : ct_cpu_softmax_backward) (
                                   self->outer, self->channels, self->inner, y, dy, dx,
                                   scratch),
                                 _("Computing a softmax gradient"), error);
}

static void
softmax_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtSoftmaxLayer *) layer)->scratch, ct_blob_free);
}

static const CtLayerExplanation softmax_explanation = {
  .summary = N_("Turns scores into probabilities: exponentials of the scores, divided by "
                "their sum, so that the outputs are positive and add up to 1. The largest "
                "score gets the largest share."),
  .formula = N_("y[i] = exp(x[i] − max x) / Σ_k exp(x[k] − max x)"),
  .parameters = N_("axis: the axis the probabilities sum over (1, the classes)."),
  .gradient = N_("The input diff is y[i] · (∂L/∂y[i] − Σ_k ∂L/∂y[k] · y[k]): raising one "
                 "score takes probability from all the others."),
};

const CtLayerClass ct_softmax_layer_class = {
  .explanation = &softmax_explanation,
  .type = "Softmax",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Normalised exponentials over one axis, summing to 1"),
  .instance_size = sizeof (CtSoftmaxLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = softmax_reshape,
  .forward = softmax_forward,
  .backward = softmax_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = softmax_finalize,
  .flops_per_top = 3,
  .name_prefix = "prob",
};
