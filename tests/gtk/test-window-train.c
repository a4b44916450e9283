/* test-window-train.c: training in the window, under Xvfb (skipped without
 * a display). The LeNet example's net and solver are copied into a scratch
 * folder with one LMDB made there by cortado-cli from Debian's Fashion-MNIST
 * test images (skipped when the dataset is not installed), read by both the
 * train and the test net so that the database costs a fraction of a
 * second:
 *
 * - the LeNet example opens with its solver in the panel, which saves and
 *   reads back; opening the
 *   solver file opens its net;
 * - 200 iterations from the panel (max_iter, test_iter and test_interval
 *   lowered through the form): the loss falls, the plots have every point,
 *   the header bar counts the iterations, and the trained weights go to
 *   the step view;
 * - a snapshot's caffemodel under `cortado-cli test` gives the accuracy the
 *   window showed;
 * - a breakpoint on conv2 pauses inside the pass with the step view on the
 *   live data; F7 (win.run-forward) steps the trainer and conv2's output
 *   appears; the training action resumes; the earlier run stays on the plot,
 *   faded;
 * - Restart repeats the run bit for bit; a .solverstate resumes it;
 * - Restart after base_lr 0.01 -> 0.1 starts from the same loss at the new
 *   rate, the earlier run labelled "base_lr 0.01", and below the plot
 *   each earlier run says in full how its settings (solver and net)
 *   differ from the current run's;
 * - the net opened alone brings lenet_solver.prototxt beside it;
 * - a huge base_lr stops training with a toast naming the layer, which the
 *   graph marks;
 * - comparing while training is paused takes the paused weights: against
 *   the snapshot of iteration 10, each layer's ‖Δw‖/‖w‖ is the one
 *   weight-compare.c computes from the snapshot written at the pause;
 *   comparing while it runs takes the weights between two iterations;
 *   at a breakpoint, those of the last iteration completed (again equal
 *   to the snapshot written there);
 *   with neither weights nor a run, the window says why.
 *
 * With CT_SCREENSHOT_DIR set, it also trains a second run with another
 * learning rate and saves training-plots.png and breakpoint.png there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "field-path.h"
#include "graph-view.h"
#include "model-compare-window.h"
#include "model-diff.h"
#include "weight-compare.h"
#include "text-format.h"
#include "gui-test.h"
#include "window-private.h"
#include "window-train-private.h"

#define MNIST "/usr/share/datasets/fashion-mnist"

static CtApplication *app;
static char *work;

static gboolean
have_data (void)
{
  if (g_file_test (MNIST "/t10k-images-idx3-ubyte.gz", G_FILE_TEST_EXISTS)
      && g_getenv ("CT_CLI") != NULL)
    return TRUE;
  g_test_skip ("needs dataset-fashion-mnist and CT_CLI");
  return FALSE;
}

static char *
source_file (const char *name)
{
  const char *root = g_getenv ("CT_SOURCE_ROOT");

  return g_build_filename (root != NULL ? root : ".", "data", "examples", "lenet-fashion", name,
                           NULL);
}

/* The scratch folder: the example's net reading one LMDB, its solver. */
static void
prepare_work (void)
{
  g_autofree char *net_path = source_file ("lenet_train_test.prototxt");
  g_autofree char *solver_path = source_file ("lenet_solver.prototxt");
  g_autofree char *net = NULL, *solver = NULL, *out = NULL, *err = NULL;
  g_autofree char *lmdb = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) parts = NULL;
  g_autofree char *joined = NULL;
  int status = 0;

  if (work != NULL)
    return;
  work = g_build_filename (g_get_user_data_dir (), "train-work", NULL);
  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  lmdb = g_build_filename (work, "fashion_test_lmdb", NULL);
  {
    const char *argv[] = { g_getenv ("CT_CLI"), "convert", "mnist",
                           MNIST "/t10k-images-idx3-ubyte.gz", MNIST "/t10k-labels-idx1-ubyte.gz",
                           lmdb, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                                 &err, &status, &error));
    g_assert_no_error (error);
    g_assert_cmpint (status, ==, 0);
  }
  g_assert_true (g_file_get_contents (net_path, &net, NULL, &error));
  parts = g_strsplit (net, "fashion_train_lmdb", -1);
  joined = g_strjoinv ("fashion_test_lmdb", parts);
  g_free (net_path);
  net_path = g_build_filename (work, "lenet_train_test.prototxt", NULL);
  g_assert_true (g_file_set_contents (net_path, joined, -1, &error));
  g_assert_true (g_file_get_contents (solver_path, &solver, NULL, &error));
  g_free (solver_path);
  solver_path = g_build_filename (work, "lenet_solver.prototxt", NULL);
  g_assert_true (g_file_set_contents (solver_path, solver, -1, &error));
}

