/* infogain-loss.c: InfogainLoss, a generalisation of SoftmaxWithLoss that
 * weighs the log-probability of every class by an "information gain"
 * matrix H (classes x classes): loss = -sum_c H[label, c] log p_c, with p
 * the softmax of the scores over infogain_param's axis (H = identity gives
 * SoftmaxWithLoss). H comes from a third bottom or from the .binaryproto
 * file infogain_loss_param.source. loss_param's ignore_label and
 * normalization apply; the legacy `normalize` is refused, as in Caffe. An
 * optional second top shares the probabilities. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "binary-io.h"
#include "blas.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"
#include "softmax.h"

typedef struct {
  CtLayer parent;
  CtBlob *prob;
  CtBlob *infogain; /* H when it comes from the source file */
  CtBlob *scratch;  /* max (inner, classes) floats: softmax scratch, row sums */
  gint64 outer, channels, inner;
  gboolean has_ignore;
  int ignore_label;
  Caffe__LossParameter__NormalizationMode normalization;
} CtInfogainLossLayer;

static gboolean
load_infogain (CtLayer *layer, const char *source, CtBlob *blob, GError **error)
{
  g_autoptr (GError) local = NULL;
  ProtobufCMessage *msg = ct_binary_read_file (&caffe__blob_proto__descriptor, source, &local);
  gboolean ok;

  if (msg == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("cannot read the infogain matrix: %s"), local->message);
  ok = ct_blob_from_proto (blob, (const Caffe__BlobProto *) msg, TRUE, &local);
  protobuf_c_message_free_unpacked (msg, NULL);
  if (!ok)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("infogain matrix '%s': %s"), source, local->message);
  return TRUE;
}

static gboolean
infogain_loss_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtInfogainLossLayer *self = (CtInfogainLossLayer *) layer;
  const Caffe__InfogainLossParameter *p = layer->param->infogain_loss_param;
  const Caffe__LossParameter *lp = layer->param->loss_param;

  if (self->prob == NULL)
    self->prob = ct_blob_new ();
  if (self->scratch == NULL)
    self->scratch = ct_blob_new ();
  self->has_ignore = ct_loss_ignore_label (layer, &self->ignore_label);
  if (lp != NULL && lp->has_normalize)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("loss_param normalize is not supported by this type; "
                            "use normalization"));
  if (!ct_loss_normalization (layer, CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID,
                              &self->normalization, error))
    return FALSE;
  if (bottom->len >= 3)
    return TRUE;
  if (p == NULL || p->source == NULL || p->source[0] == '\0')
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("needs the infogain matrix: a third bottom or "
                            "infogain_loss_param source"));
  if (self->infogain == NULL)
    self->infogain = ct_blob_new ();
  return load_infogain (layer, p->source, self->infogain, error);
}

static gboolean
infogain_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtInfogainLossLayer *self = (CtInfogainLossLayer *) layer;
  static const Caffe__InfogainLossParameter defaults = CAFFE__INFOGAIN_LOSS_PARAMETER__INIT;
  const Caffe__InfogainLossParameter *p = layer->param->infogain_loss_param
                                            ? layer->param->infogain_loss_param : &defaults;
  CtBlob *x = CT_BOTTOM (bottom, 0), *label = CT_BOTTOM (bottom, 1);
  CtBlob *h = bottom->len >= 3 ? CT_BOTTOM (bottom, 2) : self->infogain;
  g_autoptr (GError) local = NULL;
  gint64 scratch_count;
  int axis;

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  if ((axis = ct_blob_canonical_axis_index (x, p->axis, &local)) < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("infogain_loss_param axis: %s"), local->message);
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
                                         "scores %s with infogain axis %d need %lld label, got %s",
                                         "the number of labels must match the number of predictions: "
                                         "scores %s with infogain axis %d need %lld labels, got %s",
                                         self->outer * self->inner),
                            xs, axis, (long long) (self->outer * self->inner), ls);
    }
  if (h == NULL || ct_blob_count (h) != self->channels * self->channels)
    {
      g_autofree char *hs = h != NULL ? ct_blob_shape_string (h) : g_strdup ("-");

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the infogain matrix must be %lld x %lld, got %s"),
                            (long long) self->channels, (long long) self->channels, hs);
    }
  scratch_count = MAX (MAX (self->inner, self->channels), 1);
  if (!ct_blob_reshape (self->scratch, &scratch_count, 1, error)
      || !ct_blob_reshape_like (self->prob, x, error))
    return FALSE;
  if (top->len >= 2 && !ct_blob_reshape_like (CT_TOP (top, 1), x, error))
    return FALSE;
  return TRUE;
}

static const float *
infogain_matrix (CtInfogainLossLayer *self, GPtrArray *bottom, gboolean gpu, GError **error)
{
  return ct_blob_data_on (bottom->len >= 3 ? CT_BOTTOM (bottom, 2) : self->infogain, gpu,
                          error);
}

