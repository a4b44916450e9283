/* window-graph.c: the graph canvas and the palette, tied to the document.
 *
 * The canvas shows a graph model derived from the document's net
 * (app/net-graph.c). After every change it is derived again at once, with
 * shapes when the net is small enough to infer them without a pause; a
 * large net shows its shapes when the document's background check brings a
 * graph that has them. The canvas asks for edits through signals (connect,
 * disconnect, delete, drop a type); they become document operations, and
 * the new model follows from the document's "changed" signal. Node ids are
 * layer names; the CtNetGraph maps them to layer indices. */
#include <glib/gi18n-lib.h>

#include "layer-catalogue.h"
#include "window-private.h"

/* Up to this many layers the graph is derived with shapes at once. */
#define SYNC_SHAPES_MAX_LAYERS 200

static CtNetGraphPhase
graph_phase (CtWindow *self)
{
  switch (ct_document_get_phase (self->document))
    {
    case CT_DOCUMENT_PHASE_TRAIN:
      return CT_NET_GRAPH_PHASE_TRAIN;
    case CT_DOCUMENT_PHASE_TEST:
      return CT_NET_GRAPH_PHASE_TEST;
    case CT_DOCUMENT_PHASE_BOTH:
    default:
      return CT_NET_GRAPH_PHASE_BOTH;
    }
}

/* Ids and layers. */

int
ct_window_layer_for_id (CtWindow *self, const char *id)
{
  return ct_net_graph_layer_for_id (self->graph, ct_document_get_net (self->document), id);
}

/* The node id showing LAYER (its own or a folded one's), or NULL. */
static const char *
id_for_layer (CtWindow *self, int layer)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  const CtGraphNode *node;
  int index;

  if (self->graph == NULL || net == NULL || layer < 0
      || (guint) layer >= self->graph->layer_nodes->len || (gsize) layer >= net->n_layer)
    return NULL;
  index = g_array_index (self->graph->layer_nodes, int, layer);
  if (index < 0)
    return NULL;
  node = ct_graph_model_get_node (self->graph->model, (guint) index);
  if (g_array_index (self->graph->node_layers, int, index) == layer)
    return node->id;
  for (guint i = 0; node->folded != NULL && i < node->folded->len; i++)
    {
      const CtGraphFolded *folded = node->folded->pdata[i];
      if (g_strcmp0 (folded->name, net->layer[layer]->name) == 0)
        return folded->id;
    }
  return node->id;
}

guint *
ct_window_selected_layers (CtWindow *self, guint *n_out)
{
  const char *const *ids = ct_selection_get_ids (self->selection);
  guint n = g_strv_length ((char **) ids);
  guint *layers = g_new (guint, MAX (n, 1));
  guint kept = 0;

  for (guint i = 0; i < n; i++)
    {
      int layer = ct_window_layer_for_id (self, ids[i]);
      if (layer >= 0)
        layers[kept++] = (guint) layer;
    }
  *n_out = kept;
  return layers;
}

static int
compare_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

/* The layers of nodes IDS with the in-place layers folded into them: what
 * deleting or copying a node means to the user who sees one box. */
static GArray *
layers_of_nodes (CtWindow *self, const char *const *ids)
{
  GArray *layers = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; ids != NULL && ids[i] != NULL; i++)
    {
      int layer = ct_window_layer_for_id (self, ids[i]);
      int node;

      if (layer < 0)
        continue;
      node = g_array_index (self->graph->layer_nodes, int, layer);
      if (g_array_index (self->graph->node_layers, int, node) != layer)
        {
          /* A folded layer's own id: just that layer. */
          guint value = (guint) layer;
          g_array_append_val (layers, value);
          continue;
        }
      for (guint l = 0; l < self->graph->layer_nodes->len; l++)
        if (g_array_index (self->graph->layer_nodes, int, l) == node)
          g_array_append_val (layers, l);
    }
  g_array_sort (layers, compare_uint);
  return layers;
}

guint *
ct_window_selected_layers_folded (CtWindow *self, guint *n_out)
{
  g_autoptr (GArray) layers = layers_of_nodes (self, ct_selection_get_ids (self->selection));

  *n_out = layers->len;
  return g_memdup2 (layers->data, MAX (layers->len, 1) * sizeof (guint));
}

