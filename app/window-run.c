/* window-run.c: the window's run controls. The window owns one CtRunner
 * (app/run/runner.h) for its document, built at the first step from the
 * net as the document holds it now, in the phase shown, with the user's
 * batch size, seed, input fill and weights (fillers, or the caffemodel
 * that goes with the net). The step buttons in the header bar
 * (CtRunControls, run-controls.c, which keeps those settings) and their
 * actions (win.run-forward F7, win.run-backward Shift+F7, win.run-pass
 * F5, win.run-reset Shift+F5) only queue commands: the runner works on its
 * own thread and hands snapshots back through the main loop, so the window
 * never waits on it. A pass hands over a snapshot per layer, hundreds a
 * second on a fast net: the window shows at most one per frame (the
 * latest, at the frame clock's next tick), so that drawing keeps up.
 * While a pass queued by F5 runs, Stop (win.run-stop, Escape) stands in
 * for the Run button: the runner stops after the layer it is computing
 * and its snapshot shows where; stepping goes on from there. Each
 * snapshot shown marks the graph (layers done, the current layer, edges
 * empty / with data / with a gradient and its health) and goes to the
 * inspector's blob panel (blob-panel.c). The selection says which
 * blobs and parameters the runner copies in full. An edit of the net
 * invalidates the run with a notice; the next step rebuilds it, keeping
 * the weights of layers whose shapes still match. So does another phase
 * shown: the run is of the phase the drop-down shows (the training net
 * for both phases), and snapshots queued before a rebuild (the stop that
 * dropped the old run) are not taken for the new run's. What Input layers
 * and data layers are fed (images, Fashion-MNIST items) is chosen in
 * window-inputs.c. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "run-device.h"
#include "error-place.h"
#include "window-private.h"

/* Configuration */

static Caffe__Phase
run_phase (CtWindow *self)
{
  /* "Both phases" shows the training net; a run needs one. */
  return ct_document_get_phase (self->document) == CT_DOCUMENT_PHASE_TEST
           ? CAFFE__PHASE__TEST : CAFFE__PHASE__TRAIN;
}

static char *
weights_path (CtWindow *self)
{
  return self->weights != NULL ? g_file_get_path (self->weights) : NULL;
}

/* Whether the settings differ from what the runner was given. */
static gboolean
config_changed (CtWindow *self)
{
  g_autofree char *weights = weights_path (self);

  return self->run_applied.phase != run_phase (self)
         || self->run_applied.batch_size != ct_run_controls_get_batch (self->run_controls)
         || self->run_applied.seed != ct_run_controls_get_seed (self->run_controls)
         || self->run_applied.fill != ct_run_controls_get_fill (self->run_controls)
         || self->run_applied.use_gpu != ct_run_controls_get_use_gpu (self->run_controls)
         || self->run_applied.gpu_device != ct_run_controls_get_gpu_device (self->run_controls)
         || ct_window_inputs_changed (self)
         || g_strcmp0 (self->run_applied.weights, weights) != 0;
}

static void
take_config (CtWindow *self)
{
  g_free ((char *) self->run_applied.weights);
  self->run_applied.phase = run_phase (self);
  self->run_applied.batch_size = ct_run_controls_get_batch (self->run_controls);
  self->run_applied.seed = ct_run_controls_get_seed (self->run_controls);
  self->run_applied.fill = ct_run_controls_get_fill (self->run_controls);
  self->run_applied.use_gpu = ct_run_controls_get_use_gpu (self->run_controls);
  self->run_applied.gpu_device = ct_run_controls_get_gpu_device (self->run_controls);
  self->run_applied.weights = weights_path (self);
  /* the frames are drawn on the main thread: with every core computing,
   * they wait for the compute threads (bench-frames measures it) */
  self->run_applied.leave_a_core = TRUE;
}

/* Marks on the graph */

static void
clear_marks (CtWindow *self)
{
  ct_graph_view_clear_run_states (self->graph_view);
  ct_graph_view_set_edge_runs (self->graph_view, NULL, 0);
  ct_graph_view_set_highlight (self->graph_view, NULL);
}

/* The layer the user last saw run: the last one stepped that the graph
 * shows (Split layers the engine inserts are not drawn). */
