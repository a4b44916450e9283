/* batch-norm.c: BatchNorm, y = (x - mean) / sqrt(var + eps) per channel
 * (axis 1), statistics over every other axis. Learned scale and shift are a
 * separate Scale layer, as in Caffe.
 *
 * Three parameter blobs hold running sums, not learned weights: the mean
 * sum [C], the variance sum [C] and their weight [1]; the stored
 * statistics are sum / weight. With use_global_stats (the default in TEST)
 * forward uses them. Otherwise forward uses the batch's own statistics and
 * folds them into the sums: weight = weight * f + 1, mean sum = mean +
 * f * mean sum, variance sum = m / (m - 1) * var + f * variance sum, with
 * f = moving_average_fraction and m the elements per channel (the unbiased
 * variance), exactly as Caffe does, TEST phase included.
 *
 * The sums must never be changed by a solver: as Caffe, setup marks them
 * with lr_mult 0 (adding the ParamSpecs a prototxt leaves out, refusing a
 * non-zero lr_mult) and clears their param_propagate_down. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "engine-error.h"
#include "normalization.h"
#include "common-device-private.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  gboolean use_global_stats;
  float moving_average_fraction;
  float eps;
  gint64 channels;
  CtBlob *mean;      /* [channels]: this forward's mean */
  CtBlob *variance;  /* [channels]: the (biased) variance this forward normalises with */
  CtBlob *std;       /* [channels]: sqrt(variance + eps), kept for backward */
  CtBlob *x_norm;    /* the output of the last batch-statistics forward, for backward */
} CtBatchNormLayer;

/* Caffe's LayerSetUp adds a ParamSpec { lr_mult: 0 } for every statistics
 * blob the prototxt does not describe, and refuses a learned one. */
static gboolean
freeze_statistics (CtLayer *layer, GError **error)
{
  Caffe__LayerParameter *p = layer->param;

  for (guint i = 0; i < 3; i++)
    {
      if (p->n_param == i)
        {
          Caffe__ParamSpec *spec = malloc (sizeof (Caffe__ParamSpec));
          Caffe__ParamSpec **specs = realloc (p->param, (i + 1) * sizeof (Caffe__ParamSpec *));

          if (spec == NULL || specs == NULL)
            {
              free (spec);
              if (specs != NULL)
                p->param = specs;
              return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                                    _("out of memory"));
            }
          caffe__param_spec__init (spec);
          spec->has_lr_mult = TRUE;
          spec->lr_mult = 0.0f;
          specs[i] = spec;
          p->param = specs;
          p->n_param = i + 1;
        }
      else if (p->param[i]->lr_mult != 0.0f)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                              _("param %u has a non-zero lr_mult, but the batch statistics "
                                "are not learned: give lr_mult 0 or leave the param out"), i);
      ct_layer_set_param_propagate_down (layer, i, FALSE);
    }
  return TRUE;
}

static gboolean
create_or_check_statistics (CtLayer *layer, GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  const gint64 expected[3] = { self->channels, self->channels, 1 };

  if (layer->blobs->len == 0)
    for (guint i = 0; i < 3; i++)
      {
        g_autoptr (GError) local = NULL;
        CtBlob *blob = ct_blob_new_with_shape (&expected[i], 1, &local);
        float *data;

        if (blob == NULL)
          return ct_layer_fail (layer, error, local->code, "%s", local->message);
        g_ptr_array_add (layer->blobs, blob);
        data = ct_neuron_mutable_data (layer, blob, error);
        if (data == NULL)
          return FALSE;
        ct_cpu_set (expected[i], 0.0f, data);
      }

  if (layer->blobs->len != 3)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "has %u parameter blob, BatchNorm keeps 3 (mean, variance, "
                                       "moving-average factor)",
                                       "has %u parameter blobs, BatchNorm keeps 3 (mean, variance, "
                                       "moving-average factor)", layer->blobs->len),
                          layer->blobs->len);
  for (guint i = 0; i < 3; i++)
    if (ct_blob_count (g_ptr_array_index (layer->blobs, i)) != expected[i])
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            g_dngettext (GETTEXT_PACKAGE,
                                         "parameter blob %u has %" PRId64 " value, %"
                                         PRId64 " expected",
                                         "parameter blob %u has %" PRId64 " values, %"
                                         PRId64 " expected",
                                         ct_blob_count (g_ptr_array_index (layer->blobs, i))),
                            i, ct_blob_count (g_ptr_array_index (layer->blobs, i)),
                            expected[i]);
  return TRUE;
}