/* Run the main loop until COND holds, failing past SECONDS. */
#define WAIT_UNTIL(cond, seconds)                                                          \
  G_STMT_START                                                                             \
  {                                                                                        \
    gint64 deadline_ = g_get_monotonic_time () + (seconds) * G_USEC_PER_SEC;               \
    while (!(cond))                                                                        \
      {                                                                                    \
        g_assert_cmpint (g_get_monotonic_time (), <, deadline_);                           \
        ct_gui_test_spin (10);                                                             \
      }                                                                                    \
  }                                                                                        \
  G_STMT_END

static void
set_field (CtWindow *window, const char *path, const char *value)
{
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param;
  g_autofree char *now = NULL;

  g_signal_emit_by_name (ct_solver_panel_get_form (window->solver_panel), "changed", path, value);
  param = ct_solver_panel_dup_param (window->solver_panel);
  now = ct_field_path_get (&param->base, path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (now, ==, value);
  protobuf_c_message_free_unpacked (&param->base, NULL);
}

static CtWindow *
open_solver_named (const char *solver, const char *net)
{
  CtWindow *window = ct_window_new (app);
  g_autofree char *path = g_build_filename (work, solver, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *name = NULL;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  /* the solver opened its net, and the Training view */
  name = g_file_get_basename (ct_window_get_file (window));
  g_assert_cmpstr (name, ==, net);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "training");
  return window;
}

static CtWindow *
open_solver (void)
{
  return open_solver_named ("lenet_solver.prototxt", "lenet_train_test.prototxt");
}

static void
close_window (CtWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (20);
}

static double
mean_y (CtPlot *plot, int series, gsize from, gsize n)
{
  const double *ys = ct_plot_series_get_ys (plot, series);
  double sum = 0;

  for (gsize i = from; i < from + n; i++)
    sum += ys[i];
  return sum / (double) n;
}

/* The series of the current run named NAME (not faded), or -1. */
static int
find_series (CtPlot *plot, const char *name, gboolean faded)
{
  int found = -1;

  for (int i = 0; i < ct_plot_get_n_series (plot); i++)
    if (g_strcmp0 (ct_plot_series_get_name (plot, i), name) == 0
        && ct_plot_series_get_visible (plot, i)
        && ct_plot_series_get_faded (plot, i) == faded)
      found = i;
  return found;
}

static void
shoot (CtWindow *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  path = g_build_filename (dir, name, NULL);
  /* the toasts gone (one after another), no hover readout where Xvfb's
   * pointer happens to be */
  g_free (ct_plot_view_hover_at (ct_window_train_get_plot (window), -1, -1));
  ct_gui_test_spin (9000);
  g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
  g_test_message ("saved %s", path);
}

static void
test_example_solver (void)
{
  CtWindow *window = ct_window_new (app);
  Caffe__SolverParameter *param;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  ct_gui_test_settle (window);
  param = ct_solver_panel_dup_param (window->solver_panel);
  /* the example's own solver, not the default one */
  g_assert_cmpint (param->max_iter, ==, 10000);
  g_assert_cmpstr (param->lr_policy, ==, "inv");
  g_assert_nonnull (
    ct_property_form_get_editor (ct_solver_panel_get_form (window->solver_panel), "base_lr"));
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "train-toggle"));

  /* saved, it reads back as it was shown, with the change made in the form */
  {
    g_autofree char *path = g_build_filename (g_get_user_data_dir (), "saved_solver.prototxt",
                                              NULL);
    g_autoptr (GFile) file = g_file_new_for_path (path);
    g_autoptr (GError) error = NULL;
    Caffe__SolverParameter *read;

    set_field (window, "max_iter", "1234");
    g_assert_true (ct_solver_panel_save_file (window->solver_panel, file));
    read = (Caffe__SolverParameter *) ct_text_parse_file (&caffe__solver_parameter__descriptor,
                                                          path, CT_TEXT_STRICT, &error);
    g_assert_no_error (error);
    g_assert_cmpint (read->max_iter, ==, 1234);
    g_assert_cmpstr (read->lr_policy, ==, "inv");
    protobuf_c_message_free_unpacked (&read->base, NULL);
  }
  close_window (window);
}

