/* test-window-present.c: the window on a lecture hall's screen, under Xvfb
 * (skipped without a display).
 *
 * - fits: in every view (graph, source, training, presentation mode) the
 *   window's least size fits 960×540 logical pixels, which is a 1920×1080
 *   projector at scale 2 (and so 1280×720 at scale 1);
 * - presentation mode on LeNet (tests/data/reference, Caffe's trained
 *   weights): F12 is its key, the layer list and the inspector go away,
 *   and stepping forward through every layer and back again, the large
 *   view follows the step: the layer's output after a forward step, its
 *   input's gradient after a backward one, with the step's position; the
 *   graph keeps its share of the width. Leaving it brings the inspector
 *   back.
 *
 * With CT_SCREENSHOT_DIR set, presentation mode at conv1 is saved there as
 * present-conv1.png. */
#include <string.h>

#include "gui-test.h"
#include "heatmap-view.h"
#include "present-view.h"
#include "window-private.h"

static CtApplication *app;

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

static void
set_state (CtWindow *window, const char *action, gboolean on)
{
  g_action_group_change_action_state (G_ACTION_GROUP (window), action,
                                      g_variant_new_boolean (on));
}

static void
assert_fits (CtWindow *window, const char *where)
{
  int width, height;

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &width, NULL, NULL,
                      NULL);
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_VERTICAL, width, &height, NULL, NULL,
                      NULL);
  g_test_message ("%s: at least %d×%d", where, width, height);
  if (width > 960 || height > 540)
    g_error ("%s: the window needs %d×%d, more than a 960×540 screen", where, width, height);
}

static void
test_fits (void)
{
  static const char *const views[] = { "graph", "source", "training" };
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 960, 540);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);
  /* as while training: two lines of figures beside the run controls */
  {
    CtTrainProgress p = { .iter = 99999, .max_iter = 100000, .iters_per_s = 99.9,
                          .eta_s = 35999, .elapsed_s = 35999 };
    g_autofree char *stats = ct_train_view_format_stats (&p);

    g_assert_cmpstr (stats, ==, "Iteration 99999 / 100000\n99.9 it/s · ETA 9:59:59");
    gtk_label_set_text (GTK_LABEL (ct_window_get_part (window, "train_stats_label")), stats);
  }
  gtk_widget_set_visible (ct_window_get_part (window, "train_stats_label"), TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (views); i++)
    {
      adw_view_stack_set_visible_child_name (window->view_stack, views[i]);
      ct_gui_test_spin (50);
      assert_fits (window, views[i]);
      /* the figures are read whole, not cut ("ETA 9…") */
      g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (
        GTK_LABEL (ct_window_get_part (window, "train_stats_label")))));
    }
  set_state (window, "show-palette", TRUE);
  adw_view_stack_set_visible_child_name (window->view_stack, "graph");
  ct_gui_test_spin (50);
  assert_fits (window, "graph with the layer list");
  set_state (window, "presentation", TRUE);
  ct_gui_test_spin (50);
  assert_fits (window, "presentation");
  set_state (window, "presentation", FALSE);
  ct_gui_test_close_window (window);
}

/* Waits for the large view to show BLOB with its values (at most half a
 * minute): the copies come with the snapshot after the step selects it. */
static void
wait_shown (CtPresentView *view, const CtRunBlob *shown, const char *step)
{
  /* the snapshot SHOWN is in goes when the next one is shown */
  g_autofree char *blob = g_strdup (shown->name);
  /* a loss is a scalar: no samples to count */
  gint64 n = shown->n_axes > 0 ? shown->dims[0] : -1;
  CtHeatmapView *heatmap = CT_HEATMAP_VIEW (ct_present_view_get_heatmap (view));

  for (int tries = 0; g_strcmp0 (ct_present_view_get_blob (view), blob) != 0
                      || g_strcmp0 (ct_present_view_get_step_text (view), step) != 0
                      || g_strcmp0 (ct_heatmap_view_get_blob_name (heatmap), blob) != 0
                      || (n >= 0 && ct_heatmap_view_get_n_samples (heatmap) != n);
       tries++)
    {
      if (tries > 600)
        g_error ("the large view shows %s (%s; heatmap %s, %d samples), not %s (%s, %"
                 G_GINT64_FORMAT " samples)", ct_present_view_get_blob (view),
                 ct_present_view_get_step_text (view), ct_heatmap_view_get_blob_name (heatmap),
                 ct_heatmap_view_get_n_samples (heatmap), blob, step, n);
      ct_gui_test_spin (50);
    }
}

