/* bias.c: Bias, top = bottom + b broadcast along bottom's axes from `axis`
 * on. b is the second bottom when there is one, otherwise a learned
 * parameter whose shape is bottom 0's axes [axis, axis + num_axes). Works in
 * place. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  gint64 outer, dim, inner;
} CtBiasLayer;

static const Caffe__BiasParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__BiasParameter defaults = CAFFE__BIAS_PARAMETER__INIT;

  return layer->param->bias_param != NULL ? layer->param->bias_param : &defaults;
}

static CtBlob *
bias_blob (CtLayer *layer, GPtrArray *bottom)
{
  return bottom->len > 1 ? CT_BOTTOM (bottom, 1) : g_ptr_array_index (layer->blobs, 0);
}

static gboolean
bias_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__BiasParameter *p = get_param (layer);
  g_autoptr (CtRng) rng = NULL;
  gint64 dims[CT_BLOB_MAX_AXES];
  guint n_dims = 0;
  CtBlob *blob;

  if (bottom->len > 1)
    return TRUE;
  if (layer->blobs->len > 0)
    {
      if (layer->blobs->len != 1)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("has %u parameter blobs, expected 1"), layer->blobs->len);
      return TRUE;
    }
  if (!ct_common_broadcast_shape (layer, CT_BOTTOM (bottom, 0), p->axis, p->num_axes,
                                  "bias", dims, &n_dims, error))
    return FALSE;
  blob = ct_common_add_param (layer, dims, n_dims, error);
  if (blob == NULL)
    return FALSE;
  rng = ct_rng_new (layer->seed);
  return ct_layer_fill_param (layer, p->filler, blob, rng, "filler", error);
}

static gboolean
bias_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBiasLayer *self = (CtBiasLayer *) layer;
  CtBlob *in = CT_BOTTOM (bottom, 0);

  if (!ct_common_broadcast (layer, in, bias_blob (layer, bottom), get_param (layer)->axis,
                            "bias", &self->outer, &self->dim, &self->inner, error))
    return FALSE;
  if (CT_TOP (top, 0) == in)
    return TRUE;
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, ct_blob_get_shape (in),
                                ct_blob_num_axes (in), error);
}

static gboolean
bias_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
              GError **error)
{
  CtBiasLayer *self = (CtBiasLayer *) layer;
  const float *bias = ct_blob_data_on (bias_blob (layer, bottom), gpu, error);
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out;

  if (bias == NULL || in == NULL)
    return FALSE;
  out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);
  if (out == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_bias_forward : ct_cpu_bias_forward) (
                                     self->outer, self->dim, self->inner, in, bias, out), error);
}

static gboolean
bias_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBiasLayer *self = (CtBiasLayer *) layer;
  gboolean learned = bottom->len == 1;
  const float *top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);

  if (top_diff == NULL)
    return FALSE;
  /* In place, the bottom's diff already is the top's. */
  if (propagate_down[0] && CT_BOTTOM (bottom, 0) != CT_TOP (top, 0))
    {
      float *in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error);

      if (in_diff == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_copy : ct_cpu_copy) (
                                       ct_blob_count (CT_TOP (top, 0)), top_diff, in_diff), error))
        return FALSE;
    }
  if ((learned && ct_layer_param_propagate_down (layer, 0)) || (!learned && propagate_down[1]))
    {
      float *bias_diff = ct_blob_mutable_diff_on (bias_blob (layer, bottom), gpu, error);

      if (bias_diff == NULL)
        return FALSE;
      /* A parameter's diff accumulates; a bottom's is written. */
      return ct_common_check (layer, (gpu ? ct_cuda_bias_backward : ct_cpu_bias_backward) (
                                         self->outer, self->dim, self->inner, top_diff, learned,
                                         bias_diff), error);
    }
  return TRUE;
}

static const CtLayerExplanation bias_explanation = {
  .summary = N_("Adds a bias, learned or given as a second bottom, broadcast over the "
                "trailing axes (one value per channel, for example)."),
  .formula = N_("y = x + b"),
  .parameters = N_("axis, num_axes: which axes b spans; filler: how a learned b starts."),
  .gradient = N_("The input's diff is the output's diff; b's diff is the output diff "
                 "summed over the axes b is broadcast along."),
};

const CtLayerClass ct_bias_layer_class = {
  .explanation = &bias_explanation,
  .type = "Bias",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Adds a learned or given bias, broadcast along the trailing axes"),
  .instance_size = sizeof (CtBiasLayer),
  .bottoms = CT_BETWEEN (1, 2),
  .tops = CT_EXACTLY (1),
  .setup = bias_setup,
  .reshape = bias_reshape,
  .forward = bias_forward,
  .backward = bias_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .usually_in_place = TRUE,
  .flops_per_top = 1,
};
