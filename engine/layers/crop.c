/* crop.c: Crop, Caffe's crop of the first bottom to the shape of the
 * second on every axis from crop_param.axis on, starting at the given
 * offsets (one for all those axes, one per axis, or none: 0). The second
 * bottom only gives the shape; it never receives a gradient, as in Caffe. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "crop.h"
#include "engine-error.h"
#include "vision-private.h"

typedef struct {
  CtLayer parent;
  int start_axis;
  gint64 offsets[CT_BLOB_MAX_AXES];
} CtCropLayer;

static const Caffe__CropParameter *
crop_param (const CtLayer *layer)
{
  static const Caffe__CropParameter defaults = CAFFE__CROP_PARAMETER__INIT;

  return layer->param->crop_param != NULL ? layer->param->crop_param : &defaults;
}

static gboolean
crop_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtCropLayer *self = (CtCropLayer *) layer;
  const Caffe__CropParameter *p = crop_param (layer);
  CtBlob *input = CT_BOTTOM (bottom, 0);
  g_autoptr (GError) local = NULL;
  int n_axes = (int) ct_blob_num_axes (input);

  if (!ct_vision_refuse_in_place (layer, bottom, top, error))
    return FALSE;
  self->start_axis = ct_blob_canonical_axis_index (input, p->axis, &local);
  if (self->start_axis < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, _("crop_param.axis: %s"),
                          local->message);
  if (p->n_offset > 1 && (gsize) (n_axes - self->start_axis) != p->n_offset)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "%u offsets given for the %d axis from axis %d on: give one "
                                       "offset, or one per cropped axis",
                                       "%u offsets given for the %d axes from axis %d on: give one "
                                       "offset, or one per cropped axis", n_axes - self->start_axis),
                          (guint) p->n_offset, n_axes - self->start_axis, self->start_axis);
  return TRUE;
}

static gboolean
crop_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtCropLayer *self = (CtCropLayer *) layer;
  const Caffe__CropParameter *p = crop_param (layer);
  CtBlob *input = CT_BOTTOM (bottom, 0), *like = CT_BOTTOM (bottom, 1);
  guint n_axes = ct_blob_num_axes (input);
  gint64 shape[CT_BLOB_MAX_AXES];
  g_autoptr (GError) local = NULL;

  if ((guint) self->start_axis >= n_axes || ct_blob_num_axes (like) < n_axes)
    {
      g_autofree char *a = ct_blob_shape_string (input);
      g_autofree char *b = ct_blob_shape_string (like);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("cannot crop shape %s from axis %d to shape %s"), a,
                            self->start_axis, b);
    }
  for (guint i = 0; i < n_axes; i++)
    {
      gint64 size = ct_blob_get_shape (input)[i], offset = 0;

      if (i >= (guint) self->start_axis)
        {
          if (p->n_offset == 1)
            offset = p->offset[0];
          else if (p->n_offset > 1)
            offset = p->offset[i - self->start_axis];
          if (ct_blob_get_shape (input)[i] - offset < ct_blob_get_shape (like)[i])
            return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                  _("the crop of axis %u is out of bounds: size %"
                                    PRId64 " at offset %" PRId64
                                    " does not fit in %" PRId64),
                                  i, ct_blob_get_shape (like)[i], offset,
                                  ct_blob_get_shape (input)[i]);
          size = ct_blob_get_shape (like)[i];
        }
      shape[i] = size;
      self->offsets[i] = offset;
    }
  if (!ct_blob_reshape (CT_TOP (top, 0), shape, n_axes, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

static gboolean
crop_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
              GError **error)
{
  CtCropLayer *self = (CtCropLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0), *output = CT_TOP (top, 0);
  const float *in = ct_blob_data_on (input, gpu, error);
  float *out = ct_blob_mutable_data_on (output, gpu, error);

  if (in == NULL || out == NULL)
    return FALSE;
  return ct_vision_check (layer,
                          (gpu ? ct_cuda_crop_forward : ct_cpu_crop_forward) (
                              (int) ct_blob_num_axes (input), ct_blob_get_shape (input),
                              ct_blob_get_shape (output), self->offsets, in, out),
                          _("cropping"), error);
}

static gboolean
crop_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtCropLayer *self = (CtCropLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0), *output = CT_TOP (top, 0);
  const float *out_diff;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  if ((out_diff = ct_blob_diff_on (output, gpu, error)) == NULL
      || (in_diff = ct_blob_mutable_diff_on (input, gpu, error)) == NULL)
    return FALSE;
  if (!ct_vision_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (
                                   ct_blob_count (input), 0.0f, in_diff),
                        _("clearing the bottom diff"), error))
    return FALSE;
  return ct_vision_check (layer,
                          (gpu ? ct_cuda_crop_backward : ct_cpu_crop_backward) (
                              (int) ct_blob_num_axes (input), ct_blob_get_shape (input),
                              ct_blob_get_shape (output), self->offsets, out_diff, in_diff),
                          _("cropping"), error);
}

static const CtLayerExplanation crop_explanation = {
  .summary = N_("Cuts the first bottom down to the shape of the second, from an offset; "
                "used to align maps of different sizes (fully convolutional nets)."),
  .formula = N_("y[i] = x[i + offset]"),
  .parameters = N_("axis: the first axis cropped; offset: where the crop starts on each "
                   "axis."),
  .gradient = N_("The diff goes back to the values kept; the cropped-away values get 0."),
};

const CtLayerClass ct_crop_layer_class = {
  .explanation = &crop_explanation,
  .type = "Crop",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Crop the first input to the shape of the second"),
  .instance_size = sizeof (CtCropLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (1),
  .setup = crop_setup,
  .reshape = crop_reshape,
  .forward = crop_forward,
  .backward = crop_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "crop_param { axis: 2 }",
};
