/* test-window-a11y.c: the window as a screen reader meets it, under Xvfb
 * (skipped without a display), with GTK's test accessibility context
 * (GTK 4.8 has no getter for accessible properties; the test context keeps
 * what was set and gtk_test_accessible_*() read it back):
 *
 * - every control shown (buttons, menu buttons, toggles, switches,
 *   drop-downs, entries, spin buttons, check buttons, ...) has an
 *   accessible name, in every view: the graph, the source, the training
 *   view, the inspector showing a layer and then a blob (a deploy LeNet
 *   stepped forward), and the input browser. A button labelled only by its
 *   own icon (GTK's default for an icon button) has no name: AT-SPI calls
 *   it "GtkImage";
 * - every layer of the LeNet example, and of a small net with ReLU and
 *   Dropout folded into their producers, is an accessible button in the
 *   graph named "conv1, Convolution" (a folded one "relu1, ReLU, in
 *   place"), and activating it (gtk_widget_activate(), or the "node.select"
 *   action GTK's AT-SPI bridge offers) selects exactly that layer in the
 *   window; the folded layers' objects take no clicks from their node. */
#include <string.h>
#include <glib/gstdio.h>

#include "gui-test.h"
#include "window-private.h"

static CtApplication *app;

/* ip1 with relu1 and drop1 folded into it, conv1 with relu0 */
static const char SMALL_NET[] =
  "name: \"small\"\n"
  "layer { name: \"data\" type: \"Input\" top: \"data\"\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 8 dim: 8 } } }\n"
  "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
  "  convolution_param { num_output: 2 kernel_size: 3 } }\n"
  "layer { name: \"relu0\" type: \"ReLU\" bottom: \"conv1\" top: \"conv1\" }\n"
  "layer { name: \"ip1\" type: \"InnerProduct\" bottom: \"conv1\" top: \"ip1\"\n"
  "  inner_product_param { num_output: 4 } }\n"
  "layer { name: \"relu1\" type: \"ReLU\" bottom: \"ip1\" top: \"ip1\" }\n"
  "layer { name: \"drop1\" type: \"Dropout\" bottom: \"ip1\" top: \"ip1\" }\n"
  "layer { name: \"ip2\" type: \"InnerProduct\" bottom: \"ip1\" top: \"ip2\"\n"
  "  inner_product_param { num_output: 2 } }\n";

static char *
data_path (const char *folder, const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", folder, name, NULL);
}

static CtWindow *
open_window (void)
{
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static CtWindow *
open_example (void)
{
  CtWindow *window = open_window ();

  /* data/examples/lenet-fashion/lenet_train_test.prototxt */
  g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  ct_gui_test_settle (window);
  return window;
}

static CtWindow *
open_file (const char *folder, const char *name)
{
  g_autofree char *path = data_path (folder, name);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  CtWindow *window = open_window ();

  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  return window;
}

/* A window on prototxt TEXT, from a file in the scratch folder. */
static CtWindow *
open_text (const char *text)
{
  g_autofree char *dir = g_dir_make_tmp ("cortado-a11y-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "small.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  CtWindow *window = open_window ();

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_true (ct_window_load_file (window, file));
  ct_gui_test_settle (window);
  g_unlink (path);
  g_rmdir (dir);
  return window;
}

/* Names */

/* Whether WIDGET is a control a screen reader must name: GTK's button-like
 * and text widgets by type, our own (graph nodes) by the role they
 * announce. */
static gboolean
is_control (GtkWidget *widget)
{
  GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget));

  if (role == GTK_ACCESSIBLE_ROLE_BUTTON
      || role == GTK_ACCESSIBLE_ROLE_CHECKBOX || role == GTK_ACCESSIBLE_ROLE_SWITCH
      || role == GTK_ACCESSIBLE_ROLE_COMBO_BOX || role == GTK_ACCESSIBLE_ROLE_SEARCH_BOX
      || role == GTK_ACCESSIBLE_ROLE_TEXT_BOX || role == GTK_ACCESSIBLE_ROLE_SPIN_BUTTON)
    return TRUE;
  return GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_ENTRY (widget)
         || GTK_IS_SEARCH_ENTRY (widget) || GTK_IS_SPIN_BUTTON (widget)
         || GTK_IS_SWITCH (widget) || GTK_IS_DROP_DOWN (widget)
         || GTK_IS_CHECK_BUTTON (widget) || GTK_IS_SCALE (widget)
         || ADW_IS_SPLIT_BUTTON (widget);
}

