/* test-graph-editing.c: editing a net in the graph as a new user would, in
 * a real window under Xvfb (skipped without a display), through the
 * canvas's own click and drag gestures:
 *
 * - a layer folded into another (BatchNorm, Scale, ReLU after a
 *   convolution) is selected by a click on its chip or its unfolded row,
 *   and opens in the inspector; its context menu is its own; Find selects
 *   it; the arrow after the chips folds and unfolds them;
 * - a layer dropped on the canvas and then connected is laid out below its
 *   new input, with no edge running upwards;
 * - Fit shows the whole of ResNet-152, and Find brings a layer into view at
 *   a size that can be read;
 * - the names and shapes an Input node writes above its two ports are not
 *   covered by the ports.
 *
 * With CT_SCREENSHOT_DIR set, each test also saves a PNG of the window
 * (item1, item2, item3, with CT_SHOT_SUFFIX appended to the name). */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "graph-view.h"
#include "gui-test.h"

static CtApplication *app;

static CtWindow *
open_window (const char *example, const char *path)
{
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  if (example != NULL)
    g_assert_true (ct_window_load_example (window, example));
  else
    {
      g_autoptr (GFile) file = g_file_new_for_path (path);
      g_assert_true (ct_window_load_file (window, file));
    }
  ct_gui_test_settle (window);
  ct_gui_test_spin (300);
  return window;
}

static CtGraphView *
view_of (CtWindow *window)
{
  return CT_GRAPH_VIEW (ct_window_get_graph_view (window));
}

/* The view's controller of TYPE (for a click gesture, the one for BUTTON). */
static GtkEventController *
controller_of (CtGraphView *view, GType type, guint button)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (view));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type)
          && (button == 0
              || gtk_gesture_single_get_button (GTK_GESTURE_SINGLE (controller)) == button))
        return GTK_EVENT_CONTROLLER (controller);
    }
  g_assert_not_reached ();
  return NULL;
}

/* Widget coordinates of graph point GX, GY, from where the view placed the
 * child of node NODE (its box with an 8-pixel margin, zoomed). */
static void
to_view (CtGraphView *view, guint node, double gx, double gy, double *wx, double *wy)
{
  const CtGraphScene *scene = ct_graph_view_get_scene (view);
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view));
  double zoom = ct_graph_view_get_zoom (view);
  double x, y, w, h;
  graphene_rect_t bounds;

  for (guint i = 0; i < node; i++)
    child = gtk_widget_get_next_sibling (child);
  g_assert_true (gtk_widget_compute_bounds (child, GTK_WIDGET (view), &bounds));
  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  *wx = bounds.origin.x + (gx - (x - 8)) * zoom;
  *wy = bounds.origin.y + (gy - (y - 8)) * zoom;
}

static int
node_of (CtGraphView *view, const char *id)
{
  int node = ct_graph_model_find_node (ct_graph_view_get_model (view), id);

  g_assert_cmpint (node, >=, 0);
  return node;
}

/* A click (button BUTTON, N_PRESS presses) at graph point GX, GY on NODE,
 * as the canvas's click gesture reports it. */
static void
click (CtGraphView *view, guint button, int n_press, guint node, double gx, double gy)
{
  GtkEventController *gesture = controller_of (view, GTK_TYPE_GESTURE_CLICK, button);
  double wx, wy;

  to_view (view, node, gx, gy, &wx, &wy);
  g_signal_emit_by_name (gesture, "pressed", n_press, wx, wy);
  ct_gui_test_spin (20);
}

static void
click_box (CtGraphView *view, guint button, guint node, const double *box)
{
  click (view, button, 1, node, box[0] + box[2] / 2, box[1] + box[3] / 2);
}

static void
assert_selected (CtWindow *window, const char *id)
{
  g_auto (GStrv) selected = ct_window_dup_selected (window);

  g_assert_cmpuint (g_strv_length (selected), ==, 1);
  g_assert_cmpstr (selected[0], ==, id);
}

/* The inspector's title names the layer it shows. */
static void
assert_inspected (CtWindow *window, const char *name)
{
  GtkWidget *title;

  ct_gui_test_spin (100);  /* the inspector follows the selection when idle */
  title = ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, name);
  g_assert_nonnull (title);
  g_assert_true (gtk_widget_get_mapped (title));
}