/* The accuracy `cortado-cli test` gives for WEIGHTS on the scratch net. */
static double
cli_accuracy (const char *weights, int iterations)
{
  g_autofree char *model = g_build_filename (work, "lenet_train_test.prototxt", NULL);
  g_autofree char *model_arg = g_strconcat ("--model=", model, NULL);
  g_autofree char *weights_arg = g_strconcat ("--weights=", weights, NULL);
  g_autofree char *iter_arg = g_strdup_printf ("--iterations=%d", iterations);
  const char *argv[] = { g_getenv ("CT_CLI"), "test", model_arg, weights_arg, iter_arg, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *all = NULL;
  const char *at, *last = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (work, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  all = g_strconcat (out, err, NULL);
  for (at = strstr (all, "accuracy = "); at != NULL; at = strstr (at + 1, "accuracy = "))
    last = at;
  g_assert_nonnull (last);
  return g_ascii_strtod (last + strlen ("accuracy = "), NULL);
}

static void
test_train (void)
{
  CtWindow *window;
  CtPlot *plot;
  int loss, smooth, lr, accuracy;
  double shown = 0, cli;
  g_autofree char *prefix = NULL;
  g_autofree char *weights = NULL;
  g_auto (GStrv) files = NULL;

  if (!have_data ())
    return;
  prepare_work ();
  window = open_solver ();
  set_field (window, "max_iter", "200");
  set_field (window, "test_interval", "100");
  set_field (window, "test_initialization", "false");
  /* 100 batches of 100: every test reads the whole database once, as
   * `cortado-cli test` below does */
  set_field (window, "test_iter[0]", "100");
  prefix = g_build_filename (work, "snap", NULL);
  set_field (window, "snapshot_prefix", prefix);
  set_field (window, "snapshot", "0");

  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 50);
  g_assert_cmpint (ct_window_train_get_iter (window), ==, 200);
  plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  loss = find_series (plot, "Loss", FALSE);
  smooth = find_series (plot, "Smoothed", FALSE);
  lr = find_series (plot, "Learning rate", FALSE);
  accuracy = find_series (plot, "Test accuracy", FALSE);
  g_assert_cmpint (loss, >=, 0);
  g_assert_cmpint (accuracy, >=, 0);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, loss), ==, 200);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, smooth), ==, 200);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, lr), ==, 200);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, accuracy), ==, 2);
  g_assert_cmpint (find_series (plot, "Test loss", FALSE), >=, 0);
  /* the smoothed loss is the mean of the last average_loss (20) */
  g_assert_cmpfloat (fabs (ct_plot_series_get_ys (plot, smooth)[100] - mean_y (plot, loss, 81, 20)),
                     <, 1e-5);
  /* the loss fell */
  g_assert_cmpfloat (mean_y (plot, loss, 180, 20), <, 0.7 * mean_y (plot, loss, 0, 20));
  g_assert_true (ct_window_train_get_test_value (window, "accuracy", &shown));
  g_assert_cmpfloat (shown, >, 0.5);
  /* an update ratio for each layer with weights, shown in a row each */
  {
    static const char *const layers[] = { "conv1", "conv2", "ip1", "ip2" };

    CtTrainView *view = window->train->view;

    g_assert_cmpuint (ct_train_view_get_n_ratios (view), ==, 4);
    for (gsize i = 0; i < G_N_ELEMENTS (layers); i++)
      {
        const double *ratio = ct_train_view_get_ratio (view, layers[i]);
        const char *number = ct_train_view_get_ratio_text (view, layers[i]);

        g_assert_nonnull (ratio);
        g_assert_true (isfinite (*ratio) && *ratio > 0 && *ratio < 1);
        g_assert_nonnull (number);
        g_assert_cmpstr (number, !=, "");
      }
  }
  /* the trained weights went to the step view */
  WAIT_UNTIL (ct_window_get_weights (window) != NULL, 20);

  /* a snapshot now, tested on the command line */
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-snapshot", NULL);
  WAIT_UNTIL (ct_window_train_get_last_files (window) != NULL
                && strstr (ct_window_train_get_last_files (window), "snap_iter_200") != NULL,
              20);
  files = g_strsplit (ct_window_train_get_last_files (window), "\n", -1);
  for (guint i = 0; files[i] != NULL; i++)
    if (g_str_has_suffix (files[i], ".caffemodel"))
      weights = g_strdup (files[i]);
  g_assert_nonnull (weights);
  cli = cli_accuracy (weights, 100);
  g_assert_cmpfloat (fabs (cli - shown), <, 1e-4);

  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      const char *follow[] = { "conv1", NULL };

      /* a second run with a lower rate beside the first, following conv1 */
      ct_window_select (window, follow);
      set_field (window, "max_iter", "400");
      set_field (window, "base_lr", "0.005");
      g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
      WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 120);
      adw_view_stack_set_visible_child_name (window->view_stack, "training");
      shoot (window, "training-plots.png");
      /* the update ratios as strips on the graph's edges */
      adw_view_stack_set_visible_child_name (window->view_stack, "graph");
      ct_gui_test_spin (200);
      ct_graph_view_set_zoom (CT_GRAPH_VIEW (ct_window_get_graph_view (window)), 1.0);
      ct_graph_view_reveal (CT_GRAPH_VIEW (ct_window_get_graph_view (window)), "conv2", FALSE);
      shoot (window, "update-ratios.png");
    }
  close_window (window);
}

