/* test-window-editing.c: the window's editing promises, checked in a real
 * window under Xvfb (skipped without a display):
 *
 * - one selection: selecting in the graph, the source view or by name
 *   reaches the other two and the inspector;
 * - quitting with several modified nets asks once, listing them all;
 * - parse and layer errors are underlined where their message points, and
 *   an error at the end of the file is still visible;
 * - Tab in the inspector moves on to the next control after an edit,
 *   without jumping to the top or scrolling the panel away;
 * - every control a keyboard reaches has a name a screen reader can say.
 *
 * With CT_SCREENSHOT_DIR set, the quit question and the error underline
 * are saved there as PNGs. Drafts and recent files go to temporary folders. */
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "proto-error.h"
#include "application.h"
#include "gui-test.h"
#include "graph-view.h"
#include "property-form.h"
#include "window.h"
#include "test-files.h"

static CtApplication *app;

static CtWindow *
example_window (const char *example)
{
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_example (window, example));
  ct_gui_test_settle (window);
  return window;
}

static void
shoot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  path = g_build_filename (dir, name, NULL);
  ct_gui_test_spin (400);
  g_assert_true (ct_gui_test_save_png (widget, path));
  g_test_message ("saved %s", path);
}

static GtkTextBuffer *
source_buffer (CtWindow *window)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (ct_window_get_source_view (window)));
}

/* One selection. */

static void
test_one_selection (void)
{
  CtWindow *window = example_window ("lenet-fashion");
  CtGraphView *view = CT_GRAPH_VIEW (ct_window_get_graph_view (window));
  CtPropertyForm *form = CT_PROPERTY_FORM (ct_window_get_property_form (window));
  GtkTextBuffer *buffer = source_buffer (window);
  const char *text = ct_document_get_text (ct_window_get_document (window));
  GtkTextIter iter;

  /* Set through the window: the graph and the inspector follow. */
  ct_window_select (window, (const char *[]) { "conv2", NULL });
  ct_gui_test_settle (window);
  {
    g_auto (GStrv) shown = ct_graph_view_dup_selected (view);
    GtkWidget *name = ct_property_form_get_editor (form, "name");

    g_assert_cmpstrv (shown, ((const char *[]) { "conv2", NULL }));
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name)), ==, "conv2");
  }
  /* Set by the canvas: the window's selection and the inspector follow. */
  ct_graph_view_set_selected (view, (const char *[]) { "pool1", NULL });
  g_signal_emit_by_name (view, "selection-changed");
  ct_gui_test_settle (window);
  {
    g_auto (GStrv) selected = ct_window_dup_selected (window);
    GtkWidget *name = ct_property_form_get_editor (form, "name");

    g_assert_cmpstrv (selected, ((const char *[]) { "pool1", NULL }));
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name)), ==, "pool1");
  }
  /* Set by the source view's cursor: the graph and the inspector follow. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "toggle-source", NULL);
  ct_gui_test_settle (window);
  gtk_widget_grab_focus (ct_window_get_source_view (window));
  gtk_text_buffer_get_iter_at_offset (
    buffer, &iter, (int) g_utf8_pointer_to_offset (text, strstr (text, "name: \"ip1\"")));
  gtk_text_buffer_place_cursor (buffer, &iter);
  ct_gui_test_spin (300);
  ct_gui_test_settle (window);
  {
    g_auto (GStrv) shown = ct_graph_view_dup_selected (view);
    GtkWidget *name = ct_property_form_get_editor (form, "name");

    g_assert_cmpstrv (shown, ((const char *[]) { "ip1", NULL }));
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (name)), ==, "ip1");
  }
  ct_gui_test_close_window (window);
}

/* Quitting asks once. */

static GPtrArray *
message_dialogs (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  GPtrArray *dialogs = g_ptr_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWindow) toplevel = g_list_model_get_item (toplevels, i);
      if (ADW_IS_MESSAGE_DIALOG (toplevel) && gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        g_ptr_array_add (dialogs, toplevel);
    }
  return dialogs;
}

/* Every row title under WIDGET, "|"-joined. */
static void
collect_titles (GtkWidget *widget, GString *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_PREFERENCES_ROW (child))
        g_string_append_printf (out, "%s|", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child)));
      collect_titles (child, out);
    }
}

