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
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  gboolean normalize_variance;
  gboolean across_channels;
  float eps;
  gint64 rows;  /* the normalised groups: samples, or samples x channels */
  gint64 dim;   /* elements per group */
  float *mean;  /* [rows] */
  float *std;   /* [rows]: variance, then sqrt(variance) + eps */
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
  if (rows != self->rows || self->mean == NULL)
    {
      g_free (self->mean);
      g_free (self->std);
      self->mean = g_new0 (float, MAX (rows, 1));
      self->std = g_new0 (float, MAX (rows, 1));
    }
  self->rows = rows;
  self->dim = rows > 0 ? ct_blob_count (b) / rows : 0;
  return TRUE;
}

static gboolean
mvn_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  /* Rows as channels of a single outer block: row r's statistics. */
  if (!ct_neuron_check (layer, ct_cpu_channel_mean (1, self->rows, self->dim, x, self->mean),
                        error)
      || !ct_neuron_check (layer, ct_cpu_channel_center (1, self->rows, self->dim, x,
                                                         self->mean, y,
                                                         self->normalize_variance ? self->std
                                                                                  : NULL),
                           error))
    return FALSE;
  if (!self->normalize_variance)
    return TRUE;
  return ct_neuron_check (layer, ct_cpu_mvn_std (self->rows, self->eps, self->std, self->std),
                          error)
         && ct_neuron_check (layer, ct_cpu_channel_divide (1, self->rows, self->dim, y,
                                                           self->std, y), error);
}

static gboolean
mvn_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, GError **error)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  if (self->normalize_variance)
    return ct_neuron_check (layer, ct_cpu_channel_normalize_backward (1, self->rows, self->dim,
                                                                      y, dy, self->std, dx),
                            error);
  /* Only the mean was removed: so is the gradient's. */
  return ct_neuron_check (layer, ct_cpu_channel_mean (1, self->rows, self->dim, dy, self->mean),
                          error)
         && ct_neuron_check (layer, ct_cpu_channel_center (1, self->rows, self->dim, dy,
                                                           self->mean, dx, NULL), error);
}

static void
mvn_finalize (CtLayer *layer)
{
  CtMvnLayer *self = (CtMvnLayer *) layer;

  g_clear_pointer (&self->mean, g_free);
  g_clear_pointer (&self->std, g_free);
}

const CtLayerClass ct_mvn_layer_class = {
  .type = "MVN",
  .family = CT_LAYER_FAMILY_NORMALIZATION,
  .description = N_("Mean-variance normalization of each sample, per channel or across "
                    "channels"),
  .instance_size = sizeof (CtMvnLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = mvn_setup,
  .reshape = mvn_reshape,
  .forward_cpu = mvn_forward,
  .backward_cpu = mvn_backward,
  .finalize = mvn_finalize,
};