/* With CT_SCREENSHOT_DIR set: the window as NAME + CT_SHOT_SUFFIX + ".png". */
static void
shoot (CtWindow *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  const char *suffix = g_getenv ("CT_SHOT_SUFFIX");
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  file = g_strdup_printf ("%s%s.png", name, suffix != NULL ? suffix : "");
  path = g_build_filename (dir, file, NULL);
  ct_gui_test_spin (400);
  g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
  g_test_message ("saved %s", path);
}

static void
on_context_menu (CtGraphView *view, const char *id, double x, double y, char **out)
{
  g_free (*out);
  *out = g_strdup (id != NULL ? id : "(canvas)");
}

static void
find_text (CtWindow *window, const char *text)
{
  GtkWidget *bar = ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_SEARCH_BAR, NULL);
  GtkWidget *entry = bar != NULL ? ct_gui_test_find_widget (bar, GTK_TYPE_SEARCH_ENTRY, NULL)
                                  : NULL;

  g_assert_nonnull (entry);
  g_action_group_activate_action (G_ACTION_GROUP (window), "find", NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  ct_gui_test_spin (400);  /* the entry reports a change after a short pause */
}

/* Folded layers: a click on a chip or a row selects that layer. */
static void
test_folded_layers (void)
{
  CtWindow *window = open_window ("resnet-block", NULL);
  CtGraphView *view = view_of (window);
  int conv1 = node_of (view, "conv1");
  g_autofree char *asked = NULL;
  double box[4];

  /* the chips: BatchNorm, Scale, ReLU; a click selects, and unfolds nothing */
  g_assert_true (ct_graph_scene_folded_box (ct_graph_view_get_scene (view), conv1, 0, box));
  click_box (view, GDK_BUTTON_PRIMARY, conv1, box);
  assert_selected (window, "bn1");
  assert_inspected (window, "bn1");
  g_assert_false (ct_graph_view_get_expanded (view, "conv1"));
  shoot (window, "item1");

  /* the arrow unfolds; a click on a row selects its layer */
  g_assert_true (ct_graph_scene_folded_toggle_box (ct_graph_view_get_scene (view), conv1, box));
  click_box (view, GDK_BUTTON_PRIMARY, conv1, box);
  g_assert_true (ct_graph_view_get_expanded (view, "conv1"));
  assert_selected (window, "bn1");
  g_assert_true (ct_graph_scene_folded_box (ct_graph_view_get_scene (view), conv1, 1, box));
  click_box (view, GDK_BUTTON_PRIMARY, conv1, box);
  assert_selected (window, "scale1");
  assert_inspected (window, "scale1");

  /* the context menu is the folded layer's own */
  g_signal_connect (view, "context-menu", G_CALLBACK (on_context_menu), &asked);
  g_assert_true (ct_graph_scene_folded_box (ct_graph_view_get_scene (view), conv1, 2, box));
  click_box (view, GDK_BUTTON_SECONDARY, conv1, box);
  g_assert_cmpstr (asked, ==, "relu1");
  assert_selected (window, "relu1");
  g_signal_handlers_disconnect_by_data (view, &asked);
  {
    GtkWidget *popover = ct_gui_test_find_widget (GTK_WIDGET (view), GTK_TYPE_POPOVER_MENU, NULL);
    if (popover != NULL)
      gtk_popover_popdown (GTK_POPOVER (popover));
  }

  /* the node's body still selects the node; Find selects folded layers */
  click (view, GDK_BUTTON_PRIMARY, 1, conv1,
         ct_graph_view_get_scene (view)->layout->nodes[conv1].x,
         ct_graph_view_get_scene (view)->layout->nodes[conv1].y
           - ct_graph_view_get_scene (view)->layout->nodes[conv1].height / 2 + 30);
  assert_selected (window, "conv1");
  find_text (window, "scale2");
  assert_selected (window, "scale2");
  assert_inspected (window, "scale2");

  /* folding again */
  g_assert_true (ct_graph_scene_folded_toggle_box (ct_graph_view_get_scene (view), conv1, box));
  click_box (view, GDK_BUTTON_PRIMARY, conv1, box);
  g_assert_false (ct_graph_view_get_expanded (view, "conv1"));
  ct_gui_test_close_window (window);
}

