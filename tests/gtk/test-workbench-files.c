/* test-workbench-files.c: files in the workbench test's window (see
 * test-workbench.c): the recent-files menu, a net from a Caffe fork saved
 * without losing its unknown fields, and files dropped or given on the
 * command line. */
#include <string.h>
#include <glib/gstdio.h>

#include "workbench-util.h"

/* Recent files. */

static void
recent_changed (GtkRecentManager *manager, gboolean *changed)
{
  *changed = TRUE;
}

static void
test_recent_menu (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cortado-recent-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "lenet_train_test.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  gboolean changed = FALSE;
  CtWindow *window = ct_test_lenet_window ();
  GtkWidget *split;
  GMenuModel *menu, *section;
  g_autofree char *label = NULL;
  g_autofree char *target = NULL;
  g_autofree char *uri = g_file_get_uri (file);
  gint64 deadline;

  g_assert_true (g_file_set_contents (path, "name: \"r\"\n", -1, NULL));
  g_signal_connect (manager, "changed", G_CALLBACK (recent_changed), &changed);
  g_assert_true (ct_window_load_file (window, file));
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (!changed && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handlers_disconnect_by_data (manager, &changed);
  g_assert_true (changed);
  ct_gui_test_settle (window);

  split = ct_gui_test_find_widget (GTK_WIDGET (window), ADW_TYPE_SPLIT_BUTTON, NULL);
  g_assert_nonnull (split);
  menu = adw_split_button_get_menu_model (ADW_SPLIT_BUTTON (split));
  g_assert_nonnull (menu);
  g_assert_cmpint (g_menu_model_get_n_items (menu), >=, 1);
  section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_nonnull (section);
  g_assert_cmpint (g_menu_model_get_n_items (section), >=, 1);
  g_assert_true (g_menu_model_get_item_attribute (section, 0, G_MENU_ATTRIBUTE_LABEL, "s",
                                                  &label));
  g_assert_true (g_menu_model_get_item_attribute (section, 0, G_MENU_ATTRIBUTE_TARGET, "s",
                                                  &target));
  g_test_message ("recent menu item: \"%s\" -> %s", label, target);
  /* "_" marks a mnemonic in menus: doubled, it shows as itself. */
  g_assert_cmpstr (label, ==, "lenet__train__test.prototxt");
  g_assert_cmpstr (target, ==, uri);
  g_object_unref (section);

  ct_gui_test_close_window (window);
  gtk_recent_manager_remove_item (manager, uri, NULL);
  g_unlink (path);
  g_rmdir (dir);
}


/* The text of every block "  NAME {" ... "  }" of the fields NAMES. */
static GPtrArray *
blocks_of (const char *text, const char *const *names)
{
  GPtrArray *blocks = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    for (guint n = 0; names[n] != NULL; n++)
      {
        g_autofree char *head = g_strdup_printf ("  %s {", names[n]);
        GString *block;

        if (!g_str_equal (lines[i], head))
          continue;
        block = g_string_new (NULL);
        for (; lines[i] != NULL && !g_str_equal (lines[i], "  }"); i++)
          g_string_append_printf (block, "%s\n", lines[i]);
        g_ptr_array_add (blocks, g_string_free (block, FALSE));
        if (lines[i] == NULL)
          return blocks;
      }
  return blocks;
}

/* A net from a fork (SSD: prior_box_param, norm_param, ...) opens, saves
 * through win.save and reopens without losing a field Cortado does not
 * know. */
static void
test_fork_fields_kept (void)
{
  static const char *const fork_fields[] = {
    "prior_box_param", "norm_param", "permute_param", "detection_output_param", NULL,
  };
  g_autofree char *source = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", "ssd_vgg300",
                                              "deploy.prototxt", NULL);
  g_autofree char *dir = g_dir_make_tmp ("cortado-fork-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "ssd.prototxt", NULL);
  g_autofree char *original = NULL;
  g_autofree char *saved = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GPtrArray) before = NULL;
  g_autoptr (GPtrArray) after = NULL;
  CtWindow *window = ct_window_new (ct_test_app);

  g_assert_true (g_file_get_contents (source, &original, NULL, NULL));
  g_assert_true (g_file_set_contents (path, original, -1, NULL));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  g_assert_null (ct_document_get_parse_error (ct_window_get_document (window)));
  g_assert_cmpuint (ct_graph_model_n_nodes (ct_graph_view_get_model (ct_test_view_of (window))),
                    >, 60);
  /* an edit, so that the text is printed again, then win.save */
  ct_window_select (window, (const char *[]) { "conv1_1", NULL });
  ct_test_activate (window, "duplicate");
  ct_gui_test_settle (window);
  ct_test_activate (window, "save");
  ct_gui_test_settle (window);
  g_assert_false (ct_document_get_modified (ct_window_get_document (window)));
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  before = blocks_of (original, fork_fields);
  after = blocks_of (saved, fork_fields);
  g_test_message ("%u blocks of fork fields before, %u after saving", before->len, after->len);
  g_assert_cmpuint (before->len, ==, 20);
  g_assert_cmpuint (after->len, ==, before->len);
  for (guint i = 0; i < before->len; i++)
    g_assert_cmpstr (after->pdata[i], ==, before->pdata[i]);
  g_assert_nonnull (strstr (saved, "name: \"conv1_2\""));
  ct_gui_test_close_window (window);

  /* Reopened: the same text. */
  window = ct_window_new (ct_test_app);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  g_assert_cmpstr (ct_document_get_text (ct_window_get_document (window)), ==, saved);
  ct_gui_test_close_window (window);
  ct_test_remove_tree (dir);
}


