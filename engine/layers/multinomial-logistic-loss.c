/* multinomial-logistic-loss.c: MultinomialLogisticLoss, -log p[label]
 * averaged over the batch, for N rows of probabilities that a layer before
 * it already normalised (a Softmax, typically). Probabilities are floored at
 * 1e-20 under the logarithm, as Caffe does. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"

typedef struct {
  CtLayer parent;
  gint64 num, dim;
} CtMultinomialLogisticLossLayer;

static gboolean
mll_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtMultinomialLogisticLossLayer *self = (CtMultinomialLogisticLossLayer *) layer;
  CtBlob *x = CT_BOTTOM (bottom, 0), *label = CT_BOTTOM (bottom, 1);

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  /* As Caffe: one label per item, N or N x 1 x 1 x 1. */
  if (ct_blob_num_axes (label) > 4 || ct_blob_channels (label, NULL) != 1
      || ct_blob_height (label, NULL) != 1 || ct_blob_width (label, NULL) != 1)
    {
      g_autofree char *ls = ct_blob_shape_string (label);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("labels must be one per item (N or N x 1 x 1 x 1), got %s"), ls);
    }
  self->num = ct_blob_get_shape (x)[0];
  self->dim = self->num == 0 ? 0 : ct_blob_count (x) / self->num;
  return TRUE;
}

static gboolean
mll_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  CtMultinomialLogisticLossLayer *self = (CtMultinomialLogisticLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *prob, *labels;
  float *out, loss = 0.0f;

  if (!ct_loss_check_labels (layer, label, gpu, self->num, self->dim, FALSE, 0, error))
    return FALSE;
  if ((prob = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_multinomial_logistic_forward
                                         : ct_cpu_multinomial_logistic_forward) (
                                      self->num, self->dim, prob, labels, &loss),
                             error))
    return FALSE;
  out[0] = loss / (float) self->num;
  return TRUE;
}

static gboolean
mll_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtMultinomialLogisticLossLayer *self = (CtMultinomialLogisticLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *prob, *labels, *top_diff;
  float *dx;

  if (!ct_loss_refuse_gradient (layer, bottom, propagate_down, 1, _("labels"), error))
    return FALSE;
  if (!propagate_down[0])
    return TRUE;
  if (!ct_loss_check_labels (layer, label, gpu, self->num, self->dim, FALSE, 0, error))
    return FALSE;
  if ((prob = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL
      || (dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  return ct_loss_check_status (layer, (gpu ? ct_cuda_multinomial_logistic_backward
                                           : ct_cpu_multinomial_logistic_backward) (
                                        self->num, self->dim, prob, labels,
                                        -top_diff[0] / (float) self->num, dx),
                               error);
}

static const CtLayerExplanation multinomial_logistic_loss_explanation = {
  .summary = N_("Minus the log of the probability given to the true class, for bottoms "
                "that are already probabilities (after a Softmax layer)."),
  .formula = N_("L = −(1/N) Σ_n log p[n, label[n]]"),
  .parameters = N_("loss_weight."),
  .gradient = N_("Only the true class's probability gets a diff, −1 / (N · p): the smaller "
                 "it was, the harder it is pushed up."),
};

const CtLayerClass ct_multinomial_logistic_loss_layer_class = {
  .explanation = &multinomial_logistic_loss_explanation,
  .type = "MultinomialLogisticLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Negative log-probability of the label, for probabilities"),
  .instance_size = sizeof (CtMultinomialLogisticLossLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (1),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .reshape = mll_reshape,
  .forward = mll_forward,
  .backward = mll_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = ct_loss_allow_force_backward,
  .flops_per_bottom = 3,
};
