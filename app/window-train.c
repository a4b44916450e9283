/* window-train.c: training in the window. The window owns at most one
 * CtTrainer (app/run/trainer.h), made at Start from the solver panel's
 * SolverParameter with the window's own net (as the document holds it
 * then, data paths resolved) in place of the solver's net file. Every
 * action only queues a command; the trainer's progress comes back through
 * the main loop and goes to the header bar (iteration, speed, time, ETA),
 * the Training view (CtTrainView, train-view.c) and toasts.
 *
 * Start and Pause are one action (win.train-toggle, F4: no GNOME
 * convention holds it), beside Stop (Shift+F4) and Snapshot now
 * (Ctrl+Shift+P). "Pause Training Here" on a layer sets the breakpoint: the
 * trainer stops before that layer's forward, and its snapshot of the live
 * pass is shown as the step view shows a step (window-run.c): marks on the
 * graph, the blob panel; F7 and Shift+F7 then step the trainer, and F4
 * resumes. A non-finite value stops training with a toast naming the
 * layer, which the graph marks. When training ends the weights are
 * exported and become the step view's weights. Comparing the weights with
 * a snapshot while a run is going, paused or at a breakpoint takes them
 * the same way: the worker exports them between iterations (at a
 * breakpoint, the last iteration's: the update comes after the pass) and
 * the comparison runs on that file (window-compare.c). */
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "devices.h"
#include "engine-error.h"
#include "error-place.h"
#include "field-path.h"
#include "run-diff.h"
#include "solver-diff.h"
#include "window-train-private.h"

#define WATCH_EVERY 50
#define RATIO_EVERY 10

/* The solver that trains the window's net */

static char *
snapshot_folder (CtWindow *self)
{
  const char *source = ct_solver_panel_get_source_path (self->solver_panel);
  g_autofree char *dir = source != NULL ? g_path_get_dirname (source) : NULL;
  GFile *net_file = ct_document_get_file (self->document);

  /* beside the solver when the user may write there (not an installed
   * example's folder), else beside the net, else in the user's data */
  if (dir != NULL && g_access (dir, W_OK) == 0)
    return g_steal_pointer (&dir);
  if (net_file != NULL && g_file_peek_path (net_file) != NULL)
    {
      g_autofree char *net_dir = g_path_get_dirname (g_file_peek_path (net_file));
      if (g_access (net_dir, W_OK) == 0)
        return g_steal_pointer (&net_dir);
    }
  dir = g_build_filename (g_get_user_data_dir (), "cortado", "snapshots", NULL);
  g_mkdir_with_parents (dir, 0700);
  return g_steal_pointer (&dir);
}

static Caffe__SolverParameter *
train_param (CtWindow *self)
{
  static const char *const net_fields[] = { "net", "train_net", "test_net", "net_param",
                                            "train_net_param", "test_net_param" };
  Caffe__SolverParameter *param = ct_solver_panel_dup_param (self->solver_panel);
  Caffe__NetParameter *net = ct_document_dup_resolved_net (self->document);
  const char *prefix = param->snapshot_prefix;

  if (net == NULL)
    {
      protobuf_c_message_free_unpacked (&param->base, NULL);
      return NULL;
    }
  /* the net trained is the one on screen, edits and all */
  for (gsize i = 0; i < G_N_ELEMENTS (net_fields); i++)
    ct_field_path_clear (&param->base, net_fields[i], NULL);
  param->net_param = net;
  if (prefix == NULL || *prefix == '\0' || !g_path_is_absolute (prefix))
    {
      g_autofree char *folder = snapshot_folder (self);
      g_autofree char *lower = g_ascii_strdown (net->name != NULL && *net->name ? net->name
                                                                                : "net", -1);
      g_autofree char *full = NULL;

      g_strdelimit (lower, " /\\:", '_');
      full = g_build_filename (folder, prefix != NULL && *prefix != '\0' ? prefix : lower, NULL);
      ct_field_path_set (&param->base, "snapshot_prefix", full, NULL);
    }
  return param;
}

/* The layer's first top, to follow in the Training view and to copy at a
 * breakpoint: the blob a user means by "this layer's output". */