/* A file dropped on an empty window opens there; `cortado NET WEIGHTS`
 * opens the net with its weights. */
static void
test_open_paths (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cortado-open-XXXXXX", NULL);
  g_autofree char *net_path = g_build_filename (dir, "dropped.prototxt", NULL);
  g_autofree char *weights_path = g_build_filename (dir, "dropped.caffemodel", NULL);
  g_autoptr (GFile) net = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (ct_test_app);
  g_autoptr (GListModel) controllers = NULL;
  GtkDropTarget *target = NULL;
  gboolean accepted = FALSE;

  g_assert_true (g_file_set_contents (net_path,
                                      "name: \"dropped\"\n"
                                      "layer { name: \"in\" type: \"Input\" top: \"x\"\n"
                                      "  input_param { shape { dim: 1 dim: 4 } } }\n",
                                      -1, NULL));
  g_assert_true (g_file_set_contents (weights_path, "", 0, NULL));
  gtk_window_present (GTK_WINDOW (window));
  ct_gui_test_settle (window);
  g_assert_true (ct_window_is_blank (window));
  controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers) && target == NULL; i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      if (GTK_IS_DROP_TARGET (controller)
          && gdk_content_formats_contain_gtype (
            gtk_drop_target_get_formats (GTK_DROP_TARGET (controller)), GDK_TYPE_FILE_LIST))
        target = GTK_DROP_TARGET (controller);
    }
  g_assert_nonnull (target);
  {
    GValue value = G_VALUE_INIT;
    GSList *files = g_slist_append (NULL, net);

    g_value_init (&value, GDK_TYPE_FILE_LIST);
    g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
    g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
    g_value_unset (&value);
    g_slist_free (files);
  }
  ct_gui_test_settle (window);
  g_assert_true (accepted);
  g_assert_nonnull (ct_window_get_file (window));
  g_assert_true (g_file_equal (ct_window_get_file (window), net));
  ct_gui_test_close_window (window);

  /* As the command line hands them over. */
  {
    GFile *files[] = { net, weights };
    CtWindow *opened = NULL;

    g_application_open (G_APPLICATION (ct_test_app), files, 2, "");
    ct_gui_test_settle (CT_WINDOW (gtk_application_get_active_window (
      GTK_APPLICATION (ct_test_app))));
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (ct_test_app)); l != NULL;
         l = l->next)
      if (CT_IS_WINDOW (l->data) && ct_window_get_file (l->data) != NULL
          && g_file_equal (ct_window_get_file (l->data), net))
        opened = l->data;
    g_assert_nonnull (opened);
    g_assert_nonnull (ct_window_get_weights (opened));
    g_assert_true (g_file_equal (ct_window_get_weights (opened), weights));
    ct_gui_test_close_window (opened);
  }
  ct_test_remove_tree (dir);
}


void
ct_test_workbench_add_files_tests (void)
{
  g_test_add_func ("/gtk/workbench/recent-menu", test_recent_menu);
  g_test_add_func ("/gtk/workbench/fork-fields-kept", test_fork_fields_kept);
  g_test_add_func ("/gtk/workbench/open-paths", test_open_paths);
}