char **
ct_window_dup_selected (CtWindow *self)
{
  g_return_val_if_fail (CT_IS_WINDOW (self), NULL);
  return ct_selection_dup_ids (self->selection);
}

/* IDS as the canvas would hold them: only nodes it shows and the layers
 * folded into them, in its order. */
static GStrv
shown_ids (CtWindow *self, const char *const *ids)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  CtGraphModel *model = ct_graph_view_get_model (self->graph_view);

  for (guint i = 0; model != NULL && ids != NULL && i < ct_graph_model_n_nodes (model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (model, i);

      if (g_strv_contains (ids, node->id))
        g_strv_builder_add (builder, node->id);
      for (guint j = 0; node->folded != NULL && j < node->folded->len; j++)
        {
          const CtGraphFolded *folded = g_ptr_array_index (node->folded, j);
          if (g_strv_contains (ids, folded->id))
            g_strv_builder_add (builder, folded->id);
        }
    }
  return g_strv_builder_end (builder);
}

void
ct_window_select_with_flags (CtWindow *self, const char *const *ids, CtSelectionFlags flags)
{
  g_auto (GStrv) shown = shown_ids (self, ids);

  ct_selection_set (self->selection, (const char *const *) shown, flags);
}

void
ct_window_select (CtWindow *self, const char *const *ids)
{
  g_return_if_fail (CT_IS_WINDOW (self));
  ct_window_select_with_flags (self, ids, CT_SELECTION_NONE);
}

void
ct_window_select_layers (CtWindow *self, const int *layers, guint n, gboolean reveal)
{
  g_autoptr (GPtrArray) ids = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    {
      const char *id = id_for_layer (self, layers[i]);
      if (id != NULL)
        g_ptr_array_add (ids, (gpointer) id);
    }
  g_ptr_array_add (ids, NULL);
  ct_window_select_with_flags (self, (const char *const *) ids->pdata,
                               reveal && ids->len > 1 ? CT_SELECTION_REVEAL : CT_SELECTION_NONE);
}

/* The canvas sets the selection when the user clicks or uses its keys
 * (nodes, or an edge: the blob it carries, from its producer to its
 * consumer)... */
static void
view_selection_changed (CtGraphView *view, CtWindow *self)
{
  g_auto (GStrv) ids = NULL;
  CtGraphModel *model = ct_graph_view_get_model (view);
  int edge = ct_graph_view_get_selected_edge (view);

  if (self->selection == NULL)
    return; /* disposing */
  if (edge >= 0 && model != NULL)
    {
      const CtGraphEdge *e = ct_graph_model_get_edge (model, (guint) edge);

      ct_selection_set_blob (self->selection, e->blob,
                             ct_graph_model_get_node (model, e->from_node)->id,
                             ct_graph_model_get_node (model, e->to_node)->id, CT_SELECTION_NONE);
      return;
    }
  ids = ct_graph_view_dup_selected (view);
  ct_selection_set (self->selection, (const char *const *) ids, CT_SELECTION_NONE);
}

/* The edge of MODEL carrying BLOB from node PRODUCER to node CONSUMER (NULL:
 * to any), or -1. */
static int
find_edge (CtGraphModel *model, const char *blob, const char *producer, const char *consumer)
{
  int producer_node = model != NULL && producer != NULL ? ct_graph_model_find_node (model, producer)
                                                        : -1;
  guint n_out;
  const guint *out;

  if (producer_node < 0)
    return -1;
  out = ct_graph_model_node_out_edges (model, (guint) producer_node, &n_out);
  for (guint i = 0; i < n_out; i++)
    {
      const CtGraphEdge *e = ct_graph_model_get_edge (model, out[i]);

      if (g_strcmp0 (e->blob, blob) == 0
          && (consumer == NULL
              || g_strcmp0 (ct_graph_model_get_node (model, e->to_node)->id, consumer) == 0))
        return (int) out[i];
    }
  return -1;
}

