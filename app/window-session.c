/* window-session.c: the window's session in one file. Collecting reads
 * what the window shows through the parts' own getters; opening applies a
 * session through the same calls that opening a net, choosing weights and
 * inputs, and editing the solver use, then puts the saved runs back on the
 * training plots. The weights travel inside the session; opened, they are
 * written to the user's cache folder (named by their checksum) so that the
 * run can read them as a caffemodel file. The step position is restored by
 * stepping the new run to it, as the run keys do; then the selection and
 * the inspector's view are put back. */
#include <errno.h>
#include <glib/gi18n-lib.h>

#include "atomic-write.h"
#include "plot/plot-private.h"
#include "text-format.h"
#include "window-private.h"
#include "window-session.h"

static const char *const pass_names[] = {
  [CT_RUN_PASS_NONE] = "none", [CT_RUN_PASS_FORWARD] = "forward",
  [CT_RUN_PASS_BACKWARD] = "backward",
};

/* Where the step-through stands and what the inspector shows. */
static void
collect_view (CtWindow *self, CtSession *s)
{
  CtRunSnapshot *snapshot = self->run_stale ? NULL : ct_window_run_get_snapshot (self);
  const char *const *ids = ct_selection_get_ids (self->selection);
  CtBlobPanelView view = { 0 };

  if (snapshot != NULL && ct_run_snapshot_n_layers (snapshot) > 0)
    {
      CtRunPass pass = ct_run_snapshot_get_pass (snapshot);

      g_free (s->step_pass);
      s->step_pass = g_strdup (pass < G_N_ELEMENTS (pass_names) ? pass_names[pass] : "none");
      s->step_next = ct_run_snapshot_get_next_layer (snapshot);
    }
  s->selected = ids != NULL && ids[0] != NULL ? g_strdup (ids[0]) : NULL;
  ct_blob_panel_get_view (self->blob_panel, &view);
  s->blob = g_steal_pointer (&view.item);
  s->blob_diff = view.diff;
  s->channel = view.channel;
  s->colormap = view.colormap;
  s->scale = view.scale;
}

CtSession *
ct_window_session_collect (CtWindow *self)
{
  g_autoptr (CtSession) s = ct_session_new ();
  GFile *net_file = ct_document_get_file (self->document);
  Caffe__SolverParameter *solver = ct_solver_panel_dup_param (self->solver_panel);
  g_autoptr (GVariant) phase = g_action_group_get_action_state (G_ACTION_GROUP (self), "phase");
  const GArray *items = ct_window_inputs_get_items (self);
  CtPlot *plot = ct_plot_view_get_plot (ct_window_train_get_plot (self));

  g_free (s->net_text);
  s->net_text = g_strdup (ct_document_get_text (self->document));
  s->net_path = net_file != NULL ? g_file_get_path (net_file) : NULL;
  if (net_file == NULL)
    s->net_title = g_strdup (ct_document_get_title (self->document));
  s->base_dir = ct_document_dup_base_dir (self->document);
  if (self->weights != NULL)
    {
      g_autoptr (GError) error = NULL;

      s->weights = g_file_load_bytes (self->weights, NULL, NULL, &error);
      if (s->weights == NULL)
        g_warning ("%s", error->message);
      else
        s->weights_name = g_file_get_basename (self->weights);
    }
  if (solver != NULL)
    {
      s->solver_text = ct_text_print (&solver->base);
      protobuf_c_message_free_unpacked (&solver->base, NULL);
    }
  s->solver_path = g_strdup (ct_solver_panel_get_source_path (self->solver_panel));
  g_free (s->phase);
  s->phase = g_strdup (phase != NULL ? g_variant_get_string (phase, NULL) : "both");
  g_free (s->view);
  s->view = g_strdup (adw_view_stack_get_visible_child_name (self->view_stack));
  s->batch = ct_run_controls_get_batch (self->run_controls);
  s->pace_ms = ct_run_controls_get_pace (self->run_controls);
  s->seed = ct_run_controls_get_seed (self->run_controls);
  if (items != NULL)
    {
      s->items = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_vals (s->items, items->data, items->len);
    }
  s->input_path = g_strdup (ct_window_inputs_get_path (self));
  collect_view (self, s);
  for (int i = 0; plot != NULL && i < ct_plot_get_n_series (plot); i++)
    {
      const CtPlotSeries *p = ct_plot_get_series (plot, i);
      CtSessionSeries *series;

      if (p->xs->len == 0)
        continue;
      series = ct_session_add_series (s, p->name, p->run_label, (double *) (void *) p->xs->data,
                                      (double *) (void *) p->ys->data, p->xs->len);
      series->panel = p->panel;
      series->side = (int) p->side;
      series->color = (int) p->color;
      series->style = (int) p->style;
      series->faded = p->faded;
      series->visible = p->visible;
    }
  return g_steal_pointer (&s);
}

