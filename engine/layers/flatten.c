/* flatten.c: Flatten, axes `axis` to `end_axis` (inclusive) merged into
 * one. The top shares the bottom's data and diff, as in Caffe, so forward
 * and backward have nothing to move. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common-private.h"

static const Caffe__FlattenParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__FlattenParameter defaults = CAFFE__FLATTEN_PARAMETER__INIT;

  return layer->param->flatten_param != NULL ? layer->param->flatten_param : &defaults;
}

static gboolean
flatten_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_common_not_in_place (layer, bottom, top, error);
}

/* Share BOTTOM's data and diff with TOP, already shaped to its count. */
static gboolean
share_all (CtLayer *layer, CtBlob *top, CtBlob *bottom, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (!ct_blob_share_data (top, bottom, &local) || !ct_blob_share_diff (top, bottom, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

static gboolean
flatten_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__FlattenParameter *p = get_param (layer);
  CtBlob *in = CT_BOTTOM (bottom, 0);
  const gint64 *shape = ct_blob_get_shape (in);
  guint n_axes = ct_blob_num_axes (in);
  gint64 dims[CT_BLOB_MAX_AXES];
  guint n = 0;
  int start = ct_common_axis (layer, in, p->axis, error);
  int end = start < 0 ? -1 : ct_common_axis (layer, in, p->end_axis, error);

  if (start < 0 || end < 0)
    return FALSE;
  if (end < start)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("end_axis %d comes before axis %d"), end, start);
  for (int i = 0; i < start; i++)
    dims[n++] = shape[i];
  dims[n++] = ct_blob_count_range (in, start, end + 1, NULL);
  for (guint i = (guint) end + 1; i < n_axes; i++)
    dims[n++] = shape[i];
  if (!ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, n, error))
    return FALSE;
  return share_all (layer, CT_TOP (top, 0), in, error);
}

static const CtLayerExplanation flatten_explanation = {
  .summary = N_("Merges a range of axes into one (C × H × W into one long vector) without "
                "changing the values."),
  .formula = N_("y[n, i] = x[n, c, h, w] with i = (c · H + h) · W + w"),
  .parameters = N_("axis, end_axis: the axes merged."),
  .gradient = N_("The diff is reshaped back; the values are unchanged."),
};

const CtLayerClass ct_flatten_layer_class = {
  .explanation = &flatten_explanation,
  .type = "Flatten",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Merges a range of axes into one, keeping the values"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = flatten_setup,
  .reshape = flatten_reshape,
  .forward = ct_common_nothing_forward,
  .backward = ct_common_nothing_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
};