char *
ct_window_train_selected_top (CtWindow *self, char **layer_name)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  const char *const *ids = ct_selection_get_ids (self->selection);
  int index = ids[0] != NULL ? ct_window_layer_for_id (self, ids[0]) : -1;

  if (net == NULL || index < 0 || (gsize) index >= net->n_layer)
    return NULL;
  if (layer_name != NULL)
    *layer_name = g_strdup (net->layer[index]->name);
  return net->layer[index]->n_top > 0 ? g_strdup (net->layer[index]->top[0]) : NULL;
}

static char *
top_of_layer (CtWindow *self, const char *layer)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);

  for (gsize i = 0; net != NULL && layer != NULL && i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, layer) == 0 && net->layer[i]->n_top > 0)
      return g_strdup (net->layer[i]->top[0]);
  return NULL;
}

static void
apply_watch (CtWindow *self)
{
  CtWindowTrain *t = self->train;
  g_autofree char *top = ct_window_train_selected_top (self, NULL);

  /* the breakpoint's output is copied at the breakpoint when nothing is
   * selected */
  if (top == NULL)
    top = top_of_layer (self, t->breakpoint);
  if (g_strcmp0 (top, t->watch_blob) == 0 && t->trainer != NULL)
    return;
  g_free (t->watch_blob);
  t->watch_blob = g_steal_pointer (&top);
  if (t->trainer != NULL)
    ct_trainer_watch (t->trainer, t->watch_blob, WATCH_EVERY);
}

/* Progress */

/* The document's layer that ERROR carries as its place, or NULL. */
static const char *
named_layer (CtWindow *self, const GError *error)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  const char *name = ct_error_get_layer (error);

  for (gsize i = 0; name != NULL && net != NULL && i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return net->layer[i]->name;
  return NULL;
}

static void
show_error (CtWindow *self, const GError *error)
{
  CtWindowTrain *t = self->train;
  const char *layer = named_layer (self, error);
  g_autofree char *message = NULL;

  /* a command refused: training goes on */
  if (g_error_matches (error, CT_TRAIN_ERROR, CT_TRAIN_ERROR_NO_BLOB))
    {
      /* a layer of the test net only was selected: nothing to follow */
      ct_train_view_set_watch_note (t->view, error->message);
      return;
    }
  if (g_error_matches (error, CT_TRAIN_ERROR, CT_TRAIN_ERROR_NO_LAYER))
    {
      /* the trainer dropped the breakpoint (a layer of the test net) */
      g_clear_pointer (&t->breakpoint, g_free);
      ct_window_train_update_break_state (self);
      ct_window_show_toast (self, error->message);
      return;
    }
  if (g_error_matches (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NOT_FINITE) && layer != NULL)
    {
      /* The engine's message names the layer and blob already ("training
       * stopped: layer 'conv1' gave NaN ..."): shown as it is, as a
       * sentence; the layer itself comes from the error's data. */
      message = g_strdup (error->message);
      message[0] = g_ascii_toupper (message[0]);
      ct_graph_view_clear_run_states (self->graph_view);
      ct_graph_view_add_run_state (self->graph_view, layer, CT_GRAPH_NODE_STATE_RUN_FAILED);
      ct_graph_view_set_highlight (self->graph_view, layer);
      adw_view_stack_set_visible_child_name (self->view_stack, "graph");
    }
  else
    /* TRANSLATORS: a toast when training fails; %s says why */
    message = g_strdup_printf (_("Training failed: %s"), error->message);
  g_free (t->last_error);
  t->last_error = g_strdup (message);
  ct_window_show_error (self, message);
}

/* The update ratios on the graph: a strip on each output edge of a layer
 * with parameters, in the gradient-health colours. */
