/* loss-common.c: the parts of Caffe's LossLayer that every loss type
 * shares; see loss-common-private.h. */
#include <glib/gi18n-lib.h>

#include "loss-common-private.h"
#include "engine-error.h"
#include "loss.h"

gboolean
ct_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBlob *data = CT_BOTTOM (bottom, 0), *label = CT_BOTTOM (bottom, 1);

  if (ct_blob_num_axes (data) == 0 || ct_blob_num_axes (label) == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the data and label bottoms need at least one axis"));
  if (ct_blob_get_shape (data)[0] != ct_blob_get_shape (label)[0])
    {
      g_autofree char *a = ct_blob_shape_string (data);
      g_autofree char *b = ct_blob_shape_string (label);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the data (%s) and label (%s) bottoms must have the same "
                              "first dimension"), a, b);
    }
  return ct_blob_reshape (CT_TOP (top, 0), NULL, 0, error);
}

gboolean
ct_loss_normalization (const CtLayer *layer, Caffe__LossParameter__NormalizationMode fallback,
                       Caffe__LossParameter__NormalizationMode *mode, GError **error)
{
  const Caffe__LossParameter *p = layer->param->loss_param;

  if (p != NULL && p->has_normalization)
    *mode = p->normalization;
  else if (p != NULL && p->has_normalize)
    *mode = p->normalize ? CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID
                         : CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE;
  else
    *mode = fallback;

  switch (*mode)
    {
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL:
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID:
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE:
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE:
      return TRUE;
    default:
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                            _("unknown loss_param normalization mode %d"), (int) *mode);
    }
}

float
ct_loss_normalizer (Caffe__LossParameter__NormalizationMode mode,
                    gint64 outer, gint64 inner, gint64 valid)
{
  float normalizer;

  switch (mode)
    {
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL:
      normalizer = (float) (outer * inner);
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID:
      normalizer = (float) (valid == -1 ? outer * inner : valid);
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE:
      normalizer = (float) outer;
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE:
    default:
      normalizer = 1.0f;
      break;
    }
  return MAX (1.0f, normalizer);
}

gboolean
ct_loss_ignore_label (const CtLayer *layer, int *ignore_label)
{
  const Caffe__LossParameter *p = layer->param->loss_param;

  if (p == NULL || !p->has_ignore_label)
    return FALSE;
  *ignore_label = p->ignore_label;
  return TRUE;
}

gboolean
ct_loss_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return bottom_index != 1;
}

gboolean
ct_loss_refuse_gradient (const CtLayer *layer, GPtrArray *bottom,
                         const gboolean *propagate_down, guint index,
                         const char *what, GError **error)
{
  if (index < bottom->len && propagate_down[index])
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("cannot backpropagate to its %s (bottom %u)"), what, index);
  return TRUE;
}

gboolean
ct_loss_check_labels (const CtLayer *layer, CtBlob *labels, gboolean gpu, gint64 n,
                      gint64 n_classes, gboolean has_ignore, int ignore_label,
                      GError **error)
{
  const float *data = ct_blob_data_on (labels, gpu, error);
  gint64 bad = -1;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  CtStatus status;

  if (data == NULL)
    return FALSE;
  status = (gpu ? ct_cuda_check_labels : ct_cpu_check_labels) (n, data, n_classes, has_ignore,
                                                                ignore_label, &bad);
  if (status == CT_STATUS_OK)
    return TRUE;
  /* The GPU may fail for reasons of its own; only INVALID is about labels. */
  if (status != CT_STATUS_INVALID)
    return ct_loss_check_status (layer, status, error);
  /* The message shows the label itself: read it where the host can. */
  if (bad >= 0 && (data = ct_blob_cpu_data (labels, error)) == NULL)
    return FALSE;
  if (bad < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          g_dngettext (GETTEXT_PACKAGE, "cannot check %lld label against %lld classes",
                                       "cannot check %lld labels against %lld classes", n),
                          (long long) n, (long long) n_classes);
  g_ascii_formatd (value, sizeof value, "%.9g", data[bad]);
  if (has_ignore)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("label %s at index %lld is outside [0, %lld) and is not "
                            "the ignore_label %d"),
                          value, (long long) bad, (long long) n_classes, ignore_label);
  return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                        _("label %s at index %lld is outside [0, %lld)"),
                        value, (long long) bad, (long long) n_classes);
}

gboolean
ct_loss_check_status (const CtLayer *layer, CtStatus status, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (ct_engine_check_status (status, _("Computing the loss"), &local))
    return TRUE;
  return ct_layer_fail (layer, error, local->code, "%s", local->message);
}
