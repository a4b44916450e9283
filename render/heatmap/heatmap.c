/* heatmap.c: CtHeatmap's state, colour scales, cached pixels, layout and
 * hit-testing (see heatmap.h; drawing is in heatmap-draw.c). */
#include "heatmap-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#define TILE_GAP 2.0
/* Tiles drawn large (filters in presentation mode, a wide inspector) are
 * set apart by a twelfth of their size: two pixels between 60-pixel
 * filters read as one picture. */
#define TILE_GAP_SHARE (1.0 / 12)
#define PADDING 4.0

CtHeatmap *
ct_heatmap_new (void)
{
  CtHeatmap *h = g_new0 (CtHeatmap, 1);

  h->map = CT_COLORMAP_DIVERGING;
  h->mode = CT_SCALE_PER_BLOB;
  h->fixed = (CtColorScale) { -1.0, 1.0 };
  h->kind = CT_HEATMAP_GRID;
  h->rgb_per_filter = TRUE;
  h->zoom = -1;
  h->focus = -1;
  h->text_r = h->text_g = h->text_b = 0.2;
  ct_color_lut_init (&h->lut, h->map);
  return h;
}

void
ct_heatmap_invalidate (CtHeatmap *h)
{
  g_clear_pointer (&h->pixels, cairo_surface_destroy);
  g_clear_pointer (&h->tile_scales, g_free);
}

void
ct_heatmap_free (CtHeatmap *h)
{
  if (h == NULL)
    return;
  ct_heatmap_invalidate (h);
  g_clear_pointer (&h->bytes, g_bytes_unref);
  g_free (h);
}

gboolean
ct_heatmap_set_data (CtHeatmap *h,
                     GBytes *floats,
                     const gint64 *dims,
                     guint ndims,
                     GError **error)
{
  CtHeatmapShape shape;
  gsize size = 0;
  const float *values;

  if (floats == NULL)
    {
      ct_heatmap_invalidate (h);
      g_clear_pointer (&h->bytes, g_bytes_unref);
      h->values = NULL;
      h->has_data = FALSE;
      memset (&h->shape, 0, sizeof h->shape);
      return TRUE;
    }
  if (!ct_heatmap_shape_init (&shape, dims, ndims, error))
    return FALSE;
  /* The same (immutable) values in the same shape: nothing changes. The
   * runner hands the window the same copy in every snapshot until the
   * blob changes, and a pass hands over a snapshot per layer; looking at
   * millions of values again and rebuilding the pixels each time would
   * cost the window its frames. */
  if (h->has_data && floats == h->bytes && shape.ndims == h->shape.ndims
      && memcmp (shape.dims, h->shape.dims, shape.ndims * sizeof (gint64)) == 0)
    return TRUE;
  values = g_bytes_get_data (floats, &size);
  if (size != ct_heatmap_shape_count (&shape) * sizeof (float))
    {
      g_autofree char *text = ct_heatmap_shape_format (&shape);

      g_set_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE,
                   _("A blob of shape %s holds %zu values, but %zu bytes were given"),
                   text, ct_heatmap_shape_count (&shape), size);
      return FALSE;
    }

  ct_heatmap_invalidate (h);
  g_bytes_ref (floats);
  g_clear_pointer (&h->bytes, g_bytes_unref);
  h->bytes = floats;
  h->values = values;
  h->shape = shape;
  h->has_data = TRUE;

  h->nan_count = h->pos_inf_count = h->neg_inf_count = 0;
  for (gsize i = 0, n = ct_heatmap_shape_count (&shape); i < n; i++)
    if (G_UNLIKELY (!isfinite (values[i])))
      {
        if (isnan (values[i]))
          h->nan_count++;
        else if (values[i] > 0)
          h->pos_inf_count++;
        else
          h->neg_inf_count++;
      }
  h->have_range = ct_value_range (values, ct_heatmap_shape_count (&shape), &h->lo, &h->hi);
  if (h->have_range)
    ct_scale_lock_widen (&h->lock, h->lo, h->hi);

  if (!h->kind_chosen || !ct_heatmap_shape_fits_kind (&shape, h->kind))
    {
      h->kind = ct_heatmap_shape_default_kind (&shape);
      h->kind_chosen = FALSE;
    }
  if (h->sample >= shape.n)
    h->sample = 0;
  if (h->zoom >= shape.c)
    h->zoom = -1;
  if (h->focus >= ct_heatmap_get_n_tiles (h))
    h->focus = -1;
  return TRUE;
}

