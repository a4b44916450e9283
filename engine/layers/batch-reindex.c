/* batch-reindex.c: BatchReindex, a new batch made of the first bottom's
 * items in the order the second bottom (a 1-D blob of item indices) gives,
 * repeats allowed. The backward adds each top item's diff into the item it
 * came from; the indices get no gradient. Indices are data: a bad one fails
 * the forward with an error naming it. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "common-device-private.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  CtMem *rows; /* the indices as rows of bottom 0 (int64_t) */
} CtBatchReindexLayer;

static gboolean
batch_reindex_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
batch_reindex_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBatchReindexLayer *self = (CtBatchReindexLayer *) layer;
  CtBlob *in = CT_BOTTOM (bottom, 0);
  CtBlob *order = CT_BOTTOM (bottom, 1);
  gint64 dims[CT_BLOB_MAX_AXES];

  if (ct_blob_num_axes (order) != 1)
    {
      g_autofree char *s = ct_blob_shape_string (order);
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the indices (bottom 1) must have one axis; their shape is %s"), s);
    }
  if (ct_blob_num_axes (in) == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("bottom 0 needs at least one axis"));
  memcpy (dims, ct_blob_get_shape (in), ct_blob_num_axes (in) * sizeof (gint64));
  dims[0] = ct_blob_count (order);
  ct_common_grow_mem (&self->rows, (gsize) MAX (dims[0], 1) * sizeof (int64_t));
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, ct_blob_num_axes (in), error);
}

/* The indices as rows of bottom 0, checked, on the device the layer runs
 * on; NULL with an error naming a bad one. */
static const int64_t *
read_rows (CtBatchReindexLayer *self, GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBlob *order = CT_BOTTOM (bottom, 1);
  gint64 n_items = ct_blob_get_shape (CT_BOTTOM (bottom, 0))[0];
  const float *values = ct_blob_data_on (order, gpu, error);
  int64_t *rows;
  gint64 bad = 0;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  CtStatus status;

  if (values == NULL || (rows = ct_common_mutable_mem_on (self->rows, gpu, error)) == NULL)
    return NULL;
  /* As Caffe: any value in [0, items) is accepted and truncated. */
  status = (gpu ? ct_cuda_float_indices : ct_cpu_float_indices) (ct_blob_count (order), values,
                                                                 n_items, FALSE, rows, &bad);
  if (status == CT_STATUS_OK)
    return rows;
  if (status != CT_STATUS_INVALID)
    {
      ct_common_check (&self->parent, status, error);
      return NULL;
    }
  /* The bad value itself, for the message, from the CPU copy. */
  if ((values = ct_blob_cpu_data (order, error)) == NULL)
    return NULL;
  g_ascii_formatd (value, sizeof value, "%.9g", values[bad]);
  ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                 _("index %" PRId64 " is %s; indices must lie in [0, %"
                   PRId64 "), the batch size of bottom 0"),
                 bad, value, n_items);
  return NULL;
}

static gboolean
batch_reindex_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                       GError **error)
{
  CtBatchReindexLayer *self = (CtBatchReindexLayer *) layer;
  CtBlob *in_blob = CT_BOTTOM (bottom, 0);
  const float *in = ct_blob_data_on (in_blob, gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);
  const int64_t *rows;

  if (in == NULL || out == NULL || (rows = read_rows (self, bottom, gpu, error)) == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_gather_rows : ct_cpu_gather_rows) (
                                     ct_blob_count (CT_BOTTOM (bottom, 1)),
                                     ct_blob_count_from (in_blob, 1, NULL), rows, in, out),
                          error);
}

static gboolean
batch_reindex_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                        GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBatchReindexLayer *self = (CtBatchReindexLayer *) layer;
  CtBlob *in_blob = CT_BOTTOM (bottom, 0);
  const float *top_diff;
  const int64_t *rows;
  float *in_diff;

  /* Bottom 1, the indices, never gets a gradient. */
  if (!propagate_down[0])
    return TRUE;
  top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  in_diff = ct_blob_mutable_diff_on (in_blob, gpu, error);
  if (top_diff == NULL || in_diff == NULL
      || (rows = read_rows (self, bottom, gpu, error)) == NULL)
    return FALSE;
  if (!ct_common_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (ct_blob_count (in_blob), 0.0f,
                                                                 in_diff), error))
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_scatter_add_rows : ct_cpu_scatter_add_rows) (
                                     ct_blob_count (CT_BOTTOM (bottom, 1)),
                                     ct_blob_count_from (in_blob, 1, NULL), rows, top_diff,
                                     in_diff), error);
}

static gboolean
batch_reindex_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return bottom_index == 0;
}

static void
batch_reindex_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtBatchReindexLayer *) layer)->rows, ct_mem_unref);
}

static const CtLayerExplanation batch_reindex_explanation = {
  .summary = N_("Reorders or repeats the items of a batch by a list of indices."),
  .formula = N_("y[k] = x[index[k]]"),
  .parameters = N_("None; the indices are the second bottom."),
  .gradient = N_("Each item's diff is the sum of the diffs of the places it was copied to."),
};

const CtLayerClass ct_batch_reindex_layer_class = {
  .explanation = &batch_reindex_explanation,
  .type = "BatchReindex",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Reorders (or repeats) the items of a batch by a list of indices"),
  .instance_size = sizeof (CtBatchReindexLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (1),
  .setup = batch_reindex_setup,
  .reshape = batch_reindex_reshape,
  .forward = batch_reindex_forward,
  .backward = batch_reindex_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = batch_reindex_allow_force_backward,
  .finalize = batch_reindex_finalize,
};
