/* blob-panel-edge.c: the blob panel (blob-panel.c) and the graph's
 * edges. When the window's selection is a blob (an edge clicked on the
 * graph) the panel shows that blob alone, in the version its edge
 * carries: the blob as the consumer at the edge's end reads it, after
 * every in-place layer that ran before that consumer (conv1 into pool1
 * is "after relu1"). And for keyboard users, the panel's "Select Edge"
 * button turns the blob chosen among a layer's inputs and outputs into
 * that selection, as a click on its edge would.
 *
 * Names. The selection speaks the document's names (graph node ids and
 * the blob names of the prototxt); the snapshot speaks the engine's,
 * whose Split layers rename the bottoms of a blob read by several layers.
 * The blob is found in the snapshot by its own name, which is its
 * producer's top. */
#include "blob-panel-private.h"

/* The snapshot's layer of document layer LAYER, by name, or -1. */
static int
snapshot_layer (CtBlobPanel *panel, int layer)
{
  const Caffe__NetParameter *net = panel->document != NULL ? ct_document_get_net (panel->document)
                                                           : NULL;

  if (net == NULL || layer < 0 || (gsize) layer >= net->n_layer)
    return -1;
  for (guint i = 0; i < ct_run_snapshot_n_layers (panel->snapshot); i++)
    if (g_strcmp0 (ct_run_snapshot_get_layer (panel->snapshot, i)->name,
                   net->layer[layer]->name) == 0)
      return (int) i;
  return -1;
}

int
ct_blob_panel_selected_blob (CtBlobPanel *panel, guint *version)
{
  CtSelection *selection = panel->selection;
  const char *name = ct_selection_get_blob (selection);
  const char *consumer = ct_selection_get_blob_consumer (selection);
  const CtRunBlob *blob = NULL;
  int index = -1, reader;

  *version = G_MAXUINT;
  if (panel->snapshot == NULL || name == NULL)
    return -1;
  for (guint i = 0; i < ct_run_snapshot_n_blobs (panel->snapshot) && index < 0; i++)
    if (g_strcmp0 (ct_run_snapshot_get_blob (panel->snapshot, i)->name, name) == 0)
      {
        index = (int) i;
        blob = ct_run_snapshot_get_blob (panel->snapshot, i);
      }
  if (index < 0)
    return -1;
  /* The last version written before the consumer runs; without one, the
   * latest (G_MAXUINT follows the run as it steps). */
  reader = consumer != NULL ? snapshot_layer (panel, ct_blob_panel_layer_for_id (panel, consumer))
                            : -1;
  if (reader >= 0 && blob->versions != NULL)
    {
      for (guint i = 0; i < blob->versions->len; i++)
        if (((CtRunVersion *) g_ptr_array_index (blob->versions, i))->layer_index < reader)
          *version = i;
      /* Before the consumer, nothing was written yet this pass: the
       * latest, which the next steps bring. */
    }
  return index;
}

/* The graph node showing document layer LAYER (itself, or the node it is
 * folded into), or -1. */
static int
graph_node (CtBlobPanel *panel, int layer)
{
  if (panel->graph == NULL || layer < 0 || (guint) layer >= panel->graph->layer_nodes->len)
    return -1;
  return g_array_index (panel->graph->layer_nodes, int, layer);
}

int
ct_blob_panel_layer_for_id (CtBlobPanel *panel, const char *id)
{
  const Caffe__NetParameter *net = panel->document != NULL ? ct_document_get_net (panel->document)
                                                           : NULL;

  return ct_net_graph_layer_for_id (panel->graph, net, id);
}

void
ct_blob_panel_select_edge (CtBlobPanel *panel)
{
  const Caffe__NetParameter *net = panel->document != NULL ? ct_document_get_net (panel->document)
                                                           : NULL;
  const Item *item;
  const CtRunLayer *run_layer;
  CtGraphModel *model;
  int layer, node;
  const char *blob = NULL, *producer = NULL, *consumer = NULL;

  if (panel->items->len == 0 || panel->layer < 0 || net == NULL || panel->graph == NULL)
    return;
  item = &g_array_index (panel->items, Item, panel->item);
  if (item->kind == ITEM_PARAM)
    return;
  run_layer = ct_run_snapshot_get_layer (panel->snapshot, (guint) panel->layer);
  layer = -1;
  for (gsize i = 0; i < net->n_layer && layer < 0; i++)
    if (g_strcmp0 (net->layer[i]->name, run_layer->name) == 0)
      layer = (int) i;
  node = graph_node (panel, layer);
  if (node < 0)
    {
      gtk_widget_error_bell (GTK_WIDGET (panel));
      return;
    }
  model = panel->graph->model;
  /* The document's name of the blob: the engine's bottoms may be split
   * copies; the order of bottoms and tops is the document's. */
  if (item->kind == ITEM_TOP)
    {
      guint n_out;
      const guint *out = ct_graph_model_node_out_edges (model, (guint) node, &n_out);

      for (guint j = 0; j < run_layer->n_tops && j < net->layer[layer]->n_top; j++)
        if (run_layer->tops[j] == item->blob)
          blob = net->layer[layer]->top[j];
      producer = ct_graph_model_get_node (model, (guint) node)->id;
      /* its first reader on the graph; none: the blob as the net leaves it */
      for (guint i = 0; blob != NULL && consumer == NULL && i < n_out; i++)
        {
          const CtGraphEdge *e = ct_graph_model_get_edge (model, out[i]);

          if (g_strcmp0 (e->blob, blob) == 0)
            consumer = ct_graph_model_get_node (model, e->to_node)->id;
        }
    }
  else
    {
      guint n_in;
      const guint *in = ct_graph_model_node_in_edges (model, (guint) node, &n_in);

      for (guint j = 0; j < run_layer->n_bottoms && j < net->layer[layer]->n_bottom; j++)
        if (run_layer->bottoms[j] == item->blob)
          blob = net->layer[layer]->bottom[j];
      consumer = ct_graph_model_get_node (model, (guint) node)->id;
      for (guint i = 0; blob != NULL && producer == NULL && i < n_in; i++)
        {
          const CtGraphEdge *e = ct_graph_model_get_edge (model, in[i]);

          if (g_strcmp0 (e->blob, blob) == 0)
            producer = ct_graph_model_get_node (model, e->from_node)->id;
        }
    }
  if (blob == NULL || producer == NULL)
    {
      gtk_widget_error_bell (GTK_WIDGET (panel));
      return;
    }
  ct_selection_set_blob (panel->selection, blob, producer, consumer, CT_SELECTION_REVEAL);
  /* the button goes with the layer's list: keep the focus in the panel */
  gtk_widget_grab_focus (panel->data_button);
}