static const char *
current_layer (CtWindow *self, CtRunSnapshot *snapshot)
{
  guint n_stepped;
  const int *stepped = ct_run_snapshot_get_stepped (snapshot, &n_stepped);

  for (guint i = n_stepped; i > 0; i--)
    {
      const CtRunLayer *layer;

      if (stepped[i - 1] < 0 || (guint) stepped[i - 1] >= ct_run_snapshot_n_layers (snapshot))
        continue;
      layer = ct_run_snapshot_get_layer (snapshot, (guint) stepped[i - 1]);
      if (ct_window_layer_for_id (self, layer->name) >= 0)
        return layer->name;
    }
  return NULL;
}

/* The document's layer that ERROR carries as its place, or NULL. Looked up
 * in the document: a net that failed to build has no layers in its
 * snapshot, and layers the engine adds (splits) are not shown. */
static const char *
failed_layer (CtWindow *self, const GError *error)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  const char *name = ct_error_get_layer (error);

  for (gsize i = 0; name != NULL && net != NULL && i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return net->layer[i]->name;
  return NULL;
}

/* Snapshots that ran nothing (new copies for a new selection) keep the
 * current layer; a reset or a new run has none. */
/* The inspector follows the step: while the user has selected nothing
 * (or in presentation mode), each step selects the layer it runs. A layer
 * or blob the user picks stays; unselecting all follows again. */
static void
follow_select (CtWindow *self, const char *layer)
{
  const char *const *ids = ct_selection_get_ids (self->selection);
  const char *select[] = { layer, NULL };

  if (!self->presenting && !self->run_following)
    return;
  if (layer == NULL || (ids[0] != NULL && ids[1] == NULL && g_str_equal (ids[0], layer)))
    return;
  self->run_selecting = TRUE;
  ct_selection_set (self->selection, select, CT_SELECTION_REVEAL);
  self->run_selecting = FALSE;
}

/* Select LAYER ahead of a step: its copies come with the step's snapshot,
 * not in one of their own before it. */
static void
follow_select_quietly (CtWindow *self, const char *layer)
{
  ct_runner_set_watch_quiet (self->runner, TRUE);
  follow_select (self, layer);
  ct_runner_set_watch_quiet (self->runner, FALSE);
}

static CtRunSnapshot *latest_snapshot (CtWindow *self);

/* Before a step: select the layer it will run, so that the runner copies
 * its blobs in the same snapshot as the step (one snapshot, not a second
 * one for the new selection). A guess that misses is put right after the
 * step (follow_select from update_current). */
static void
follow_ahead (CtWindow *self, gboolean forward)
{
  CtRunSnapshot *snapshot = latest_snapshot (self);
  int n, next, layer;

  if (snapshot == NULL || self->run_stale || ct_run_snapshot_get_invalidated (snapshot)
      || (n = (int) ct_run_snapshot_n_layers (snapshot)) == 0)
    return;
  next = ct_run_snapshot_get_next_layer (snapshot);
  if (forward)
    layer = ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_FORWARD && next < n ? next : 0;
  else
    {
      layer = ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_BACKWARD ? next : n - 1;
      while (layer >= 0 && !ct_run_snapshot_get_layer (snapshot, (guint) layer)->need_backward)
        layer--;
    }
  if (layer < 0 || layer >= n)
    return;
  {
    const char *name = ct_run_snapshot_get_layer (snapshot, (guint) layer)->name;

    if (ct_window_layer_for_id (self, name) >= 0)
      follow_select_quietly (self, name);
  }
}

static void
update_current (CtWindow *self, CtRunSnapshot *snapshot)
{
  guint n_stepped;
  const char *current = current_layer (self, snapshot);

  ct_run_snapshot_get_stepped (snapshot, &n_stepped);
  if (current != NULL)
    {
      g_free (self->run_current);
      self->run_current = g_strdup (current);
      if (n_stepped > 0)
        follow_select (self, current);
    }
  else if (n_stepped > 0 || ct_run_snapshot_get_invalidated (snapshot)
           || ct_run_snapshot_n_layers (snapshot) == 0
           || (ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_FORWARD
               && ct_run_snapshot_get_next_layer (snapshot) == 0))
    g_clear_pointer (&self->run_current, g_free);
}

