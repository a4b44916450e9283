/* test-window-tour.c: the step view end to end, as a learner meets it,
 * under Xvfb (skipped without a display, or without Debian's
 * dataset-fashion-mnist). The LeNet example with Input layers and a loss
 * (tests/data/reference/lenet_fashion_deploy_loss.prototxt) and the
 * weights trained on Fashion-MNIST (fashion_lenet_iter_10000.caffemodel),
 * fed Fashion-MNIST item 0 (an ankle boot) from the browser:
 *
 * - mid-forward, conv1 done: selecting conv1 shows its output, and the
 *   inspector's statistics are the snapshot's;
 * - mid-backward, conv2's backward done: the diff toggle shows conv2's
 *   diff, non-zero, while conv1 has no diff yet;
 * - after the backward pass every blob holding a diff has a finite
 *   gradient health, and conv1's filters show as a 20-filter grid.
 *
 * With CT_SCREENSHOT_DIR set, the window is saved there at each of these
 * points: tour-forward-conv1.png, tour-backward-diff.png,
 * tour-filters.png, tour-health.png. */
#include <math.h>
#include <string.h>

#include "gui-test.h"
#include "heatmap-view.h"
#include "run-inputs.h"
#include "runner.h"
#include "window-private.h"

static CtApplication *app;

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

static gboolean
find_type (GtkWidget *widget, const char *type_name)
{
  if (g_str_equal (G_OBJECT_TYPE_NAME (widget), type_name))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (find_type (child, type_name))
      return TRUE;
  return FALSE;
}

static GtkWidget *
part (CtWindow *window, const char *name)
{
  GtkWidget *widget = ct_gui_test_find_named (GTK_WIDGET (window), name);

  g_assert_nonnull (widget);
  return widget;
}

/* The next snapshot after SERIAL. */
static CtRunSnapshot *
next_snapshot (CtWindow *window, guint64 *serial)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  for (;;)
    {
      CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);

      if (snapshot != NULL && ct_run_snapshot_get_serial (snapshot) > *serial)
        {
          *serial = ct_run_snapshot_get_serial (snapshot);
          g_assert_no_error (ct_run_snapshot_get_error (snapshot));
          return snapshot;
        }
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      ct_gui_test_spin (2);
    }
}

/* Activate ACTION and wait for the snapshot that shows it moved the
 * position (a change of what is shown, as a new selection, also brings a
 * snapshot, at the same position). */
static CtRunSnapshot *
step (CtWindow *window, const char *action, guint64 *serial)
{
  CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);
  CtRunPass pass = snapshot != NULL ? ct_run_snapshot_get_pass (snapshot) : CT_RUN_PASS_NONE;
  int next = snapshot != NULL ? ct_run_snapshot_get_next_layer (snapshot) : 0;

  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
  do
    snapshot = next_snapshot (window, serial);
  while (ct_run_snapshot_get_pass (snapshot) == pass
         && ct_run_snapshot_get_next_layer (snapshot) == next);
  return snapshot;
}

/* The label NAME shows TEXT, once the window caught up (the panel is
 * refreshed from the main loop). */
static void
wait_label (CtWindow *window, const char *name, const char *text)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  GtkWidget *label = part (window, name);

  while (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) != 0)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("%s shows “%s”, not “%s”", name, gtk_label_get_text (GTK_LABEL (label)), text);
      ct_gui_test_spin (5);
    }
}

/* The panel's statistics are those of STATS, as the panel formats them. */
static void
assert_shown_stats (CtWindow *window, const CtBlobStats *stats)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const double values[] = { stats->stats.min, stats->stats.max, stats->stats.mean,
                            stats->stats.std, stats->stats.l2_norm };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *id = g_strdup_printf ("blob-stat-%u", i);

      ct_heatmap_format_value (buf, sizeof buf, values[i]);
      wait_label (window, id, buf);
    }
}

static void
select_layer (CtWindow *window, const char *name)
{
  const char *ids[] = { name, NULL };

  ct_window_select (window, ids);
  ct_gui_test_settle (window);
}

static void
shot (CtWindow *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  if (dir == NULL)
    return;
  /* no toast over the picture */
  while (find_type (GTK_WIDGET (window), "AdwToastWidget")
         && g_get_monotonic_time () < deadline)
    ct_gui_test_spin (50);
  ct_gui_test_spin (150);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
  g_test_message ("saved %s", path);
}

static CtWindow *
open_lenet_with_item0 (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);
  GtkWindow *browser;
  GtkWidget *use;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);

  browser = ct_window_inputs_show_browser (window);
  ct_gui_test_spin (200);
  gtk_selection_model_select_item (ct_window_inputs_get_browser_selection (window), 0, TRUE);
  use = ct_gui_test_find_widget (GTK_WIDGET (browser), GTK_TYPE_LABEL, "Use Selected");
  g_assert_nonnull (use);
  g_signal_emit_by_name (gtk_widget_get_ancestor (use, GTK_TYPE_BUTTON), "clicked");
  ct_gui_test_spin (20);
  return window;
}

