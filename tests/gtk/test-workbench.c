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
 * CORTADO_DRAFTS_DIR), never to the user's. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "application.h"
#include "graph-view.h"
#include "window.h"

static CtApplication *app;

static gboolean
flag_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
spin (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, flag_timeout, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
settle (CtWindow *window)
{
  spin (20);
  ct_document_wait_validated (ct_window_get_document (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  spin (20);
}

static CtWindow *
lenet_window (void)
{
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  settle (window);
  return window;
}

static void
close_window (CtWindow *window)
{
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  spin (10);
}

static CtGraphView *
view_of (CtWindow *window)
{
  return CT_GRAPH_VIEW (ct_window_get_graph_view (window));
}

static int
layer_named (CtWindow *window, const char *name)
{
  const Caffe__NetParameter *net = ct_document_get_net (ct_window_get_document (window));

  for (gsize i = 0; net != NULL && i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return (int) i;
  return -1;
}

static void
activate (CtWindow *window, const char *action)
{
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), action));
  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
}

/* The first widget under WIDGET of TYPE whose label is TEXT (TEXT NULL:
 * any), depth first. */
static GtkWidget *
find_widget (GtkWidget *widget, GType type, const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type)
          && (text == NULL || (GTK_IS_LABEL (child)
                               && g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), text) == 0)))
        return child;
      found = find_widget (child, type, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Accelerators in one spelling, for comparing. */
static char *
normalise_accel (const char *accel)
{
  guint key = 0;
  GdkModifierType mods = 0;

  if (!gtk_accelerator_parse (accel, &key, &mods) || key == 0)
    return NULL;
  return gtk_accelerator_name (key, mods);
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* Keyboard Shortcuts window. */

static void
test_shortcuts_listed (void)
{
  g_autoptr (GtkBuilder) builder =
    gtk_builder_new_from_resource ("/io/github/cortado/Cortado/gtk/help-overlay.ui");
  g_autoptr (GSList) objects = gtk_builder_get_objects (builder);
  g_autoptr (GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
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
            char *name = normalise_accel (parts[i]);
            g_assert_nonnull (name);  /* every listed accelerator parses */
            g_hash_table_add (listed, name);
          }
      }
  g_test_message ("the shortcuts window lists %u accelerators", g_hash_table_size (listed));
  g_assert_cmpuint (g_hash_table_size (listed), >=, 40);

  /* Every action's first accelerator: the one a user is told about. */
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                    actions[i]);
      g_autofree char *name = accels[0] != NULL ? normalise_accel (accels[0]) : NULL;

      if (name == NULL)
        continue;
      if (!g_hash_table_contains (listed, name))
        g_error ("%s (%s) is missing from the Keyboard Shortcuts window", accels[0],
                 actions[i]);
      checked++;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (graph_keys); i++)
    {
      g_autofree char *name = normalise_accel (graph_keys[i]);
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
    CtWindow *window = lenet_window ();
    overlay = GTK_WIDGET (gtk_application_window_get_help_overlay (
      GTK_APPLICATION_WINDOW (window)));
    g_assert_nonnull (overlay);
    g_assert_true (GTK_IS_SHORTCUTS_WINDOW (overlay));
    /* shown, without a warning from GTK (warnings are fatal in tests) */
    activate (window, "show-help-overlay");
    spin (300);
    g_assert_true (gtk_widget_get_visible (overlay));
    gtk_widget_set_visible (overlay, FALSE);
    close_window (window);
  }
}

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
  CtWindow *window = lenet_window ();
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
  settle (window);

  split = find_widget (GTK_WIDGET (window), ADW_TYPE_SPLIT_BUTTON, NULL);
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

  close_window (window);
  gtk_recent_manager_remove_item (manager, uri, NULL);
  g_unlink (path);
  g_rmdir (dir);
}

/* The clipboard. */

static void
read_text_done (GObject *source, GAsyncResult *result, gpointer data)
{
  char **text = data;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  if (*text == NULL)
    *text = g_strdup ("");
}

