/* contrastive-loss.c: ContrastiveLoss, for siamese nets: two N x C feature
 * bottoms a and b and a similarity bottom y (N values, non-zero for similar
 * pairs). Similar pairs cost d^2, the others max (margin - d, 0)^2 -- or
 * max (margin - d^2, 0) with contrastive_loss_param legacy_version -- and
 * the loss is their sum over 2N. Both feature bottoms take a gradient. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "loss-common-private.h"
#include "loss.h"

typedef struct {
  CtLayer parent;
  CtBlob *diff;    /* a - b */
  CtBlob *dist_sq; /* |a - b|^2 per pair */
  float margin;
  gboolean legacy;
  gint64 num, channels;
} CtContrastiveLossLayer;

static gboolean
contrastive_loss_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtContrastiveLossLayer *self = (CtContrastiveLossLayer *) layer;
  static const Caffe__ContrastiveLossParameter defaults =
    CAFFE__CONTRASTIVE_LOSS_PARAMETER__INIT;
  const Caffe__ContrastiveLossParameter *p = layer->param->contrastive_loss_param
                                               ? layer->param->contrastive_loss_param
                                               : &defaults;

  if (self->diff == NULL)
    self->diff = ct_blob_new ();
  if (self->dist_sq == NULL)
    self->dist_sq = ct_blob_new ();
  self->margin = p->margin;
  self->legacy = p->legacy_version;
  return TRUE;
}

/* Whether BLOB reads as N x CHANNELS x 1 x 1 in Caffe's legacy view. */
static gboolean
is_flat (CtBlob *blob, gint64 num, gint64 channels)
{
  return ct_blob_num_axes (blob) <= 4 && ct_blob_num (blob, NULL) == num
         && (channels < 0 || ct_blob_channels (blob, NULL) == channels)
         && ct_blob_height (blob, NULL) == 1 && ct_blob_width (blob, NULL) == 1;
}

static gboolean
contrastive_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtContrastiveLossLayer *self = (CtContrastiveLossLayer *) layer;
  CtBlob *a = CT_BOTTOM (bottom, 0), *b = CT_BOTTOM (bottom, 1), *y = CT_BOTTOM (bottom, 2);
  gint64 dims[2];

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  self->num = ct_blob_get_shape (a)[0];
  self->channels = ct_blob_num_axes (a) > 1 ? ct_blob_get_shape (a)[1] : 1;
  if (!is_flat (a, self->num, -1) || !is_flat (b, self->num, self->channels)
      || !is_flat (y, self->num, 1))
    {
      g_autofree char *as = ct_blob_shape_string (a);
      g_autofree char *bs = ct_blob_shape_string (b);
      g_autofree char *ys = ct_blob_shape_string (y);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("needs two N x C (x 1 x 1) feature bottoms and one N (x 1 x 1 "
                              "x 1) similarity bottom, got %s, %s and %s"), as, bs, ys);
    }
  dims[0] = self->num;
  dims[1] = self->channels;
  return ct_blob_reshape (self->diff, dims, 2, error)
         && ct_blob_reshape (self->dist_sq, dims, 1, error);
}

static gboolean
contrastive_loss_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                          GError **error)
{
  CtContrastiveLossLayer *self = (CtContrastiveLossLayer *) layer;
  const float *a, *b, *y;
  float *diff, *dist_sq, *out, loss = 0.0f;

  if ((a = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (b = ct_blob_data_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL
      || (y = ct_blob_data_on (CT_BOTTOM (bottom, 2), gpu, error)) == NULL
      || (diff = ct_blob_mutable_data_on (self->diff, gpu, error)) == NULL
      || (dist_sq = ct_blob_mutable_data_on (self->dist_sq, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_contrastive_forward
                                         : ct_cpu_contrastive_forward) (
                                      self->num, self->channels, a, b, y, self->margin,
                                      self->legacy, diff, dist_sq, &loss),
                             error))
    return FALSE;
  out[0] = loss / (float) self->num / 2.0f;
  return TRUE;
}

static gboolean
contrastive_loss_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                           GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtContrastiveLossLayer *self = (CtContrastiveLossLayer *) layer;
  const float *diff, *dist_sq, *y, *top_diff;

  if (!ct_loss_refuse_gradient (layer, bottom, propagate_down, 2, _("similarity labels"),
                                error))
    return FALSE;
  if ((diff = ct_blob_data_on (self->diff, gpu, error)) == NULL
      || (dist_sq = ct_blob_data_on (self->dist_sq, gpu, error)) == NULL
      || (y = ct_blob_data_on (CT_BOTTOM (bottom, 2), gpu, error)) == NULL
      || (top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  for (guint i = 0; i < 2; i++)
    {
      float sign = i == 0 ? 1.0f : -1.0f;
      float alpha = sign * top_diff[0] / (float) self->num;
      float *dx;

      if (!propagate_down[i])
        continue;
      if ((dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, i), gpu, error)) == NULL
          || !ct_loss_check_status (layer,
                                    (gpu ? ct_cuda_contrastive_backward
                                         : ct_cpu_contrastive_backward) (
                                      self->num, self->channels, diff, dist_sq, y,
                                      self->margin, self->legacy, alpha, dx),
                                    error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
contrastive_loss_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return bottom_index != 2;
}

static void
contrastive_loss_finalize (CtLayer *layer)
{
  CtContrastiveLossLayer *self = (CtContrastiveLossLayer *) layer;

  g_clear_pointer (&self->diff, ct_blob_free);
  g_clear_pointer (&self->dist_sq, ct_blob_free);
}

static const CtLayerExplanation contrastive_loss_explanation = {
  .summary = N_("The loss of a Siamese net: it pulls the features of similar pairs "
                "together and pushes dissimilar pairs at least a margin apart."),
  .formula = N_("L = (1/2N) Σ_n [y d² + (1 − y) max(0, m − d)²], d = ‖a − b‖"),
  .parameters = N_("margin m; legacy_version: the older form with m − d² ; loss_weight."),
  .gradient = N_("Similar pairs get a diff along a − b that draws them together; "
                 "dissimilar pairs closer than the margin get one that drives them apart."),
};

const CtLayerClass ct_contrastive_loss_layer_class = {
  .explanation = &contrastive_loss_explanation,
  .type = "ContrastiveLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Siamese loss pulling similar pairs together, pushing others past a margin"),
  .instance_size = sizeof (CtContrastiveLossLayer),
  .bottoms = CT_EXACTLY (3),
  .tops = CT_EXACTLY (1),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .setup = contrastive_loss_setup,
  .reshape = contrastive_loss_reshape,
  .forward = contrastive_loss_forward,
  .backward = contrastive_loss_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = contrastive_loss_allow_force_backward,
  .finalize = contrastive_loss_finalize,
  .flops_per_bottom = 3,
};