static void
mark_ratios (CtWindow *self)
{
  CtWindowTrain *t = self->train;
  CtGraphModel *model = ct_graph_view_get_model (self->graph_view);
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  guint n_edges = model != NULL ? ct_graph_model_n_edges (model) : 0;
  g_autofree CtGraphEdgeRun *runs = NULL;

  if (t->at_break || n_edges == 0 || ct_train_view_get_n_ratios (t->view) == 0 || net == NULL)
    return;
  runs = g_new0 (CtGraphEdgeRun, n_edges);
  for (guint e = 0; e < n_edges; e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);

      for (gsize i = 0; i < net->n_layer; i++)
        {
          const double *ratio = ct_train_view_get_ratio (t->view, net->layer[i]->name);

          if (ratio == NULL)
            continue;
          for (gsize k = 0; k < net->layer[i]->n_top; k++)
            if (g_strcmp0 (net->layer[i]->top[k], edge->blob) == 0)
              {
                runs[e].state = CT_GRAPH_EDGE_RUN_DIFF;
                /* scaled so that a healthy update (1e-3) reads as a
                 * healthy gradient does */
                runs[e].health = *ratio * 100.0;
              }
        }
    }
  ct_graph_view_set_edge_runs (self->graph_view, runs, n_edges);
}

/* The layer of a breakpoint's snapshot that ran last (the step view
 * highlights it), or NULL. */
static const char *
last_run_layer (CtWindow *self, CtRunSnapshot *snapshot)
{
  const char *last = NULL;

  for (guint i = 0; i < ct_run_snapshot_n_layers (snapshot); i++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i);

      if (ct_window_layer_for_id (self, layer->name) < 0)
        continue;
      if (ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_FORWARD
          && layer->state == CT_RUN_LAYER_FORWARD_DONE)
        last = layer->name;
      else if (ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_BACKWARD
               && (layer->state == CT_RUN_LAYER_BACKWARD_DONE
                   || layer->state == CT_RUN_LAYER_BACKWARD_SKIPPED)
               && last == NULL)
        last = layer->name;
    }
  return last;
}

/* The graph page was hidden (and the palette with the Training view):
 * reveal the breakpoint once the page has its new size, two frames on. */
static gboolean
reveal_later (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CtWindow *self = data;
  guint frames = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "ct-reveal-frames"));

  if (++frames < 3)
    {
      g_object_set_data (G_OBJECT (widget), "ct-reveal-frames", GUINT_TO_POINTER (frames));
      return G_SOURCE_CONTINUE;
    }
  g_object_set_data (G_OBJECT (widget), "ct-reveal-frames", NULL);
  if (self->train != NULL && self->train->breakpoint != NULL)
    ct_graph_view_reveal (self->graph_view, self->train->breakpoint, FALSE);
  return G_SOURCE_REMOVE;
}

static void
show_break (CtWindow *self, CtRunSnapshot *snapshot)
{
  CtWindowTrain *t = self->train;
  gboolean first = !t->at_break;

  t->at_break = TRUE;
  ct_window_run_show_external (self, snapshot, last_run_layer (self, snapshot));
  if (first)
    {
      int index = ct_window_layer_for_id (self, t->breakpoint);

      /* the step view takes over: the graph, the breakpoint's layer
       * selected so that the inspector shows its blobs */
      adw_view_stack_set_visible_child_name (self->view_stack, "graph");
      if (index >= 0)
        ct_window_select_layers (self, &index, 1, TRUE);
      gtk_widget_add_tick_callback (GTK_WIDGET (self->graph_view), reveal_later, self, NULL);
    }
}

/* FILE was written into FOLDER (a file right inside it). */
static gboolean
written_into (const char *file, const char *folder)
{
  g_autofree char *dir = g_path_get_dirname (file);

  return g_strcmp0 (dir, folder) == 0;
}