gboolean
ct_window_session_save (CtWindow *self, GFile *file, GError **error)
{
  g_autoptr (CtSession) session = ct_window_session_collect (self);

  if (g_file_peek_path (file) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("A session must be saved to a local file"));
      return FALSE;
    }
  return ct_session_save (session, g_file_peek_path (file), error);
}

/* The session's weights as a file the run can read. */
static GFile *
weights_file (GBytes *weights, const char *name, GError **error)
{
  g_autofree char *sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, weights);
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "cortado", "sessions", sum,
                                           NULL);
  g_autofree char *base = name != NULL ? g_path_get_basename (name) : g_strdup ("weights.caffemodel");
  g_autofree char *path = NULL;

  if (!g_str_has_suffix (base, ".caffemodel"))
    {
      g_autofree char *with = g_strconcat (base, ".caffemodel", NULL);

      g_free (base);
      base = g_steal_pointer (&with);
    }
  path = g_build_filename (dir, base, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno), "%s: %s", dir,
                   g_strerror (errno));
      return NULL;
    }
  if (!ct_file_write_atomic (path, g_bytes_get_data (weights, NULL), g_bytes_get_size (weights),
                             error))
    return NULL;
  return g_file_new_for_path (path);
}

static void
apply_net (CtWindow *self, const CtSession *s)
{
  g_autoptr (GFile) net_file = s->net_path != NULL ? g_file_new_for_path (s->net_path) : NULL;

  /* the file it came from, when it is still there, with the edits made
   * since its last save on top */
  if (net_file != NULL && g_file_query_exists (net_file, NULL)
      && ct_document_load (self->document, net_file, NULL))
    {
      if (g_strcmp0 (ct_document_get_text (self->document), s->net_text) != 0)
        ct_document_set_text (self->document, s->net_text);
    }
  else
    {
      ct_document_set_base_dir (self->document, s->base_dir);
      ct_document_load_text (self->document, s->net_text,
                             s->net_title != NULL ? s->net_title : _("Untitled Net"));
    }
  ct_window_update_title (self);
  ct_window_update_actions (self);
}

static void
apply_plot (CtWindow *self, const CtSession *s)
{
  CtPlotView *view = ct_window_train_get_plot (self);
  CtPlot *plot = ct_plot_view_get_plot (view);

  for (guint i = 0; i < s->series->len; i++)
    {
      const CtSessionSeries *series = g_ptr_array_index (s->series, i);
      int index;

      if (series->panel >= ct_plot_get_n_panels (plot))
        continue;
      index = ct_plot_add_series (plot, series->panel, (CtPlotAxisSide) series->side,
                                  series->name, (CtPlotColor) series->color,
                                  (CtPlotStyle) series->style, series->run_label);
      for (guint p = 0; p < series->xs->len; p++)
        ct_plot_append (plot, index, g_array_index (series->xs, double, p),
                        g_array_index (series->ys, double, p));
      ct_plot_series_set_faded (plot, index, series->faded);
      ct_plot_series_set_visible (plot, index, series->visible);
    }
  gtk_widget_queue_draw (GTK_WIDGET (view));
}

/* Stepping a reopened session's run to where it stood: one step at a
 * time, each once the last one is shown. */
