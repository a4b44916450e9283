/* test-export-view.c: the view exported for slides, under Xvfb (skipped
 * without a display), on LeNet (tests/data/reference/
 * lenet_fashion_deploy_loss.prototxt): the graph as PNG has twice the
 * pixels of the graph at 100 % (its layout plus the margin) and decodes;
 * as SVG it parses as XML whose root <svg> has that doubled size; the
 * training plot as PNG and SVG likewise (twice the widget's size); once a
 * step has run, the heatmap the inspector shows as PNG at twice its size,
 * and as SVG it is refused with a reason. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "export-view.h"
#include "gui-test.h"
#include "window-private.h"

static CtApplication *app;

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

static void
assert_png_size (const char *path, int width, int height)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GdkTexture) texture = gdk_texture_new_from_file (file, &error);

  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, width);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, height);
}

/* The root element's width and height, in points without their unit. */
static void
svg_start (GMarkupParseContext *context, const char *element, const char **names,
           const char **values, gpointer data, GError **error)
{
  double *size = data;

  if (g_markup_parse_context_get_element_stack (context)->next != NULL)
    return;
  g_assert_cmpstr (element, ==, "svg");
  for (int i = 0; names[i] != NULL; i++)
    if (g_str_equal (names[i], "width"))
      size[0] = g_ascii_strtod (values[i], NULL);
    else if (g_str_equal (names[i], "height"))
      size[1] = g_ascii_strtod (values[i], NULL);
}

static void
assert_svg_size (const char *path, int width, int height)
{
  static const GMarkupParser parser = { .start_element = svg_start };
  g_autofree char *text = NULL;
  gsize length;
  double size[2] = { 0, 0 };
  g_autoptr (GError) error = NULL;
  GMarkupParseContext *context;

  g_assert_true (g_file_get_contents (path, &text, &length, NULL));
  context = g_markup_parse_context_new (&parser, G_MARKUP_IGNORE_QUALIFIED, size, NULL);
  /* the XML declaration is not markup GMarkup reads */
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_assert_true (g_markup_parse_context_parse (context, strchr (text, '\n') + 1, -1, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_markup_parse_context_free (context);
  g_assert_cmpfloat (size[0], ==, width);
  g_assert_cmpfloat (size[1], ==, height);
}

static void
test_export (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autofree char *dir = g_dir_make_tmp ("ct-export-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "graph.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "graph.svg", NULL);
  g_autofree char *plot_png = g_build_filename (dir, "plot.png", NULL);
  g_autofree char *plot_svg = g_build_filename (dir, "plot.svg", NULL);
  g_autofree char *heat_png = g_build_filename (dir, "heatmap.png", NULL);
  g_autofree char *heat_svg = g_build_filename (dir, "heatmap.svg", NULL);
  g_autoptr (GError) error = NULL;
  CtWindow *window = ct_window_new (app);
  const CtGraphScene *scene;
  int factor, w, h;
  const char *ids[] = { "conv1", NULL };
  guint64 serial = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);
  factor = 2 * gtk_widget_get_scale_factor (GTK_WIDGET (window));

  /* the graph at 100 % with its 24-pixel margin, doubled */
  scene = ct_graph_view_get_scene (window->graph_view);
  g_assert_nonnull (scene);
  w = (int) ceil ((scene->layout->width + 48) * factor);
  h = (int) ceil ((scene->layout->height + 48) * factor);
  ct_export_view_save (window, CT_EXPORT_VIEW_GRAPH, png, 0, &error);
  g_assert_no_error (error);
  assert_png_size (png, w, h);
  ct_export_view_save (window, CT_EXPORT_VIEW_GRAPH, svg, 0, &error);
  g_assert_no_error (error);
  assert_svg_size (svg, w, h);

  /* the plot, not shown: a 960×540 slide half, doubled */
  ct_export_view_save (window, CT_EXPORT_VIEW_PLOT, plot_png, 0, &error);
  g_assert_no_error (error);
  assert_png_size (plot_png, 960 * factor, 540 * factor);
  ct_export_view_save (window, CT_EXPORT_VIEW_PLOT, plot_svg, 0, &error);
  g_assert_no_error (error);
  assert_svg_size (plot_svg, 960 * factor, 540 * factor);

  /* before a step there is no heatmap; after one, conv1's is shown */
  g_assert_false (ct_export_view_save (window, CT_EXPORT_VIEW_HEATMAP, heat_png, 0, &error));
  g_clear_error (&error);
  ct_window_select (window, ids);
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  ct_gui_test_next_snapshot (window, &serial);
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  ct_gui_test_next_snapshot (window, &serial);
  ct_gui_test_spin (500);
  ct_export_view_save (window, CT_EXPORT_VIEW_HEATMAP, heat_png, 0, &error);
  g_assert_no_error (error);
  {
    g_autoptr (GFile) file = g_file_new_for_path (heat_png);
    g_autoptr (GdkTexture) texture = gdk_texture_new_from_file (file, &error);

    g_assert_no_error (error);
    g_assert_cmpint (gdk_texture_get_width (texture) % factor, ==, 0);
    g_assert_cmpint (gdk_texture_get_width (texture), >=, 100 * factor);
  }
  g_assert_false (ct_export_view_save (window, CT_EXPORT_VIEW_HEATMAP, heat_svg, 0, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_false (g_file_test (heat_svg, G_FILE_TEST_EXISTS));

  if (g_getenv ("CT_SCREENSHOT_DIR") == NULL)
    {
      g_unlink (png), g_unlink (svg), g_unlink (plot_png), g_unlink (plot_svg), g_unlink (heat_png);
      g_rmdir (dir);
    }
  else
    g_test_message ("exports kept in %s", dir);
  ct_gui_test_close_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *scratch = NULL;

  if (ct_gui_test_init (&argc, &argv, "/export-view", &scratch, &app))
    g_test_add_func ("/export-view/graph-plot-heatmap", test_export);
  return ct_gui_test_finish (g_test_run (), g_steal_pointer (&scratch), app);
}
