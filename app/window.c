/* window.c: CtWindow's frame: the template, the document it shows, the
 * title, files in and out (open, save, recent files, dropped files,
 * examples, drafts), toasts, and the unsaved-changes question on close.
 * The graph, source view and inspector each have their own file. */
#include <string.h>
#include <glib/gstdio.h>
#include <glib/gi18n-lib.h>

#include "install-dirs.h"
#include "present-view.h"
#include "window-lesson.h"
#include "window-session.h"
#include "window-private.h"

#define EXAMPLES_PATH "/io/github/cortado/Cortado/examples/"
#define MAX_RECENT 8
#define EMPTY_NET "name: \"Untitled\"\n"

G_DEFINE_FINAL_TYPE (CtWindow, ct_window, ADW_TYPE_APPLICATION_WINDOW)

/* Title. */

static char *
folder_for_display (GFile *file)
{
  g_autoptr (GFile) parent = g_file_get_parent (file);
  g_autofree char *path = parent != NULL ? g_file_get_path (parent) : NULL;
  const char *home = g_get_home_dir ();

  if (path == NULL)
    return parent != NULL ? g_file_get_parse_name (parent) : g_strdup ("");
  if (home != NULL && g_str_has_prefix (path, home)
      && (path[strlen (home)] == '/' || path[strlen (home)] == '\0'))
    return g_strconcat ("~", path + strlen (home), NULL);
  return g_steal_pointer (&path);
}

void
ct_window_update_title (CtWindow *self)
{
  CtDocument *doc = self->document;
  const char *title = ct_document_get_title (doc);
  g_autofree char *shown = ct_document_get_modified (doc) ? g_strconcat ("• ", title, NULL)
                                                          : g_strdup (title);
  g_autofree char *subtitle = NULL;
  g_autofree char *window_title = NULL;

  if (ct_document_get_file (doc) != NULL)
    subtitle = folder_for_display (ct_document_get_file (doc));
  else
    subtitle = g_strdup (_("Not saved yet"));
  adw_window_title_set_title (self->window_title, shown);
  adw_window_title_set_subtitle (self->window_title, subtitle);
  /* TRANSLATORS: the window's title: the net's file name, then the app */
  window_title = g_strdup_printf (_("%s — Cortado"), title);
  gtk_window_set_title (GTK_WINDOW (self), window_title);
}

/* Status line. */

static void
update_status (CtWindow *self)
{
  const GError *parse_error = ct_document_get_parse_error (self->document);
  const char *summary = ct_document_get_summary (self->document);
  const CtNetShapes *shapes = ct_document_get_shapes (self->document);
  g_autofree char *problem = NULL;
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  gboolean bad = FALSE;

  if (parse_error != NULL)
    problem = g_strdup (parse_error->message);
  else if (shapes != NULL && shapes->error != NULL)
    problem = g_strdup (shapes->error->message);
  else if (net != NULL)
    for (guint i = 0; i < net->n_layer && problem == NULL; i++)
      {
        const GError *error = ct_document_get_layer_error (self->document, i);
        if (error != NULL)
          problem = g_strdup (error->message);
      }
  bad = problem != NULL;
  gtk_label_set_text (self->summary_label, *summary != '\0' ? summary
                                            : net != NULL ? _("Checking the net…") : "");
  gtk_image_set_from_icon_name (self->status_icon,
                                bad ? "dialog-warning-symbolic" : "emblem-ok-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_icon),
                               bad ? _("The net has problems") : _("The net is valid"));
  if (bad)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "success");
    }
  else
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), "success");
      gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "error");
    }
  gtk_label_set_text (self->problem_label, problem != NULL ? problem : "");
  gtk_widget_set_tooltip_text (self->problem_button, problem);
  gtk_widget_set_visible (self->problem_button, bad);
  gtk_spinner_set_spinning (self->check_spinner, ct_document_get_validating (self->document));
  gtk_widget_set_visible (GTK_WIDGET (self->check_spinner),
                          ct_document_get_validating (self->document));
}

/* Document signals. */

static void
document_changed (CtDocument *doc, guint flags, CtWindow *self)
{
  ct_window_source_document_changed (self, flags);
  ct_window_graph_document_changed (self, flags);
  ct_window_run_document_changed (self, flags);
  ct_window_train_document_changed (self, flags);
  ct_window_refresh_inspector (self);
  ct_window_update_actions (self);
  update_status (self);
  if ((flags & CT_DOCUMENT_CHANGE_LOAD) == 0)
    ct_window_update_title (self);
}

