/* test-window-analysis.c: "What the Net Learned…" under Xvfb (skipped
 * without a display, and without Debian's dataset-fashion-mnist). The
 * LeNet of tests/data/reference with Caffe's trained weights, reading an
 * LMDB of the 10,000 Fashion-MNIST test images made here:
 *
 * - win.analyze opens the analysis window, which counts on its worker
 *   and shows the accuracy `cortado-cli test` prints (89.41%);
 * - the cell (Shirt, T-shirt/top) holds 135 images; clicking it shows
 *   its thumbnails (at most 120), with accessible names;
 * - clicking a thumbnail computes its saliency map, which makes the
 *   exports possible; Grad-CAM and occlusion follow the method chosen;
 * - without weights the action says what is missing; closed while it
 *   counts, the window cancels its worker;
 * - "Step Through This Image" makes the image picked the first sample of
 *   the TEST Data layer's batch in the step view;
 * - "Top Activations": channel 3 of conv1 found through the page's
 *   controls lists the same 12 images with the same responses as
 *   `cortado-cli top-activations` (which runs the whole net over the
 *   LMDB), the filter beside them; conv2 has no filter picture; clicking
 *   an image makes it the image picked; closed while it searches, the
 *   window goes once the search is cancelled;
 * - "Compare Weights With…": the weights against a copy whose conv1
 *   filters are 1.1 times theirs list conv1's filters first, changed by
 *   0.1 of their norm, and the rest unchanged.
 *
 * With CT_SCREENSHOT_DIR set, the window is saved there as
 * analysis-saliency.png, analysis-grad-cam.png, analysis-occlusion.png and
 * analysis-top.png. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "analysis-top-panel.h"
#include "analysis-window.h"
#include "binary-io.h"
#include "caffe.pb-c.h"
#include "model-compare-window.h"
#include "gui-test.h"
#include "test-files.h"
#include "window-private.h"

#define FASHION "/usr/share/datasets/fashion-mnist/"

static CtApplication *app;
static char *scratch;

static char *
reference (const char *name)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", name, NULL);
}

static CtAnalysisWindow *
find_analysis_window (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (toplevels, i);

      if (CT_IS_ANALYSIS_WINDOW (w))
        return CT_ANALYSIS_WINDOW (w);
    }
  return NULL;
}

static GtkWidget *
button_with_label (GtkWidget *top, const char *text)
{
  GtkWidget *label = ct_gui_test_find_widget (top, GTK_TYPE_LABEL, text);

  g_assert_nonnull (label);
  while (label != NULL && !GTK_IS_BUTTON (label))
    label = gtk_widget_get_parent (label);
  g_assert_nonnull (label);
  return label;
}

static void
wait_until_sensitive (GtkWidget *widget)
{
  for (int i = 0; i < 600 && !gtk_widget_get_sensitive (widget); i++)
    ct_gui_test_spin (100);
  g_assert_true (gtk_widget_get_sensitive (widget));
}

static void
screenshot (GtkWidget *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  ct_gui_test_spin (300);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (ct_gui_test_save_png (window, path));
}

static void
make_test_set (const char *dir)
{
  const char *argv[] = { g_getenv ("CT_CLI"), "convert", "mnist",
                         FASHION "t10k-images-idx3-ubyte.gz", FASHION "t10k-labels-idx1-ubyte.gz",
                         "fashion_test_lmdb", NULL };
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* The indices and responses `cortado-cli top-activations` gives for
 * CHANNEL of conv1 over the test set of DIR. */
static void
cli_top (const char *dir, const char *weights, guint channel, GArray *indices, GArray *values)
{
  g_autofree char *weights_arg = g_strdup_printf ("--weights=%s", weights);
  g_autofree char *channel_arg = g_strdup_printf ("--channel=%u", channel);
  const char *argv[] = { g_getenv ("CT_CLI"), "top-activations",
                         "--model=lenet_train_test.prototxt", weights_arg, "--layer=conv1",
                         channel_arg, "--top=12", "--iterations=100", NULL };
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      guint64 index = g_ascii_strtoull (f[1], NULL, 10);
      double value = g_ascii_strtod (f[2], NULL);

      g_array_append_val (indices, index);
      g_array_append_val (values, value);
    }
}