/* ...and follows it when it is set elsewhere. */
static void
selection_changed (CtSelection *selection, guint flags, CtWindow *self)
{
  const char *const *ids = ct_selection_get_ids (selection);
  const char *blob = ct_selection_get_blob (selection);
  g_auto (GStrv) shown = ct_graph_view_dup_selected (self->graph_view);

  if (!g_strv_equal ((const char *const *) shown, ids))
    ct_graph_view_set_selected (self->graph_view, ids);
  if (blob != NULL)
    {
      const char *producer = ct_selection_get_blob_producer (selection);

      ct_graph_view_set_selected_edge (self->graph_view,
                                       find_edge (ct_graph_view_get_model (self->graph_view),
                                                  blob, producer,
                                                  ct_selection_get_blob_consumer (selection)));
      if ((flags & CT_SELECTION_REVEAL) && producer != NULL)
        ct_graph_view_reveal (self->graph_view, producer, FALSE);
    }
  else
    ct_graph_view_set_selected_edge (self->graph_view, -1);
  if ((flags & CT_SELECTION_REVEAL) && ids[0] != NULL)
    ct_graph_view_reveal (self->graph_view, ids[0], FALSE);
}


/* Models. */

static void
apply_sidecar (CtWindow *self)
{
  CtGraphModel *model = self->graph->model;

  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (model, i);
      double x, y;

      if (ct_document_get_node_position (self->document, node->id, &x, &y))
        ct_graph_view_set_node_position (self->graph_view, node->id, x, y);
      if (ct_document_get_node_expanded (self->document, node->id))
        ct_graph_view_set_expanded (self->graph_view, node->id, TRUE);
    }
}

static void
show_graph (CtWindow *self, CtNetGraph *graph, gboolean has_shapes, gboolean loaded)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);

  /* the panel borrows the graph: give it the new one before the old goes */
  ct_blob_panel_set_graph (self->blob_panel, graph);
  g_clear_pointer (&self->graph, ct_net_graph_free);
  self->graph = graph;
  self->graph_has_shapes = has_shapes;
  if (loaded)
    ct_graph_view_set_model (self->graph_view, NULL);
  ct_graph_view_set_model (self->graph_view, graph->model);
  ct_window_run_graph_changed (self);
  if (loaded)
    {
      apply_sidecar (self);
      ct_graph_view_zoom_to_fit (self->graph_view);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->empty_page), net == NULL || net->n_layer == 0);
}

/* Shapes come from the engine, which opens the data sources: check them as
 * if run from the file's folder. */
static CtNetGraph *
new_graph (CtWindow *self, const Caffe__NetParameter *net, const CtNetGraphOptions *options)
{
  Caffe__NetParameter *resolved;
  CtNetGraph *graph;
  /* Data that cannot be read: the shapes the document stands in for it. */
  g_autoptr (GHashTable) stand_ins = ct_document_dup_stand_in_shapes (self->document);
  CtNetGraphOptions with_stand_ins = *options;

  with_stand_ins.stand_ins = stand_ins;
  if (options->no_shapes)
    return ct_net_graph_new (net, options);
  resolved = ct_document_dup_resolved_net (self->document);
  if (resolved == NULL)
    return ct_net_graph_new (net, options);
  graph = ct_net_graph_new (resolved, &with_stand_ins);
  protobuf_c_message_free_unpacked (&resolved->base, NULL);
  return graph;
}

static void
rebuild_graph (CtWindow *self, gboolean loaded)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  CtNetGraphOptions options = { 0 };

  if (net == NULL)
    {
      ct_blob_panel_set_graph (self->blob_panel, NULL);
      g_clear_pointer (&self->graph, ct_net_graph_free);
      ct_graph_view_set_model (self->graph_view, NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->empty_page), TRUE);
      return;
    }
  options.phase = graph_phase (self);
  options.no_shapes = net->n_layer > SYNC_SHAPES_MAX_LAYERS;
  options.source_name = ct_document_get_title (self->document);
  show_graph (self, new_graph (self, net, &options), !options.no_shapes, loaded);
}

void
ct_window_graph_document_changed (CtWindow *self, CtDocumentChange flags)
{
  if (flags & CT_DOCUMENT_CHANGE_NET)
    rebuild_graph (self, (flags & CT_DOCUMENT_CHANGE_LOAD) != 0);
  else if (flags & CT_DOCUMENT_CHANGE_LOAD)
    rebuild_graph (self, TRUE);
}

