/* window-actions.c: CtWindow's actions (win.*) in one table with their
 * keys: files, editing, the clipboard, finding, zoom, the phase shown, the
 * views, the solver, the run, its inputs and training. Most handlers are
 * here; the run's, the inputs' and training's live beside what they drive.
 * Keys that text widgets also use (Ctrl+C, Ctrl+Z, ...) are bound where
 * they cannot take the keys from an entry or the source view: on the
 * graph for clipboard and selection, on the window in the bubble phase for
 * undo and redo; the others are the application's accelerators. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "window-lesson.h"
#include "window-session.h"
#include "window-private.h"

static void
open_response (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (ct_window_is_blank (self))
        ct_window_load_file (self, file);
      else
        g_application_open (G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))),
                            &file, 1, "");
    }
  g_object_unref (chooser);
}

static void
open_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  GtkFileFilter *nets = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Open Net"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_filter_set_name (nets, _("Nets (prototxt)"));
  gtk_file_filter_add_pattern (nets, "*.prototxt");
  gtk_file_filter_add_pattern (nets, "*.pbtxt");
  gtk_file_filter_add_pattern (nets, "*.lesson");
  gtk_file_filter_add_pattern (nets, "*.cortado-session");
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), nets);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);
  g_signal_connect (chooser, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
open_recent_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  if (ct_window_is_blank (self))
    ct_window_load_file (self, file);
  else
    g_application_open (G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))), &file,
                        1, "");
}

static void
new_example_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  CtWindow *target = self;

  /* An example takes this window's place unless that would lose
   * something: unsaved edits, or a training run and its plots. */
  if (!ct_window_is_blank (self)
      && (ct_window_has_unsaved_changes (self) || ct_window_train_has_run (self)))
    target = ct_window_new (CT_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
  ct_window_load_example (target, g_variant_get_string (param, NULL));
  gtk_window_present (GTK_WINDOW (target));
}

static void
save_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_save_async (data, FALSE, FALSE);
}

static void
save_as_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_save_async (data, TRUE, FALSE);
}

static void
close_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  gtk_window_close (GTK_WINDOW (data));
}

static void
restore_draft_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  g_autoptr (GError) error = NULL;

  if (!ct_document_restore_draft (self->document, &error))
    ct_window_report_error (self, _("Could not restore the draft"), error);
}

/* Editing. */

static void
undo_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_document_undo (CT_WINDOW (data)->document);
}

static void
redo_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_document_redo (CT_WINDOW (data)->document);
}

static void
delete_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  g_autoptr (GError) error = NULL;
  guint n = 0;
  g_autofree guint *layers = ct_window_selected_layers_folded (self, &n);

  if (n > 0 && !ct_document_delete_layers (self->document, layers, n, &error))
    ct_window_report_error (self, NULL, error);
}

static void
select_new (CtWindow *self, GArray *indices)
{
  ct_window_select_layers (self, (const int *) (void *) indices->data, indices->len, TRUE);
}

static void
duplicate_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) added = g_array_new (FALSE, FALSE, sizeof (int));
  guint n = 0;
  g_autofree guint *layers = ct_window_selected_layers_folded (self, &n);

  if (n == 0)
    return;
  if (!ct_document_duplicate_layers (self->document, layers, n, added, &error))
    ct_window_report_error (self, NULL, error);
  else
    select_new (self, added);
}

static void
copy_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  guint n = 0;
  g_autofree guint *layers = ct_window_selected_layers_folded (self, &n);
  g_autofree char *text = NULL;

  if (n == 0)
    return;
  /* Prototxt on the clipboard: pasting into a text editor gives layers. */
  text = ct_document_copy_layers (self->document, layers, n);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
}

static void
cut_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  copy_activated (action, param, data);
  delete_activated (action, param, data);
}

static void
paste_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (CtWindow) self = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, &error);
  g_autoptr (GArray) added = g_array_new (FALSE, FALSE, sizeof (int));

  if (text == NULL)
    {
      if (error != NULL)
        ct_window_report_error (self, _("Nothing to paste"), error);
      return;
    }
  if (!ct_document_paste (self->document, text, added, &error))
    ct_window_report_error (self, _("Could not paste"), error);
  else
    select_new (self, added);
}

static void
paste_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (GTK_WIDGET (self)), NULL, paste_done,
                                 g_object_ref (self));
}

