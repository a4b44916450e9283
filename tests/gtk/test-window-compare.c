/* test-window-compare.c: comparing on the graph, under Xvfb (skipped
 * without a display).
 *
 * - Weights: Caffe's trained LeNet (tests/data/reference) against the same
 *   weights after one SGD step on four Fashion-MNIST images: the four
 *   layers with parameters are coloured by their ‖Δw‖/‖w‖, computed here
 *   from the two files on their own, with the value in the tooltip;
 *   selecting conv2 on the graph shows its filters (first, second,
 *   difference) and its largest changes, with the largest |Δw| of the
 *   files first; "Clear Colours on the Graph" takes the marks off.
 * - Nets: the document (conv1's num_output 20 → 16, the loss layer gone)
 *   against its saved file through win.compare-saved: conv1 marked
 *   changed with the field in its tooltip, the loss listed as removed, the
 *   text both ways.
 * - Git: a file at HEAD~1 of a repository made here (skipped without git),
 *   and clear errors outside a work tree and for a revision that does not
 *   exist.
 *
 * With CT_SCREENSHOT_DIR set, the windows are saved there as
 * compare-weights-graph.png, compare-weights.png, compare-net-graph.png
 * and compare-net.png. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "analysis-window.h"
#include "blob.h"
#include "git-revision.h"
#include "gui-test.h"
#include "heatmap-view.h"
#include "model-compare-window.h"
#include "model-diff.h"
#include "net-compare-window.h"
#include "net.h"
#include "solver.h"
#include "test-files.h"
#include "text-format.h"
#include "weight-compare.h"
#include "window-private.h"

static CtApplication *app;
static char *scratch;

static char *
reference (const char *name)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", name, NULL);
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

static gpointer
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        return w;
    }
  return NULL;
}

static gpointer
wait_for_toplevel (GType type)
{
  gpointer w = NULL;

  for (int i = 0; i < 300 && (w = find_toplevel (type)) == NULL; i++)
    ct_gui_test_spin (50);
  g_assert_nonnull (w);
  return w;
}

/* One SGD step (lr 0.01, no momentum, no decay) of LeNet from Caffe's
 * trained weights on the four test images of tests/data/reference. */
static void
write_one_step (const char *net_path, const char *weights, const char *after)
{
  g_autofree char *text = g_strdup_printf ("net: '%s' base_lr: 0.01 lr_policy: 'fixed' "
                                           "max_iter: 1 random_seed: 1701", net_path);
  g_autofree char *data_path = reference ("fashion_test4_data.f32");
  g_autofree char *label_path = reference ("fashion_test4_label.f32");
  g_autofree char *data = NULL, *label = NULL;
  gsize data_len = 0, label_len = 0;
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param = (Caffe__SolverParameter *) ct_text_parse (
    &caffe__solver_parameter__descriptor, text, -1, "solver", CT_TEXT_STRICT, &error);
  g_autoptr (CtSolver) solver = NULL;
  CtNet *net;
  float *values;

  g_assert_no_error (error);
  solver = ct_solver_new (param, NULL, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_no_error (error);
  net = ct_solver_get_net (solver);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (data_path, &data, &data_len, NULL));
  g_assert_true (g_file_get_contents (label_path, &label, &label_len, NULL));
  g_assert_cmpuint (data_len, ==, 4 * 28 * 28 * sizeof (float));
  g_assert_cmpuint (label_len, ==, 4 * sizeof (float));
  values = ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "data"), &error);
  memcpy (values, data, data_len);
  values = ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "label"), &error);
  memcpy (values, label, label_len);
  g_assert_no_error (error);
  g_assert_true (ct_solver_step (solver, 1, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_write_caffemodel (net, after, FALSE, &error));
  g_assert_no_error (error);
}

/* ‖Δw‖/‖w‖ of LAYER over all its blobs, and its largest |Δw| of blob 0,
 * straight from the two models. */