static char *
clipboard_text (CtWindow *window)
{
  char *text = NULL;

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (GTK_WIDGET (window)), NULL,
                                 read_text_done, &text);
  while (text == NULL)
    g_main_context_iteration (NULL, TRUE);
  return text;
}

static void
test_clipboard (void)
{
  CtWindow *window = lenet_window ();
  CtDocument *doc = ct_window_get_document (window);
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (window));
  g_autofree char *copied = NULL;
  g_autofree char *cut = NULL;
  guint n_layers = ct_document_get_net (doc)->n_layer;
  const char *from_editor =
    "# written in a text editor\n"
    "layer {\n"
    "  name: \"drop_extra\"\n"
    "  type: \"Dropout\"\n"
    "  bottom: \"ip2\"\n"
    "  top: \"ip2_dropped\"\n"
    "  dropout_param { dropout_ratio: 0.25 }\n"
    "}\n";

  /* Copy: prototxt a text editor takes as it is. */
  ct_window_select (window, (const char *[]) { "conv1", NULL });
  activate (window, "copy");
  copied = clipboard_text (window);
  g_test_message ("copied:\n%s", copied);
  g_assert_true (g_str_has_prefix (copied, "layer {\n"));
  g_assert_nonnull (strstr (copied, "  name: \"conv1\"\n"));
  g_assert_nonnull (strstr (copied, "convolution_param {"));
  g_assert_null (strstr (copied, "conv2"));

  /* Paste what an editor put there: a layer is added and selected. */
  gdk_clipboard_set_text (clipboard, from_editor);
  activate (window, "paste");
  spin (50);
  settle (window);
  g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, n_layers + 1);
  g_assert_cmpint (layer_named (window, "drop_extra"), >=, 0);
  {
    const Caffe__LayerParameter *layer =
      ct_document_get_net (doc)->layer[layer_named (window, "drop_extra")];
    g_auto (GStrv) selected = ct_window_dup_selected (window);

    g_assert_cmpstr (layer->bottom[0], ==, "ip2");
    g_assert_cmpfloat (fabs (layer->dropout_param->dropout_ratio - 0.25), <, 1e-6);
    g_assert_cmpstr (selected[0], ==, "drop_extra");
    g_assert_null (selected[1]);
  }

  /* Pasting the copied conv1 again gives it a new name. */
  gdk_clipboard_set_text (clipboard, copied);
  activate (window, "paste");
  spin (50);
  settle (window);
  g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, n_layers + 2);
  g_assert_cmpint (layer_named (window, "conv1"), >=, 0);
  g_assert_cmpint (layer_named (window, "conv3"), >=, 0);

  /* Cut: on the clipboard, gone from the net; undo brings it back. */
  ct_window_select (window, (const char *[]) { "drop_extra", NULL });
  activate (window, "cut");
  settle (window);
  cut = clipboard_text (window);
  g_assert_nonnull (strstr (cut, "name: \"drop_extra\""));
  g_assert_cmpint (layer_named (window, "drop_extra"), <, 0);
  activate (window, "undo");
  settle (window);
  g_assert_cmpint (layer_named (window, "drop_extra"), >=, 0);

  /* Rename (F2): the inspector's name entry takes the focus. */
  ct_window_select (window, (const char *[]) { "pool1", NULL });
  settle (window);
  activate (window, "rename");
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
    g_assert_nonnull (focus);
    while (focus != NULL && !GTK_IS_EDITABLE (focus))
      focus = gtk_widget_get_parent (focus);
    g_assert_nonnull (focus);
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (focus)), ==, "pool1");
  }
  close_window (window);
}

/* Layout across an edit and its undo. */

typedef struct {
  char *id;
  double x, y;
} Place;

static GArray *
places (CtWindow *window)
{
  CtGraphModel *model = ct_graph_view_get_model (view_of (window));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Place));

  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    {
      Place p = { g_strdup (ct_graph_model_get_node (model, i)->id), 0, 0 };
      g_assert_true (ct_graph_view_get_node_position (view_of (window), p.id, &p.x, &p.y));
      g_array_append_val (out, p);
    }
  return out;
}