static void
written (CtWindow *self, char **files)
{
  CtWindowTrain *t = self->train;
  g_autofree char *joined = g_strjoinv ("\n", files);
  const char *shown = NULL;
  guint n_shown = 0;
  gboolean to_step = FALSE;

  g_free (t->last_files);
  t->last_files = g_strdup (joined);
  for (guint i = 0; files[i] != NULL; i++)
    {
      gboolean model = g_str_has_suffix (files[i], ".caffemodel");

      if (written_into (files[i], t->compare_dir))
        {
          /* the live weights asked for by a comparison */
          if (model && t->compare_other != NULL)
            {
              g_autofree char *other = g_steal_pointer (&t->compare_other);

              ct_window_compare_weights_files (self, files[i], other);
            }
          continue;
        }
      if (model && t->export_for_step)
        {
          g_autoptr (GFile) file = g_file_new_for_path (files[i]);

          /* the step view runs on what training made */
          t->export_for_step = FALSE;
          to_step = TRUE;
          ct_window_set_weights (self, file);
          continue;
        }
      if (shown == NULL)
        shown = files[i];
      n_shown++;
    }
  /* the export for the step view is no news (nor the files beside it) */
  if (shown != NULL && !to_step)
    {
      g_autofree char *name = g_path_get_basename (shown);
      /* TRANSLATORS: a toast after a snapshot or export; %s is a file name
       * (no count is shown, so these are two messages, not a plural) */
      g_autofree char *message = g_strdup_printf (n_shown == 1
                                                    ? _("Wrote “%s”")
                                                    : _("Wrote “%s” and the files beside it"),
                                                  name);
      ct_window_show_toast (self, message);
    }
}

static void
progress_arrived (CtTrainer *trainer, CtTrainProgress *p, gpointer data)
{
  CtWindow *self = data;
  CtWindowTrain *t = self->train;
  CtTrainState before = t->state;
  g_autofree char *stats = ct_train_view_format_stats (p);
  g_autofree char *elapsed = ct_train_view_format_elapsed (p);

  t->state = p->state;
  t->iter = p->iter;
  t->max_iter = p->max_iter;
  ct_train_view_take (t->view, p);
  gtk_label_set_text (t->stats_label, stats);
  gtk_widget_set_tooltip_text (GTK_WIDGET (t->stats_label), elapsed);
  gtk_widget_set_visible (GTK_WIDGET (t->stats_label), TRUE);
  if (p->files != NULL && p->files[0] != NULL)
    written (self, p->files);
  if (p->error != NULL)
    {
      /* an export asked for by a comparison fails with this error too */
      g_clear_pointer (&t->compare_other, g_free);
      show_error (self, p->error);
    }
  if (p->snapshot != NULL && p->state == CT_TRAIN_STATE_BREAK)
    show_break (self, p->snapshot);
  else if (t->at_break && p->state != CT_TRAIN_STATE_BREAK)
    {
      t->at_break = FALSE;
      ct_window_run_show_external (self, NULL, NULL);
    }
  if (p->ratios != NULL && p->ratios->len > 0 && p->error == NULL)
    mark_ratios (self);
  if ((p->state == CT_TRAIN_STATE_FINISHED || p->state == CT_TRAIN_STATE_STOPPED)
      && before != p->state && p->error == NULL && p->iter > 0)
    {
      /* hand the trained weights to the step view */
      t->export_for_step = TRUE;
      ct_trainer_export (t->trainer, t->export_dir);
    }
  ct_window_train_update_controls (self);
}

/* Starting, and the state of the controls */

/* "Training…", with the device the run computes on. */
static char *
running_status (const CtWindowTrain *t)
{
  int threads = ct_engine_cpu_threads ();

  if (t->run_on_gpu)
    /* TRANSLATORS: the status while training; %d is the GPU's number */
    return g_strdup_printf (_("Training on GPU %d…"), t->run_gpu_device);
  /* TRANSLATORS: the status while training; %d is the number of CPU threads */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Training on the CPU (%d thread)…",
                                       "Training on the CPU (%d threads)…", threads),
                          threads);
}

/* The run shown becomes an earlier one, labelled by the settings that set
 * it apart from PARAM's (the next run's); PARAM (taken) becomes the
 * current run's. */
static void
begin_run (CtWindow *self, Caffe__SolverParameter *param)
{
  CtWindowTrain *t = self->train;
  g_autofree char *label = t->run_param != NULL
                             ? ct_solver_param_diff (t->run_param, param, 3) : NULL;

  if (label == NULL && t->run_param != NULL)
    {
      /* only the net changed: the legend says so, shortly */
      g_autoptr (GPtrArray) lines = ct_run_diff_lines (t->run_param, param);

      label = ct_run_diff_summary (lines, 1);
    }
  ct_train_view_new_run (t->view, label, t->run_param, param);
  ct_train_view_set_average_loss (t->view, param->average_loss);
  if (t->run_param != NULL)
    protobuf_c_message_free_unpacked (&t->run_param->base, NULL);
  t->run_param = param;
}

