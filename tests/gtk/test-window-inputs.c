/* test-window-inputs.c: what the run feeds a deploy net's Input layers,
 * under Xvfb (skipped without a display). LeNet with Input layers and a
 * loss (tests/data/reference/lenet_fashion_deploy_loss.prototxt, batch 4):
 *
 * - Fashion-MNIST items picked in the browser (items 0 and 1, "Use
 *   Selected") fill the batch (0, 1, 0, 1): after stepping forward through
 *   conv1 the data blob's statistics are those of the items' pixels / 256,
 *   and the label blob holds their labels (skipped when Debian's
 *   dataset-fashion-mnist is not installed);
 * - an image file set as the input (as a drop does) replaces them at the
 *   next step;
 * - without the dataset the browser says which package to install;
 * - the bundled example (Data layers, TRAIN and TEST, reading LMDBs made
 *   here from the first 100 test items): F7 runs the Data layer of the
 *   phase shown (TEST: batch 100; TRAIN: 64), the first F7 after a phase
 *   switch runs layer 0, and a Fashion-MNIST item chosen (23, an ankle
 *   boot) is the first sample of the Data layer's batch, scaled by its
 *   transform_param, with its label, the rest of the batch as read; an
 *   image file likewise (its label unknown: the source's stays); after
 *   F5 the inspector shows the net's prediction for it (ip2's top classes
 *   of sample 0).
 *
 * With CT_SCREENSHOT_DIR set, the browser is saved there as
 * inputs-browser.png, and the example stepped to conv1 with the ankle boot
 * chosen as example-ankle-boot.png. */
#include <string.h>
#include <glib/gstdio.h>

#include "datum.h"
#include "db.h"
#include "gui-test.h"
#include "image.h"
#include "input-browser.h"
#include "test-files.h"
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

/* Step forward until layer NAME has run; the snapshot then. */
static CtRunSnapshot *
forward_through (CtWindow *window, const char *name, guint64 *serial)
{
  for (int guard = 0; guard < 20; guard++)
    {
      CtRunSnapshot *snapshot;
      int next;

      g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
      snapshot = ct_gui_test_next_snapshot (window, serial);
      g_assert_no_error (ct_run_snapshot_get_error (snapshot));
      next = ct_run_snapshot_get_next_layer (snapshot);
      if (next > 0 && g_strcmp0 (ct_run_snapshot_get_layer (snapshot, (guint) next - 1)->name,
                                 name) == 0)
        return snapshot;
    }
  g_assert_not_reached ();
}

static void
assert_stats (const CtBlobStats *shown, const float *values, gint64 count)
{
  g_autoptr (CtBlobStats) want = ct_blob_stats_compute (values, count);

  g_assert_nonnull (shown);
  g_assert_cmpint (shown->stats.count, ==, want->stats.count);
  g_assert_cmpfloat_with_epsilon (shown->stats.min, want->stats.min, 1e-6);
  g_assert_cmpfloat_with_epsilon (shown->stats.max, want->stats.max, 1e-6);
  g_assert_cmpfloat_with_epsilon (shown->stats.mean, want->stats.mean, 1e-6);
  g_assert_cmpfloat_with_epsilon (shown->stats.std, want->stats.std, 1e-5);
}

static CtWindow *
open_lenet (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);
  const char *ids[] = { "conv1", NULL };

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  /* conv1 selected: the runner copies its bottom, the data blob */
  ct_window_select (window, ids);
  return window;
}