static void
test_quit_asks_once (void)
{
  CtWindow *first = example_window ("lenet-fashion");
  CtWindow *second = example_window ("mlp");
  CtWindow *clean = example_window ("logistic-regression");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) dialogs = NULL;
  g_autoptr (GString) titles = g_string_new (NULL);
  AdwMessageDialog *question;

  ct_document_discard_draft (ct_window_get_document (clean));
  g_assert_true (ct_document_set_field (ct_window_get_document (first), "name", "First", &error));
  g_assert_true (ct_document_set_field (ct_window_get_document (second), "name", "Second",
                                        &error));
  ct_gui_test_settle (second);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  ct_gui_test_spin (100);
  dialogs = message_dialogs ();
  /* One question for both nets, not one per window. */
  g_assert_cmpuint (dialogs->len, ==, 1);
  question = ADW_MESSAGE_DIALOG (dialogs->pdata[0]);
  g_assert_cmpstr (adw_message_dialog_get_heading (question), ==, "Save Changes?");
  g_assert_true (adw_message_dialog_has_response (question, "discard"));
  g_assert_true (adw_message_dialog_has_response (question, "save"));
  g_assert_nonnull (adw_message_dialog_get_extra_child (question));
  collect_titles (adw_message_dialog_get_extra_child (question), titles);
  g_test_message ("listed: %s", titles->str);
  g_assert_nonnull (strstr (titles->str, ct_document_get_title (ct_window_get_document (first))));
  g_assert_nonnull (strstr (titles->str,
                            ct_document_get_title (ct_window_get_document (second))));
  g_assert_null (strstr (titles->str, ct_document_get_title (ct_window_get_document (clean))));
  /* Nothing is closed while the question is open. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (first)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (clean)));
  shoot (GTK_WIDGET (question), "item5-after.png");

  /* Cancel keeps everything. */
  /* (A button answers and closes; a test answers, then closes.) */
  adw_message_dialog_response (question, "cancel");
  gtk_window_destroy (GTK_WINDOW (question));
  ct_gui_test_spin (100);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (first)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (second)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (clean)));
  {
    g_autoptr (GPtrArray) left = message_dialogs ();
    g_assert_cmpuint (left->len, ==, 0);
  }

  /* Discard closes every window without another question. */
  g_object_ref (first);
  g_object_ref (second);
  g_object_ref (clean);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  ct_gui_test_spin (100);
  g_clear_pointer (&dialogs, g_ptr_array_unref);
  dialogs = message_dialogs ();
  g_assert_cmpuint (dialogs->len, ==, 1);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialogs->pdata[0]), "discard");
  gtk_window_destroy (GTK_WINDOW (dialogs->pdata[0]));
  ct_gui_test_spin (100);
  g_clear_pointer (&dialogs, g_ptr_array_unref);
  dialogs = message_dialogs ();
  g_assert_cmpuint (dialogs->len, ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (first)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (second)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (clean)));
  g_object_unref (first);
  g_object_unref (second);
  g_object_unref (clean);
}

/* Collect the check buttons under WIDGET. */
static void
collect_checks (GtkWidget *widget, GPtrArray *checks)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_CHECK_BUTTON (child))
        g_ptr_array_add (checks, child);
      collect_checks (child, checks);
    }
}