static gboolean
net_runs (CtWindow *self)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);

  return net != NULL && net->n_layer > 0 && ct_document_get_parse_error (self->document) == NULL;
}

gboolean
ct_window_train_start (CtWindow *self, const char *resume)
{
  CtWindowTrain *t = self->train;
  Caffe__SolverParameter *param;
  CtTrainConfig config = {
    .resume = resume,
    .ratio_every = RATIO_EVERY,
    .use_gpu = ct_run_controls_get_use_gpu (self->run_controls),
    .gpu_device = ct_run_controls_get_gpu_device (self->run_controls),
  };

  if (!net_runs (self))
    {
      ct_window_show_error (self, _("The net cannot train: fix the prototxt first"));
      return FALSE;
    }
  /* the source view's last keystrokes belong to the net trained */
  ct_window_source_flush (self);
  param = train_param (self);
  if (param == NULL)
    return FALSE;
  g_clear_pointer (&t->trainer, ct_trainer_free);
  ct_window_train_follow_stop (self);
  if (t->at_break)
    {
      t->at_break = FALSE;
      ct_window_run_show_external (self, NULL, NULL);
    }
  begin_run (self, param);
  t->trainer = ct_trainer_new (param, ct_solver_panel_get_source_path (self->solver_panel), &config,
                               progress_arrived, self);
  g_clear_pointer (&t->watch_blob, g_free);
  apply_watch (self);
  if (t->breakpoint != NULL)
    ct_trainer_set_breakpoint (t->trainer, t->breakpoint);
  t->state = CT_TRAIN_STATE_RUNNING;
  t->iter = 0;
  t->built = TRUE;
  t->run_on_gpu = config.use_gpu;
  t->run_gpu_device = config.gpu_device;
  ct_window_dismiss_error (self);
  ct_trainer_start (t->trainer);
  {
    g_autofree char *status = running_status (t);

    ct_train_view_set_status (t->view, status);
  }
  ct_window_train_update_controls (self);
  return TRUE;
}

/* Restart exists so that a class can change one setting and compare from
 * the same start: the trainer rebuilds its solver from the settings shown
 * now (the solver panel's, the net as the document holds it) with the
 * first run's seed, weights and data order. */
void
ct_window_train_restart (CtWindow *self)
{
  CtWindowTrain *t = self->train;
  Caffe__SolverParameter *param;

  if (t->trainer == NULL)
    return;
  ct_window_source_flush (self);
  param = train_param (self);
  if (param == NULL)
    return;
  /* the last run stays on the plot, labelled by what differed */
  begin_run (self, param);
  ct_window_dismiss_error (self);
  ct_trainer_restart_with (t->trainer, param);
  t->state = CT_TRAIN_STATE_RUNNING;
  ct_window_train_update_controls (self);
}