static void
document_validated (CtDocument *doc, CtWindow *self)
{
  ct_window_graph_document_validated (self);
  ct_window_source_document_validated (self);
  ct_window_refresh_inspector (self);
  update_status (self);
}

static void
document_notify (CtDocument *doc, GParamSpec *pspec, CtWindow *self)
{
  ct_window_update_title (self);
  ct_window_update_actions (self);
  update_status (self);
}

static void
set_document (CtWindow *self, CtDocument *doc)
{
  if (self->document != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->document, self);
      g_object_unref (self->document);
    }
  self->document = doc;
  if (self->blob_panel != NULL)
    ct_blob_panel_set_document (self->blob_panel, doc);
  g_signal_connect (doc, "changed", G_CALLBACK (document_changed), self);
  g_signal_connect (doc, "validated", G_CALLBACK (document_validated), self);
  g_signal_connect (doc, "notify", G_CALLBACK (document_notify), self);
}

/* Recent files. */

static gboolean
is_net_file (const char *uri)
{
  return g_str_has_suffix (uri, ".prototxt") || g_str_has_suffix (uri, ".pbtxt");
}

void
ct_window_update_recent_menu (CtWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  GMenu *menu = G_MENU (self->recent_menu);
  g_autoptr (GMenu) section = g_menu_new ();
  g_autoptr (GPtrArray) nets = g_ptr_array_new ();
  guint shown = 0;

  for (GList *l = items; l != NULL; l = l->next)
    if (is_net_file (gtk_recent_info_get_uri (l->data)) && gtk_recent_info_exists (l->data))
      g_ptr_array_add (nets, l->data);
  /* Most recently used first. */
  for (guint pass = 0; pass < nets->len && shown < MAX_RECENT; pass++)
    {
      GtkRecentInfo *best = NULL;
      for (guint i = 0; i < nets->len; i++)
        {
          GtkRecentInfo *info = nets->pdata[i];
          if (info != NULL
              && (best == NULL
                  || g_date_time_compare (gtk_recent_info_get_modified (info),
                                          gtk_recent_info_get_modified (best)) > 0))
            best = info;
        }
      if (best == NULL)
        break;
      for (guint i = 0; i < nets->len; i++)
        if (nets->pdata[i] == best)
          nets->pdata[i] = NULL;
      {
        /* Menu labels take "_" as a mnemonic mark: "lenet_train_test"
         * must not lose its underscores. */
        g_auto (GStrv) parts = g_strsplit (gtk_recent_info_get_display_name (best), "_", -1);
        g_autofree char *label = g_strjoinv ("__", parts);
        g_autoptr (GMenuItem) item = g_menu_item_new (label, NULL);
        g_menu_item_set_action_and_target (item, "win.open-recent", "s",
                                           gtk_recent_info_get_uri (best));
        g_menu_append_item (section, item);
        shown++;
      }
    }
  if (shown == 0)
    {
      g_autoptr (GMenuItem) item = g_menu_item_new (_("No Recent Nets"), "win.nothing");
      g_menu_append_item (section, item);
    }
  g_menu_remove_all (menu);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  /* the examples and lessons beside the recent nets: Open is where a
   * newcomer looks for something to open (the New button's menu has them
   * too, after its Empty Net) */
  for (int i = 1; i < g_menu_model_get_n_items (self->examples_menu); i++)
    {
      g_autoptr (GMenuModel) group = g_menu_model_get_item_link (self->examples_menu, i,
                                                                 G_MENU_LINK_SECTION);
      g_autofree char *label = NULL;

      g_menu_model_get_item_attribute (self->examples_menu, i, G_MENU_ATTRIBUTE_LABEL, "s",
                                       &label);
      if (group != NULL)
        g_menu_append_section (menu, label, group);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

static void
remember_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);

  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
}

/* Loading. */

GFile *
ct_window_get_file (CtWindow *self)
{
  g_return_val_if_fail (CT_IS_WINDOW (self), NULL);
  return ct_document_get_file (self->document);
}

CtDocument *
ct_window_get_document (CtWindow *self)
{
  g_return_val_if_fail (CT_IS_WINDOW (self), NULL);
  return self->document;
}

