/* test-graph-view.c: the graph canvas (widgets/graph-view.c) in a real
 * window, under Xvfb (skipped without a display).
 *
 * LeNet's graph in a window: one focusable child per node with the
 * accessible role and name screen readers and UI tests use ("conv1,
 * Convolution"), the error as tooltip; fit, zoom in and out, clamping;
 * keyboard navigation selecting along edges with selection-changed; a new
 * model keeps the node widgets and positions of unchanged layers;
 * highlight, find, expand, pinning and export; an edge selected by a
 * click, alone, kept across models by its ends. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "graph-view.h"
#include "net-graph.h"
#include "proto-file.h"
#include "widget-test.h"

static CtNetGraph *
lenet_graph (void)
{
  g_autofree char *path = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples", "lenet-fashion",
                                            "lenet_train_test.prototxt", NULL);
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (path, CT_TEXT_STRICT, NULL, &error);
  CtNetGraphOptions options = { .phase = CT_NET_GRAPH_PHASE_TEST };
  CtNetGraph *graph;

  g_assert_no_error (error);
  graph = ct_net_graph_new (param, &options);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return graph;
}

typedef struct {
  GtkWidget *window;
  CtGraphView *view;
  CtNetGraph *graph;
  guint selection_changes;
} Fixture;

static void
on_selection_changed (CtGraphView *view, Fixture *f)
{
  f->selection_changes++;
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Run the main loop until the view is allocated and drawn once. */
static void
wait_for_frame (Fixture *f)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (5000, timeout_cb, &timed_out);

  while (!timed_out && (gtk_widget_get_width (GTK_WIDGET (f->view)) <= 0
                        || !gtk_widget_get_mapped (GTK_WIDGET (f->view))))
    g_main_context_iteration (NULL, TRUE);
  /* a few more iterations for layout and paint */
  for (int i = 0; i < 20 && !timed_out; i++)
    g_main_context_iteration (NULL, FALSE);
  if (!timed_out)
    g_source_remove (id);
  g_assert_false (timed_out);
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->graph = lenet_graph ();
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 900, 700);
  f->view = CT_GRAPH_VIEW (ct_graph_view_new ());
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->view));
  g_signal_connect (f->view, "selection-changed", G_CALLBACK (on_selection_changed), f);
  ct_graph_view_set_model (f->view, f->graph->model);
  gtk_window_present (GTK_WINDOW (f->window));
  wait_for_frame (f);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  ct_net_graph_free (f->graph);
}

static guint
count_node_children (CtGraphView *view)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (strcmp (G_OBJECT_TYPE_NAME (child), "CtGraphNodeWidget") == 0)
      n++;
  return n;
}

static void
test_children (Fixture *f, gconstpointer data)
{
  guint n = ct_graph_model_n_nodes (f->graph->model);
  guint i = 0;

  /* LeNet, TEST phase: data, conv1, pool1, conv2, pool2, ip1 (+relu1), ip2,
   * accuracy, loss */
  g_assert_cmpuint (n, ==, 9);
  g_assert_cmpuint (count_node_children (f->view), ==, n);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (f->view)); child != NULL;
       child = gtk_widget_get_next_sibling (child), i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (f->graph->model, i);
      g_autofree char *label = g_strdup_printf ("%s, %s", node->name, node->type);

      g_assert_true (gtk_widget_get_focusable (child));
      g_assert_true (gtk_widget_get_mapped (child));
      gtk_test_accessible_assert_role (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_ROLE_BUTTON);
      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (child),
                                           GTK_ACCESSIBLE_PROPERTY_LABEL, label);
      if (node->error != NULL)
        g_assert_cmpstr (gtk_widget_get_tooltip_text (child), ==, node->error);
      else
        g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (child), node->name));
      /* the allocation is the node's box, with room for rings, zoomed */
      {
        double x, y, w, h, zoom = ct_graph_view_get_zoom (f->view);
        ct_graph_scene_node_box (ct_graph_view_get_scene (f->view), i, &x, &y, &w, &h);
        g_assert_cmpfloat (fabs (gtk_widget_get_width (child) - (w + 16) * zoom), <=, 2);
        g_assert_cmpfloat (fabs (gtk_widget_get_height (child) - (h + 16) * zoom), <=, 2);
      }
    }
  g_assert_cmpuint (i, ==, n);
  g_test_message ("%u node widgets, first '%s'", i,
                  ct_graph_model_get_node (f->graph->model, 0)->id);
}

