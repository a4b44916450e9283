/* test-workbench.c: the workbench's finer promises, checked in a real
 * window under Xvfb (skipped without a display) through its actions and the
 * canvas's signals, as a user's keys and drags reach them:
 *
 * - the Keyboard Shortcuts window lists every accelerator of the
 *   application and every key the graph handles, and opens cleanly;
 * - the recent-files menu shows file names with their underscores;
 * - copy puts `layer { ... }` prototxt on the clipboard, paste takes
 *   prototxt written elsewhere, cut removes, rename focuses the name;
 * - a palette type dropped on an edge is inserted into that connection;
 * - the graph exports as SVG, PNG and PDF (win.export-graph, Ctrl+E);
 * - cutting a connection and undoing it leaves the other layers at their
 *   depth (no gaps pile up);
 * - a fitted graph keeps clear of the controls over the canvas's bottom;
 * - a multiple selection is named as such in the inspector;
 * - Shift+F10 opens a node's menu like the Menu key.
 *
 * Recent files and drafts go to temporary folders (XDG_DATA_HOME,
 * CORTADO_DRAFTS_DIR), never to the user's. One binary: this file has the
 * window's chrome (shortcuts, export, menus, find, phase, closing),
 * test-workbench-edit.c editing on the canvas, test-workbench-files.c
 * files, and workbench-util.c what they share. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "workbench-util.h"

/* Keyboard Shortcuts window. */

static void
test_shortcuts_listed (void)
{
  g_autoptr (GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/cortado/Cortado/gtk/help-overlay.ui");
  g_autoptr (GSList) objects = gtk_builder_get_objects (builder);
  g_autoptr (GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (ct_test_app));
  /* What the canvas (and the window on it) handles itself. */
  static const char *const graph_keys[] = {
    "plus", "minus", "0", "1", "Delete", "BackSpace", "Return", "space", "Escape", "Menu",
    "<Shift>F10", "Up", "Down", "Left", "Right", "<Shift>Up", "<Control>Up", "<Control>c",
    "<Control>x", "<Control>v", "<Control>d", "<Control>a", "F2", "<Control>z",
    "<Control><Shift>z", "<Control>y", "<Control>g",
  };
  guint checked = 0;
  GtkWidget *overlay;

  for (GSList *l = objects; l != NULL; l = l->next)
    if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
      {
        g_autofree char *accelerator = NULL;
        g_auto (GStrv) parts = NULL;

        g_object_get (l->data, "accelerator", &accelerator, NULL);
        parts = g_strsplit (accelerator != NULL ? accelerator : "", " ", -1);
        for (guint i = 0; parts[i] != NULL; i++)
          {
            char *name = ct_test_normalise_accel (parts[i]);
            g_assert_nonnull (name);  /* every listed accelerator parses */
            g_hash_table_add (listed, name);
          }
      }
  g_test_message ("the shortcuts window lists %u accelerators", g_hash_table_size (listed));
  g_assert_cmpuint (g_hash_table_size (listed), >=, 40);

  /* Every action's first accelerator: the one a user is told about. */
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (ct_test_app),
                                                                    actions[i]);
      g_autofree char *name = accels[0] != NULL ? ct_test_normalise_accel (accels[0]) : NULL;

      if (name == NULL)
        continue;
      if (!g_hash_table_contains (listed, name))
        g_error ("%s (%s) is missing from the Keyboard Shortcuts window", accels[0],
                 actions[i]);
      checked++;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (graph_keys); i++)
    {
      g_autofree char *name = ct_test_normalise_accel (graph_keys[i]);
      if (!g_hash_table_contains (listed, name))
        g_error ("the graph's key %s is missing from the Keyboard Shortcuts window",
                 graph_keys[i]);
      checked++;
    }
  g_test_message ("%u accelerators of actions and keys of the graph are all listed", checked);
  g_assert_cmpuint (checked, >=, 40);

  /* The window itself: one per application window, built from the same
   * file. */
  {
    CtWindow *window = ct_test_lenet_window ();
    overlay = GTK_WIDGET (gtk_application_window_get_help_overlay (
      GTK_APPLICATION_WINDOW (window)));
    g_assert_nonnull (overlay);
    g_assert_true (GTK_IS_SHORTCUTS_WINDOW (overlay));
    /* shown, without a warning from GTK (warnings are fatal in tests) */
    ct_test_activate (window, "show-help-overlay");
    ct_gui_test_spin (300);
    g_assert_true (gtk_widget_get_visible (overlay));
    gtk_widget_set_visible (overlay, FALSE);
    ct_gui_test_close_window (window);
  }
}


