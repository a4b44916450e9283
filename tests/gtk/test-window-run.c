/* test-window-run.c: stepping a net through in the window, under Xvfb
 * (skipped without a display). LeNet with Input layers and Caffe's trained
 * Fashion-MNIST weights (tests/data/reference, see PROVENANCE.md), the
 * reference fill as input, so that no LMDB is needed:
 *
 * - every forward step highlights the layer it ran, marks it done, and
 *   makes its tops' edges hold data; the statistics the snapshot carries
 *   match those of the engine's own run of the same net and weights;
 * - backward steps mark the layers and give every edge a gradient-health
 *   strip; the diffs' statistics match the engine's backward;
 * - F7 and the other keys are the step actions' accelerators;
 * - an edit invalidates the run with a notice, clears the marks, and the
 *   next step rebuilds the run keeping the weights of layers that still fit;
 * - F5 on GoogLeNet shows Stop in place of Run; Stop (Escape's action)
 *   ends the pass after the layer it is computing, the snapshot says where,
 *   Escape is let through once no pass runs, and F7 steps on from there.
 *
 * With CT_SCREENSHOT_DIR set, the window mid-forward (conv1 highlighted)
 * and after backward is saved there as step-forward.png and
 * step-backward.png. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "application.h"
#include "gui-test.h"
#include "blob.h"
#include "graph-view.h"
#include "net-dump.h"
#include "net.h"
#include "run-device.h"
#include "runner.h"
#include "window-private.h"
#include "test-files.h"

static CtApplication *app;

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

static void
activate (CtWindow *window, const char *action)
{
  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
}

/* The node that shows layer NAME: its own, or the one it is folded into. */
static const char *
host_of (CtGraphView *view, const char *name)
{
  CtGraphModel *model = ct_graph_view_get_model (view);

  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (model, i);

      if (g_strcmp0 (node->id, name) == 0)
        return node->id;
      for (guint f = 0; node->folded != NULL && f < node->folded->len; f++)
        if (g_strcmp0 (((CtGraphFolded *) node->folded->pdata[f])->id, name) == 0)
          return node->id;
    }
  return NULL;
}

static void
assert_close (double a, double b, const char *what, const char *blob)
{
  double tolerance = 1e-4 * MAX (1.0, MAX (fabs (a), fabs (b)));

  if (fabs (a - b) > tolerance)
    g_error ("%s of %s: window %.9g, engine %.9g", what, blob, a, b);
}

static void
assert_stats (const CtBlobStats *shown, const float *values, gint64 count, const char *blob)
{
  g_autoptr (CtBlobStats) engine = ct_blob_stats_compute (values, count);

  g_assert_nonnull (shown);
  g_assert_cmpint (shown->stats.count, ==, engine->stats.count);
  assert_close (shown->stats.min, engine->stats.min, "min", blob);
  assert_close (shown->stats.max, engine->stats.max, "max", blob);
  assert_close (shown->stats.mean, engine->stats.mean, "mean", blob);
  assert_close (shown->stats.std, engine->stats.std, "std", blob);
  assert_close (shown->stats.l2_norm, engine->stats.l2_norm, "L2 norm", blob);
  g_assert_cmpint (shown->stats.n_nan, ==, engine->stats.n_nan);
}

/* Whether a layer after LAYER writes BLOB in place (the snapshot then
 * shows an earlier version than the engine ends with). */
static gboolean
overwritten_later (CtRunSnapshot *snapshot, guint layer, const char *blob)
{
  for (guint j = layer + 1; j < ct_run_snapshot_n_layers (snapshot); j++)
    {
      const CtRunLayer *later = ct_run_snapshot_get_layer (snapshot, j);
      for (guint t = 0; t < later->n_tops; t++)
        if (g_strcmp0 (ct_run_snapshot_get_blob (snapshot, later->tops[t])->name, blob) == 0)
          return TRUE;
    }
  return FALSE;
}

