/* slice.c: Slice, the bottom cut along one axis (`axis`, or the legacy
 * non-negative `slice_dim`) into the tops: at the given slice points, or
 * into equal parts when none are given. The backward puts each top's diff
 * back in its place. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  int axis;
  gint64 outer, inner;
} CtSliceLayer;

static const Caffe__SliceParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__SliceParameter defaults = CAFFE__SLICE_PARAMETER__INIT;

  return layer->param->slice_param != NULL ? layer->param->slice_param : &defaults;
}

static gboolean
slice_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__SliceParameter *p = get_param (layer);

  if (p->has_axis && p->has_slice_dim)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("give either axis or slice_dim, not both"));
  return ct_common_not_in_place (layer, bottom, top, error);
}

/* The size of each top along the axis, into SIZES (top->len entries). */
static gboolean
slice_sizes (CtLayer *layer, gint64 axis_dim, guint n_tops, gint64 *sizes, GError **error)
{
  const Caffe__SliceParameter *p = get_param (layer);
  gint64 previous = 0;

  if (p->n_slice_point == 0)
    {
      if (axis_dim % n_tops != 0)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("%u tops do not divide the slice axis of size %" PRId64
                                " evenly; give slice_point values"), n_tops, axis_dim);
      for (guint i = 0; i < n_tops; i++)
        sizes[i] = axis_dim / n_tops;
      return TRUE;
    }
  if (p->n_slice_point != n_tops - 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "has %u slice_point value for %u tops; give one fewer than the "
                                       "tops",
                                       "has %u slice_point values for %u tops; give one fewer than the "
                                       "tops", p->n_slice_point),
                          (guint) p->n_slice_point, n_tops);
  for (guint i = 0; i <= p->n_slice_point; i++)
    {
      gint64 point = i < p->n_slice_point ? (gint64) p->slice_point[i] : axis_dim;

      if (point <= previous || point > axis_dim)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("slice points must increase strictly and stay inside the "
                                "slice axis of size %" PRId64 " (0 < %"
                                PRId64 " < ... < %" PRId64 ")"),
                              axis_dim, (gint64) p->slice_point[0], axis_dim);
      sizes[i] = point - previous;
      previous = point;
    }
  return TRUE;
}

static gboolean
slice_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSliceLayer *self = (CtSliceLayer *) layer;
  const Caffe__SliceParameter *p = get_param (layer);
  CtBlob *in = CT_BOTTOM (bottom, 0);
  guint n_axes = ct_blob_num_axes (in);
  g_autofree gint64 *sizes = g_new (gint64, top->len);
  gint64 dims[CT_BLOB_MAX_AXES];

  if (p->has_slice_dim)
    {
      if (p->slice_dim >= n_axes)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "slice_dim %u is out of range for a bottom with %u axis",
                                           "slice_dim %u is out of range for a bottom with %u axes",
                                           n_axes),
                              p->slice_dim, n_axes);
      self->axis = (int) p->slice_dim;
    }
  else
    {
      self->axis = ct_common_axis (layer, in, p->axis, error);
      if (self->axis < 0)
        return FALSE;
    }
  if (!slice_sizes (layer, ct_blob_get_shape (in)[self->axis], top->len, sizes, error))
    return FALSE;

  self->outer = ct_blob_count_range (in, 0, self->axis, NULL);
  self->inner = ct_blob_count_from (in, self->axis + 1, NULL);
  memcpy (dims, ct_blob_get_shape (in), n_axes * sizeof (gint64));
  for (guint i = 0; i < top->len; i++)
    {
      dims[self->axis] = sizes[i];
      if (!ct_common_reshape_top (layer, CT_TOP (top, i), i, dims, n_axes, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
slice_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
               GError **error)
{
  CtSliceLayer *self = (CtSliceLayer *) layer;
  CtBlob *in_blob = CT_BOTTOM (bottom, 0);
  const float *in = ct_blob_data_on (in_blob, gpu, error);
  gint64 bottom_axis = ct_blob_get_shape (in_blob)[self->axis];
  gint64 offset = 0;

  if (in == NULL)
    return FALSE;
  for (guint i = 0; i < top->len; i++)
    {
      CtBlob *out_blob = CT_TOP (top, i);
      float *out = ct_blob_mutable_data_on (out_blob, gpu, error);
      gint64 axis_dim = ct_blob_get_shape (out_blob)[self->axis];

      if (out == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_copy_blocks : ct_cpu_copy_blocks) (
                                       self->outer, axis_dim * self->inner,
                                       in + offset * self->inner, bottom_axis * self->inner,
                                       out, axis_dim * self->inner), error))
        return FALSE;
      offset += axis_dim;
    }
  return TRUE;
}

static gboolean
slice_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtSliceLayer *self = (CtSliceLayer *) layer;
  CtBlob *in_blob = CT_BOTTOM (bottom, 0);
  gint64 bottom_axis = ct_blob_get_shape (in_blob)[self->axis];
  gint64 offset = 0;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  in_diff = ct_blob_mutable_diff_on (in_blob, gpu, error);
  if (in_diff == NULL)
    return FALSE;
  for (guint i = 0; i < top->len; i++)
    {
      CtBlob *out_blob = CT_TOP (top, i);
      const float *top_diff = ct_blob_diff_on (out_blob, gpu, error);
      gint64 axis_dim = ct_blob_get_shape (out_blob)[self->axis];

      if (top_diff == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_copy_blocks : ct_cpu_copy_blocks) (
                                       self->outer, axis_dim * self->inner,
                                       top_diff, axis_dim * self->inner,
                                       in_diff + offset * self->inner,
                                       bottom_axis * self->inner), error))
        return FALSE;
      offset += axis_dim;
    }
  return TRUE;
}

static const CtLayerExplanation slice_explanation = {
  .summary = N_("Cuts its bottom into several tops along one axis, at given points or in "
                "equal parts."),
  .formula = N_("y_k = x[slice k] along axis"),
  .parameters = N_("axis: the axis cut; slice_point: where the cuts are."),
  .gradient = N_("The tops' diffs are put back side by side into the bottom's diff."),
};

const CtLayerClass ct_slice_layer_class = {
  .explanation = &slice_explanation,
  .type = "Slice",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Cuts its bottom along one axis into several tops"),
  .instance_size = sizeof (CtSliceLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_AT_LEAST (1),
  .setup = slice_setup,
  .reshape = slice_reshape,
  .forward = slice_forward,
  .backward = slice_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
};