/* The "Top Activations" page, against the CLI. */
static void
check_top_activations (CtAnalysisWindow *analysis, const char *dir, const char *weights)
{
  GtkWidget *top = GTK_WIDGET (analysis);
  CtAnalysisTopPanel *panel = CT_ANALYSIS_TOP_PANEL (
    ct_gui_test_find_widget (top, CT_TYPE_ANALYSIS_TOP_PANEL, NULL));
  GtkWidget *notebook = ct_gui_test_find_widget (top, GTK_TYPE_NOTEBOOK, NULL);
  GtkWidget *find = button_with_label (GTK_WIDGET (panel), "Find");
  GtkWidget *spin = ct_gui_test_find_widget (GTK_WIDGET (panel), GTK_TYPE_SPIN_BUTTON, NULL);
  g_autoptr (GArray) indices = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  const CtTopActivations *result;
  GtkWidget *flow, *first;
  guint64 index = 0;
  guint c = 0, h = 0, w = 0;
  const float *image;

  g_assert_nonnull (panel);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (notebook), 1);
  /* conv1 comes first in the layer list; the first spin is the channel */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 3);
  g_assert_true (gtk_widget_get_sensitive (find));
  g_signal_emit_by_name (find, "clicked");
  g_assert_true (ct_analysis_top_panel_is_busy (panel));
  for (int i = 0; i < 600 && ct_analysis_top_panel_is_busy (panel); i++)
    ct_gui_test_spin (50);
  g_assert_false (ct_analysis_top_panel_is_busy (panel));
  result = ct_analysis_top_panel_get_result (panel);
  g_assert_nonnull (result);
  g_assert_true (ct_analysis_top_panel_has_filter (panel));
  cli_top (dir, weights, 3, indices, values);
  g_assert_cmpuint (indices->len, ==, 12);
  g_assert_cmpuint (result->items->len, ==, 12);
  for (guint i = 0; i < 12; i++)
    {
      const CtTopActivation *item = &g_array_index (result->items, CtTopActivation, i);
      double want = g_array_index (values, double, i);

      g_assert_cmpuint (item->index, ==, g_array_index (indices, guint64, i));
      g_assert_cmpfloat_with_epsilon (item->value, want, 1e-4 * MAX (1.0, fabs (want)));
      /* conv1's units see 5 × 5 pixels, fewer at the edges of the image */
      g_assert_cmpint (item->box_h, <=, 5);
      g_assert_cmpint (item->box_w, <=, 5);
    }
  screenshot (top, "analysis-top.png");

  /* clicking an image picks it: the step view can take it */
  flow = ct_gui_test_find_widget (GTK_WIDGET (panel), GTK_TYPE_FLOW_BOX, NULL);
  first = ct_gui_test_find_widget (flow, GTK_TYPE_BUTTON, NULL);
  g_assert_nonnull (first);
  g_assert_true (g_str_has_prefix (gtk_widget_get_tooltip_text (first), "Image "));
  g_signal_emit_by_name (first, "clicked");
  image = ct_analysis_window_get_sample (analysis, &index, &c, &h, &w);
  g_assert_nonnull (image);
  g_assert_cmpuint (index, ==, g_array_index (indices, guint64, 0));
  g_assert_cmpmem (image, 784 * sizeof (float),
                   g_array_index (result->items, CtTopActivation, 0).image, 784 * sizeof (float));
  /* the map the click started holds the net: no search meanwhile */
  if (!gtk_widget_get_sensitive (GTK_WIDGET (panel)))
    g_assert_false (ct_analysis_top_panel_search (panel, "conv2", 0));
  wait_until_sensitive (GTK_WIDGET (panel));

  /* conv2 reads pool1: no filter picture; its units see up to 14 × 14 */
  g_assert_true (ct_analysis_top_panel_search (panel, "conv2", 0));
  for (int i = 0; i < 600 && ct_analysis_top_panel_is_busy (panel); i++)
    ct_gui_test_spin (50);
  result = ct_analysis_top_panel_get_result (panel);
  g_assert_cmpuint (result->items->len, ==, 12);
  g_assert_false (ct_analysis_top_panel_has_filter (panel));
  g_assert_cmpint (g_array_index (result->items, CtTopActivation, 0).box_h, <=, 14);
  g_assert_cmpfloat (g_array_index (result->items, CtTopActivation, 0).value, >=,
                     g_array_index (result->items, CtTopActivation, 11).value);
  screenshot (top, "analysis-top-conv2.png");
  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      /* the smallest screen the window is made for */
      gtk_window_set_default_size (GTK_WINDOW (top), 1280, 720);
      screenshot (top, "analysis-top-720.png");
    }

  /* a search cancelled leaves the page as it was, ready again */
  g_assert_true (ct_analysis_top_panel_search (panel, "conv2", 1));
  ct_analysis_top_panel_cancel (panel);
  for (int i = 0; i < 600 && ct_analysis_top_panel_is_busy (panel); i++)
    ct_gui_test_spin (50);
  g_assert_true (gtk_widget_get_sensitive (find));
  gtk_notebook_set_current_page (GTK_NOTEBOOK (notebook), 0);
}

