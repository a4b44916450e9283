/* application.c: CtApplication (see application.h). */
#include <glib/gi18n-lib.h>
#include <gtksourceview/gtksource.h>

#include "application.h"
#include "devices.h"
#include "cortado-resources.h"
#include "graph-view.h"
#include "palette.h"
#include "property-form.h"
#include "window.h"

struct _CtApplication {
  AdwApplication parent_instance;

  gboolean drafts_offered;
};

G_DEFINE_FINAL_TYPE (CtApplication, ct_application, ADW_TYPE_APPLICATION)

void
ct_application_ensure_resources (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      cortado_register_resource ();
      gtk_source_init ();
      /* Before any language is looked up: the list is read once. */
      gtk_source_language_manager_append_search_path (
        gtk_source_language_manager_get_default (),
        "resource:///io/github/cortado/Cortado/language-specs");
      g_type_ensure (GTK_SOURCE_TYPE_VIEW);
      g_type_ensure (GTK_SOURCE_TYPE_BUFFER);
      g_type_ensure (CT_TYPE_GRAPH_VIEW);
      g_type_ensure (CT_TYPE_PALETTE);
      g_type_ensure (CT_TYPE_PROPERTY_FORM);
      g_once_init_leave (&once, 1);
    }
}

/* The window showing FILE, if one does. */
static CtWindow *
find_window (CtApplication *self, GFile *file)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (CT_IS_WINDOW (l->data))
      {
        GFile *shown = ct_window_get_file (l->data);
        if (shown != NULL && g_file_equal (shown, file))
          return l->data;
      }
  return NULL;
}

/* The active window when it holds an untouched empty document (opening a
 * file there beats opening a second window), else a new one. */
static CtWindow *
window_for_new_document (CtApplication *self)
{
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (CT_IS_WINDOW (active) && ct_window_is_blank (CT_WINDOW (active)))
    return CT_WINDOW (active);
  return ct_window_new (self);
}

static gboolean
is_weights_file (GFile *file)
{
  g_autofree char *name = g_file_get_basename (file);

  return name != NULL && (g_str_has_suffix (name, ".caffemodel")
                          || g_str_has_suffix (name, ".caffemodel.h5"));
}

/* Drafts left by a session that ended without saving (a crash): offered
 * once, in the first window. */
static void
offer_drafts (CtApplication *self, CtWindow *window)
{
  g_autoptr (GPtrArray) drafts = NULL;

  if (self->drafts_offered)
    return;
  self->drafts_offered = TRUE;
  drafts = ct_document_list_drafts ();
  /* A file opened now offers its own draft in its window. */
  for (guint i = drafts->len; i > 0; i--)
    {
      g_autoptr (GKeyFile) key = g_key_file_new ();
      g_autofree char *uri = NULL;

      if (!g_key_file_load_from_file (key, drafts->pdata[i - 1], G_KEY_FILE_NONE, NULL))
        continue;
      uri = g_key_file_get_string (key, "Draft", "uri", NULL);
      if (uri != NULL)
        {
          g_autoptr (GFile) file = g_file_new_for_uri (uri);
          if (find_window (self, file) != NULL)
            g_ptr_array_remove_index (drafts, i - 1);
        }
    }
  if (drafts->len > 0)
    ct_window_offer_drafts (window, drafts);
}

static void
ct_application_activate (GApplication *app)
{
  CtApplication *self = CT_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (ct_window_new (self));
  gtk_window_present (window);
  offer_drafts (self, CT_WINDOW (window));
}

static void
ct_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  CtApplication *self = CT_APPLICATION (app);
  CtWindow *last = NULL;

  for (int i = 0; i < n_files; i++)
    {
      CtWindow *window;

      if (is_weights_file (files[i]))
        {
          /* `cortado net.prototxt weights.caffemodel`: the weights go with
           * the net before them. */
          if (last == NULL)
            {
              last = window_for_new_document (self);
              gtk_window_present (GTK_WINDOW (last));
              ct_window_show_error (last, _("Open a net's prototxt first, then its weights"));
              continue;
            }
          ct_window_set_weights (last, files[i]);
          continue;
        }
      window = find_window (self, files[i]);
      if (window == NULL)
        {
          window = window_for_new_document (self);
          ct_window_load_file (window, files[i]);
        }
      gtk_window_present (GTK_WINDOW (window));
      last = window;
    }
  if (last != NULL)
    offer_drafts (self, last);
}

static void
new_window_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  gtk_window_present (GTK_WINDOW (ct_window_new (CT_APPLICATION (data))));
}

/* Quitting: one question for every window with unsaved changes, listing
 * them with a check box each (ticked: save it), as GNOME apps ask. */

static void
close_all (CtApplication *self)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (self)));

  for (GList *l = windows; l != NULL; l = l->next)
    g_object_ref (l->data);
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
  g_list_free_full (windows, g_object_unref);
}

static void
quit_response (AdwMessageDialog *dialog, const char *response, CtApplication *self)
{
  GPtrArray *checks = g_object_get_data (G_OBJECT (dialog), "ct-checks");

  if (!g_str_equal (response, "save") && !g_str_equal (response, "discard"))
    return;
  for (guint i = 0; i < checks->len; i++)
    {
      CtWindow *window = g_object_get_data (checks->pdata[i], "ct-window");
      gboolean save = g_str_equal (response, "save")
                      && gtk_check_button_get_active (checks->pdata[i]);

      if (save)
        ct_window_save_and_close (window);
      else
        ct_window_discard_and_close (window);
    }
  /* The others have nothing to ask. */
  close_all (self);
}

