/* softmax-with-loss.c: SoftmaxWithLoss, the multinomial logistic loss of a
 * softmax over class scores, computed together for a stable gradient
 * (prob - one_hot). Labels hold one class per position of the non-softmax
 * axes (softmax_param axis, default 1); loss_param's ignore_label leaves
 * positions out, and normalization (or the legacy normalize) chooses the
 * divisor. An optional second top shares the probabilities. A label that
 * names no class is an error naming it, found in forward. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"
#include "softmax.h"

typedef struct {
  CtLayer parent;
  CtBlob *prob;
  CtBlob *scratch; /* inner floats for the softmax */
  gint64 outer, channels, inner;
  gboolean has_ignore;
  int ignore_label;
  Caffe__LossParameter__NormalizationMode normalization;
} CtSoftmaxWithLossLayer;

static gboolean
softmax_with_loss_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSoftmaxWithLossLayer *self = (CtSoftmaxWithLossLayer *) layer;

  if (self->prob == NULL)
    self->prob = ct_blob_new ();
  if (self->scratch == NULL)
    self->scratch = ct_blob_new ();
  self->has_ignore = ct_loss_ignore_label (layer, &self->ignore_label);
  return ct_loss_normalization (layer, CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID,
                                &self->normalization, error);
}

static gboolean
softmax_with_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSoftmaxWithLossLayer *self = (CtSoftmaxWithLossLayer *) layer;
  static const Caffe__SoftmaxParameter defaults = CAFFE__SOFTMAX_PARAMETER__INIT;
  const Caffe__SoftmaxParameter *p = layer->param->softmax_param ? layer->param->softmax_param
                                                                 : &defaults;
  CtBlob *x = CT_BOTTOM (bottom, 0), *label = CT_BOTTOM (bottom, 1);
  g_autoptr (GError) local = NULL;
  gint64 scratch_count;
  int axis;

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  if ((axis = ct_blob_canonical_axis_index (x, p->axis, &local)) < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, _("softmax_param axis: %s"),
                          local->message);
  self->outer = ct_blob_count_range (x, 0, axis, NULL);
  self->channels = ct_blob_get_shape (x)[axis];
  self->inner = ct_blob_count_from (x, axis + 1, NULL);
  if (self->outer * self->inner != ct_blob_count (label))
    {
      g_autofree char *xs = ct_blob_shape_string (x);
      g_autofree char *ls = ct_blob_shape_string (label);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            g_dngettext (GETTEXT_PACKAGE,
                                         "the number of labels must match the number of predictions: "
                                         "scores %s with softmax axis %d need %lld label, got %s",
                                         "the number of labels must match the number of predictions: "
                                         "scores %s with softmax axis %d need %lld labels, got %s",
                                         self->outer * self->inner),
                            xs, axis, (long long) (self->outer * self->inner), ls);
    }
  scratch_count = MAX (self->inner, 1);
  if (!ct_blob_reshape (self->scratch, &scratch_count, 1, error)
      || !ct_blob_reshape_like (self->prob, x, error))
    return FALSE;
  if (top->len >= 2 && !ct_blob_reshape_like (CT_TOP (top, 1), x, error))
    return FALSE;
  return TRUE;
}

static gboolean
softmax_with_loss_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                           GError **error)
{
  CtSoftmaxWithLossLayer *self = (CtSoftmaxWithLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *x, *labels;
  float *prob, *scratch, *out, loss = 0.0f;
  gint64 valid = 0;

  if (!ct_loss_check_labels (layer, label, gpu, self->outer * self->inner, self->channels,
                             self->has_ignore, self->ignore_label, error))
    return FALSE;
  /* The loss itself is one float, written on the host on either device. */
  if ((x = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (prob = ct_blob_mutable_data_on (self->prob, gpu, error)) == NULL
      || (scratch = ct_blob_mutable_data_on (self->scratch, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_softmax_forward : ct_cpu_softmax_forward) (
                                      self->outer, self->channels, self->inner, x, prob,
                                      scratch), error)
      || !ct_loss_check_status (layer,
                                (gpu ? ct_cuda_softmax_loss_forward
                                     : ct_cpu_softmax_loss_forward) (
                                  self->outer, self->channels, self->inner, prob, labels,
                                  self->has_ignore, self->ignore_label, &loss, &valid),
                                error))
    return FALSE;
  out[0] = loss / ct_loss_normalizer (self->normalization, self->outer, self->inner, valid);
  /* As Caffe: the second top is the probabilities themselves. */
  if (top->len >= 2)
    return ct_blob_share_data (CT_TOP (top, 1), self->prob, error);
  return TRUE;
}

static gboolean
softmax_with_loss_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                            GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtSoftmaxWithLossLayer *self = (CtSoftmaxWithLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *prob, *labels, *top_diff;
  float *dx, scale;
  gint64 valid = 0;

  if (!ct_loss_refuse_gradient (layer, bottom, propagate_down, 1, _("labels"), error))
    return FALSE;
  if (!propagate_down[0])
    return TRUE;
  if (!ct_loss_check_labels (layer, label, gpu, self->outer * self->inner, self->channels,
                             self->has_ignore, self->ignore_label, error))
    return FALSE;
  if ((prob = ct_blob_data_on (self->prob, gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL
      || (dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer,
                             (gpu ? ct_cuda_softmax_loss_backward
                                  : ct_cpu_softmax_loss_backward) (
                               self->outer, self->channels, self->inner, prob, labels,
                               self->has_ignore, self->ignore_label, dx, &valid),
                             error))
    return FALSE;
  /* The loss weight sits in the top's diff. */
  scale = top_diff[0] / ct_loss_normalizer (self->normalization, self->outer, self->inner,
                                            valid);
  return ct_loss_check_status (layer, (gpu ? ct_cuda_scal : ct_cpu_scal) (
                                        ct_blob_count (self->prob), scale, dx),
                               error);
}

static void
softmax_with_loss_finalize (CtLayer *layer)
{
  CtSoftmaxWithLossLayer *self = (CtSoftmaxWithLossLayer *) layer;

  g_clear_pointer (&self->prob, ct_blob_free);
  g_clear_pointer (&self->scratch, ct_blob_free);
}

static const CtLayerExplanation softmax_with_loss_explanation = {
  .summary = N_("The usual loss of a classifier: a softmax of the scores, then minus the "
                "log of the probability given to the true class, averaged over the batch. "
                "It is 0 when the net is sure and right, and grows without bound when it "
                "is sure and wrong."),
  .formula = N_("p = softmax(x);  L = −(1/N) Σ_n log p[n, label[n]]"),
  .parameters = N_("loss_weight: the loss's weight in the total; ignore_label: a label left "
                   "out; normalization: VALID, BATCH_SIZE, FULL or NONE."),
  .gradient = N_("The score diff is (p − one-hot(label)) / N times the loss weight: the "
                 "true class's score is pushed up by 1 − p, every other score down by its "
                 "probability."),
};

const CtLayerClass ct_softmax_with_loss_layer_class = {
  .explanation = &softmax_with_loss_explanation,
  .type = "SoftmaxWithLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Softmax and multinomial logistic loss of class scores against labels"),
  .instance_size = sizeof (CtSoftmaxWithLossLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_BETWEEN (1, 2),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .setup = softmax_with_loss_setup,
  .reshape = softmax_with_loss_reshape,
  .forward = softmax_with_loss_forward,
  .backward = softmax_with_loss_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = ct_loss_allow_force_backward,
  .finalize = softmax_with_loss_finalize,
  .param_field = "softmax_param",
  .flops_per_bottom = 3,
};
