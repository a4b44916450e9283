/* graph-export.c: writing a scene as PNG, SVG or PDF (see
 * graph-render.h), with a margin and the palette's background. */
#include "graph-render.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <math.h>

#define EXPORT_MARGIN 24.0
#define MAX_IMAGE_SIDE 32000.0

static void
paint_export (cairo_t *cr, const CtGraphScene *scene, const CtGraphPalette *palette,
              double width, double height)
{
  cairo_set_source_rgba (cr, palette->background.r, palette->background.g,
                         palette->background.b, palette->background.a);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_translate (cr, EXPORT_MARGIN, EXPORT_MARGIN);
  ct_graph_render_scene (cr, scene, palette);
}

static gboolean
check_surface (cairo_surface_t *surface, const char *path, GError **error)
{
  cairo_status_t status = cairo_surface_status (surface);

  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("could not write %s: %s"), path,
               cairo_status_to_string (status));
  return FALSE;
}

gboolean
ct_graph_render_to_file (const CtGraphScene *scene, const char *path,
                         const CtGraphPalette *palette, double scale, GError **error)
{
  double width = scene->layout->width + 2 * EXPORT_MARGIN;
  double height = scene->layout->height + 2 * EXPORT_MARGIN;
  g_autofree char *lower = g_ascii_strdown (path, -1);
  cairo_surface_t *surface = NULL;
  cairo_t *cr;
  gboolean ok;

  if (palette == NULL)
    palette = ct_graph_palette_get (FALSE);
  if (scale <= 0)
    scale = 1;

  if (g_str_has_suffix (lower, ".png"))
    {
      cairo_status_t status;

      /* cairo's image surfaces stop at 32767 pixels a side */
      scale = MIN (scale, MAX_IMAGE_SIDE / MAX (width, height));
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale),
                                            (int) ceil (height * scale));
      if (!check_surface (surface, path, error))
        {
          cairo_surface_destroy (surface);
          return FALSE;
        }
      cr = cairo_create (surface);
      cairo_scale (cr, scale, scale);
      paint_export (cr, scene, palette, width, height);
      cairo_destroy (cr);
      status = cairo_surface_write_to_png (surface, path);
      cairo_surface_destroy (surface);
      if (status != CAIRO_STATUS_SUCCESS)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("could not write %s: %s"), path,
                       cairo_status_to_string (status));
          return FALSE;
        }
      return TRUE;
    }
  if (g_str_has_suffix (lower, ".svg"))
    surface = cairo_svg_surface_create (path, width, height);
  else if (g_str_has_suffix (lower, ".pdf"))
    surface = cairo_pdf_surface_create (path, width, height);
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: unknown image format (use .png, .svg or .pdf)"), path);
      return FALSE;
    }
  if (!check_surface (surface, path, error))
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }
  cr = cairo_create (surface);
  paint_export (cr, scene, palette, width, height);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  ok = check_surface (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}