static gboolean
batch_norm_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__BatchNormParameter defaults = CAFFE__BATCH_NORM_PARAMETER__INIT;
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  const Caffe__BatchNormParameter *p = layer->param->batch_norm_param;
  CtBlob *b = CT_BOTTOM (bottom, 0);

  if (p == NULL)
    p = &defaults;
  if (ct_blob_num_axes (b) < 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the bottom needs at least 1 axis"));
  if (!(p->eps >= 0.0f))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("batch_norm_param.eps must not be negative"));

  self->use_global_stats = p->has_use_global_stats ? p->use_global_stats
                                                   : layer->phase == CAFFE__PHASE__TEST;
  self->moving_average_fraction = p->moving_average_fraction;
  self->eps = p->eps;
  self->channels = ct_blob_num_axes (b) == 1 ? 1 : ct_blob_get_shape (b)[1];

  if (!create_or_check_statistics (layer, error) || !freeze_statistics (layer, error))
    return FALSE;

  {
    gint64 dims[1] = { MAX (self->channels, 1) };
    g_autoptr (GError) local = NULL;

    g_clear_pointer (&self->mean, ct_blob_free);
    g_clear_pointer (&self->variance, ct_blob_free);
    g_clear_pointer (&self->std, ct_blob_free);
    if ((self->mean = ct_blob_new_with_shape (dims, 1, &local)) == NULL
        || (self->variance = ct_blob_new_with_shape (dims, 1, &local)) == NULL
        || (self->std = ct_blob_new_with_shape (dims, 1, &local)) == NULL)
      return ct_layer_fail (layer, error, local->code, "%s", local->message);
  }
  if (self->x_norm == NULL)
    self->x_norm = ct_blob_new ();
  return TRUE;
}