static void
test_analysis (void)
{
  g_autofree char *dir = g_build_filename (scratch, "analysis", NULL);
  g_autofree char *net_src = reference ("lenet_train_test.prototxt");
  g_autofree char *net_path = g_build_filename (dir, "lenet_train_test.prototxt", NULL);
  g_autofree char *labels = g_build_filename (dir, "labels.txt", NULL);
  g_autofree char *labels_src = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples",
                                                  "lenet-fashion", "labels.txt", NULL);
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *text = NULL;
  g_autoptr (GFile) net_file = NULL;
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights);
  CtWindow *window;
  CtAnalysisWindow *analysis;
  GtkWidget *top, *flow, *cell, *png_button, *dropdown, *thumb;
  guint n_thumbs = 0;

  if (!g_file_test (FASHION "t10k-images-idx3-ubyte.gz", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("dataset-fashion-mnist is not installed");
      return;
    }
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  make_test_set (dir);
  g_assert_true (g_file_get_contents (net_src, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (net_path, text, -1, NULL));
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (labels_src, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (labels, text, -1, NULL));
  net_file = g_file_new_for_path (net_path);

  window = ct_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);
  /* no weights yet: the action says so and opens nothing */
  g_action_group_activate_action (G_ACTION_GROUP (window), "analyze", NULL);
  ct_gui_test_spin (100);
  g_assert_null (find_analysis_window ());

  ct_window_set_weights (window, weights_file);
  /* closed while counting: the worker is cancelled and nothing is shown */
  g_action_group_activate_action (G_ACTION_GROUP (window), "analyze", NULL);
  analysis = find_analysis_window ();
  g_assert_nonnull (analysis);
  ct_gui_test_spin (200);
  gtk_window_destroy (GTK_WINDOW (analysis));
  ct_gui_test_spin (1500);
  g_assert_null (find_analysis_window ());

  g_action_group_activate_action (G_ACTION_GROUP (window), "analyze", NULL);
  analysis = find_analysis_window ();
  g_assert_nonnull (analysis);
  top = GTK_WIDGET (analysis);
  for (int i = 0; i < 600 && ct_analysis_window_get_total (analysis) == 0; i++)
    ct_gui_test_spin (100);
  g_assert_cmpuint (ct_analysis_window_get_total (analysis), ==, 10000);
  g_assert_nonnull (ct_gui_test_find_widget (top, GTK_TYPE_LABEL,
                                             "Accuracy 89.41%: 8941 of 10000 test images right"));
  /* Shirts taken for T-shirts: the largest mistake of the matrix */
  cell = button_with_label (top, "135");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (cell), ==,
                   "True Shirt, predicted T-shirt/top: 135");
  g_signal_emit_by_name (cell, "clicked");
  g_assert_nonnull (ct_gui_test_find_widget (top, GTK_TYPE_LABEL,
                                             "Shirt taken for T-shirt/top: 135 images, "
                                             "surest first"));
  flow = ct_gui_test_find_widget (top, GTK_TYPE_FLOW_BOX, NULL);
  g_assert_nonnull (flow);
  for (GtkWidget *c = gtk_widget_get_first_child (flow); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    n_thumbs++;
  g_assert_cmpuint (n_thumbs, ==, 120);
  thumb = ct_gui_test_find_widget (flow, GTK_TYPE_BUTTON, NULL);
  g_assert_true (g_str_has_suffix (gtk_widget_get_tooltip_text (thumb), ")"));
  g_assert_true (strstr (gtk_widget_get_tooltip_text (thumb), ": Shirt, taken for T-shirt/top (")
                 != NULL);

  png_button = button_with_label (top, "Export PNG…");
  g_assert_false (gtk_widget_get_sensitive (png_button));
  g_signal_emit_by_name (thumb, "clicked");
  wait_until_sensitive (png_button);
  screenshot (top, "analysis-saliency.png");
  dropdown = ct_gui_test_find_widget (top, GTK_TYPE_DROP_DOWN, NULL);
  g_assert_nonnull (dropdown);
  gtk_widget_set_sensitive (png_button, FALSE);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), 1);
  wait_until_sensitive (png_button);
  screenshot (top, "analysis-grad-cam.png");
  gtk_widget_set_sensitive (png_button, FALSE);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), 2);
  wait_until_sensitive (png_button);
  screenshot (top, "analysis-occlusion.png");
  g_assert_nonnull (ct_gui_test_find_widget (top, GTK_TYPE_PICTURE, NULL));

  /* the image picked becomes the first sample of the TEST Data layer's
   * batch in the step view (an item of the Fashion-MNIST test set) */
  {
    GtkWidget *step = button_with_label (top, "Step Through This Image");
    guint channels = 0, height = 0, width = 0;
    guint64 index = 0, serial = 0;
    const float *image = ct_analysis_window_get_sample (analysis, &index, &channels, &height,
                                                        &width);
    g_autoptr (GVariant) phase = NULL;
    CtRunSnapshot *snapshot = NULL;
    const CtRunBlob *blob;
    const float *data;
    int next = 0;

    g_assert_nonnull (image);
    g_assert_cmpuint (channels * height * width, ==, 784);
    g_assert_true (gtk_widget_get_sensitive (step));
    g_signal_emit_by_name (step, "clicked");
    phase = g_action_group_get_action_state (G_ACTION_GROUP (window), "phase");
    g_assert_cmpstr (g_variant_get_string (phase, NULL), ==, "test");
    /* the inspector watches conv1's blobs, its input among them */
    ct_window_select (window, (const char *const[]) { "conv1", NULL });
    ct_gui_test_spin (100);
    for (int guard = 0; guard < 10 && next < 3; guard++)
      {
        g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
        snapshot = ct_gui_test_next_snapshot (window, &serial);
        g_assert_no_error (ct_run_snapshot_get_error (snapshot));
        next = ct_run_snapshot_get_next_layer (snapshot);
      }
    g_assert_cmpint (next, >=, 3);
    blob = ct_run_snapshot_find_blob (snapshot, "data");
    g_assert_nonnull (blob);
    g_assert_nonnull (blob->versions);
    g_assert_cmpuint (blob->versions->len, >, 0);
    data = g_bytes_get_data (
      ((CtRunVersion *) blob->versions->pdata[blob->versions->len - 1])->data, NULL);
    for (guint i = 0; i < 784; i++)
      g_assert_cmpfloat (data[i], ==, image[i]);
  }
  check_top_activations (analysis, dir, weights);
  /* closed while the top activations are searched: the search is
   * cancelled, and the window (whose net the search borrows) lives until
   * it ends, then goes */
  {
    CtAnalysisTopPanel *panel = CT_ANALYSIS_TOP_PANEL (
      ct_gui_test_find_widget (top, CT_TYPE_ANALYSIS_TOP_PANEL, NULL));
    gpointer alive = analysis;

    g_object_add_weak_pointer (G_OBJECT (analysis), &alive);
    g_assert_true (ct_analysis_top_panel_search (panel, "conv2", 2));
    gtk_window_destroy (GTK_WINDOW (analysis));
    for (int i = 0; i < 200 && alive != NULL; i++)
      ct_gui_test_spin (50);
    g_assert_null (alive);
  }
  ct_gui_test_close_window (window);
}

