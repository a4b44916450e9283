/* heatmap-draw.c: drawing a CtHeatmap with cairo and Pango: tiles of
 * cached pixels scaled with CAIRO_FILTER_NEAREST (cells stay crisp blocks,
 * never blurred), bars, the keyboard's tile outline, and the legend strip:
 * a colour bar with its range, what the scale is, and swatches for NaN and
 * Inf when the blob has any. Also the PNG export (see heatmap.h). */
#include "heatmap-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

static void
set_text_color (CtHeatmap *h, cairo_t *cr, double alpha)
{
  cairo_set_source_rgba (cr, h->text_r, h->text_g, h->text_b, alpha);
}

static void
set_rgb (cairo_t *cr, CtRgb c)
{
  cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}

static void
draw_tiles (CtHeatmap *h, cairo_t *cr, const CtHeatmapLayout *l)
{
  int rows_per_tile = h->kind == CT_HEATMAP_MATRIX ? h->shape.n : h->shape.h;
  int surface_rows;

  ct_heatmap_ensure_pixels (h);
  if (h->pixels == NULL || cairo_surface_status (h->pixels) != CAIRO_STATUS_SUCCESS)
    return;
  surface_rows = cairo_image_surface_get_height (h->pixels);
  /* A grey frame in the gap around each tile: the diverging map is white
   * at zero, so small tiles (5×5 filters) would run together without it. */
  if (l->tiles > 1 && l->gap >= 2.0)
    {
      cairo_save (cr);
      cairo_set_source_rgb (cr, 0.62, 0.62, 0.62);
      cairo_set_line_width (cr, 1.0);
      for (int t = 0; t < l->tiles; t++)
        {
          double x, y, w, hh;

          if ((gint64) (h->kind == CT_HEATMAP_MATRIX ? 0 : l->first + t) * rows_per_tile
              >= surface_rows)
            break;
          ct_heatmap_layout_tile_rect (l, t, &x, &y, &w, &hh);
          cairo_rectangle (cr, x - 0.5, y - 0.5, w + 1.0, hh + 1.0);
        }
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  for (int t = 0; t < l->tiles; t++)
    {
      int src = h->kind == CT_HEATMAP_MATRIX ? 0 : l->first + t;
      double x, y, w, hh;
      cairo_pattern_t *pattern;

      if ((gint64) src * rows_per_tile >= surface_rows)
        break;
      ct_heatmap_layout_tile_rect (l, t, &x, &y, &w, &hh);
      cairo_save (cr);
      cairo_rectangle (cr, x, y, w, hh);
      cairo_clip (cr);
      cairo_translate (cr, x, y);
      cairo_scale (cr, l->cell_w, l->cell_h);
      cairo_set_source_surface (cr, h->pixels, 0, -(double) src * rows_per_tile);
      pattern = cairo_get_source (cr);
      cairo_pattern_set_filter (pattern, CAIRO_FILTER_NEAREST);
      /* PAD, so that a downscaled tile's last cells never fade out; but
       * NONE for rows past what a cairo surface can hold, so they are
       * left empty rather than copies of the last row. */
      cairo_pattern_set_extend (pattern, (gint64) (src + 1) * rows_per_tile > surface_rows
                                           ? CAIRO_EXTEND_NONE : CAIRO_EXTEND_PAD);
      cairo_paint (cr);
      cairo_restore (cr);
    }
  if (h->focus >= 0 && h->zoom < 0 && l->tiles > 1 && h->focus < l->tiles)
    {
      double x, y, w, hh;

      ct_heatmap_layout_tile_rect (l, h->focus, &x, &y, &w, &hh);
      set_text_color (h, cr, 1.0);
      cairo_set_line_width (cr, 2.0);
      cairo_rectangle (cr, x - 1.0, y - 1.0, w + 2.0, hh + 2.0);
      cairo_stroke (cr);
    }
}

static void
draw_bars (CtHeatmap *h, cairo_t *cr, const CtHeatmapLayout *l)
{
  CtColorScale scale = ct_heatmap_get_scale (h, 0);
  gsize per = (gsize) h->shape.c * h->shape.h * h->shape.w;
  const float *v = h->values + (gsize) h->sample * per;
  double span = l->value_hi - l->value_lo;
  double bar_w = l->cell_w >= 3.0 ? l->cell_w - 1.0 : l->cell_w;

  for (int k = 0; k < l->data_w; k++)
    {
      double x = l->x + k * l->cell_w;
      double top, bottom;

      set_rgb (cr, ct_colormap_map (h->map, &scale, v[k]));
      if (!isfinite (v[k]))
        {
          top = l->y;
          bottom = l->y + l->height;
        }
      else
        {
          double value = CLAMP (v[k], l->value_lo, l->value_hi);
          double vy = l->y + l->height * (l->value_hi - value) / span;

          top = MIN (vy, l->baseline);
          bottom = MAX (vy, l->baseline);
        }
      cairo_rectangle (cr, x, top, bar_w, MAX (bottom - top, 1.0));
      cairo_fill (cr);
    }
  set_text_color (h, cr, 0.6);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, l->x, floor (l->baseline) + 0.5);
  cairo_line_to (cr, l->x + l->width, floor (l->baseline) + 0.5);
  cairo_stroke (cr);
}

