/* export-view.c: the current view for slides (see export-view.h). */
#include <cairo-svg.h>
#include <glib/gi18n-lib.h>
#include <math.h>

#include "atomic-write.h"
#include "export-view.h"
#include "graph/graph-render.h"
#include "heatmap-view.h"
#include "window-private.h"

#define GRAPH_MARGIN 24.0

typedef void (*PaintFunc) (cairo_t *cr, double width, double height, gpointer data);

static cairo_status_t
collect (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
is_svg (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  return g_str_has_suffix (lower, ".svg");
}

/* PAINT of WIDTH × HEIGHT (in screen pixels) drawn at SCALE into PATH: a
 * PNG of that many more pixels, or an SVG of that size. */
static gboolean
save_painted (const char *path, double width, double height, double scale, PaintFunc paint,
              gpointer data, GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  int pw = (int) ceil (width * scale), ph = (int) ceil (height * scale);
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;

  if (pw > 32000 || ph > 32000)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: the picture would be %d×%d pixels, more than cairo can draw"),
                   path, pw, ph);
      return FALSE;
    }
  if (is_svg (path))
    surface = cairo_svg_surface_create_for_stream (collect, bytes, pw, ph);
  else
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, pw, ph);
  cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  paint (cr, width, height, data);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && !is_svg (path))
    status = cairo_surface_write_to_png_stream (surface, collect, bytes);
  /* an SVG surface writes its last bytes when finished */
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("could not write %s: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return ct_file_write_atomic (path, bytes->data, bytes->len, error);
}

/* The graph */

static void
paint_graph (cairo_t *cr, double width, double height, gpointer data)
{
  const CtGraphScene *scene = data;
  const CtGraphPalette *palette = ct_graph_palette_get (FALSE);

  cairo_set_source_rgba (cr, palette->background.r, palette->background.g,
                         palette->background.b, palette->background.a);
  cairo_paint (cr);
  cairo_translate (cr, GRAPH_MARGIN, GRAPH_MARGIN);
  ct_graph_render_scene (cr, scene, palette);
}

static gboolean
save_graph (CtWindow *window, const char *path, double scale, GError **error)
{
  const CtGraphScene *scene = ct_graph_view_get_scene (window->graph_view);

  if (scene == NULL || scene->layout == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no graph to export"));
      return FALSE;
    }
  return save_painted (path, scene->layout->width + 2 * GRAPH_MARGIN,
                       scene->layout->height + 2 * GRAPH_MARGIN, scale, paint_graph,
                       (gpointer) scene, error);
}

/* The training plot, at the size it has on the screen */

static void
paint_plot (cairo_t *cr, double width, double height, gpointer data)
{
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  ct_plot_draw (data, cr, width, height);
}

static gboolean
save_plot (CtWindow *window, const char *path, double scale, GError **error)
{
  CtPlotView *view = ct_window_train_get_plot (window);
  int width = view != NULL ? gtk_widget_get_width (GTK_WIDGET (view)) : 0;
  int height = view != NULL ? gtk_widget_get_height (GTK_WIDGET (view)) : 0;

  if (view == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no plot to export"));
      return FALSE;
    }
  /* not shown yet (another view is visible): the size of a slide's half */
  if (width < 100 || height < 100)
    width = 960, height = 540;
  return save_painted (path, width, height, scale, paint_plot, ct_plot_view_get_plot (view), error);
}

/* The heatmap: the inspector's widget, rendered at SCALE */

static GtkWidget *
find_heatmap (GtkWidget *widget)
{
  if (CT_IS_HEATMAP_VIEW (widget) && gtk_widget_get_mapped (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_heatmap (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
save_heatmap (CtWindow *window, const char *path, double scale, GError **error)
{
  GtkWidget *heatmap = find_heatmap (GTK_WIDGET (window->blob_panel));
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GtkSnapshot) snapshot = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (GBytes) png = NULL;
  GskRenderer *renderer;
  int width, height;

  if (is_svg (path))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("A heatmap is an image: export it as PNG"));
      return FALSE;
    }
  if (heatmap == NULL || ct_heatmap_view_get_n_samples (CT_HEATMAP_VIEW (heatmap)) == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("No heatmap is shown: step the run and select a blob first"));
      return FALSE;
    }
  width = gtk_widget_get_width (heatmap);
  height = gtk_widget_get_height (heatmap);
  paintable = gtk_widget_paintable_new (heatmap);
  snapshot = gtk_snapshot_new ();
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 },
                             &GRAPHENE_RECT_INIT (0, 0, width * scale, height * scale));
  gtk_snapshot_scale (snapshot, (float) scale, (float) scale);
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  renderer = gtk_native_get_renderer (gtk_widget_get_native (heatmap));
  if (node == NULL || renderer == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           _("The heatmap is not drawn yet"));
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, ceil (width * scale),
                                                              ceil (height * scale)));
  png = gdk_texture_save_to_png_bytes (texture);
  return ct_file_write_atomic (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png), error);
}