static void
apply_marks (CtWindow *self, CtRunSnapshot *snapshot)
{
  CtGraphModel *model = ct_graph_view_get_model (self->graph_view);
  guint n_edges = model != NULL ? ct_graph_model_n_edges (model) : 0;
  g_autofree CtGraphEdgeRun *runs = NULL;
  g_autoptr (GPtrArray) ids = g_ptr_array_new ();
  g_autoptr (GArray) states = g_array_new (FALSE, FALSE, sizeof (CtGraphNodeState));
  const GError *error;
  gboolean shown;

  if (snapshot == NULL || model == NULL)
    {
      clear_marks (self);
      return;
    }
  error = ct_run_snapshot_get_error (snapshot);
  if (error != NULL && failed_layer (self, error) != NULL)
    {
      CtGraphNodeState failed = CT_GRAPH_NODE_STATE_RUN_FAILED;
      g_ptr_array_add (ids, (gpointer) failed_layer (self, error));
      g_array_append_val (states, failed);
    }
  shown = !ct_run_snapshot_get_invalidated (snapshot) && ct_run_snapshot_n_layers (snapshot) > 0;
  for (guint i = 0; shown && i < ct_run_snapshot_n_layers (snapshot); i++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i);
      CtGraphNodeState state = 0;

      if (layer->state == CT_RUN_LAYER_FORWARD_DONE)
        state = CT_GRAPH_NODE_STATE_RUN_DONE;
      else if (layer->state == CT_RUN_LAYER_BACKWARD_DONE
               || layer->state == CT_RUN_LAYER_BACKWARD_SKIPPED)
        state = CT_GRAPH_NODE_STATE_RUN_BACKWARD;
      if (state == 0)
        continue;
      g_ptr_array_add (ids, layer->name);
      g_array_append_val (states, state);
    }
  ct_graph_view_set_run_states (self->graph_view, (const char *const *) ids->pdata,
                                (const CtGraphNodeState *) (gpointer) states->data, ids->len);
  if (!shown)
    {
      ct_graph_view_set_edge_runs (self->graph_view, NULL, 0);
      ct_graph_view_set_highlight (self->graph_view, NULL);
      return;
    }
  runs = g_new0 (CtGraphEdgeRun, MAX (n_edges, 1));
  for (guint e = 0; e < n_edges; e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);
      const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, edge->blob);

      if (blob == NULL)
        runs[e].state = CT_GRAPH_EDGE_RUN_NONE;
      else if (blob->has_diff)
        {
          runs[e].state = CT_GRAPH_EDGE_RUN_DIFF;
          runs[e].health = blob->health;
        }
      else
        runs[e].state = blob->has_data ? CT_GRAPH_EDGE_RUN_DATA : CT_GRAPH_EDGE_RUN_EMPTY;
    }
  ct_graph_view_set_edge_runs (self->graph_view, runs, n_edges);
  ct_graph_view_set_highlight (self->graph_view, self->run_current);
}

/* The status line's account of the run. */
static void
update_label (CtWindow *self)
{
  CtRunSnapshot *snapshot = self->run_snapshot;
  g_autofree char *text = NULL;
  const char *current;
  guint n;

  if (snapshot == NULL || ct_run_snapshot_get_invalidated (snapshot)
      || (n = ct_run_snapshot_n_layers (snapshot)) == 0)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->run_label), FALSE);
      return;
    }
  current = self->run_current;
  switch (ct_run_snapshot_get_pass (snapshot))
    {
    case CT_RUN_PASS_FORWARD:
      if (ct_run_snapshot_get_next_layer (snapshot) >= (int) n)
        {
          char loss[G_ASCII_DTOSTR_BUF_SIZE];

          g_ascii_formatd (loss, sizeof loss, "%.6g", ct_run_snapshot_get_loss (snapshot));
          /* TRANSLATORS: the status line once a forward pass is complete; %s is the loss */
          text = g_strdup_printf (_("Forward pass done, loss %s"), loss);
        }
      else if (current != NULL)
        /* TRANSLATORS: the status line while stepping; %s is a layer's name */
        text = g_strdup_printf (_("Forward: %s done"), current);
      else
        text = g_strdup (_("Ready to run forward"));
      break;
    case CT_RUN_PASS_BACKWARD:
      if (ct_run_snapshot_get_next_layer (snapshot) < 0)
        text = g_strdup (_("Backward pass done"));
      else
        /* TRANSLATORS: the status line while stepping back; %s is a layer's name */
        text = g_strdup_printf (_("Backward: %s done"), current != NULL ? current : "");
      break;
    case CT_RUN_PASS_NONE:
    default:
      break;
    }
  /* with both phases drawn, say which one runs: the net's own state field
   * in the inspector says TEST, its default, while the training net runs */
  if (text != NULL && ct_document_get_phase (self->document) == CT_DOCUMENT_PHASE_BOTH)
    {
      /* TRANSLATORS: the status line while both phases are shown; %s is what
       * the run did ("Forward: conv1 done") */
      char *phased = g_strdup_printf (_("Training phase · %s"), text);

      g_free (text);
      text = phased;
    }
  gtk_label_set_text (self->run_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->run_label), text != NULL);
}