/* A copy of the caffemodel at FROM with conv1's weights × 1.1, at TO. */
static void
write_scaled (const char *from, const char *to)
{
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *net = (Caffe__NetParameter *) ct_binary_read_file (
    &caffe__net_parameter__descriptor, from, &error);

  g_assert_no_error (error);
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, "conv1") == 0)
      for (gsize j = 0; j < net->layer[i]->blobs[0]->n_data; j++)
        net->layer[i]->blobs[0]->data[j] *= 1.1f;
  g_assert_true (ct_binary_write_file (&net->base, to, &error));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_compare (void)
{
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *scaled = g_build_filename (scratch, "scaled.caffemodel", NULL);
  CtModelCompareWindow *same, *changed;
  const CtModelDiff *diff;
  const CtModelDiffBlob *first;

  write_scaled (weights, scaled);
  same = ct_model_compare_window_new (NULL, weights, weights);
  changed = ct_model_compare_window_new (NULL, weights, scaled);
  gtk_window_present (GTK_WINDOW (changed));
  for (int i = 0; i < 300 && (ct_model_compare_window_get_diff (same) == NULL
                              || ct_model_compare_window_get_diff (changed) == NULL); i++)
    ct_gui_test_spin (100);
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (same), GTK_TYPE_LABEL,
                                             "The two models hold the same weights, bit for "
                                             "bit."));
  diff = ct_model_compare_window_get_diff (changed);
  g_assert_false (ct_model_diff_is_equal (diff));
  first = g_ptr_array_index (diff->blobs, 0);
  g_assert_cmpstr (first->layer, ==, "conv1");
  g_assert_cmpfloat_with_epsilon (first->relative, 0.1, 1e-6);
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (changed), GTK_TYPE_LABEL, "0.1"));
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (changed), GTK_TYPE_LABEL,
                                             "The blobs that changed most come first."));
  screenshot (GTK_WIDGET (changed), "analysis-compare.png");
  gtk_window_destroy (GTK_WINDOW (same));
  gtk_window_destroy (GTK_WINDOW (changed));
}

int
main (int argc, char *argv[])
{
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-analysis", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-analysis/lenet", test_analysis);
      g_test_add_func ("/gtk/window-analysis/compare", test_compare);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