static void
free_places (GArray *array)
{
  for (guint i = 0; i < array->len; i++)
    g_free (g_array_index (array, Place, i).id);
  g_array_unref (array);
}

/* A palette type dropped on an edge goes into that connection. */
static void
test_drop_on_edge (void)
{
  CtWindow *window = lenet_window ();
  CtGraphModel *model = ct_graph_view_get_model (view_of (window));
  const Caffe__NetParameter *net;
  int from = ct_graph_model_find_node (model, "pool2");
  int to = ct_graph_model_find_node (model, "ip1");
  int edge = -1, added, ip1;

  for (guint e = 0; e < ct_graph_model_n_edges (model); e++)
    {
      const CtGraphEdge *candidate = ct_graph_model_get_edge (model, e);
      if ((int) candidate->from_node == from && (int) candidate->to_node == to)
        edge = (int) e;
    }
  g_assert_cmpint (edge, >=, 0);
  GArray *b0 = places (window);
  g_signal_emit_by_name (view_of (window), "layer-dropped", "Pooling", 0.0, 0.0, edge);
  settle (window);
  {
    /* Nothing moves sideways: the layers below go down one rank, and the
     * label's long edges bend round them rather than push them aside. */
    GArray *b1 = places (window);
    guint common = 0;
    double x0 = 0, x1 = 0;

    for (guint i = 0; i < b0->len; i++)
      if (g_str_equal (g_array_index (b0, Place, i).id, "pool2"))
        x0 = g_array_index (b0, Place, i).x;
    for (guint j = 0; j < b1->len; j++)
      if (g_str_equal (g_array_index (b1, Place, j).id, "pool2"))
        x1 = g_array_index (b1, Place, j).x;

    for (guint i = 0; i < b0->len; i++)
      for (guint j = 0; j < b1->len; j++)
        if (g_str_equal (g_array_index (b0, Place, i).id, g_array_index (b1, Place, j).id))
          {
            g_test_message ("%s: %.0f,%.0f -> %.0f,%.0f", g_array_index (b0, Place, i).id,
                            g_array_index (b0, Place, i).x, g_array_index (b0, Place, i).y,
                            g_array_index (b1, Place, j).x, g_array_index (b1, Place, j).y);
            /* Compared relative to pool2, above the insertion: when the
             * example's databases are missing (as in CI) the Data layers are
             * drawn in their error state and the whole drawing shifts
             * sideways as one (a known limit of the origin, noted in the
             * issue); relative places must hold either way. */
            g_assert_cmpfloat (fabs ((g_array_index (b0, Place, i).x - x0)
                                     - (g_array_index (b1, Place, j).x - x1)), <, 1);
            common++;
          }
    g_assert_cmpuint (common, ==, 10);
    free_places (b0);
    free_places (b1);
  }
  net = ct_document_get_net (ct_window_get_document (window));
  {
    /* the new layer is selected */
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_nonnull (selected[0]);
    added = layer_named (window, selected[0]);
  }
  ip1 = layer_named (window, "ip1");
  g_assert_cmpint (added, >=, 0);
  g_assert_cmpstr (net->layer[added]->type, ==, "Pooling");
  g_assert_cmpstr (net->layer[added]->name, ==, "pool3");
  g_assert_cmpstr (net->layer[added]->bottom[0], ==, "pool2");
  g_assert_cmpstr (net->layer[ip1]->bottom[0], ==, net->layer[added]->top[0]);
  g_test_message ("inserted %s: %s -> %s -> ip1", net->layer[added]->name,
                  net->layer[added]->bottom[0], net->layer[added]->top[0]);

  /* Dropped on a node (ip2): the new layer reads its output, and is not
   * left lying on top of it. */
  {
    const CtGraphScene *scene = ct_graph_view_get_scene (view_of (window));
    int node = ct_graph_model_find_node (scene->model, "ip2");
    double x = scene->layout->nodes[node].x, y = scene->layout->nodes[node].y;
    g_autofree char *id = NULL;
    double nx, ny;

    g_signal_emit_by_name (view_of (window), "layer-dropped", "Sigmoid", x, y, -1);
    settle (window);
    net = ct_document_get_net (ct_window_get_document (window));
    {
      g_auto (GStrv) selected = ct_window_dup_selected (window);
      id = g_strdup (selected[0]);
    }
    added = layer_named (window, id);
    g_assert_cmpint (added, >=, 0);
    g_assert_cmpstr (net->layer[added]->type, ==, "Sigmoid");
    g_assert_cmpstr (net->layer[added]->bottom[0], ==, "ip2");
    g_assert_true (ct_graph_view_get_node_position (view_of (window), id, &nx, &ny));
    g_test_message ("dropped on ip2 at %.0f,%.0f: %s placed at %.0f,%.0f", x, y, id, nx, ny);
    g_assert_cmpfloat (ny, >, y + 20);
  }
  close_window (window);
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
  CtWindow *window = lenet_window ();
  g_autofree char *dir = g_dir_make_tmp ("cortado-export-XXXXXX", NULL);
  static const struct {
    const char *name, *magic;
  } formats[] = {
    { "lenet.svg", "<svg" }, { "lenet.PNG", "PNG" }, { "lenet.pdf", "%PDF" },
  };
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
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
  close_window (window);
  g_rmdir (dir);
}