static gboolean
batch_norm_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0);
  gint64 channels;
  g_autoptr (GError) local = NULL;

  if (ct_blob_num_axes (b) < 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the bottom needs at least 1 axis"));
  channels = ct_blob_num_axes (b) == 1 ? 1 : ct_blob_get_shape (b)[1];
  if (channels != self->channels)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "the bottom has %" PRId64 " channel, set up for %" PRId64,
                                       "the bottom has %" PRId64 " channels, set up for %"
                                       PRId64, channels),
                          channels, self->channels);
  if (!ct_neuron_reshape (layer, bottom, top, error))
    return FALSE;
  if (!self->use_global_stats && !ct_blob_reshape_like (self->x_norm, b, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

/* outer x channels x inner: N x C x (everything after the channel axis). */
static void
grid (CtBatchNormLayer *self, CtBlob *bottom, gint64 *outer, gint64 *inner)
{
  gint64 count = ct_blob_count (bottom);

  *outer = ct_blob_get_shape (bottom)[0];
  *inner = *outer * self->channels > 0 ? count / (*outer * self->channels) : 0;
}

/* mean and variance from the stored sums: sum / weight (0 for weight 0).
 * The weight is one float, read on the CPU on either device, as Caffe
 * does. */
static gboolean
stored_statistics (CtLayer *layer, gboolean gpu, GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  const float *sums[2], *weight;
  float *mean, *var;
  float factor;

  weight = ct_common_data_on (layer, g_ptr_array_index (layer->blobs, 2), FALSE, error);
  if (weight == NULL)
    return FALSE;
  for (guint i = 0; i < 2; i++)
    if ((sums[i] = ct_common_data_on (layer, g_ptr_array_index (layer->blobs, i), gpu,
                                      error)) == NULL)
      return FALSE;
  if ((mean = ct_common_mutable_data_on (layer, self->mean, gpu, error)) == NULL
      || (var = ct_common_mutable_data_on (layer, self->variance, gpu, error)) == NULL)
    return FALSE;
  factor = weight[0] == 0.0f ? 0.0f : 1.0f / weight[0];
  return ct_neuron_check (layer, (gpu ? ct_cuda_scale : ct_cpu_scale) (self->channels, factor,
                                                                       sums[0], mean), error)
         && ct_neuron_check (layer, (gpu ? ct_cuda_scale : ct_cpu_scale) (self->channels,
                                                                          factor, sums[1], var),
                             error);
}

/* Fold this batch's mean and (biased) variance into the sums.
 * The weight, one float, is updated on the CPU. */
static gboolean
update_moving_averages (CtLayer *layer, gint64 count, gboolean gpu, GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  float f = self->moving_average_fraction;
  const float *mean, *var;
  float *sums[2], *weight;
  gint64 m = self->channels > 0 ? count / self->channels : 0;
  float correction = m > 1 ? (float) m / (float) (m - 1) : 1.0f;

  weight = ct_common_mutable_data_on (layer, g_ptr_array_index (layer->blobs, 2), FALSE,
                                      error);
  if (weight == NULL)
    return FALSE;
  for (guint i = 0; i < 2; i++)
    if ((sums[i] = ct_common_mutable_data_on (layer, g_ptr_array_index (layer->blobs, i),
                                              gpu, error)) == NULL)
      return FALSE;
  if ((mean = ct_common_data_on (layer, self->mean, gpu, error)) == NULL
      || (var = ct_common_data_on (layer, self->variance, gpu, error)) == NULL)
    return FALSE;
  weight[0] = weight[0] * f + 1.0f;
  return ct_neuron_check (layer, (gpu ? ct_cuda_axpby : ct_cpu_axpby) (self->channels, 1.0f,
                                                                       mean, f, sums[0]),
                          error)
         && ct_neuron_check (layer, (gpu ? ct_cuda_axpby : ct_cpu_axpby) (self->channels,
                                                                          correction, var, f,
                                                                          sums[1]), error);
}

/* The Scale and ReLU this layer took (CtLayer.absorbed) */

static const Caffe__ScaleParameter *
chain_scale_param (const CtLayer *layer)
{
  return layer->absorbed[0]->param->scale_param;
}

static gboolean
chain_has_bias (const CtLayer *layer)
{
  const Caffe__ScaleParameter *p = chain_scale_param (layer);

  return p != NULL && p->bias_term;
}

/* This layer's forward pass with the Scale's and the ReLU's after it, on
 * the CPU, in one pass over the blob. */
static gboolean
chain_forward (CtLayer *layer, gint64 outer, gint64 inner, gboolean batch_stats,
               const float *x, float *mean, float *var, float *std, float *y, float *keep,
               GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  CtLayer *scale = layer->absorbed[0];
  const float *gamma, *beta = NULL;
  gboolean relu = layer->n_absorbed > 1;

  gamma = ct_common_data_on (scale, g_ptr_array_index (scale->blobs, 0), FALSE, error);
  if (gamma == NULL)
    return FALSE;
  if (chain_has_bias (layer)
      && (beta = ct_common_data_on (scale, g_ptr_array_index (scale->blobs, 1), FALSE,
                                    error)) == NULL)
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_norm_chain_forward (outer, self->channels, inner,
                                                            batch_stats, self->eps, x, mean,
                                                            var, std, y, keep, gamma, beta,
                                                            relu,
                                                            relu ? ct_relu_layer_slope (layer->absorbed[1])
                                                                 : 0.0f), error);
}

/* The backward passes of the ReLU, the Scale and this layer, from the
 * top's diff DY into the bottom's DX (the same array, in place). */
static gboolean
chain_backward (CtLayer *layer, CtBlob *t, gint64 outer, gint64 inner, const float *dy,
                const float *std, float *dx, GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  CtLayer *scale = layer->absorbed[0];
  gboolean relu = layer->n_absorbed > 1;
  const float *gamma, *keep, *y = NULL;
  float *gamma_diff = NULL, *beta_diff = NULL;

  gamma = ct_common_data_on (scale, g_ptr_array_index (scale->blobs, 0), FALSE, error);
  keep = ct_common_data_on (layer, self->x_norm, FALSE, error);
  if (gamma == NULL || keep == NULL)
    return FALSE;
  if (relu && (y = ct_common_data_on (layer, t, FALSE, error)) == NULL)
    return FALSE;
  if (ct_layer_param_propagate_down (scale, 0)
      && (gamma_diff = ct_common_mutable_diff_on (scale, g_ptr_array_index (scale->blobs, 0),
                                                  FALSE, error)) == NULL)
    return FALSE;
  if (chain_has_bias (layer) && ct_layer_param_propagate_down (scale, 1)
      && (beta_diff = ct_common_mutable_diff_on (scale, g_ptr_array_index (scale->blobs, 1),
                                                 FALSE, error)) == NULL)
    return FALSE;
  return ct_neuron_check (layer, ct_cpu_norm_chain_backward (outer, self->channels, inner, relu,
                                                             relu ? ct_relu_layer_slope (layer->absorbed[1])
                                                                  : 0.0f,
                                                             y, keep, std, gamma, dy,
                                                             gamma_diff, beta_diff, dx), error);
}

static gboolean
batch_norm_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                    GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0);
  const float *x;
  float *y, *mean, *var, *std, *keep = NULL;
  gint64 n = ct_blob_count (b), outer, inner;
  gboolean batch_stats = !self->use_global_stats;

  /* In place, X and Y are one array: the bottom is read first. */
  x = ct_common_data_on (layer, b, gpu, error);
  if (x == NULL && n > 0)
    return FALSE;
  y = ct_common_mutable_data_on (layer, CT_TOP (top, 0), gpu, error);
  if (y == NULL && n > 0)
    return FALSE;
  grid (self, b, &outer, &inner);

  if (!batch_stats && !stored_statistics (layer, gpu, error))
    return FALSE;
  if ((mean = ct_common_mutable_data_on (layer, self->mean, gpu, error)) == NULL
      || (var = ct_common_mutable_data_on (layer, self->variance, gpu, error)) == NULL
      || (std = ct_common_mutable_data_on (layer, self->std, gpu, error)) == NULL)
    return FALSE;
  /* Later in-place layers may overwrite the top; backward needs it as it is now. */
  if (batch_stats && !layer->forward_only)
    {
      keep = ct_common_mutable_data_on (layer, self->x_norm, gpu, error);
      if (keep == NULL && n > 0)
        return FALSE;
    }
  if (layer->n_absorbed > 0 && !gpu)
    {
      if (!chain_forward (layer, outer, inner, batch_stats, x, mean, var, std, y, keep, error))
        return FALSE;
    }
  else if (!ct_neuron_check (layer, (gpu ? ct_cuda_batch_norm_forward
                                         : ct_cpu_batch_norm_forward) (
                                        outer, self->channels, inner, batch_stats, self->eps, x,
                                        mean, var, std, y, keep), error))
    return FALSE;
  return !batch_stats || update_moving_averages (layer, n, gpu, error);
}

