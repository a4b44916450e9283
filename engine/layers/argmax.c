/* argmax.c: ArgMax, the indices (or with out_max_val the values) of the
 * top_k largest values, per item over all of its values, or along `axis`.
 * Without an axis the top is N x 1 x top_k (N x 2 x top_k with the values
 * after the indices), padded with 1s to the bottom's number of axes, as in
 * Caffe. Not differentiable: there is no backward. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  int axis;                 /* -1 without has_axis */
  gint64 num, dim, axis_dist, top_k;
  float *scratch_val;
  gint64 *scratch_idx;
  gsize val_capacity, idx_capacity;
} CtArgMaxLayer;

static const Caffe__ArgMaxParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ArgMaxParameter defaults = CAFFE__ARG_MAX_PARAMETER__INIT;

  return layer->param->argmax_param != NULL ? layer->param->argmax_param : &defaults;
}

static gboolean
argmax_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  if (get_param (layer)->top_k < 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, _("top_k must be at least 1"));
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
argmax_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtArgMaxLayer *self = (CtArgMaxLayer *) layer;
  const Caffe__ArgMaxParameter *p = get_param (layer);
  CtBlob *in = CT_BOTTOM (bottom, 0);
  guint n_axes = ct_blob_num_axes (in);
  gint64 dims[CT_BLOB_MAX_AXES];
  guint n_top = MAX (n_axes, 3);

  self->top_k = p->top_k;
  if (n_axes == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("needs a bottom with at least one axis"));
  if (p->has_axis)
    {
      self->axis = ct_common_axis (layer, in, p->axis, error);
      if (self->axis < 0)
        return FALSE;
      self->dim = ct_blob_get_shape (in)[self->axis];
      self->axis_dist = ct_blob_count_from (in, self->axis + 1, NULL);
      if (self->top_k > self->dim)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("top_k %" PRId64 " is larger than axis %d's size %"
                                PRId64), self->top_k, self->axis, self->dim);
      memcpy (dims, ct_blob_get_shape (in), n_axes * sizeof (gint64));
      dims[self->axis] = self->top_k;
      n_top = n_axes;
    }
  else
    {
      self->axis = -1;
      self->dim = ct_blob_count_from (in, 1, NULL);
      self->axis_dist = 1;
      if (self->top_k > self->dim)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "top_k %" PRId64 " is larger than the %" PRId64
                                           " value of each item",
                                           "top_k %" PRId64 " is larger than the %" PRId64
                                           " values of each item", self->dim),
                              self->top_k, self->dim);
      for (guint i = 0; i < n_top; i++)
        dims[i] = 1;
      dims[0] = ct_blob_get_shape (in)[0];
      dims[1] = p->out_max_val ? 2 : 1;
      dims[2] = self->top_k;
    }
  self->num = self->dim > 0 ? ct_blob_count (in) / self->dim : 0;
  ct_common_grow ((gpointer *) &self->scratch_val, &self->val_capacity, (gsize) self->top_k,
                  sizeof (float));
  ct_common_grow ((gpointer *) &self->scratch_idx, &self->idx_capacity, (gsize) self->top_k,
                  sizeof (gint64));
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, n_top, error);
}

static gboolean
argmax_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                GError **error)
{
  CtArgMaxLayer *self = (CtArgMaxLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);

  if (in == NULL || out == NULL)
    return FALSE;
  if (self->num == 0)
    return TRUE;
  return ct_common_check (layer, (gpu ? ct_cuda_argmax : ct_cpu_argmax) (
                                     self->num, self->dim, self->axis_dist, self->top_k,
                                     self->axis >= 0, get_param (layer)->out_max_val, in, out,
                                     self->scratch_val, self->scratch_idx), error);
}

static gboolean
argmax_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return FALSE;
}

static void
argmax_finalize (CtLayer *layer)
{
  CtArgMaxLayer *self = (CtArgMaxLayer *) layer;

  g_free (self->scratch_val);
  g_free (self->scratch_idx);
}

static const CtLayerExplanation argmax_explanation = {
  .summary = N_("Gives, for each item, the indices of its k largest values (the predicted "
                "classes), and optionally the values."),
  .formula = N_("y[n] = index of the largest x[n, i]"),
  .parameters = N_("top_k: how many; out_max_val: also output the values; axis."),
  .gradient = N_("An index is not differentiable: no diff flows back."),
};

const CtLayerClass ct_argmax_layer_class = {
  .explanation = &argmax_explanation,
  .type = "ArgMax",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Indices (or values) of the largest values, per item or along an axis"),
  .instance_size = sizeof (CtArgMaxLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = argmax_setup,
  .reshape = argmax_reshape,
  .forward = argmax_forward,
  .allow_force_backward = argmax_allow_force_backward,
  .finalize = argmax_finalize,
  .gpu_forward = TRUE,
  .param_field = "argmax_param",
};