gboolean
ct_heatmap_has_data (const CtHeatmap *h)
{
  return h->has_data;
}

const CtHeatmapShape *
ct_heatmap_get_shape (const CtHeatmap *h)
{
  return &h->shape;
}

const float *
ct_heatmap_get_values (const CtHeatmap *h, gsize *n_values)
{
  if (n_values != NULL)
    *n_values = h->has_data ? ct_heatmap_shape_count (&h->shape) : 0;
  return h->values;
}

gsize
ct_heatmap_get_nan_count (const CtHeatmap *h)
{
  return h->nan_count;
}

gsize
ct_heatmap_get_inf_count (const CtHeatmap *h)
{
  return h->pos_inf_count + h->neg_inf_count;
}

gboolean
ct_heatmap_set_sample (CtHeatmap *h, int sample)
{
  sample = CLAMP (sample, 0, MAX (ct_heatmap_get_n_samples (h) - 1, 0));
  if (sample == h->sample)
    return FALSE;
  h->sample = sample;
  ct_heatmap_invalidate (h);
  return TRUE;
}

int
ct_heatmap_get_sample (const CtHeatmap *h)
{
  return h->sample;
}

int
ct_heatmap_get_n_samples (const CtHeatmap *h)
{
  return h->has_data ? h->shape.n : 0;
}

gboolean
ct_heatmap_set_colormap (CtHeatmap *h, CtColormap map)
{
  g_return_val_if_fail (map < CT_COLORMAP_N, FALSE);
  if (map == h->map)
    return FALSE;
  h->map = map;
  ct_color_lut_init (&h->lut, map);
  ct_heatmap_invalidate (h);
  return TRUE;
}

CtColormap
ct_heatmap_get_colormap (const CtHeatmap *h)
{
  return h->map;
}

gboolean
ct_heatmap_set_scale_mode (CtHeatmap *h, CtScaleMode mode)
{
  g_return_val_if_fail (mode < CT_SCALE_N, FALSE);
  if (mode == h->mode)
    return FALSE;
  h->mode = mode;
  ct_heatmap_invalidate (h);
  return TRUE;
}

CtScaleMode
ct_heatmap_get_scale_mode (const CtHeatmap *h)
{
  return h->mode;
}

gboolean
ct_heatmap_set_fixed_range (CtHeatmap *h, double lo, double hi)
{
  g_return_val_if_fail (lo < hi, FALSE);
  if (lo == h->fixed.lo && hi == h->fixed.hi)
    return FALSE;
  h->fixed.lo = lo;
  h->fixed.hi = hi;
  if (h->mode == CT_SCALE_FIXED)
    ct_heatmap_invalidate (h);
  return TRUE;
}

void
ct_heatmap_reset_lock (CtHeatmap *h)
{
  ct_scale_lock_reset (&h->lock);
  if (h->has_data && h->have_range)
    ct_scale_lock_widen (&h->lock, h->lo, h->hi);
  if (h->mode == CT_SCALE_LOCKED)
    ct_heatmap_invalidate (h);
}

const CtScaleLock *
ct_heatmap_get_lock (const CtHeatmap *h)
{
  return &h->lock;
}

gboolean
ct_heatmap_set_kind (CtHeatmap *h, CtHeatmapKind kind)
{
  g_return_val_if_fail (kind < CT_HEATMAP_KIND_N, FALSE);
  if (h->has_data && !ct_heatmap_shape_fits_kind (&h->shape, kind))
    return FALSE;
  h->kind_chosen = TRUE;
  if (kind == h->kind)
    return FALSE;
  h->kind = kind;
  h->zoom = -1;
  h->focus = -1;
  ct_heatmap_invalidate (h);
  return TRUE;
}

CtHeatmapKind
ct_heatmap_get_kind (const CtHeatmap *h)
{
  return h->kind;
}

gboolean
ct_heatmap_set_rgb_per_filter (CtHeatmap *h, gboolean per_filter)
{
  per_filter = !!per_filter;
  if (per_filter == h->rgb_per_filter)
    return FALSE;
  h->rgb_per_filter = per_filter;
  if (h->kind == CT_HEATMAP_RGB)
    ct_heatmap_invalidate (h);
  return TRUE;
}

gboolean
ct_heatmap_get_rgb_per_filter (const CtHeatmap *h)
{
  return h->rgb_per_filter;
}