static void
set_enabled (CtWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
ct_window_train_update_controls (CtWindow *self)
{
  CtWindowTrain *t = self->train;
  CtTrainState state = t->trainer != NULL ? t->state : CT_TRAIN_STATE_IDLE;
  gboolean active = t->trainer != NULL && (state == CT_TRAIN_STATE_RUNNING
                                           || state == CT_TRAIN_STATE_PAUSED
                                           || state == CT_TRAIN_STATE_BREAK);
  const char *icon = "media-playback-start-symbolic";
  const char *tip = _("Start Training (F4)");
  const char *status = NULL;
  g_autofree char *owned = NULL;

  if (state == CT_TRAIN_STATE_RUNNING)
    {
      icon = "media-playback-pause-symbolic";
      tip = _("Pause Training (F4)");
      status = owned = running_status (t);
    }
  else if (state == CT_TRAIN_STATE_PAUSED || state == CT_TRAIN_STATE_BREAK)
    {
      tip = _("Resume Training (F4)");
      if (state == CT_TRAIN_STATE_BREAK && t->breakpoint != NULL)
        /* TRANSLATORS: %s is the layer training paused before */
        status = owned = g_strdup_printf (_("Paused inside the pass, at “%s”: F7 steps, F4 "
                                            "resumes"), t->breakpoint);
      else
        status = _("Paused");
    }
  else if (state == CT_TRAIN_STATE_FINISHED)
    status = _("Training finished");
  else if (state == CT_TRAIN_STATE_STOPPED && t->trainer != NULL)
    status = _("Training stopped");
  else if (t->breakpoint != NULL)
    /* TRANSLATORS: %s is the layer training will pause before */
    status = owned = g_strdup_printf (_("Press Start (F4) to train: training pauses before "
                                        "“%s” in every iteration"), t->breakpoint);
  gtk_button_set_icon_name (t->toggle_button, icon);
  gtk_widget_set_tooltip_text (GTK_WIDGET (t->toggle_button), tip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (t->toggle_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
  if (status != NULL)
    ct_train_view_set_status (t->view, status);
  set_enabled (self, "train-toggle", net_runs (self) || active);
  set_enabled (self, "train-stop", active);
  set_enabled (self, "train-snapshot", t->trainer != NULL && t->built);
  set_enabled (self, "train-export", t->trainer != NULL && t->built);
  set_enabled (self, "train-restart", t->trainer != NULL);
  set_enabled (self, "train-break-here", net_runs (self));
}

static void
selection_changed (CtSelection *selection, guint flags, CtWindow *self)
{
  apply_watch (self);
  ct_window_train_update_break_state (self);
}

/* The palette adds layers to the graph: beside the plots it only takes
 * their room. */
static void
view_changed (AdwViewStack *stack, GParamSpec *pspec, CtWindow *self)
{
  ct_window_update_palette (self);
}

static void
solver_saved (CtSolverPanel *panel, GFile *file, CtWindow *self)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *message = g_strdup_printf (_("Saved “%s”"), name);

  ct_window_show_toast (self, message);
}

void
ct_window_init_train (CtWindow *self)
{
  CtWindowTrain *t = g_new0 (CtWindowTrain, 1);

  self->train = t;
  t->window = self;
  t->export_dir = g_build_filename (g_get_user_data_dir (), "cortado", "trained", NULL);
  t->compare_dir = g_build_filename (t->export_dir, "compared", NULL);
  /* the Training page, its solver panel and view are in window.ui */
  g_signal_connect_swapped (self->solver_panel, "error", G_CALLBACK (ct_window_report_error), self);
  g_signal_connect (self->solver_panel, "saved", G_CALLBACK (solver_saved), self);
  ct_window_train_build_controls (self);
  g_signal_connect (self->selection, "changed", G_CALLBACK (selection_changed), self);
  g_signal_connect (self->view_stack, "notify::visible-child-name", G_CALLBACK (view_changed),
                    self);
  ct_window_train_update_controls (self);
}

void
ct_window_train_dispose (CtWindow *self)
{
  CtWindowTrain *t = self->train;

  if (t == NULL)
    return;
  /* the trainer's callback must not reach a window being torn down */
  g_clear_pointer (&t->trainer, ct_trainer_free);
  ct_window_train_follow_stop (self);
  if (self->view_stack != NULL)
    g_signal_handlers_disconnect_by_func (self->view_stack, view_changed, self);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, selection_changed, self);
  g_free (t->breakpoint);
  g_free (t->watch_blob);
  g_free (t->export_dir);
  g_free (t->compare_dir);
  g_free (t->compare_other);
  g_free (t->last_error);
  g_free (t->last_files);
  if (t->run_param != NULL)
    protobuf_c_message_free_unpacked (&t->run_param->base, NULL);
  if (self->solver_panel != NULL)
    g_signal_handlers_disconnect_by_data (self->solver_panel, self);
  g_free (t);
  self->train = NULL;
}

/* The window's hooks */

void
ct_window_train_update_actions (CtWindow *self)
{
  if (self->train != NULL)
    ct_window_train_update_controls (self);
}

gboolean
ct_window_train_has_run (CtWindow *self)
{
  return self->train != NULL && self->train->trainer != NULL;
}

void
ct_window_train_document_changed (CtWindow *self, CtDocumentChange flags)
{
  CtWindowTrain *t = self->train;

  if (t == NULL || (flags & CT_DOCUMENT_CHANGE_LOAD) == 0)
    {
      if (t != NULL)
        ct_window_train_update_controls (self);
      return;
    }
  /* another net: its runs are another story */
  g_clear_pointer (&t->trainer, ct_trainer_free);
  t->at_break = FALSE;
  t->built = FALSE;
  t->state = CT_TRAIN_STATE_IDLE;
  g_clear_pointer (&t->breakpoint, g_free);
  g_clear_pointer (&t->watch_blob, g_free);
  if (t->run_param != NULL)
    protobuf_c_message_free_unpacked (&t->run_param->base, NULL);
  t->run_param = NULL;
  ct_train_view_clear (t->view);
  gtk_widget_set_visible (GTK_WIDGET (t->stats_label), FALSE);
  ct_train_view_set_status (t->view, _("Press Start (F4) to train the net with this solver"));
  ct_window_train_update_controls (self);
}

gboolean
ct_window_train_step (CtWindow *self, gboolean forward)
{
  CtWindowTrain *t = self->train;

  if (t == NULL || t->trainer == NULL || t->state != CT_TRAIN_STATE_BREAK)
    return FALSE;
  if (forward)
    ct_trainer_step_forward (t->trainer);
  else
    ct_trainer_step_backward (t->trainer);
  return TRUE;
}

void
ct_window_train_set_breakpoint (CtWindow *self, const char *layer)
{
  CtWindowTrain *t = self->train;
  g_autofree char *message = NULL;

  g_free (t->breakpoint);
  t->breakpoint = g_strdup (layer);
  if (t->trainer != NULL)
    ct_trainer_set_breakpoint (t->trainer, layer);
  apply_watch (self);
  ct_window_train_update_break_state (self);
  ct_window_train_update_controls (self);
  if (layer != NULL)
    /* TRANSLATORS: a toast; %s is a layer's name */
    message = g_strdup_printf (_("Training pauses before “%s” runs forward"), layer);
  else
    message = g_strdup (_("Training no longer pauses inside the pass"));
  ct_window_show_toast (self, message);
}

gboolean
ct_window_train_has_live_weights (CtWindow *self)
{
  CtWindowTrain *t = self->train;

  return t != NULL && t->trainer != NULL && t->built
         && (t->state == CT_TRAIN_STATE_RUNNING || t->state == CT_TRAIN_STATE_PAUSED
             || t->state == CT_TRAIN_STATE_BREAK);
}

gboolean
ct_window_train_compare_live (CtWindow *self, const char *other)
{
  CtWindowTrain *t = self->train;

  if (!ct_window_train_has_live_weights (self))
    return FALSE;
  g_free (t->compare_other);
  t->compare_other = g_strdup (other);
  ct_trainer_export (t->trainer, t->compare_dir);
  return TRUE;
}

const char *
ct_window_train_get_breakpoint (CtWindow *self)
{
  return self->train->breakpoint;
}

gboolean
ct_window_train_resume_from (CtWindow *self, const char *solverstate)
{
  return ct_window_train_start (self, solverstate);
}

CtTrainState
ct_window_train_get_state (CtWindow *self)
{
  return self->train->trainer != NULL ? self->train->state : CT_TRAIN_STATE_IDLE;
}

int
ct_window_train_get_iter (CtWindow *self)
{
  return self->train->iter;
}

CtPlotView *
ct_window_train_get_plot (CtWindow *self)
{
  return ct_train_view_get_plot (self->train->view);
}

gboolean
ct_window_train_get_test_value (CtWindow *self, const char *name, double *value)
{
  return ct_train_view_get_test_value (self->train->view, name, value);
}

const char *
ct_window_train_get_last_error (CtWindow *self)
{
  return self->train->last_error;
}

const char *
ct_window_train_get_last_files (CtWindow *self)
{
  return self->train->last_files;
}