static void
test_breakpoint (void)
{
  CtWindow *window;
  const char *ids[] = { "conv2", NULL };
  CtRunSnapshot *snapshot;
  const CtRunBlob *blob;
  CtPlot *plot;
  int iter;

  if (!have_data ())
    return;
  prepare_work ();
  window = open_solver ();
  set_field (window, "max_iter", "50");
  set_field (window, "test_interval", "1000");
  set_field (window, "test_initialization", "false");
  set_field (window, "snapshot_after_train", "false");
  /* a first run, to be compared with */
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 40);

  ct_window_select (window, ids);
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-break-here", NULL);
  g_assert_cmpstr (ct_window_train_get_breakpoint (window), ==, "conv2");
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_BREAK
                && ct_window_run_get_snapshot (window) != NULL, 30);
  /* the earlier run stays, faded, labelled */
  plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  {
    int faded = find_series (plot, "Loss", TRUE);
    g_assert_cmpint (faded, >=, 0);
    g_assert_cmpstr (ct_plot_series_get_run_label (plot, faded), ==, "run 1");
  }
  /* the step view shows the live pass, paused before conv2 */
  snapshot = ct_window_run_get_snapshot (window);
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_FORWARD);
  g_assert_cmpstr (ct_run_snapshot_get_layer (snapshot, ct_run_snapshot_get_next_layer (snapshot))
                     ->name, ==, "conv2");
  g_assert_true (ct_run_snapshot_find_blob (snapshot, "pool1")->has_data);
  g_assert_false (ct_run_snapshot_find_blob (snapshot, "conv2")->has_data);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "graph");
  iter = ct_window_train_get_iter (window);

  /* F7: conv2 runs, and its output is there to see */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  WAIT_UNTIL (ct_window_run_get_snapshot (window) != snapshot
                && ct_run_snapshot_find_blob (ct_window_run_get_snapshot (window), "conv2")
                     ->has_data, 30);
  snapshot = ct_window_run_get_snapshot (window);
  blob = ct_run_snapshot_find_blob (snapshot, "conv2");
  g_assert_nonnull (blob->versions);
  g_assert_cmpuint (blob->versions->len, >, 0);
  g_assert_cmpstr (ct_graph_view_get_highlight (CT_GRAPH_VIEW (ct_window_get_graph_view (window))),
                   ==, "conv2");
  g_assert_cmpint (ct_window_train_get_state (window), ==, CT_TRAIN_STATE_BREAK);
  shoot (window, "breakpoint.png");

  /* the training action resumes: the iteration completes, and the
   * breakpoint stops the next one */
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_iter (window) > iter
                && ct_window_train_get_state (window) == CT_TRAIN_STATE_BREAK, 30);
  /* no breakpoint: on to the end */
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-break-here", NULL);
  g_assert_null (ct_window_train_get_breakpoint (window));
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 30);
  close_window (window);
}

/* Restart repeats the run bit for bit (the last one stays, faded); a
 * .solverstate resumes where it was written. */