/* Saving from the question saves the ticked nets and drops the others. */
static void
test_quit_saves_ticked (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cortado-quit-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "kept.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  CtWindow *saved = ct_window_new (app);
  CtWindow *dropped = example_window ("mlp");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) dialogs = NULL;
  g_autoptr (GPtrArray) checks = g_ptr_array_new ();
  g_autofree char *text = NULL;
  AdwMessageDialog *question;

  g_assert_true (g_file_set_contents (path, "name: \"Kept\"\n", -1, NULL));
  gtk_window_present (GTK_WINDOW (saved));
  g_assert_true (ct_window_load_file (saved, file));
  ct_gui_test_settle (saved);
  g_assert_true (ct_document_set_field (ct_window_get_document (saved), "name", "Saved", &error));
  g_assert_true (ct_document_set_field (ct_window_get_document (dropped), "name", "Dropped",
                                        &error));
  ct_gui_test_settle (dropped);
  g_object_ref (saved);
  g_object_ref (dropped);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  ct_gui_test_spin (100);
  dialogs = message_dialogs ();
  g_assert_cmpuint (dialogs->len, ==, 1);
  question = ADW_MESSAGE_DIALOG (dialogs->pdata[0]);
  collect_checks (adw_message_dialog_get_extra_child (question), checks);
  g_assert_cmpuint (checks->len, ==, 2);
  /* All ticked at first; untick the untitled net: it is dropped, not
   * asked a file name for. */
  for (guint i = 0; i < checks->len; i++)
    g_assert_true (gtk_check_button_get_active (checks->pdata[i]));
  for (guint i = 0; i < checks->len; i++)
    {
      GtkWidget *row = gtk_widget_get_ancestor (checks->pdata[i], ADW_TYPE_ACTION_ROW);
      if (g_str_equal (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)),
                       ct_document_get_title (ct_window_get_document (dropped))))
        gtk_check_button_set_active (checks->pdata[i], FALSE);
    }
  adw_message_dialog_response (question, "save");
  gtk_window_destroy (GTK_WINDOW (question));
  ct_gui_test_spin (100);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (saved)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (dropped)));
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "name: \"Saved\""));
  g_object_unref (saved);
  g_object_unref (dropped);
  g_unlink (path);
  {
    /* The layout sidecar, if one was written. */
    g_autoptr (GDir) left = g_dir_open (dir, 0, NULL);
    const char *name;
    while (left != NULL && (name = g_dir_read_name (left)) != NULL)
      {
        g_autofree char *child = g_build_filename (dir, name, NULL);
        g_unlink (child);
      }
  }
  g_rmdir (dir);
}

/* Error marks. */

/* The first range of TAG in BUFFER: FALSE when there is none. */
static gboolean
tag_range (GtkTextBuffer *buffer, const char *tag_name, GtkTextIter *start, GtkTextIter *end)
{
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), tag_name);

  g_assert_nonnull (tag);
  gtk_text_buffer_get_start_iter (buffer, start);
  if (!gtk_text_iter_starts_tag (start, tag) && !gtk_text_iter_forward_to_tag_toggle (start, tag))
    return FALSE;
  *end = *start;
  gtk_text_iter_forward_to_tag_toggle (end, tag);
  return !gtk_text_iter_equal (start, end);
}

/* TEXT into the source view, as if typed, and parsed. */
static void
type_text (CtWindow *window, const char *text)
{
  gtk_text_buffer_set_text (source_buffer (window), text, -1);
  ct_gui_test_spin (450);
  ct_gui_test_settle (window);
  g_assert_cmpstr (ct_document_get_text (ct_window_get_document (window)), ==, text);
}

/* The source view, scrolled to show LINE (1-based) at its top. */
static void
show_line (CtWindow *window, int line)
{
  GtkTextView *view = GTK_TEXT_VIEW (ct_window_get_source_view (window));
  GtkTextIter iter;
  GtkTextMark *mark;

  adw_view_stack_set_visible_child_name (
    ADW_VIEW_STACK (gtk_widget_get_ancestor (GTK_WIDGET (view), ADW_TYPE_VIEW_STACK)), "source");
  gtk_text_buffer_get_iter_at_line (gtk_text_view_get_buffer (view), &iter, line - 1);
  mark = gtk_text_buffer_create_mark (gtk_text_view_get_buffer (view), NULL, &iter, TRUE);
  ct_gui_test_settle (window);
  gtk_text_view_scroll_to_mark (view, mark, 0.0, TRUE, 0.0, 0.0);
  ct_gui_test_settle (window);
  gtk_text_buffer_delete_mark (gtk_text_view_get_buffer (view), mark);
}

