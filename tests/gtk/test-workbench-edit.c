/* test-workbench-edit.c: editing on the canvas, in the workbench test's
 * window (see test-workbench.c): copy, cut and paste through the
 * clipboard, a palette type dropped on an edge, the layout across a cut
 * and its undo, a fitted graph clear of the controls, and a multiple
 * selection in the inspector. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "workbench-util.h"

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
  CtWindow *window = ct_test_lenet_window ();
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
  ct_test_activate (window, "copy");
  copied = clipboard_text (window);
  g_test_message ("copied:\n%s", copied);
  g_assert_true (g_str_has_prefix (copied, "layer {\n"));
  g_assert_nonnull (strstr (copied, "  name: \"conv1\"\n"));
  g_assert_nonnull (strstr (copied, "convolution_param {"));
  g_assert_null (strstr (copied, "conv2"));

  /* Paste what an editor put there: a layer is added and selected. */
  gdk_clipboard_set_text (clipboard, from_editor);
  ct_test_activate (window, "paste");
  ct_gui_test_spin (50);
  ct_gui_test_settle (window);
  g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, n_layers + 1);
  g_assert_cmpint (ct_test_layer_named (window, "drop_extra"), >=, 0);
  {
    const Caffe__LayerParameter *layer =
      ct_document_get_net (doc)->layer[ct_test_layer_named (window, "drop_extra")];
    g_auto (GStrv) selected = ct_window_dup_selected (window);

    g_assert_cmpstr (layer->bottom[0], ==, "ip2");
    g_assert_cmpfloat (fabs (layer->dropout_param->dropout_ratio - 0.25), <, 1e-6);
    g_assert_cmpstr (selected[0], ==, "drop_extra");
    g_assert_null (selected[1]);
  }

  /* Pasting the copied conv1 again gives it a new name. */
  gdk_clipboard_set_text (clipboard, copied);
  ct_test_activate (window, "paste");
  ct_gui_test_spin (50);
  ct_gui_test_settle (window);
  g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, n_layers + 2);
  g_assert_cmpint (ct_test_layer_named (window, "conv1"), >=, 0);
  g_assert_cmpint (ct_test_layer_named (window, "conv3"), >=, 0);

  /* Cut: on the clipboard, gone from the net; undo brings it back. */
  ct_window_select (window, (const char *[]) { "drop_extra", NULL });
  ct_test_activate (window, "cut");
  ct_gui_test_settle (window);
  cut = clipboard_text (window);
  g_assert_nonnull (strstr (cut, "name: \"drop_extra\""));
  g_assert_cmpint (ct_test_layer_named (window, "drop_extra"), <, 0);
  ct_test_activate (window, "undo");
  ct_gui_test_settle (window);
  g_assert_cmpint (ct_test_layer_named (window, "drop_extra"), >=, 0);

  /* Rename (F2): the inspector's name entry takes the focus. */
  ct_window_select (window, (const char *[]) { "pool1", NULL });
  ct_gui_test_settle (window);
  ct_test_activate (window, "rename");
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
    g_assert_nonnull (focus);
    while (focus != NULL && !GTK_IS_EDITABLE (focus))
      focus = gtk_widget_get_parent (focus);
    g_assert_nonnull (focus);
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (focus)), ==, "pool1");
  }
  ct_gui_test_close_window (window);
}


/* Layout across an edit and its undo. */

typedef struct {
  char *id;
  double x, y;
} Place;