gboolean
ct_heatmap_set_zoom (CtHeatmap *h, int channel)
{
  if (h->kind != CT_HEATMAP_GRID || !h->has_data || channel >= h->shape.c)
    channel = -1;
  channel = MAX (channel, -1);
  if (channel == h->zoom)
    return FALSE;
  /* The pixels hold every channel of the sample: zooming keeps them. */
  h->zoom = channel;
  return TRUE;
}

int
ct_heatmap_get_zoom (const CtHeatmap *h)
{
  return h->zoom;
}

gboolean
ct_heatmap_set_focus (CtHeatmap *h, int tile)
{
  tile = tile >= ct_heatmap_get_n_tiles (h) ? -1 : MAX (tile, -1);
  if (tile == h->focus)
    return FALSE;
  h->focus = tile;
  return TRUE;
}

int
ct_heatmap_get_focus (const CtHeatmap *h)
{
  return h->focus;
}

int
ct_heatmap_get_n_tiles (const CtHeatmap *h)
{
  if (!h->has_data)
    return 0;
  switch (h->kind)
    {
    case CT_HEATMAP_GRID:
      return h->shape.c;
    case CT_HEATMAP_RGB:
      return h->shape.n;
    case CT_HEATMAP_MATRIX:
    case CT_HEATMAP_BARS:
    case CT_HEATMAP_KIND_N:
    default:
      return 1;
    }
}

void
ct_heatmap_set_text_color (CtHeatmap *h, double r, double g, double b)
{
  h->text_r = r;
  h->text_g = g;
  h->text_b = b;
}

/* The scale of one sample's channel C, computed from the data. */
static CtColorScale
compute_scale (CtHeatmap *h, int c)
{
  double lo, hi;
  gboolean have;

  switch (h->mode)
    {
    case CT_SCALE_PER_CHANNEL:
      if (h->kind == CT_HEATMAP_GRID)
        {
          gsize plane = (gsize) h->shape.h * h->shape.w;
          const float *v = h->values + ((gsize) h->sample * h->shape.c + c) * plane;

          have = ct_value_range (v, plane, &lo, &hi);
          return ct_color_scale_for_range (h->map, have, lo, hi);
        }
      /* A matrix or bars have one channel: the sample's (bars) or the
       * whole blob's (matrix) range. */
      if (h->kind == CT_HEATMAP_BARS)
        {
          gsize per = (gsize) h->shape.c * h->shape.h * h->shape.w;

          have = ct_value_range (h->values + (gsize) h->sample * per, per, &lo, &hi);
          return ct_color_scale_for_range (h->map, have, lo, hi);
        }
      return ct_color_scale_for_range (h->map, h->have_range, h->lo, h->hi);
    case CT_SCALE_LOCKED:
      return ct_color_scale_for_range (h->map, h->lock.valid, h->lock.lo, h->lock.hi);
    case CT_SCALE_FIXED:
      return h->fixed;
    case CT_SCALE_PER_BLOB:
    case CT_SCALE_N:
    default:
      return ct_color_scale_for_range (h->map, h->have_range, h->lo, h->hi);
    }
}

CtColorScale
ct_heatmap_get_scale (CtHeatmap *h, int channel)
{
  if (!h->has_data)
    return ct_color_scale_for_range (h->map, FALSE, 0, 0);
  if (h->mode != CT_SCALE_PER_CHANNEL || h->kind != CT_HEATMAP_GRID)
    channel = 0;
  channel = CLAMP (channel, 0, MAX (h->shape.c - 1, 0));
  ct_heatmap_ensure_pixels (h);
  if (h->tile_scales != NULL)
    return h->tile_scales[channel];
  return compute_scale (h, channel);
}

/* Write N pixels mapped from (R, G, B) planes rescaled from [LO, HI]. */
static void
map_rgb (const float *r, const float *g, const float *b, gsize n,
         double lo, double hi, guint32 *out)
{
  double k = hi > lo ? 255.0 / (hi - lo) : 0.0;

  for (gsize i = 0; i < n; i++)
    {
      const float *planes[3] = { r, g, b };
      guint32 px = 0xff000000u;

      for (int j = 0; j < 3; j++)
        {
          double v = planes[j][i];
          double x = isfinite (v) ? (v - lo) * k + 0.5 : (v > 0 ? 255.0 : 0.0);

          px |= (guint32) CLAMP ((int) x, 0, 255) << (16 - 8 * j);
        }
      out[i] = px;
    }
}