static void
test_restart_resume (void)
{
  CtWindow *window;
  CtPlot *plot;
  g_autofree char *prefix = NULL;
  g_autofree char *state = NULL;
  int now, before;

  if (!have_data ())
    return;
  prepare_work ();
  window = open_solver ();
  set_field (window, "max_iter", "20");
  set_field (window, "test_interval", "1000");
  set_field (window, "test_initialization", "false");
  prefix = g_build_filename (work, "rr", NULL);
  set_field (window, "snapshot_prefix", prefix);
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 30);
  state = g_strconcat (prefix, "_iter_20.solverstate", NULL);
  WAIT_UNTIL (g_file_test (state, G_FILE_TEST_EXISTS), 10);

  g_action_group_activate_action (G_ACTION_GROUP (window), "train-restart", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED
                && ct_window_train_get_iter (window) == 20
                && ct_plot_series_get_n_points (
                     ct_plot_view_get_plot (ct_window_train_get_plot (window)),
                     find_series (ct_plot_view_get_plot (ct_window_train_get_plot (window)),
                                  "Loss", FALSE)) == 20, 30);
  plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  now = find_series (plot, "Loss", FALSE);
  before = find_series (plot, "Loss", TRUE);
  g_assert_cmpint (before, >=, 0);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, before), ==, 20);
  g_assert_cmpmem (ct_plot_series_get_ys (plot, now), 20 * sizeof (double),
                   ct_plot_series_get_ys (plot, before), 20 * sizeof (double));

  /* on from iteration 20 to 30 */
  set_field (window, "max_iter", "30");
  g_assert_true (ct_window_train_resume_from (window, state));
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED
                && ct_window_train_get_iter (window) == 30, 30);
  plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  now = find_series (plot, "Loss", FALSE);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, now), ==, 10);
  g_assert_cmpfloat (ct_plot_series_get_xs (plot, now)[0], ==, 20);

  /* a window closed while it trains takes its trainer with it */
  set_field (window, "max_iter", "100000");
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_RUNNING
                && ct_window_train_get_iter (window) > 3, 30);
  close_window (window);
}

/* Restart uses the settings shown: base_lr 0.01 -> 0.1 restarts from the
 * same first loss (same seed, weights and data order) at the new rate, and
 * the earlier run is labelled by the rate it had. */
static void
test_restart_changed (void)
{
  CtWindow *window;
  CtPlot *plot;
  int loss, before, lr;

  if (!have_data ())
    return;
  prepare_work ();
  window = open_solver ();
  set_field (window, "max_iter", "20");
  set_field (window, "test_interval", "1000");
  set_field (window, "test_initialization", "false");
  set_field (window, "base_lr", "0.01");
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED
                && ct_window_train_get_iter (window) == 20, 30);
  set_field (window, "base_lr", "0.1");
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-restart", NULL);
  plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED
                && ct_window_train_get_iter (window) == 20
                && find_series (plot, "Loss", TRUE) >= 0
                && ct_plot_series_get_n_points (plot, find_series (plot, "Loss", FALSE)) == 20,
              30);
  loss = find_series (plot, "Loss", FALSE);
  before = find_series (plot, "Loss", TRUE);
  lr = find_series (plot, "Learning rate", FALSE);
  g_assert_cmpfloat_with_epsilon (ct_plot_series_get_ys (plot, lr)[0], 0.1, 1e-6);
  g_assert_cmpfloat (ct_plot_series_get_ys (plot, loss)[0], ==,
                     ct_plot_series_get_ys (plot, before)[0]);
  g_assert_cmpfloat (ct_plot_series_get_ys (plot, loss)[19], !=,
                     ct_plot_series_get_ys (plot, before)[19]);
  g_assert_cmpstr (ct_plot_series_get_run_label (plot, before), ==, "base_lr 0.01");
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL,
                                             "base_lr 0.01: base_lr 0.01→0.1"));

  /* a third run with another momentum and a wider conv1: below the plot,
   * each earlier run says how it differs from this one, in full */
  {
    const Caffe__NetParameter *net = ct_document_get_net (ct_window_get_document (window));
    g_autoptr (GError) error = NULL;
    g_autofree char *path = NULL;
    GtkWidget *row;

    for (gsize i = 0; i < net->n_layer && path == NULL; i++)
      if (g_strcmp0 (net->layer[i]->name, "conv1") == 0)
        path = g_strdup_printf ("layer[%" G_GSIZE_FORMAT "].convolution_param.num_output", i);
    g_assert_nonnull (path);
    g_assert_true (ct_document_set_field (ct_window_get_document (window), path, "24", &error));
    g_assert_no_error (error);
    set_field (window, "momentum", "0.8");
    g_action_group_activate_action (G_ACTION_GROUP (window), "train-restart", NULL);
    WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED
                  && ct_window_train_get_iter (window) == 20
                  && ct_plot_series_get_n_points (plot, find_series (plot, "Loss", FALSE))
                       == 20,
                30);
    row = ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL,
                                   "base_lr 0.01: base_lr 0.01→0.1 · momentum 0.9→0.8 · net "
                                   "changed: conv1 num_output 20→24");
    g_assert_nonnull (row);
    g_assert_cmpstr (gtk_widget_get_tooltip_text (row), ==,
                     "base_lr 0.01\nbase_lr 0.01→0.1\nmomentum 0.9→0.8\n"
                     "net changed: conv1 num_output 20→24");
    g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL,
                                               "momentum 0.9: momentum 0.9→0.8 · net changed: "
                                               "conv1 num_output 20→24"));
    g_assert_true (gtk_widget_get_mapped (row));
  }
  adw_view_stack_set_visible_child_name (window->view_stack, "training");
  shoot (window, "training-restart.png");
  close_window (window);
}