/* Export. */

static void
check_magic (const char *path, const char *magic)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_test_message ("%s: %" G_GSIZE_FORMAT " bytes", path, length);
  g_assert_cmpuint (length, >, 1000);
  g_assert_nonnull (g_strstr_len (contents, MIN (length, 400), magic));
}

static void
test_export (void)
{
  CtWindow *window = ct_test_lenet_window ();
  g_autofree char *dir = g_dir_make_tmp ("cortado-export-XXXXXX", NULL);
  static const struct {
    const char *name, *magic;
  } formats[] = {
    { "lenet.svg", "<svg" }, { "lenet.PNG", "PNG" }, { "lenet.pdf", "%PDF" },
  };
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (ct_test_app),
                                                                "win.export-graph");

  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "export-graph"));
  g_assert_cmpstr (accels[0], ==, "<Control>e");
  for (gsize i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *path = g_build_filename (dir, formats[i].name, NULL);
      g_autoptr (GFile) file = g_file_new_for_path (path);

      g_assert_true (ct_window_export_graph (window, file, &error));
      g_assert_no_error (error);
      check_magic (path, formats[i].magic);
      g_unlink (path);
    }
  {
    g_autofree char *path = g_build_filename (dir, "lenet.txt", NULL);
    g_autoptr (GFile) file = g_file_new_for_path (path);

    g_assert_false (ct_window_export_graph (window, file, &error));
    g_assert_nonnull (error);
    g_test_message ("%s", error->message);
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  }
  ct_gui_test_close_window (window);
  g_rmdir (dir);
}


/* Shift+F10 on the canvas asks for the focused node's menu. */

static void
on_context_menu (CtGraphView *view, const char *id, double x, double y, char **out)
{
  g_free (*out);
  *out = g_strdup (id != NULL ? id : "(canvas)");
}

static void
test_shift_f10 (void)
{
  CtWindow *window = ct_test_lenet_window ();
  CtGraphView *view = ct_test_view_of (window);
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (view));
  GtkEventController *keys = NULL;
  g_autofree char *asked = NULL;
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && keys == NULL; i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_KEY (controller))
        keys = GTK_EVENT_CONTROLLER (controller);
    }
  g_assert_nonnull (keys);
  g_assert_true (ct_graph_view_reveal (view, "conv2", TRUE));
  g_signal_connect (view, "context-menu", G_CALLBACK (on_context_menu), &asked);
  g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_F10, 0u, GDK_SHIFT_MASK, &handled);
  g_assert_true (handled);
  g_assert_cmpstr (asked, ==, "conv2");
  /* F10 alone is the window's (the menu bar key), not the graph's. */
  handled = FALSE;
  g_signal_emit_by_name (keys, "key-pressed", GDK_KEY_F10, 0u, 0, &handled);
  g_assert_false (handled);
  g_signal_handlers_disconnect_by_data (view, &asked);
  ct_gui_test_spin (50);
  ct_gui_test_close_window (window);
}