static void
test_tour (void)
{
  g_autofree char *images = g_build_filename (CT_FASHION_DIR, CT_FASHION_IMAGES, NULL);
  CtWindow *window;
  CtRunSnapshot *snapshot;
  const CtRunBlob *blob;
  const CtRunLayer *layer;
  guint64 serial = 0;
  int next;

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the dataset-fashion-mnist package is not installed");
      return;
    }
  window = open_lenet_with_item0 ();

  /* Mid-forward: data and conv1 done. */
  select_layer (window, "conv1");
  do
    snapshot = step (window, "run-forward", &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) < 2);
  layer = ct_run_snapshot_get_layer (snapshot, 1);
  g_assert_cmpstr (layer->name, ==, "conv1");
  g_assert_cmpint (layer->state, ==, CT_RUN_LAYER_FORWARD_DONE);
  blob = ct_run_snapshot_find_blob (snapshot, "conv1");
  g_assert_nonnull (blob);
  g_assert_true (blob->has_data);
  g_assert_cmpfloat (blob->data_stats->stats.l2_norm, >, 0);
  wait_label (window, "blob-shape", "conv1: 4 × 20 × 24 × 24");
  assert_shown_stats (window, blob->data_stats);
  g_assert_cmpint (ct_run_snapshot_get_layer (snapshot, 2)->state, ==, CT_RUN_LAYER_PENDING);
  shot (window, "tour-forward-conv1.png");

  /* The rest of forward, then backward down to conv2. */
  /* (a pass may hand over snapshots on its way) */
  snapshot = step (window, "run-pass", &serial);
  while (ct_run_snapshot_get_pass (snapshot) != CT_RUN_PASS_FORWARD
         || ct_run_snapshot_get_next_layer (snapshot)
              != (int) ct_run_snapshot_n_layers (snapshot))
    snapshot = next_snapshot (window, &serial);
  g_assert_cmpfloat (ct_run_snapshot_get_loss (snapshot), <, 1.0f); /* an ankle boot, trained */
  select_layer (window, "conv2");
  do
    {
      snapshot = step (window, "run-backward", &serial);
      next = ct_run_snapshot_get_next_layer (snapshot);
    }
  while (g_strcmp0 (ct_run_snapshot_get_layer (snapshot, (guint) next + 1)->name, "conv2") != 0);
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_BACKWARD);
  blob = ct_run_snapshot_find_blob (snapshot, "conv2");
  g_assert_nonnull (blob->diff_stats);
  g_assert_cmpfloat (blob->diff_stats->stats.l2_norm, >, 0);
  g_assert_null (ct_run_snapshot_find_blob (snapshot, "conv1")->diff_stats);
  {
    GtkWidget *diff = part (window, "blob-diff");
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while (!gtk_widget_get_sensitive (diff))
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        ct_gui_test_spin (5);
      }
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (diff), TRUE);
  }
  shot (window, "tour-backward-diff.png");

  /* The rest of backward: every gradient finite, conv1's filters. */
  snapshot = step (window, "run-pass", &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) >= 0)
    snapshot = next_snapshot (window, &serial);
  for (guint i = 0; i < ct_run_snapshot_n_blobs (snapshot); i++)
    {
      blob = ct_run_snapshot_get_blob (snapshot, i);
      if (blob->diff_stats != NULL)
        {
          g_assert_cmpint (blob->diff_stats->stats.n_nan, ==, 0);
          g_assert_cmpint (blob->diff_stats->stats.n_inf, ==, 0);
        }
    }
  g_assert_nonnull (ct_run_snapshot_find_blob (snapshot, "conv1")->diff_stats);
  shot (window, "tour-health.png");
  select_layer (window, "conv1");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (part (window, "blob-data")), TRUE);
  {
    GtkDropDown *items = GTK_DROP_DOWN (part (window, "blob-items"));
    GListModel *model = gtk_drop_down_get_model (items);
    guint weights = GTK_INVALID_LIST_POSITION;

    for (guint i = 0; i < g_list_model_get_n_items (model); i++)
      {
        g_autoptr (GtkStringObject) item = g_list_model_get_item (model, i);

        if (g_str_has_prefix (gtk_string_object_get_string (item), "Weights"))
          weights = i;
      }
    g_assert_cmpuint (weights, !=, GTK_INVALID_LIST_POSITION);
    gtk_drop_down_set_selected (items, weights);
  }
  wait_label (window, "blob-shape", "conv1 weights (0): 20 × 1 × 5 × 5");
  shot (window, "tour-filters.png");

  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

int
main (int argc, char *argv[])
{
  char *scratch = NULL;
  int status = 0;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-tour", &scratch, &app))
    g_test_add_func ("/gtk/window-tour/lenet-fashion", test_tour);
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