/* The edges that carry BLOB. */
static void
assert_edges (CtGraphView *view, const char *blob, CtGraphEdgeRunState state)
{
  CtGraphModel *model = ct_graph_view_get_model (view);
  guint n_runs;
  const CtGraphEdgeRun *runs = ct_graph_view_get_edge_runs (view, &n_runs);
  guint seen = 0;

  g_assert_cmpuint (n_runs, ==, ct_graph_model_n_edges (model));
  for (guint e = 0; e < n_runs; e++)
    if (g_strcmp0 (ct_graph_model_get_edge (model, e)->blob, blob) == 0)
      {
        g_assert_cmpint (runs[e].state, ==, state);
        seen++;
      }
  (void) seen;
}

static gboolean
find_label (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_label (GTK_LABEL (widget)), text) != NULL
      && gtk_widget_get_mapped (widget))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (find_label (child, text))
      return TRUE;
  return FALSE;
}

/* The label showing TEXT, waited for up to three seconds: toasts come up
 * paced (app/window-toasts.c). */
static gboolean
wait_label (GtkWidget *widget, const char *text)
{
  for (int tries = 0; tries < 60; tries++)
    {
      if (find_label (widget, text))
        return TRUE;
      ct_gui_test_spin (50);
    }
  return FALSE;
}

/* A picture of the window with layer SELECT selected (the inspector shows
 * it) at 100 %, once the toasts are gone. Selecting asks the runner for
 * copies, which it hands over as a snapshot of its own: SERIAL moves on. */
static void
shoot (CtWindow *window, const char *name, const char *select, guint64 *serial)
{
  GtkWidget *widget = GTK_WIDGET (window);
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  const char *ids[] = { select, NULL };
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  path = g_build_filename (dir, name, NULL);
  ct_window_select (window, ids);
  ct_graph_view_set_zoom (CT_GRAPH_VIEW (ct_window_get_graph_view (window)), 1.0);
  ct_graph_view_reveal (CT_GRAPH_VIEW (ct_window_get_graph_view (window)), select, FALSE);
  ct_gui_test_spin (5500);
  *serial = ct_run_snapshot_get_serial (ct_window_run_get_snapshot (window));
  g_assert_true (ct_gui_test_save_png (widget, path));
  g_test_message ("saved %s", path);
}

/* The engine's own run: the same net, weights and fill, forward and
 * backward in one go. */
static CtNet *
engine_run (CtWindow *window, const char *weights, float *loss)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_net_new (ct_document_get_net (ct_window_get_document (window)),
                                      CAFFE__PHASE__TRAIN, 0, NULL, 1701, &error);

  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_fill_reference_inputs (net, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_forward (net, loss, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&net);
}

/* conv2's num_output back to 50, in TEXT. */
static void
at_50 (char *text)
{
  char *at = strstr (text, "num_output: 40");

  g_assert_nonnull (at);
  at[12] = '5';
}