void
ct_window_graph_document_validated (CtWindow *self)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  CtNetGraphOptions options = { 0 };

  /* A large net: now that the check is done, derive it with shapes. The
   * check ran on a thread; this pass is cheaper than a second thread hop
   * for nets that are only shown. */
  if (self->graph_has_shapes || net == NULL || ct_document_get_parse_error (self->document))
    return;
  options.phase = graph_phase (self);
  options.source_name = ct_document_get_title (self->document);
  show_graph (self, new_graph (self, net, &options), TRUE, FALSE);
}

void
ct_window_set_phase (CtWindow *self, CtDocumentPhase phase)
{
  guint position = phase == CT_DOCUMENT_PHASE_TRAIN ? 1 : phase == CT_DOCUMENT_PHASE_TEST ? 2 : 0;

  if (gtk_drop_down_get_selected (self->phase_dropdown) != position)
    gtk_drop_down_set_selected (self->phase_dropdown, position);
  if (ct_document_get_phase (self->document) == phase)
    return;
  ct_document_set_phase (self->document, phase);
  rebuild_graph (self, FALSE);
}

static void
phase_selected (GtkDropDown *dropdown, GParamSpec *pspec, CtWindow *self)
{
  static const char *const names[] = { "both", "train", "test" };
  guint position = gtk_drop_down_get_selected (dropdown);

  if (position < G_N_ELEMENTS (names))
    g_action_group_change_action_state (G_ACTION_GROUP (self), "phase",
                                        g_variant_new_string (names[position]));
}

/* Layout in the sidecar. */