static double
layer_relative (const Caffe__NetParameter *a, const Caffe__NetParameter *b, const char *layer,
                double *largest)
{
  double sa = 0.0, sd = 0.0;

  *largest = 0.0;
  for (gsize i = 0; i < a->n_layer; i++)
    {
      const Caffe__LayerParameter *la = a->layer[i], *lb = NULL;

      if (g_strcmp0 (la->name, layer) != 0)
        continue;
      for (gsize j = 0; j < b->n_layer; j++)
        if (g_strcmp0 (b->layer[j]->name, layer) == 0)
          lb = b->layer[j];
      g_assert_nonnull (lb);
      g_assert_cmpuint (la->n_blobs, ==, lb->n_blobs);
      for (gsize k = 0; k < la->n_blobs; k++)
        {
          g_assert_cmpuint (la->blobs[k]->n_data, ==, lb->blobs[k]->n_data);
          for (gsize v = 0; v < la->blobs[k]->n_data; v++)
            {
              double d = (double) lb->blobs[k]->data[v] - la->blobs[k]->data[v];

              sa += (double) la->blobs[k]->data[v] * la->blobs[k]->data[v];
              sd += d * d;
              if (k == 0)
                *largest = MAX (*largest, fabs (d));
            }
        }
    }
  return sqrt (sd) / sqrt (sa);
}

static void
test_weights (void)
{
  g_autofree char *net_path = reference ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *after = g_build_filename (scratch, "lenet_one_step.caffemodel", NULL);
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights);
  g_autoptr (GError) error = NULL;
  const char *layers[] = { "conv1", "conv2", "ip1", "ip2" };
  const char *conv2[] = { "conv2", NULL };
  Caffe__NetParameter *a, *b;
  CtModelCompareWindow *compare;
  CtAnalysisWindow *analysis;
  CtWindow *window;
  CtGraphView *view;
  GtkWidget *clear;
  double largest = 0.0;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  write_one_step (net_path, weights, after);
  a = ct_model_read (weights, &error);
  g_assert_no_error (error);
  b = ct_model_read (after, &error);
  g_assert_no_error (error);

  window = ct_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 720);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  g_assert_cmpuint (ct_graph_view_n_marks (view), ==, 0);

  compare = ct_window_compare_weights (window, after);
  for (int i = 0; i < 300 && ct_model_compare_window_get_layers (compare) == NULL; i++)
    ct_gui_test_spin (50);
  g_assert_nonnull (ct_model_compare_window_get_layers (compare));
  g_assert_cmpuint (ct_graph_view_n_marks (view), ==, G_N_ELEMENTS (layers));
  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      double rel = layer_relative (a, b, layers[i], &largest);
      CtRgb rgb = ct_change_scale_color (rel);
      CtGraphColor color;
      const char *note = ct_graph_view_get_mark (view, layers[i], &color);

      g_test_message ("%s: ‖Δw‖/‖w‖ = %g", layers[i], rel);
      /* one step moves the weights, but only a little */
      g_assert_cmpfloat (rel, >, 1e-7);
      g_assert_cmpfloat (rel, <, 0.1);
      g_assert_nonnull (note);
      g_assert_nonnull (strstr (note, g_ascii_formatd (buf, sizeof buf, "%.3g", rel)));
      g_assert_cmpfloat_with_epsilon (color.r, rgb.r / 255.0, 1e-9);
      g_assert_cmpfloat_with_epsilon (color.g, rgb.g / 255.0, 1e-9);
      g_assert_cmpfloat_with_epsilon (color.b, rgb.b / 255.0, 1e-9);
    }
  /* layers without parameters stay as they were */
  g_assert_null (ct_graph_view_get_mark (view, "pool1", NULL));
  g_assert_null (ct_graph_view_get_mark (view, "loss", NULL));
  screenshot (GTK_WIDGET (window), "compare-weights-graph.png");

  /* the graph's selection picks the blob shown */
  ct_window_select (window, conv2);
  ct_gui_test_spin (100);
  layer_relative (a, b, "conv2", &largest);
  g_assert_cmpstr (ct_heatmap_view_get_blob_name (
                     CT_HEATMAP_VIEW (ct_model_compare_window_get_view (compare, 2))),
                   ==, "conv2, second − first");
  g_assert_cmpint (ct_heatmap_view_get_n_samples (
                     CT_HEATMAP_VIEW (ct_model_compare_window_get_view (compare, 0))), ==, 1);
  {
    const char *changes = ct_model_compare_window_get_changes_text (compare);
    g_auto (GStrv) lines = g_strsplit (changes, "\n", -1);
    const char *delta;

    g_assert_cmpstr (lines[0], ==, "Largest changes:");
    g_assert_cmpuint (g_strv_length (lines), ==, 6);
    /* the first listed is the largest |Δw| of the files */
    delta = strstr (lines[1], "Δ ");
    g_assert_nonnull (delta);
    g_assert_cmpfloat_with_epsilon (fabs (g_ascii_strtod (delta + strlen ("Δ "), NULL)),
                                    largest, largest * 1e-3);
  }
  gtk_window_set_default_size (GTK_WINDOW (compare), 1280, 720);
  screenshot (GTK_WIDGET (compare), "compare-weights.png");
  {
    const char *conv1[] = { "conv1", NULL };

    ct_window_select (window, conv1);
    ct_gui_test_spin (100);
    g_assert_cmpstr (ct_heatmap_view_get_blob_name (
                       CT_HEATMAP_VIEW (ct_model_compare_window_get_view (compare, 0))),
                     ==, "conv1, first");
    screenshot (GTK_WIDGET (compare), "compare-weights-conv1.png");
  }

  clear = ct_gui_test_find_widget (GTK_WIDGET (compare), GTK_TYPE_LABEL,
                                   "Clear Colours on the Graph");
  g_assert_nonnull (clear);
  while (!GTK_IS_BUTTON (clear))
    clear = gtk_widget_get_parent (clear);
  g_signal_emit_by_name (clear, "clicked");
  g_assert_cmpuint (ct_graph_view_n_marks (view), ==, 0);
  gtk_window_destroy (GTK_WINDOW (compare));

  /* the analysis window's "Compare Weights With…" shows on the graph too,
   * until its comparison window closes */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.analyze", NULL));
  analysis = wait_for_toplevel (CT_TYPE_ANALYSIS_WINDOW);
  compare = ct_model_compare_window_new (GTK_WINDOW (analysis), weights, after);
  g_signal_emit_by_name (analysis, "compare-opened", compare);
  for (int i = 0; i < 300 && ct_model_compare_window_get_layers (compare) == NULL; i++)
    ct_gui_test_spin (50);
  g_assert_cmpuint (ct_graph_view_n_marks (view), ==, G_N_ELEMENTS (layers));
  gtk_window_destroy (GTK_WINDOW (compare));
  g_assert_cmpuint (ct_graph_view_n_marks (view), ==, 0);
  gtk_window_destroy (GTK_WINDOW (analysis));

  protobuf_c_message_free_unpacked (&a->base, NULL);
  protobuf_c_message_free_unpacked (&b->base, NULL);
  ct_gui_test_close_window (window);
}