static void
test_step_lenet (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);
  CtGraphView *view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  g_autoptr (CtNet) engine = NULL;
  g_autofree char *text = NULL;
  CtRunSnapshot *snapshot;
  guint64 serial = 0;
  float engine_loss = 0;
  double conv1_mean = NAN, conv1_l2 = NAN;
  guint n_layers, n_health = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  engine = engine_run (window, weights_path, &engine_loss);
  g_assert_null (ct_window_run_get_snapshot (window));

  /* F7 and its companions are the step actions' keys */
  {
    static const char *const keys[][2] = {
      { "F7", "win.run-forward" }, { "<Shift>F7", "win.run-backward" },
      { "F5", "win.run-pass" },    { "<Shift>F5", "win.run-reset" },
    };
    for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
      {
        g_auto (GStrv) actions = gtk_application_get_actions_for_accel (GTK_APPLICATION (app),
                                                                        keys[i][0]);
        g_assert_true (g_strv_contains ((const char *const *) actions, keys[i][1]));
      }
  }

  /* Forward, one layer at a time: the first step builds the run. */
  activate (window, "run-forward");
  snapshot = ct_gui_test_next_snapshot (window, &serial);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  n_layers = ct_run_snapshot_n_layers (snapshot);
  g_assert_cmpuint (n_layers, ==, 9);
  for (guint i = 0;; i++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i);

      g_assert_no_error (ct_run_snapshot_get_error (snapshot));
      g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_FORWARD);
      g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, (int) i + 1);
      g_assert_cmpint (layer->state, ==, CT_RUN_LAYER_FORWARD_DONE);
      g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, host_of (view, layer->name));
      g_assert_true (ct_graph_view_get_run_state (view, layer->name)
                     & CT_GRAPH_NODE_STATE_RUN_DONE);
      for (guint t = 0; t < layer->n_tops; t++)
        {
          const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, layer->tops[t]);
          CtBlob *mine = ct_net_blob_by_name (engine, blob->name);

          g_assert_true (blob->has_data);
          assert_edges (view, blob->name, CT_GRAPH_EDGE_RUN_DATA);
          if (!overwritten_later (snapshot, i, blob->name))
            assert_stats (blob->data_stats, ct_blob_cpu_data (mine, NULL), ct_blob_count (mine),
                          blob->name);
        }
      if (i + 1 < n_layers)
        {
          /* what the next layer makes is still empty */
          const CtRunLayer *next = ct_run_snapshot_get_layer (snapshot, i + 1);
          for (guint t = 0; t < next->n_tops; t++)
            {
              const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, next->tops[t]);
              gboolean in_place = FALSE;
              for (guint b = 0; b < next->n_bottoms; b++)
                in_place |= next->bottoms[b] == next->tops[t];
              if (!in_place)
                {
                  g_assert_false (blob->has_data);
                  assert_edges (view, blob->name, CT_GRAPH_EDGE_RUN_EMPTY);
                }
            }
        }
      if (g_strcmp0 (layer->name, "conv1") == 0)
        {
          const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "conv1");
          conv1_mean = blob->data_stats->stats.mean;
          conv1_l2 = blob->data_stats->stats.l2_norm;
          shoot (window, "step-forward.png", "pool1", &serial);
        }
      if (i + 1 == n_layers)
        break;
      activate (window, "run-forward");
      /* the step's own snapshot: the first step's selection (the inspector
       * follows the step) may bring one more with its copies first */
      do
        snapshot = ct_gui_test_next_snapshot (window, &serial);
      while (ct_run_snapshot_get_next_layer (snapshot) == (int) i + 1);
    }
  /* the whole forward pass: every blob as the engine has it, and its loss */
  for (guint b = 0; b < ct_run_snapshot_n_blobs (snapshot); b++)
    {
      const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, b);
      CtBlob *mine = ct_net_blob_by_name (engine, blob->name);
      assert_stats (blob->data_stats, ct_blob_cpu_data (mine, NULL), ct_blob_count (mine),
                    blob->name);
    }
  assert_close (ct_run_snapshot_get_loss (snapshot), engine_loss, "loss", "loss");

  /* Selecting ip1 asks for copies of its blobs (ip1 with its version
   * before the in-place relu1) and of its parameters. */
  {
    const char *ids[] = { "ip1", NULL };
    const CtRunBlob *blob;
    const CtRunLayer *layer = NULL;

    ct_window_select (window, ids);
    /* The blobs and the parameters are asked for one after the other: the
     * copies may come in two snapshots. */
    do
      {
        snapshot = ct_gui_test_next_snapshot (window, &serial);
        layer = NULL;
        for (guint i = 0; i < ct_run_snapshot_n_layers (snapshot); i++)
          if (g_strcmp0 (ct_run_snapshot_get_layer (snapshot, i)->name, "ip1") == 0)
            layer = ct_run_snapshot_get_layer (snapshot, i);
        g_assert_nonnull (layer);
      }
    while (layer->params->len > 0 && ((CtRunParam *) layer->params->pdata[0])->data == NULL);
    blob = ct_run_snapshot_find_blob (snapshot, "ip1");
    g_assert_true (blob->watched);
    /* watched after relu1 ran: only the blob as it is now */
    g_assert_cmpuint (blob->versions->len, ==, 1);
    g_assert_true (ct_run_snapshot_find_blob (snapshot, "pool2")->watched);
    g_assert_false (ct_run_snapshot_find_blob (snapshot, "conv1")->watched);
    for (guint i = 0; i < ct_run_snapshot_n_layers (snapshot); i++)
      if (g_strcmp0 (ct_run_snapshot_get_layer (snapshot, i)->name, "ip1") == 0)
        layer = ct_run_snapshot_get_layer (snapshot, i);
    g_assert_nonnull (layer);
    g_assert_cmpuint (layer->params->len, ==, 2);
    g_assert_nonnull (((CtRunParam *) layer->params->pdata[0])->data);
    /* the marks stay: a snapshot that ran nothing keeps the current layer */
    g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "loss");
  }

  /* Reset, then the whole pass in one go (F5): watched from the start, ip1
   * keeps its version from before relu1 overwrote it. */
  activate (window, "run-reset");
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) != 0);
  g_assert_null (ct_graph_view_get_highlight (view));
  g_assert_cmpuint (ct_graph_view_get_run_state (view, "conv1"), ==, 0);
  activate (window, "run-pass");
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) != (int) n_layers);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  g_assert_cmpuint (ct_run_snapshot_find_blob (snapshot, "ip1")->versions->len, ==, 2);
  g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "loss");
  for (guint i = 0; i < n_layers; i++)
    g_assert_true (ct_graph_view_get_run_state (view, ct_run_snapshot_get_layer (snapshot, i)->name)
                   & CT_GRAPH_NODE_STATE_RUN_DONE);
  assert_close (ct_run_snapshot_get_loss (snapshot), engine_loss, "loss", "loss");

  /* Backward, one layer at a time, to the end of the pass. */
  do
    {
      const char *current;
      guint n_stepped;
      const int *stepped;

      activate (window, "run-backward");
      snapshot = ct_gui_test_next_snapshot (window, &serial);
      g_assert_no_error (ct_run_snapshot_get_error (snapshot));
      g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_BACKWARD);
      stepped = ct_run_snapshot_get_stepped (snapshot, &n_stepped);
      g_assert_cmpuint (n_stepped, >, 0);
      current = ct_run_snapshot_get_layer (snapshot, (guint) stepped[n_stepped - 1])->name;
      g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, host_of (view, current));
      g_assert_true (ct_graph_view_get_run_state (view, current)
                     & CT_GRAPH_NODE_STATE_RUN_BACKWARD);
    }
  while (ct_run_snapshot_get_next_layer (snapshot) >= 0);
  for (guint b = 0; b < ct_run_snapshot_n_blobs (snapshot); b++)
    {
      const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, b);
      CtBlob *mine = ct_net_blob_by_name (engine, blob->name);

      if (!blob->has_diff)
        continue;
      assert_stats (blob->diff_stats, ct_blob_cpu_diff (mine, NULL), ct_blob_count (mine),
                    blob->name);
      assert_edges (view, blob->name, CT_GRAPH_EDGE_RUN_DIFF);
      n_health++;
    }
  /* every blob below the loss carries a gradient: conv1 .. ip2 */
  g_assert_cmpuint (n_health, >=, 6);
  {
    guint n_runs;
    const CtGraphEdgeRun *runs = ct_graph_view_get_edge_runs (view, &n_runs);
    for (guint e = 0; e < n_runs; e++)
      if (runs[e].state == CT_GRAPH_EDGE_RUN_DIFF)
        g_assert_true (isfinite (runs[e].health));
  }
  shoot (window, "step-backward.png", "conv2", &serial);

  /* An edit: conv2 gets 40 filters. The run is invalidated with a notice. */
  text = g_strdup (ct_document_get_text (ct_window_get_document (window)));
  {
    char *at = strstr (text, "num_output: 50");
    g_assert_nonnull (at);
    at[12] = '4';
  }
  ct_document_set_text (ct_window_get_document (window), text);
  ct_gui_test_settle (window);
  g_assert_true (wait_label (GTK_WIDGET (window), "The net changed"));
  g_assert_null (ct_graph_view_get_highlight (view));
  g_assert_cmpuint (ct_graph_view_get_run_state (view, "conv1"), ==, 0);

  /* The next step rebuilds: conv1 and ip2 keep their trained weights,
   * conv2 and ip1 (whose input shrank) are filled afresh. (The stop after
   * the edit, and the rebuild, hand over snapshots of their own.) */
  if (ct_window_run_get_snapshot (window) != NULL)
    serial = ct_run_snapshot_get_serial (ct_window_run_get_snapshot (window));
  activate (window, "run-forward");
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_get_pass (snapshot) != CT_RUN_PASS_FORWARD
         || ct_run_snapshot_get_next_layer (snapshot) != 1);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  {
    const char *const *fresh = ct_run_snapshot_get_reinitialised (snapshot);
    g_assert_nonnull (fresh);
    g_assert_true (g_strv_contains (fresh, "conv2"));
    g_assert_true (g_strv_contains (fresh, "ip1"));
    g_assert_false (g_strv_contains (fresh, "conv1"));
    g_assert_false (g_strv_contains (fresh, "ip2"));
  }
  g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "data");
  activate (window, "run-forward");
  snapshot = ct_gui_test_next_snapshot (window, &serial);
  g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "conv1");
  {
    const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, "conv1");
    assert_close (blob->data_stats->stats.mean, conv1_mean, "mean", "conv1");
    assert_close (blob->data_stats->stats.l2_norm, conv1_l2, "L2 norm", "conv1");
  }

  /* A lower batch for inspection (the settings' first spin button): the
   * next step builds the run anew with it, and loads the weights afresh,
   * which no longer fit the edited conv2: an error that names it. */
  {
    GtkMenuButton *settings = ct_run_controls_get_settings_button (window->run_controls);
    GtkWidget *grid = gtk_popover_get_child (gtk_menu_button_get_popover (settings));
    GtkWidget *spin_button = NULL;

    for (GtkWidget *child = gtk_widget_get_first_child (grid); child != NULL && spin_button == NULL;
         child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_SPIN_BUTTON (child))
        spin_button = child;
    g_assert_nonnull (spin_button);
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin_button), 2);
    activate (window, "run-forward");
    do
      snapshot = ct_gui_test_next_snapshot (window, &serial);
    while (ct_run_snapshot_get_error (snapshot) == NULL);
    g_assert_nonnull (strstr (ct_run_snapshot_get_error (snapshot)->message, "'conv2'"));
    ct_gui_test_spin (50);
    g_assert_true (wait_label (GTK_WIDGET (window), "The run stopped at layer “conv2”"));
    g_assert_true (ct_graph_view_get_run_state (view, "conv2") & CT_GRAPH_NODE_STATE_RUN_FAILED);

    /* conv2 as trained again: the run builds, with the batch lowered */
    at_50 (text);
    ct_document_set_text (ct_window_get_document (window), text);
    ct_gui_test_settle (window);
    activate (window, "run-forward");
    do
      snapshot = ct_gui_test_next_snapshot (window, &serial);
    while (ct_run_snapshot_n_layers (snapshot) == 0
           || ct_run_snapshot_get_next_layer (snapshot) != 1);
    g_assert_no_error (ct_run_snapshot_get_error (snapshot));
    g_assert_cmpint (ct_run_snapshot_find_blob (snapshot, "data")->dims[0], ==, 2);
    g_assert_cmpint (ct_run_snapshot_find_blob (snapshot, "data")->count, ==, 2 * 28 * 28);
    g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "data");
  }

  /* Reset: back before the first layer, the net and weights kept. */
  activate (window, "run-reset");
  /* (a snapshot still on its way from the step before may come first) */
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) != 0);
  g_assert_cmpuint (ct_graph_view_get_run_state (view, "conv1"), ==, 0);
  activate (window, "run-forward");
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) != 1);
  g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "data");

  /* Another phase shown: the run is dropped with a notice, and the next
   * step builds the testing net. */
  g_action_group_change_action_state (G_ACTION_GROUP (window), "phase",
                                      g_variant_new_string ("test"));
  ct_gui_test_settle (window);
  g_assert_true (wait_label (GTK_WIDGET (window), "Another phase is shown"));
  g_assert_null (ct_graph_view_get_highlight (view));
  g_assert_cmpuint (ct_graph_view_get_run_state (view, "data"), ==, 0);
  serial = ct_run_snapshot_get_serial (ct_window_run_get_snapshot (window));
  activate (window, "run-forward");
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_n_layers (snapshot) == 0
         || ct_run_snapshot_get_next_layer (snapshot) != 1);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  g_assert_cmpstr (ct_graph_view_get_highlight (view), ==, "data");

  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