void
ct_window_store_layout (CtWindow *self)
{
  CtGraphModel *model = ct_graph_view_get_model (self->graph_view);

  if (model == NULL || !GPOINTER_TO_INT (g_object_get_data (G_OBJECT (self), "ct-layout-touched")))
    return;
  for (guint i = 0; i < ct_graph_model_n_nodes (model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (model, i);
      double x, y;

      if (ct_graph_view_get_node_position (self->graph_view, node->id, &x, &y))
        ct_document_set_node_position (self->document, node->id, x, y);
      ct_document_set_node_expanded (self->document, node->id,
                                     ct_graph_view_get_expanded (self->graph_view, node->id));
    }
}

static void
node_moved (CtGraphView *view, const char *id, CtWindow *self)
{
  double x, y;

  /* From now on the whole layout is the user's and is kept. */
  g_object_set_data (G_OBJECT (self), "ct-layout-touched", GINT_TO_POINTER (TRUE));
  if (ct_graph_view_get_node_position (view, id, &x, &y))
    ct_document_set_node_position (self->document, id, x, y);
}

/* Edits asked for by the canvas. */

static void
connect_requested (CtGraphView *view, const char *from_id, guint top, const char *to_id,
                   int bottom, CtWindow *self)
{
  int from = ct_window_layer_for_id (self, from_id);
  int to = ct_window_layer_for_id (self, to_id);
  g_autoptr (GError) error = NULL;

  if (from < 0 || to < 0)
    return;
  if (!ct_document_connect (self->document, (guint) from, top, (guint) to, bottom, &error))
    ct_window_report_error (self, _("Could not connect"), error);
}

static void
disconnect_requested (CtGraphView *view, guint edge_index, CtWindow *self)
{
  const CtGraphEdge *edge;
  int to;
  g_autoptr (GError) error = NULL;

  if (self->graph == NULL || edge_index >= ct_graph_model_n_edges (self->graph->model))
    return;
  edge = ct_graph_model_get_edge (self->graph->model, edge_index);
  to = g_array_index (self->graph->node_layers, int, edge->to_node);
  if (to >= 0 && !ct_document_disconnect (self->document, (guint) to, edge->to_port, &error))
    ct_window_report_error (self, _("Could not disconnect"), error);
}

static void
delete_requested (CtGraphView *view, GStrv ids, CtWindow *self)
{
  g_autoptr (GArray) layers = layers_of_nodes (self, (const char *const *) ids);
  g_autoptr (GError) error = NULL;

  if (layers->len > 0
      && !ct_document_delete_layers (self->document, (const guint *) (void *) layers->data,
                                     layers->len, &error))
    ct_window_report_error (self, NULL, error);
}

static void
node_activated (CtGraphView *view, const char *id, CtWindow *self)
{
  /* Activating a node is renaming it, as F2 is. */
  gtk_widget_activate_action (GTK_WIDGET (self), "win.rename", NULL);
}

static void
select_new_layer (CtWindow *self, int layer, gboolean focus)
{
  const char *id = id_for_layer (self, layer);
  const char *ids[] = { id, NULL };

  if (id == NULL)
    return;
  ct_window_select (self, ids);
  ct_graph_view_reveal (self->graph_view, id, focus);
}

char *
ct_window_drop_layer (CtWindow *self, const char *type, double x, double y, int edge_index)
{
  g_autoptr (GError) error = NULL;
  const char *id;
  gboolean on_node = FALSE;
  int layer;

  g_return_val_if_fail (CT_IS_WINDOW (self), NULL);
  if (edge_index >= 0 && self->graph != NULL
      && (guint) edge_index < ct_graph_model_n_edges (self->graph->model))
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (self->graph->model, (guint) edge_index);
      int from = g_array_index (self->graph->node_layers, int, edge->from_node);
      int to = g_array_index (self->graph->node_layers, int, edge->to_node);

      layer = from >= 0 && to >= 0
                ? ct_document_insert_layer (self->document, type, (guint) from, edge->from_port,
                                            (guint) to, edge->to_port, &error)
                : -1;
    }
  else
    {
      /* Dropped on a node: the new layer reads its output (as activating
       * a palette row with that node selected does) and the layout places
       * it below, instead of on top of the node. Elsewhere: where dropped. */
      const Caffe__NetParameter *net = ct_document_get_net (self->document);
      const CtGraphScene *scene = ct_graph_view_get_scene (self->graph_view);
      int node = scene != NULL && self->graph != NULL
                   ? ct_graph_scene_node_at (scene, x, y) : -1;
      int under = node >= 0 && (guint) node < self->graph->node_layers->len
                    ? g_array_index (self->graph->node_layers, int, node) : -1;
      const char *bottom = NULL;

      if (net != NULL && under >= 0 && (gsize) under < net->n_layer
          && net->layer[under]->n_top > 0)
        bottom = net->layer[under]->top[0];
      on_node = bottom != NULL;
      layer = ct_document_add_layer (self->document, type, bottom, &error);
    }
  if (layer < 0)
    {
      if (error != NULL)
        ct_window_report_error (self, _("Could not add the layer"), error);
      return NULL;
    }
  id = id_for_layer (self, layer);
  if (id == NULL)
    {
      /* Not shown in this phase (an Accuracy layer while showing training). */
      ct_window_show_toast (self, _("The new layer is not part of the phase shown"));
      return NULL;
    }
  if (edge_index < 0 && !on_node)
    ct_graph_view_set_node_position (self->graph_view, id, x, y);
  select_new_layer (self, layer, TRUE);
  return g_strdup (id);
}

static void
layer_dropped (CtGraphView *view, const char *type, double x, double y, int edge,
               CtWindow *self)
{
  /* The new layer is selected; its id is not needed here. */
  g_free (ct_window_drop_layer (self, type, x, y, edge));
}

/* Activating a palette row adds the type after the selected layer, so that
 * a net can be built from the keyboard. */
static void
palette_activated (CtPalette *palette, const char *type, CtWindow *self)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  g_autoptr (GError) error = NULL;
  guint n = 0;
  g_autofree guint *layers = ct_window_selected_layers (self, &n);
  const char *bottom = NULL;
  int layer;

  if (n >= 1 && net != NULL && net->layer[layers[0]]->n_top > 0)
    bottom = net->layer[layers[0]]->top[0];
  layer = ct_document_add_layer (self->document, type, bottom, &error);
  if (layer < 0)
    {
      ct_window_report_error (self, _("Could not add the layer"), error);
      return;
    }
  select_new_layer (self, layer, FALSE);
}