static void
test_layout_cut_and_undo (void)
{
  CtWindow *window = lenet_window ();
  CtGraphModel *model = ct_graph_view_get_model (view_of (window));
  GArray *before = places (window);
  GArray *cut, *undone;
  int ip1 = ct_graph_model_find_node (model, "ip1");
  int edge = -1;
  const char *upper[] = { "conv1", "pool1", "conv2", "pool2" };
  double worst = 0;

  for (guint e = 0; e < ct_graph_model_n_edges (model); e++)
    if ((int) ct_graph_model_get_edge (model, e)->to_node == ip1)
      edge = (int) e;
  g_assert_cmpint (edge, >=, 0);
  /* As dragging the edge's end away from ip1 asks. */
  g_signal_emit_by_name (view_of (window), "disconnect-requested", (guint) edge);
  settle (window);
  g_assert_cmpuint (ct_document_get_net (ct_window_get_document (window))
                      ->layer[layer_named (window, "ip1")]->n_bottom, ==, 0);
  cut = places (window);
  for (guint i = 0; i < before->len; i++)
    for (gsize u = 0; u < G_N_ELEMENTS (upper); u++)
      if (g_str_equal (g_array_index (before, Place, i).id, upper[u]))
        {
          double y0 = g_array_index (before, Place, i).y;
          double y1 = NAN;
          for (guint j = 0; j < cut->len; j++)
            if (g_str_equal (g_array_index (cut, Place, j).id, upper[u]))
              y1 = g_array_index (cut, Place, j).y;
          g_test_message ("%s: y %.0f -> %.0f after the cut", upper[u], y0, y1);
          /* ip1, now a source, is taller than the data layers it joins in
           * the first rank: that pushes the rest by the difference, never
           * by whole ranks (ranks are over 80 units apart) */
          g_assert_cmpfloat (fabs (y1 - y0), <, 16);
        }
  activate (window, "undo");
  settle (window);
  undone = places (window);
  g_assert_cmpuint (undone->len, ==, before->len);
  for (guint i = 0; i < before->len; i++)
    for (guint j = 0; j < undone->len; j++)
      if (g_str_equal (g_array_index (before, Place, i).id, g_array_index (undone, Place, j).id))
        worst = MAX (worst, fabs (g_array_index (before, Place, i).y
                                  - g_array_index (undone, Place, j).y));
  g_test_message ("after the undo, the largest change of depth is %.1f", worst);
  /* back where they were, give or take the push above (before the fix,
   * the rest of the net stayed a whole graph's height further down) */
  g_assert_cmpfloat (worst, <, 16);
  free_places (before);
  free_places (cut);
  free_places (undone);
  close_window (window);
}