/* The strip's colours: blue when the gradient vanishes, green in
 * proportion, orange when it explodes, red for NaN and infinities. */
static void
test_health_colours (void)
{
  CtGraphColor c;

  ct_graph_health_color (NAN, &c);
  g_assert_cmpfloat (c.r, >, 0.8);
  g_assert_cmpfloat (c.g, <, 0.2);
  ct_graph_health_color (INFINITY, &c);
  g_assert_cmpfloat (c.r, >, 0.8);
  g_assert_cmpfloat (c.g, <, 0.2);
  ct_graph_health_color (1e-9, &c);
  g_assert_cmpfloat (c.b, >, c.r);
  g_assert_cmpfloat (c.b, >, c.g);
  ct_graph_health_color (0, &c);
  g_assert_cmpfloat (c.b, >, c.r);
  ct_graph_health_color (1e-2, &c);
  g_assert_cmpfloat (c.g, >, c.r);
  g_assert_cmpfloat (c.g, >, c.b);
  ct_graph_health_color (1e3, &c);
  g_assert_cmpfloat (c.r, >, 0.8);
  g_assert_cmpfloat (c.g, >, 0.3);
  g_assert_cmpfloat (c.b, <, 0.2);
}

static CtRunSnapshot *
wait_error (CtWindow *window, guint64 *serial)
{
  for (;;)
    {
      CtRunSnapshot *snapshot = ct_gui_test_next_snapshot (window, serial);
      if (ct_run_snapshot_get_error (snapshot) != NULL)
        return snapshot;
    }
}