static void
test_zoom (Fixture *f, gconstpointer data)
{
  const CtGraphScene *scene = ct_graph_view_get_scene (f->view);
  double fit, zoom;

  g_assert_nonnull (scene);
  ct_graph_view_zoom_to_fit (f->view);
  fit = ct_graph_view_get_zoom (f->view);
  g_test_message ("fit: zoom %.3f for a %.0f×%.0f graph in %d×%d", fit, scene->layout->width,
                  scene->layout->height, gtk_widget_get_width (GTK_WIDGET (f->view)),
                  gtk_widget_get_height (GTK_WIDGET (f->view)));
  g_assert_cmpfloat (fit, >, 0.05);
  g_assert_cmpfloat (fit, <=, 1.0);
  g_assert_cmpfloat (scene->layout->height * fit, <=,
                     gtk_widget_get_height (GTK_WIDGET (f->view)));

  gtk_widget_activate_action (GTK_WIDGET (f->view), "graph.zoom-in", NULL);
  zoom = ct_graph_view_get_zoom (f->view);
  g_assert_cmpfloat (fabs (zoom - fit * 1.25), <, 1e-9);
  ct_graph_view_zoom_out (f->view);
  g_assert_cmpfloat (fabs (ct_graph_view_get_zoom (f->view) - fit), <, 1e-9);
  ct_graph_view_set_zoom (f->view, 100);
  g_assert_cmpfloat (ct_graph_view_get_zoom (f->view), ==, 4.0);
  ct_graph_view_set_zoom (f->view, 0);
  g_assert_cmpfloat (ct_graph_view_get_zoom (f->view), ==, 0.05);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "graph.zoom-reset", NULL);
  g_assert_cmpfloat (ct_graph_view_get_zoom (f->view), ==, 1.0);
  /* the children follow: at 100 % a node widget keeps its size */
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
}

/* The canvas explains the edges' gradient-health strips in a tooltip. */
static void
test_health_tooltip (Fixture *f, gconstpointer data)
{
  g_autofree char *text = ct_graph_view_edge_health_text ("conv1", 0.00123456);

  g_assert_true (gtk_widget_get_has_tooltip (GTK_WIDGET (f->view)));
  g_assert_nonnull (strstr (text, "“conv1”"));
  g_assert_nonnull (strstr (text, "= 0.00123"));
  g_assert_nonnull (strstr (text, "vanishes"));
  g_assert_nonnull (strstr (text, "explodes"));
}

static void
test_selection (Fixture *f, gconstpointer data)
{
  g_auto(GStrv) none = ct_graph_view_dup_selected (f->view);
  g_auto(GStrv) first = NULL;
  g_auto(GStrv) second = NULL;
  g_auto(GStrv) all = NULL;
  const char *ids[] = { "conv2", "relu1", NULL };
  g_auto(GStrv) set = NULL;

  g_assert_cmpuint (g_strv_length (none), ==, 0);
  /* the first arrow selects the first node; down follows its edge */
  gtk_widget_activate_action (GTK_WIDGET (f->view), "graph.navigate", "s", "down");
  first = ct_graph_view_dup_selected (f->view);
  g_assert_cmpuint (f->selection_changes, ==, 1);
  g_assert_cmpuint (g_strv_length (first), ==, 1);
  g_assert_cmpstr (first[0], ==, "mnist");
  gtk_widget_activate_action (GTK_WIDGET (f->view), "graph.navigate", "s", "down");
  second = ct_graph_view_dup_selected (f->view);
  g_assert_cmpuint (f->selection_changes, ==, 2);
  g_assert_cmpstr (second[0], ==, "conv1");

  gtk_widget_activate_action (GTK_WIDGET (f->view), "graph.select-all", NULL);
  all = ct_graph_view_dup_selected (f->view);
  g_assert_cmpuint (g_strv_length (all), ==, 9);
  g_assert_cmpuint (f->selection_changes, ==, 3);

  /* setting it does not emit; a folded layer is selected as itself */
  ct_graph_view_set_selected (f->view, ids);
  set = ct_graph_view_dup_selected (f->view);
  g_assert_cmpuint (f->selection_changes, ==, 3);
  g_assert_cmpuint (g_strv_length (set), ==, 2);
  g_assert_cmpstr (set[0], ==, "conv2");
  g_assert_cmpstr (set[1], ==, "relu1");
}