#define RESTORE_POLL_MS 40
#define RESTORE_QUIET_POLLS 8
#define RESTORE_KEY "ct-session-restore"

typedef struct {
  CtWindow *window;
  CtRunPass pass;
  int next;
  char *selected;
  CtBlobPanelView view;
  guint steps;
  guint polls;
  guint quiet;           /* polls in a row that found the window settled */
  guint source;
  gboolean stepped;      /* the position is reached */
} Restore;

static void
restore_free (gpointer data)
{
  Restore *r = data;

  g_clear_handle_id (&r->source, g_source_remove);
  g_free (r->selected);
  ct_blob_panel_view_clear (&r->view);
  g_free (r);
}

static gboolean
restore_settled (CtWindow *self)
{
  return (self->runner == NULL || !ct_runner_is_busy (self->runner))
         && self->run_pending == NULL;
}

static void
restore_done (CtWindow *self)
{
  g_object_set_data (G_OBJECT (self), RESTORE_KEY, NULL);
}

static gboolean
restore_poll (gpointer data)
{
  Restore *r = data;
  CtWindow *self = r->window;
  CtRunSnapshot *snapshot = self->run_stale ? NULL : ct_window_run_get_snapshot (self);
  guint n_layers = snapshot != NULL ? ct_run_snapshot_n_layers (snapshot) : 0;
  CtRunPass pass;
  int next;

  /* the reopened net is checked before the run is built from it: a step
   * before that would run the window's earlier net, or none */
  if (!restore_settled (self) || ct_document_get_validating (self->document))
    {
      r->quiet = 0;
      return G_SOURCE_CONTINUE;
    }
  /* and what opening set (weights, inputs, phase) has been taken in */
  if (r->steps == 0 && ++r->quiet < RESTORE_QUIET_POLLS)
    return G_SOURCE_CONTINUE;
  if (!r->stepped && snapshot != NULL && ct_run_snapshot_get_error (snapshot) != NULL)
    {
      r->source = 0;
      restore_done (self);
      return G_SOURCE_REMOVE;
    }
  pass = snapshot != NULL ? ct_run_snapshot_get_pass (snapshot) : CT_RUN_PASS_NONE;
  next = snapshot != NULL ? ct_run_snapshot_get_next_layer (snapshot) : 0;
  if (!r->stepped && r->steps > 0 && pass == r->pass && next == r->next)
    {
      const char *ids[] = { r->selected, NULL };

      r->stepped = TRUE;
      if (r->selected != NULL && ct_window_layer_for_id (self, r->selected) >= 0)
        ct_window_select (self, ids);
      return G_SOURCE_CONTINUE;
    }
  if (r->stepped)
    {
      /* the selected layer's copies come with the next snapshot: the
       * inspector's item appears then */
      if (ct_blob_panel_set_view (self->blob_panel, &r->view) || ++r->polls > 100)
        {
          r->source = 0;
          restore_done (self);
          return G_SOURCE_REMOVE;
        }
      return G_SOURCE_CONTINUE;
    }
  /* a whole forward pass and a whole backward pass at most */
  if (r->steps > 2 * MAX (n_layers, 1) + 4)
    {
      r->source = 0;
      ct_window_show_error (self, _("The session’s step position could not be reached"));
      restore_done (self);
      return G_SOURCE_REMOVE;
    }
  r->steps++;
  /* a backward step first runs the rest of the forward pass */
  if (r->pass == CT_RUN_PASS_BACKWARD && pass != CT_RUN_PASS_NONE)
    g_action_group_activate_action (G_ACTION_GROUP (self), "run-backward", NULL);
  else
    g_action_group_activate_action (G_ACTION_GROUP (self), "run-forward", NULL);
  return G_SOURCE_CONTINUE;
}

