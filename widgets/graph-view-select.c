/* graph-view-select.c: the graph view's selection and Find. The selection
 * is a set of ids: nodes' own, and those of layers folded into a node
 * (ReLU after a convolution), which are selected, found and drawn as
 * themselves; or else one edge (a blob), never both. */
#include "graph-view-private.h"

#include <string.h>

/* Find walks the layers in model order, each node followed by the layers
 * folded into it, so that a folded layer is found (and selected) as
 * itself. */
const char *
ct_graph_view_find (CtGraphView *self, const char *text, const char *after_id)
{
  int n = node_count (self);
  int start = 0, at = -1;
  g_autofree char *needle = NULL;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  if (n == 0 || text == NULL || *text == '\0')
    return NULL;
  needle = g_utf8_casefold (text, -1);
  if (index_of (self, after_id) < 0)
    after_id = NULL;
  if (after_id != NULL)
    {
      start = index_of (self, after_id);
      at = ct_graph_view_folded_index (self, start, after_id);
    }
  /* one round: from just after AFTER_ID, wrapping round to it */
  for (int step = 0; step <= n; step++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (self->model, (start + step) % n);

      for (int e = -1; e < (int) node->folded->len; e++)
        {
          const CtGraphFolded *f = e >= 0 ? g_ptr_array_index (node->folded, e) : NULL;
          g_autofree char *name = NULL;

          if (after_id != NULL && step == 0 && e <= at)
            continue;
          if (step == n && (after_id == NULL || e > at))
            break;
          name = g_utf8_casefold (f != NULL ? f->name : node->name, -1);
          if (strstr (name, needle) != NULL)
            return f != NULL ? f->id : node->id;
        }
    }
  return NULL;
}

int
ct_graph_view_folded_index (CtGraphView *self, int index, const char *id)
{
  const CtGraphNode *node;

  if (index < 0 || id == NULL)
    return -1;
  node = ct_graph_model_get_node (self->model, index);
  for (guint i = 0; i < node->folded->len; i++)
    if (strcmp (((const CtGraphFolded *) g_ptr_array_index (node->folded, i))->id, id) == 0)
      return (int) i;
  return -1;
}

guint32
ct_graph_view_folded_selected (CtGraphView *self, guint index)
{
  const CtGraphNode *node = ct_graph_model_get_node (self->model, index);
  guint32 mask = 0;

  for (guint i = 0; i < node->folded->len && i < 32; i++)
    if (g_hash_table_contains (self->selected,
                               ((const CtGraphFolded *) g_ptr_array_index (node->folded, i))->id))
      mask |= 1u << i;
  return mask;
}

/* Selection */

char **
ct_graph_view_dup_selected (CtGraphView *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  for (int i = 0; i < node_count (self); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (self->model, i);

      if (g_hash_table_contains (self->selected, node->id))
        g_strv_builder_add (builder, node->id);
      for (guint j = 0; j < node->folded->len; j++)
        {
          const CtGraphFolded *f = g_ptr_array_index (node->folded, j);
          if (g_hash_table_contains (self->selected, f->id))
            g_strv_builder_add (builder, f->id);
        }
    }
  return g_strv_builder_end (builder);
}

void
ct_graph_view_update_selected (CtGraphView *self)
{
  /* nodes or an edge: selecting nodes drops the edge */
  if (g_hash_table_size (self->selected) > 0)
    self->selected_edge = -1;
  for (guint i = 0; i < self->children->len; i++)
    {
      CtGraphNodeWidget *child = g_ptr_array_index (self->children, i);
      guint32 folded = ct_graph_view_folded_selected (self, i);
      /* a node counts as selected when it or a layer folded into it is */
      gboolean selected = g_hash_table_contains (self->selected, child->id) || folded != 0;
      gboolean was = (gtk_widget_get_state_flags (GTK_WIDGET (child))
                      & GTK_STATE_FLAG_SELECTED) != 0;

      if (folded != child->folded_selected)
        {
          for (guint j = 0; j < child->folded->len && j < 32; j++)
            if (((folded ^ child->folded_selected) >> j) & 1)
              gtk_accessible_update_state (GTK_ACCESSIBLE (g_ptr_array_index (child->folded, j)),
                                           GTK_ACCESSIBLE_STATE_SELECTED, (folded >> j) & 1,
                                           -1);
          child->folded_selected = folded;
          gtk_widget_queue_draw (GTK_WIDGET (child));
        }
      if (selected == was)
        continue;
      if (selected)
        gtk_widget_set_state_flags (GTK_WIDGET (child), GTK_STATE_FLAG_SELECTED, FALSE);
      else
        gtk_widget_unset_state_flags (GTK_WIDGET (child), GTK_STATE_FLAG_SELECTED);
      gtk_accessible_update_state (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_STATE_SELECTED,
                                   selected, -1);
      gtk_widget_queue_draw (GTK_WIDGET (child));
    }
  /* the selected node's edges are emphasised */
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ct_graph_view_select_only (CtGraphView *self, int index)
{
  g_hash_table_remove_all (self->selected);
  if (index >= 0)
    g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, index)->id));
  ct_graph_view_update_selected (self);
}