/* LINE and COLUMN from "...:LINE:COLUMN: ..." */
static void
message_position (const char *message, int *line, int *column)
{
  g_autoptr (GRegex) regex = g_regex_new (":([0-9]+):([0-9]+):", 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  g_autofree char *l = NULL;
  g_autofree char *c = NULL;

  g_assert_true (g_regex_match (regex, message, 0, &match));
  l = g_match_info_fetch (match, 1);
  c = g_match_info_fetch (match, 2);
  *line = atoi (l);
  *column = atoi (c);
}

static void
test_error_marks (void)
{
  CtWindow *window = example_window ("cifar10-quick");
  CtDocument *doc = ct_window_get_document (window);
  GtkTextBuffer *buffer = source_buffer (window);
  g_autofree char *original = g_strdup (ct_document_get_text (doc));
  g_autofree char *trimmed = g_strchomp (g_strdup (original));
  GtkTextIter start, end;
  int line, column;

  /* A missing `}` at the end: reported at the end of the file, where the
   * mark must still cover something visible. */
  g_assert_true (g_str_has_suffix (trimmed, "}"));
  trimmed[strlen (trimmed) - 1] = '\n';
  type_text (window, trimmed);
  g_assert_nonnull (ct_document_get_parse_error (doc));
  g_test_message ("%s", ct_document_get_parse_error (doc)->message);
  g_assert_true (tag_range (buffer, "ct-parse-error", &start, &end));
  {
    g_autofree char *marked = gtk_text_iter_get_text (&start, &end);
    g_autofree char *stripped = g_strstrip (g_strdup (marked));

    g_test_message ("marked “%s” on line %d", marked, gtk_text_iter_get_line (&start) + 1);
    g_assert_cmpstr (stripped, !=, "");
    show_line (window, gtk_text_buffer_get_line_count (buffer) - 20);
    shoot (GTK_WIDGET (window), "item6-end-of-file-after.png");
    /* On the last line with text: where the parser gave up. */
    g_assert_cmpint (gtk_text_iter_get_line (&start), >=,
                     gtk_text_buffer_get_line_count (buffer) - 3);
  }

  /* An unknown field: underlined where the message points, not at the
   * layer's name. */
  {
    g_auto (GStrv) lines = g_strsplit (original, "\n", -1);
    g_autoptr (GString) text = g_string_new (NULL);
    const GError *error = NULL;
    const Caffe__NetParameter *net;
    guint data_line = 0, data_column = 0;

    for (guint i = 0; lines[i] != NULL; i++)
      {
        if (i == 52)
          g_string_append (text, "    kernal_size: 5\n");
        g_string_append_printf (text, "%s%s", lines[i], lines[i + 1] != NULL ? "\n" : "");
      }
    type_text (window, text->str);
    net = ct_document_get_net (doc);
    g_assert_nonnull (net);
    for (guint i = 0; i < net->n_layer && error == NULL; i++)
      if (ct_document_get_layer_error (doc, i) != NULL
          && strstr (ct_document_get_layer_error (doc, i)->message, "kernal_size") != NULL)
        error = ct_document_get_layer_error (doc, i);
    g_assert_nonnull (error);
    g_test_message ("%s", error->message);
    message_position (error->message, &line, &column);
    g_assert_cmpint (line, ==, 53);
    /* the window marks the position the error carries as data */
    g_assert_true (ct_proto_error_get_position (error, &data_line, &data_column));
    g_assert_cmpuint (data_line, ==, (guint) line);
    g_assert_cmpuint (data_column, ==, (guint) column);
    /* The first mark is the data layer's (its mean file is missing). */
    g_assert_true (tag_range (buffer, "ct-layer-error", &start, &end));
    while (gtk_text_iter_get_line (&start) + 1 < line)
      {
        GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer),
                                                     "ct-layer-error");
        start = end;
        g_assert_true (gtk_text_iter_forward_to_tag_toggle (&start, tag));
        end = start;
        gtk_text_iter_forward_to_tag_toggle (&end, tag);
      }
    {
      g_autofree char *marked = gtk_text_iter_get_text (&start, &end);
      GtkTextIter line_start = start, line_end;
      gtk_text_iter_set_line_offset (&line_start, 0);
      line_end = line_start;
      gtk_text_iter_forward_to_line_end (&line_end);
      g_test_message ("line %d: “%s”", gtk_text_iter_get_line (&start) + 1,
                      gtk_text_iter_get_text (&line_start, &line_end));
      g_assert_cmpint (gtk_text_iter_get_line (&start) + 1, ==, line);
      g_assert_cmpint (gtk_text_iter_get_line_index (&start) + 1, ==, column);
      g_assert_cmpstr (marked, ==, "kernal_size");
    }
    show_line (window, line - 12);
    shoot (GTK_WIDGET (window), "item6-after.png");
  }
  ct_gui_test_close_window (window);
}

/* Tab in the inspector. */

static GtkWidget *
focus_of (CtWindow *window)
{
  return gtk_root_get_focus (GTK_ROOT (window));
}

/* Waits until the inspector has come to rest: a rebuilt form gives the
 * focus back a couple of frames later, and GTK animates the scroll to a
 * newly focused row over a few more; a loaded machine draws them late. */