gboolean
ct_window_is_blank (CtWindow *self)
{
  const Caffe__NetParameter *net;

  g_return_val_if_fail (CT_IS_WINDOW (self), FALSE);
  net = ct_document_get_net (self->document);
  return ct_document_get_file (self->document) == NULL
         && !ct_document_get_modified (self->document)
         && !ct_document_can_undo (self->document) && (net == NULL || net->n_layer == 0);
}

static void
after_load (CtWindow *self)
{
  GPtrArray *notes = ct_document_get_notes (self->document);
  const GError *parse_error = ct_document_get_parse_error (self->document);

  ct_window_update_title (self);
  ct_window_update_actions (self);
  if (notes->len > 0)
    {
      g_autofree char *message =
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                      "Upgraded from an older Caffe format (%u change); "
                                      "saving writes the current one",
                                      "Upgraded from an older Caffe format (%u changes); "
                                      "saving writes the current one",
                                      notes->len),
                         notes->len);
      ct_window_show_toast (self, message);
    }
  if (parse_error != NULL)
    {
      /* The text is there to be fixed: show it. */
      adw_view_stack_set_visible_child_name (self->view_stack, "source");
      ct_window_show_error (self, parse_error->message);
    }
  if (ct_document_has_draft (self->document))
    {
      AdwToast *toast = adw_toast_new (_("Unsaved changes from an earlier session were found"));
      adw_toast_set_button_label (toast, _("_Restore"));
      adw_toast_set_action_name (toast, "win.restore-draft");
      adw_toast_set_timeout (toast, 0);
      ct_window_add_toast (self, toast);
    }
}

static gboolean
load_net (CtWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;

  if (!ct_document_load (self->document, file, &error))
    {
      ct_window_show_error (self, error->message);
      return FALSE;
    }
  /* another net: a solver of the last one would not fit it, but one
   * beside it that names it does */
  ct_solver_panel_set_example (self->solver_panel, NULL, NULL);
  {
    g_autoptr (GFile) solver = ct_solver_panel_find_beside (file);
    g_autoptr (GError) solver_error = NULL;

    if (solver != NULL && !ct_solver_panel_load (self->solver_panel, solver, &solver_error))
      g_debug ("%s", solver_error->message);
  }
  remember_recent (file);
  after_load (self);
  return TRUE;
}

/* A solver that holds its net (Caffe's `net_param`): the net opens as an
 * untitled document whose data paths start in the solver's folder, and
 * the solver comes with it to the Training view. */
static gboolean
load_inline_net (CtWindow *self, GFile *solver, const char *text)
{
  g_autoptr (GFile) folder = g_file_get_parent (solver);
  g_autofree char *name = g_file_get_basename (solver);
  /* TRANSLATORS: the title of a net held inside a solver file; %s is the file's name */
  g_autofree char *title = g_strdup_printf (_("Net of %s"), name);
  g_autoptr (GError) error = NULL;

  ct_document_set_base_dir (self->document, folder != NULL ? g_file_peek_path (folder) : NULL);
  /* the weights of the net shown before do not go with this one */
  if (self->weights != NULL)
    {
      g_clear_object (&self->weights);
      ct_window_run_weights_changed (self);
    }
  ct_document_load_text (self->document, text, title);
  ct_solver_panel_set_example (self->solver_panel, NULL, NULL);
  if (!ct_solver_panel_load (self->solver_panel, solver, &error))
    {
      ct_window_report_error (self, _("Could not open the solver"), error);
      return FALSE;
    }
  remember_recent (solver);
  after_load (self);
  adw_view_stack_set_visible_child_name (self->view_stack, "training");
  return TRUE;
}

gboolean
ct_window_load_file (CtWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) net_file = NULL;

  g_return_val_if_fail (CT_IS_WINDOW (self), FALSE);
  if (ct_lesson_is_lesson_path (g_file_peek_path (file)))
    return ct_window_lesson_open (self, file);
  if (ct_session_is_session_path (g_file_peek_path (file)))
    return ct_window_session_open (self, file);
  /* a solver opens its net, and comes with it to the Training view */
  net_file = ct_solver_panel_net_file (file);
  if (net_file == NULL)
    {
      g_autofree char *inline_net = ct_solver_panel_inline_net (file);

      return inline_net != NULL ? load_inline_net (self, file, inline_net)
                                : load_net (self, file);
    }
  if (g_file_equal (net_file, file))
    {
      ct_window_show_error (self, _("The solver names itself as its net"));
      return FALSE;
    }
  if (!load_net (self, net_file))
    return FALSE;
  if (!ct_solver_panel_load (self->solver_panel, file, &error))
    {
      ct_window_report_error (self, _("Could not open the solver"), error);
      return FALSE;
    }
  adw_view_stack_set_visible_child_name (self->view_stack, "training");
  return TRUE;
}

