/* prelu.c: PReLU, a ReLU whose negative slope is learned: one slope per
 * channel (axis 1), or one for all with channel_shared. The slopes start
 * from prelu_param.filler, constant 0.25 when none is given.
 *
 * In place, forward keeps a copy of the bottom, since backward needs the
 * input's values both for the slope gradient and for the signs; the slope
 * gradient is computed first, before the bottom diff overwrites the top
 * diff it shares, as Caffe orders it. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "engine-error.h"
#include "filler.h"
#include "neuron.h"
#include "neuron-private.h"
#include "rng.h"

typedef struct {
  CtLayer parent;
  gboolean channel_shared;
  CtBlob *bottom_copy; /* the input, kept when running in place */
} CtPReluLayer;

static gboolean
create_slopes (CtLayer *layer, gint64 channels, GError **error)
{
  CtPReluLayer *self = (CtPReluLayer *) layer;
  const Caffe__PReLUParameter *p = layer->param->prelu_param;
  Caffe__FillerParameter constant = CAFFE__FILLER_PARAMETER__INIT;
  const Caffe__FillerParameter *filler = p != NULL ? p->filler : NULL;
  g_autoptr (CtRng) rng = ct_rng_new (layer->seed);
  g_autoptr (CtBlob) slopes = NULL;
  g_autoptr (GError) local = NULL;

  /* A shared slope is a scalar blob (no axes), as Caffe stores it. */
  slopes = self->channel_shared ? ct_blob_new_with_shape (NULL, 0, &local)
                                : ct_blob_new_with_shape (&channels, 1, &local);
  if (slopes == NULL)
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  if (filler == NULL)
    {
      constant.type = (char *) "constant";
      constant.value = 0.25f;
      filler = &constant;
    }
  if (!ct_layer_fill_param (layer, filler, slopes, rng, "prelu_param.filler", error))
    return FALSE;
  g_ptr_array_add (layer->blobs, g_steal_pointer (&slopes));
  return TRUE;
}

static gboolean
check_axes (CtLayer *layer, CtBlob *bottom, GError **error)
{
  if (ct_blob_num_axes (bottom) < 2)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the bottom needs at least 2 axes (a channel axis), it has %u"),
                          ct_blob_num_axes (bottom));
  return TRUE;
}

static gboolean
prelu_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtPReluLayer *self = (CtPReluLayer *) layer;
  const Caffe__PReLUParameter *p = layer->param->prelu_param;
  CtBlob *b = CT_BOTTOM (bottom, 0);
  gint64 channels, expected;

  if (!check_axes (layer, b, error))
    return FALSE;
  channels = ct_blob_get_shape (b)[1];
  self->channel_shared = p != NULL && p->channel_shared;
  if (layer->blobs->len == 0 && !create_slopes (layer, channels, error))
    return FALSE;

  expected = self->channel_shared ? 1 : channels;
  if (ct_blob_count (g_ptr_array_index (layer->blobs, 0)) != expected)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          self->channel_shared
                          ? g_dngettext (GETTEXT_PACKAGE,
                                         "has %" PRId64 " negative slope where channel_shared "
                                         "needs %" PRId64,
                                         "has %" PRId64 " negative slopes where channel_shared "
                                         "needs %" PRId64,
                                         ct_blob_count (g_ptr_array_index (layer->blobs, 0)))
                          : g_dngettext (GETTEXT_PACKAGE,
                                         "has %" PRId64 " negative slope where the channel count "
                                         "needs %" PRId64,
                                         "has %" PRId64 " negative slopes where the channel count "
                                         "needs %" PRId64,
                                         ct_blob_count (g_ptr_array_index (layer->blobs, 0))),
                          ct_blob_count (g_ptr_array_index (layer->blobs, 0)), expected);
  if (self->bottom_copy == NULL)
    self->bottom_copy = ct_blob_new ();
  return TRUE;
}

