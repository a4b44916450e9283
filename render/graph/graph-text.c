/* graph-text.c: the text of the graph's drawings. Text is measured and
 * drawn through one Pango context at 96 dpi with metric hinting off, so
 * that sizes are in pixels and do not change with zoom: a node measured
 * once fits its text at every scale. */
#include "graph-scene-private.h"

#include <math.h>
#include <pango/pangocairo.h>

static const struct {
  double size;
  PangoWeight weight;
} text_styles[CT_GRAPH_N_TEXT_STYLES] = {
  { 12.0, PANGO_WEIGHT_BOLD },
  { 11.5, PANGO_WEIGHT_NORMAL },
  { 10.0, PANGO_WEIGHT_NORMAL },
  { 9.5, PANGO_WEIGHT_SEMIBOLD },
  { 9.5, PANGO_WEIGHT_NORMAL },
  { 8.0, PANGO_WEIGHT_BOLD },
};

static PangoContext *
text_context (void)
{
  static PangoContext *context;

  if (g_once_init_enter (&context))
    {
      PangoFontMap *map = pango_cairo_font_map_get_default ();
      PangoContext *c = pango_font_map_create_context (map);
      cairo_font_options_t *options = cairo_font_options_create ();

      cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
      cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
      cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
      pango_cairo_context_set_font_options (c, options);
      pango_cairo_context_set_resolution (c, 96);
      pango_context_set_round_glyph_positions (c, FALSE);
      cairo_font_options_destroy (options);
      g_once_init_leave (&context, c);
    }
  return context;
}

static PangoFontDescription *
style_font (CtGraphTextStyle style)
{
  static PangoFontDescription *fonts[CT_GRAPH_N_TEXT_STYLES];

  if (fonts[style] == NULL)
    {
      PangoFontDescription *desc = pango_font_description_from_string (FONT_FAMILY);
      pango_font_description_set_absolute_size (desc, text_styles[style].size * PANGO_SCALE);
      pango_font_description_set_weight (desc, text_styles[style].weight);
      fonts[style] = desc;
    }
  return fonts[style];
}

static PangoLayout *
text_layout (CtGraphTextStyle style, const char *text)
{
  PangoLayout *layout = pango_layout_new (text_context ());

  pango_layout_set_font_description (layout, style_font (style));
  pango_layout_set_text (layout, text, -1);
  return layout;
}

double
ct_graph_text_width (CtGraphTextStyle style, const char *text)
{
  g_autoptr(PangoLayout) layout = text_layout (style, text);
  PangoRectangle logical;

  pango_layout_get_extents (layout, NULL, &logical);
  return (double) logical.width / PANGO_SCALE;
}

/* Whether text of SIZE user units comes out below 9 device pixels on a
 * pixel surface (vector surfaces keep real text at any size). */
static gboolean
small_on_pixels (cairo_t *cr, double size)
{
  double dx = size, dy = 0;

  if (cairo_surface_get_type (cairo_get_target (cr)) != CAIRO_SURFACE_TYPE_IMAGE)
    return FALSE;
  cairo_user_to_device_distance (cr, &dx, &dy);
  return sqrt (dx * dx + dy * dy) < 9.0;
}

void
ct_graph_text_draw (cairo_t *cr, CtGraphTextStyle style, const char *text, double x, double cy,
                    double max_width, const CtGraphColor *color)
{
  g_autoptr(PangoLayout) layout = text_layout (style, text);
  PangoRectangle logical;

  pango_cairo_update_context (cr, text_context ());
  pango_layout_context_changed (layout);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
    }
  pango_layout_get_extents (layout, NULL, &logical);
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a);
  cairo_move_to (cr, x, cy - (double) logical.height / PANGO_SCALE / 2);
  if (small_on_pixels (cr, text_styles[style].size))
    {
      /* cairo places glyphs on whole pixels: below ~9 px that spaces
       * letters unevenly ("Conv olution"); outlines land where they should */
      pango_cairo_layout_path (cr, layout);
      cairo_fill (cr);
    }
  else
    pango_cairo_show_layout (cr, layout);
  /* showing text leaves a current point, which the next arc would join */
  cairo_new_path (cr);
}