/* Whether WIDGET shows text: a visible label with some, below it. */
static gboolean
shows_text (GtkWidget *widget)
{
  if (!gtk_widget_get_visible (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && *gtk_label_get_text (GTK_LABEL (widget)) != '\0')
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child))
      return TRUE;
  return FALSE;
}

/* Whether WIDGET's labelled-by relation is one of its own descendants that
 * shows no text (GTK labels an icon button by its image): a name made of
 * nothing. The relation's value cannot be read in GTK 4.8, only compared. */
static gboolean
labelled_by_blank_part (GtkWidget *widget, GtkWidget *part, int depth)
{
  for (GtkWidget *child = gtk_widget_get_first_child (part); child != NULL && depth < 3;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *differs = gtk_test_accessible_check_relation (
        GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY, child, NULL);

      if (differs == NULL && !shows_text (child))
        return TRUE;
      if (labelled_by_blank_part (widget, child, depth + 1))
        return TRUE;
    }
  return FALSE;
}

/* A name: the label property, a labelled-by relation to something else
 * than a blank part of itself, or text it shows. The button GTK builds
 * inside a menu button takes its name from the menu button (the object
 * that carries the name and the role in the accessibility tree). */
static gboolean
has_name (GtkWidget *widget)
{
  GtkWidget *parent = gtk_widget_get_parent (widget);

  if (gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL))
    return TRUE;
  if (gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget),
                                        GTK_ACCESSIBLE_RELATION_LABELLED_BY)
      && !labelled_by_blank_part (widget, widget, 0))
    return TRUE;
  if (shows_text (widget) && !GTK_IS_EDITABLE (widget) && !GTK_IS_DROP_DOWN (widget))
    return TRUE;
  if (parent != NULL && GTK_IS_MENU_BUTTON (parent) && GTK_IS_TOGGLE_BUTTON (widget))
    return has_name (parent);
  return FALSE;
}

static void
check_names (GtkWidget *widget, const char *where, GString *missing, guint *checked)
{
  /* what is on screen in this view */
  if (!gtk_widget_get_mapped (widget))
    return;
  /* GTK's own + and - of a spin button: not focusable, the spin button
   * (named, with its value) is what a screen reader presents */
  if (GTK_IS_SPIN_BUTTON (widget))
    {
      (*checked)++;
      if (!has_name (widget))
        g_string_append_printf (missing, "  %s: GtkSpinButton in %s\n", where,
                                G_OBJECT_TYPE_NAME (gtk_widget_get_parent (widget)));
      return;
    }
  if (is_control (widget))
    {
      (*checked)++;
      if (!has_name (widget))
        {
          const char *id = gtk_buildable_get_buildable_id (GTK_BUILDABLE (widget));
          GtkWidget *parent = gtk_widget_get_parent (widget);
          const char *tip = gtk_widget_get_tooltip_text (widget);

          g_string_append_printf (missing, "  %s: %s%s%s in %s (tooltip “%s”)\n", where,
                                  G_OBJECT_TYPE_NAME (widget), id != NULL ? " #" : "",
                                  id != NULL ? id : "",
                                  parent != NULL ? G_OBJECT_TYPE_NAME (parent) : "-",
                                  tip != NULL ? tip : "");
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    check_names (child, where, missing, checked);
}

static void
check_view (CtWindow *window, const char *where, GString *missing)
{
  guint checked = 0;

  ct_gui_test_settle (window);
  check_names (GTK_WIDGET (window), where, missing, &checked);
  g_test_message ("%s: %u controls", where, checked);
  g_assert_cmpuint (checked, >, 5);
}

static void
wait_visible (CtWindow *window, const char *name)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  GtkWidget *widget;

  while ((widget = ct_gui_test_find_named (GTK_WIDGET (window), name)) == NULL
         || !gtk_widget_get_mapped (widget))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      ct_gui_test_spin (5);
    }
}

