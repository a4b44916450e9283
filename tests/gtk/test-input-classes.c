/* test-input-classes.c: picking Fashion-MNIST items by class in the
 * browser, under Xvfb (skipped without a display or without Debian's
 * dataset-fashion-mnist): the class drop-down narrows the grid to one
 * class's items (1,000 ankle boots of the 10,000), the items selected
 * there are the set's own (their labels all 9 when the run reads them),
 * and "All Classes" brings every item back. */
#include "gui-test.h"
#include "input-browser.h"
#include "run-inputs.h"
#include "window-private.h"

static CtApplication *app;

static void
test_by_class (void)
{
  g_autofree char *images = g_build_filename (CT_FASHION_DIR, CT_FASHION_IMAGES, NULL);
  const char *dir = g_getenv ("CT_TEST_DATA");
  g_autofree char *net_path = NULL;
  g_autoptr (GFile) net_file = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = NULL;
  CtWindow *window;
  GtkWindow *browser;
  GtkSelectionModel *selection;
  GtkWidget *label;
  CtRunSnapshot *snapshot;
  const CtRunBlob *blob;
  guint64 serial = 0;
  guint boots = 0, first_boot = G_MAXUINT;
  g_autofree char *first_text = NULL;
  const char *ids[] = { "conv1", NULL };

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the dataset-fashion-mnist package is not installed");
      return;
    }
  set = ct_fashion_set_load (NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < set->count; i++)
    if (set->labels[i] == 9)
      {
        boots++;
        first_boot = MIN (first_boot, i);
      }

  net_path = g_build_filename (dir != NULL ? dir : "tests/data", "reference",
                               "lenet_fashion_deploy_loss.prototxt", NULL);
  net_file = g_file_new_for_path (net_path);
  window = ct_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);
  ct_window_select (window, ids);

  browser = ct_window_inputs_show_browser (window);
  selection = ct_window_inputs_get_browser_selection (window);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, set->count);
  ct_input_browser_show_class (CT_INPUT_BROWSER (browser), 9);
  ct_gui_test_spin (300);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, boots);
  first_text = g_strdup_printf ("%u Ankle boot", first_boot);
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (browser), GTK_TYPE_LABEL, first_text));
  gtk_selection_model_select_item (selection, 0, TRUE);
  gtk_selection_model_select_item (selection, 5, FALSE);
  label = ct_gui_test_find_widget (GTK_WIDGET (browser), GTK_TYPE_LABEL, "Use Selected");
  g_signal_emit_by_name (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON), "clicked");
  ct_gui_test_spin (20);

  /* the run's labels: all ankle boots */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  snapshot = ct_gui_test_next_snapshot (window, &serial);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  blob = ct_run_snapshot_find_blob (snapshot, "label");
  g_assert_true (blob->has_data);
  g_assert_cmpfloat (blob->data_stats->stats.min, ==, 9);
  g_assert_cmpfloat (blob->data_stats->stats.max, ==, 9);

  ct_input_browser_show_class (CT_INPUT_BROWSER (browser), -1);
  ct_gui_test_spin (100);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, set->count);
  gtk_window_destroy (browser);
  ct_gui_test_close_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *scratch = NULL;

  if (ct_gui_test_init (&argc, &argv, "/input-classes", &scratch, &app))
    g_test_add_func ("/input-classes/by-class", test_by_class);
  return ct_gui_test_finish (g_test_run (), g_steal_pointer (&scratch), app);
}
