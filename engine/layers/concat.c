/* concat.c: Concat, the bottoms joined along one axis (`axis`, or the
 * legacy non-negative `concat_dim`); all other dimensions must agree. The
 * backward hands each bottom its part of the top's diff. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  int axis;
  gint64 outer, inner;
} CtConcatLayer;

static const Caffe__ConcatParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ConcatParameter defaults = CAFFE__CONCAT_PARAMETER__INIT;

  return layer->param->concat_param != NULL ? layer->param->concat_param : &defaults;
}

static gboolean
concat_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__ConcatParameter *p = get_param (layer);

  if (p->has_axis && p->has_concat_dim)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("give either axis or concat_dim, not both"));
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
check_bottom (CtLayer *layer, CtBlob *first, CtBlob *other, guint index, int axis,
              GError **error)
{
  gboolean ok = ct_blob_num_axes (first) == ct_blob_num_axes (other);

  for (guint j = 0; ok && j < ct_blob_num_axes (first); j++)
    if ((int) j != axis && ct_blob_get_shape (first)[j] != ct_blob_get_shape (other)[j])
      ok = FALSE;
  if (!ok)
    {
      g_autofree char *shape = ct_blob_shape_string (other);
      g_autofree char *first_shape = ct_blob_shape_string (first);
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("bottom %u has shape %s, which does not match bottom 0's "
                              "shape %s outside the concatenation axis %d"),
                            index, shape, first_shape, axis);
    }
  return TRUE;
}

static gboolean
concat_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtConcatLayer *self = (CtConcatLayer *) layer;
  const Caffe__ConcatParameter *p = get_param (layer);
  CtBlob *first = CT_BOTTOM (bottom, 0);
  guint n_axes = ct_blob_num_axes (first);
  gint64 dims[CT_BLOB_MAX_AXES];

  if (p->has_concat_dim)
    {
      if (p->concat_dim >= n_axes)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "concat_dim %u is out of range for bottom 0 with %u axis",
                                           "concat_dim %u is out of range for bottom 0 with %u axes",
                                           n_axes),
                              p->concat_dim, n_axes);
      self->axis = (int) p->concat_dim;
    }
  else
    {
      self->axis = ct_common_axis (layer, first, p->axis, error);
      if (self->axis < 0)
        return FALSE;
    }

  memcpy (dims, ct_blob_get_shape (first), n_axes * sizeof (gint64));
  for (guint i = 1; i < bottom->len; i++)
    {
      if (!check_bottom (layer, first, CT_BOTTOM (bottom, i), i, self->axis, error))
        return FALSE;
      dims[self->axis] += ct_blob_get_shape (CT_BOTTOM (bottom, i))[self->axis];
    }
  self->outer = ct_blob_count_range (first, 0, self->axis, NULL);
  self->inner = ct_blob_count_from (first, self->axis + 1, NULL);
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, n_axes, error);
}

static gboolean
concat_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                GError **error)
{
  CtConcatLayer *self = (CtConcatLayer *) layer;
  CtBlob *out_blob = CT_TOP (top, 0);
  float *out = ct_blob_mutable_data_on (out_blob, gpu, error);
  gint64 top_axis = ct_blob_get_shape (out_blob)[self->axis];
  gint64 offset = 0;

  if (out == NULL)
    return FALSE;
  for (guint i = 0; i < bottom->len; i++)
    {
      CtBlob *in_blob = CT_BOTTOM (bottom, i);
      const float *in = ct_blob_data_on (in_blob, gpu, error);
      gint64 axis_dim = ct_blob_get_shape (in_blob)[self->axis];

      if (in == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_copy_blocks : ct_cpu_copy_blocks) (
                                       self->outer, axis_dim * self->inner,
                                       in, axis_dim * self->inner,
                                       out + offset * self->inner,
                                       top_axis * self->inner), error))
        return FALSE;
      offset += axis_dim;
    }
  return TRUE;
}

static gboolean
concat_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                 GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtConcatLayer *self = (CtConcatLayer *) layer;
  CtBlob *out_blob = CT_TOP (top, 0);
  const float *top_diff = ct_blob_diff_on (out_blob, gpu, error);
  gint64 top_axis = ct_blob_get_shape (out_blob)[self->axis];
  gint64 offset = 0;

  if (top_diff == NULL)
    return FALSE;
  for (guint i = 0; i < bottom->len; i++)
    {
      CtBlob *in_blob = CT_BOTTOM (bottom, i);
      gint64 axis_dim = ct_blob_get_shape (in_blob)[self->axis];

      if (propagate_down[i])
        {
          float *in_diff = ct_blob_mutable_diff_on (in_blob, gpu, error);

          if (in_diff == NULL)
            return FALSE;
          if (!ct_common_check (layer, (gpu ? ct_cuda_copy_blocks : ct_cpu_copy_blocks) (
                                           self->outer, axis_dim * self->inner,
                                           top_diff + offset * self->inner,
                                           top_axis * self->inner,
                                           in_diff, axis_dim * self->inner), error))
            return FALSE;
        }
      offset += axis_dim;
    }
  return TRUE;
}

static const CtLayerExplanation concat_explanation = {
  .summary = N_("Joins its bottoms one after another along one axis (channels by "
                "default), as Inception modules join their branches."),
  .formula = N_("y = [x₁, x₂, …] along axis"),
  .parameters = N_("axis: the axis joined along (1, channels, by default)."),
  .gradient = N_("The output diff is cut into pieces, each going back to the bottom it "
                 "came from."),
};

const CtLayerClass ct_concat_layer_class = {
  .explanation = &concat_explanation,
  .type = "Concat",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Joins its bottoms along one axis"),
  .instance_size = sizeof (CtConcatLayer),
  .bottoms = CT_AT_LEAST (1),
  .tops = CT_EXACTLY (1),
  .setup = concat_setup,
  .reshape = concat_reshape,
  .forward = concat_forward,
  .backward = concat_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .name_prefix = "concat",
  .backward_reads_data = ct_layer_backward_reads_nothing,
};