static void
test_fashion_items (void)
{
  g_autofree char *images = g_build_filename (CT_FASHION_DIR, CT_FASHION_IMAGES, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = NULL;
  CtWindow *window;
  GtkWindow *browser;
  GtkWidget *label;
  CtRunSnapshot *snapshot;
  const CtRunBlob *blob;
  guint64 serial = 0;
  float want[4 * 784], labels[4];

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the dataset-fashion-mnist package is not installed");
      return;
    }
  set = ct_fashion_set_load (NULL, &error);
  g_assert_no_error (error);
  window = open_lenet ();
  browser = ct_window_inputs_show_browser (window);
  ct_gui_test_spin (300);
  /* the first items show with their class names */
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (browser), GTK_TYPE_LABEL, "0 Ankle boot"));
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (browser), GTK_TYPE_LABEL, "1 Pullover"));
  gtk_selection_model_select_item (ct_window_inputs_get_browser_selection (window), 0, TRUE);
  gtk_selection_model_select_item (ct_window_inputs_get_browser_selection (window), 1, FALSE);
  ct_gui_test_spin (100);
  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                "inputs-browser.png", NULL);
      g_assert_true (ct_gui_test_save_png (GTK_WIDGET (browser), path));
      g_test_message ("saved %s", path);
    }
  label = ct_gui_test_find_widget (GTK_WIDGET (browser), GTK_TYPE_LABEL, "Use Selected");
  g_assert_nonnull (label);
  g_signal_emit_by_name (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON), "clicked");
  ct_gui_test_spin (20);

  /* batch 4 from items 0 and 1: 0, 1, 0, 1 */
  for (int n = 0; n < 4; n++)
    {
      for (int i = 0; i < 784; i++)
        want[n * 784 + i] = set->pixels[(n % 2) * 784 + i] / 256.0f;
      labels[n] = set->labels[n % 2];
    }
  snapshot = forward_through (window, "conv1", &serial);
  blob = ct_run_snapshot_find_blob (snapshot, "data");
  g_assert_nonnull (blob);
  g_assert_true (blob->has_data);
  assert_stats (blob->data_stats, want, 4 * 784);
  blob = ct_run_snapshot_find_blob (snapshot, "label");
  g_assert_nonnull (blob);
  assert_stats (blob->data_stats, labels, 4);
  g_assert_cmpfloat (blob->data_stats->stats.mean, ==, (9 + 2) / 2.0);

  /* an image file (as dropped): grey 64 everywhere, / 256 */
  {
    g_autofree char *dir = g_dir_make_tmp ("ct-inputs-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "grey.png", NULL);
    g_autoptr (GFile) file = g_file_new_for_path (path);
    guint8 bytes[28 * 28];
    CtPixels pixels = { .channels = 1, .height = 28, .width = 28, .u8 = bytes };
    g_autoptr (GBytes) png = NULL;

    memset (bytes, 64, sizeof bytes);
    png = ct_pixels_encode_png (&pixels);
    g_assert_true (g_file_set_contents (path, g_bytes_get_data (png, NULL),
                                        (gssize) g_bytes_get_size (png), NULL));
    g_assert_true (ct_window_inputs_is_image (file));
    ct_window_inputs_set_path (window, file);
    snapshot = forward_through (window, "conv1", &serial);
    blob = ct_run_snapshot_find_blob (snapshot, "data");
    g_assert_cmpfloat_with_epsilon (blob->data_stats->stats.min, 0.25, 1e-6);
    g_assert_cmpfloat_with_epsilon (blob->data_stats->stats.max, 0.25, 1e-6);
    g_unlink (path);
    g_rmdir (dir);
  }
  /* the Input popover says what the input is now */
  {
    GtkWidget *button = gtk_widget_get_last_child (GTK_WIDGET (window->run_controls));
    GtkPopover *popover;

    g_assert_true (GTK_IS_MENU_BUTTON (button));
    popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));
    gtk_menu_button_popup (GTK_MENU_BUTTON (button));
    ct_gui_test_spin (200);
    g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (popover), GTK_TYPE_LABEL, "grey.png"));
    if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
      {
        g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                  "inputs-popover.png", NULL);
        g_assert_true (ct_gui_test_save_png (GTK_WIDGET (popover), path));
      }
    gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  }
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