static const struct {
  const char *id;
  const char *title;
} examples[] = {
  { "empty", N_("Untitled Net") },
  { "logistic-regression", N_("Logistic Regression") },
  { "mlp", N_("Multilayer Perceptron") },
  { "lenet-fashion", N_("LeNet for Fashion-MNIST") },
  { "cifar10-quick", N_("CIFAR-10 Quick") },
  { "resnet-block", N_("Residual Block") },
  { "deep-sigmoid", N_("Deep Net with Sigmoids") },
  { "deep-relu", N_("Deep Net with ReLU") },
};

gboolean
ct_window_load_example (CtWindow *self, const char *example)
{
  g_autofree char *path = g_strconcat (EXAMPLES_PATH, example, ".prototxt", NULL);
  g_autoptr (GBytes) bytes = NULL;
  const char *title = NULL;

  g_return_val_if_fail (CT_IS_WINDOW (self), FALSE);
  for (gsize i = 0; i < G_N_ELEMENTS (examples); i++)
    if (g_str_equal (examples[i].id, example))
      title = _(examples[i].title);
  if (g_str_equal (example, "empty"))
    bytes = g_bytes_new_static (EMPTY_NET, strlen (EMPTY_NET));
  else
    bytes = g_resources_lookup_data (path, 0, NULL);
  if (title == NULL || bytes == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("There is no example called “%s”"), example);
      ct_window_show_error (self, message);
      return FALSE;
    }
  {
    g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
    g_autofree char *data = ct_install_dup_data_dir ();
    g_autofree char *folder = g_build_filename (data, "examples", example, NULL);

    /* Where the example's databases are made (see the README): the
     * installed examples, or the checkout's when run from the build. */
    g_autofree char *solver_path = g_strconcat (EXAMPLES_PATH, example, "-solver.prototxt", NULL);
    g_autoptr (GBytes) solver = g_resources_lookup_data (solver_path, 0, NULL);

    ct_document_set_base_dir (self->document,
                              g_file_test (folder, G_FILE_TEST_IS_DIR) ? folder : NULL);
    /* the weights of the net shown before do not go with the example */
    if (self->weights != NULL)
      {
        g_clear_object (&self->weights);
        ct_window_run_weights_changed (self);
      }
    ct_document_load_text (self->document, text, title);
    /* an example that trains comes with its solver */
    ct_solver_panel_set_example (self->solver_panel, solver != NULL ? g_bytes_get_data (solver, NULL) : NULL,
                                  g_file_test (folder, G_FILE_TEST_IS_DIR) ? folder : NULL);
  }
  after_load (self);
  return TRUE;
}

void
ct_window_set_weights (CtWindow *self, GFile *file)
{
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;

  g_return_if_fail (CT_IS_WINDOW (self));
  name = g_file_get_basename (file);
  if (!g_file_query_exists (file, NULL))
    {
      message = g_strdup_printf (_("The weights file “%s” does not exist"), name);
      ct_window_show_error (self, message);
      return;
    }
  g_set_object (&self->weights, file);
  ct_window_run_weights_changed (self);
  message = g_strdup_printf (_("Weights from “%s” go with this net"), name);
  ct_window_show_toast (self, message);
}

GFile *
ct_window_get_weights (CtWindow *self)
{
  g_return_val_if_fail (CT_IS_WINDOW (self), NULL);
  return self->weights;
}

/* Drafts from a crash. */

static void
restore_drafts (CtWindow *self, GPtrArray *drafts)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  guint restored = 0;

  for (guint i = 0; i < drafts->len; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtDocument) doc = ct_document_new_from_draft (drafts->pdata[i], &error);
      CtWindow *window;

      if (doc == NULL)
        {
          g_debug ("cannot restore draft %s: %s", (char *) drafts->pdata[i], error->message);
          continue;
        }
      window = ct_window_is_blank (self) && restored == 0
                 ? self : ct_window_new (CT_APPLICATION (app));
      set_document (window, g_steal_pointer (&doc));
      document_changed (window->document, CT_DOCUMENT_CHANGE_TEXT | CT_DOCUMENT_CHANGE_NET
                                            | CT_DOCUMENT_CHANGE_LOAD, window);
      ct_window_update_title (window);
      gtk_window_present (GTK_WINDOW (window));
      restored++;
    }
}