/* A net opened alone brings the solver beside it that names it. */
static void
test_net_beside_solver (void)
{
  CtWindow *window = ct_window_new (app);
  g_autofree char *path = source_file ("lenet_train_test.prototxt");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  Caffe__SolverParameter *param;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  param = ct_solver_panel_dup_param (window->solver_panel);
  g_assert_cmpint (param->max_iter, ==, 10000);
  g_assert_cmpstr (param->lr_policy, ==, "inv");
  g_assert_true (g_str_has_suffix (ct_solver_panel_get_source_path (window->solver_panel),
                                   "lenet_solver.prototxt"));
  protobuf_c_message_free_unpacked (&param->base, NULL);
  close_window (window);
}

static void
test_not_finite (void)
{
  CtWindow *window;
  const char *error;
  const char *quote;
  g_autofree char *layer = NULL;

  if (!have_data ())
    return;
  prepare_work ();
  window = open_solver ();
  set_field (window, "max_iter", "100");
  set_field (window, "test_interval", "1000");
  set_field (window, "test_initialization", "false");
  set_field (window, "base_lr", "1e+38");
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_last_error (window) != NULL, 30);
  error = ct_window_train_get_last_error (window);
  g_test_message ("%s", error);
  /* one sentence, not the layer twice ("Training stopped at layer ...:
   * training stopped: layer ...") */
  g_assert_true (g_str_has_prefix (error, "Training stopped: "));
  g_assert_null (strstr (error + 2, "raining stopped"));
  quote = strchr (error, '\'') + 1;
  layer = g_strndup (quote, strchr (quote, '\'') - quote);
  g_assert_cmpint (ct_window_layer_for_id (window, layer), >=, 0);
  g_assert_true (ct_graph_view_get_run_state (CT_GRAPH_VIEW (ct_window_get_graph_view (window)),
                                              layer)
                 & CT_GRAPH_NODE_STATE_RUN_FAILED);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_STOPPED, 10);
  close_window (window);
}

/* The comparison window that is neither OLD1 nor OLD2, once it has
 * compared. */
static CtModelCompareWindow *
wait_for_compare (CtModelCompareWindow *old1, CtModelCompareWindow *old2)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      GListModel *toplevels = gtk_window_get_toplevels ();

      for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
        {
          g_autoptr (GObject) w = g_list_model_get_item (toplevels, i);

          if (CT_IS_MODEL_COMPARE_WINDOW (w) && (gpointer) w != old1 && (gpointer) w != old2
              && ct_model_compare_window_get_layers (CT_MODEL_COMPARE_WINDOW (w)) != NULL)
            return CT_MODEL_COMPARE_WINDOW (w);
        }
      ct_gui_test_spin (10);
    }
  g_assert_not_reached ();
}

/* The caffemodel among the files written last whose name has NEEDLE. */
static char *
written_model (CtWindow *window, const char *needle)
{
  g_auto (GStrv) files = g_strsplit (ct_window_train_get_last_files (window), "\n", -1);

  for (guint i = 0; files[i] != NULL; i++)
    if (g_str_has_suffix (files[i], ".caffemodel") && strstr (files[i], needle) != NULL)
      return g_strdup (files[i]);
  return NULL;
}

/* Comparing the weights of a paused run, and of a running one, with an
 * earlier snapshot. */