/* A fitted graph keeps clear of the zoom and phase controls laid over the
 * bottom of the canvas. */
static void
test_fit_clear_of_controls (void)
{
  CtWindow *window = lenet_window ();
  GtkWidget *view = ct_window_get_graph_view (window);
  GtkWidget *phase = find_widget (GTK_WIDGET (window), GTK_TYPE_DROP_DOWN, NULL);
  graphene_rect_t controls;
  double lowest = 0, zoom;
  guint nodes = 0;

  activate (window, "zoom-fit");
  settle (window);
  spin (100);
  zoom = ct_graph_view_get_zoom (CT_GRAPH_VIEW (view));
  g_assert_nonnull (phase);
  g_assert_true (gtk_widget_compute_bounds (phase, view, &controls));
  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t bounds;

      if (!gtk_widget_get_focusable (child) || !gtk_widget_compute_bounds (child, view, &bounds))
        continue;
      /* the allocation has 8 units of room round the box for rings */
      lowest = MAX (lowest, bounds.origin.y + bounds.size.height - 8 * zoom);
      nodes++;
    }
  g_test_message ("zoom %.2f: %u nodes, lowest box edge at %.0f, controls from %.0f", zoom,
                  nodes, lowest, controls.origin.y);
  g_assert_cmpuint (nodes, ==, 10);
  g_assert_cmpfloat (lowest, <=, controls.origin.y);
  close_window (window);
}

/* Several layers selected: the inspector says so. */
static void
test_multi_selection (void)
{
  CtWindow *window = lenet_window ();

  ct_window_select (window, (const char *[]) { "conv1", "conv2", "ip2", NULL });
  settle (window);
  g_assert_nonnull (find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "3 Layers Selected"));
  g_assert_nonnull (find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "conv1, conv2, ip2"));
  ct_window_select (window, (const char *[]) { "conv1", NULL });
  settle (window);
  g_assert_null (find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "3 Layers Selected"));
  close_window (window);
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
  CtWindow *window = lenet_window ();
  CtGraphView *view = view_of (window);
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
  spin (50);
  close_window (window);
}

/* Ctrl+F: the find bar selects and reveals the first layer that matches. */
static void
test_find (void)
{
  CtWindow *window = lenet_window ();
  GtkWidget *bar = find_widget (GTK_WIDGET (window), GTK_TYPE_SEARCH_BAR, NULL);
  GtkWidget *entry = bar != NULL ? find_widget (bar, GTK_TYPE_SEARCH_ENTRY, NULL) : NULL;
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                "win.find");

  g_assert_cmpstr (accels[0], ==, "<Control>f");
  g_assert_nonnull (entry);
  activate (window, "find");
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
  gtk_editable_set_text (GTK_EDITABLE (entry), "POOL");
  spin (400);  /* the entry reports a change after a short pause */
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
  spin (400);
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_cmpstr (selected[0], ==, "relu1");
  }
  close_window (window);
}

/* The phase shown: TRAIN hides the TEST-only accuracy layer, TEST its
 * training data layer, both phases show everything. */
static void
test_phase (void)
{
  CtWindow *window = lenet_window ();
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
      settle (window);
      model = ct_graph_view_get_model (view_of (window));
      g_test_message ("%s: %u nodes", views[i].phase, ct_graph_model_n_nodes (model));
      g_assert_cmpuint (ct_graph_model_n_nodes (model), ==, views[i].nodes);
      g_assert_true ((ct_graph_model_find_node (model, "accuracy") >= 0) == views[i].accuracy);
    }
  close_window (window);
}