static void
test_names (void)
{
  g_autoptr (GString) missing = g_string_new (NULL);
  CtWindow *window = open_example ();
  GtkWindow *browser;
  guint checked = 0;
  guint64 serial = 0;

  check_view (window, "graph", missing);
  ct_window_select (window, (const char *[]) { "conv1", NULL });
  check_view (window, "graph, conv1 in the inspector", missing);
  g_action_group_activate_action (G_ACTION_GROUP (window), "find", NULL);
  check_view (window, "graph, find", missing);
  adw_view_stack_set_visible_child_name (window->view_stack, "source");
  check_view (window, "source", missing);
  adw_view_stack_set_visible_child_name (window->view_stack, "training");
  check_view (window, "training", missing);
  adw_view_stack_set_visible_child_name (window->view_stack, "graph");
  ct_gui_test_close_window (window);

  /* A blob in the inspector: a deploy LeNet (Input layers, no database)
   * stepped forward through conv1, conv1 selected; then the browser of
   * what its Input layers are fed. */
  window = open_file ("reference", "lenet_fashion_deploy_loss.prototxt");
  ct_window_select (window, (const char *[]) { "conv1", NULL });
  for (int i = 0; i < 2; i++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
      g_assert_no_error (ct_run_snapshot_get_error (ct_gui_test_next_snapshot (window, &serial)));
    }
  wait_visible (window, "blob-panel");
  check_view (window, "inspector showing a blob", missing);
  browser = ct_window_inputs_show_browser (window);
  ct_gui_test_spin (300);
  check_names (GTK_WIDGET (browser), "input browser", missing, &checked);
  g_test_message ("input browser: %u controls", checked);
  g_assert_cmpuint (checked, >, 1);
  gtk_window_destroy (browser);
  ct_gui_test_close_window (window);

  if (missing->len > 0)
    g_error ("controls without an accessible name:\n%s", missing->str);
}

/* Layers */

static void
collect_buttons (GtkWidget *widget, GPtrArray *buttons)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (gtk_widget_get_visible (child)
          && gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (child))
               == GTK_ACCESSIBLE_ROLE_BUTTON)
        g_ptr_array_add (buttons, child);
      collect_buttons (child, buttons);
    }
}

/* The name layer ID should have, and whether it is folded. */
static char *
layer_label (CtGraphModel *model, const char *id, gboolean *folded)
{
  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (model, i);

      if (strcmp (node->id, id) == 0)
        {
          *folded = FALSE;
          return g_strdup_printf ("%s, %s", node->name, node->type);
        }
      for (guint j = 0; j < node->folded->len; j++)
        {
          const CtGraphFolded *f = g_ptr_array_index (node->folded, j);
          if (strcmp (f->id, id) == 0)
            {
              *folded = TRUE;
              return g_strdup_printf ("%s, %s, in place", f->name, f->type);
            }
        }
    }
  return NULL;
}

/* The one layer selected in WINDOW (the window's and the graph's
 * selection agreeing), owned. */
static char *
selected_layer (CtWindow *window)
{
  g_auto (GStrv) ids = ct_window_dup_selected (window);
  g_auto (GStrv) shown = ct_graph_view_dup_selected (CT_GRAPH_VIEW (
    ct_window_get_graph_view (window)));

  g_assert_cmpuint (g_strv_length (ids), ==, 1);
  g_assert_cmpstrv (shown, ids);
  return g_strdup (ids != NULL ? ids[0] : NULL);
}