static gboolean
infogain_loss_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                       GError **error)
{
  CtInfogainLossLayer *self = (CtInfogainLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *x, *labels, *h;
  float *prob, *scratch, *out, loss = 0.0f;
  gint64 valid = 0;

  if (!ct_loss_check_labels (layer, label, gpu, self->outer * self->inner, self->channels,
                             self->has_ignore, self->ignore_label, error))
    return FALSE;
  if ((x = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (h = infogain_matrix (self, bottom, gpu, error)) == NULL
      || (prob = ct_blob_mutable_data_on (self->prob, gpu, error)) == NULL
      || (scratch = ct_blob_mutable_data_on (self->scratch, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_softmax_forward : ct_cpu_softmax_forward) (
                                      self->outer, self->channels, self->inner, x, prob,
                                      scratch), error)
      || !ct_loss_check_status (layer,
                                (gpu ? ct_cuda_infogain_loss_forward
                                     : ct_cpu_infogain_loss_forward) (
                                  self->outer, self->channels, self->inner, prob, labels, h,
                                  self->has_ignore, self->ignore_label, &loss, &valid),
                                error))
    return FALSE;
  out[0] = loss / ct_loss_normalizer (self->normalization, self->outer, self->inner, valid);
  if (top->len >= 2)
    return ct_blob_share_data (CT_TOP (top, 1), self->prob, error);
  return TRUE;
}

static gboolean
infogain_loss_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                        GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtInfogainLossLayer *self = (CtInfogainLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *prob, *labels, *h, *top_diff;
  float *dx, *sums, scale;
  gint64 valid = 0;

  if (!ct_loss_refuse_gradient (layer, bottom, propagate_down, 1, _("labels"), error)
      || !ct_loss_refuse_gradient (layer, bottom, propagate_down, 2, _("infogain matrix"),
                                   error))
    return FALSE;
  if (!propagate_down[0])
    return TRUE;
  if (!ct_loss_check_labels (layer, label, gpu, self->outer * self->inner, self->channels,
                             self->has_ignore, self->ignore_label, error))
    return FALSE;
  if ((prob = ct_blob_data_on (self->prob, gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (h = infogain_matrix (self, bottom, gpu, error)) == NULL
      || (sums = ct_blob_mutable_data_on (self->scratch, gpu, error)) == NULL
      || (top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL
      || (dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  /* H may be a bottom that changes between passes: sum its rows each time. */
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_infogain_row_sums
                                         : ct_cpu_infogain_row_sums) (self->channels, h, sums),
                             error)
      || !ct_loss_check_status (layer,
                                (gpu ? ct_cuda_infogain_loss_backward
                                     : ct_cpu_infogain_loss_backward) (
                                  self->outer, self->channels, self->inner, prob, labels, h,
                                  sums, self->has_ignore, self->ignore_label, dx, &valid),
                                error))
    return FALSE;
  scale = top_diff[0] / ct_loss_normalizer (self->normalization, self->outer, self->inner,
                                            valid);
  return ct_loss_check_status (layer, (gpu ? ct_cuda_scal : ct_cpu_scal) (
                                        ct_blob_count (self->prob), scale, dx),
                               error);
}

static gboolean
infogain_loss_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return bottom_index == 0;
}

static void
infogain_loss_finalize (CtLayer *layer)
{
  CtInfogainLossLayer *self = (CtInfogainLossLayer *) layer;

  g_clear_pointer (&self->prob, ct_blob_free);
  g_clear_pointer (&self->infogain, ct_blob_free);
  g_clear_pointer (&self->scratch, ct_blob_free);
}

static const CtLayerExplanation infogain_loss_explanation = {
  .summary = N_("A softmax loss where each pair of true and predicted class has a weight "
                "from an information-gain matrix H, so that some mistakes cost more than "
                "others."),
  .formula = N_("L = −(1/N) Σ_n Σ_k H[label[n], k] · log p[n, k]"),
  .parameters = N_("source: the file of H (or a third bottom); axis; loss_weight."),
  .gradient = N_("The score diff weighs each class's probability by H's row of the true "
                 "class."),
};

const CtLayerClass ct_infogain_loss_layer_class = {
  .explanation = &infogain_loss_explanation,
  .type = "InfogainLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Softmax loss with each class weighted by an information-gain matrix"),
  .instance_size = sizeof (CtInfogainLossLayer),
  .bottoms = CT_BETWEEN (2, 3),
  .tops = CT_BETWEEN (1, 2),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .setup = infogain_loss_setup,
  .reshape = infogain_loss_reshape,
  .forward = infogain_loss_forward,
  .backward = infogain_loss_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = infogain_loss_allow_force_backward,
  .finalize = infogain_loss_finalize,
  .flops_per_bottom = 3,
};
