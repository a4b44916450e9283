/* accuracy.c: Accuracy, the share of labels whose class is among the top_k
 * scores (accuracy_param top_k, axis, ignore_label), and with a second top
 * the accuracy of each class. It measures, it does not train: it has no
 * gradient and no loss weight unless the prototxt gives one. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"

typedef struct {
  CtLayer parent;
  gint64 outer, classes, inner, top_k;
  gboolean has_ignore;
  int ignore_label;
  CtBlob *class_counts; /* classes floats, for the per-class top */
} CtAccuracyLayer;

static const Caffe__AccuracyParameter *
accuracy_param (const CtLayer *layer)
{
  static const Caffe__AccuracyParameter defaults = CAFFE__ACCURACY_PARAMETER__INIT;

  return layer->param->accuracy_param != NULL ? layer->param->accuracy_param : &defaults;
}

static gboolean
accuracy_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtAccuracyLayer *self = (CtAccuracyLayer *) layer;
  const Caffe__AccuracyParameter *p = accuracy_param (layer);

  self->top_k = p->top_k;
  self->has_ignore = p->has_ignore_label;
  self->ignore_label = p->ignore_label;
  return TRUE;
}

static gboolean
accuracy_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtAccuracyLayer *self = (CtAccuracyLayer *) layer;
  CtBlob *x = CT_BOTTOM (bottom, 0), *label = CT_BOTTOM (bottom, 1);
  g_autoptr (GError) local = NULL;
  gint64 label_count = ct_blob_count (label);
  int axis;

  if (label_count == 0 || self->top_k > ct_blob_count (x) / label_count)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("top_k (%lld) must be at most the number of classes (%lld)"),
                          (long long) self->top_k,
                          (long long) (label_count == 0 ? 0 : ct_blob_count (x) / label_count));
  if ((axis = ct_blob_canonical_axis_index (x, accuracy_param (layer)->axis, &local)) < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, _("accuracy_param axis: %s"),
                          local->message);
  self->outer = ct_blob_count_range (x, 0, axis, NULL);
  self->classes = ct_blob_get_shape (x)[axis];
  self->inner = ct_blob_count_from (x, axis + 1, NULL);
  if (self->outer * self->inner != label_count)
    {
      g_autofree char *xs = ct_blob_shape_string (x);
      g_autofree char *ls = ct_blob_shape_string (label);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            g_dngettext (GETTEXT_PACKAGE,
                                         "the number of labels must match the number of predictions: "
                                         "scores %s with axis %d need %lld label, got %s",
                                         "the number of labels must match the number of predictions: "
                                         "scores %s with axis %d need %lld labels, got %s",
                                         self->outer * self->inner),
                            xs, axis, (long long) (self->outer * self->inner), ls);
    }
  if (!ct_blob_reshape (CT_TOP (top, 0), NULL, 0, error))
    return FALSE;
  if (top->len >= 2)
    {
      gint64 scratch_count = MAX (self->classes, 1);

      if (self->class_counts == NULL)
        self->class_counts = ct_blob_new ();
      return ct_blob_reshape (self->class_counts, &scratch_count, 1, error)
             && ct_blob_reshape (CT_TOP (top, 1), &self->classes, 1, error);
    }
  return TRUE;
}

static gboolean
accuracy_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                  GError **error)
{
  CtAccuracyLayer *self = (CtAccuracyLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *x, *labels;
  float *out, *per_class = NULL, *class_counts = NULL;

  if (!ct_loss_check_labels (layer, label, gpu, self->outer * self->inner, self->classes,
                             self->has_ignore, self->ignore_label, error))
    return FALSE;
  /* The accuracy is one float, written on the host on either device; the
   * per-class rates stay where the pass runs. */
  if ((x = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (top->len >= 2
      && ((per_class = ct_blob_mutable_data_on (CT_TOP (top, 1), gpu, error)) == NULL
          || (class_counts = ct_blob_mutable_data_on (self->class_counts, gpu, error)) == NULL))
    return FALSE;
  return ct_loss_check_status (layer, (gpu ? ct_cuda_accuracy : ct_cpu_accuracy) (
                                        self->outer, self->classes, self->inner, x, labels,
                                        self->top_k, self->has_ignore, self->ignore_label,
                                        out, per_class, class_counts),
                               error);
}

/* No gradient flows through a measurement: force_backward asks for none. */
static gboolean
accuracy_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return FALSE;
}

static void
accuracy_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtAccuracyLayer *) layer)->class_counts, ct_blob_free);
}

static const CtLayerExplanation accuracy_explanation = {
  .summary = N_("The share of items whose true label is among the top k scores. It "
                "measures, it does not train."),
  .formula = N_("accuracy = (1/N) Σ_n [label[n] among the k largest x[n, ·]]"),
  .parameters = N_("top_k: how many of the best scores count; ignore_label; axis."),
  .gradient = N_("It has no backward: accuracy is not differentiable, so nets train on a "
                 "loss."),
};

const CtLayerClass ct_accuracy_layer_class = {
  .explanation = &accuracy_explanation,
  .type = "Accuracy",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Share of labels found among the top-k scores, overall and per class"),
  .instance_size = sizeof (CtAccuracyLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_BETWEEN (1, 2),
  .setup = accuracy_setup,
  .reshape = accuracy_reshape,
  .forward = accuracy_forward,
  .gpu_forward = TRUE,
  .allow_force_backward = accuracy_allow_force_backward,
  .finalize = accuracy_finalize,
  .new_layer_text = "include { phase: TEST }",
  .flops_per_bottom = 3,
  .name_prefix = "accuracy",
};
