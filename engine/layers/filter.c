/* filter.c: Filter, which keeps the items (first-axis entries) of each
 * bottom whose selector value is non-zero. The selector is the last bottom,
 * one value per item; top i takes bottom i's kept items. How many are kept
 * depends on the data, so every forward reshapes the tops, as Caffe does by
 * reshaping before each forward. The backward routes the diffs back to the
 * kept items (others get 0); the selector gets none. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "common-device-private.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  gboolean reshaped_once;
  CtMem *kept;           /* indices of the kept items (int64_t) */
  gint64 n_kept;
} CtFilterLayer;

static gboolean
filter_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  if (top->len != bottom->len - 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "needs one top per filtered bottom (all bottoms but the last, "
                                       "the selector): %u bottoms, %u top",
                                       "needs one top per filtered bottom (all bottoms but the last, "
                                       "the selector): %u bottoms, %u tops", top->len),
                          bottom->len, top->len);
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
check_shapes (CtLayer *layer, GPtrArray *bottom, GError **error)
{
  CtBlob *selector = CT_BOTTOM (bottom, bottom->len - 1);
  const gint64 *shape = ct_blob_get_shape (selector);

  if (ct_blob_num_axes (selector) == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the selector (last bottom) needs at least one axis"));
  for (guint i = 1; i < ct_blob_num_axes (selector); i++)
    if (shape[i] != 1)
      {
        g_autofree char *s = ct_blob_shape_string (selector);
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("the selector (last bottom) has shape %s; all its dimensions "
                                "but the first must be 1"), s);
      }
  for (guint i = 0; i + 1 < bottom->len; i++)
    {
      CtBlob *in = CT_BOTTOM (bottom, i);

      if (ct_blob_num_axes (in) == 0 || ct_blob_get_shape (in)[0] != shape[0])
        {
          g_autofree char *s = ct_blob_shape_string (in);
          return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                _("bottom %u has shape %s; its first dimension must be the "
                                  "selector's, %" PRId64), i, s, shape[0]);
        }
    }
  return TRUE;
}

/* Find the kept items from the selector's values, on the GPU when GPU. */
static gboolean
select_items (CtFilterLayer *self, GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBlob *selector = CT_BOTTOM (bottom, bottom->len - 1);
  gint64 n = ct_blob_get_shape (selector)[0];
  const float *values = ct_blob_data_on (selector, gpu, error);
  int64_t *kept;

  if (values == NULL)
    return FALSE;
  ct_common_grow_mem (&self->kept, (gsize) MAX (n, 1) * sizeof (int64_t));
  if ((kept = ct_common_mutable_mem_on (self->kept, gpu, error)) == NULL)
    return FALSE;
  return ct_common_check (&self->parent, (gpu ? ct_cuda_filter_select : ct_cpu_filter_select) (
                                             n, values, kept, &self->n_kept), error);
}

static gboolean
shape_tops (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gint64 n_items, GError **error)
{
  for (guint t = 0; t < top->len; t++)
    {
      CtBlob *in = CT_BOTTOM (bottom, t);
      gint64 dims[CT_BLOB_MAX_AXES];

      memcpy (dims, ct_blob_get_shape (in), ct_blob_num_axes (in) * sizeof (gint64));
      dims[0] = n_items;
      if (!ct_common_reshape_top (layer, CT_TOP (top, t), t, dims, ct_blob_num_axes (in), error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
filter_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtFilterLayer *self = (CtFilterLayer *) layer;

  if (!check_shapes (layer, bottom, error) || !select_items (self, bottom, FALSE, error))
    return FALSE;
  /* The first time, before any data, as many items as the bottoms have. */
  if (!self->reshaped_once)
    {
      self->reshaped_once = TRUE;
      return shape_tops (layer, bottom, top, ct_blob_get_shape (CT_BOTTOM (bottom, 0))[0],
                         error);
    }
  return shape_tops (layer, bottom, top, self->n_kept, error);
}

static gboolean
filter_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                GError **error)
{
  CtFilterLayer *self = (CtFilterLayer *) layer;
  const int64_t *kept;

  if (!select_items (self, bottom, gpu, error)
      || !shape_tops (layer, bottom, top, self->n_kept, error)
      || (kept = ct_common_mem_on (self->kept, gpu, error)) == NULL)
    return FALSE;
  for (guint t = 0; t < top->len; t++)
    {
      CtBlob *in_blob = CT_BOTTOM (bottom, t);
      gint64 row = ct_blob_count_from (in_blob, 1, NULL);
      const float *in = ct_blob_data_on (in_blob, gpu, error);
      float *out = ct_blob_mutable_data_on (CT_TOP (top, t), gpu, error);

      if (in == NULL || out == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_gather_rows : ct_cpu_gather_rows) (
                                       self->n_kept, row, kept, in, out), error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
filter_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                 GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtFilterLayer *self = (CtFilterLayer *) layer;
  const int64_t *kept = ct_common_mem_on (self->kept, gpu, error);

  if (kept == NULL)
    return FALSE;
  /* The selector (last bottom) never gets a gradient. */
  for (guint t = 0; t < top->len; t++)
    {
      CtBlob *in_blob = CT_BOTTOM (bottom, t);
      gint64 row = ct_blob_count_from (in_blob, 1, NULL);
      const float *top_diff;
      float *in_diff;

      if (!propagate_down[t])
        continue;
      top_diff = ct_blob_diff_on (CT_TOP (top, t), gpu, error);
      in_diff = ct_blob_mutable_diff_on (in_blob, gpu, error);
      if (top_diff == NULL || in_diff == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (ct_blob_count (in_blob),
                                                                     0.0f, in_diff), error)
          || !ct_common_check (layer,
                               (gpu ? ct_cuda_scatter_add_rows : ct_cpu_scatter_add_rows) (
                                   self->n_kept, row, kept, top_diff, in_diff), error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
filter_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  const Caffe__LayerParameter *p = layer->param;

  return bottom_index + 1 < p->n_bottom;
}

static void
filter_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtFilterLayer *) layer)->kept, ct_mem_unref);
}

static const CtLayerExplanation filter_explanation = {
  .summary = N_("Keeps the items of its bottoms whose selector (the last bottom) is "
                "non-zero."),
  .formula = N_("y = the items n of x with selector[n] ≠ 0"),
  .parameters = N_("None; the selector is the last bottom."),
  .gradient = N_("The kept items get their diffs back; the dropped items get 0."),
};

const CtLayerClass ct_filter_layer_class = {
  .explanation = &filter_explanation,
  .type = "Filter",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Keeps the items whose selector value (last bottom) is non-zero"),
  .instance_size = sizeof (CtFilterLayer),
  .bottoms = CT_AT_LEAST (2),
  .tops = CT_AT_LEAST (1),
  .setup = filter_setup,
  .reshape = filter_reshape,
  .forward = filter_forward,
  .backward = filter_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = filter_allow_force_backward,
  .finalize = filter_finalize,
};