static GArray *
places (CtWindow *window)
{
  CtGraphModel *model = ct_graph_view_get_model (ct_test_view_of (window));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Place));

  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    {
      Place p = { g_strdup (ct_graph_model_get_node (model, i)->id), 0, 0 };
      g_assert_true (ct_graph_view_get_node_position (ct_test_view_of (window), p.id, &p.x, &p.y));
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
  CtWindow *window = ct_test_lenet_window ();
  CtGraphModel *model = ct_graph_view_get_model (ct_test_view_of (window));
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
  g_signal_emit_by_name (ct_test_view_of (window), "layer-dropped", "Pooling", 0.0, 0.0, edge);
  ct_gui_test_settle (window);
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
    added = ct_test_layer_named (window, selected[0]);
  }
  ip1 = ct_test_layer_named (window, "ip1");
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
    const CtGraphScene *scene = ct_graph_view_get_scene (ct_test_view_of (window));
    int node = ct_graph_model_find_node (scene->model, "ip2");
    double x = scene->layout->nodes[node].x, y = scene->layout->nodes[node].y;
    g_autofree char *id = NULL;
    double nx, ny;

    g_signal_emit_by_name (ct_test_view_of (window), "layer-dropped", "Sigmoid", x, y, -1);
    ct_gui_test_settle (window);
    net = ct_document_get_net (ct_window_get_document (window));
    {
      g_auto (GStrv) selected = ct_window_dup_selected (window);
      id = g_strdup (selected[0]);
    }
    added = ct_test_layer_named (window, id);
    g_assert_cmpint (added, >=, 0);
    g_assert_cmpstr (net->layer[added]->type, ==, "Sigmoid");
    g_assert_cmpstr (net->layer[added]->bottom[0], ==, "ip2");
    g_assert_true (ct_graph_view_get_node_position (ct_test_view_of (window), id, &nx, &ny));
    g_test_message ("dropped on ip2 at %.0f,%.0f: %s placed at %.0f,%.0f", x, y, id, nx, ny);
    g_assert_cmpfloat (ny, >, y + 20);
  }
  ct_gui_test_close_window (window);
}


static void
test_layout_cut_and_undo (void)
{
  CtWindow *window = ct_test_lenet_window ();
  CtGraphModel *model = ct_graph_view_get_model (ct_test_view_of (window));
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
  g_signal_emit_by_name (ct_test_view_of (window), "disconnect-requested", (guint) edge);
  ct_gui_test_settle (window);
  g_assert_cmpuint (ct_document_get_net (ct_window_get_document (window))
                      ->layer[ct_test_layer_named (window, "ip1")]->n_bottom, ==, 0);
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
  ct_test_activate (window, "undo");
  ct_gui_test_settle (window);
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
  ct_gui_test_close_window (window);
}


/* A fitted graph keeps clear of the zoom and phase controls laid over the
 * top of the canvas (the bottom is the toasts'). */
static void
test_fit_clear_of_controls (void)
{
  CtWindow *window = ct_test_lenet_window ();
  GtkWidget *view = ct_window_get_graph_view (window);
  /* the phase menu, among the controls over the canvas (the run
   * settings' device menu is a drop-down too) */
  GtkWidget *phase = ct_gui_test_find_widget (gtk_widget_get_parent (view), GTK_TYPE_DROP_DOWN,
                                              NULL);
  graphene_rect_t controls;
  double highest = G_MAXDOUBLE, zoom;
  guint nodes = 0;

  ct_test_activate (window, "zoom-fit");
  ct_gui_test_settle (window);
  ct_gui_test_spin (100);
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
      highest = MIN (highest, bounds.origin.y + 8 * zoom);
      nodes++;
    }
  g_test_message ("zoom %.2f: %u nodes, highest box edge at %.0f, controls down to %.0f", zoom,
                  nodes, highest, controls.origin.y + controls.size.height);
  g_assert_cmpuint (nodes, ==, 10);
  g_assert_cmpfloat (highest, >=, controls.origin.y + controls.size.height);
  ct_gui_test_close_window (window);
}


/* Several layers selected: the inspector says so. */
static void
test_multi_selection (void)
{
  CtWindow *window = ct_test_lenet_window ();

  ct_window_select (window, (const char *[]) { "conv1", "conv2", "ip2", NULL });
  ct_gui_test_settle (window);
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "3 Layers Selected"));
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "conv1, conv2, ip2"));
  ct_window_select (window, (const char *[]) { "conv1", NULL });
  ct_gui_test_settle (window);
  g_assert_null (ct_gui_test_find_widget (GTK_WIDGET (window), GTK_TYPE_LABEL, "3 Layers Selected"));
  ct_gui_test_close_window (window);
}


void
ct_test_workbench_add_edit_tests (void)
{
  g_test_add_func ("/gtk/workbench/clipboard", test_clipboard);
  g_test_add_func ("/gtk/workbench/drop-on-edge", test_drop_on_edge);
  g_test_add_func ("/gtk/workbench/layout-cut-and-undo", test_layout_cut_and_undo);
  g_test_add_func ("/gtk/workbench/fit-clear-of-controls", test_fit_clear_of_controls);
  g_test_add_func ("/gtk/workbench/multi-selection", test_multi_selection);
}