static void
test_missing_dataset (void)
{
  CtWindow *window;
  GtkWindow *browser;

  g_setenv ("CT_FASHION_DIR", "/nonexistent-fashion", TRUE);
  window = open_lenet ();
  browser = ct_window_inputs_show_browser (window);
  ct_gui_test_spin (100);
  {
    /* the message names the package */
    GtkWidget *child = gtk_window_get_child (browser);
    GtkWidget *message = gtk_widget_get_first_child (child);
    g_assert_true (GTK_IS_LABEL (message));
    g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (message)), "dataset-fashion-mnist"));
  }
  g_unsetenv ("CT_FASHION_DIR");
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

/* An LMDB at DIR/NAME holding the first N test items, as `cortado-cli
 * convert mnist` makes it. */
static void
make_lmdb (const char *dir, const char *name, const CtFashionSet *set, guint n)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = ct_db_open (path, CT_DB_LMDB, CT_DB_NEW, &error);
  g_autoptr (CtDbTxn) txn = NULL;

  g_assert_no_error (error);
  txn = ct_db_txn_new (db);
  for (guint i = 0; i < n; i++)
    {
      CtPixels pixels = { .channels = 1, .height = 28, .width = 28,
                          .u8 = set->pixels + (gsize) i * 784 };
      g_autoptr (GBytes) datum = ct_datum_pack_raw (&pixels, set->labels[i]);
      char key[16];

      g_snprintf (key, sizeof key, "%08u", i);
      ct_db_txn_put (txn, key, strlen (key), g_bytes_get_data (datum, NULL),
                     g_bytes_get_size (datum));
    }
  g_assert_true (ct_db_txn_commit (txn, &error));
  g_assert_no_error (error);
}

/* The first snapshot of a built run (after an edit or a phase switch the
 * invalidated ones come first). */
static CtRunSnapshot *
next_built (CtWindow *window, guint64 *serial)
{
  CtRunSnapshot *snapshot;

  do
    snapshot = ct_gui_test_next_snapshot (window, serial);
  while (ct_run_snapshot_get_epoch (snapshot) < window->run_epoch
         || (ct_run_snapshot_get_error (snapshot) == NULL
         && (ct_run_snapshot_get_invalidated (snapshot) || ct_run_snapshot_n_layers (snapshot) == 0
             || ct_run_snapshot_get_next_layer (snapshot) == 0)));
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  return snapshot;
}

/* Whether a label under WIDGET holds TEXT. */
static gboolean
holds_text (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (holds_text (child, text))
      return TRUE;
  return FALSE;
}

static void
set_phase (CtWindow *window, const char *phase)
{
  g_action_group_change_action_state (G_ACTION_GROUP (window), "phase",
                                      g_variant_new_string (phase));
  ct_gui_test_settle (window);
}