/* Stop */

/* Stop is there while a pass queued by F5 has not been answered: the
 * runner says so (ct_runner_is_busy) from the snapshots alone. Single
 * steps are not stopped (a stop takes effect after the layer anyway), so
 * the button does not flicker at every F7. */
static void
update_stop (CtWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "run-stop");

  if (self->runner == NULL || !ct_runner_is_busy (self->runner))
    self->run_passing = FALSE;
  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->run_passing);
  if (self->run_controls != NULL)
    ct_run_controls_set_passing (self->run_controls, self->run_passing);
}

void
ct_window_run_stop_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->runner == NULL)
    return;
  ct_runner_stop (self->runner);
}

/* Escape for the Stop button (window.ui holds it beside Run, hidden). The
 * key is caught before the focused widget sees it, but only while a pass
 * runs: otherwise the disabled action lets Escape through to the find bar,
 * the graph (unselect all) and popovers. */
static void
build_stop (CtWindow *self)
{
  GtkEventController *keys = gtk_shortcut_controller_new ();

  gtk_event_controller_set_name (keys, "cortado-run-stop");
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape,
                                                                                  0),
                                                          gtk_named_action_new ("win.run-stop")));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

/* Snapshots */

/* The latest snapshot handed over, shown or not. */
static CtRunSnapshot *
latest_snapshot (CtWindow *self)
{
  return self->run_pending != NULL ? self->run_pending : self->run_snapshot;
}

static void
cancel_show (CtWindow *self)
{
  if (self->run_show_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->run_show_tick);
  self->run_show_tick = 0;
  g_clear_pointer (&self->run_pending, ct_run_snapshot_unref);
}

/* Show the pending snapshot: the graph's marks, the status line and the
 * inspector. */
static void
show_pending (CtWindow *self)
{
  if (self->run_show_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->run_show_tick);
  self->run_show_tick = 0;
  if (self->run_pending == NULL)
    return;
  g_clear_pointer (&self->run_snapshot, ct_run_snapshot_unref);
  self->run_snapshot = g_steal_pointer (&self->run_pending);
  /* the net was edited since: what this shows is gone */
  if (self->run_stale)
    return;
  apply_marks (self, self->run_snapshot);
  update_label (self);
  ct_blob_panel_show_snapshot (self->blob_panel, self->run_snapshot);
  ct_window_present_update (self);
}

static gboolean
show_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CtWindow *self = data;

  self->run_show_tick = 0;
  show_pending (self);
  return G_SOURCE_REMOVE;
}

static void
snapshot_arrived (CtRunner *runner, CtRunSnapshot *snapshot, gpointer data)
{
  CtWindow *self = data;
  const GError *error = ct_run_snapshot_get_error (snapshot);

  update_stop (self);
  /* queued before the run was rebuilt (the stop that dropped the shown
   * run answers after the rebuild is asked for): the old run */
  if (ct_run_snapshot_get_epoch (snapshot) < self->run_epoch)
    return;
  g_clear_pointer (&self->run_pending, ct_run_snapshot_unref);
  self->run_pending = ct_run_snapshot_ref (snapshot);
  /* the net was edited since: what this shows is gone (the stop after the
   * edit sends one too) */
  if (self->run_stale)
    {
      show_pending (self);
      return;
    }
  if (error != NULL)
    {
      const char *layer = failed_layer (self, error);
      g_autofree char *what = NULL;

      if (layer != NULL)
        /* TRANSLATORS: an error toast; %s is the layer that failed */
        what = g_strdup_printf (_("The run stopped at layer “%s”"), layer);
      ct_window_report_error (self, what != NULL ? what : _("The run stopped"), error);
      if (layer != NULL)
        ct_graph_view_reveal (self->graph_view, layer, FALSE);
    }
  if (!ct_run_snapshot_get_invalidated (snapshot) && ct_run_snapshot_n_layers (snapshot) > 0)
    self->run_shown = TRUE;
  /* every snapshot's layers count for the highlight, shown or skipped */
  update_current (self, snapshot);
  /* one per frame while the window is on screen; at once otherwise (no
   * frames come) */
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    show_pending (self);
  else if (self->run_show_tick == 0)
    self->run_show_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), show_tick, self, NULL);
}

