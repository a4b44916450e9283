/* test-window-edges.c: selecting an edge of the graph (a blob) in a real
 * window under Xvfb (skipped without a display), with the window's own run
 * of the reference LeNet (Caffe's trained Fashion-MNIST weights,
 * tests/data/reference, and the reference fill), its graph clicked as a
 * user would through the canvas's click gesture:
 *
 * - a click on the edge from ip1 (relu1 folded in) to ip2 selects that
 *   blob (no layer), emphasises the edge and names it in the inspector;
 *   after forward the blob panel shows that blob alone, in the version
 *   ip2 reads ("after relu1"), with the engine's statistics;
 * - ip2 (4 × 10) shows as a matrix or as bars of one sample, by the
 *   panel's toggle, kept across snapshots, never for a 4-axis blob;
 * - after backward, the edge from conv2 to pool2 shows the engine's data
 *   and diff statistics;
 * - from the keyboard, "Select Edge" in the panel turns pool1's input
 *   into the selection of the edge from conv1 to pool1; selecting a layer
 *   unselects the edge;
 * - ip1 (relu1 folded in) selected after its pass shows one version and
 *   says why; watched from a pass's start it shows "after ip1" (its own)
 *   and "after relu1" (relu1's, the engine's).
 *
 * With CT_SCREENSHOT_DIR set, the window with that edge selected is saved
 * there as edge-selected.png. */
#include <math.h>
#include <string.h>

#include "blob.h"
#include "graph-view.h"
#include "gui-test.h"
#include "heatmap-view.h"
#include "net-dump.h"
#include "net.h"
#include "window-private.h"

static CtApplication *app;

static GtkWidget *
panel_part (CtWindow *window, const char *name)
{
  GtkWidget *widget = ct_gui_test_find_named (GTK_WIDGET (window), name);

  g_assert_nonnull (widget);
  return widget;
}

static void
assert_label (CtWindow *window, const char *name, const char *want)
{
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (panel_part (window, name))), ==, want);
}

static void
select_layer (CtWindow *window, const char *name)
{
  const char *ids[] = { name, NULL };

  ct_window_select (window, ids);
  ct_gui_test_spin (50);
}

static char *
reference_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

/* The engine's own run of the window's net: forward and backward. */
static CtNet *
engine_run (CtWindow *window, const char *weights)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_net_new (ct_document_get_net (ct_window_get_document (window)),
                                      CAFFE__PHASE__TRAIN, 0, NULL, 1701, &error);
  float loss;

  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_fill_reference_inputs (net, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&net);
}

/* Iterate the main loop until the window's snapshot is at NEXT (and DONE
 * says it is what the test waits for, when given). */
static CtRunSnapshot *
wait_window (CtWindow *window, int next, gboolean (*done) (CtRunSnapshot *snapshot))
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  for (;;)
    {
      CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);

      if (snapshot != NULL && ct_run_snapshot_get_next_layer (snapshot) == next
          && (done == NULL || done (snapshot)))
        {
          /* the panel had the same snapshot */
          ct_gui_test_spin (20);
          return snapshot;
        }
      g_assert_null (snapshot != NULL ? ct_run_snapshot_get_error (snapshot) : NULL);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      ct_gui_test_spin (5);
    }
}

static GtkEventController *
click_gesture (CtGraphView *view)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (view));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_CLICK (controller)
          && gtk_gesture_single_get_button (GTK_GESTURE_SINGLE (controller))
               == GDK_BUTTON_PRIMARY)
        return GTK_EVENT_CONTROLLER (controller);
    }
  g_assert_not_reached ();
  return NULL;
}

/* The model index of the edge carrying BLOB from node FROM to node TO. */
static int
edge_between (CtGraphView *view, const char *blob, const char *from, const char *to)
{
  CtGraphModel *model = ct_graph_view_get_model (view);

  for (guint e = 0; e < ct_graph_model_n_edges (model); e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);

      if (g_strcmp0 (edge->blob, blob) == 0
          && g_strcmp0 (ct_graph_model_get_node (model, edge->from_node)->id, from) == 0
          && g_strcmp0 (ct_graph_model_get_node (model, edge->to_node)->id, to) == 0)
        return (int) e;
    }
  g_assert_not_reached ();
  return -1;
}

/* A click on edge EDGE half way between its ports, where no node is, as
 * the canvas's click gesture reports it. Widget coordinates come from
 * where the view placed the child of the edge's consumer (its box with an
 * 8-pixel margin, zoomed). */
