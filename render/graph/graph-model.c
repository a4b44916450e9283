/* graph-model.c: CtGraphModel, plain data for the graph canvas (nodes with
 * ports, edges between ports). See graph-model.h. Per-node edge lists are
 * built lazily on the first query, since a model is filled once and then
 * only read. */
#include "graph-model.h"

#include <string.h>

struct _CtGraphModel {
  gint ref_count;
  GPtrArray *nodes;        /* CtGraphNode* */
  GArray *edges;           /* CtGraphEdge */
  GHashTable *ids;         /* id (also folded ids) -> node index + 1 */
  /* Lazily built adjacency: per node, a GArray of edge indices. */
  GPtrArray *in_edges;
  GPtrArray *out_edges;
};

static void
folded_free (gpointer data)
{
  CtGraphFolded *folded = data;

  g_free (folded->id);
  g_free (folded->name);
  g_free (folded->type);
  g_free (folded->error);
  g_free (folded);
}

static void
node_free (gpointer data)
{
  CtGraphNode *node = data;

  g_free (node->id);
  g_free (node->name);
  g_free (node->type);
  g_free (node->error);
  g_free (node->detail);
  g_ptr_array_unref (node->bottoms);
  g_ptr_array_unref (node->tops);
  g_ptr_array_unref (node->folded);
  g_free (node);
}

static void
edge_clear (gpointer data)
{
  CtGraphEdge *edge = data;

  g_free (edge->blob);
  g_free (edge->shape);
}

CtGraphModel *
ct_graph_model_new (void)
{
  CtGraphModel *model = g_new0 (CtGraphModel, 1);

  model->ref_count = 1;
  model->nodes = g_ptr_array_new_with_free_func (node_free);
  model->edges = g_array_new (FALSE, TRUE, sizeof (CtGraphEdge));
  g_array_set_clear_func (model->edges, edge_clear);
  model->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return model;
}

CtGraphModel *
ct_graph_model_ref (CtGraphModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_atomic_int_inc (&model->ref_count);
  return model;
}

static void
drop_adjacency (CtGraphModel *model)
{
  g_clear_pointer (&model->in_edges, g_ptr_array_unref);
  g_clear_pointer (&model->out_edges, g_ptr_array_unref);
}

void
ct_graph_model_unref (CtGraphModel *model)
{
  if (model == NULL || !g_atomic_int_dec_and_test (&model->ref_count))
    return;
  drop_adjacency (model);
  g_ptr_array_unref (model->nodes);
  g_array_unref (model->edges);
  g_hash_table_unref (model->ids);
  g_free (model);
}

/* An id not used yet: ID itself or ID#2, ID#3, ... */
static char *
unique_id (CtGraphModel *model, const char *id)
{
  if (!g_hash_table_contains (model->ids, id))
    return g_strdup (id);
  for (guint i = 2;; i++)
    {
      g_autofree char *candidate = g_strdup_printf ("%s#%u", id, i);
      if (!g_hash_table_contains (model->ids, candidate))
        return g_steal_pointer (&candidate);
    }
}

guint
ct_graph_model_add_node (CtGraphModel *model, const char *id, const char *name,
                         const char *type, CtGraphFamily family)
{
  CtGraphNode *node = g_new0 (CtGraphNode, 1);
  guint index = model->nodes->len;

  if (id == NULL || *id == '\0')
    id = name != NULL && *name != '\0' ? name : "node";
  node->id = unique_id (model, id);
  node->name = g_strdup (name != NULL ? name : id);
  node->type = g_strdup (type != NULL ? type : "");
  node->family = (guint) family < CT_GRAPH_N_FAMILIES ? family : CT_GRAPH_FAMILY_OTHER;
  node->bottoms = g_ptr_array_new_with_free_func (g_free);
  node->tops = g_ptr_array_new_with_free_func (g_free);
  node->folded = g_ptr_array_new_with_free_func (folded_free);
  g_hash_table_insert (model->ids, g_strdup (node->id), GUINT_TO_POINTER (index + 1));
  g_ptr_array_add (model->nodes, node);
  drop_adjacency (model);
  return index;
}

static CtGraphNode *
node_at (const CtGraphModel *model, guint node)
{
  g_return_val_if_fail (node < model->nodes->len, NULL);
  return g_ptr_array_index (model->nodes, node);
}

guint
ct_graph_model_add_bottom (CtGraphModel *model, guint node, const char *blob)
{
  CtGraphNode *n = node_at (model, node);

  g_return_val_if_fail (n != NULL, 0);
  g_ptr_array_add (n->bottoms, g_strdup (blob != NULL ? blob : ""));
  return n->bottoms->len - 1;
}

guint
ct_graph_model_add_top (CtGraphModel *model, guint node, const char *blob)
{
  CtGraphNode *n = node_at (model, node);

  g_return_val_if_fail (n != NULL, 0);
  g_ptr_array_add (n->tops, g_strdup (blob != NULL ? blob : ""));
  return n->tops->len - 1;
}

static void
replace_string (char **slot, const char *value)
{
  char *copy = value != NULL && *value != '\0' ? g_strdup (value) : NULL;

  g_free (*slot);
  *slot = copy;
}

void
ct_graph_model_set_error (CtGraphModel *model, guint node, const char *error)
{
  CtGraphNode *n = node_at (model, node);

  g_return_if_fail (n != NULL);
  replace_string (&n->error, error);
}

void
ct_graph_model_set_detail (CtGraphModel *model, guint node, const char *detail)
{
  CtGraphNode *n = node_at (model, node);

  g_return_if_fail (n != NULL);
  replace_string (&n->detail, detail);
}