/* Watching: what the selection shows */

/* The labels a classifier output TOP is scored against (an Accuracy or
 * SoftmaxWithLoss layer's second bottom), so that the inspector can say
 * each sample's true class. */
static void
add_true_labels (const Caffe__NetParameter *net, const char *top, GPtrArray *blobs)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];

      if ((g_strcmp0 (layer->type, "Accuracy") == 0
           || g_strcmp0 (layer->type, "SoftmaxWithLoss") == 0)
          && layer->n_bottom >= 2 && g_strcmp0 (layer->bottom[0], top) == 0)
        g_ptr_array_add (blobs, layer->bottom[1]);
    }
}

static void
update_watch (CtWindow *self)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  const char *const *ids = ct_selection_get_ids (self->selection);
  g_autoptr (GPtrArray) blobs = g_ptr_array_new ();
  g_autoptr (GPtrArray) layers = g_ptr_array_new ();

  if (self->runner == NULL)
    return;
  for (guint i = 0; net != NULL && ids[i] != NULL; i++)
    {
      int index = ct_window_layer_for_id (self, ids[i]);
      const Caffe__LayerParameter *layer;

      if (index < 0)
        continue;
      layer = net->layer[index];
      /* its tops, and its bottoms for their gradients after backward */
      for (gsize t = 0; t < layer->n_top; t++)
        {
          g_ptr_array_add (blobs, layer->top[t]);
          add_true_labels (net, layer->top[t], blobs);
        }
      for (gsize b = 0; b < layer->n_bottom; b++)
        g_ptr_array_add (blobs, layer->bottom[b]);
      if (layer->name != NULL)
        g_ptr_array_add (layers, layer->name);
    }
  /* an edge selected: the blob it carries */
  if (ct_selection_get_blob (self->selection) != NULL)
    g_ptr_array_add (blobs, (gpointer) ct_selection_get_blob (self->selection));
  g_ptr_array_add (blobs, NULL);
  g_ptr_array_add (layers, NULL);
  ct_runner_watch (self->runner, (const char *const *) blobs->pdata);
  ct_runner_watch_params (self->runner, (const char *const *) layers->pdata);
}

static void
selection_changed (CtSelection *selection, guint flags, CtWindow *self)
{
  /* the user's own choice: follow the step again only from nothing */
  if (!self->run_selecting)
    self->run_following = ct_selection_get_count (selection) == 0
                          && ct_selection_get_blob (selection) == NULL;
  update_watch (self);
  /* the statistics of every blob are there already; the copies of the
   * newly selected ones follow in the runner's next snapshot */
  if (self->runner != NULL)
    ct_blob_panel_show_snapshot (self->blob_panel, self->run_stale ? NULL : self->run_snapshot);
}

/* Steps */

/* The runner, built or brought up to date with the document and the
 * settings, or NULL (and a toast) when the net cannot run. */