static void
wait_panel_at_rest (CtWindow *window, GtkAdjustment *adjustment)
{
  double last = gtk_adjustment_get_value (adjustment);
  guint still = 0;

  for (guint waited = 0; still < 5 && waited < 3000; waited += 30)
    {
      double now;

      ct_gui_test_spin (30);
      now = gtk_adjustment_get_value (adjustment);
      still = now == last && gtk_root_get_focus (GTK_ROOT (window)) != NULL ? still + 1 : 0;
      last = now;
    }
}

static void
test_inspector_tab (void)
{
  CtWindow *window = example_window ("lenet-fashion");
  CtPropertyForm *form = CT_PROPERTY_FORM (ct_window_get_property_form (window));
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (
    gtk_widget_get_ancestor (GTK_WIDGET (form), GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scroller);
  GtkWidget *entry, *next, *focus;
  double scrolled;

  ct_window_select (window, (const char *[]) { "conv1", NULL });
  ct_gui_test_settle (window);
  entry = ct_property_form_get_editor (form, "convolution_param.axis");
  g_assert_nonnull (entry);
  /* The field in view, low in the panel, as a user would have it. */
  gtk_widget_grab_focus (entry);
  ct_gui_test_settle (window);
  wait_panel_at_rest (window, adjustment);
  scrolled = gtk_adjustment_get_value (adjustment);
  g_assert_cmpfloat (scrolled, >, 50);
  /* A late validation may have rebuilt the form (it keeps the focus on the
   * same field): type into the editor the form has now. */
  entry = ct_property_form_get_editor (form, "convolution_param.axis");
  g_assert_nonnull (entry);
  g_assert_true (gtk_widget_is_ancestor (focus_of (window), entry)
                 || focus_of (window) == entry);

  /* Type a new value and press Tab. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "1");
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
  next = focus_of (window);
  g_test_message ("Tab went to a %s", G_OBJECT_TYPE_NAME (next));
  ct_gui_test_settle (window);
  wait_panel_at_rest (window, adjustment);
  {
    const Caffe__NetParameter *net = ct_document_get_net (ct_window_get_document (window));
    const Caffe__LayerParameter *conv1 = NULL;

    for (gsize i = 0; i < net->n_layer; i++)
      if (g_str_equal (net->layer[i]->name, "conv1"))
        conv1 = net->layer[i];
    g_assert_nonnull (conv1);
    g_assert_true (conv1->convolution_param->has_axis);
  }

  /* The focus is on the control after the edited one, not on the first
   * row, and the panel has not moved. */
  focus = focus_of (window);
  g_assert_nonnull (focus);
  g_test_message ("focus is on a %s", G_OBJECT_TYPE_NAME (focus));
  g_assert_true (gtk_widget_is_ancestor (focus, GTK_WIDGET (form)));
  {
    GtkWidget *name = ct_property_form_get_editor (form, "name");
    GtkWidget *edited = ct_property_form_get_editor (form, "convolution_param.axis");

    g_assert_false (focus == name || gtk_widget_is_ancestor (focus, name));
    g_assert_false (focus == edited || gtk_widget_is_ancestor (focus, edited));
  }
  g_test_message ("scrolled %g, now %g", scrolled, gtk_adjustment_get_value (adjustment));
  /* (It may move on to show the next row, never back up.) */
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >=, scrolled - 10);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), <, scrolled + 200);

  /* Tab again goes further down, not back to the top. */
  {
    graphene_point_t before, after;
    g_assert_true (gtk_widget_compute_point (focus, GTK_WIDGET (form), &GRAPHENE_POINT_INIT (0, 0),
                                             &before));
    g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
    ct_gui_test_settle (window);
    wait_panel_at_rest (window, adjustment);
    g_assert_true (gtk_widget_compute_point (focus_of (window), GTK_WIDGET (form),
                                             &GRAPHENE_POINT_INIT (0, 0), &after));
    g_assert_cmpfloat (after.y, >=, before.y);
  }
  ct_gui_test_close_window (window);
}

/* Accessible names. */

/* Whether WIDGET is a control a keyboard user reaches and a screen reader
 * must name. */