void
ct_graph_model_set_phase (CtGraphModel *model, guint node, CtGraphPhase phase)
{
  CtGraphNode *n = node_at (model, node);

  g_return_if_fail (n != NULL);
  n->phase = phase;
}

void
ct_graph_model_add_folded (CtGraphModel *model, guint node, const char *id,
                           const char *name, const char *type, CtGraphFamily family,
                           const char *error)
{
  CtGraphNode *n = node_at (model, node);
  CtGraphFolded *folded;

  g_return_if_fail (n != NULL);
  folded = g_new0 (CtGraphFolded, 1);
  if (id == NULL || *id == '\0')
    id = name != NULL ? name : "folded";
  folded->id = unique_id (model, id);
  folded->name = g_strdup (name != NULL ? name : id);
  folded->type = g_strdup (type != NULL ? type : "");
  folded->family = (guint) family < CT_GRAPH_N_FAMILIES ? family : CT_GRAPH_FAMILY_OTHER;
  folded->error = error != NULL && *error != '\0' ? g_strdup (error) : NULL;
  g_hash_table_insert (model->ids, g_strdup (folded->id), GUINT_TO_POINTER (node + 1));
  g_ptr_array_add (n->folded, folded);
}

guint
ct_graph_model_add_edge (CtGraphModel *model, guint from_node, guint from_port,
                         guint to_node, guint to_port, const char *blob, const char *shape)
{
  CtGraphEdge edge = { 0 };
  CtGraphNode *from = node_at (model, from_node);
  CtGraphNode *to = node_at (model, to_node);

  g_return_val_if_fail (from != NULL && to != NULL, 0);
  g_return_val_if_fail (from_port < from->tops->len && to_port < to->bottoms->len, 0);
  edge.from_node = from_node;
  edge.from_port = from_port;
  edge.to_node = to_node;
  edge.to_port = to_port;
  edge.blob = g_strdup (blob != NULL ? blob : g_ptr_array_index (from->tops, from_port));
  edge.shape = shape != NULL && *shape != '\0' ? g_strdup (shape) : NULL;
  g_array_append_val (model->edges, edge);
  drop_adjacency (model);
  return model->edges->len - 1;
}

guint
ct_graph_model_n_nodes (const CtGraphModel *model)
{
  return model != NULL ? model->nodes->len : 0;
}

const CtGraphNode *
ct_graph_model_get_node (const CtGraphModel *model, guint node)
{
  return node_at (model, node);
}

guint
ct_graph_model_n_edges (const CtGraphModel *model)
{
  return model != NULL ? model->edges->len : 0;
}

const CtGraphEdge *
ct_graph_model_get_edge (const CtGraphModel *model, guint edge)
{
  g_return_val_if_fail (edge < model->edges->len, NULL);
  return &g_array_index (model->edges, CtGraphEdge, edge);
}

int
ct_graph_model_find_node (const CtGraphModel *model, const char *id)
{
  gpointer value;

  if (model == NULL || id == NULL)
    return -1;
  value = g_hash_table_lookup (model->ids, id);
  return value != NULL ? (int) GPOINTER_TO_UINT (value) - 1 : -1;
}

static void
build_adjacency (CtGraphModel *model)
{
  if (model->in_edges != NULL)
    return;
  model->in_edges = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  model->out_edges = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i < model->nodes->len; i++)
    {
      g_ptr_array_add (model->in_edges, g_array_new (FALSE, FALSE, sizeof (guint)));
      g_ptr_array_add (model->out_edges, g_array_new (FALSE, FALSE, sizeof (guint)));
    }
  for (guint e = 0; e < model->edges->len; e++)
    {
      const CtGraphEdge *edge = &g_array_index (model->edges, CtGraphEdge, e);
      g_array_append_val ((GArray *) g_ptr_array_index (model->out_edges, edge->from_node), e);
      g_array_append_val ((GArray *) g_ptr_array_index (model->in_edges, edge->to_node), e);
    }
}

static const guint *
adjacent (GPtrArray *lists, guint node, guint *n_out)
{
  GArray *list;

  g_return_val_if_fail (node < lists->len, NULL);
  list = g_ptr_array_index (lists, node);
  *n_out = list->len;
  return (const guint *) list->data;
}

/* The model is logically const here: the lists are a cache. */
const guint *
ct_graph_model_node_in_edges (const CtGraphModel *model, guint node, guint *n_out)
{
  build_adjacency ((CtGraphModel *) model);
  return adjacent (model->in_edges, node, n_out);
}

const guint *
ct_graph_model_node_out_edges (const CtGraphModel *model, guint node, guint *n_out)
{
  build_adjacency ((CtGraphModel *) model);
  return adjacent (model->out_edges, node, n_out);
}

guint
ct_graph_model_n_errors (const CtGraphModel *model)
{
  guint count = 0;

  for (guint i = 0; model != NULL && i < model->nodes->len; i++)
    {
      const CtGraphNode *node = g_ptr_array_index (model->nodes, i);
      if (node->error != NULL)
        count++;
      for (guint j = 0; j < node->folded->len; j++)
        if (((CtGraphFolded *) g_ptr_array_index (node->folded, j))->error != NULL)
          count++;
    }
  return count;
}

const char *
ct_graph_family_to_string (CtGraphFamily family)
{
  static const char *const names[] = {
    "Data", "Vision", "Neuron", "Normalization", "Common", "Loss", "Recurrent", "Utility",
    "Other",
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == CT_GRAPH_N_FAMILIES);

  return (guint) family < CT_GRAPH_N_FAMILIES ? names[family] : "Other";
}