static void
test_example_data_layer (void)
{
  g_autofree char *images = g_build_filename (CT_FASHION_DIR, CT_FASHION_IMAGES, NULL);
  g_autofree char *example = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples",
                                               "lenet-fashion", "lenet_train_test.prototxt",
                                               NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *net_path = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GFile) net_file = NULL;
  const char *ids[] = { "conv1", NULL };
  const guint chosen[] = { 23 };
  CtWindow *window;
  CtRunSnapshot *snapshot;
  const CtRunBlob *blob;
  const float *data;
  guint64 serial = 0;

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the dataset-fashion-mnist package is not installed");
      return;
    }
  set = ct_fashion_set_load (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (set->labels[23], ==, 9);
  dir = ct_test_tmpdir_make ("ct-example-XXXXXX");
  net_path = g_build_filename (dir, "lenet_train_test.prototxt", NULL);
  g_assert_true (g_file_get_contents (example, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (net_path, text, -1, NULL));
  make_lmdb (dir, "fashion_test_lmdb", set, 100);
  make_lmdb (dir, "fashion_train_lmdb", set, 100);
  /* the class names beside the net, for the prediction */
  {
    g_autofree char *labels_src = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples",
                                                    "lenet-fashion", "labels.txt", NULL);
    g_autofree char *labels_dst = g_build_filename (dir, "labels.txt", NULL);
    g_autofree char *labels = NULL;

    g_assert_true (g_file_get_contents (labels_src, &labels, NULL, NULL));
    g_assert_true (g_file_set_contents (labels_dst, labels, -1, NULL));
  }
  net_file = g_file_new_for_path (net_path);

  window = ct_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  /* Caffe's trained weights (the example's layer names) */
  {
    g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
    g_autoptr (GFile) weights = g_file_new_for_path (weights_path);

    ct_window_set_weights (window, weights);
  }
  ct_gui_test_settle (window);
  set_phase (window, "test");
  ct_window_select (window, ids);

  /* the phase shown: the TEST Data layer, batch 100 */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  snapshot = next_built (window, &serial);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
  g_assert_cmpint (ct_run_snapshot_find_blob (snapshot, "data")->dims[0], ==, 100);
  ct_gui_test_spin (50);
  g_assert_cmpstr (ct_graph_view_get_highlight (window->graph_view), ==, "mnist");

  /* another phase: the first F7 builds it and runs its layer 0 */
  set_phase (window, "train");
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  snapshot = next_built (window, &serial);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
  g_assert_cmpint (ct_run_snapshot_find_blob (snapshot, "data")->dims[0], ==, 64);
  ct_gui_test_spin (50);
  g_assert_cmpstr (ct_graph_view_get_highlight (window->graph_view), ==, "mnist");
  g_assert_true (ct_graph_view_get_run_state (window->graph_view, "mnist")
                 & CT_GRAPH_NODE_STATE_RUN_DONE);
  set_phase (window, "test");
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  snapshot = next_built (window, &serial);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
  g_assert_cmpint (ct_run_snapshot_find_blob (snapshot, "data")->dims[0], ==, 100);

  /* item 23 chosen: the first sample of the Data layer's batch */
  ct_window_inputs_set_items (window, chosen, 1);
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  snapshot = next_built (window, &serial);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
  /* one step at a time to conv1 (the label's split comes first) */
  for (int next = 2; next <= 3; next++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
      do
        snapshot = ct_gui_test_next_snapshot (window, &serial);
      while (ct_run_snapshot_get_next_layer (snapshot) < next);
      g_assert_no_error (ct_run_snapshot_get_error (snapshot));
    }
  g_assert_cmpstr (ct_run_snapshot_get_layer (snapshot, 2)->name, ==, "conv1");
  blob = ct_run_snapshot_find_blob (snapshot, "data");
  g_assert_nonnull (blob);
  g_assert_cmpint (blob->dims[0], ==, 100);
  g_assert_nonnull (blob->versions);
  g_assert_cmpuint (blob->versions->len, >, 0);
  data = g_bytes_get_data (((CtRunVersion *) blob->versions->pdata[blob->versions->len - 1])->data,
                           NULL);
  for (int i = 0; i < 784; i++)
    g_assert_cmpfloat (data[i], ==, set->pixels[23 * 784 + i] * 0.00390625f);
  /* the rest as the source reads it: item 1 second */
  for (int i = 0; i < 784; i++)
    g_assert_cmpfloat (data[784 + i], ==, set->pixels[784 + i] * 0.00390625f);
  /* its label: the label blob's statistics hold 9 for the first sample */
  {
    float labels[100];

    for (int n = 0; n < 100; n++)
      labels[n] = n == 0 ? 9 : set->labels[n];
    assert_stats (ct_run_snapshot_find_blob (snapshot, "label")->data_stats, labels, 100);
  }

  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                "example-ankle-boot.png", NULL);
      ct_gui_test_spin (300);
      g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
      g_test_message ("saved %s", path);
    }

  /* an image file opened or dropped: the first sample too, through the
   * layer's scale (grey 64 / 256); no label known, the source's stays */
  {
    g_autofree char *path = g_build_filename (dir, "grey.png", NULL);
    g_autoptr (GFile) file = g_file_new_for_path (path);
    guint8 bytes[28 * 28];
    CtPixels pixels = { .channels = 1, .height = 28, .width = 28, .u8 = bytes };
    g_autoptr (GBytes) png = NULL;
    float labels[100];

    memset (bytes, 64, sizeof bytes);
    png = ct_pixels_encode_png (&pixels);
    g_assert_true (g_file_set_contents (path, g_bytes_get_data (png, NULL),
                                        (gssize) g_bytes_get_size (png), NULL));
    ct_window_inputs_set_path (window, file);
    g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
    snapshot = next_built (window, &serial);
    g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
    blob = ct_run_snapshot_find_blob (snapshot, "data");
    data = g_bytes_get_data (((CtRunVersion *) blob->versions->pdata[blob->versions->len - 1])->data,
                             NULL);
    for (int i = 0; i < 784; i++)
      g_assert_cmpfloat (data[i], ==, 0.25f);
    g_assert_cmpfloat (data[784], ==, set->pixels[784] * 0.00390625f);
    for (int n = 0; n < 100; n++)
      labels[n] = set->labels[n];
    assert_stats (ct_run_snapshot_find_blob (snapshot, "label")->data_stats, labels, 100);
    /* the ankle boot again */
    ct_window_inputs_set_items (window, chosen, 1);
  }

  /* F5 finishes the pass: ip2 selected, the net's prediction for sample 0
   * (the item chosen) leads the top classes the inspector shows */
  {
    const char *ip2[] = { "ip2", NULL };
    g_autoptr (CtRunSnapshot) done = NULL;

    ct_window_select (window, ip2);
    g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
    do
      snapshot = ct_gui_test_next_snapshot (window, &serial);
    while (ct_run_snapshot_get_error (snapshot) == NULL
           && (ct_run_snapshot_get_epoch (snapshot) < window->run_epoch
               || ct_run_snapshot_n_layers (snapshot) == 0
               || ct_run_snapshot_get_next_layer (snapshot)
                    < (int) ct_run_snapshot_n_layers (snapshot)));
    g_assert_no_error (ct_run_snapshot_get_error (snapshot));
    done = ct_run_snapshot_ref (snapshot);
    ct_gui_test_spin (300);
    {
      const CtRunBlob *scores = ct_run_snapshot_find_blob (done, "ip2");
      const CtRunVersion *last = scores->versions->pdata[scores->versions->len - 1];
      const float *v = g_bytes_get_data (last->data, NULL);
      g_autofree char *first = NULL;
      int right = 0, predicted = 0;

      for (int n = 0; n < 100; n++)
        {
          int best = 0;

          for (int k = 1; k < 10; k++)
            if (v[n * 10 + k] > v[n * 10 + best])
              best = k;
          if (n == 0)
            predicted = best;
          right += best == (n == 0 ? 9 : set->labels[n]);
        }
      /* the trained weights: most of the batch is right (this model
       * takes item 23 for a sandal, the ankle boot second) */
      g_assert_cmpint (right, >=, 80);
      first = g_strdup_printf ("1. %s ", ct_input_browser_class_name ((guint) predicted));
      g_assert_true (holds_text (GTK_WIDGET (window->blob_panel), "Top 5 classes of sample 0:"));
      g_assert_true (holds_text (GTK_WIDGET (window->blob_panel), first));
      g_assert_true (holds_text (GTK_WIDGET (window->blob_panel), "Ankle boot"));
    }
  }
  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                "example-prediction.png", NULL);
      ct_gui_test_spin (300);
      g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
      g_test_message ("saved %s", path);
    }
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
  ct_test_remove_tree (dir);
}

int
main (int argc, char *argv[])
{
  char *scratch = NULL;
  int status = 0;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-inputs", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-inputs/fashion-items", test_fashion_items);
      g_test_add_func ("/gtk/window-inputs/example-data-layer", test_example_data_layer);
      g_test_add_func ("/gtk/window-inputs/missing-dataset", test_missing_dataset);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