static CtRunner *
ensure_runner (CtWindow *self)
{
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *net;

  if (ct_document_get_net (self->document) == NULL
      || ct_document_get_parse_error (self->document) != NULL)
    {
      ct_window_show_error (self, _("The net cannot run: fix the prototxt first"));
      return NULL;
    }
  /* the inputs given are forgotten only with the runner */
  if (ct_window_inputs_take_cleared (self) && self->runner != NULL)
    {
      g_clear_pointer (&self->runner, ct_runner_free);
      self->run_stale = FALSE;
    }
  if (self->runner != NULL && !self->run_stale && !config_changed (self))
    return self->runner;
  net = ct_document_dup_resolved_net (self->document);
  if (net == NULL)
    return NULL;
  if (self->runner == NULL)
    {
      take_config (self);
      self->runner = ct_runner_new (net, &self->run_applied, snapshot_arrived, self);
      ct_runner_set_pace (self->runner, ct_run_controls_get_pace (self->run_controls));
      self->run_epoch = ct_runner_get_epoch (self->runner);
      ct_window_inputs_apply (self, self->runner);
      update_watch (self);
      ct_window_run_update_actions (self);
    }
  else if (config_changed (self))
    {
      /* new settings: a new run, weights and all */
      take_config (self);
      ct_runner_rebuild (self->runner, net);
      ct_runner_set_config (self->runner, &self->run_applied);
      ct_window_inputs_apply (self, self->runner);
    }
  else
    {
      ct_runner_rebuild (self->runner, net);
      /* the edit may have changed the Input layer's shape */
      ct_window_inputs_apply (self, self->runner);
    }
  self->run_epoch = ct_runner_get_epoch (self->runner);
  self->run_stale = FALSE;
  protobuf_c_message_free_unpacked (&net->base, NULL);
  return self->runner;
}

void
ct_window_run_forward_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtRunner *runner;

  /* paused inside a training pass, F7 steps the trainer */
  if (ct_window_train_step (data, TRUE))
    return;
  runner = ensure_runner (data);
  if (runner == NULL)
    return;
  /* what failed before is tried again: its error goes */
  ct_window_dismiss_error (data);
  follow_ahead (data, TRUE);
  ct_runner_step_forward (runner);
}

void
ct_window_run_backward_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  CtRunSnapshot *snapshot = latest_snapshot (self);
  CtRunner *runner;

  if (ct_window_train_step (self, FALSE))
    return;
  /* after a complete backward pass the runner refuses a backward step: say
   * so plainly rather than as an error */
  if (snapshot != NULL && !self->run_stale && !ct_run_snapshot_get_invalidated (snapshot)
      && ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_BACKWARD
      && ct_run_snapshot_get_next_layer (snapshot) < 0)
    {
      ct_window_show_toast (self, _("The backward pass is complete: step forward to start a new pass"));
      return;
    }
  runner = ensure_runner (self);
  if (runner == NULL)
    return;
  ct_window_dismiss_error (self);
  follow_ahead (self, FALSE);
  ct_runner_step_backward (runner);
}

void
ct_window_run_pass_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  CtRunner *runner = ensure_runner (self);

  if (runner == NULL)
    return;
  ct_window_dismiss_error (self);
  ct_runner_run_pass (runner);
  self->run_passing = TRUE;
  update_stop (self);
}

void
ct_window_run_reset_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->runner == NULL)
    return;
  ct_runner_stop (self->runner);
  if (ensure_runner (self) != NULL)
    ct_runner_reset (self->runner);
}

/* Weights */

static void
weights_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (file != NULL)
        ct_window_set_weights (self, file);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

void
ct_window_open_weights_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Open Weights"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("Caffe Weights"));
  gtk_file_filter_add_pattern (filter, "*.caffemodel");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect (chooser, "response", G_CALLBACK (weights_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
ct_window_use_fillers_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->weights == NULL)
    return;
  g_clear_object (&self->weights);
  ct_window_run_weights_changed (self);
}

/* The window's hooks */

void
ct_window_run_weights_changed (CtWindow *self)
{
  g_autofree char *name = self->weights != NULL ? g_file_get_basename (self->weights) : NULL;

  ct_run_controls_set_weights_name (self->run_controls, name);
  ct_window_run_update_actions (self);
}

void
ct_window_run_update_actions (CtWindow *self)
{
  gboolean runs = ct_document_get_net (self->document) != NULL
                  && ct_document_get_parse_error (self->document) == NULL
                  && ct_document_get_net (self->document)->n_layer > 0;
  static const char *const steps[] = { "run-forward", "run-backward", "run-pass" };

  for (gsize i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), steps[i]);
      if (action != NULL)
        g_simple_action_set_enabled (G_SIMPLE_ACTION (action), runs);
    }
  {
    GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "run-reset");
    if (action != NULL)
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), runs && self->runner != NULL);
    action = g_action_map_lookup_action (G_ACTION_MAP (self), "use-fillers");
    if (action != NULL)
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), self->weights != NULL);
  }
  update_stop (self);
}