static void
on_delete (CtGraphView *view, char **ids, guint *count)
{
  *count = g_strv_length (ids);
}

static void
test_delete_and_find (Fixture *f, gconstpointer data)
{
  const char *ids[] = { "pool1", "pool2", NULL };
  guint deleted = 0;

  g_signal_connect (f->view, "delete-requested", G_CALLBACK (on_delete), &deleted);
  ct_graph_view_set_selected (f->view, ids);
  gtk_widget_activate_action (GTK_WIDGET (f->view), "graph.delete", NULL);
  g_assert_cmpuint (deleted, ==, 2);

  g_assert_cmpstr (ct_graph_view_find (f->view, "POOL", NULL), ==, "pool1");
  g_assert_cmpstr (ct_graph_view_find (f->view, "pool", "pool1"), ==, "pool2");
  g_assert_cmpstr (ct_graph_view_find (f->view, "pool", "pool2"), ==, "pool1");
  /* a folded layer is found as itself, and Find goes on past it */
  g_assert_cmpstr (ct_graph_view_find (f->view, "relu", NULL), ==, "relu1");
  g_assert_cmpstr (ct_graph_view_find (f->view, "1", "ip1"), ==, "relu1");
  g_assert_cmpstr (ct_graph_view_find (f->view, "ip", "relu1"), ==, "ip2");
  g_assert_null (ct_graph_view_find (f->view, "nothing-like-it", NULL));
  g_assert_true (ct_graph_view_reveal (f->view, "loss", TRUE));
  g_assert_false (ct_graph_view_reveal (f->view, "nothing-like-it", FALSE));

  ct_graph_view_set_highlight (f->view, "relu1");
  g_assert_cmpstr (ct_graph_view_get_highlight (f->view), ==, "ip1");
  ct_graph_view_set_highlight (f->view, NULL);
  g_assert_null (ct_graph_view_get_highlight (f->view));
}

/* A new model with one layer fewer keeps the other node widgets (and so
 * their focus and accessibility objects) and their places. */
static void
test_new_model (Fixture *f, gconstpointer data)
{
  g_autoptr(CtGraphModel) model = ct_graph_model_new ();
  const CtGraphModel *old = f->graph->model;
  GtkWidget *conv1_before = NULL, *conv1_after = NULL;
  double x0, y0, x1, y1;
  guint skip = (guint) ct_graph_model_find_node (old, "accuracy");
  g_autofree int *map = g_new (int, ct_graph_model_n_nodes (old));

  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (f->view)); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (conv1_before == NULL && c != NULL && gtk_widget_get_next_sibling (c) != NULL)
      conv1_before = gtk_widget_get_next_sibling (c);  /* node 1: conv1 */
  g_assert_true (ct_graph_view_get_node_position (f->view, "conv1", &x0, &y0));

  for (guint i = 0, j = 0; i < ct_graph_model_n_nodes (old); i++)
    {
      const CtGraphNode *n = ct_graph_model_get_node (old, i);
      map[i] = -1;
      if (i == skip)
        continue;
      map[i] = (int) ct_graph_model_add_node (model, n->id, n->name, n->type, n->family);
      for (guint k = 0; k < n->bottoms->len; k++)
        ct_graph_model_add_bottom (model, j, n->bottoms->pdata[k]);
      for (guint k = 0; k < n->tops->len; k++)
        ct_graph_model_add_top (model, j, n->tops->pdata[k]);
      j++;
    }
  for (guint e = 0; e < ct_graph_model_n_edges (old); e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (old, e);
      if (map[edge->from_node] >= 0 && map[edge->to_node] >= 0)
        ct_graph_model_add_edge (model, map[edge->from_node], edge->from_port,
                                 map[edge->to_node], edge->to_port, edge->blob, edge->shape);
    }
  ct_graph_view_set_model (f->view, model);
  g_assert_cmpuint (count_node_children (f->view), ==, 8);
  conv1_after = gtk_widget_get_next_sibling (gtk_widget_get_first_child (GTK_WIDGET (f->view)));
  g_assert_true (conv1_after == conv1_before);
  g_assert_true (ct_graph_view_get_node_position (f->view, "conv1", &x1, &y1));
  g_assert_cmpfloat (fabs (x1 - x0) + fabs (y1 - y0), <, 1);

  /* pinning a node moves it and keeps it there through the next model */
  g_assert_true (ct_graph_view_set_node_position (f->view, "loss", 1000, 1200));
  ct_graph_view_set_model (f->view, f->graph->model);
  g_assert_true (ct_graph_view_get_node_position (f->view, "loss", &x1, &y1));
  g_assert_cmpfloat (x1, ==, 1000);
  g_assert_cmpfloat (y1, ==, 1200);
  g_assert_cmpuint (count_node_children (f->view), ==, 9);

  /* expanding ip1 makes its node taller */
  {
    double w, h0, h1, x, y;
    int ip1 = ct_graph_model_find_node (f->graph->model, "ip1");
    ct_graph_scene_node_box (ct_graph_view_get_scene (f->view), ip1, &x, &y, &w, &h0);
    ct_graph_view_set_expanded (f->view, "ip1", TRUE);
    g_assert_true (ct_graph_view_get_expanded (f->view, "ip1"));
    ct_graph_scene_node_box (ct_graph_view_get_scene (f->view), ip1, &x, &y, &w, &h1);
    g_assert_cmpfloat (h1, >, h0);
  }

  /* LR lays out afresh */
  ct_graph_view_set_rankdir (f->view, CT_GRAPH_RANKDIR_LR);
  g_assert_cmpfloat (ct_graph_view_get_scene (f->view)->layout->width, >,
                     ct_graph_view_get_scene (f->view)->layout->height);
  wait_for_frame (f);
}