static void
select_all_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  CtGraphModel *model = ct_graph_view_get_model (self->graph_view);
  g_autoptr (GStrvBuilder) all = g_strv_builder_new ();
  g_auto (GStrv) ids = NULL;

  for (guint i = 0; model != NULL && i < ct_graph_model_n_nodes (model); i++)
    g_strv_builder_add (all, ct_graph_model_get_node (model, i)->id);
  ids = g_strv_builder_end (all);
  ct_window_select (self, (const char *const *) ids);
}

static void
rename_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_inspector_focus_name (data);
}

static void
add_layer_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_palette_focus_search (CT_WINDOW (data)->palette);
}

/* Finding. */

static void
find_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  adw_view_stack_set_visible_child_name (self->view_stack, "graph");
  gtk_search_bar_set_search_mode (self->find_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->find_entry));
}

static void
find_next (CtWindow *self, gboolean from_start)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->find_entry));
  const char *const *selected = ct_selection_get_ids (self->selection);
  g_autofree char *after = !from_start && selected[0] != NULL ? g_strdup (selected[0]) : NULL;
  const char *found;

  if (*text == '\0')
    {
      gtk_label_set_text (self->find_status, "");
      return;
    }
  found = ct_graph_view_find (self->graph_view, text, after);
  if (found == NULL)
    {
      gtk_label_set_text (self->find_status, _("Not found"));
      gtk_widget_add_css_class (GTK_WIDGET (self->find_entry), "error");
      return;
    }
  gtk_label_set_text (self->find_status, "");
  gtk_widget_remove_css_class (GTK_WIDGET (self->find_entry), "error");
  {
    g_autofree char *id = g_strdup (found);
    const char *ids[] = { id, NULL };

    ct_window_select_with_flags (self, ids, CT_SELECTION_REVEAL);
  }
}

static void
find_changed (GtkSearchEntry *entry, CtWindow *self)
{
  find_next (self, TRUE);
}

static void
find_next_match (GtkSearchEntry *entry, CtWindow *self)
{
  find_next (self, FALSE);
}

static void
find_stop (GtkSearchEntry *entry, CtWindow *self)
{
  gtk_search_bar_set_search_mode (self->find_bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->graph_view));
}

/* Views. */

static void
zoom_in_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_graph_view_zoom_in (CT_WINDOW (data)->graph_view);
}

static void
zoom_out_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_graph_view_zoom_out (CT_WINDOW (data)->graph_view);
}

static void
zoom_fit_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_graph_view_zoom_to_fit (CT_WINDOW (data)->graph_view);
}

static void
relayout_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  ct_graph_view_relayout (self->graph_view);
  ct_window_store_layout (self);
}

static void
left_to_right_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CtWindow *self = data;

  g_simple_action_set_state (action, state);
  ct_graph_view_set_rankdir (self->graph_view, g_variant_get_boolean (state)
                                                 ? CT_GRAPH_RANKDIR_LR : CT_GRAPH_RANKDIR_TB);
}

static void
toggle_source_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  const char *now = adw_view_stack_get_visible_child_name (self->view_stack);

  adw_view_stack_set_visible_child_name (self->view_stack,
                                         g_strcmp0 (now, "source") == 0 ? "graph" : "source");
}

static void
show_in_source_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  guint n = 0;
  g_autofree guint *layers = ct_window_selected_layers (self, &n);

  adw_view_stack_set_visible_child_name (self->view_stack, "source");
  if (n > 0)
    ct_window_source_reveal_layer (self, (int) layers[0], TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
}

static void
show_problem_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_show_problem (data);
}

static void
phase_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  CtWindow *self = data;
  const char *phase = g_variant_get_string (state, NULL);
  CtDocumentPhase value = g_str_equal (phase, "train") ? CT_DOCUMENT_PHASE_TRAIN
                          : g_str_equal (phase, "test") ? CT_DOCUMENT_PHASE_TEST
                                                        : CT_DOCUMENT_PHASE_BOTH;

  g_simple_action_set_state (action, state);
  ct_window_set_phase (self, value);
}

/* Exporting the graph. The chooser offers one filter per format; a name
 * typed without an extension gets the chosen filter's. */

static const struct {
  const char *extension;
  const char *name;
} export_formats[] = {
  { "svg", N_("SVG Image") },
  { "png", N_("PNG Image") },
  { "pdf", N_("PDF Document") },
};

static gboolean
has_export_extension (const char *name)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (gsize i = 0; i < G_N_ELEMENTS (export_formats); i++)
    {
      g_autofree char *suffix = g_strconcat (".", export_formats[i].extension, NULL);
      if (g_str_has_suffix (lower, suffix))
        return TRUE;
    }
  return FALSE;
}

