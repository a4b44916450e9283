/* test-window.c: the workbench window under Xvfb (skipped without a
 * display), driven the way a user drives it: open the LeNet example, add a
 * layer through the document and through the palette's drop path, connect
 * it, edit fields through the inspector's form, undo and redo through the
 * window's actions, type in the source view, save to a temporary file,
 * reopen it and compare; then open every zoo file in a window.
 *
 * /window/screenshots takes PNGs of the window (LeNet with a layer
 * selected, its source, GoogLeNet, a typo in the source) in English and in
 * Simplified Chinese, and checks that they look like screenshots; with
 * CT_SCREENSHOT_DIR set they are kept there (CT_SHOT_LENET: another LeNet
 * file to show). */
#include <locale.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "application.h"
#include "gui-test.h"
#include "graph-view.h"
#include "palette.h"
#include "property-form.h"
#include "window.h"
#include "window-private.h"

static CtApplication *app;

static CtWindow *
new_window (void)
{
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
close_window (CtWindow *window)
{
  /* Unsaved changes are fine here: no question. */
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

static int
layer_named (CtDocument *doc, const char *name)
{
  const Caffe__NetParameter *net = ct_document_get_net (doc);

  for (gsize i = 0; net != NULL && i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return (int) i;
  return -1;
}

static CtGraphModel *
model_of (CtWindow *window)
{
  return ct_graph_view_get_model (CT_GRAPH_VIEW (ct_window_get_graph_view (window)));
}

/* The palette row for TYPE, found through the widget tree. */
static GtkWidget *
palette_row (GtkWidget *widget, const char *type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_LIST_BOX_ROW (child))
        {
          GtkWidget *title = gtk_widget_get_first_child (
            gtk_widget_get_last_child (gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (child))));
          if (GTK_IS_LABEL (title) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (title)), type) == 0)
            return child;
        }
      found = palette_row (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkDragSource *
drag_source_of (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);
      if (GTK_IS_DRAG_SOURCE (controller))
        return GTK_DRAG_SOURCE (controller);
    }
  return NULL;
}

static void
activate (CtWindow *window, const char *action)
{
  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
}