static void
test_compare_live (void)
{
  static const char *const layers[] = { "conv1", "conv2", "ip1", "ip2" };
  CtWindow *window;
  CtModelCompareWindow *paused, *running, *at_break;
  g_autofree char *prefix = NULL;
  g_autofree char *earlier = NULL;
  g_autofree char *at_pause = NULL;
  g_autofree char *needle = NULL;
  g_autoptr (CtModelDiff) diff = NULL;
  g_autoptr (GPtrArray) expected = NULL;
  g_autoptr (GError) error = NULL;
  const GPtrArray *shown;
  CtGraphView *view;
  int iter;

  if (!have_data ())
    return;
  prepare_work ();
  window = open_solver ();
  view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  set_field (window, "max_iter", "100000");
  set_field (window, "test_interval", "100000");
  set_field (window, "test_initialization", "false");
  set_field (window, "snapshot_after_train", "false");
  prefix = g_build_filename (work, "live", NULL);
  set_field (window, "snapshot_prefix", prefix);
  set_field (window, "snapshot", "10");
  earlier = g_strconcat (prefix, "_iter_10.caffemodel", NULL);
  g_remove (earlier);

  /* before training, with no weights: nothing to compare, and why */
  g_assert_false (ct_window_train_has_live_weights (window));
  g_assert_false (ct_window_compare_weights_now (window, earlier));
  g_assert_nonnull (window->shown_toast);
  g_assert_nonnull (strstr (adw_toast_get_title (window->shown_toast), "start training"));
  /* the toast shown before Start dismisses it (libadwaita 1.2 crashes
   * when a toast is dismissed before its animation has begun) */
  ct_gui_test_spin (500);

  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_iter (window) >= 25, 60);
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_PAUSED, 30);
  iter = ct_window_train_get_iter (window);
  g_assert_cmpint (iter, >, 10);
  g_assert_true (g_file_test (earlier, G_FILE_TEST_EXISTS));
  g_assert_true (ct_window_train_has_live_weights (window));

  /* the snapshot written at the pause holds the paused weights */
  needle = g_strdup_printf ("live_iter_%d.", iter);
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-snapshot", NULL);
  WAIT_UNTIL (ct_window_train_get_last_files (window) != NULL
                && (at_pause = written_model (window, needle)) != NULL, 20);
  /* the window's weights first, as with weights loaded: Δw = earlier − paused */
  diff = ct_model_diff_files (at_pause, earlier, &error);
  g_assert_no_error (error);
  expected = ct_weight_compare_layers (diff);
  g_assert_cmpuint (expected->len, ==, G_N_ELEMENTS (layers));

  /* the window compares the paused weights, without a snapshot of its own */
  g_assert_true (ct_window_compare_weights_now (window, earlier));
  paused = wait_for_compare (NULL, NULL);
  g_assert_cmpint (ct_window_train_get_state (window), ==, CT_TRAIN_STATE_PAUSED);
  g_assert_cmpint (ct_window_train_get_iter (window), ==, iter);
  shown = ct_model_compare_window_get_layers (paused);
  g_assert_cmpuint (shown->len, ==, expected->len);
  for (guint i = 0; i < shown->len; i++)
    {
      const CtLayerChange *a = expected->pdata[i], *b = shown->pdata[i];

      g_test_message ("%s: ‖Δw‖/‖w‖ = %g from iteration 10 to %d", a->layer, a->relative, iter);
      g_assert_cmpstr (b->layer, ==, layers[i]);
      g_assert_cmpstr (b->layer, ==, a->layer);
      g_assert_cmpfloat (a->relative, >, 1e-6);
      g_assert_cmpfloat_with_epsilon (b->relative, a->relative, 1e-6 * a->relative);
      g_assert_nonnull (ct_graph_view_get_mark (view, layers[i], NULL));
    }
  /* the first model is the paused weights exported, not the snapshot */
  {
    g_autofree char *at = g_strdup_printf ("_iter_%d.", iter);
    g_autofree char *name = written_model (window, at);

    g_assert_nonnull (name);
    g_assert_nonnull (strstr (name, "compared"));
    g_assert_null (strstr (name, "live_iter"));
  }

  /* while running: the weights between two iterations, later ones */
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_iter (window) >= iter + 10, 60);
  g_assert_cmpint (ct_window_train_get_state (window), ==, CT_TRAIN_STATE_RUNNING);
  g_assert_true (ct_window_compare_weights_now (window, earlier));
  running = wait_for_compare (paused, NULL);
  {
    /* exported between two iterations, past the pause (the periodic
     * snapshots may have taken the last files' place since) */
    g_autoptr (GDir) dir = g_dir_open (window->train->compare_dir, 0, &error);
    const char *name;
    int latest = -1;

    g_assert_no_error (error);
    while ((name = g_dir_read_name (dir)) != NULL)
      {
        const char *at = strstr (name, "_iter_");

        if (g_str_has_suffix (name, ".caffemodel") && at != NULL)
          latest = MAX (latest, atoi (at + strlen ("_iter_")));
      }
    g_assert_cmpint (latest, >=, iter + 10);
  }
  shown = ct_model_compare_window_get_layers (running);
  g_assert_cmpuint (shown->len, ==, G_N_ELEMENTS (layers));
  for (guint i = 0; i < shown->len; i++)
    {
      const CtLayerChange *b = shown->pdata[i];

      g_test_message ("%s: ‖Δw‖/‖w‖ = %g while running", b->layer, b->relative);
      g_assert_cmpfloat (b->relative, >, 1e-6);
      g_assert_cmpfloat (b->relative, !=, ((const CtLayerChange *) expected->pdata[i])->relative);
    }

  /* at a breakpoint: the weights of the last iteration completed, as the
   * snapshot written there has them */
  ct_window_train_set_breakpoint (window, "conv2");
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_BREAK, 30);
  iter = ct_window_train_get_iter (window);
  g_clear_pointer (&needle, g_free);
  g_clear_pointer (&at_pause, g_free);
  needle = g_strdup_printf ("live_iter_%d.", iter);
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-snapshot", NULL);
  WAIT_UNTIL (ct_window_train_get_last_files (window) != NULL
                && (at_pause = written_model (window, needle)) != NULL, 20);
  g_clear_pointer (&diff, ct_model_diff_free);
  g_clear_pointer (&expected, g_ptr_array_unref);
  diff = ct_model_diff_files (at_pause, earlier, &error);
  g_assert_no_error (error);
  expected = ct_weight_compare_layers (diff);
  g_assert_true (ct_window_compare_weights_now (window, earlier));
  at_break = wait_for_compare (paused, running);
  g_assert_cmpint (ct_window_train_get_state (window), ==, CT_TRAIN_STATE_BREAK);
  shown = ct_model_compare_window_get_layers (at_break);
  g_assert_cmpuint (shown->len, ==, expected->len);
  for (guint i = 0; i < shown->len; i++)
    {
      const CtLayerChange *a = expected->pdata[i], *b = shown->pdata[i];

      g_test_message ("%s: ‖Δw‖/‖w‖ = %g at a breakpoint of iteration %d", a->layer,
                      a->relative, iter);
      g_assert_cmpstr (b->layer, ==, a->layer);
      g_assert_cmpfloat (a->relative, >, 1e-6);
      g_assert_cmpfloat_with_epsilon (b->relative, a->relative, 1e-6 * a->relative);
    }
  gtk_window_destroy (GTK_WINDOW (at_break));

  g_action_group_activate_action (G_ACTION_GROUP (window), "train-stop", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_STOPPED, 30);
  gtk_window_destroy (GTK_WINDOW (running));
  gtk_window_destroy (GTK_WINDOW (paused));
  close_window (window);
}