static void
drafts_response (AdwMessageDialog *dialog, const char *response, CtWindow *self)
{
  GPtrArray *drafts = g_object_get_data (G_OBJECT (dialog), "ct-drafts");

  if (g_str_equal (response, "restore"))
    restore_drafts (self, drafts);
  else if (g_str_equal (response, "discard"))
    for (guint i = 0; i < drafts->len; i++)
      {
        const char *key = drafts->pdata[i];
        g_autofree char *base = g_strndup (key, strlen (key) - strlen (".draft"));
        g_autofree char *text = g_strconcat (base, ".prototxt", NULL);
        g_unlink (key);
        g_unlink (text);
      }
}

void
ct_window_offer_drafts (CtWindow *self, GPtrArray *drafts)
{
  GtkWidget *dialog;
  g_autofree char *body = NULL;

  g_return_if_fail (CT_IS_WINDOW (self));
  body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "Cortado closed before %u net was saved. Its last "
                                       "changes were kept as a draft.",
                                       "Cortado closed before %u nets were saved. Their last "
                                       "changes were kept as drafts.",
                                       drafts->len),
                          drafts->len);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Restore Unsaved Changes?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "discard", _("_Discard"),
                                    "later", _("_Not Now"), "restore", _("_Restore"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "restore",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "restore");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "later");
  g_object_set_data_full (G_OBJECT (dialog), "ct-drafts", g_ptr_array_ref (drafts),
                          (GDestroyNotify) g_ptr_array_unref);
  g_signal_connect (dialog, "response", G_CALLBACK (drafts_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Saving. */

static gboolean
save_to (CtWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *message = NULL;

  ct_window_source_flush (self);
  ct_window_store_layout (self);
  if (!ct_document_save (self->document, file, &error))
    {
      ct_window_report_error (self, _("Could not save the net"), error);
      return FALSE;
    }
  remember_recent (ct_document_get_file (self->document));
  if (ct_document_get_parse_error (self->document) != NULL)
    message = g_strdup_printf (_("Saved “%s”, with the errors it has"),
                               ct_document_get_title (self->document));
  else
    message = g_strdup_printf (_("Saved “%s”"), ct_document_get_title (self->document));
  ct_window_show_toast (self, message);
  return TRUE;
}

static void
save_chooser_response (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  gboolean close_after = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (chooser), "ct-close"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (save_to (self, file) && close_after)
        {
          self->close_confirmed = TRUE;
          gtk_window_close (GTK_WINDOW (self));
        }
    }
  g_object_unref (chooser);
}

static GtkFileFilter *
net_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Nets (prototxt)"));
  gtk_file_filter_add_pattern (filter, "*.prototxt");
  gtk_file_filter_add_pattern (filter, "*.pbtxt");
  return filter;
}