void
ct_heatmap_ensure_pixels (CtHeatmap *h)
{
  int rows_per_tile, tiles, width;
  guint32 *data;
  int stride;

  if (h->pixels != NULL || !h->has_data || h->kind == CT_HEATMAP_BARS)
    return;

  switch (h->kind)
    {
    case CT_HEATMAP_GRID:
      tiles = h->shape.c;
      rows_per_tile = h->shape.h;
      width = h->shape.w;
      break;
    case CT_HEATMAP_RGB:
      tiles = h->shape.n;
      rows_per_tile = h->shape.h;
      width = h->shape.w;
      break;
    case CT_HEATMAP_MATRIX:
    default:
      tiles = 1;
      rows_per_tile = h->shape.n;
      width = h->shape.c * h->shape.h * h->shape.w;
      break;
    }
  /* cairo's image surfaces stop at 32767 pixels a side; such blobs are
   * drawn from a surface clamped to that and stay partly unshown. */
  width = CLAMP (width, 1, 32767);
  {
    gint64 total_rows = (gint64) tiles * rows_per_tile;

    if (total_rows > 32767)
      tiles = MAX (32767 / MAX (rows_per_tile, 1), 1);
  }

  h->pixels = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width,
                                          MAX (tiles * rows_per_tile, 1));
  h->tile_scales = g_new (CtColorScale, MAX (h->kind == CT_HEATMAP_GRID ? h->shape.c : 1, 1));
  h->pixel_builds++;
  if (cairo_surface_status (h->pixels) != CAIRO_STATUS_SUCCESS)
    return;
  cairo_surface_flush (h->pixels);
  data = (guint32 *) cairo_image_surface_get_data (h->pixels);
  stride = cairo_image_surface_get_stride (h->pixels) / 4;

  if (h->kind == CT_HEATMAP_GRID)
    {
      gsize plane = (gsize) h->shape.h * h->shape.w;
      CtColorScale blob_scale = compute_scale (h, 0);

      for (int c = 0; c < h->shape.c; c++)
        h->tile_scales[c] = h->mode == CT_SCALE_PER_CHANNEL ? compute_scale (h, c)
                                                            : blob_scale;
      for (int c = 0; c < tiles; c++)
        {
          const float *v = h->values + ((gsize) h->sample * h->shape.c + c) * plane;

          for (int y = 0; y < h->shape.h; y++)
            ct_color_lut_map (&h->lut, &h->tile_scales[c], v + (gsize) y * h->shape.w,
                              MIN (h->shape.w, width),
                              data + ((gsize) c * h->shape.h + y) * stride);
        }
    }
  else if (h->kind == CT_HEATMAP_RGB)
    {
      gsize plane = (gsize) h->shape.h * h->shape.w;

      h->tile_scales[0] = (CtColorScale) { h->lo, h->hi };
      for (int k = 0; k < tiles; k++)
        {
          const float *f = h->values + (gsize) k * 3 * plane;
          double lo = h->lo, hi = h->hi;

          if (h->rgb_per_filter)
            ct_value_range (f, 3 * plane, &lo, &hi);
          for (int y = 0; y < h->shape.h; y++)
            {
              gsize at = (gsize) y * h->shape.w;

              map_rgb (f + at, f + plane + at, f + 2 * plane + at, MIN (h->shape.w, width),
                       lo, hi, data + ((gsize) k * h->shape.h + y) * stride);
            }
        }
    }
  else
    {
      gsize per = (gsize) h->shape.c * h->shape.h * h->shape.w;

      h->tile_scales[0] = compute_scale (h, 0);
      for (int n = 0; n < rows_per_tile && n < 32767; n++)
        ct_color_lut_map (&h->lut, &h->tile_scales[0], h->values + (gsize) n * per,
                          MIN ((gsize) width, per), data + (gsize) n * stride);
    }
  cairo_surface_mark_dirty (h->pixels);
}

guint
ct_heatmap_get_pixel_builds (const CtHeatmap *h)
{
  return h->pixel_builds;
}