/* TEXT with conv1's num_output 20 → 16 and the loss layer cut. */
static char *
edited_net (const char *text)
{
  g_autoptr (GString) s = g_string_new (text);
  const char *loss = strstr (s->str, "layer {\n  name: \"loss\"");
  gsize at = loss - s->str;

  g_assert_nonnull (loss);
  g_string_truncate (s, at);
  g_assert_cmpuint (g_string_replace (s, "num_output: 20", "num_output: 16", 1), ==, 1);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static CtNetCompareWindow *
compare_and_wait (void)
{
  CtNetCompareWindow *compare = NULL;

  g_assert_null (find_toplevel (CT_TYPE_NET_COMPARE_WINDOW));
  compare = wait_for_toplevel (CT_TYPE_NET_COMPARE_WINDOW);
  ct_gui_test_spin (50);
  return compare;
}

static void
check_net_diff (CtWindow *window, CtNetCompareWindow *compare)
{
  CtGraphView *view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  g_autofree char *text = ct_net_compare_window_dup_text (compare);
  const char *note;

  g_assert_cmpstr (ct_net_compare_window_get_summary (compare), ==,
                   "Layers added: 0, removed: 1, renamed: 0, changed: 1.");
  g_assert_cmpstr (ct_net_compare_window_get_removed (compare), ==,
                   "Removed, so not on the graph: loss (SoftmaxWithLoss)");
  g_assert_nonnull (strstr (text, "~ conv1: convolution_param.num_output: 20 -> 16\n"
                                  "- layer 'loss' (SoftmaxWithLoss)\n"));
  g_assert_nonnull (strstr (text, "~ conv1: convolution_param.num_output: 16 -> 20\n"
                                  "+ layer 'loss' (SoftmaxWithLoss)\n"));
  note = ct_graph_view_get_mark (view, "conv1", NULL);
  g_assert_cmpstr (note, ==, "changed: convolution_param.num_output 20 → 16");
  g_assert_null (ct_graph_view_get_mark (view, "conv2", NULL));
  g_assert_cmpuint (ct_graph_view_n_marks (view), ==, 1);
}

static void
test_saved (void)
{
  g_autofree char *src = reference ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *path = g_build_filename (scratch, "lenet_saved.prototxt", NULL);
  g_autofree char *text = NULL, *edited = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (path);
  CtNetCompareWindow *compare;
  CtWindow *window;

  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  window = ct_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 720);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  edited = edited_net (ct_document_get_text (ct_window_get_document (window)));
  ct_document_set_text (ct_window_get_document (window), edited);
  ct_gui_test_settle (window);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-saved", NULL));
  compare = compare_and_wait ();
  check_net_diff (window, compare);
  gtk_window_set_default_size (GTK_WINDOW (compare), 760, 420);
  screenshot (GTK_WIDGET (window), "compare-net-graph.png");
  screenshot (GTK_WIDGET (compare), "compare-net.png");
  g_signal_emit_by_name (compare, "clear-marks");
  g_assert_cmpuint (ct_graph_view_n_marks (CT_GRAPH_VIEW (ct_window_get_graph_view (window))),
                    ==, 0);
  gtk_window_destroy (GTK_WINDOW (compare));
  ct_window_discard_and_close (window);
  ct_gui_test_spin (50);
}