/* Draw TEXT with its left edge at X (or its right edge, when RIGHT). */
static double
draw_text (CtHeatmap *h, cairo_t *cr, PangoLayout *layout,
           const char *text, double x, double y, gboolean right)
{
  int w, hh;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &hh);
  cairo_move_to (cr, right ? x - w : x, y);
  set_text_color (h, cr, 1.0);
  pango_cairo_show_layout (cr, layout);
  return w;
}

static void
draw_swatch (CtHeatmap *h, cairo_t *cr, PangoLayout *layout, CtRgb color,
             const char *label, double *x, double y)
{
  set_rgb (cr, color);
  cairo_rectangle (cr, *x, y, 12, 12);
  cairo_fill (cr);
  *x += 16 + draw_text (h, cr, layout, label, *x + 16, y - 2, FALSE) + 12;
}

static void
draw_legend (CtHeatmap *h, cairo_t *cr, double width, double top)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) font = pango_font_description_from_string ("Sans 9");
  int focus = h->zoom >= 0 ? h->zoom : MAX (h->focus, 0);
  CtColorScale scale = ct_heatmap_get_scale (h, focus);
  double bar_x = 8, bar_w = CLAMP (width / 3, 64, 256), bar_y = top + 6;
  char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *what = NULL;
  int lo_w, hi_w;
  double x;

  pango_layout_set_font_description (layout, font);
  if (h->kind == CT_HEATMAP_RGB)
    {
      draw_text (h, cr, layout,
                 h->rgb_per_filter ? _("RGB, each filter rescaled to its own range")
                                   : _("RGB, all filters rescaled to the blob's range"),
                 bar_x, bar_y, FALSE);
      return;
    }

  /* + 0.0 turns a -0 end (a ReLU's output starts at -0) into "0". */
  ct_heatmap_format_value (lo, sizeof lo, scale.lo + 0.0);
  ct_heatmap_format_value (hi, sizeof hi, scale.hi + 0.0);
  /* A bar long enough that its two end labels do not run into each other
   * in a narrow view. */
  pango_layout_set_text (layout, lo, -1);
  pango_layout_get_pixel_size (layout, &lo_w, NULL);
  pango_layout_set_text (layout, hi, -1);
  pango_layout_get_pixel_size (layout, &hi_w, NULL);
  bar_w = MAX (bar_w, MIN (lo_w + hi_w + 12.0, width - 2 * bar_x));

  /* The colour bar: the look-up table's cells, stretched. */
  {
    cairo_surface_t *bar = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                       CT_COLOR_LUT_SIZE, 1);
    guint32 *px;

    cairo_surface_flush (bar);
    px = (guint32 *) cairo_image_surface_get_data (bar);
    if (px != NULL)
      memcpy (px, h->lut.argb, sizeof h->lut.argb);
    cairo_surface_mark_dirty (bar);
    cairo_save (cr);
    cairo_translate (cr, bar_x, bar_y);
    cairo_scale (cr, bar_w / CT_COLOR_LUT_SIZE, 12.0);
    cairo_set_source_surface (cr, bar, 0, 0);
    cairo_pattern_set_extend (cairo_get_source (cr), CAIRO_EXTEND_PAD);
    cairo_rectangle (cr, 0, 0, CT_COLOR_LUT_SIZE, 1);
    cairo_fill (cr);
    cairo_restore (cr);
    cairo_surface_destroy (bar);
    set_text_color (h, cr, 0.5);
    cairo_set_line_width (cr, 1.0);
    cairo_rectangle (cr, bar_x - 0.5, bar_y - 0.5, bar_w + 1, 13);
    cairo_stroke (cr);
  }
  draw_text (h, cr, layout, lo, bar_x, bar_y + 13, FALSE);
  draw_text (h, cr, layout, hi, bar_x + bar_w, bar_y + 13, TRUE);
  if (h->map == CT_COLORMAP_DIVERGING)
    {
      int w, hh;

      pango_layout_set_text (layout, "0", -1);
      pango_layout_get_pixel_size (layout, &w, &hh);
      /* Only where it stays clear of the end labels. */
      if (bar_x + lo_w + 4 < bar_x + bar_w / 2 - w / 2.0
          && bar_x + bar_w / 2 + w / 2.0 + 4 < bar_x + bar_w - hi_w)
        draw_text (h, cr, layout, "0", bar_x + bar_w / 2 - w / 2.0, bar_y + 13, FALSE);
    }

  /* What the scale is, and where the grid stands. */
  if (h->kind == CT_HEATMAP_GRID && h->zoom >= 0)
    what = g_strdup_printf (_("%s · channel %d of %d · sample %d of %d"),
                            ct_scale_mode_get_label (h->mode), h->zoom + 1, h->shape.c,
                            h->sample + 1, h->shape.n);
  else if (h->kind == CT_HEATMAP_GRID && h->mode == CT_SCALE_PER_CHANNEL)
    what = g_strdup_printf (_("%s · range of channel %d · sample %d of %d"),
                            ct_scale_mode_get_label (h->mode), focus + 1,
                            h->sample + 1, h->shape.n);
  else if (h->kind == CT_HEATMAP_GRID || h->kind == CT_HEATMAP_BARS)
    what = g_strdup_printf (_("%s · sample %d of %d"), ct_scale_mode_get_label (h->mode),
                            h->sample + 1, h->shape.n);
  else
    what = g_strdup (ct_scale_mode_get_label (h->mode));
  /* The scale's name beside the bar, the colours of NaN and Inf below
   * it, only for those the blob has. */
  x = bar_x + bar_w + 16;
  draw_text (h, cr, layout, what, x, bar_y - 3, FALSE);
  if (h->nan_count > 0)
    draw_swatch (h, cr, layout, ct_colormap_nan_color (), "NaN", &x, bar_y + 15);
  if (h->pos_inf_count > 0)
    draw_swatch (h, cr, layout, ct_colormap_inf_color (TRUE), "+Inf", &x, bar_y + 15);
  if (h->neg_inf_count > 0)
    draw_swatch (h, cr, layout, ct_colormap_inf_color (FALSE), "−Inf", &x, bar_y + 15);
}

void
ct_heatmap_draw (CtHeatmap *h, cairo_t *cr, double width, double height)
{
  CtHeatmapLayout l;

  if (!h->has_data || ct_heatmap_shape_count (&h->shape) == 0)
    return;
  ct_heatmap_get_layout (h, width, height, &l);
  cairo_save (cr);
  if (h->kind == CT_HEATMAP_BARS)
    draw_bars (h, cr, &l);
  else
    draw_tiles (h, cr, &l);
  if (height > 3 * CT_HEATMAP_LEGEND_HEIGHT)
    draw_legend (h, cr, width, height - CT_HEATMAP_LEGEND_HEIGHT);
  cairo_restore (cr);
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
ct_heatmap_save_png (CtHeatmap *h, const char *path, int width, int height, GError **error)
{
  g_autoptr(GByteArray) png = g_byte_array_new ();
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, MAX (width, 1), MAX (height, 1));
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  ct_heatmap_draw (h, cr, width, height);
  cairo_destroy (cr);
  status = cairo_surface_write_to_png_stream (surface, append_bytes, png);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_WRITE,
                   _("%s: could not draw the heatmap: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return ct_heatmap_save_bytes (path, png->data, png->len, error);
}