static void
restore_view (CtWindow *self, const CtSession *s)
{
  Restore *r;
  CtRunPass pass = CT_RUN_PASS_NONE;

  for (gsize i = 0; i < G_N_ELEMENTS (pass_names); i++)
    if (g_strcmp0 (s->step_pass, pass_names[i]) == 0)
      pass = (CtRunPass) i;
  g_object_set_data (G_OBJECT (self), RESTORE_KEY, NULL);
  if (pass == CT_RUN_PASS_NONE)
    {
      const char *ids[] = { s->selected, NULL };

      if (s->selected != NULL && ct_window_layer_for_id (self, s->selected) >= 0)
        ct_window_select (self, ids);
      return;
    }
  r = g_new0 (Restore, 1);
  r->window = self;
  r->pass = pass;
  r->next = s->step_next;
  r->selected = g_strdup (s->selected);
  r->view = (CtBlobPanelView) { g_strdup (s->blob), s->blob_diff, s->channel, s->colormap,
                                s->scale };
  r->source = g_timeout_add (RESTORE_POLL_MS, restore_poll, r);
  g_object_set_data_full (G_OBJECT (self), RESTORE_KEY, r, restore_free);
}

gboolean
ct_window_session_is_restoring (CtWindow *self)
{
  return g_object_get_data (G_OBJECT (self), RESTORE_KEY) != NULL;
}

gboolean
ct_window_session_open (CtWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSession) s = NULL;

  if (g_file_peek_path (file) == NULL)
    {
      ct_window_show_error (self, _("A session must be a local file"));
      return FALSE;
    }
  s = ct_session_load (g_file_peek_path (file), &error);
  if (s == NULL)
    {
      ct_window_report_error (self, _("Could not open the session"), error);
      return FALSE;
    }
  apply_net (self, s);
  if (s->solver_text != NULL)
    {
      g_autofree char *folder = s->solver_path != NULL ? g_path_get_dirname (s->solver_path)
                                                       : g_strdup (s->base_dir);

      ct_solver_panel_set_example (self->solver_panel, s->solver_text, folder);
    }
  if (s->weights != NULL)
    {
      g_autoptr (GFile) weights = weights_file (s->weights, s->weights_name, &error);

      if (weights == NULL)
        ct_window_report_error (self, _("Could not restore the session’s weights"), error);
      else
        ct_window_set_weights (self, weights);
    }
  g_action_group_change_action_state (G_ACTION_GROUP (self), "phase",
                                      g_variant_new_string (s->phase));
  ct_run_controls_set_batch (self->run_controls, s->batch);
  ct_run_controls_set_pace (self->run_controls, s->pace_ms);
  ct_run_controls_set_seed (self->run_controls, s->seed);
  if (s->items != NULL && s->items->len > 0)
    ct_window_inputs_set_items (self, (const guint *) (void *) s->items->data, s->items->len);
  else if (s->input_path != NULL)
    {
      g_autoptr (GFile) input = g_file_new_for_path (s->input_path);

      ct_window_inputs_set_path (self, input);
    }
  apply_plot (self, s);
  adw_view_stack_set_visible_child_name (self->view_stack, s->view);
  restore_view (self, s);
  return TRUE;
}

static void
save_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) chosen = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GFile) file = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *path = g_file_get_path (chosen);

      /* a name typed without the suffix gets it */
      if (path != NULL && !ct_session_is_session_path (path))
        {
          g_autofree char *with = g_strconcat (path, CT_SESSION_SUFFIX, NULL);
          file = g_file_new_for_path (with);
        }
      else
        file = g_object_ref (chosen);
      if (!ct_window_session_save (self, file, &error))
        ct_window_report_error (self, _("Could not save the session"), error);
      else
        {
          g_autofree char *name = g_file_get_basename (file);
          g_autofree char *message = g_strdup_printf (_("Saved “%s”"), name);

          ct_window_show_toast (self, message);
        }
    }
  g_object_unref (chooser);
}

void
ct_window_session_save_as_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  GtkFileFilter *filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Save the Session"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_filter_set_name (filter, _("Cortado Sessions"));
  gtk_file_filter_add_pattern (filter, "*" CT_SESSION_SUFFIX);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  /* TRANSLATORS: the file name offered for a new session */
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), _("class.cortado-session"));
  g_signal_connect (chooser, "response", G_CALLBACK (save_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
