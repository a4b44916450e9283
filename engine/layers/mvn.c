/* mvn.c: MVN (mean-variance normalisation): each channel of each sample
 * (or each whole sample, with across_channels) is shifted to zero mean and,
 * with normalize_variance, divided by its standard deviation plus eps.
 * There are no running statistics and no parameters.
 *
 * Like Caffe, it reads the blob through the legacy num/channels view, so
 * bottoms of more than 4 axes are refused. Backward uses only the top, so
 * the layer runs in place. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "normalization.h"
#include "common-device-private.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  gboolean normalize_variance;
  gboolean across_channels;
  float eps;
  gint64 rows;  /* the normalised groups: samples, or samples x channels */
  gint64 dim;   /* elements per group */
  CtBlob *mean; /* [rows] */
  CtBlob *std;  /* [rows]: variance, then sqrt(variance) + eps */
} CtMvnLayer;

static gboolean
mvn_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__MVNParameter defaults = CAFFE__MVNPARAMETER__INIT;
  CtMvnLayer *self = (CtMvnLayer *) layer;
  const Caffe__MVNParameter *p = layer->param->mvn_param ? layer->param->mvn_param : &defaults;

  if (!(p->eps >= 0.0f))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("mvn_param.eps must not be negative"));
  self->normalize_variance = p->normalize_variance;
  self->across_channels = p->across_channels;
  self->eps = p->eps;
  return TRUE;
}

static gboolean
mvn_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0);
  g_autoptr (GError) local = NULL;
  gint64 num, channels, rows;

  if ((num = ct_blob_num (b, &local)) < 0 || (channels = ct_blob_channels (b, &local)) < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  rows = self->across_channels ? num : num * channels;
  if (!ct_neuron_reshape (layer, bottom, top, error))
    return FALSE;
  {
    gint64 dims[1] = { MAX (rows, 1) };

    if (self->mean == NULL)
      {
        self->mean = ct_blob_new ();
        self->std = ct_blob_new ();
      }
    if (!ct_blob_reshape (self->mean, dims, 1, &local)
        || !ct_blob_reshape (self->std, dims, 1, &local))
      return ct_layer_fail (layer, error, local->code, "%s", local->message);
  }
  self->rows = rows;
  self->dim = rows > 0 ? ct_blob_count (b) / rows : 0;
  return TRUE;
}

static gboolean
mvn_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
             GError **error)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;
  gint64 n = ct_blob_count (CT_BOTTOM (bottom, 0));
  const float *x;
  float *y, *mean, *std;

  /* In place, X and Y are one array: the bottom is read first. */
  if (((x = ct_common_data_on (layer, CT_BOTTOM (bottom, 0), gpu, error)) == NULL && n > 0)
      || ((y = ct_common_mutable_data_on (layer, CT_TOP (top, 0), gpu, error)) == NULL && n > 0)
      || (mean = ct_common_mutable_data_on (layer, self->mean, gpu, error)) == NULL
      || (std = ct_common_mutable_data_on (layer, self->std, gpu, error)) == NULL)
    return FALSE;
  /* Rows as channels of a single outer block: row r's statistics. */
  if (!ct_neuron_check (layer, (gpu ? ct_cuda_channel_mean : ct_cpu_channel_mean) (
                                   1, self->rows, self->dim, x, mean), error)
      || !ct_neuron_check (layer, (gpu ? ct_cuda_channel_center : ct_cpu_channel_center) (
                                      1, self->rows, self->dim, x, mean, y,
                                      self->normalize_variance ? std : NULL), error))
    return FALSE;
  if (!self->normalize_variance)
    return TRUE;
  return ct_neuron_check (layer, (gpu ? ct_cuda_mvn_std : ct_cpu_mvn_std) (self->rows, self->eps,
                                                                           std, std), error)
         && ct_neuron_check (layer, (gpu ? ct_cuda_channel_divide : ct_cpu_channel_divide) (
                                        1, self->rows, self->dim, y, std, y), error);
}

static gboolean
mvn_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;
  gint64 n = ct_blob_count (CT_BOTTOM (bottom, 0));
  const float *y, *dy;
  float *dx, *mean;

  if (!propagate_down[0])
    return TRUE;
  /* The top's data and diff are read before the bottom's diff is taken:
   * in place they are one array. */
  if (((y = ct_common_data_on (layer, CT_TOP (top, 0), gpu, error)) == NULL && n > 0)
      || ((dy = ct_common_diff_on (layer, CT_TOP (top, 0), gpu, error)) == NULL && n > 0)
      || ((dx = ct_common_mutable_diff_on (layer, CT_BOTTOM (bottom, 0), gpu, error)) == NULL
          && n > 0))
    return FALSE;
  if (self->normalize_variance)
    {
      const float *std = ct_common_data_on (layer, self->std, gpu, error);

      return std != NULL
             && ct_neuron_check (layer,
                                 (gpu ? ct_cuda_channel_normalize_backward
                                      : ct_cpu_channel_normalize_backward) (
                                     1, self->rows, self->dim, y, dy, std, dx), error);
    }
  /* Only the mean was removed: so is the gradient's. */
  if ((mean = ct_common_mutable_data_on (layer, self->mean, gpu, error)) == NULL)
    return FALSE;
  return ct_neuron_check (layer, (gpu ? ct_cuda_channel_mean : ct_cpu_channel_mean) (
                                     1, self->rows, self->dim, dy, mean), error)
         && ct_neuron_check (layer, (gpu ? ct_cuda_channel_center : ct_cpu_channel_center) (
                                        1, self->rows, self->dim, dy, mean, dx, NULL), error);
}

static void
mvn_finalize (CtLayer *layer)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;

  g_clear_pointer (&self->mean, ct_blob_free);
  g_clear_pointer (&self->std, ct_blob_free);
}

static const CtLayerExplanation mvn_explanation = {
  .summary = N_("Mean-variance normalisation of each item: subtracts the mean and "
                "optionally divides by the standard deviation, per channel or across "
                "channels."),
  .formula = N_("y = (x − mean) / (std + ε)"),
  .parameters = N_("normalize_variance; across_channels; eps ε."),
  .gradient = N_("As BatchNorm, per item: the parts of the diff that would shift (or "
                 "scale) the item are removed."),
};

const CtLayerClass ct_mvn_layer_class = {
  .explanation = &mvn_explanation,
  .type = "MVN",
  .family = CT_LAYER_FAMILY_NORMALIZATION,
  .description = N_("Mean-variance normalization of each sample, per channel or across "
                    "channels"),
  .instance_size = sizeof (CtMvnLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = mvn_setup,
  .reshape = mvn_reshape,
  .forward = mvn_forward,
  .backward = mvn_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = mvn_finalize,
  .flops_per_top = 2,
};