static gboolean
batch_norm_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                     GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0), *t = CT_TOP (top, 0);
  const float *dy, *y, *std;
  float *dx;
  gint64 n = ct_blob_count (b), outer, inner, C = self->channels;

  if (!propagate_down[0])
    return TRUE;
  grid (self, b, &outer, &inner);
  dy = ct_common_diff_on (layer, t, gpu, error);
  if (dy == NULL && n > 0)
    return FALSE;
  dx = ct_common_mutable_diff_on (layer, b, gpu, error);
  if (dx == NULL && n > 0)
    return FALSE;
  if ((std = ct_common_data_on (layer, self->std, gpu, error)) == NULL)
    return FALSE;

  /* The stored statistics are constants: only the division remains. */
  if (self->use_global_stats)
    return ct_neuron_check (layer, (gpu ? ct_cuda_channel_divide : ct_cpu_channel_divide) (
                                       outer, C, inner, dy, std, dx), error);

  if (layer->absorbs_backward && !gpu)
    return chain_backward (layer, t, outer, inner, dy, std, dx, error);
  y = ct_common_data_on (layer, self->x_norm, gpu, error);
  if (y == NULL && n > 0)
    return FALSE;
  return ct_neuron_check (layer,
                          (gpu ? ct_cuda_channel_normalize_backward
                               : ct_cpu_channel_normalize_backward) (outer, C, inner, y, dy,
                                                                     std, dx), error);
}