/* Tiles at the largest size, with a gap that grows with them. */
static void
layout_spaced_tiles (CtHeatmapLayout *layout, int tiles, int data_w, int data_h, double x,
                     double y, double w, double h)
{
  double gap;

  ct_heatmap_layout_tiles (layout, tiles, data_w, data_h, x, y, w, h, TILE_GAP);
  gap = MAX (TILE_GAP, floor (MIN (layout->tile_w, layout->tile_h) * TILE_GAP_SHARE));
  if (gap > TILE_GAP)
    ct_heatmap_layout_tiles (layout, tiles, data_w, data_h, x, y, w, h, gap);
}

void
ct_heatmap_get_layout (CtHeatmap *h, double width, double height, CtHeatmapLayout *layout)
{
  double legend = height > 3 * CT_HEATMAP_LEGEND_HEIGHT ? CT_HEATMAP_LEGEND_HEIGHT : 0.0;
  double x = PADDING, y = PADDING;
  double w = MAX (width - 2 * PADDING, 1.0);
  double hh = MAX (height - 2 * PADDING - legend, 1.0);

  if (!h->has_data)
    {
      memset (layout, 0, sizeof *layout);
      layout->kind = h->kind;
      return;
    }
  switch (h->kind)
    {
    case CT_HEATMAP_GRID:
      if (h->zoom >= 0)
        {
          ct_heatmap_layout_tiles (layout, 1, h->shape.w, h->shape.h, x, y, w, hh, 0.0);
          layout->first = h->zoom;
        }
      else
        layout_spaced_tiles (layout, h->shape.c, h->shape.w, h->shape.h, x, y, w, hh);
      break;
    case CT_HEATMAP_RGB:
      layout_spaced_tiles (layout, h->shape.n, h->shape.w, h->shape.h, x, y, w, hh);
      layout->kind = CT_HEATMAP_RGB;
      break;
    case CT_HEATMAP_MATRIX:
      ct_heatmap_layout_matrix (layout, h->shape.n, h->shape.c * h->shape.h * h->shape.w,
                                x, y, w, hh);
      break;
    case CT_HEATMAP_BARS:
    case CT_HEATMAP_KIND_N:
    default:
      {
        CtColorScale s = ct_heatmap_get_scale (h, 0);

        ct_heatmap_layout_bars (layout, h->shape.c * h->shape.h * h->shape.w,
                                s.lo, s.hi, x, y, w, hh);
      }
      break;
    }
}

gboolean
ct_heatmap_hit (CtHeatmap *h, double width, double height, double x, double y,
                CtHeatmapHit *hit)
{
  CtHeatmapLayout layout;

  if (!h->has_data)
    return FALSE;
  ct_heatmap_get_layout (h, width, height, &layout);
  return ct_heatmap_layout_hit (&layout, &h->shape, h->sample, x, y, hit);
}

int
ct_heatmap_hit_tile (CtHeatmap *h, double width, double height, double x, double y)
{
  CtHeatmapLayout layout;
  int tile, row, col;

  if (!h->has_data)
    return -1;
  ct_heatmap_get_layout (h, width, height, &layout);
  if (!ct_heatmap_layout_hit_cell (&layout, x, y, &tile, &row, &col))
    return -1;
  return layout.first + tile;
}

void
ct_heatmap_format_value (char *buf, gsize len, double v)
{
  if (isnan (v))
    g_strlcpy (buf, "NaN", len);
  else if (isinf (v))
    g_strlcpy (buf, v > 0 ? "Inf" : "-Inf", len);
  else
    g_ascii_formatd (buf, (int) len, "%.6g", v);
}

char *
ct_heatmap_hit_text (CtHeatmap *h, const CtHeatmapHit *hit)
{
  char v[3][G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *at = NULL;

  g_return_val_if_fail (h->has_data, NULL);
  g_return_val_if_fail (hit->index < ct_heatmap_shape_count (&h->shape), NULL);
  if (h->kind == CT_HEATMAP_RGB)
    {
      gsize plane = (gsize) h->shape.h * h->shape.w;
      gsize base = (gsize) hit->n * 3 * plane + (gsize) hit->h * h->shape.w + hit->w;

      for (int j = 0; j < 3; j++)
        ct_heatmap_format_value (v[j], sizeof v[j], h->values[base + j * plane]);
      return g_strdup_printf ("(%d, :, %d, %d) = (%s, %s, %s)",
                              hit->n, hit->h, hit->w, v[0], v[1], v[2]);
    }
  at = ct_heatmap_shape_format_index (&h->shape, hit->index);
  ct_heatmap_format_value (v[0], sizeof v[0], h->values[hit->index]);
  return g_strdup_printf ("%s = %s", at, v[0]);
}