/* A solver that holds its net (net_param, as Caffe allows): the net opens
 * untitled with the solver in the Training view, and trains. */
static void
test_inline_net (void)
{
  static const char solver_text[] =
    "net_param { name: 'Inline' "
    "  layer { name: 'data' type: 'DummyData' top: 'data' top: 'label' "
    "    dummy_data_param { shape { dim: 8 dim: 1 dim: 6 dim: 6 } shape { dim: 8 } "
    "      data_filler { type: 'uniform' min: 0 max: 1 } "
    "      data_filler { type: 'uniform' min: 0 max: 2.99 } } } "
    "  layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv' "
    "    convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: 'xavier' } } } "
    "  layer { name: 'ip' type: 'InnerProduct' bottom: 'conv' top: 'ip' "
    "    inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } } "
    "  layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' } "
    "} "
    "base_lr: 0.01 momentum: 0.9 lr_policy: 'fixed' max_iter: 20 display: 0 "
    "snapshot_after_train: false random_seed: 3 ";
  g_autofree char *dir = g_build_filename (g_get_user_data_dir (), "inline-net", NULL);
  g_autofree char *path = g_build_filename (dir, "inline_solver.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  CtWindow *window = ct_window_new (app);
  CtDocument *document;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, solver_text, -1, &error));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  document = ct_window_get_document (window);
  g_assert_null (ct_document_get_file (document));
  g_assert_nonnull (ct_document_get_net (document));
  g_assert_cmpuint (ct_document_get_net (document)->n_layer, ==, 4);
  g_assert_cmpstr (ct_document_get_net (document)->name, ==, "Inline");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "training");

  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 50);
  g_assert_cmpint (ct_window_train_get_iter (window), ==, 20);
  g_assert_null (ct_window_train_get_last_error (window));
  close_window (window);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-train", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-train/example-solver", test_example_solver);
      g_test_add_func ("/gtk/window-train/train", test_train);
      g_test_add_func ("/gtk/window-train/breakpoint", test_breakpoint);
      g_test_add_func ("/gtk/window-train/restart-resume", test_restart_resume);
      g_test_add_func ("/gtk/window-train/restart-changed", test_restart_changed);
      g_test_add_func ("/gtk/window-train/net-beside-solver", test_net_beside_solver);
      g_test_add_func ("/gtk/window-train/inline-net", test_inline_net);
      g_test_add_func ("/gtk/window-train/not-finite", test_not_finite);
      g_test_add_func ("/gtk/window-train/compare-live", test_compare_live);
    }
  status = g_test_run ();
  g_free (work);
  return ct_gui_test_finish (status, scratch, app);
}