/* Ctrl+F: the find bar selects and reveals the first layer that matches. */
static void
test_find (void)
{
  CtWindow *window = ct_test_lenet_window ();
  GtkWidget *bar = ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_SEARCH_BAR, NULL);
  GtkWidget *entry = bar != NULL ? ct_gui_test_find_widget (bar, GTK_TYPE_SEARCH_ENTRY, NULL) : NULL;
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (ct_test_app),
                                                                "win.find");

  g_assert_cmpstr (accels[0], ==, "<Control>f");
  g_assert_nonnull (entry);
  ct_test_activate (window, "find");
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
  gtk_editable_set_text (GTK_EDITABLE (entry), "POOL");
  ct_gui_test_spin (400);  /* the entry reports a change after a short pause */
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_cmpstr (selected[0], ==, "pool1");
  }
  g_signal_emit_by_name (entry, "next-match");
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_cmpstr (selected[0], ==, "pool2");
  }
  /* a layer folded into another is found and selected itself */
  gtk_editable_set_text (GTK_EDITABLE (entry), "relu1");
  ct_gui_test_spin (400);
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_cmpstr (selected[0], ==, "relu1");
  }
  ct_gui_test_close_window (window);
}


/* The phase shown: TRAIN hides the TEST-only accuracy layer, TEST its
 * training data layer, both phases show everything. */
static void
test_phase (void)
{
  CtWindow *window = ct_test_lenet_window ();
  static const struct {
    const char *phase;
    guint nodes;
    gboolean accuracy;
  } views[] = {
    { "train", 8, FALSE }, { "test", 9, TRUE }, { "both", 10, TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (views); i++)
    {
      CtGraphModel *model;

      g_action_group_change_action_state (G_ACTION_GROUP (window), "phase",
                                          g_variant_new_string (views[i].phase));
      ct_gui_test_settle (window);
      model = ct_graph_view_get_model (ct_test_view_of (window));
      g_test_message ("%s: %u nodes", views[i].phase, ct_graph_model_n_nodes (model));
      g_assert_cmpuint (ct_graph_model_n_nodes (model), ==, views[i].nodes);
      g_assert_true ((ct_graph_model_find_node (model, "accuracy") >= 0) == views[i].accuracy);
    }
  ct_gui_test_close_window (window);
}


/* Closing a window with unsaved changes asks first. */
static void
test_close_asks (void)
{
  CtWindow *window = ct_test_lenet_window ();
  GListModel *toplevels = gtk_window_get_toplevels ();
  GtkWindow *question = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_document_set_field (ct_window_get_document (window), "name", "Changed",
                                        &error));
  gtk_window_close (GTK_WINDOW (window));
  ct_gui_test_spin (50);
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWindow) toplevel = g_list_model_get_item (toplevels, i);
      if (ADW_IS_MESSAGE_DIALOG (toplevel)
          && gtk_window_get_transient_for (toplevel) == GTK_WINDOW (window))
        question = toplevel;
    }
  /* still open, and asking */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  g_assert_nonnull (question);
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (question)), ==,
                   "Save Changes?");
  g_assert_true (adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (question), "discard"));
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (question), "cancel");
  gtk_window_destroy (question);
  ct_gui_test_spin (20);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  ct_gui_test_close_window (window);
}


int
main (int argc, char *argv[])
{
  char *scratch;

  if (ct_gui_test_init (&argc, &argv, "/gtk/workbench", &scratch, &ct_test_app))
    {
      g_test_add_func ("/gtk/workbench/shortcuts-listed", test_shortcuts_listed);
      g_test_add_func ("/gtk/workbench/export", test_export);
      g_test_add_func ("/gtk/workbench/shift-f10", test_shift_f10);
      g_test_add_func ("/gtk/workbench/find", test_find);
      g_test_add_func ("/gtk/workbench/phase", test_phase);
      g_test_add_func ("/gtk/workbench/close-asks", test_close_asks);
      ct_test_workbench_add_edit_tests ();
      ct_test_workbench_add_files_tests ();
    }
  return ct_gui_test_finish (g_test_run (), scratch, ct_test_app);
}