static GtkWidget *
unsaved_row (CtWindow *window, GPtrArray *checks)
{
  CtDocument *doc = ct_window_get_document (window);
  GFile *file = ct_document_get_file (doc);
  g_autoptr (GFile) folder = file != NULL ? g_file_get_parent (file) : NULL;
  g_autofree char *where = folder != NULL ? g_file_get_parse_name (folder)
                                          : g_strdup (_("Not saved yet"));
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *check = gtk_check_button_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), ct_document_get_title (doc));
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), where);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  ct_document_get_title (doc), -1);
  g_object_set_data_full (G_OBJECT (check), "ct-window", g_object_ref (window), g_object_unref);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
  g_ptr_array_add (checks, check);
  return row;
}

static void
ask_before_quitting (CtApplication *self, GPtrArray *unsaved)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  GPtrArray *checks = g_ptr_array_new ();
  GtkWidget *list = gtk_list_box_new ();
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u open net has changes that are not saved. Save it "
                                       "before quitting, or its changes are lost.",
                                       "%u open nets have changes that are not saved. Choose "
                                       "the ones to save; the changes of the others are lost.",
                                       unsaved->len),
                          unsaved->len);
  if (parent == NULL || !gtk_widget_get_visible (GTK_WIDGET (parent)))
    parent = unsaved->pdata[0];
  dialog = adw_message_dialog_new (parent, _("Save Changes?"), body);
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  for (guint i = 0; i < unsaved->len; i++)
    gtk_list_box_append (GTK_LIST_BOX (list), unsaved_row (unsaved->pdata[i], checks));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), list);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                    "discard", _("_Discard All"), "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "ct-checks", checks,
                          (GDestroyNotify) g_ptr_array_unref);
  g_signal_connect (dialog, "response", G_CALLBACK (quit_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
quit_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtApplication *self = data;
  g_autoptr (GPtrArray) unsaved = g_ptr_array_new ();

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (CT_IS_WINDOW (l->data) && ct_window_has_unsaved_changes (l->data))
      g_ptr_array_add (unsaved, l->data);
  if (unsaved->len == 0)
    close_all (self);
  else
    ask_before_quitting (self, unsaved);
}

static void
about_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (data));
  static const char *developers[] = { "The Cortado developers", NULL };
  g_autofree char *cpu = ct_engine_describe_cpu ();
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", parent,
                        "application-name", _("Cortado"),
                        "application-icon", CT_APP_ID,
                        "version", PACKAGE_VERSION,
                        "comments", _("Build, run and look inside Caffe-style neural nets"),
                        "developer-name", _("The Cortado developers"),
                        "developers", developers,
                        "license-type", GTK_LICENSE_BSD,
                        /* TRANSLATORS: put your names here, one per line */
                        "translator-credits", _("translator-credits"),
                        "issue-url", "https://github.com/cortado/cortado/issues",
                        "website", "https://github.com/cortado/cortado",
                        "debug-info", cpu,
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

/* app.open and app.shortcuts act in the active window (a new one if none). */
static void
activate_in_window (CtApplication *self, const char *action)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    {
      window = GTK_WINDOW (ct_window_new (self));
      gtk_window_present (window);
    }
  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
}

static void
open_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  activate_in_window (CT_APPLICATION (data), "open");
}

static void
shortcuts_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  activate_in_window (CT_APPLICATION (data), "show-help-overlay");
}

static const GActionEntry app_actions[] = {
  { .name = "new-window", .activate = new_window_activated },
  { .name = "open", .activate = open_activated },
  { .name = "shortcuts", .activate = shortcuts_activated },
  { .name = "about", .activate = about_activated },
  { .name = "quit", .activate = quit_activated },
};

static void
set_accels (GtkApplication *app)
{
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.new-window", { "<Control>n", NULL } },
    { "app.quit", { "<Control>q", NULL } },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (app, accels[i].action, accels[i].accels);
  /* the window's, from its table of actions (window-actions.c) */
  ct_window_set_accels (app);
}

/* GTK 4.8 lays a tooltip out at its label's least width, which for text
 * without spaces (Chinese, Japanese) is one character: "主菜单" came out
 * one character per line over the menu. Where the language shown is one
 * of those, tooltips get room for a phrase. */
static void
widen_cjk_tooltips (void)
{
  const char *language = g_get_language_names ()[0];
  g_autoptr (GtkCssProvider) css = NULL;

  if (!g_str_has_prefix (language, "zh") && !g_str_has_prefix (language, "ja"))
    return;
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css, "tooltip label { min-width: 9em; }", -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

static void
ct_application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (ct_application_parent_class)->startup (app);
  ct_application_ensure_resources ();
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions),
                                   app);
  set_accels (GTK_APPLICATION (app));
  gtk_window_set_default_icon_name (CT_APP_ID);
  widen_cjk_tooltips ();
}

static void
ct_application_class_init (CtApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->startup = ct_application_startup;
  app_class->activate = ct_application_activate;
  app_class->open = ct_application_open;
}

static void
ct_application_init (CtApplication *self)
{
  g_set_application_name (_("Cortado"));
}

CtApplication *
ct_application_new (void)
{
  /* Resources before the application loads style.css and the shortcuts
   * window from them at startup. */
  ct_application_ensure_resources ();
  return g_object_new (CT_TYPE_APPLICATION,
                       "application-id", CT_APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/cortado/Cortado",
                       NULL);
}