/* A drag from a top port onto a node, as the canvas's drag gesture reports
 * it. */
static void
drag_connect (CtGraphView *view, const char *from, const char *to)
{
  GtkEventController *gesture = controller_of (view, GTK_TYPE_GESTURE_DRAG, GDK_BUTTON_PRIMARY);
  const CtGraphScene *scene = ct_graph_view_get_scene (view);
  int from_node = node_of (view, from), to_node = node_of (view, to);
  CtGraphPoint port = ct_graph_scene_port_position (scene, from_node, TRUE, 0);
  const CtGraphLayoutNode *target = &scene->layout->nodes[to_node];
  double x0, y0, x1, y1;

  to_view (view, from_node, port.x, port.y, &x0, &y0);
  to_view (view, to_node, target->x, target->y, &x1, &y1);
  g_signal_emit_by_name (gesture, "drag-begin", x0, y0);
  g_signal_emit_by_name (gesture, "drag-update", (x1 - x0) / 2, (y1 - y0) / 2);
  g_signal_emit_by_name (gesture, "drag-update", x1 - x0, y1 - y0);
  g_signal_emit_by_name (gesture, "drag-end", x1 - x0, y1 - y0);
}

/* Connecting lays the connected layer out below its input. */
static void
test_connect_lays_out (void)
{
  CtWindow *window = open_window ("lenet-fashion", NULL);
  CtGraphView *view = view_of (window);
  const CtGraphScene *scene = ct_graph_view_get_scene (view);
  g_autofree char *id = NULL;
  double x = scene->layout->width + 160, y = 40;
  const CtGraphModel *model;
  int pool2, added;

  /* a layer dropped on the empty canvas, up and to the right */
  g_signal_emit_by_name (view, "layer-dropped", "InnerProduct", x, y, -1);
  ct_gui_test_settle (window);
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_cmpuint (g_strv_length (selected), ==, 1);
    id = g_strdup (selected[0]);
  }
  scene = ct_graph_view_get_scene (view);
  g_assert_cmpfloat (fabs (scene->layout->nodes[node_of (view, id)].y - y), <, 1);

  drag_connect (view, "pool2", id);
  ct_gui_test_settle (window);
  ct_gui_test_spin (100);
  scene = ct_graph_view_get_scene (view);
  model = ct_graph_view_get_model (view);
  pool2 = node_of (view, "pool2");
  added = node_of (view, id);
  {
    guint n_in;
    const guint *in = ct_graph_model_node_in_edges (model, added, &n_in);
    g_assert_cmpuint (n_in, ==, 1);
    g_assert_cmpuint (ct_graph_model_get_edge (model, in[0])->from_node, ==, pool2);
  }
  /* below its input, no edge running upwards, no node on another */
  g_assert_cmpfloat (scene->layout->nodes[added].y, >, scene->layout->nodes[pool2].y);
  for (guint e = 0; e < ct_graph_model_n_edges (model); e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);
      g_assert_cmpfloat (scene->layout->nodes[edge->to_node].y, >,
                         scene->layout->nodes[edge->from_node].y);
    }
  g_assert_cmpuint (ct_graph_layout_count_overlaps (scene->layout), ==, 0);
  ct_window_select (window, (const char *[]) { id, NULL });
  ct_graph_view_reveal (view, id, FALSE);
  shoot (window, "item2");
  ct_gui_test_close_window (window);
}