static void
click_edge (CtGraphView *view, int edge)
{
  const CtGraphScene *scene = ct_graph_view_get_scene (view);
  const CtGraphEdge *e = ct_graph_model_get_edge (ct_graph_view_get_model (view), (guint) edge);
  CtGraphPoint p = ct_graph_scene_port_position (scene, e->from_node, TRUE, e->from_port);
  CtGraphPoint q = ct_graph_scene_port_position (scene, e->to_node, FALSE, e->to_port);
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (view));
  double zoom = ct_graph_view_get_zoom (view);
  double gx = 0, gy = 0, x, y, w, h;
  gboolean found = FALSE;
  graphene_rect_t bounds;

  /* a point on the curve (within a pixel) about half way, off the nodes:
   * across the line between the ports, from its middle outwards */
  for (int i = 0; i <= 20 && !found; i++)
    for (double dx = 0; dx <= 30 && !found; dx += 0.25)
      for (int sign = -1; sign <= 1 && !found; sign += 2)
        {
          double t = 0.5 + (i % 2 ? 1 : -1) * (i / 2) * 0.02;

          gx = p.x + (q.x - p.x) * t + sign * dx;
          gy = p.y + (q.y - p.y) * t;
          found = ct_graph_scene_edge_at (scene, gx, gy, 1.0) == edge
                  && ct_graph_scene_node_at (scene, gx, gy) < 0;
        }
  g_assert_true (found);
  ct_graph_view_reveal (view, ct_graph_model_get_node (ct_graph_view_get_model (view),
                                                       e->to_node)->id, FALSE);
  ct_gui_test_spin (600);
  for (guint i = 0; i < e->to_node; i++)
    child = gtk_widget_get_next_sibling (child);
  g_assert_true (gtk_widget_compute_bounds (child, GTK_WIDGET (view), &bounds));
  ct_graph_scene_node_box (scene, e->to_node, &x, &y, &w, &h);
  g_signal_emit_by_name (click_gesture (view), "pressed", 1,
                         bounds.origin.x + (gx - (x - 8)) * zoom,
                         bounds.origin.y + (gy - (y - 8)) * zoom);
  ct_gui_test_spin (20);
}

/* The statistics labels read back, against the engine's VALUES. */
static void
assert_engine_stats (CtWindow *window, const float *values, gint64 count)
{
  g_autoptr (CtBlobStats) engine = ct_blob_stats_compute (values, count);
  const double want[] = { engine->stats.min, engine->stats.max, engine->stats.mean,
                          engine->stats.std, engine->stats.l2_norm };

  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autofree char *id = g_strdup_printf ("blob-stat-%u", i);
      const char *text = gtk_label_get_text (GTK_LABEL (panel_part (window, id)));
      char *end = NULL;
      double shown = g_ascii_strtod (text, &end);

      g_assert_true (end != text && *end == '\0');
      if (fabs (shown - want[i]) > 1e-4 * MAX (1.0, fabs (want[i])))
        g_error ("statistic %u: the panel shows %s, the engine has %.9g", i, text, want[i]);
    }
}

static gboolean
ip1_history (CtRunSnapshot *snapshot)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "ip1");

  return blob->versions != NULL && blob->versions->len == 2;
}

static gboolean
ip1_copied (CtRunSnapshot *snapshot)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "ip1");

  return blob->versions != NULL && blob->versions->len > 0;
}

static gboolean
conv1_copied (CtRunSnapshot *snapshot)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "conv1");

  return blob->versions != NULL && blob->versions->len > 0;
}

static gboolean
ip2_copied (CtRunSnapshot *snapshot)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "ip2");

  return blob->versions != NULL && blob->versions->len > 0;
}

static gboolean
conv2_copied (CtRunSnapshot *snapshot)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "conv2");

  return blob->versions != NULL && blob->versions->len > 0;
}