/* A layer that cannot be set up, and weights gone missing: an error toast
 * naming the layer, the layer marked on the graph, the window usable. */
static void
test_errors (void)
{
  static const char net[] =
    "name: \"bad\"\n"
    "layer { name: \"data\" type: \"Input\" top: \"data\"\n"
    "  input_param { shape { dim: 1 dim: 1 dim: 5 dim: 5 } } }\n"
    "layer { name: \"wide\" type: \"Convolution\" bottom: \"data\" top: \"wide\"\n"
    "  convolution_param { num_output: 2 kernel_size: 7 } }\n";
  CtWindow *window = ct_window_new (app);
  CtGraphView *view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *scratch = g_dir_make_tmp ("cortado-run-weights-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (scratch, "gone.caffemodel", NULL);
  g_autoptr (GFile) copy_file = g_file_new_for_path (copy);
  g_autofree char *contents = NULL;
  gsize length;
  CtRunSnapshot *snapshot;
  guint64 serial = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  ct_document_load_text (ct_window_get_document (window), net, "bad");
  ct_gui_test_settle (window);
  activate (window, "run-forward");
  snapshot = wait_error (window, &serial);
  g_test_message ("error: %s", ct_run_snapshot_get_error (snapshot)->message);
  g_assert_nonnull (strstr (ct_run_snapshot_get_error (snapshot)->message, "'wide'"));
  ct_gui_test_spin (50);
  g_assert_true (wait_label (GTK_WIDGET (window), "The run stopped at layer “wide”"));
  g_assert_true (ct_graph_view_get_run_state (view, "wide") & CT_GRAPH_NODE_STATE_RUN_FAILED);

  /* weights that were there when chosen and are gone at the first step */
  g_assert_true (g_file_get_contents (weights_path, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (copy, contents, (gssize) length, NULL));
  ct_document_load_text (ct_window_get_document (window),
                         "name: \"fine\"\nlayer { name: \"data\" type: \"Input\" top: \"data\"\n"
                         "  input_param { shape { dim: 1 dim: 3 } } }\n", "fine");
  ct_gui_test_settle (window);
  ct_window_set_weights (window, copy_file);
  g_unlink (copy);
  g_rmdir (scratch);
  serial = 0;
  activate (window, "run-forward");
  snapshot = wait_error (window, &serial);
  g_test_message ("error: %s", ct_run_snapshot_get_error (snapshot)->message);
  ct_gui_test_spin (50);
  g_assert_true (wait_label (GTK_WIDGET (window), "The run stopped"));

  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

/* The Escape shortcut the window holds for Stop. */
static GtkShortcut *
stop_shortcut (CtWindow *window)
{
  GListModel *controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  GtkShortcut *found = NULL;

  for (guint i = 0; found == NULL && i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      g_assert_cmpint (gtk_event_controller_get_propagation_phase (controller), !=,
                       GTK_PHASE_NONE);
      for (guint k = 0; found == NULL && k < g_list_model_get_n_items (G_LIST_MODEL (controller));
           k++)
        {
          g_autoptr (GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), k);
          GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);
          g_autofree char *trigger = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));

          if (GTK_IS_NAMED_ACTION (action)
              && g_strcmp0 (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)),
                            "win.run-stop") == 0)
            {
              g_assert_cmpstr (trigger, ==, "Escape");
              /* before the focused widget: the graph would take Escape */
              g_assert_cmpint (gtk_event_controller_get_propagation_phase (controller), ==,
                               GTK_PHASE_CAPTURE);
              found = shortcut;
            }
        }
    }
  g_object_unref (controllers);
  g_assert_nonnull (found);
  return found;
}

