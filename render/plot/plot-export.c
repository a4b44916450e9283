/* plot-export.c: a CtPlot saved as CSV or PNG.
 *
 * CSV (wide format, RFC 4180): a header row with the x label, then one
 * column per series named as the legend names it ("Loss (run 1)"); then
 * one row per x, in increasing x, holding each series' value at that x
 * and an empty cell for a series with no point there (test accuracy has a
 * point every test_interval, the training loss at every iteration). A
 * series with two points at the same x gives two rows. Hidden series are
 * left out. Numbers have 10 significant digits in the C locale, whatever
 * the user's locale; NaN and infinities are `nan`, `inf`, `-inf`. Names
 * holding a comma, quote or newline are quoted, quotes doubled.
 *
 * Both saves are atomic (a temporary file renamed over the target) and
 * their errors name the file. */
#include "atomic-write.h"
#include "plot-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

static void
append_csv_field (GString *s, const char *field)
{
  if (strpbrk (field, ",\"\n\r") == NULL)
    {
      g_string_append (s, field);
      return;
    }
  g_string_append_c (s, '"');
  for (const char *c = field; *c != '\0'; c++)
    {
      if (*c == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *c);
    }
  g_string_append_c (s, '"');
}

char *
ct_plot_csv_text (CtPlot *plot)
{
  g_autoptr(GArray) columns = g_array_new (FALSE, FALSE, sizeof (CtPlotSeries *));
  g_autofree gsize *next = NULL;
  GString *s = g_string_new (NULL);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  append_csv_field (s, plot->x_label);
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *series = g_ptr_array_index (plot->series, i);
      g_autofree char *label = NULL;

      if (!series->visible)
        continue;
      label = ct_plot_series_label (series);
      g_string_append_c (s, ',');
      append_csv_field (s, label);
      g_array_append_val (columns, series);
    }
  g_string_append_c (s, '\n');

  /* A merge of the sorted x arrays: each row takes the smallest x left,
   * and every series whose next point has that x gives its value. */
  next = g_new0 (gsize, MAX (columns->len, 1));
  for (;;)
    {
      gboolean any = FALSE;
      double x = 0;

      for (guint c = 0; c < columns->len; c++)
        {
          CtPlotSeries *series = g_array_index (columns, CtPlotSeries *, c);

          if (next[c] < series->xs->len)
            {
              double xc = g_array_index (series->xs, double, next[c]);

              x = any ? MIN (x, xc) : xc;
              any = TRUE;
            }
        }
      if (!any)
        break;
      ct_plot_format_value (buf, sizeof buf, x, TRUE);
      g_string_append (s, buf);
      for (guint c = 0; c < columns->len; c++)
        {
          CtPlotSeries *series = g_array_index (columns, CtPlotSeries *, c);

          g_string_append_c (s, ',');
          if (next[c] < series->xs->len && g_array_index (series->xs, double, next[c]) == x)
            {
              ct_plot_format_value (buf, sizeof buf,
                                    g_array_index (series->ys, double, next[c]), TRUE);
              g_string_append (s, buf);
              next[c]++;
            }
        }
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

/* Through the project's atomic writer (a temporary file renamed over the
 * old one; symlinks followed, permissions kept), in the plot's domain. */
static gboolean
save_bytes (const char *path, const void *data, gsize length, GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (ct_file_write_atomic (path, data, length, &local_error))
    return TRUE;
  g_set_error_literal (error, CT_PLOT_ERROR, CT_PLOT_ERROR_WRITE, local_error->message);
  return FALSE;
}

gboolean
ct_plot_save_csv (CtPlot *plot, const char *path, GError **error)
{
  g_autofree char *text = ct_plot_csv_text (plot);

  return save_bytes (path, text, strlen (text), error);
}

static cairo_status_t
collect_png (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append ((GByteArray *) closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
ct_plot_save_png (CtPlot *plot, const char *path, int width, int height, GError **error)
{
  g_autoptr(GByteArray) png = g_byte_array_new ();
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, MAX (width, 1),
                                                         MAX (height, 1));
  cairo_t *cr = cairo_create (surface);
  cairo_status_t status;

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  ct_plot_draw (plot, cr, width, height);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_write_to_png_stream (surface, collect_png, png);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, CT_PLOT_ERROR, CT_PLOT_ERROR_WRITE, _("%s: could not draw the plot: %s"),
                   path, cairo_status_to_string (status));
      return FALSE;
    }
  return save_bytes (path, png->data, png->len, error);
}