static void
context_menu (CtGraphView *view, const char *id, double x, double y, CtWindow *self)
{
  GdkRectangle rect = { (int) x, (int) y, 1, 1 };
  GtkWidget *popover;

  if (id != NULL)
    {
      if (!ct_selection_contains (self->selection, id))
        {
          const char *ids[] = { id, NULL };
          ct_window_select (self, ids);
        }
    }
  /* One popover, reused: destroying one while its press is still being
   * handled upsets GTK's bookkeeping. */
  if (self->context_popover == NULL)
    {
      self->context_popover = gtk_popover_menu_new_from_model (NULL);
      gtk_widget_set_parent (self->context_popover, GTK_WIDGET (view));
      gtk_popover_set_has_arrow (GTK_POPOVER (self->context_popover), FALSE);
      gtk_widget_set_halign (self->context_popover, GTK_ALIGN_START);
    }
  popover = self->context_popover;
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (popover),
                                   id != NULL ? self->node_menu : self->canvas_menu);
  gtk_popover_set_pointing_to (GTK_POPOVER (popover), &rect);
  gtk_popover_popup (GTK_POPOVER (popover));
}

static void
zoom_changed (CtGraphView *view, GParamSpec *pspec, CtWindow *self)
{
  g_autofree char *text = g_strdup_printf ("%d%%", (int) (ct_graph_view_get_zoom (view) * 100 + 0.5));

  gtk_label_set_text (self->zoom_label, text);
}

/* The palette lists the catalogue by family, coloured as the graph colours
 * its nodes. */
static void
fill_palette (CtWindow *self)
{
  g_autoptr (GPtrArray) classes = ct_layer_catalogue_list ();
  AdwStyleManager *style = adw_style_manager_get_default ();
  const CtGraphPalette *colors = ct_graph_palette_get (adw_style_manager_get_dark (style));

  ct_palette_clear (self->palette);
  for (guint i = 0; i < classes->len; i++)
    {
      const CtLayerClass *klass = classes->pdata[i];
      guint family = MIN ((guint) klass->family, (guint) CT_GRAPH_FAMILY_OTHER);
      const CtGraphColor *c = &colors->family[family];
      GdkRGBA rgba = { (float) c->r, (float) c->g, (float) c->b, 1 };

      /* Split layers are inserted by the engine, never by hand. */
      if (g_str_equal (klass->type, "Split"))
        continue;
      ct_palette_add_item (self->palette, klass->type, ct_layer_family_name (klass->family),
                           ct_layer_class_describe (klass), &rgba);
    }
}

void
ct_window_init_graph (CtWindow *self)
{
  g_signal_connect (self->graph_view, "selection-changed", G_CALLBACK (view_selection_changed),
                    self);
  g_signal_connect (self->selection, "changed", G_CALLBACK (selection_changed), self);
  g_signal_connect (self->graph_view, "connect-requested", G_CALLBACK (connect_requested), self);
  g_signal_connect (self->graph_view, "disconnect-requested", G_CALLBACK (disconnect_requested),
                    self);
  g_signal_connect (self->graph_view, "delete-requested", G_CALLBACK (delete_requested), self);
  g_signal_connect (self->graph_view, "node-activated", G_CALLBACK (node_activated), self);
  g_signal_connect (self->graph_view, "layer-dropped", G_CALLBACK (layer_dropped), self);
  g_signal_connect (self->graph_view, "context-menu", G_CALLBACK (context_menu), self);
  g_signal_connect (self->graph_view, "node-moved", G_CALLBACK (node_moved), self);
  g_signal_connect (self->graph_view, "notify::zoom", G_CALLBACK (zoom_changed), self);
  g_signal_connect (self->phase_dropdown, "notify::selected", G_CALLBACK (phase_selected), self);
  g_signal_connect (self->palette, "activate-type", G_CALLBACK (palette_activated), self);
  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (fill_palette), self);
  fill_palette (self);
}

void
ct_window_graph_dispose (CtWindow *self)
{
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  g_clear_pointer (&self->context_popover, gtk_widget_unparent);
  if (self->blob_panel != NULL)
    ct_blob_panel_set_graph (self->blob_panel, NULL);
  g_clear_pointer (&self->graph, ct_net_graph_free);
}