static void
unselect (CtWindow *window)
{
  g_auto (GStrv) ids = NULL;

  ct_window_select (window, (const char *[]) { NULL });
  ct_gui_test_settle (window);
  ids = ct_window_dup_selected (window);
  g_assert_cmpuint (g_strv_length (ids), ==, 0);
}

/* Activate every layer's accessible object in WINDOW both ways; each must
 * select its layer. Returns how many were folded. */
static guint
walk_layers (CtWindow *window)
{
  GtkWidget *view = ct_window_get_graph_view (window);
  CtGraphModel *model = ct_graph_view_get_model (CT_GRAPH_VIEW (view));
  g_autoptr (GPtrArray) buttons = g_ptr_array_new ();
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_layers = 0, n_folded = 0;

  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    n_layers += 1 + ct_graph_model_get_node (model, i)->folded->len;
  collect_buttons (view, buttons);
  g_assert_cmpuint (buttons->len, ==, n_layers);
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);
      g_autofree char *id = NULL;
      g_autofree char *again = NULL;
      g_autofree char *label = NULL;
      gboolean folded = FALSE;

      /* as gtk_widget_activate() does (a keyboard's activation) */
      g_test_message ("activating %s", G_OBJECT_TYPE_NAME (button));
      unselect (window);
      g_assert_true (gtk_widget_activate (button));
      ct_gui_test_settle (window);
      id = selected_layer (window);
      g_test_message ("  selected %s", id);
      label = layer_label (model, id, &folded);
      g_assert_nonnull (label);
      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (button),
                                           GTK_ACCESSIBLE_PROPERTY_LABEL, label);
      gtk_test_accessible_assert_state (GTK_ACCESSIBLE (button),
                                        GTK_ACCESSIBLE_STATE_SELECTED, TRUE);
      g_assert_true (g_hash_table_add (seen, g_strdup (id)));
      n_folded += folded;

      /* as a screen reader does: the action GTK's AT-SPI bridge lists */
      unselect (window);
      g_assert_true (gtk_widget_activate_action (button, "node.select", NULL));
      ct_gui_test_settle (window);
      again = selected_layer (window);
      g_assert_cmpstr (again, ==, id);

      if (folded)
        {
          /* the chip under it is the node's to click and to explain */
          GtkWidget *node = gtk_widget_get_parent (button);
          graphene_point_t centre;

          g_assert_false (gtk_widget_get_focusable (button));
          g_assert_true (gtk_widget_compute_point (
            button, view,
            &GRAPHENE_POINT_INIT (gtk_widget_get_width (button) / 2.0,
                                  gtk_widget_get_height (button) / 2.0),
            &centre));
          if (gtk_widget_get_width (button) > 0)
            g_assert_true (gtk_widget_pick (view, centre.x, centre.y, GTK_PICK_DEFAULT) == node);
        }
    }
  g_assert_cmpuint (g_hash_table_size (seen), ==, n_layers);
  return n_folded;
}

static void
test_layers (void)
{
  CtWindow *window = open_example ();

  /* LeNet: relu1 folded into ip1 */
  g_assert_cmpuint (walk_layers (window), ==, 1);
  ct_gui_test_close_window (window);

  /* ReLU and Dropout folded, two of them into one node */
  window = open_text (SMALL_NET);
  g_assert_cmpuint (walk_layers (window), ==, 3);
  ct_gui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  char *scratch = NULL;
  int status = 0;

  /* An accessibility context that keeps what is set, without AT-SPI. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  if (ct_gui_test_init (&argc, &argv, "/gtk/a11y", &scratch, &app))
    {
      g_test_add_func ("/gtk/a11y/names", test_names);
      g_test_add_func ("/gtk/a11y/layers", test_layers);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
