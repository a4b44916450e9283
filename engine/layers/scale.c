/* scale.c: Scale, top = bottom * s (+ b) with s broadcast along bottom's
 * axes from `axis` on. s is the second bottom when there is one, otherwise a
 * learned parameter (shape: bottom 0's axes [axis, axis + num_axes), filled
 * with 1 unless a filler is given). With bias_term a learned bias of the
 * same shape follows, computed as Caffe's internal Bias layer computes it.
 * Works in place: the bottom's values are kept for the gradient of s. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "common-private.h"
#include "net.h"

typedef struct {
  CtLayer parent;
  gint64 outer, dim, inner;
  guint bias_index;    /* the bias's place in layer->blobs */
  CtBlob *saved;       /* the bottom's data, when computing in place */
} CtScaleLayer;

static const Caffe__ScaleParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ScaleParameter defaults = CAFFE__SCALE_PARAMETER__INIT;

  return layer->param->scale_param != NULL ? layer->param->scale_param : &defaults;
}

static CtBlob *
scale_blob (CtLayer *layer, GPtrArray *bottom)
{
  return bottom->len > 1 ? CT_BOTTOM (bottom, 1) : g_ptr_array_index (layer->blobs, 0);
}

static gboolean
create_params (CtLayer *layer, GPtrArray *bottom, GError **error)
{
  const Caffe__ScaleParameter *p = get_param (layer);
  CtBlob *in = CT_BOTTOM (bottom, 0);
  g_autoptr (CtRng) rng = ct_rng_new (layer->seed);
  gint64 dims[CT_BLOB_MAX_AXES];
  guint n_dims = 0;
  CtBlob *blob;

  if (bottom->len == 1)
    {
      /* Without a filler the scale starts at 1: the identity. */
      Caffe__FillerParameter ones = CAFFE__FILLER_PARAMETER__INIT;

      ones.value = 1.0f;
      if (!ct_common_broadcast_shape (layer, in, p->axis, p->num_axes, "scale",
                                      dims, &n_dims, error))
        return FALSE;
      blob = ct_common_add_param (layer, dims, n_dims, error);
      if (blob == NULL || !ct_layer_fill_param (layer, p->filler != NULL ? p->filler : &ones, blob,
                                           rng, "filler", error))
        return FALSE;
    }
  if (p->bias_term)
    {
      /* As Caffe's internal Bias layer: as many axes as the scale has. */
      int num_axes = bottom->len > 1 ? (int) ct_blob_num_axes (CT_BOTTOM (bottom, 1))
                                     : p->num_axes;

      if (!ct_common_broadcast_shape (layer, in, p->axis, num_axes, "bias",
                                      dims, &n_dims, error))
        return FALSE;
      blob = ct_common_add_param (layer, dims, n_dims, error);
      if (blob == NULL || !ct_layer_fill_param (layer, p->bias_filler, blob, rng, "bias_filler",
                                           error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
scale_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtScaleLayer *self = (CtScaleLayer *) layer;
  const Caffe__ScaleParameter *p = get_param (layer);
  guint want = (bottom->len == 1 ? 1 : 0) + (p->bias_term ? 1 : 0);

  if (p->num_axes < -1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("num_axes must be non-negative, or -1 to extend to the end of "
                            "bottom 0; got %d"), p->num_axes);
  if (layer->blobs->len == 0 && !create_params (layer, bottom, error))
    return FALSE;
  if (layer->blobs->len != want)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE, "has %u parameter blob, expected %u",
                                       "has %u parameter blobs, expected %u", layer->blobs->len),
                          layer->blobs->len, want);
  self->bias_index = want > 0 ? want - 1 : 0;
  return TRUE;
}

static gboolean
scale_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtScaleLayer *self = (CtScaleLayer *) layer;
  const Caffe__ScaleParameter *p = get_param (layer);
  CtBlob *in = CT_BOTTOM (bottom, 0);
  g_autoptr (GError) local = NULL;

  if (!ct_common_broadcast (layer, in, scale_blob (layer, bottom), p->axis, "scale",
                            &self->outer, &self->dim, &self->inner, error))
    return FALSE;
  if (p->bias_term)
    {
      gint64 outer = 0, dim = 0, inner = 0;

      /* The bias has the scale's axes, so the same geometry; check its shape. */
      if (!ct_common_broadcast (layer, in, g_ptr_array_index (layer->blobs, self->bias_index),
                                p->axis, "bias", &outer, &dim, &inner, error))
        return FALSE;
      if (dim != self->dim || inner != self->inner)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("the bias does not have the scale's shape"));
    }
  if (CT_TOP (top, 0) == in)
    {
      if (self->saved == NULL)
        self->saved = ct_blob_new ();
      if (!ct_blob_reshape_like (self->saved, in, &local))
        return ct_layer_fail (layer, error, local->code, "%s", local->message);
      return TRUE;
    }
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, ct_blob_get_shape (in),
                                ct_blob_num_axes (in), error);
}