static void
test_present_lenet (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);
  CtPresentView *view = CT_PRESENT_VIEW (ct_window_get_part (window, "present_view"));
  GtkWidget *graph = ct_window_get_part (window, "graph_overlay");
  g_auto (GStrv) actions = gtk_application_get_actions_for_accel (GTK_APPLICATION (app), "F12");
  CtRunSnapshot *snapshot;
  guint64 serial = 0;
  guint n_layers;

  g_assert_true (g_strv_contains ((const char *const *) actions, "win.presentation"));
  gtk_window_set_default_size (GTK_WINDOW (window), 960, 540);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);

  set_state (window, "presentation", TRUE);
  ct_gui_test_spin (100);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (view)));
  g_assert_false (gtk_widget_get_visible (ct_window_get_part (window, "palette_pane")));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->inspector_scroller)));
  g_assert_null (ct_present_view_get_blob (view));

  /* forward through every layer: the view shows each layer's output */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  snapshot = ct_gui_test_next_snapshot (window, &serial);
  n_layers = ct_run_snapshot_n_layers (snapshot);
  g_assert_cmpuint (n_layers, ==, 9);
  for (guint i = 0; i < n_layers; i++)
    {
      g_autofree char *step = g_strdup_printf ("Forward · layer %u of %u", i + 1, n_layers);
      const CtRunBlob *top;

      if (i > 0)
        {
          g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
          do
            snapshot = ct_gui_test_next_snapshot (window, &serial);
          while (ct_run_snapshot_get_next_layer (snapshot) != (int) i + 1);
        }
      top = ct_run_snapshot_get_blob (snapshot, ct_run_snapshot_get_layer (snapshot, i)->tops[0]);
      /* the heatmap has the values, not only the labels */
      wait_shown (view, top, step);
      snapshot = ct_window_run_get_snapshot (window);
      if (i == 1 && g_getenv ("CT_SCREENSHOT_DIR") != NULL)
        {
          g_autofree char *png = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                   "present-conv1.png", NULL);
          ct_gui_test_spin (200);
          g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), png));
        }
    }
  /* the graph keeps its share beside the large view, all of it shown */
  g_assert_cmpint (gtk_widget_get_width (graph), >=,
                   gtk_widget_get_width (GTK_WIDGET (window)) / 4);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (ct_window_get_part (window, "present_paned"))),
                   >=, gtk_widget_get_width (graph));

  /* backward: the gradient each layer hands down */
  for (guint i = n_layers; i > 1; i--)
    {
      g_autofree char *step = g_strdup_printf ("Backward · layer %u of %u", i, n_layers);
      const CtRunLayer *layer;
      const CtRunBlob *bottom;

      g_action_group_activate_action (G_ACTION_GROUP (window), "run-backward", NULL);
      /* snapshots with new copies for the selection come between steps */
      do
        {
          snapshot = ct_gui_test_next_snapshot (window, &serial);
          layer = ct_run_snapshot_get_layer (snapshot, i - 1);
        }
      while (layer->state == CT_RUN_LAYER_FORWARD_DONE);
      if (layer->state != CT_RUN_LAYER_BACKWARD_DONE || layer->n_bottoms == 0)
        continue;
      bottom = ct_run_snapshot_get_blob (snapshot, layer->bottoms[0]);
      wait_shown (view, bottom, step);
    }

  set_state (window, "presentation", FALSE);
  ct_gui_test_spin (50);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (view)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->inspector_scroller)));
  ct_gui_test_close_window (window);
}

/* An example opens in the window when nothing would be lost there, in a
 * new window over unsaved edits; the Open button's menu lists them. */
static void
test_examples (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  CtWindow *window = ct_window_new (app);
  GtkApplication *gtk_app = GTK_APPLICATION (app);
  guint windows;
  gboolean listed = FALSE, lessons = FALSE;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);
  windows = g_list_length (gtk_application_get_windows (gtk_app));
  g_action_group_activate_action (G_ACTION_GROUP (window), "new-example",
                                  g_variant_new_string ("mlp"));
  ct_gui_test_settle (window);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (gtk_app)), ==, windows);
  g_assert_null (ct_document_get_file (ct_window_get_document (window)));
  g_assert_nonnull (strstr (ct_document_get_text (ct_window_get_document (window)), "fc1"));

  ct_document_set_text (ct_window_get_document (window), "name: \"edited\"\n");
  ct_gui_test_settle (window);
  g_action_group_activate_action (G_ACTION_GROUP (window), "new-example",
                                  g_variant_new_string ("lenet-fashion"));
  ct_gui_test_spin (100);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (gtk_app)), ==, windows + 1);
  g_assert_cmpstr (ct_document_get_text (ct_window_get_document (window)), ==,
                   "name: \"edited\"\n");
  for (GList *l = gtk_application_get_windows (gtk_app); l != NULL; l = l->next)
    if (l->data != window && CT_IS_WINDOW (l->data)
        && ct_document_get_file (ct_window_get_document (l->data)) == NULL
        && strstr (ct_document_get_text (ct_window_get_document (l->data)), "conv1") != NULL)
      {
        ct_gui_test_close_window (l->data);
        break;
      }

  for (int i = 0; i < g_menu_model_get_n_items (window->recent_menu); i++)
    {
      g_autofree char *label = NULL;

      if (g_menu_model_get_item_attribute (window->recent_menu, i, G_MENU_ATTRIBUTE_LABEL, "s",
                                           &label))
        {
          listed |= g_strcmp0 (label, "Examples") == 0;
          lessons |= g_strcmp0 (label, "Lessons") == 0;
        }
    }
  g_assert_true (listed);
  g_assert_true (lessons);
  ct_gui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  char *scratch;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-present", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-present/fits", test_fits);
      g_test_add_func ("/gtk/window-present/lenet", test_present_lenet);
      g_test_add_func ("/gtk/window-present/examples", test_examples);
    }
  return ct_gui_test_finish (g_test_run (), scratch, app);
}
