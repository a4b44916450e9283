/* sigmoid-cross-entropy-loss.c: SigmoidCrossEntropyLoss, the cross-entropy
 * of independent sigmoid outputs against targets in [0, 1], computed from
 * the scores in a form that never overflows. Targets whose integer part is
 * loss_param's ignore_label are left out; the divisor follows
 * normalization (default BATCH_SIZE, as Caffe), or the legacy normalize. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"

typedef struct {
  CtLayer parent;
  CtBlob *sigmoid; /* the sigmoid of the scores, for backward */
  gboolean has_ignore;
  int ignore_label;
  Caffe__LossParameter__NormalizationMode normalization;
  float normalizer; /* of the last forward, which backward reuses */
} CtSigmoidCrossEntropyLossLayer;

static gboolean
sce_loss_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSigmoidCrossEntropyLossLayer *self = (CtSigmoidCrossEntropyLossLayer *) layer;

  if (self->sigmoid == NULL)
    self->sigmoid = ct_blob_new ();
  self->normalizer = 1.0f;
  self->has_ignore = ct_loss_ignore_label (layer, &self->ignore_label);
  return ct_loss_normalization (layer, CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE,
                                &self->normalization, error);
}

static gboolean
sce_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSigmoidCrossEntropyLossLayer *self = (CtSigmoidCrossEntropyLossLayer *) layer;
  CtBlob *x = CT_BOTTOM (bottom, 0), *t = CT_BOTTOM (bottom, 1);

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  if (ct_blob_count (x) != ct_blob_count (t))
    {
      g_autofree char *xs = ct_blob_shape_string (x);
      g_autofree char *ts = ct_blob_shape_string (t);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("scores (%s) and targets (%s) must have the same count"), xs, ts);
    }
  return ct_blob_reshape_like (self->sigmoid, x, error);
}

static gboolean
sce_loss_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                  GError **error)
{
  CtSigmoidCrossEntropyLossLayer *self = (CtSigmoidCrossEntropyLossLayer *) layer;
  CtBlob *xb = CT_BOTTOM (bottom, 0);
  const float *x, *t;
  float *s, *out, loss = 0.0f;
  gint64 valid = 0, outer = ct_blob_get_shape (xb)[0];

  if ((x = ct_blob_data_on (xb, gpu, error)) == NULL
      || (t = ct_blob_data_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL
      || (s = ct_blob_mutable_data_on (self->sigmoid, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer,
                             (gpu ? ct_cuda_sigmoid_cross_entropy_forward
                                  : ct_cpu_sigmoid_cross_entropy_forward) (
                               ct_blob_count (xb), x, t, self->has_ignore, self->ignore_label,
                               s, &loss, &valid),
                             error))
    return FALSE;
  self->normalizer = ct_loss_normalizer (self->normalization, outer,
                                         outer == 0 ? 0 : ct_blob_count (xb) / outer, valid);
  out[0] = loss / self->normalizer;
  return TRUE;
}

static gboolean
sce_loss_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                   GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtSigmoidCrossEntropyLossLayer *self = (CtSigmoidCrossEntropyLossLayer *) layer;
  CtBlob *xb = CT_BOTTOM (bottom, 0);
  const float *s, *t, *top_diff;
  float *dx;

  if (!ct_loss_refuse_gradient (layer, bottom, propagate_down, 1, _("targets"), error))
    return FALSE;
  if (!propagate_down[0])
    return TRUE;
  if ((s = ct_blob_data_on (self->sigmoid, gpu, error)) == NULL
      || (t = ct_blob_data_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL
      || (top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL
      || (dx = ct_blob_mutable_diff_on (xb, gpu, error)) == NULL)
    return FALSE;
  return ct_loss_check_status (layer,
                               (gpu ? ct_cuda_sigmoid_cross_entropy_backward
                                    : ct_cpu_sigmoid_cross_entropy_backward) (
                                 ct_blob_count (xb), s, t, self->has_ignore,
                                 self->ignore_label, top_diff[0] / self->normalizer, dx),
                               error);
}

static void
sce_loss_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtSigmoidCrossEntropyLossLayer *) layer)->sigmoid, ct_blob_free);
}

static const CtLayerExplanation sigmoid_cross_entropy_loss_explanation = {
  .summary = N_("Cross-entropy of sigmoid outputs against targets between 0 and 1, each "
                "output an independent yes-or-no (multi-label) prediction."),
  .formula = N_("p = σ(x);  L = −(1/N) Σ [t log p + (1 − t) log(1 − p)]"),
  .parameters = N_("loss_weight; ignore_label; normalization."),
  .gradient = N_("The score diff is (σ(x) − t) / N: the distance between the predicted "
                 "probability and the target."),
};

const CtLayerClass ct_sigmoid_cross_entropy_loss_layer_class = {
  .explanation = &sigmoid_cross_entropy_loss_explanation,
  .type = "SigmoidCrossEntropyLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Cross-entropy of sigmoid outputs against targets in [0, 1]"),
  .instance_size = sizeof (CtSigmoidCrossEntropyLossLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (1),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .setup = sce_loss_setup,
  .reshape = sce_loss_reshape,
  .forward = sce_loss_forward,
  .backward = sce_loss_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = ct_loss_allow_force_backward,
  .finalize = sce_loss_finalize,
  .flops_per_bottom = 3,
};