void
ct_window_save_async (CtWindow *self, gboolean save_as, gboolean close_after)
{
  GFile *file = ct_document_get_file (self->document);
  GtkFileChooserNative *chooser;
  g_autofree char *name = NULL;

  if (!save_as && file != NULL)
    {
      if (save_to (self, file) && close_after)
        {
          self->close_confirmed = TRUE;
          gtk_window_close (GTK_WINDOW (self));
        }
      return;
    }
  chooser = gtk_file_chooser_native_new (_("Save Net"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), net_filter ());
  if (file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), file, NULL);
  else
    {
      const Caffe__NetParameter *net = ct_document_get_net (self->document);
      const char *base = net != NULL && net->name != NULL && *net->name ? net->name : "net";
      g_autofree char *lower = g_ascii_strdown (base, -1);

      g_strdelimit (lower, " /\\:", '_');
      name = g_strconcat (lower, ".prototxt", NULL);
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
    }
  g_object_set_data (G_OBJECT (chooser), "ct-close", GINT_TO_POINTER (close_after));
  g_signal_connect (chooser, "response", G_CALLBACK (save_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* Closing. */

gboolean
ct_window_has_unsaved_changes (CtWindow *self)
{
  g_return_val_if_fail (CT_IS_WINDOW (self), FALSE);
  ct_window_source_flush (self);
  return ct_document_get_modified (self->document);
}

void
ct_window_save_and_close (CtWindow *self)
{
  g_return_if_fail (CT_IS_WINDOW (self));
  ct_window_save_async (self, FALSE, TRUE);
}

void
ct_window_discard_and_close (CtWindow *self)
{
  g_return_if_fail (CT_IS_WINDOW (self));
  ct_document_discard_draft (self->document);
  self->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static void
close_response (AdwMessageDialog *dialog, const char *response, CtWindow *self)
{
  if (g_str_equal (response, "save"))
    ct_window_save_and_close (self);
  else if (g_str_equal (response, "discard"))
    ct_window_discard_and_close (self);
}

static gboolean
ct_window_close_request (GtkWindow *window)
{
  CtWindow *self = CT_WINDOW (window);
  GtkWidget *dialog;
  g_autofree char *body = NULL;

  ct_window_source_flush (self);
  if (!self->close_confirmed && ct_document_get_modified (self->document))
    {
      body = g_strdup_printf (_("“%s” has changes that are not saved. They are lost if you "
                                "close without saving."),
                              ct_document_get_title (self->document));
      dialog = adw_message_dialog_new (window, _("Save Changes?"), body);
      adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                        "discard", _("_Discard"), "save", _("_Save"), NULL);
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                                  ADW_RESPONSE_DESTRUCTIVE);
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                                  ADW_RESPONSE_SUGGESTED);
      adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
      adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
      g_signal_connect (dialog, "response", G_CALLBACK (close_response), self);
      gtk_window_present (GTK_WINDOW (dialog));
      return TRUE;
    }
  /* Layout is not content: keep it without asking. */
  ct_window_store_layout (self);
  ct_document_save_sidecar (self->document, NULL);
  return GTK_WINDOW_CLASS (ct_window_parent_class)->close_request (window);
}

/* Files dropped on the window. */

static gboolean
files_dropped (GtkDropTarget *target, const GValue *value, double x, double y, CtWindow *self)
{
  GSList *files = g_value_get_boxed (value);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (files == NULL)
    return FALSE;
  if (ct_window_is_blank (self) && files->next == NULL)
    return ct_window_load_file (self, files->data);
  /* weights dropped on a net: they go with this window's net */
  if (files->next == NULL && g_str_has_suffix (g_file_peek_path (files->data) != NULL
                                                 ? g_file_peek_path (files->data) : "",
                                               ".caffemodel"))
    {
      ct_window_set_weights (self, files->data);
      return TRUE;
    }
  /* an image or a folder dropped on a net: the run's input */
  if (files->next == NULL && ct_window_inputs_is_image (files->data))
    {
      ct_window_inputs_set_path (self, files->data);
      return TRUE;
    }
  {
    guint n = g_slist_length (files);
    g_autofree GFile **array = g_new (GFile *, n);
    guint i = 0;

    for (GSList *l = files; l != NULL; l = l->next)
      array[i++] = l->data;
    g_application_open (G_APPLICATION (app), array, (int) n, "");
  }
  return TRUE;
}

/* Accessible names for the parts GTK builds inside our controls: a split
 * button's arrow, a drop-down's button and the find bar's close button take
 * the focus on their own, and a screen reader would call them by their
 * class name (or "GtkImage"). */
static void
name_inner_controls (CtWindow *self, GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_SPLIT_BUTTON (widget) && GTK_IS_MENU_BUTTON (child))
        gtk_accessible_update_property (
          GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
          adw_split_button_get_dropdown_tooltip (ADW_SPLIT_BUTTON (widget)), -1);
      if (widget == GTK_WIDGET (self->phase_dropdown) && GTK_IS_TOGGLE_BUTTON (child))
        gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        _("Phase Shown"), -1);
      /* the find bar's close button shows an icon only */
      if (GTK_IS_BUTTON (child) && GTK_IS_CENTER_BOX (widget)
          && gtk_widget_get_ancestor (child, GTK_TYPE_SEARCH_BAR) == GTK_WIDGET (self->find_bar))
        gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        _("Close the Find Bar"), -1);
      name_inner_controls (self, child);
    }
}

/* Life cycle. */