static void
batch_norm_finalize (CtLayer *layer)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;

  g_clear_pointer (&self->mean, ct_blob_free);
  g_clear_pointer (&self->variance, ct_blob_free);
  g_clear_pointer (&self->std, ct_blob_free);
  g_clear_pointer (&self->x_norm, ct_blob_free);
}

static const CtLayerExplanation batch_norm_explanation = {
  .summary = N_("Normalises each channel to zero mean and unit variance over the batch "
                "(and positions), which keeps the scale of activations steady and lets "
                "nets train faster. At test time it uses running averages. A Scale layer "
                "after it learns a scale and shift."),
  .formula = N_("y = (x − μ_c) / √(σ²_c + ε)"),
  .parameters = N_("use_global_stats: use the running averages (test) instead of the "
                   "batch's; moving_average_fraction: how fast they follow; eps ε."),
  .gradient = N_("The input diff is the output diff minus its mean and minus its "
                 "projection on y, divided by √(σ² + ε): normalisation removes the parts "
                 "of the gradient that would only shift or scale the channel."),
};

/* The normalized output, while it is kept for backward. */
static CtBlob *
batch_norm_kept_top (CtLayer *layer)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;

  return self->use_global_stats || layer->forward_only ? NULL : self->x_norm;
}

/* In place, a Scale in place after it with a scale per channel and no
 * second bottom, and a ReLU in place after that: their CPU passes run in this
 * layer's, one pass over the blob for the three. Not where the Scale
 * would keep a copy of its own (stored statistics in training), nor its
 * backward pass with stored statistics. */
static guint
batch_norm_absorb (CtLayer *layer, CtLayer *const *next, guint n_next, gboolean *backward)
{
  CtBatchNormLayer *self = (CtBatchNormLayer *) layer;
  const Caffe__ScaleParameter *p = next[0]->param->scale_param;
  CtBlob *gamma;

  *backward = FALSE;
  if (!ct_layer_in_place (layer, 0) || (self->use_global_stats && !layer->forward_only))
    return 0;
  /* (the net passes layers of one bottom: the Scale learns its scale) */
  if (strcmp (ct_layer_get_type (next[0]), "Scale") != 0
      || (p != NULL && (p->axis != 1 || p->num_axes != 1)))
    return 0;
  gamma = g_ptr_array_index (next[0]->blobs, 0);
  if (ct_blob_num_axes (gamma) != 1 || ct_blob_get_shape (gamma)[0] != self->channels)
    return 0;
  *backward = !self->use_global_stats && !layer->forward_only;
  return n_next > 1 && strcmp (ct_layer_get_type (next[1]), "ReLU") == 0 ? 2 : 1;
}

/* Its own statistics and normalized output; and the chain's output, for
 * the ReLU's mask, when it runs a ReLU's backward pass. */
static gboolean
batch_norm_backward_reads_data (const CtLayer *layer, gboolean is_top, guint index)
{
  return is_top && index == 0 && layer->absorbs_backward && layer->n_absorbed > 1;
}

const CtLayerClass ct_batch_norm_layer_class = {
  .explanation = &batch_norm_explanation,
  .type = "BatchNorm",
  .family = CT_LAYER_FAMILY_NORMALIZATION,
  .description = N_("Normalizes each channel to zero mean and unit variance, with batch "
                    "or stored statistics"),
  .instance_size = sizeof (CtBatchNormLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = batch_norm_setup,
  .reshape = batch_norm_reshape,
  .forward = batch_norm_forward,
  .backward = batch_norm_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = batch_norm_finalize,
  .usually_in_place = TRUE,
  .flops_per_top = 2,
  .name_prefix = "bn",
  .backward_reads_data = batch_norm_backward_reads_data,
  .kept_top = batch_norm_kept_top,
  .absorb = batch_norm_absorb,
};
