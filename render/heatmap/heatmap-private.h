/* heatmap-private.h: CtHeatmap's fields, shared by heatmap.c (state,
 * scales, pixels, layout) and heatmap-draw.c (cairo drawing). */
#pragma once

#include "heatmap.h"

struct _CtHeatmap {
  GBytes *bytes;
  const float *values;
  CtHeatmapShape shape;
  gboolean has_data;
  gboolean have_range; /* the blob has a finite value */
  double lo, hi;       /* its finite range */
  gsize nan_count, pos_inf_count, neg_inf_count;

  int sample;
  CtColormap map;
  CtScaleMode mode;
  CtColorScale fixed;
  CtScaleLock lock;
  CtHeatmapKind kind;
  gboolean kind_chosen; /* set by the caller, kept while it fits */
  gboolean rgb_per_filter;
  int zoom;
  int focus;
  double text_r, text_g, text_b;

  /* The colour-mapped cells of the current sample (grid: channels stacked
   * top to bottom; RGB: filters stacked; matrix: the whole matrix), and
   * the scale of each channel; NULL until needed. */
  cairo_surface_t *pixels;
  CtColorScale *tile_scales;
  guint pixel_builds;
  CtColorLut lut;
};

/* Build the pixels if they were dropped. */
void ct_heatmap_ensure_pixels (CtHeatmap *heatmap);

/* Write DATA to PATH atomically (blob-export.c); errors in CT_HEATMAP_ERROR,
 * naming PATH. */
gboolean ct_heatmap_save_bytes (const char *path, const void *data, gsize length,
                                GError **error);