static void
test_edit_save_reopen (void)
{
  CtWindow *window = new_window ();
  CtDocument *doc = ct_window_get_document (window);
  CtPropertyForm *form = CT_PROPERTY_FORM (ct_window_get_property_form (window));
  GtkWidget *view = ct_window_get_graph_view (window);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cortado-window-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "edited.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *saved = NULL;
  g_autofree char *dropped = NULL;
  const Caffe__NetParameter *net;
  GtkWidget *editor;
  int fc;

  g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  ct_gui_test_settle (window);
  g_assert_true (ct_window_is_blank (window) == FALSE);
  g_assert_nonnull (model_of (window));
  /* Eleven layers, relu1 folded into ip1. */
  g_assert_cmpuint (ct_graph_model_n_nodes (model_of (window)), ==, 10);
  g_assert_cmpint (ct_graph_model_find_node (model_of (window), "relu1"), >=, 0);

  /* 1. Through the document: a Dropout after ip1, folded in place. */
  g_assert_cmpint (ct_document_add_layer (doc, "Dropout", "ip1", &error), >=, 0);
  ct_gui_test_settle (window);
  g_assert_cmpint (ct_graph_model_find_node (model_of (window), "drop1"), >=, 0);

  /* 2. Through the palette's drop path: the row's drag carries the type,
   * the canvas reports the drop, the window adds the layer. */
  {
    GtkWidget *row = palette_row (ct_window_get_palette (window), "InnerProduct");
    GtkDragSource *source;
    GdkContentProvider *content = NULL;
    GValue value = G_VALUE_INIT;

    g_assert_nonnull (row);
    source = drag_source_of (row);
    g_assert_nonnull (source);
    g_signal_emit_by_name (source, "prepare", 5.0, 5.0, &content);
    g_assert_nonnull (content);
    g_value_init (&value, G_TYPE_STRING);
    g_assert_true (gdk_content_provider_get_value (content, &value, NULL));
    g_assert_cmpstr (g_value_get_string (&value), ==, "InnerProduct");
    /* on an empty spot, left of the graph (a drop on a node feeds it) */
    g_signal_emit_by_name (view, "layer-dropped", g_value_get_string (&value), -300.0, 40.0, -1);
    g_value_unset (&value);
    g_object_unref (content);
  }
  ct_gui_test_settle (window);
  fc = layer_named (doc, "fc1");
  g_assert_cmpint (fc, >=, 0);
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    g_assert_cmpstr (selected[0], ==, "fc1");
  }
  dropped = ct_window_drop_layer (window, "Pooling", -300, 200, -1);
  g_assert_cmpstr (dropped, ==, "pool3");
  ct_gui_test_settle (window);

  /* 3. Connect pool2's output to fc1, as a drag between ports asks. */
  g_signal_emit_by_name (view, "connect-requested", "pool2", 0u, "fc1", -1);
  ct_gui_test_settle (window);
  fc = layer_named (doc, "fc1");
  net = ct_document_get_net (doc);
  g_assert_cmpuint (net->layer[fc]->n_bottom, ==, 1);
  g_assert_cmpstr (net->layer[fc]->bottom[0], ==, "pool2");
  g_assert_null (ct_document_get_layer_error (doc, (guint) fc));

  /* 4. Edit fields through the form: an entry, a switch. */
  {
    const char *ids[] = { "fc1", NULL };
    ct_window_select (window, ids);
  }
  ct_gui_test_settle (window);
  editor = ct_property_form_get_editor (form, "inner_product_param.num_output");
  g_assert_nonnull (editor);
  g_assert_true (GTK_IS_EDITABLE (editor));
  gtk_editable_set_text (GTK_EDITABLE (editor), "64");
  g_signal_emit_by_name (editor, "activate");
  ct_gui_test_settle (window);
  net = ct_document_get_net (doc);
  fc = layer_named (doc, "fc1");
  g_assert_cmpuint (net->layer[fc]->inner_product_param->num_output, ==, 64);
  /* A bad number is marked, explained and not sent. */
  editor = ct_property_form_get_editor (form, "inner_product_param.num_output");
  gtk_editable_set_text (GTK_EDITABLE (editor), "-5");
  g_signal_emit_by_name (editor, "activate");
  g_assert_true (gtk_widget_has_css_class (editor, "error"));
  g_assert_nonnull (gtk_widget_get_tooltip_text (editor));
  ct_gui_test_settle (window);
  g_assert_cmpuint (ct_document_get_net (doc)->layer[fc]->inner_product_param->num_output, ==,
                    64);
  editor = ct_property_form_get_editor (form, "inner_product_param.bias_term");
  g_assert_true (GTK_IS_SWITCH (editor));
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (editor)));
  gtk_switch_set_active (GTK_SWITCH (editor), FALSE);
  ct_gui_test_settle (window);
  net = ct_document_get_net (doc);
  g_assert_true (net->layer[fc]->inner_product_param->has_bias_term);
  g_assert_false (net->layer[fc]->inner_product_param->bias_term);

  /* 5. Undo and redo through the window's actions. */
  activate (window, "undo");
  ct_gui_test_settle (window);
  g_assert_true (ct_document_get_net (doc)->layer[fc]->inner_product_param->bias_term);
  activate (window, "undo");
  ct_gui_test_settle (window);
  g_assert_cmpuint (ct_document_get_net (doc)->layer[fc]->inner_product_param->num_output, ==,
                    10);
  activate (window, "redo");
  activate (window, "redo");
  ct_gui_test_settle (window);
  net = ct_document_get_net (doc);
  g_assert_cmpuint (net->layer[fc]->inner_product_param->num_output, ==, 64);
  g_assert_false (net->layer[fc]->inner_product_param->bias_term);

  /* The form follows: the entry shows the redone value. */
  editor = ct_property_form_get_editor (form, "inner_product_param.num_output");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (editor)), ==, "64");

  /* 6. Type in the source view: a comment line in two bursts close
   * together (one undo step), then, after the group is ended (as by a
   * pause), a typo (another step). The window hands the text over at once
   * rather than after its re-parse delay. */
  {
    GtkTextBuffer *buffer =
      gtk_text_view_get_buffer (GTK_TEXT_VIEW (ct_window_get_source_view (window)));
    GtkTextIter start, end;
    g_autofree char *before = g_strdup (ct_document_get_text (doc));
    g_autofree char *typed = g_strconcat (before, "# typed by the test\n", NULL);
    g_autofree char *shown = NULL;

    gtk_text_buffer_get_end_iter (buffer, &end);
    gtk_text_buffer_insert (buffer, &end, "# typed ", -1);
    ct_window_source_flush (window);
    gtk_text_buffer_get_end_iter (buffer, &end);
    gtk_text_buffer_insert (buffer, &end, "by the test\n", -1);
    ct_window_source_flush (window);
    g_assert_cmpstr (ct_document_get_text (doc), ==, typed);
    ct_document_end_undo_group (doc);
    gtk_text_buffer_get_end_iter (buffer, &end);
    gtk_text_buffer_insert (buffer, &end, "layer { oops", -1);
    ct_window_source_flush (window);
    g_assert_nonnull (ct_document_get_parse_error (doc));
    activate (window, "undo");
    ct_gui_test_settle (window);
    g_assert_null (ct_document_get_parse_error (doc));
    g_assert_cmpstr (ct_document_get_text (doc), ==, typed);
    /* the source view follows */
    gtk_text_buffer_get_bounds (buffer, &start, &end);
    shown = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
    g_assert_cmpstr (shown, ==, typed);
    activate (window, "undo");
    ct_gui_test_settle (window);
    g_assert_cmpstr (ct_document_get_text (doc), ==, before);
    activate (window, "redo");
    ct_gui_test_settle (window);
    g_assert_cmpstr (ct_document_get_text (doc), ==, typed);
  }

  /* 7. Save to a temporary file, then again through win.save. */
  g_assert_true (ct_document_save (doc, file, &error));
  g_assert_no_error (error);
  g_assert_false (ct_document_get_modified (doc));
  g_assert_true (ct_document_set_field (doc, "name", "LeNet edited", &error));
  activate (window, "save");
  ct_gui_test_settle (window);
  g_assert_false (ct_document_get_modified (doc));
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  g_assert_cmpstr (saved, ==, ct_document_get_text (doc));
  g_assert_nonnull (strstr (saved, "name: \"LeNet edited\""));
  g_assert_nonnull (strstr (saved, "num_output: 64"));

  /* 8. Reopen in a second window and compare. */
  {
    CtWindow *again = new_window ();
    CtDocument *doc2 = ct_window_get_document (again);
    g_autofree char *canonical1 = NULL;
    g_autofree char *canonical2 = NULL;

    g_assert_true (ct_window_load_file (again, file));
    ct_gui_test_settle (again);
    g_assert_cmpstr (ct_document_get_text (doc2), ==, saved);
    g_assert_false (ct_document_get_modified (doc2));
    canonical1 = ct_document_copy_layers (doc, (guint[]) { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                           11, 12, 13 }, 14);
    canonical2 = ct_document_copy_layers (doc2, (guint[]) { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                            11, 12, 13 }, 14);
    g_assert_cmpstr (canonical1, ==, canonical2);
    g_assert_cmpuint (ct_graph_model_n_nodes (model_of (again)), ==,
                      ct_graph_model_n_nodes (model_of (window)));
    g_test_message ("saved and reopened %u layers, %u nodes",
                    (guint) ct_document_get_net (doc2)->n_layer,
                    ct_graph_model_n_nodes (model_of (again)));
    close_window (again);
  }

  /* 9. Delete through the canvas's request, copy and paste through the
   * clipboard actions. */
  {
    const char *ids[] = { "pool3", NULL };
    guint n_before = ct_document_get_net (doc)->n_layer;

    g_signal_emit_by_name (view, "delete-requested", ids);
    ct_gui_test_settle (window);
    g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, n_before - 1);
    ct_window_select (window, (const char *[]) { "conv1", NULL });
    activate (window, "duplicate");
    ct_gui_test_settle (window);
    g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, n_before);
    g_assert_cmpint (layer_named (doc, "conv2"), >=, 0);
    g_assert_cmpint (layer_named (doc, "conv3"), >=, 0);
  }

  /* 10. A drop-down and a repeated field's add and remove buttons. */
  {
    int pool;

    ct_window_select (window, (const char *[]) { "pool1", NULL });
    ct_gui_test_settle (window);
    editor = ct_property_form_get_editor (form, "pooling_param.pool");
    g_assert_true (GTK_IS_DROP_DOWN (editor));
    gtk_drop_down_set_selected (GTK_DROP_DOWN (editor), 1); /* AVE */
    ct_gui_test_settle (window);
    pool = layer_named (doc, "pool1");
    g_assert_cmpint (ct_document_get_net (doc)->layer[pool]->pooling_param->pool, ==,
                     CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE);
    editor = ct_property_form_get_editor (form, "top[+]");
    g_assert_true (GTK_IS_BUTTON (editor));
    g_signal_emit_by_name (editor, "clicked");
    ct_gui_test_settle (window);
    g_assert_cmpuint (ct_document_get_net (doc)->layer[pool]->n_top, ==, 2);
    editor = ct_property_form_get_editor (form, "top[1]");
    g_assert_true (GTK_IS_EDITABLE (editor));
    gtk_editable_set_text (GTK_EDITABLE (editor), "pool1_copy");
    g_signal_emit_by_name (editor, "activate");
    ct_gui_test_settle (window);
    g_assert_cmpstr (ct_document_get_net (doc)->layer[pool]->top[1], ==, "pool1_copy");
    activate (window, "undo");
    activate (window, "undo");
    activate (window, "undo");
    ct_gui_test_settle (window);
    g_assert_cmpuint (ct_document_get_net (doc)->layer[pool]->n_top, ==, 1);
    g_assert_cmpint (ct_document_get_net (doc)->layer[pool]->pooling_param->pool, ==,
                     CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX);
  }

  close_window (window);
  g_unlink (path);
  {
    g_autofree char *sidecar = g_strconcat (path, ".cortado", NULL);
    g_unlink (sidecar);
  }
  g_rmdir (dir);
}

