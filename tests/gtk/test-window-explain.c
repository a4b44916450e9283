/* test-window-explain.c: "where does this value come from" in the window,
 * on the LeNet example with its trained weights and the reference inputs
 * the window's run fills in:
 * - after a forward pass, with conv1 selected, a click on the value
 *   (0, 3, 10, 10) of conv1's enlarged channel 3 opens the explanation under the heatmap: the
 *   sum written out equals the value the engine computes (to 1e-5), with
 *   the window outlined on data and the filter shown;
 * - the inspector explains the layer type ("How This Layer Works");
 * - after backward, a diff is explained by the chain-rule step, equal to
 *   the engine's diff.
 * With CT_SCREENSHOT_DIR set it saves explain-window.png (the window) and,
 * where ImageMagick's `import` is found, explain-screen.png (the screen);
 * CT_SHOT_LANGUAGE picks the language of the strings for them (the
 * environment's locale must be one that language can use). */
#include <math.h>
#include <string.h>

#include "gui-test.h"
#include "heatmap-view.h"
#include "blob-panel.h"
#include "layer-explanation.h"
#include "net-dump.h"
#include "net.h"
#include "window-private.h"

static CtApplication *app;

static char *
reference_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

static CtNet *
engine_run (CtWindow *window, const char *weights)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_net_new (ct_document_get_net (ct_window_get_document (window)),
                                      CAFFE__PHASE__TRAIN, 0, NULL, 1701, &error);
  float loss;

  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights, &error));
  g_assert_true (ct_net_fill_reference_inputs (net, &error));
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&net);
}

static gboolean
conv1_ready (CtRunSnapshot *snapshot, CtRunPass pass)
{
  const CtRunBlob *conv1 = ct_run_snapshot_find_blob (snapshot, "conv1");
  const CtRunBlob *data = ct_run_snapshot_find_blob (snapshot, "data");
  int layer = -1;

  if (ct_run_snapshot_get_pass (snapshot) != pass || conv1 == NULL || data == NULL
      || conv1->versions == NULL || conv1->versions->len == 0
      || data->versions == NULL || data->versions->len == 0)
    return FALSE;
  for (guint i = 0; i < ct_run_snapshot_n_layers (snapshot); i++)
    if (g_strcmp0 (ct_run_snapshot_get_layer (snapshot, i)->name, "conv1") == 0)
      layer = (int) i;
  if (layer < 0)
    return FALSE;
  if (((const CtRunParam *) g_ptr_array_index (ct_run_snapshot_get_layer (snapshot, layer)->params,
                                               0))->data == NULL)
    return FALSE;
  if (pass == CT_RUN_PASS_BACKWARD)
    return ct_run_snapshot_get_next_layer (snapshot) == -1
           && ((const CtRunVersion *) g_ptr_array_index (conv1->versions, 0))->diff != NULL;
  return ct_run_snapshot_get_next_layer (snapshot) == (int) ct_run_snapshot_n_layers (snapshot);
}

static CtRunSnapshot *
wait_window (CtWindow *window, CtRunPass pass)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  for (;;)
    {
      CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);

      if (snapshot != NULL && conv1_ready (snapshot, pass))
        {
          ct_gui_test_spin (50);
          return snapshot;
        }
      g_assert_null (snapshot != NULL ? ct_run_snapshot_get_error (snapshot) : NULL);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      ct_gui_test_spin (5);
    }
}

static GtkEventController *
click_gesture (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_CLICK (controller))
        return GTK_EVENT_CONTROLLER (controller);
    }
  g_assert_not_reached ();
  return NULL;
}

/* A click on cell (H, W) of the heatmap's zoomed channel, where the
 * widget's click gesture reports it. */
static void
click_value (CtHeatmapView *view, int h, int w)
{
  CtHeatmap *heatmap = ct_heatmap_view_get_heatmap (view);
  int width = gtk_widget_get_width (GTK_WIDGET (view));
  int height = gtk_widget_get_height (GTK_WIDGET (view));
  CtHeatmapLayout layout;
  CtHeatmapHit hit;
  double x, y;

  ct_heatmap_get_layout (heatmap, width, height, &layout);
  x = layout.x + (w + 0.5) * layout.cell_w;
  y = layout.y + (h + 0.5) * layout.cell_h;
  g_assert_true (ct_heatmap_hit (heatmap, width, height, x, y, &hit));
  g_assert_cmpint (hit.h, ==, h);
  g_assert_cmpint (hit.w, ==, w);
  g_signal_emit_by_name (click_gesture (GTK_WIDGET (view)), "pressed", 1, x, y);
  ct_gui_test_spin (100);
}

static void
save_shots (CtWindow *window, const char *suffix)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *name = NULL, *path = NULL, *import = g_find_program_in_path ("import");

  if (dir == NULL)
    return;
  /* the section scrolled into view */
  ct_gui_test_spin (800);
  name = g_strdup_printf ("explain-window%s.png", suffix);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
  if (import != NULL)
    {
      g_autofree char *screen = g_strdup_printf ("explain-screen%s.png", suffix);
      g_autofree char *screen_path = g_build_filename (dir, screen, NULL);
      const char *argv[] = { import, "-window", "root", screen_path, NULL };
      int status = 0;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                   NULL, NULL, &status, NULL));
    }
}