gboolean
ct_export_view_save (CtWindow *window, CtExportView view, const char *path, double scale,
                     GError **error)
{
  g_return_val_if_fail (CT_IS_WINDOW (window), FALSE);
  if (scale <= 0)
    scale = 2.0 * gtk_widget_get_scale_factor (GTK_WIDGET (window));
  switch (view)
    {
    case CT_EXPORT_VIEW_HEATMAP:
      return save_heatmap (window, path, scale, error);
    case CT_EXPORT_VIEW_PLOT:
      return save_plot (window, path, scale, error);
    case CT_EXPORT_VIEW_GRAPH:
    default:
      return save_graph (window, path, scale, error);
    }
}

/* The action: a file chooser with the choice of view and format */

static const char *const view_ids[] = { "graph", "heatmap", "plot" };

static void
chosen (GtkNativeDialog *dialog, int response, CtWindow *window)
{
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (chooser);
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      const char *choice = gtk_file_chooser_get_choice (chooser, "view");
      g_autoptr (GError) error = NULL;
      CtExportView view = CT_EXPORT_VIEW_GRAPH;

      for (guint i = 0; choice != NULL && i < G_N_ELEMENTS (view_ids); i++)
        if (g_str_equal (choice, view_ids[i]))
          view = (CtExportView) i;
      if (path != NULL && !g_str_has_suffix (path, ".png") && !g_str_has_suffix (path, ".svg"))
        {
          GtkFileFilter *filter = gtk_file_chooser_get_filter (chooser);
          const char *name = filter != NULL ? gtk_file_filter_get_name (filter) : NULL;
          gboolean svg = name != NULL && g_object_get_data (G_OBJECT (filter), "svg") != NULL;
          char *with = g_strconcat (path, svg ? ".svg" : ".png", NULL);

          g_free (path);
          path = with;
        }
      if (path == NULL)
        ct_window_show_error (window, _("The view can only be exported to a local file"));
      else if (!ct_export_view_save (window, view, path, 0, &error))
        ct_window_report_error (window, _("The view could not be exported"), error);
      else
        {
          g_autofree char *base = g_path_get_basename (path);
          /* TRANSLATORS: %s is a file name */
          g_autofree char *text = g_strdup_printf (_("Exported %s"), base);
          ct_window_show_toast (window, text);
        }
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (dialog));
  g_object_unref (dialog);
}

void
ct_window_export_view_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *window = data;
  GtkFileChooserNative *chooser;
  const char *visible = adw_view_stack_get_visible_child_name (window->view_stack);
  const char *labels[] = { _("The graph"), _("The heatmap in the inspector"),
                           _("The training plot"), NULL };
  g_autoptr (GtkFileFilter) png = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) svg = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Export the View for Slides"), GTK_WINDOW (window),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                                         _("_Cancel"));
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (chooser), "view", _("Export"),
                               (const char **) view_ids, labels);
  gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (chooser), "view",
                               g_strcmp0 (visible, "training") == 0 ? "plot" : "graph");
  gtk_file_filter_set_name (png, _("PNG Image (twice the screen's resolution)"));
  gtk_file_filter_add_suffix (png, "png");
  gtk_file_filter_set_name (svg, _("SVG Image (graph and plot)"));
  gtk_file_filter_add_suffix (svg, "svg");
  g_object_set_data (G_OBJECT (svg), "svg", GINT_TO_POINTER (1));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), png);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), svg);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser),
                                     g_strcmp0 (visible, "training") == 0 ? "plot.png"
                                                                         : "graph.png");
  g_signal_connect (chooser, "response", G_CALLBACK (chosen), window);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