/* Every zoo net opens in a window, its graph appears, and nothing crashes. */
static void
test_zoo (void)
{
  g_autofree char *zoo = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", NULL);
  g_autoptr (GDir) top = g_dir_open (zoo, 0, NULL);
  CtWindow *window = new_window ();
  const char *name;
  guint opened = 0, refused = 0;
  gint64 start = g_get_monotonic_time ();

  g_assert_nonnull (top);
  while ((name = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *sub = g_build_filename (zoo, name, NULL);
      g_autoptr (GDir) dir = g_dir_open (sub, 0, NULL);
      const char *file_name;

      while (dir != NULL && (file_name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (sub, file_name, NULL);
          g_autoptr (GFile) file = g_file_new_for_path (path);

          if (!g_str_has_suffix (file_name, ".prototxt") && !g_str_has_suffix (file_name, ".proto"))
            continue;
          gint64 t0 = g_get_monotonic_time ();
          double load_ms;

          if (!ct_window_load_file (window, file))
            {
              refused++; /* solvers */
              continue;
            }
          load_ms = (g_get_monotonic_time () - t0) / 1e3;
          ct_gui_test_settle (window);
          if (load_ms > 300)
            g_test_message ("%s/%s: %.0f ms to open, %.0f ms until checked", name, file_name,
                            load_ms, (g_get_monotonic_time () - t0) / 1e3);
          g_assert_nonnull (model_of (window));
          g_assert_cmpuint (ct_graph_model_n_nodes (model_of (window)), >, 0);
          opened++;
        }
    }
  g_test_message ("opened %u zoo nets in the window (%u solvers refused) in %.1f s", opened,
                  refused, (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpuint (opened, >=, 50);
  close_window (window);
}

/* Screenshots. */

static void
shoot (CtWindow *window, const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  ct_gui_test_settle (window);
  ct_gui_test_spin (600);
  g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
  g_test_message ("saved %s", path);
}

/* The four screenshots, named NAME SUFFIX.png, in DIR. */
static void
take_screenshots (const char *dir, const char *suffix)
{
  const char *lenet = g_getenv ("CT_SHOT_LENET");
  g_autofree char *googlenet = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo",
                                                 "bvlc_googlenet", "deploy.prototxt", NULL);
  CtWindow *window = new_window ();

  if (lenet != NULL)
    {
      g_autoptr (GFile) file = g_file_new_for_path (lenet);
      g_assert_true (ct_window_load_file (window, file));
    }
  else
    g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  ct_gui_test_settle (window);
  ct_window_select (window, (const char *[]) { "conv2", NULL });
  {
    g_autofree char *name = g_strdup_printf ("lenet%s.png", suffix);
    shoot (window, dir, name);
  }
  g_action_group_activate_action (G_ACTION_GROUP (window), "toggle-source", NULL);
  {
    g_autofree char *name = g_strdup_printf ("lenet-source%s.png", suffix);
    shoot (window, dir, name);
  }
  g_action_group_activate_action (G_ACTION_GROUP (window), "toggle-source", NULL);
  {
    g_autoptr (GFile) file = g_file_new_for_path (googlenet);
    g_autofree char *name = g_strdup_printf ("googlenet%s.png", suffix);

    g_assert_true (ct_window_load_file (window, file));
    ct_gui_test_settle (window);
    ct_window_select (window, (const char *[]) { "inception_4a/3x3", NULL });
    ct_graph_view_set_zoom (CT_GRAPH_VIEW (ct_window_get_graph_view (window)), 0.7);
    ct_graph_view_reveal (CT_GRAPH_VIEW (ct_window_get_graph_view (window)), "inception_4a/3x3",
                          FALSE);
    shoot (window, dir, name);
  }
  /* A typo in the source: underlined, explained in the status line. */
  {
    GtkTextView *source = GTK_TEXT_VIEW (ct_window_get_source_view (window));
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (source);
    GtkTextIter iter;
    g_autofree char *name = g_strdup_printf ("source-error%s.png", suffix);

    g_assert_true (ct_window_load_example (window, "cifar10-quick"));
    ct_gui_test_settle (window);
    g_action_group_activate_action (G_ACTION_GROUP (window), "toggle-source", NULL);
    gtk_text_buffer_get_iter_at_line (buffer, &iter, 52);
    gtk_text_buffer_insert (buffer, &iter, "    kernal_size: 5\n", -1);
    gtk_text_buffer_get_iter_at_line (buffer, &iter, 48);
    gtk_text_buffer_place_cursor (buffer, &iter);
    ct_gui_test_spin (450);
    shoot (window, dir, name);
  }
  close_window (window);
}

static const char *const shot_names[] = { "lenet", "lenet-source", "googlenet", "source-error" };

/* The pixels of the screenshot DIR/NAME SUFFIX.png (4 bytes a pixel), which
 * must look like one: the window's size, many colours, and none of them
 * covering nearly all of it (not blank). */
static GBytes *
check_screenshot (const char *dir, const char *name, const char *suffix)
{
  g_autofree char *file = g_strconcat (name, suffix, ".png", NULL);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = gdk_texture_new_from_filename (path, &error);
  g_autoptr (GHashTable) colours = g_hash_table_new (NULL, NULL);
  guint32 *pixels;
  int width, height;
  gsize n, commonest = 0;

  g_assert_no_error (error);
  /* the window asks for 1280 x 800, less what the screen takes */
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  g_assert_cmpint (width, >=, 1000);
  g_assert_cmpint (width, <=, 1280);
  g_assert_cmpint (height, >=, 600);
  g_assert_cmpint (height, <=, 800);
  n = (gsize) width * (gsize) height;
  pixels = g_new (guint32, n);
  gdk_texture_download (texture, (guchar *) pixels, (gsize) width * 4);
  for (gsize i = 0; i < n; i++)
    {
      gsize count = GPOINTER_TO_SIZE (g_hash_table_lookup (colours,
                                                           GUINT_TO_POINTER (pixels[i]))) + 1;

      g_hash_table_insert (colours, GUINT_TO_POINTER (pixels[i]), GSIZE_TO_POINTER (count));
      commonest = MAX (commonest, count);
    }
  g_test_message ("%s: %d x %d, %u colours, the commonest on %.0f%% of the pixels", file, width,
                  height, g_hash_table_size (colours), 100.0 * (double) commonest / (double) n);
  g_assert_cmpuint (g_hash_table_size (colours), >=, 64);
  g_assert_cmpuint (commonest, <, n * 9 / 10);
  return g_bytes_new_take (pixels, n * sizeof (guint32));
}

/* How many pixels of A and B (as check_screenshot returns them) differ. */
static gsize
pixels_differing (GBytes *a, GBytes *b)
{
  gsize n = g_bytes_get_size (a) / sizeof (guint32);
  const guint32 *pa = g_bytes_get_data (a, NULL), *pb = g_bytes_get_data (b, NULL);
  gsize differ = 0;

  g_assert_cmpuint (g_bytes_get_size (b), ==, g_bytes_get_size (a));
  for (gsize i = 0; i < n; i++)
    differ += pa[i] != pb[i];
  return differ;
}

/* Screenshots in English, then in Simplified Chinese from a process
 * started in that language, into CT_SCREENSHOT_DIR if set (kept there),
 * else into a temporary folder. Each must look like a screenshot, and
 * each Chinese one must differ from its English twin. */
static void
test_screenshots (void)
{
  const char *wanted = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *dir = NULL;
  g_autofree char *localedir = NULL;
  locale_t zh;

  if (g_test_subprocess ())
    {
      /* Cortado's own strings in Chinese, not only GTK's */
      g_assert_cmpstr (g_dgettext (GETTEXT_PACKAGE, "_Open"), !=, "_Open");
      take_screenshots (wanted, "-zh_CN");
      return;
    }
  dir = wanted != NULL ? g_strdup (wanted) : g_dir_make_tmp ("cortado-shots-XXXXXX", NULL);
  g_assert_nonnull (dir);
  take_screenshots (dir, "");
  for (guint i = 0; i < G_N_ELEMENTS (shot_names); i++)
    g_bytes_unref (check_screenshot (dir, shot_names[i], ""));

  zh = newlocale (LC_ALL_MASK, "zh_CN.UTF-8", (locale_t) 0);
  if (zh == (locale_t) 0)
    g_test_skip ("no zh_CN.UTF-8 locale (.ci/install-deps makes it): no Chinese screenshots");
  else
    {
      /* The translations of this build, and the language for the child
       * only (the environment is put back at once). */
      freelocale (zh);
      localedir = g_test_build_filename (G_TEST_BUILT, "..", "..", "po", NULL);
      g_setenv ("CT_SCREENSHOT_DIR", dir, TRUE);
      g_setenv ("CORTADO_LOCALEDIR", localedir, TRUE);
      g_setenv ("LC_ALL", "zh_CN.UTF-8", TRUE);
      g_setenv ("LANGUAGE", "zh_CN", TRUE);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_unsetenv ("LANGUAGE");
      g_unsetenv ("LC_ALL");
      g_unsetenv ("CORTADO_LOCALEDIR");
      if (wanted == NULL)
        g_unsetenv ("CT_SCREENSHOT_DIR");
      g_test_trap_assert_passed ();
      for (guint i = 0; i < G_N_ELEMENTS (shot_names); i++)
        {
          g_autoptr (GBytes) english = check_screenshot (dir, shot_names[i], "");
          g_autoptr (GBytes) chinese = check_screenshot (dir, shot_names[i], "-zh_CN");
          gsize differ = pixels_differing (english, chinese);

          g_test_message ("%s: %" G_GSIZE_FORMAT " pixels differ in Chinese", shot_names[i],
                          differ);
          g_assert_cmpuint (differ, >, g_bytes_get_size (english) / sizeof (guint32) / 200);
        }
    }
  if (wanted == NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (shot_names); i++)
        for (guint zh_cn = 0; zh_cn < 2; zh_cn++)
          {
            g_autofree char *file = g_strconcat (shot_names[i], zh_cn ? "-zh_CN" : "", ".png",
                                                 NULL);
            g_autofree char *path = g_build_filename (dir, file, NULL);

            g_unlink (path);
          }
      g_rmdir (dir);
    }
}

/* An error toast stays until read, but a new start takes it away: the NaN
 * toast of one run must not sit over the next healthy one. */
static void
test_error_toast (void)
{
  CtWindow *window = new_window ();

  ct_window_show_error (window, "first");
  ct_gui_test_spin (10);
  g_assert_nonnull (ct_window_get_error_shown (window));
  g_assert_cmpstr (ct_window_get_error_shown (window), ==, "first");
  ct_window_dismiss_error (window);
  ct_gui_test_spin (10);
  g_assert_null (ct_window_get_error_shown (window));
  close_window (window);
}

/* Toasts and errors come and go while the main loop is now free, now
 * blocked (a busy window): libadwaita 1.2 must never be handed a toast it
 * would abort on, and the error shown is always the latest one. */
static void
test_toast_storm (void)
{
  CtWindow *window = new_window ();
  GRand *rand = g_rand_new_with_seed (7);
  g_autofree char *previous = NULL;

  for (guint round = 0; round < 8; round++)
    {
      g_autofree char *error = g_strdup_printf ("error %u", round);

      AdwToast *notice = adw_toast_new ("the net changed");

      ct_window_show_toast (window, "saved");
      ct_gui_test_spin (g_rand_int_range (rand, 0, 300));
      /* a caller may ask for a high priority: the window must not pass it on */
      adw_toast_set_priority (notice, ADW_TOAST_PRIORITY_HIGH);
      ct_window_add_toast (window, notice);
      /* (the queue or the overlay holds it now) */
      g_assert_cmpint (adw_toast_get_priority (notice), ==, ADW_TOAST_PRIORITY_NORMAL);
      g_usleep ((gulong) g_rand_int_range (rand, 0, 300) * 1000);
      ct_gui_test_spin (g_rand_int_range (rand, 0, 300));
      ct_window_show_error (window, error);
      /* blocked past the overlay's animations, then free again */
      g_usleep ((gulong) g_rand_int_range (rand, 0, 900) * 1000);
      ct_gui_test_spin (g_rand_int_range (rand, 0, 700));
      /* the error before may still be making way */
      if (ct_window_get_error_shown (window) != NULL
          && g_strcmp0 (ct_window_get_error_shown (window), previous) != 0)
        g_assert_cmpstr (ct_window_get_error_shown (window), ==, error);
      g_free (previous);
      previous = g_strdup (error);
      if (round % 2 == 0)
        ct_window_dismiss_error (window);
      g_usleep ((gulong) g_rand_int_range (rand, 0, 400) * 1000);
      ct_gui_test_spin (g_rand_int_range (rand, 0, 200));
    }
  /* the last error was kept: it comes up */
  for (int i = 0; i < 400 && ct_window_get_error_shown (window) == NULL; i++)
    ct_gui_test_spin (10);
  g_assert_cmpstr (ct_window_get_error_shown (window), ==, "error 7");
  g_assert_cmpuint (ct_window_n_errors (window), ==, 1);
  g_rand_free (rand);
  close_window (window);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  gboolean display = ct_gui_test_init (&argc, &argv, "/gtk/window", &scratch, &app);

  /* The screenshots' subprocess reads Cortado's strings in Chinese: no
   * English forced here. */
  g_unsetenv ("LANGUAGE");
  if (display)
    {
      g_test_add_func ("/gtk/window/error-toast", test_error_toast);
      g_test_add_func ("/gtk/window/toast-storm", test_toast_storm);
      g_test_add_func ("/gtk/window/edit-save-reopen", test_edit_save_reopen);
      g_test_add_func ("/gtk/window/zoo", test_zoo);
      g_test_add_func ("/gtk/window/screenshots", test_screenshots);
    }
  return ct_gui_test_finish (g_test_run (), scratch, app);
}