static void
test_export (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("ct-view-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "graph.png", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (ct_graph_view_export (f->view, png, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  g_remove (png);
  g_rmdir (dir);
}

static GtkEventController *
controller_of (CtGraphView *view, GType type)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (view));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (controller, type)
          && (type != GTK_TYPE_GESTURE_CLICK
              || gtk_gesture_single_get_button (GTK_GESTURE_SINGLE (controller))
                   == GDK_BUTTON_PRIMARY))
        return GTK_EVENT_CONTROLLER (controller);
    }
  g_assert_not_reached ();
  return NULL;
}

/* A primary click at graph point GX, GY, in widget coordinates from where
 * the view placed node 0's child (its box with an 8-pixel margin). */
static void
click_at (Fixture *f, double gx, double gy)
{
  const CtGraphScene *scene = ct_graph_view_get_scene (f->view);
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (f->view));
  double zoom = ct_graph_view_get_zoom (f->view);
  double x, y, w, h;
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (child, GTK_WIDGET (f->view), &bounds));
  ct_graph_scene_node_box (scene, 0, &x, &y, &w, &h);
  g_signal_emit_by_name (controller_of (f->view, GTK_TYPE_GESTURE_CLICK), "pressed", 1,
                         bounds.origin.x + (gx - (x - 8)) * zoom,
                         bounds.origin.y + (gy - (y - 8)) * zoom);
}

/* A graph point on edge EDGE (within half a pixel), off every node: across
 * the line between its ports, from the middle outwards. */
static void
point_on_edge (const CtGraphScene *scene, guint edge, double *gx, double *gy)
{
  const CtGraphEdge *e = ct_graph_model_get_edge (scene->model, edge);
  CtGraphPoint p = ct_graph_scene_port_position (scene, e->from_node, TRUE, e->from_port);
  CtGraphPoint q = ct_graph_scene_port_position (scene, e->to_node, FALSE, e->to_port);

  for (double dx = 0; dx <= 30; dx += 0.25)
    for (int sign = -1; sign <= 1; sign += 2)
      {
        *gx = (p.x + q.x) / 2 + sign * dx;
        *gy = (p.y + q.y) / 2;
        if (ct_graph_scene_edge_at (scene, *gx, *gy, 0.5) == (int) edge
            && ct_graph_scene_node_at (scene, *gx, *gy) < 0)
          return;
      }
  g_assert_not_reached ();
}

/* An edge is selected by a click on it, alone: nodes and an edge exclude
 * each other; a new model keeps it by its ends and blob. */