void
ct_graph_view_set_selected (CtGraphView *self, const char *const *ids)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->selected);
  for (gsize i = 0; ids != NULL && ids[i] != NULL; i++)
    {
      /* node ids and folded layers' ids alike */
      if (index_of (self, ids[i]) >= 0)
        g_hash_table_add (self->selected, g_strdup (ids[i]));
    }
  ct_graph_view_update_selected (self);
}

void
ct_graph_view_select_all (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  for (int i = 0; i < node_count (self); i++)
    g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, i)->id));
  ct_graph_view_update_selected (self);
}

void
ct_graph_view_unselect_all (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->selected);
  ct_graph_view_update_selected (self);
}

void
ct_graph_view_select_only_id (CtGraphView *self, const char *id)
{
  g_hash_table_remove_all (self->selected);
  g_hash_table_add (self->selected, g_strdup (id));
  ct_graph_view_update_selected (self);
}

void
ct_graph_view_activate_layer (CtGraphView *self, int index, const char *id)
{
  CtGraphNodeWidget *child = child_at (self, index);

  if (child == NULL || id == NULL)
    return;
  gtk_widget_grab_focus (GTK_WIDGET (child));
  /* a click on a node already selected alone changes nothing either */
  if (g_hash_table_size (self->selected) == 1 && g_hash_table_contains (self->selected, id))
    return;
  ct_graph_view_select_only_id (self, id);
  g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
}

void
ct_graph_view_toggle_selected (CtGraphView *self, int index)
{
  ct_graph_view_toggle_selected_id (self, ct_graph_model_get_node (self->model, index)->id);
}

void
ct_graph_view_toggle_selected_id (CtGraphView *self, const char *id)
{
  if (!g_hash_table_remove (self->selected, id))
    g_hash_table_add (self->selected, g_strdup (id));
  ct_graph_view_update_selected (self);
}


/* Edge selection */

int
ct_graph_view_get_selected_edge (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), -1);
  return self->selected_edge;
}

void
ct_graph_view_set_selected_edge (CtGraphView *self, int edge)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (self->model == NULL || edge < 0 || (guint) edge >= ct_graph_model_n_edges (self->model))
    edge = -1;
  if (edge >= 0 && g_hash_table_size (self->selected) > 0)
    {
      g_hash_table_remove_all (self->selected);
      ct_graph_view_update_selected (self);
    }
  if (edge == self->selected_edge)
    return;
  self->selected_edge = edge;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ct_graph_view_refind_edge (CtGraphView *self, CtGraphModel *model)
{
  const CtGraphEdge *old;
  const char *from, *to;

  if (self->selected_edge < 0 || self->model == NULL)
    return FALSE;
  old = ct_graph_model_get_edge (self->model, (guint) self->selected_edge);
  from = ct_graph_model_get_node (self->model, old->from_node)->id;
  to = ct_graph_model_get_node (self->model, old->to_node)->id;
  for (guint e = 0; model != NULL && e < ct_graph_model_n_edges (model); e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);

      if (g_strcmp0 (edge->blob, old->blob) == 0
          && g_strcmp0 (ct_graph_model_get_node (model, edge->from_node)->id, from) == 0
          && g_strcmp0 (ct_graph_model_get_node (model, edge->to_node)->id, to) == 0)
        {
          self->selected_edge = (int) e;
          return FALSE;
        }
    }
  self->selected_edge = -1;
  return TRUE;
}