static gboolean
action_enabled (CtWindow *window, const char *name)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), name);
}

/* The run settings' device menu: the CPU first, then each GPU by name;
 * without a GPU, the menu stays on the CPU, insensitive, and its tooltip
 * says why. With CT_SCREENSHOT_DIR set, the open settings are saved as
 * run-settings-device.png. */
static void
test_device_menu (void)
{
  const char *dir = g_getenv ("CT_TEST_DATA");
  g_autofree char *net_path = g_build_filename (dir != NULL ? dir : "tests/data", "reference",
                                                "lenet_train_test.prototxt", NULL);
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  CtWindow *window = ct_window_new (app);
  GtkWidget *popover, *drop;
  GListModel *items;
  g_autofree char *reason = NULL;
  g_auto (GStrv) gpus = ct_run_list_gpus (&reason);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);

  popover = GTK_WIDGET (
    gtk_menu_button_get_popover (ct_run_controls_get_settings_button (window->run_controls)));
  drop = ct_gui_test_find_widget (popover, GTK_TYPE_DROP_DOWN, NULL);
  g_assert_nonnull (drop);
  items = gtk_drop_down_get_model (GTK_DROP_DOWN (drop));
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 1 + g_strv_length (gpus));
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (items), 0), ==, "CPU");
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (drop)), ==, 0);
  g_assert_false (ct_run_controls_get_use_gpu (window->run_controls));
  if (gpus[0] == NULL)
    {
      g_assert_false (gtk_widget_get_sensitive (drop));
      g_assert_true (g_str_has_prefix (gtk_widget_get_tooltip_text (drop), "Only the CPU: "));
      g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (drop), reason));
    }
  else
    {
      g_assert_true (gtk_widget_get_sensitive (drop));
      gtk_drop_down_set_selected (GTK_DROP_DOWN (drop), 1);
      g_assert_true (ct_run_controls_get_use_gpu (window->run_controls));
      g_assert_cmpint (ct_run_controls_get_gpu_device (window->run_controls), ==, 0);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (drop), 0);
      g_assert_false (ct_run_controls_get_use_gpu (window->run_controls));
    }

  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                "run-settings-device.png", NULL);

      gtk_menu_button_popup (ct_run_controls_get_settings_button (window->run_controls));
      ct_gui_test_settle (window);
      ct_gui_test_spin (300);
      g_assert_true (ct_gui_test_save_png (popover, path));
      gtk_menu_button_popdown (ct_run_controls_get_settings_button (window->run_controls));
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_stop (void)
{
  const char *dir = g_getenv ("CT_TEST_DATA");
  g_autofree char *net_path = g_build_filename (dir != NULL ? dir : "tests/data", "timing",
                                                "bvlc_googlenet_deploy_force_backward.prototxt",
                                                NULL);
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  CtWindow *window = ct_window_new (app);
  CtRunSnapshot *snapshot;
  GtkShortcut *escape;
  guint64 serial = 0;
  guint n_layers, stepped_len;
  const int *stepped;
  int next;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  /* a few images: the pass still has 152 layers to stop in */
  ct_run_controls_set_batch (window->run_controls, 2);
  ct_gui_test_settle (window);
  escape = stop_shortcut (window);

  g_assert_false (action_enabled (window, "run-stop"));
  g_assert_false (gtk_widget_get_visible (ct_run_controls_get_stop_button (window->run_controls)));
  g_assert_true (gtk_widget_get_visible (ct_run_controls_get_pass_button (window->run_controls)));
  g_assert_cmpstr (gtk_actionable_get_action_name (
                     GTK_ACTIONABLE (ct_run_controls_get_stop_button (window->run_controls))),
                   ==, "win.run-stop");
  {
    const char *tooltip =
      gtk_widget_get_tooltip_text (ct_run_controls_get_stop_button (window->run_controls));
    g_assert_nonnull (strstr (tooltip, "Escape"));
  }

  /* A pace of 0.1 s a layer: the pass lasts seconds, however fast the
   * machine, so that it is surely stopped midway. */
  g_assert_cmpuint (ct_run_controls_get_pace (window->run_controls), ==, 0);
  ct_run_controls_set_pace (window->run_controls, 100);
  g_assert_cmpuint (ct_run_controls_get_pace (window->run_controls), ==, 100);

  /* F5: Stop stands in for Run at once */
  activate (window, "run-pass");
  g_assert_true (action_enabled (window, "run-stop"));
  g_assert_true (gtk_widget_get_visible (ct_run_controls_get_stop_button (window->run_controls)));
  g_assert_false (gtk_widget_get_visible (ct_run_controls_get_pass_button (window->run_controls)));

  /* well into the pass, Escape stops it */
  do
    {
      snapshot = ct_gui_test_next_snapshot (window, &serial);
      g_assert_no_error (ct_run_snapshot_get_error (snapshot));
    }
  while (ct_run_snapshot_get_next_layer (snapshot) < 2);
  n_layers = ct_run_snapshot_n_layers (snapshot);
  g_assert_true (action_enabled (window, "run-stop"));
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (escape), 0,
                                               GTK_WIDGET (window), NULL));
  /* answered, and the answer shown (the window shows one a frame) */
  while (ct_runner_is_busy (window->runner) || window->run_pending != NULL)
    ct_gui_test_spin (2);
  snapshot = ct_window_run_get_snapshot (window);
  serial = ct_run_snapshot_get_serial (snapshot);

  /* the snapshot says where it stopped: forward, NEXT layers done */
  next = ct_run_snapshot_get_next_layer (snapshot);
  g_test_message ("stopped before layer %d of %u", next, n_layers);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_FORWARD);
  g_assert_cmpint (next, >=, 2);
  g_assert_cmpint (next, <, (int) n_layers);
  for (guint i = 0; i < n_layers; i++)
    g_assert_cmpint (ct_run_snapshot_get_layer (snapshot, i)->state, ==,
                     (int) i < next ? CT_RUN_LAYER_FORWARD_DONE : CT_RUN_LAYER_PENDING);
  g_assert_false (action_enabled (window, "run-stop"));
  g_assert_false (gtk_widget_get_visible (ct_run_controls_get_stop_button (window->run_controls)));
  g_assert_true (gtk_widget_get_visible (ct_run_controls_get_pass_button (window->run_controls)));
  /* with no pass running, Escape goes on to the find bar or the graph */
  g_assert_false (gtk_shortcut_action_activate (gtk_shortcut_get_action (escape), 0,
                                                GTK_WIDGET (window), NULL));

  /* F7 steps on from where it stopped (the step's own snapshot: the
   * inspector following the stopped pass may bring one with its copies) */
  activate (window, "run-forward");
  do
    snapshot = ct_gui_test_next_snapshot (window, &serial);
  while (ct_run_snapshot_get_next_layer (snapshot) == next);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, next + 1);
  stepped = ct_run_snapshot_get_stepped (snapshot, &stepped_len);
  g_assert_cmpuint (stepped_len, ==, 1);
  g_assert_cmpint (stepped[0], ==, next);
  g_assert_cmpint (ct_run_snapshot_get_layer (snapshot, (guint) next)->state, ==,
                   CT_RUN_LAYER_FORWARD_DONE);
  g_assert_false (gtk_widget_get_visible (ct_run_controls_get_stop_button (window->run_controls)));

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  char *scratch;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-run", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-run/step-lenet", test_step_lenet);
      g_test_add_func ("/gtk/window-run/errors", test_errors);
      g_test_add_func ("/gtk/window-run/health-colours", test_health_colours);
      g_test_add_func ("/gtk/window-run/stop", test_stop);
      g_test_add_func ("/gtk/window-run/device-menu", test_device_menu);
    }
  return ct_gui_test_finish (g_test_run (), scratch, app);
}