/* Fit shows all of ResNet-152; Find shows a layer at a readable size. */
static void
test_fit_and_find_large (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", "resnet152",
                                            "ResNet-152-deploy.prototxt", NULL);
  CtWindow *window = open_window (NULL, path);
  CtGraphView *view = view_of (window);
  const CtGraphScene *scene = ct_graph_view_get_scene (view);
  int width = gtk_widget_get_width (GTK_WIDGET (view));
  int height = gtk_widget_get_height (GTK_WIDGET (view));
  double zoom;
  graphene_rect_t bounds;
  GtkWidget *child;

  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-fit", NULL);
  ct_gui_test_spin (50);
  zoom = ct_graph_view_get_zoom (view);
  g_test_message ("fit: %.4f for %.0f×%.0f in %d×%d", zoom, scene->layout->width,
                  scene->layout->height, width, height);
  g_assert_cmpfloat (scene->layout->height * zoom, <=, height);
  g_assert_cmpfloat (scene->layout->width * zoom, <=, width);
  shoot (window, "item3-fit");

  find_text (window, "res5a_branch2b");
  ct_gui_test_spin (400);  /* the scroll is animated */
  assert_selected (window, "res5a_branch2b");
  zoom = ct_graph_view_get_zoom (view);
  g_assert_cmpfloat (zoom, >=, 0.45);
  child = gtk_widget_get_first_child (GTK_WIDGET (view));
  for (int i = 0; i < node_of (view, "res5a_branch2b"); i++)
    child = gtk_widget_get_next_sibling (child);
  g_assert_true (gtk_widget_compute_bounds (child, GTK_WIDGET (view), &bounds));
  g_assert_cmpfloat (bounds.origin.x, >=, 0);
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, width);
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, height);
  shoot (window, "item3");
  ct_gui_test_close_window (window);
}

/* An Input node with two tops names them (with the shape) in a row above
 * its ports: no text may run under a port circle. */
static void
test_port_row_clear (void)
{
  static const char net[] =
    "name: \"two-tops\"\n"
    "layer { name: \"data\" type: \"Input\" top: \"data\" top: \"label\"\n"
    "  input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } shape { dim: 1 } } }\n"
    "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"data\" top: \"ip\"\n"
    "  inner_product_param { num_output: 2 } }\n";
  g_autofree char *dir = g_dir_make_tmp ("cortado-port-row-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "two-tops.prototxt", NULL);
  CtWindow *window;
  const CtGraphScene *scene;
  cairo_surface_t *surface;
  cairo_t *cr;
  double x, y, w, h;
  int node, dark = 0;

  g_assert_true (g_file_set_contents (path, net, -1, NULL));
  window = open_window (NULL, path);
  scene = ct_graph_view_get_scene (view_of (window));
  node = node_of (view_of (window), "data");
  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  /* the node as the view draws it, without its ports, at 4 pixels a unit */
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) (w + 16) * 4,
                                        (int) (h + 16) * 4);
  cr = cairo_create (surface);
  cairo_scale (cr, 4, 4);
  cairo_translate (cr, 8 - x, 8 - y);
  ct_graph_render_node (cr, scene, node, CT_GRAPH_NODE_STATE_NONE, 0,
                        ct_graph_palette_get (FALSE));
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  for (guint port = 0; port < 2; port++)
    {
      CtGraphPoint p = ct_graph_scene_port_position (scene, node, TRUE, port);
      const guint8 *data = cairo_image_surface_get_data (surface);
      int stride = cairo_image_surface_get_stride (surface);

      /* where the port circle (radius 3.5, stroke 1.5) goes, above the
       * border */
      for (int py = (int) ((p.y - 6 - y + 8) * 4); py < (int) ((p.y - 2 - y + 8) * 4); py++)
        for (int px = (int) ((p.x - 4 - x + 8) * 4); px < (int) ((p.x + 4 - x + 8) * 4); px++)
          {
            const guint8 *pixel = data + py * stride + px * 4;  /* B, G, R, A */
            if (pixel[3] > 0 && pixel[0] + pixel[1] + pixel[2] < 3 * 150)
              dark++;
          }
    }
  cairo_surface_destroy (surface);
  g_test_message ("%d dark pixels where the ports go", dark);
  g_assert_cmpint (dark, ==, 0);
  shoot (window, "item9");
  ct_gui_test_close_window (window);
  g_remove (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/graph-editing", &scratch, &app))
    {
      g_test_add_func ("/gtk/graph-editing/folded-layers", test_folded_layers);
      g_test_add_func ("/gtk/graph-editing/connect-lays-out", test_connect_lays_out);
      g_test_add_func ("/gtk/graph-editing/fit-and-find-large", test_fit_and_find_large);
      g_test_add_func ("/gtk/graph-editing/port-row-clear", test_port_row_clear);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