static void
test_edges (void)
{
  g_autofree char *net_path = reference_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = reference_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);
  CtGraphView *view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  CtHeatmapView *heatmap;
  g_autoptr (CtNet) engine = NULL;
  CtBlob *blob;
  GtkDropDown *versions;
  int ip1_edge, ip2_edge, conv2_edge, conv1_edge;
  guint n_layers;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  engine = engine_run (window, weights_path);
  n_layers = ct_graph_model_n_nodes (ct_graph_view_get_model (view)) + 1; /* relu1 folded */
  heatmap = CT_HEATMAP_VIEW (panel_part (window, "blob-heatmap"));
  versions = GTK_DROP_DOWN (panel_part (window, "blob-versions"));

  /* A click on the edge from ip1 (relu1 folded in) to ip2 selects that
   * blob: no layer, the edge emphasised, the inspector names it. */
  ip1_edge = edge_between (view, "ip1", "ip1", "ip2");
  click_edge (view, ip1_edge);
  g_assert_cmpint (ct_graph_view_get_selected_edge (view), ==, ip1_edge);
  g_assert_cmpstr (ct_selection_get_blob (window->selection), ==, "ip1");
  g_assert_cmpstr (ct_selection_get_blob_producer (window->selection), ==, "ip1");
  g_assert_cmpstr (ct_selection_get_blob_consumer (window->selection), ==, "ip2");
  g_assert_cmpuint (ct_selection_get_count (window->selection), ==, 0);
  {
    g_auto (GStrv) nodes = ct_graph_view_dup_selected (view);

    g_assert_cmpuint (g_strv_length (nodes), ==, 0);
  }
  /* the inspector follows in an idle */
  {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "Blob · ip1 → ip2")
           == NULL)
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        ct_gui_test_spin (5);
      }
    g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "ip1"));
  }

  /* The whole forward pass (F5): the edge carries ip1 after relu1, the
   * version ip2 reads, watched from the start so both are kept. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
  wait_window (window, (int) n_layers, ip1_history);
  g_assert_true (gtk_widget_get_visible (panel_part (window, "blob-panel")));
  assert_label (window, "blob-shape", "ip1: 4 × 500");
  g_assert_false (gtk_widget_get_visible (panel_part (window, "blob-items")));
  g_assert_false (gtk_widget_get_visible (panel_part (window, "blob-select-edge")));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (versions)));
  g_assert_cmpuint (gtk_drop_down_get_selected (versions), ==, 1);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (versions)),
                                               1), ==, "after relu1");
  blob = ct_net_blob_by_name (engine, "ip1");
  assert_engine_stats (window, ct_blob_cpu_data (blob, NULL), ct_blob_count (blob));

  /* ip2 (4 × 10, a classifier's output): a matrix of every sample, or
   * bars of one; the choice holds for matrices, not for a 4-axis blob. */
  ip2_edge = edge_between (view, "ip2", "ip2", "loss");
  click_edge (view, ip2_edge);
  g_assert_cmpint (ct_graph_view_get_selected_edge (view), ==, ip2_edge);
  wait_window (window, (int) n_layers, ip2_copied);
  assert_label (window, "blob-shape", "ip2: 4 × 10");
  blob = ct_net_blob_by_name (engine, "ip2");
  assert_engine_stats (window, ct_blob_cpu_data (blob, NULL), ct_blob_count (blob));
  g_assert_true (gtk_widget_is_visible (panel_part (window, "blob-matrix")));
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (panel_part (window,
                                                                              "blob-matrix"))));
  g_assert_cmpint (ct_heatmap_view_get_kind (heatmap), ==, CT_HEATMAP_MATRIX);
  /* the toggle has names a screen reader reads */
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (panel_part (window, "blob-matrix")),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Show as a matrix heatmap");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (panel_part (window, "blob-bars")),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Show as a bar chart");
  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (gtk_widget_get_parent (
                                     panel_part (window, "blob-bars"))),
                                   GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (gtk_widget_get_parent (
                                         panel_part (window, "blob-bars"))),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Show as");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (panel_part (window, "blob-select-edge")),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Select this blob’s edge on the graph");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-bars")), TRUE);
  ct_gui_test_spin (20);
  g_assert_cmpint (ct_heatmap_view_get_kind (heatmap), ==, CT_HEATMAP_BARS);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (panel_part (window, "blob-sample")), 2);
  ct_gui_test_spin (20);
  g_assert_cmpint (ct_heatmap_view_get_sample (heatmap), ==, 2);
  {
    /* the bar under the pointer is sample 2's value */
    g_autofree char *text = NULL;
    const float *values = ct_blob_cpu_data (blob, NULL);
    char want[64], value[G_ASCII_DTOSTR_BUF_SIZE];

    for (int i = 1; text == NULL && i < 40; i++)
      text = ct_heatmap_view_dup_text_at (heatmap, gtk_widget_get_width (GTK_WIDGET (heatmap))
                                                     * i / 40.0,
                                          gtk_widget_get_height (GTK_WIDGET (heatmap)) / 2.0);
    g_assert_nonnull (text);
    g_assert_true (g_str_has_prefix (text, "(2, "));
    {
      int k = (int) g_ascii_strtoll (text + 4, NULL, 10);

      ct_heatmap_format_value (value, sizeof value, values[2 * 10 + k]);
      g_snprintf (want, sizeof want, "(2, %d) = %s", k, value);
      g_assert_cmpstr (text, ==, want);
    }
  }
  /* a new snapshot keeps the bars */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
  wait_window (window, -1, NULL);
  g_assert_cmpint (ct_heatmap_view_get_kind (heatmap), ==, CT_HEATMAP_BARS);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-matrix")), TRUE);
  ct_gui_test_spin (20);
  g_assert_cmpint (ct_heatmap_view_get_kind (heatmap), ==, CT_HEATMAP_MATRIX);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-bars")), TRUE);
  ct_gui_test_spin (20);

  /* After backward: the edge from conv2 to pool2, its data and its diff
   * as the engine has them; a grid of channels, whatever ip2 was. */
  conv2_edge = edge_between (view, "conv2", "conv2", "pool2");
  click_edge (view, conv2_edge);
  wait_window (window, -1, conv2_copied);
  assert_label (window, "blob-shape", "conv2: 4 × 50 × 8 × 8");
  g_assert_false (gtk_widget_is_visible (panel_part (window, "blob-matrix")));
  g_assert_cmpint (ct_heatmap_view_get_kind (heatmap), ==, CT_HEATMAP_GRID);
  blob = ct_net_blob_by_name (engine, "conv2");
  assert_engine_stats (window, ct_blob_cpu_data (blob, NULL), ct_blob_count (blob));
  g_assert_true (gtk_widget_get_sensitive (panel_part (window, "blob-diff")));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-diff")), TRUE);
  ct_gui_test_spin (20);
  assert_engine_stats (window, ct_blob_cpu_diff (blob, NULL), ct_blob_count (blob));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-data")), TRUE);

  /* From the keyboard: pool1's input chosen in the panel, then "Select
   * Edge" selects the edge from conv1 into pool1. */
  select_layer (window, "pool1");
  g_assert_cmpint (ct_graph_view_get_selected_edge (view), ==, -1);
  g_assert_true (gtk_widget_get_visible (panel_part (window, "blob-select-edge")));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (panel_part (window, "blob-items")), 1);
  ct_gui_test_spin (20);
  g_signal_emit_by_name (panel_part (window, "blob-select-edge"), "clicked");
  ct_gui_test_spin (20);
  conv1_edge = edge_between (view, "conv1", "conv1", "pool1");
  g_assert_cmpint (ct_graph_view_get_selected_edge (view), ==, conv1_edge);
  g_assert_cmpstr (ct_selection_get_blob (window->selection), ==, "conv1");
  g_assert_cmpstr (ct_selection_get_blob_consumer (window->selection), ==, "pool1");
  g_assert_cmpuint (ct_selection_get_count (window->selection), ==, 0);
  wait_window (window, -1, conv1_copied);
  assert_label (window, "blob-shape", "conv1: 4 × 20 × 24 × 24");
  blob = ct_net_blob_by_name (engine, "conv1");
  assert_engine_stats (window, ct_blob_cpu_data (blob, NULL), ct_blob_count (blob));
  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                "edge-selected.png", NULL);

      ct_graph_view_set_zoom (view, 1.0);
      ct_graph_view_reveal (view, "pool1", FALSE);
      ct_gui_test_spin (5500);
      g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
      g_test_message ("saved %s", path);
    }

  /* Selecting a layer unselects the edge. */
  select_layer (window, "conv1");
  g_assert_cmpint (ct_graph_view_get_selected_edge (view), ==, -1);
  g_assert_null (ct_selection_get_blob (window->selection));

  /* ip1, relu1 folded in, selected only after they ran: the present
   * version alone was copied, and the panel says why... */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-reset", NULL);
  wait_window (window, 0, NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
  wait_window (window, (int) n_layers, NULL);
  select_layer (window, "ip1");
  wait_window (window, (int) n_layers, ip1_copied);
  assert_label (window, "blob-shape", "ip1: 4 × 500");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (versions)));
  g_assert_true (gtk_widget_get_visible (panel_part (window, "blob-history")));
  /* ...and a new pass, watched from its start, has both, ip1's own first */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-reset", NULL);
  wait_window (window, 0, NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
  wait_window (window, (int) n_layers, ip1_history);
  g_assert_false (gtk_widget_get_visible (panel_part (window, "blob-history")));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (versions)));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (versions)), ==, 2);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (versions)),
                                               0), ==, "after ip1");
  g_assert_cmpuint (gtk_drop_down_get_selected (versions), ==, 0);
  gtk_drop_down_set_selected (versions, 1);
  ct_gui_test_spin (20);
  blob = ct_net_blob_by_name (engine, "ip1");
  assert_engine_stats (window, ct_blob_cpu_data (blob, NULL), ct_blob_count (blob));
  /* relu1 selected shows its own version */
  select_layer (window, "relu1");
  g_assert_cmpuint (gtk_drop_down_get_selected (versions), ==, 1);

  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  int status;

  /* the test AT context lets the test read the controls' accessible names */
  g_setenv ("GTK_A11Y", "test", TRUE);
  if (ct_gui_test_init (&argc, &argv, "/gtk/window-edges", &scratch, &app))
    g_test_add_func ("/gtk/window-edges/click-and-select", test_edges);
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
