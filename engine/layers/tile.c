/* tile.c: Tile, the bottom repeated `tiles` times along `axis` (each block
 * from that axis on is copied whole, as numpy's tile does). The backward sums
 * the copies' diffs. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  gint64 outer, inner, tiles;
} CtTileLayer;

static const Caffe__TileParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__TileParameter defaults = CAFFE__TILE_PARAMETER__INIT;

  return layer->param->tile_param != NULL ? layer->param->tile_param : &defaults;
}

static gboolean
tile_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__TileParameter *p = get_param (layer);

  if (!p->has_tiles)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("tile_param needs tiles, the number of copies"));
  if (p->tiles <= 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("tiles must be positive, got %d"), p->tiles);
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
tile_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtTileLayer *self = (CtTileLayer *) layer;
  const Caffe__TileParameter *p = get_param (layer);
  CtBlob *in = CT_BOTTOM (bottom, 0);
  gint64 dims[CT_BLOB_MAX_AXES];
  int axis = ct_common_axis (layer, in, p->axis, error);

  if (axis < 0)
    return FALSE;
  memcpy (dims, ct_blob_get_shape (in), ct_blob_num_axes (in) * sizeof (gint64));
  if (__builtin_mul_overflow (dims[axis], (gint64) p->tiles, &dims[axis]))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OVERFLOW,
                          _("the tiled top has too many elements"));
  self->tiles = p->tiles;
  self->outer = ct_blob_count_range (in, 0, axis, NULL);
  self->inner = ct_blob_count_from (in, axis, NULL);
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, ct_blob_num_axes (in), error);
}

static gboolean
tile_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
              GError **error)
{
  CtTileLayer *self = (CtTileLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);

  if (in == NULL || out == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_tile_forward : ct_cpu_tile_forward) (
                                     self->outer, self->inner, self->tiles, in, out), error);
}

static gboolean
tile_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
               GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtTileLayer *self = (CtTileLayer *) layer;
  const float *top_diff;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error);
  if (top_diff == NULL || in_diff == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_tile_backward : ct_cpu_tile_backward) (
                                     self->outer, self->inner, self->tiles, top_diff, in_diff),
                                 error);
}

static const CtLayerExplanation tile_explanation = {
  .summary = N_("Repeats its bottom several times along one axis."),
  .formula = N_("y = [x, x, …, x] (tiles copies) along axis"),
  .parameters = N_("axis: the axis repeated along; tiles: how many copies."),
  .gradient = N_("Each input's diff is the sum of the diffs of its copies."),
};

const CtLayerClass ct_tile_layer_class = {
  .explanation = &tile_explanation,
  .type = "Tile",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Repeats its bottom several times along one axis"),
  .instance_size = sizeof (CtTileLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = tile_setup,
  .reshape = tile_reshape,
  .forward = tile_forward,
  .backward = tile_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "tile_param { axis: 1 tiles: 2 }",
};