/* Closing a window with unsaved changes asks first. */
static void
test_close_asks (void)
{
  CtWindow *window = lenet_window ();
  GListModel *toplevels = gtk_window_get_toplevels ();
  GtkWindow *question = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_document_set_field (ct_window_get_document (window), "name", "Changed",
                                        &error));
  gtk_window_close (GTK_WINDOW (window));
  spin (50);
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
  spin (20);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  close_window (window);
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
  CtWindow *window = ct_window_new (app);

  g_assert_true (g_file_get_contents (source, &original, NULL, NULL));
  g_assert_true (g_file_set_contents (path, original, -1, NULL));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  settle (window);
  g_assert_null (ct_document_get_parse_error (ct_window_get_document (window)));
  g_assert_cmpuint (ct_graph_model_n_nodes (ct_graph_view_get_model (view_of (window))), >, 60);
  /* an edit, so that the text is printed again, then win.save */
  ct_window_select (window, (const char *[]) { "conv1_1", NULL });
  activate (window, "duplicate");
  settle (window);
  activate (window, "save");
  settle (window);
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
  close_window (window);

  /* Reopened: the same text. */
  window = ct_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, file));
  settle (window);
  g_assert_cmpstr (ct_document_get_text (ct_window_get_document (window)), ==, saved);
  close_window (window);
  remove_tree (dir);
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
  CtWindow *window = ct_window_new (app);
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
  settle (window);
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
  settle (window);
  g_assert_true (accepted);
  g_assert_nonnull (ct_window_get_file (window));
  g_assert_true (g_file_equal (ct_window_get_file (window), net));
  close_window (window);

  /* As the command line hands them over. */
  {
    GFile *files[] = { net, weights };
    CtWindow *opened = NULL;

    g_application_open (G_APPLICATION (app), files, 2, "");
    settle (CT_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app))));
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
      if (CT_IS_WINDOW (l->data) && ct_window_get_file (l->data) != NULL
          && g_file_equal (ct_window_get_file (l->data), net))
        opened = l->data;
    g_assert_nonnull (opened);
    g_assert_nonnull (ct_window_get_weights (opened));
    g_assert_true (g_file_equal (ct_window_get_weights (opened), weights));
    close_window (opened);
  }
  remove_tree (dir);
}

static void
skip_no_display (void)
{
  g_test_skip ("no display");
}

int
main (int argc, char *argv[])
{
  const char *localedir = g_getenv ("CORTADO_LOCALEDIR");
  g_autofree char *scratch = g_dir_make_tmp ("cortado-workbench-XXXXXX", NULL);
  g_autofree char *drafts = g_build_filename (scratch, "drafts", NULL);
  g_autofree char *data = g_build_filename (scratch, "data", NULL);
  int status;

  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  /* Before GLib reads them: recent files and drafts stay in SCRATCH. */
  g_setenv ("CORTADO_DRAFTS_DIR", drafts, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  /* English strings: the tests look for labels by their text. */
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_test_add_func ("/workbench/no-display", skip_no_display);
      g_test_run ();
      remove_tree (scratch);
      return 77;
    }
  ct_application_ensure_resources ();
  app = ct_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/workbench/shortcuts-listed", test_shortcuts_listed);
  g_test_add_func ("/workbench/recent-menu", test_recent_menu);
  g_test_add_func ("/workbench/clipboard", test_clipboard);
  g_test_add_func ("/workbench/drop-on-edge", test_drop_on_edge);
  g_test_add_func ("/workbench/export", test_export);
  g_test_add_func ("/workbench/layout-cut-and-undo", test_layout_cut_and_undo);
  g_test_add_func ("/workbench/fit-clear-of-controls", test_fit_clear_of_controls);
  g_test_add_func ("/workbench/multi-selection", test_multi_selection);
  g_test_add_func ("/workbench/shift-f10", test_shift_f10);
  g_test_add_func ("/workbench/find", test_find);
  g_test_add_func ("/workbench/phase", test_phase);
  g_test_add_func ("/workbench/close-asks", test_close_asks);
  g_test_add_func ("/workbench/fork-fields-kept", test_fork_fields_kept);
  g_test_add_func ("/workbench/open-paths", test_open_paths);
  status = g_test_run ();
  g_clear_object (&app);
  remove_tree (scratch);
  return status;
}