static gboolean
scale_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
               GError **error)
{
  CtScaleLayer *self = (CtScaleLayer *) layer;
  const Caffe__ScaleParameter *p = get_param (layer);
  CtBlob *in_blob = CT_BOTTOM (bottom, 0);
  const float *scale = ct_blob_data_on (scale_blob (layer, bottom), gpu, error);
  const float *in = ct_blob_data_on (in_blob, gpu, error);
  const float *bias = NULL;
  float *out;

  if (scale == NULL || in == NULL)
    return FALSE;
  if (in_blob == CT_TOP (top, 0) && !layer->forward_only && layer->bottom_kept == NULL)
    {
      /* In place: the scale's gradient needs the bottom as it was. */
      float *saved = ct_blob_mutable_data_on (self->saved, gpu, error);

      if (saved == NULL
          || !ct_common_check (layer, (gpu ? ct_cuda_copy : ct_cpu_copy) (
                                          ct_blob_count (in_blob), in, saved), error))
        return FALSE;
    }
  if (p->bias_term
      && (bias = ct_blob_data_on (g_ptr_array_index (layer->blobs, self->bias_index), gpu,
                                  error)) == NULL)
    return FALSE;
  out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);
  if (out == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_scale_bias_forward : ct_cpu_scale_bias_forward) (
                                     self->outer, self->dim, self->inner, in, scale, bias, out),
                          error);
}

static gboolean
scale_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtScaleLayer *self = (CtScaleLayer *) layer;
  const Caffe__ScaleParameter *p = get_param (layer);
  gboolean learned = bottom->len == 1;
  CtBlob *scale = scale_blob (layer, bottom);
  CtBlob *in_blob = CT_BOTTOM (bottom, 0);
  const float *top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  const float *in = NULL, *s = NULL;
  float *bias_diff = NULL, *scale_diff = NULL, *in_diff = NULL;

  if (top_diff == NULL)
    return FALSE;
  if (p->bias_term && ct_layer_param_propagate_down (layer, self->bias_index))
    {
      bias_diff = ct_blob_mutable_diff_on (g_ptr_array_index (layer->blobs, self->bias_index),
                                           gpu, error);
      if (bias_diff == NULL)
        return FALSE;
    }
  if ((learned && ct_layer_param_propagate_down (layer, 0)) || (!learned && propagate_down[1]))
    {
      CtBlob *kept = layer->bottom_kept != NULL ? layer->bottom_kept : self->saved;

      in = ct_blob_data_on (in_blob == CT_TOP (top, 0) ? kept : in_blob, gpu, error);
      scale_diff = ct_blob_mutable_diff_on (scale, gpu, error);
      if (in == NULL || scale_diff == NULL)
        return FALSE;
    }
  if (propagate_down[0])
    {
      s = ct_blob_data_on (scale, gpu, error);
      in_diff = ct_blob_mutable_diff_on (in_blob, gpu, error);
      if (s == NULL || in_diff == NULL)
        return FALSE;
    }
  /* One call: the sums are taken before the bottom's diff, which in place
   * overwrites the top's, is written. */
  return ct_common_check (layer, (gpu ? ct_cuda_scale_bias_backward
                                      : ct_cpu_scale_bias_backward) (
                                     self->outer, self->dim, self->inner, top_diff, in, s,
                                     learned, scale_diff, bias_diff, in_diff), error);
}

static void
scale_finalize (CtLayer *layer)
{
  ct_blob_free (((CtScaleLayer *) layer)->saved);
}

/* A product per element, and the bias. */
static double
scale_flops (const CtNetShapeLayer *l)
{
  return ct_layer_shapes_first_count (l->tops) + ct_layer_shapes_bias (l);
}

static const CtLayerExplanation scale_explanation = {
  .summary = N_("Multiplies by a scale, learned or given as a second bottom, broadcast "
                "over the trailing axes; with bias_term it also adds a bias. It follows "
                "BatchNorm to learn a scale and shift."),
  .formula = N_("y = γ · x (+ β)"),
  .parameters = N_("axis, num_axes: which axes γ spans; filler; bias_term, bias_filler."),
  .gradient = N_("The input's diff is γ times the output's diff; γ's diff is x times the "
                 "output diff, summed over the broadcast axes."),
};

/* In place, the bottom's values come from a copy (its own or the one
 * the layer before keeps); a scale given as bottom 1 is read. */
static gboolean
scale_backward_reads_data (const CtLayer *layer, gboolean is_top, guint index)
{
  if (is_top)
    return FALSE;
  return index > 0 || !ct_layer_in_place (layer, 0);
}

const CtLayerClass ct_scale_layer_class = {
  .explanation = &scale_explanation,
  .type = "Scale",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Multiplies by a learned or given scale, broadcast along the trailing "
                    "axes, optionally adding a bias"),
  .instance_size = sizeof (CtScaleLayer),
  .bottoms = CT_BETWEEN (1, 2),
  .tops = CT_EXACTLY (1),
  .setup = scale_setup,
  .reshape = scale_reshape,
  .forward = scale_forward,
  .backward = scale_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = scale_finalize,
  .new_layer_text = "scale_param { bias_term: true }",
  .usually_in_place = TRUE,
  .flops = scale_flops,
  .backward_reads_data = scale_backward_reads_data,
};