static void
test_edge_selection (Fixture *f, gconstpointer data)
{
  const CtGraphScene *scene = ct_graph_view_get_scene (f->view);
  const CtGraphModel *model = f->graph->model;
  const char *ids[] = { "conv1", NULL };
  int edge = -1;
  double gx, gy;
  gboolean handled = FALSE;

  for (guint e = 0; e < ct_graph_model_n_edges (model) && edge < 0; e++)
    if (g_strcmp0 (ct_graph_model_get_edge (model, e)->blob, "pool1") == 0)
      edge = (int) e;
  g_assert_cmpint (edge, >=, 0);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, -1);

  /* a click on it selects it, once */
  ct_graph_view_set_selected (f->view, ids);
  point_on_edge (scene, (guint) edge, &gx, &gy);
  click_at (f, gx, gy);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, edge);
  g_assert_cmpuint (f->selection_changes, ==, 1);
  {
    g_auto (GStrv) nodes = ct_graph_view_dup_selected (f->view);

    g_assert_cmpuint (g_strv_length (nodes), ==, 0);
  }
  click_at (f, gx, gy);
  g_assert_cmpuint (f->selection_changes, ==, 1);
  /* a few pixels beside it still hit it */
  click_at (f, gx + 3 / ct_graph_view_get_zoom (f->view), gy);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, edge);

  /* nodes selected drop it, and setting it drops them (neither emits) */
  ct_graph_view_set_selected (f->view, ids);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, -1);
  ct_graph_view_set_selected_edge (f->view, edge);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, edge);
  {
    g_auto (GStrv) nodes = ct_graph_view_dup_selected (f->view);

    g_assert_cmpuint (g_strv_length (nodes), ==, 0);
  }
  g_assert_cmpuint (f->selection_changes, ==, 1);

  /* the same graph derived again: the same edge, kept */
  {
    CtNetGraph *again = lenet_graph ();

    ct_graph_view_set_model (f->view, again->model);
    g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, edge);
    g_assert_cmpuint (f->selection_changes, ==, 1);
    ct_net_graph_free (f->graph);
    f->graph = again;
  }

  /* Escape unselects it */
  g_signal_emit_by_name (controller_of (f->view, GTK_TYPE_EVENT_CONTROLLER_KEY), "key-pressed",
                         GDK_KEY_Escape, 0, 0, &handled);
  g_assert_true (handled);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, -1);
  g_assert_cmpuint (f->selection_changes, ==, 2);

  /* a click on the background too; a model without it drops it */
  click_at (f, gx, gy);
  g_assert_cmpuint (f->selection_changes, ==, 3);
  click_at (f, gx + 200, gy);
  g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, -1);
  g_assert_cmpuint (f->selection_changes, ==, 4);
  ct_graph_view_set_selected_edge (f->view, edge);
  {
    g_autoptr (CtGraphModel) lone = ct_graph_model_new ();

    ct_graph_model_add_node (lone, "conv1", "conv1", "Convolution", CT_GRAPH_FAMILY_VISION);
    ct_graph_view_set_model (f->view, lone);
    g_assert_cmpint (ct_graph_view_get_selected_edge (f->view), ==, -1);
    g_assert_cmpuint (f->selection_changes, ==, 5);
    ct_graph_view_set_model (f->view, f->graph->model);
  }
}

int
main (int argc, char **argv)
{
  /* ct_widget_test_init gives the test AT context, which lets the test
   * read accessible properties */
  if (!ct_widget_test_init (&argc, &argv, "/gtk/graph-view"))
    return g_test_run ();
  g_test_add ("/gtk/graph-view/children", Fixture, NULL, fixture_setup, test_children,
              fixture_teardown);
  g_test_add ("/gtk/graph-view/zoom", Fixture, NULL, fixture_setup, test_zoom, fixture_teardown);
  g_test_add ("/gtk/graph-view/health-tooltip", Fixture, NULL, fixture_setup, test_health_tooltip,
              fixture_teardown);
  g_test_add ("/gtk/graph-view/selection", Fixture, NULL, fixture_setup, test_selection,
              fixture_teardown);
  g_test_add ("/gtk/graph-view/delete-and-find", Fixture, NULL, fixture_setup,
              test_delete_and_find, fixture_teardown);
  g_test_add ("/gtk/graph-view/new-model", Fixture, NULL, fixture_setup, test_new_model,
              fixture_teardown);
  g_test_add ("/gtk/graph-view/export", Fixture, NULL, fixture_setup, test_export,
              fixture_teardown);
  g_test_add ("/gtk/graph-view/edge-selection", Fixture, NULL, fixture_setup, test_edge_selection,
              fixture_teardown);
  return g_test_run ();
}