static void
git (const char *dir, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (char *) "git");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "user.name=Cortado Test");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "user.email=test@cortado.invalid");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                                 | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static void
test_git (void)
{
  g_autofree char *src = reference ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *repo = g_build_filename (scratch, "repo", NULL);
  g_autofree char *sub = g_build_filename (repo, "nets", NULL);
  g_autofree char *path = g_build_filename (sub, "lenet.prototxt", NULL);
  g_autofree char *outside = g_build_filename (scratch, "outside.prototxt", NULL);
  g_autofree char *git_path = g_find_program_in_path ("git");
  g_autofree char *text = NULL, *edited = NULL, *old = NULL, *outside_text = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  const char *init[] = { "init", "-q", NULL };
  const char *add[] = { "add", "nets/lenet.prototxt", NULL };
  const char *commit1[] = { "commit", "-q", "-m", "first", NULL };
  const char *commit2[] = { "commit", "-q", "-a", "-m", "second", NULL };
  CtNetCompareWindow *compare;
  CtWindow *window;

  if (git_path == NULL)
    {
      g_test_skip ("git is not installed");
      return;
    }
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  edited = edited_net (text);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  git (repo, init);
  git (repo, add);
  git (repo, commit1);
  g_assert_true (g_file_set_contents (path, edited, -1, NULL));
  git (repo, commit2);

  /* the reader itself: the file as it was, and clear errors */
  old = ct_git_show_file (path, "HEAD~1", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (old, ==, text);
  g_assert_null (ct_git_show_file (path, "HEAD~5", NULL, &error));
  g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NO_REVISION);
  g_clear_error (&error);
  g_assert_null (ct_git_show_file (path, "--output=x", NULL, &error));
  g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_BAD_REVISION);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (outside, text, -1, NULL));
  outside_text = ct_git_show_file (outside, "HEAD", NULL, &error);
  if (outside_text == NULL)
    {
      g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NOT_A_REPO);
      g_assert_nonnull (strstr (error->message, "is not in a git work tree"));
    }
  else
    g_test_message ("the scratch folder is inside a git work tree: not checked");
  g_clear_error (&error);

  /* the window: the document (the second commit) against the first */
  window = ct_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  ct_window_compare_net (window, path, "HEAD~1");
  compare = compare_and_wait ();
  check_net_diff (window, compare);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (compare)), ==,
                   "This Net against lenet.prototxt at HEAD~1");
  /* closing the window takes its colours off the graph */
  gtk_window_destroy (GTK_WINDOW (compare));
  g_assert_cmpuint (ct_graph_view_n_marks (CT_GRAPH_VIEW (ct_window_get_graph_view (window))),
                    ==, 0);

  /* a file in no work tree: an error that says so, and no window */
  if (outside_text == NULL)
    {
      ct_window_compare_net (window, outside, "HEAD");
      for (int i = 0; i < 200 && window->shown_toast == NULL; i++)
        ct_gui_test_spin (50);
      g_assert_nonnull (window->shown_toast);
      g_assert_nonnull (strstr (adw_toast_get_title (window->shown_toast),
                                "Could not compare the nets: "));
      g_assert_nonnull (strstr (adw_toast_get_title (window->shown_toast),
                                "is not in a git work tree"));
      g_assert_null (find_toplevel (CT_TYPE_NET_COMPARE_WINDOW));
    }
  ct_gui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-compare", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-compare/weights", test_weights);
      g_test_add_func ("/gtk/window-compare/saved", test_saved);
      g_test_add_func ("/gtk/window-compare/git", test_git);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