/* What was shown of the run is gone (the net was edited, or another phase
 * is shown): say so once, ahead of any routine toast, and build the run
 * again at the next step. */
static void
drop_shown_run (CtWindow *self, const char *notice)
{
  self->run_stale = TRUE;
  /* what was waiting for a frame belongs to the old run */
  cancel_show (self);
  if (!self->run_shown)
    return;
  self->run_shown = FALSE;
  ct_runner_stop (self->runner);
  g_clear_pointer (&self->run_current, g_free);
  clear_marks (self);
  gtk_widget_set_visible (GTK_WIDGET (self->run_label), FALSE);
  ct_blob_panel_show_snapshot (self->blob_panel, NULL);
  ct_window_present_update (self);
  {
    AdwToast *toast = adw_toast_new (notice);
    adw_toast_set_timeout (toast, 5);
    ct_window_add_toast (self, toast);
  }
}

void
ct_window_run_document_changed (CtWindow *self, CtDocumentChange flags)
{
  if ((flags & CT_DOCUMENT_CHANGE_NET) == 0 && (flags & CT_DOCUMENT_CHANGE_LOAD) == 0)
    return;
  if (flags & CT_DOCUMENT_CHANGE_LOAD)
    {
      /* another net: nothing of the old run carries over */
      g_clear_pointer (&self->runner, ct_runner_free);
      update_stop (self);
      cancel_show (self);
      g_clear_pointer (&self->run_snapshot, ct_run_snapshot_unref);
      self->run_stale = FALSE;
      self->run_shown = FALSE;
      g_clear_pointer (&self->run_current, g_free);
      clear_marks (self);
      update_label (self);
      ct_blob_panel_show_snapshot (self->blob_panel, NULL);
      ct_window_present_update (self);
      return;
    }
  if (self->runner == NULL)
    return;
  drop_shown_run (self, _("The net changed: the run starts again at the next step, keeping the "
                          "weights of layers that still fit"));
}

void
ct_window_run_graph_changed (CtWindow *self)
{
  if (self->runner != NULL && self->run_shown && self->run_applied.phase != run_phase (self))
    drop_shown_run (self, _("Another phase is shown: the run starts again at the next step"));
  else if (self->run_shown && !self->run_stale)
    apply_marks (self, self->run_snapshot);
}

void
ct_window_run_show_external (CtWindow *self, CtRunSnapshot *snapshot, const char *current)
{
  g_clear_pointer (&self->run_snapshot, ct_run_snapshot_unref);
  g_clear_pointer (&self->run_current, g_free);
  if (snapshot != NULL)
    {
      self->run_snapshot = ct_run_snapshot_ref (snapshot);
      self->run_current = g_strdup (current);
    }
  apply_marks (self, snapshot);
  update_label (self);
  ct_blob_panel_show_snapshot (self->blob_panel, snapshot);
}

CtRunSnapshot *
ct_window_run_get_snapshot (CtWindow *self)
{
  return self->run_snapshot;
}

/* The pace applies at once, to a pass running too. */
static void
pace_changed (CtRunControls *controls, CtWindow *self)
{
  if (self->runner != NULL)
    ct_runner_set_pace (self->runner, ct_run_controls_get_pace (controls));
}

void
ct_window_init_run (CtWindow *self)
{
  self->run_following = TRUE;
  ct_window_run_weights_changed (self);
  build_stop (self);
  ct_window_init_inputs (self);
  g_signal_connect (self->selection, "changed", G_CALLBACK (selection_changed), self);
  g_signal_connect (self->run_controls, "pace-changed", G_CALLBACK (pace_changed), self);
  ct_window_run_update_actions (self);
}

void
ct_window_run_dispose (CtWindow *self)
{
  /* the runner's callback must not reach a window being torn down */
  g_clear_pointer (&self->runner, ct_runner_free);
  ct_window_inputs_dispose (self);
  cancel_show (self);
  g_clear_pointer (&self->run_snapshot, ct_run_snapshot_unref);
  g_clear_pointer ((char **) &self->run_applied.weights, g_free);
  g_clear_pointer (&self->run_current, g_free);
}