static gboolean
is_control (GtkWidget *widget)
{
  GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget));

  /* Our own widgets (graph nodes, ...) by the role they announce. */
  if (gtk_widget_get_focusable (widget)
      && (role == GTK_ACCESSIBLE_ROLE_BUTTON
          || role == GTK_ACCESSIBLE_ROLE_CHECKBOX || role == GTK_ACCESSIBLE_ROLE_SWITCH
          || role == GTK_ACCESSIBLE_ROLE_COMBO_BOX || role == GTK_ACCESSIBLE_ROLE_SEARCH_BOX
          || role == GTK_ACCESSIBLE_ROLE_TEXT_BOX || role == GTK_ACCESSIBLE_ROLE_SPIN_BUTTON))
    return TRUE;
  return GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_ENTRY (widget)
         || GTK_IS_SEARCH_ENTRY (widget) || GTK_IS_SPIN_BUTTON (widget)
         || GTK_IS_SWITCH (widget) || GTK_IS_DROP_DOWN (widget)
         || GTK_IS_CHECK_BUTTON (widget) || GTK_IS_SCALE (widget) || GTK_IS_TEXT_VIEW (widget)
         || ADW_IS_SPLIT_BUTTON (widget);
}

/* A name: the label property, a labelled-by relation, or (for a button
 * with a text child) the text it shows. */
static gboolean
has_name (GtkWidget *widget)
{
  if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL)
      || gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget),
                                           GTK_ACCESSIBLE_RELATION_LABELLED_BY))
    return TRUE;
  if (GTK_IS_BUTTON (widget) && !GTK_IS_MENU_BUTTON (widget)
      && gtk_button_get_label (GTK_BUTTON (widget)) != NULL
      && *gtk_button_get_label (GTK_BUTTON (widget)) != '\0')
    return TRUE;
  return FALSE;
}

static void
check_names (GtkWidget *widget, GString *missing, guint *checked)
{
  /* Menus are looked at while closed too: what they will show. */
  if (!gtk_widget_get_visible (widget) && !GTK_IS_POPOVER (widget))
    return;
  if (is_control (widget))
    {
      (*checked)++;
      if (!has_name (widget))
        {
          const char *id = gtk_buildable_get_buildable_id (GTK_BUILDABLE (widget));
          GtkWidget *parent = gtk_widget_get_parent (widget);
          g_string_append_printf (missing, "  %s%s%s in %s (tooltip “%s”)\n",
                                  G_OBJECT_TYPE_NAME (widget), id != NULL ? " #" : "",
                                  id != NULL ? id : "",
                                  parent != NULL ? G_OBJECT_TYPE_NAME (parent) : "-",
                                  gtk_widget_get_tooltip_text (widget) != NULL
                                    ? gtk_widget_get_tooltip_text (widget) : "");
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    check_names (child, missing, checked);
}

static void
test_accessible_names (void)
{
  CtWindow *window = example_window ("lenet-fashion");
  g_autoptr (GString) missing = g_string_new (NULL);
  guint checked = 0;

  /* A layer in the inspector, so that its form's controls are there. */
  ct_window_select (window, (const char *[]) { "conv1", NULL });
  ct_gui_test_settle (window);
  check_names (GTK_WIDGET (window), missing, &checked);
  g_action_group_activate_action (G_ACTION_GROUP (window), "find", NULL);
  ct_gui_test_settle (window);
  check_names (GTK_WIDGET (window), missing, &checked);
  g_test_message ("checked %u controls", checked);
  g_assert_cmpuint (checked, >, 30);
  if (missing->len > 0)
    g_error ("controls without an accessible name:\n%s", missing->str);
  ct_gui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  char *scratch;

  /* An accessibility context that keeps what is set, without AT-SPI. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  if (ct_gui_test_init (&argc, &argv, "/gtk/window-editing", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-editing/one-selection", test_one_selection);
      g_test_add_func ("/gtk/window-editing/error-marks", test_error_marks);
      g_test_add_func ("/gtk/window-editing/inspector-tab", test_inspector_tab);
      g_test_add_func ("/gtk/window-editing/accessible-names", test_accessible_names);
      /* Last: they close every window. */
      g_test_add_func ("/gtk/window-editing/quit-asks-once", test_quit_asks_once);
      g_test_add_func ("/gtk/window-editing/quit-saves-ticked", test_quit_saves_ticked);
    }
  return ct_gui_test_finish (g_test_run (), scratch, app);
}
