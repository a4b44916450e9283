/* attribution-export.c: overlays as PNG, maps as .npy. */
#include <cairo.h>
#include <math.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "atomic-write.h"
#include "attribution-export.h"
#include "heatmap/blob-export.h"
#include "heatmap/colormap.h"

static void
value_range (const float *v, gsize n, float *lo, float *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (gsize i = 0; i < n; i++)
    if (isfinite (v[i]))
      {
        *lo = MIN (*lo, v[i]);
        *hi = MAX (*hi, v[i]);
      }
  if (!(*lo <= *hi))
    *lo = *hi = 0.0f;
}

static double
stretch (float v, float lo, float hi)
{
  return hi > lo ? CLAMP ((v - lo) / (hi - lo), 0.0, 1.0) : 0.5;
}

guint32 *
ct_attribution_pixels (const float *image, guint channels, guint height, guint width,
                       const float *map, double opacity, guint scale)
{
  gsize plane = (gsize) height * width;
  guint ow = width * scale, oh = height * scale;
  guint32 *out = g_new (guint32, (gsize) ow * oh);
  float ilo, ihi, mlo, mhi;
  CtColorScale cscale;
  CtColormap cmap;

  value_range (image, plane * channels, &ilo, &ihi);
  value_range (map, plane, &mlo, &mhi);
  if (mlo < 0.0f)
    {
      double m = MAX (fabs (mlo), fabs (mhi));

      cmap = CT_COLORMAP_DIVERGING;
      cscale = (CtColorScale) { -MAX (m, 1e-30), MAX (m, 1e-30) };
    }
  else
    {
      cmap = CT_COLORMAP_VIRIDIS;
      cscale = (CtColorScale) { 0.0, MAX ((double) mhi, 1e-30) };
    }
  opacity = CLAMP (opacity, 0.0, 1.0);
  for (guint y = 0; y < height; y++)
    for (guint x = 0; x < width; x++)
      {
        gsize i = (gsize) y * width + x;
        double rgb[3];
        CtRgb m = ct_colormap_map (cmap, &cscale, map[i]);
        guint32 pixel;

        if (channels >= 3) /* Caffe's order: blue, green, red */
          for (guint c = 0; c < 3; c++)
            rgb[2 - c] = stretch (image[c * plane + i], ilo, ihi);
        else
          rgb[0] = rgb[1] = rgb[2] = stretch (image[i], ilo, ihi);
        rgb[0] = rgb[0] * (1 - opacity) + m.r / 255.0 * opacity;
        rgb[1] = rgb[1] * (1 - opacity) + m.g / 255.0 * opacity;
        rgb[2] = rgb[2] * (1 - opacity) + m.b / 255.0 * opacity;
        pixel = 0xff000000u | ((guint32) lround (rgb[0] * 255) << 16)
                | ((guint32) lround (rgb[1] * 255) << 8) | (guint32) lround (rgb[2] * 255);
        for (guint dy = 0; dy < scale; dy++)
          for (guint dx = 0; dx < scale; dx++)
            out[(gsize) (y * scale + dy) * ow + x * scale + dx] = pixel;
      }
  return out;
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
ct_attribution_save_png (const char *path, const float *image, guint channels, guint height,
                         guint width, const float *map, double opacity, guint scale,
                         GError **error)
{
  g_autofree guint32 *pixels = NULL;
  g_autoptr (GByteArray) png = g_byte_array_new ();
  cairo_surface_t *surface;
  cairo_status_t status;
  int stride;

  scale = MAX (scale, 1);
  pixels = ct_attribution_pixels (image, channels, height, width, map, opacity, scale);
  stride = cairo_format_stride_for_width (CAIRO_FORMAT_RGB24, (int) (width * scale));
  g_assert (stride == (int) (width * scale * 4));
  surface = cairo_image_surface_create_for_data ((unsigned char *) pixels, CAIRO_FORMAT_RGB24,
                                                 (int) (width * scale), (int) (height * scale),
                                                 stride);
  status = cairo_surface_write_to_png_stream (surface, append_bytes, png);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_FILE,
                   _("%s: could not draw the picture: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return ct_file_write_atomic (path, png->data, png->len, error);
}

gboolean
ct_attribution_save_npy (const char *path, const float *map, guint height, guint width,
                         GError **error)
{
  gint64 dims[2] = { height, width };

  return ct_blob_save_npy (path, map, dims, 2, error);
}