gboolean
ct_window_export_graph (CtWindow *self, GFile *file, GError **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (CT_IS_WINDOW (self), FALSE);
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The graph can only be exported to a local file"));
      return FALSE;
    }
  return ct_graph_view_export (self->graph_view, path, error);
}

static void
export_response (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) chosen = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *name = g_file_get_basename (chosen);
      GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser));
      const char *extension = filter != NULL ? g_object_get_data (G_OBJECT (filter), "ct-ext")
                                             : NULL;
      g_autoptr (GFile) file = NULL;
      g_autoptr (GError) error = NULL;

      if (!has_export_extension (name) && extension != NULL)
        {
          g_autoptr (GFile) parent = g_file_get_parent (chosen);
          g_autofree char *full = g_strconcat (name, ".", extension, NULL);

          file = g_file_get_child (parent, full);
          g_free (name);
          name = g_steal_pointer (&full);
        }
      else
        file = g_object_ref (chosen);
      if (!ct_window_export_graph (self, file, &error))
        ct_window_report_error (self, _("Could not export the graph"), error);
      else
        {
          g_autofree char *message = g_strdup_printf (_("Exported the graph to “%s”"), name);
          ct_window_show_toast (self, message);
        }
    }
  g_object_unref (chooser);
}

static void
export_graph_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  GFile *net_file = ct_document_get_file (self->document);
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;

  if (ct_graph_view_get_model (self->graph_view) == NULL)
    {
      ct_window_show_error (self, _("There is no graph to export"));
      return;
    }
  chooser = gtk_file_chooser_native_new (_("Export Graph"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (export_formats); i++)
    {
      GtkFileFilter *filter = gtk_file_filter_new ();
      g_autofree char *pattern = g_strconcat ("*.", export_formats[i].extension, NULL);

      gtk_file_filter_set_name (filter, _(export_formats[i].name));
      gtk_file_filter_add_pattern (filter, pattern);
      g_object_set_data (G_OBJECT (filter), "ct-ext", (gpointer) export_formats[i].extension);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
      g_object_unref (filter);
    }
  /* Beside the net, named after it: lenet.prototxt gives lenet.svg. */
  if (net_file != NULL)
    {
      g_autoptr (GFile) folder = g_file_get_parent (net_file);
      g_autofree char *file_name = g_file_get_basename (net_file);
      char *dot = strrchr (file_name, '.');

      if (dot != NULL && dot != file_name)
        *dot = '\0';
      base = g_strdup (file_name);
      if (folder != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  else
    {
      const Caffe__NetParameter *net = ct_document_get_net (self->document);
      base = g_strdup (net != NULL && net->name && *net->name ? net->name : "net");
      g_strdelimit (base, " /\\:", '_');
    }
  name = g_strconcat (base, ".svg", NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  g_signal_connect (chooser, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
solver_open_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  ct_solver_panel_open (self->solver_panel);
}

static void
solver_save_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  ct_solver_panel_save (self->solver_panel, ct_document_get_file (self->document));
}

static void
solver_save_as_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  ct_solver_panel_save_as (self->solver_panel, ct_document_get_file (self->document));
}

/* Every win.* action: its entry and its keys (all shown in the shortcuts
 * window, gtk/help-overlay.ui), and where the keys work. Handlers of the run, the inputs and the
 * training live beside what they drive (window-private.h lists them). */
typedef enum {
  KEYS_APP,                    /* accelerators, wherever the focus is */
  KEYS_GRAPH,                  /* on the graph only: text widgets want them too */
  KEYS_BUBBLE,                 /* on the window after any entry had its chance */
} KeyScope;

typedef struct {
  GActionEntry entry;
  const char *accels[3];
  KeyScope scope;
  gboolean gtk_owns;           /* GTK adds the action: only the keys are ours */
} CtWindowAction;

static const CtWindowAction win_actions[] = {
  { { .name = "open", .activate = open_activated }, { "<Control>o" } },
  { { .name = "open-recent", .activate = open_recent_activated, .parameter_type = "s" } },
  { { .name = "new-example", .activate = new_example_activated, .parameter_type = "s" } },
  { { .name = "open-lesson", .activate = ct_window_open_lesson_activated, .parameter_type = "s" } },
  { { .name = "session-save-as", .activate = ct_window_session_save_as_activated } },
  { { .name = "lesson-next", .activate = ct_window_lesson_next_activated }, { "<Alt>Right" } },
  { { .name = "lesson-back", .activate = ct_window_lesson_back_activated }, { "<Alt>Left" } },
  { { .name = "save", .activate = save_activated }, { "<Control>s" } },
  { { .name = "save-as", .activate = save_as_activated }, { "<Control><Shift>s" } },
  { { .name = "close", .activate = close_activated }, { "<Control>w" } },
  { { .name = "restore-draft", .activate = restore_draft_activated } },
  { { .name = "undo", .activate = undo_activated }, { "<Control>z" }, KEYS_BUBBLE },
  { { .name = "redo", .activate = redo_activated },
    { "<Control><Shift>z", "<Control>y" }, KEYS_BUBBLE },
  { { .name = "delete", .activate = delete_activated } },
  { { .name = "duplicate", .activate = duplicate_activated }, { "<Control>d" }, KEYS_GRAPH },
  { { .name = "copy", .activate = copy_activated }, { "<Control>c" }, KEYS_GRAPH },
  { { .name = "cut", .activate = cut_activated }, { "<Control>x" }, KEYS_GRAPH },
  { { .name = "paste", .activate = paste_activated }, { "<Control>v" }, KEYS_GRAPH },
  { { .name = "select-all", .activate = select_all_activated }, { "<Control>a" }, KEYS_GRAPH },
  { { .name = "rename", .activate = rename_activated }, { "F2" }, KEYS_GRAPH },
  { { .name = "add-layer", .activate = add_layer_activated }, { "<Control>k" } },
  { { .name = "find", .activate = find_activated }, { "<Control>f" } },
  { { .name = "zoom-in", .activate = zoom_in_activated }, { "<Control>plus", "<Control>equal" } },
  { { .name = "zoom-out", .activate = zoom_out_activated }, { "<Control>minus" } },
  { { .name = "zoom-fit", .activate = zoom_fit_activated }, { "<Control>0" } },
  { { .name = "relayout", .activate = relayout_activated } },
  { { .name = "left-to-right", .state = "false", .change_state = left_to_right_changed } },
  { { .name = "toggle-source", .activate = toggle_source_activated }, { "<Control>u" } },
  { { .name = "show-palette", .state = "true", .change_state = ct_window_show_palette_changed },
    { "F9" } },
  { { .name = "presentation", .state = "false", .change_state = ct_window_presentation_changed },
    { "F12" } },
  { { .name = "show-in-source", .activate = show_in_source_activated } },
  { { .name = "show-problem", .activate = show_problem_activated } },
  { { .name = "phase", .parameter_type = "s", .state = "'both'", .change_state = phase_changed } },
  { { .name = "export-graph", .activate = export_graph_activated }, { "<Control>e" } },
  { { .name = "solver-open", .activate = solver_open_activated } },
  { { .name = "solver-save", .activate = solver_save_activated } },
  { { .name = "solver-save-as", .activate = solver_save_as_activated } },
  { { .name = "nothing" } },
  { { .name = "run-forward", .activate = ct_window_run_forward_activated }, { "F7" } },
  { { .name = "run-backward", .activate = ct_window_run_backward_activated }, { "<Shift>F7" } },
  { { .name = "run-pass", .activate = ct_window_run_pass_activated }, { "F5" } },
  { { .name = "run-reset", .activate = ct_window_run_reset_activated }, { "<Shift>F5" } },
  { { .name = "run-stop", .activate = ct_window_run_stop_activated } },
  { { .name = "open-weights", .activate = ct_window_open_weights_activated } },
  { { .name = "use-fillers", .activate = ct_window_use_fillers_activated } },
  { { .name = "analyze", .activate = ct_window_analyze_activated } },
  { { .name = "compare-weights", .activate = ct_window_compare_weights_activated } },
  { { .name = "compare-saved", .activate = ct_window_compare_saved_activated } },
  { { .name = "compare-file", .activate = ct_window_compare_file_activated } },
  { { .name = "compare-revision", .activate = ct_window_compare_revision_activated } },
  { { .name = "open-input-image", .activate = ct_window_open_image_activated } },
  { { .name = "open-input-folder", .activate = ct_window_open_folder_activated } },
  { { .name = "browse-fashion-mnist", .activate = ct_window_browse_activated } },
  { { .name = "use-input-fill", .activate = ct_window_use_fill_activated } },
  { { .name = "draw-input", .activate = ct_window_draw_input_activated }, { "<Control><Shift>d" } },
  { { .name = "export-view", .activate = ct_window_export_view_activated }, { "<Control><Shift>e" } },
  { { .name = "train-toggle", .activate = ct_window_train_toggle_activated }, { "F4" } },
  { { .name = "train-stop", .activate = ct_window_train_stop_activated }, { "<Shift>F4" } },
  { { .name = "train-snapshot", .activate = ct_window_train_snapshot_activated },
    { "<Control><Shift>p" } },
  { { .name = "train-restart", .activate = ct_window_train_restart_activated } },
  { { .name = "train-export", .activate = ct_window_train_export_activated } },
  { { .name = "train-resume-from", .activate = ct_window_train_resume_from_activated } },
  { { .name = "train-follow-log", .activate = ct_window_train_follow_log_activated } },
  { { .name = "train-break-here", .activate = ct_window_train_break_here_activated,
      .state = "false" } },
  { { .name = "plot-export", .activate = ct_window_plot_export_activated, .parameter_type = "s" } },
  { { .name = "plot-log-scale", .activate = ct_window_plot_log_activated, .state = "false" } },
  /* GtkApplicationWindow's own, from gtk/help-overlay.ui: only its keys here */
  { { .name = "show-help-overlay" }, { "<Control>question" }, .gtk_owns = TRUE },
};

static void
set_enabled (CtWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
ct_window_update_actions (CtWindow *self)
{
  gboolean parses = ct_document_get_parse_error (self->document) == NULL
                    && ct_document_get_net (self->document) != NULL;
  const char *const *selected = ct_selection_get_ids (self->selection);
  gboolean any = selected[0] != NULL;

  set_enabled (self, "undo", ct_document_can_undo (self->document));
  set_enabled (self, "redo", ct_document_can_redo (self->document));
  set_enabled (self, "delete", parses && any);
  set_enabled (self, "duplicate", parses && any);
  set_enabled (self, "cut", parses && any);
  set_enabled (self, "copy", any);
  set_enabled (self, "rename", parses && any && selected[1] == NULL);
  set_enabled (self, "paste", parses);
  set_enabled (self, "restore-draft", ct_document_has_draft (self->document));
  set_enabled (self, "nothing", FALSE);
  ct_window_run_update_actions (self);
}

/* The keys a text widget would also want: on the graph only, or on the
 * window in the bubble phase (undo and redo reach it after any entry). */
static void
add_scoped_shortcuts (CtWindow *self)
{
  GtkEventController *graph = gtk_shortcut_controller_new ();
  GtkEventController *bubble = gtk_shortcut_controller_new ();

  gtk_event_controller_set_propagation_phase (bubble, GTK_PHASE_BUBBLE);
  for (gsize i = 0; i < G_N_ELEMENTS (win_actions); i++)
    {
      const CtWindowAction *a = &win_actions[i];
      g_autofree char *name = g_strconcat ("win.", a->entry.name, NULL);

      if (a->scope == KEYS_APP)
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (a->accels) && a->accels[k] != NULL; k++)
        gtk_shortcut_controller_add_shortcut (
          GTK_SHORTCUT_CONTROLLER (a->scope == KEYS_GRAPH ? graph : bubble),
          gtk_shortcut_new (gtk_shortcut_trigger_parse_string (a->accels[k]),
                            gtk_named_action_new (name)));
    }
  gtk_widget_add_controller (GTK_WIDGET (self->graph_view), graph);
  gtk_widget_add_controller (GTK_WIDGET (self), bubble);
}

static void
selection_changed (CtSelection *selection, guint flags, CtWindow *self)
{
  ct_window_update_actions (self);
}

void
ct_window_init_actions (CtWindow *self)
{
  for (gsize i = 0; i < G_N_ELEMENTS (win_actions); i++)
    if (!win_actions[i].gtk_owns)
      g_action_map_add_action_entries (G_ACTION_MAP (self), &win_actions[i].entry, 1, self);
  add_scoped_shortcuts (self);
  ct_window_lesson_update_actions (self);
  g_signal_connect (self->find_entry, "search-changed", G_CALLBACK (find_changed), self);
  g_signal_connect (self->find_entry, "next-match", G_CALLBACK (find_next_match), self);
  g_signal_connect (self->find_entry, "activate", G_CALLBACK (find_next_match), self);
  g_signal_connect (self->find_entry, "stop-search", G_CALLBACK (find_stop), self);
  gtk_search_bar_connect_entry (self->find_bar, GTK_EDITABLE (self->find_entry));
  g_signal_connect (self->selection, "changed", G_CALLBACK (selection_changed), self);
}

void
ct_window_set_accels (GtkApplication *app)
{
  for (gsize i = 0; i < G_N_ELEMENTS (win_actions); i++)
    if (win_actions[i].scope == KEYS_APP && win_actions[i].accels[0] != NULL)
      {
        g_autofree char *name = g_strconcat ("win.", win_actions[i].entry.name, NULL);

        gtk_application_set_accels_for_action (app, name, win_actions[i].accels);
      }
}