static void
test_explain (void)
{
  g_autofree char *net_path = reference_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = reference_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  const char *shot_suffix = g_getenv ("CT_SHOT_SUFFIX");
  const char *ids[] = { "conv1", NULL };
  CtWindow *window = ct_window_new (app);
  g_autoptr (CtNet) engine = NULL;
  CtHeatmapView *heatmap;
  const CtValueExplanation *e;
  GtkWidget *view, *section, *sum;
  CtBlob *conv1;
  const float *want;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_autoptr (GError) error = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  engine = engine_run (window, weights_path);
  conv1 = ct_net_blob_by_name (engine, "conv1");
  want = ct_blob_cpu_data (conv1, NULL);

  ct_window_select (window, ids);
  /* the inspector explains the type */
  {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while ((section = ct_layer_explanation_get (GTK_WIDGET (window->inspector_description)))
           == NULL || !gtk_widget_get_visible (section))
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        ct_gui_test_spin (10);
      }
  }

  g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
  wait_window (window, CT_RUN_PASS_FORWARD);
  heatmap = CT_HEATMAP_VIEW (ct_gui_test_find_named (GTK_WIDGET (window), "blob-heatmap"));
  g_assert_nonnull (heatmap);
  g_assert_cmpstr (ct_heatmap_view_get_blob_name (heatmap), ==, "conv1");
  /* a click on a grid's channel enlarges it; a click on a value explains it */
  ct_heatmap_view_set_zoom_channel (heatmap, 3);
  ct_gui_test_spin (100);
  click_value (heatmap, 10, 10);
  view = ct_blob_panel_get_explain_view (window->blob_panel);
  g_assert_true (gtk_widget_get_visible (view));
  e = ct_blob_panel_get_explanation (window->blob_panel);
  g_assert_nonnull (e);
  g_assert_cmpint (e->index[0], ==, 0);
  g_assert_cmpint (e->index[1], ==, 3);
  g_assert_cmpint (e->index[2], ==, 10);
  g_assert_cmpint (e->index[3], ==, 10);
  g_test_message ("%s = %s", e->rule, e->sum);
  /* the value the engine computes, and the sum written out equal to it */
  g_assert_cmpfloat_with_epsilon (e->value, want[(3 * 24 + 10) * 24 + 10], 1e-5);
  g_assert_cmpfloat_with_epsilon (e->result, e->value, 1e-5);
  g_assert_cmpuint (e->terms->len, ==, 25);
  sum = ct_gui_test_find_widget (view, GTK_TYPE_LABEL, e->sum);
  g_assert_nonnull (sum);
  g_assert_true (g_str_has_suffix (gtk_label_get_text (GTK_LABEL (sum)),
                                   ct_explain_number (value, e->value)));
  g_assert_true (e->has_window && e->window.h_begin == 10 && e->window.w_end == 15);
  save_shots (window, shot_suffix != NULL ? shot_suffix : "");

  /* after backward: the diff of conv1's bottom (data), by conv1's step,
   * against the engine; conv1's own diff comes from pool1, whose values
   * the run keeps only when pool1 is selected: the panel says so */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
  wait_window (window, CT_RUN_PASS_BACKWARD);
  {
    const float *want_diff = ct_blob_cpu_diff (ct_net_blob_by_name (engine, "data"), NULL);
    gsize flat = 12 * 28 + 12;
    GtkDropDown *items = GTK_DROP_DOWN (ct_gui_test_find_named (GTK_WIDGET (window),
                                                                "blob-items"));

    g_assert_false (ct_blob_panel_explain_at (window->blob_panel, TRUE, 100, &error));
    g_assert_nonnull (strstr (error->message, "pool1"));
    g_clear_error (&error);
    gtk_drop_down_set_selected (items, 1);
    ct_gui_test_spin (50);
    g_assert_true (ct_blob_panel_explain_at (window->blob_panel, TRUE, flat, &error));
    g_assert_no_error (error);
    e = ct_blob_panel_get_explanation (window->blob_panel);
    g_test_message ("%s = %s", e->rule, e->sum);
    g_assert_true (e->diff);
    g_assert_cmpstr (e->layer_name, ==, "conv1");
    g_assert_cmpstr (e->blob, ==, "data");
    g_assert_cmpfloat (fabs (want_diff[flat]), >, 0);
    g_assert_cmpfloat_with_epsilon (e->value, want_diff[flat], 1e-4 * fabs (want_diff[flat]));
    g_assert_cmpfloat_with_epsilon (e->result, e->value, 1e-4 * fabs (e->value));
  }

  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-explain", &scratch, &app))
    {
      if (g_getenv ("CT_SHOT_LANGUAGE") != NULL)
        g_setenv ("LANGUAGE", g_getenv ("CT_SHOT_LANGUAGE"), TRUE);
      g_test_add_func ("/gtk/window-explain/value", test_explain);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