static gboolean
prelu_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtPReluLayer *self = (CtPReluLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0);
  g_autoptr (GError) local = NULL;

  if (!check_axes (layer, b, error))
    return FALSE;
  if (!self->channel_shared
      && ct_blob_get_shape (b)[1] != ct_blob_count (g_ptr_array_index (layer->blobs, 0)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "the bottom has %" PRId64 " channel but there are %"
                                       PRId64 " negative slopes",
                                       "the bottom has %" PRId64 " channels but there are %"
                                       PRId64 " negative slopes", ct_blob_get_shape (b)[1]),
                          ct_blob_get_shape (b)[1],
                          ct_blob_count (g_ptr_array_index (layer->blobs, 0)));
  if (!ct_neuron_reshape (layer, bottom, top, error))
    return FALSE;
  if (CT_TOP (top, 0) == b && !ct_blob_reshape_like (self->bottom_copy, b, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

/* The blob as outer x channels x inner around axis 1. */
static void
grid (CtBlob *blob, gint64 *outer, gint64 *channels, gint64 *inner)
{
  const gint64 *shape = ct_blob_get_shape (blob);

  *outer = shape[0];
  *channels = shape[1];
  *inner = ct_blob_count_from (blob, 2, NULL);
}

static gboolean
prelu_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
               GError **error)
{
  CtPReluLayer *self = (CtPReluLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0);
  const float *x, *slope;
  float *y;
  gint64 n, outer, channels, inner;

  if (!ct_neuron_forward_arrays_on (layer, bottom, top, gpu, &n, &x, &y, error))
    return FALSE;
  slope = ct_neuron_data_on (layer, g_ptr_array_index (layer->blobs, 0), gpu, error);
  if (slope == NULL)
    return FALSE;
  if (CT_TOP (top, 0) == b)
    {
      float *copy = ct_neuron_mutable_data_on (layer, self->bottom_copy, gpu, error);

      if (copy == NULL && n > 0)
        return FALSE;
      if (!ct_neuron_check (layer, (gpu ? ct_cuda_copy : ct_cpu_copy) (n, x, copy), error))
        return FALSE;
    }
  grid (b, &outer, &channels, &inner);
  return ct_neuron_check (layer, (gpu ? ct_cuda_prelu_forward : ct_cpu_prelu_forward)
                                   (outer, channels, inner, slope, self->channel_shared, x, y),
                          error);
}

static gboolean
prelu_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtPReluLayer *self = (CtPReluLayer *) layer;
  CtBlob *b = CT_BOTTOM (bottom, 0), *t = CT_TOP (top, 0);
  CtBlob *slopes = g_ptr_array_index (layer->blobs, 0);
  const float *x, *dy, *slope;
  gint64 n = ct_blob_count (b), outer, channels, inner;

  if (!propagate_down[0] && !ct_layer_param_propagate_down (layer, 0))
    return TRUE;
  grid (b, &outer, &channels, &inner);
  x = ct_neuron_data_on (layer, t == b ? self->bottom_copy : b, gpu, error);
  dy = x != NULL || n == 0 ? ct_neuron_diff_on (layer, t, gpu, error) : NULL;
  if ((x == NULL || dy == NULL) && n > 0)
    return FALSE;

  if (ct_layer_param_propagate_down (layer, 0))
    {
      float *slope_diff = ct_neuron_mutable_diff_on (layer, slopes, gpu, error);

      if (slope_diff == NULL
          || !ct_neuron_check (layer, (gpu ? ct_cuda_prelu_slope_backward
                                           : ct_cpu_prelu_slope_backward)
                                        (outer, channels, inner, self->channel_shared, x, dy,
                                         slope_diff), error))
        return FALSE;
    }
  if (propagate_down[0])
    {
      float *dx;

      slope = ct_neuron_data_on (layer, slopes, gpu, error);
      if (slope == NULL)
        return FALSE;
      dx = ct_neuron_mutable_diff_on (layer, b, gpu, error);
      if (dx == NULL && n > 0)
        return FALSE;
      return ct_neuron_check (layer, (gpu ? ct_cuda_prelu_backward : ct_cpu_prelu_backward)
                                       (outer, channels, inner, slope, self->channel_shared,
                                        x, dy, dx), error);
    }
  return TRUE;
}

static void
prelu_finalize (CtLayer *layer)
{
  CtPReluLayer *self = (CtPReluLayer *) layer;

  g_clear_pointer (&self->bottom_copy, ct_blob_free);
}

static const CtLayerExplanation prelu_explanation = {
  .summary = N_("Parametric ReLU: like a leaky ReLU, but the slope below 0 is learned, "
                "one per channel or one shared."),
  .formula = N_("y = max(0, x) + a[c] · min(0, x)"),
  .parameters = N_("channel_shared: one slope for all channels; filler: how the slopes start "
                   "(0.25)."),
  .gradient = N_("The input diff is the output diff times 1 or a[c]; the slope's diff is x "
                 "times the output diff where x < 0."),
};

const CtLayerClass ct_prelu_layer_class = {
  .explanation = &prelu_explanation,
  .type = "PReLU",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Parametric ReLU: a learned negative slope per channel, or shared"),
  .instance_size = sizeof (CtPReluLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = prelu_setup,
  .reshape = prelu_reshape,
  .forward = prelu_forward,
  .backward = prelu_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = prelu_finalize,
  .param_field = "prelu_param",
  .usually_in_place = TRUE,
  .flops_per_top = 1,
};
