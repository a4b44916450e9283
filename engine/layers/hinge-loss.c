/* hinge-loss.c: HingeLoss, the one-vs-all hinge loss of N rows of class
 * scores against one label per row: the sum over classes of
 * max (0, 1 - y x) with y = +1 for the label and -1 otherwise, or of its
 * square (hinge_loss_param norm L1 or L2), divided by N. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"

typedef struct {
  CtLayer parent;
  CtBlob *margins; /* max (0, 1 - y x) of the last forward */
  int norm;        /* 1 or 2 */
  gint64 num, dim;
} CtHingeLossLayer;

static gboolean
hinge_loss_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtHingeLossLayer *self = (CtHingeLossLayer *) layer;
  const Caffe__HingeLossParameter *p = layer->param->hinge_loss_param;

  if (self->margins == NULL)
    self->margins = ct_blob_new ();
  self->norm = p != NULL && p->has_norm ? (int) p->norm : 1;
  if (self->norm != CAFFE__HINGE_LOSS_PARAMETER__NORM__L1
      && self->norm != CAFFE__HINGE_LOSS_PARAMETER__NORM__L2)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("unknown hinge_loss_param norm %d"), self->norm);
  return TRUE;
}

static gboolean
hinge_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtHingeLossLayer *self = (CtHingeLossLayer *) layer;
  CtBlob *x = CT_BOTTOM (bottom, 0);

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  self->num = ct_blob_get_shape (x)[0];
  self->dim = self->num == 0 ? 0 : ct_blob_count (x) / self->num;
  if (ct_blob_count (CT_BOTTOM (bottom, 1)) < self->num)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("needs one label per item, %lld, got %lld"),
                          (long long) self->num,
                          (long long) ct_blob_count (CT_BOTTOM (bottom, 1)));
  return ct_blob_reshape_like (self->margins, x, error);
}

static gboolean
hinge_loss_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                    GError **error)
{
  CtHingeLossLayer *self = (CtHingeLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *x, *labels;
  float *m, *out, loss = 0.0f;

  if (!ct_loss_check_labels (layer, label, gpu, self->num, self->dim, FALSE, 0, error))
    return FALSE;
  if ((x = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (m = ct_blob_mutable_data_on (self->margins, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_hinge_forward : ct_cpu_hinge_forward) (
                                      self->num, self->dim, x, labels, self->norm, m, &loss),
                             error))
    return FALSE;
  out[0] = loss / (float) self->num;
  return TRUE;
}

static gboolean
hinge_loss_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                     GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtHingeLossLayer *self = (CtHingeLossLayer *) layer;
  CtBlob *label = CT_BOTTOM (bottom, 1);
  const float *m, *labels, *top_diff;
  float *dx, scale;

  if (!ct_loss_refuse_gradient (layer, bottom, propagate_down, 1, _("labels"), error))
    return FALSE;
  if (!propagate_down[0])
    return TRUE;
  if (!ct_loss_check_labels (layer, label, gpu, self->num, self->dim, FALSE, 0, error))
    return FALSE;
  if ((m = ct_blob_data_on (self->margins, gpu, error)) == NULL
      || (labels = ct_blob_data_on (label, gpu, error)) == NULL
      || (top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL
      || (dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  /* The scalar as Caffe forms it: loss_weight / num, or loss_weight * 2 / num. */
  scale = self->norm == 1 ? top_diff[0] / (float) self->num
                          : top_diff[0] * 2.0f / (float) self->num;
  return ct_loss_check_status (layer, (gpu ? ct_cuda_hinge_backward : ct_cpu_hinge_backward) (
                                        self->num, self->dim, m, labels, self->norm, scale, dx),
                               error);
}

static void
hinge_loss_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtHingeLossLayer *) layer)->margins, ct_blob_free);
}

static const CtLayerExplanation hinge_loss_explanation = {
  .summary = N_("One-versus-all hinge loss of class scores: the true class should score "
                "above 1, the others below −1; scores beyond the margin cost nothing."),
  .formula = N_("L = (1/N) Σ_n Σ_k max(0, 1 − δ(k = label) · x[n, k])^p, δ = ±1"),
  .parameters = N_("norm: L1 (p = 1) or L2 (p = 2); loss_weight."),
  .gradient = N_("Only scores inside the margin get a diff, pushing them out of it."),
};

const CtLayerClass ct_hinge_loss_layer_class = {
  .explanation = &hinge_loss_explanation,
  .type = "HingeLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("One-vs-all hinge loss (L1 or L2) of class scores against labels"),
  .instance_size = sizeof (CtHingeLossLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (1),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .setup = hinge_loss_setup,
  .reshape = hinge_loss_reshape,
  .forward = hinge_loss_forward,
  .backward = hinge_loss_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = ct_loss_allow_force_backward,
  .finalize = hinge_loss_finalize,
  .flops_per_bottom = 3,
};
