/* reshape.c: Reshape, a new shape for the same values. reshape_param's
 * shape replaces bottom axes [axis, axis + num_axes) (all of them by
 * default); a 0 copies the bottom's dimension at that place and one -1 is
 * inferred from the count. The top shares the bottom's data and diff, as in
 * Caffe. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  int inferred_axis;     /* index in the new shape of the -1, or -1 */
  gint64 constant_count; /* product of the given positive dimensions */
} CtReshapeLayer;

static const Caffe__ReshapeParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ReshapeParameter defaults = CAFFE__RESHAPE_PARAMETER__INIT;

  return layer->param->reshape_param != NULL ? layer->param->reshape_param : &defaults;
}

static gboolean
reshape_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtReshapeLayer *self = (CtReshapeLayer *) layer;
  const Caffe__BlobShape *shape = get_param (layer)->shape;
  guint n = shape != NULL ? (guint) shape->n_dim : 0;

  if (!ct_common_not_in_place (layer, bottom, top, error))
    return FALSE;
  if (n > CT_BLOB_MAX_AXES)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the new shape has %u axes, more than %d"), n, CT_BLOB_MAX_AXES);
  self->inferred_axis = -1;
  self->constant_count = 1;
  for (guint i = 0; i < n; i++)
    {
      gint64 dim = shape->dim[i];

      if (dim == -1)
        {
          if (self->inferred_axis >= 0)
            return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                  _("the new shape has more than one -1; at most one "
                                    "dimension can be inferred"));
          self->inferred_axis = (int) i;
        }
      else if (dim < -1)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("dimension %u of the new shape is %" PRId64
                                "; use a positive size, 0 to copy or -1 to infer"), i, dim);
      else if (dim > 0)
        {
          if (self->constant_count > G_MAXINT64 / dim)
            return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OVERFLOW,
                                  _("the new shape has too many elements"));
          self->constant_count *= dim;
        }
    }
  return TRUE;
}

/* The replaced range [*START, *END) of the bottom's axes. */
static gboolean
replaced_axes (CtLayer *layer, guint n_axes, int *start, int *end, GError **error)
{
  const Caffe__ReshapeParameter *p = get_param (layer);
  int first = p->axis >= 0 ? p->axis : (int) n_axes + p->axis + 1;

  if (first < 0 || first > (int) n_axes)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          g_dngettext (GETTEXT_PACKAGE, "axis %d is out of range for a bottom with %u axis",
                                       "axis %d is out of range for a bottom with %u axes", n_axes),
                          p->axis, n_axes);
  if (p->num_axes < -1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("num_axes must be non-negative, or -1 for all axes from axis; "
                            "got %d"), p->num_axes);
  *start = first;
  *end = p->num_axes == -1 ? (int) n_axes : first + p->num_axes;
  if (*end > (int) n_axes)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "axis %d with num_axes %d reaches past the bottom's %u axis",
                                       "axis %d with num_axes %d reaches past the bottom's %u axes",
                                       n_axes),
                          p->axis, p->num_axes, n_axes);
  return TRUE;
}

static gboolean
reshape_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtReshapeLayer *self = (CtReshapeLayer *) layer;
  const Caffe__BlobShape *shape = get_param (layer)->shape;
  guint n_new = shape != NULL ? (guint) shape->n_dim : 0;
  CtBlob *in = CT_BOTTOM (bottom, 0);
  const gint64 *in_shape = ct_blob_get_shape (in);
  guint n_axes = ct_blob_num_axes (in);
  gint64 dims[CT_BLOB_MAX_AXES];
  gint64 explicit_count = self->constant_count;
  int start = 0, end = 0;
  guint n = 0;
  g_autoptr (GError) local = NULL;

  if (!replaced_axes (layer, n_axes, &start, &end, error))
    return FALSE;
  if (n_axes - (guint) (end - start) + n_new > CT_BLOB_MAX_AXES)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the top would have more than %d axes"), CT_BLOB_MAX_AXES);

  for (int i = 0; i < start; i++)
    dims[n++] = in_shape[i];
  for (guint i = 0; i < n_new; i++)
    {
      gint64 dim = shape->dim[i];

      if (dim == 0)
        {
          if ((guint) start + i >= n_axes)
            return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                  _("dimension %u of the new shape is 0, but the bottom has "
                                    "no axis %u to copy"), i, start + i);
          dim = in_shape[start + i];
          if (__builtin_mul_overflow (explicit_count, dim, &explicit_count))
            explicit_count = -1;
        }
      dims[n++] = dim;
    }
  for (guint i = (guint) end; i < n_axes; i++)
    dims[n++] = in_shape[i];
  /* The bottom's count bounds every honest product; -1 marks an overflow. */
  if (explicit_count < 0
      || __builtin_mul_overflow (explicit_count, ct_blob_count_range (in, 0, start, NULL),
                                 &explicit_count)
      || __builtin_mul_overflow (explicit_count, ct_blob_count_from (in, end, NULL),
                                 &explicit_count))
    explicit_count = -1;

  if (self->inferred_axis >= 0)
    {
      if (explicit_count <= 0 || ct_blob_count (in) % explicit_count != 0)
        {
          g_autofree char *in_string = ct_blob_shape_string (in);
          return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                _("the bottom's count (%s) is not divisible by the product "
                                  "of the given dimensions (%" PRId64 ")"),
                                in_string, explicit_count);
        }
      dims[start + self->inferred_axis] = ct_blob_count (in) / explicit_count;
    }
  if (!ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, n, error))
    return FALSE;
  if (ct_blob_count (CT_TOP (top, 0)) != ct_blob_count (in))
    {
      g_autofree char *in_string = ct_blob_shape_string (in);
      g_autofree char *out_string = ct_blob_shape_string (CT_TOP (top, 0));
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the new shape %s does not hold as many values as the "
                              "bottom's %s"), out_string, in_string);
    }
  if (!ct_blob_share_data (CT_TOP (top, 0), in, &local)
      || !ct_blob_share_diff (CT_TOP (top, 0), in, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

static const CtLayerExplanation reshape_explanation = {
  .summary = N_("Gives the values a new shape with the same count; 0 copies a dimension "
                "of the bottom, −1 is inferred."),
  .formula = N_("y = x with a new shape"),
  .parameters = N_("shape: the new dimensions; axis, num_axes: the part of the shape "
                   "replaced."),
  .gradient = N_("The diff gets the bottom's shape back; the values are unchanged."),
};

const CtLayerClass ct_reshape_layer_class = {
  .explanation = &reshape_explanation,
  .type = "Reshape",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Gives the values a new shape (0 copies a dimension, -1 infers one)"),
  .instance_size = sizeof (CtReshapeLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = reshape_setup,
  .reshape = reshape_reshape,
  .forward = ct_common_nothing_forward,
  .backward = ct_common_nothing_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "reshape_param { shape { dim: 0 dim: -1 } }",
};