static void
ct_window_dispose (GObject *object)
{
  CtWindow *self = CT_WINDOW (object);

  ct_window_toasts_dispose (self);
  ct_window_graph_dispose (self);
  ct_window_source_dispose (self);
  ct_window_inspector_dispose (self);
  ct_window_train_dispose (self);
  ct_window_run_dispose (self);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  g_clear_object (&self->selection);
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  g_signal_handlers_disconnect_by_data (gtk_recent_manager_get_default (), self);
  g_clear_object (&self->document);
  g_clear_object (&self->weights);
  gtk_widget_dispose_template (GTK_WIDGET (self), CT_TYPE_WINDOW);
  G_OBJECT_CLASS (ct_window_parent_class)->dispose (object);
}

/* Template children that one file uses, found by their id in window.ui. */
static const char *const window_parts[] = {
  "train_controls", "train_toggle_button", "train_stats_label",
  "data_shape_box", "data_shape_entry", "palette_pane", "train_view",
  "present_paned", "present_view", "graph_overlay", "save_button", "switcher_squeezer",
  "switcher_none", "view_switcher_bar", "status_bar", "graph_controls",
};

GtkWidget *
ct_window_get_part (CtWindow *self, const char *id)
{
  GObject *part = gtk_widget_get_template_child (GTK_WIDGET (self), CT_TYPE_WINDOW, id);

  g_return_val_if_fail (GTK_IS_WIDGET (part), NULL);
  return GTK_WIDGET (part);
}

static void
ct_window_class_init (CtWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ct_window_dispose;
  window_class->close_request = ct_window_close_request;

  ct_application_ensure_resources ();
  g_type_ensure (CT_TYPE_BLOB_PANEL);
  g_type_ensure (CT_TYPE_RUN_CONTROLS);
  g_type_ensure (CT_TYPE_SOLVER_PANEL);
  g_type_ensure (CT_TYPE_TRAIN_VIEW);
  g_type_ensure (CT_TYPE_PRESENT_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/cortado/Cortado/window.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, CtWindow, name)
  BIND (toast_overlay);
  BIND (window_title);
  BIND (open_button);
  BIND (view_stack);
  BIND (palette);
  BIND (graph_view);
  BIND (empty_page);
  BIND (find_bar);
  BIND (find_entry);
  BIND (find_status);
  BIND (phase_dropdown);
  BIND (zoom_label);
  BIND (source_view);
  BIND (inspector_scroller);
  BIND (inspector_title);
  BIND (inspector_subtitle);
  BIND (inspector_description);
  BIND (inspector_shapes);
  BIND (inspector_error);
  BIND (property_form);
  BIND (blob_panel);
  BIND (solver_panel);
  BIND (status_icon);
  BIND (summary_label);
  BIND (check_spinner);
  BIND (problem_button);
  BIND (problem_label);
  BIND (run_controls);
  /* Parts other files look up by name (ct_window_get_part), not fields. */
  for (gsize i = 0; i < G_N_ELEMENTS (window_parts); i++)
    gtk_widget_class_bind_template_child_full (widget_class, window_parts[i], FALSE, 0);
  BIND (run_label);
  BIND (recent_menu);
  BIND (examples_menu);
  BIND (node_menu);
  BIND (canvas_menu);
#undef BIND
}

static void
ct_window_init (CtWindow *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->toast_ops = g_queue_new ();
  self->selection = ct_selection_new ();
  set_document (self, ct_document_new ());

  ct_window_init_actions (self);
  ct_window_init_layout (self);
  ct_window_init_present (self);
  ct_window_init_graph (self);
  ct_window_init_source (self);
  ct_window_init_inspector (self);
  ct_window_init_run (self);
  ct_window_init_train (self);
  name_inner_controls (self, GTK_WIDGET (self));

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (files_dropped), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect_swapped (gtk_recent_manager_get_default (), "changed",
                            G_CALLBACK (ct_window_update_recent_menu), self);
  ct_window_update_recent_menu (self);
  ct_document_load_text (self->document, EMPTY_NET, NULL);
  ct_window_update_title (self);
  update_status (self);
}

CtWindow *
ct_window_new (CtApplication *app)
{
  return g_object_new (CT_TYPE_WINDOW, "application", app, NULL);
}

GtkWidget *
ct_window_get_graph_view (CtWindow *self)
{
  return GTK_WIDGET (self->graph_view);
}

GtkWidget *
ct_window_get_palette (CtWindow *self)
{
  return GTK_WIDGET (self->palette);
}

GtkWidget *
ct_window_get_property_form (CtWindow *self)
{
  return GTK_WIDGET (self->property_form);
}

GtkWidget *
ct_window_get_source_view (CtWindow *self)
{
  return GTK_WIDGET (self->source_view);
}
