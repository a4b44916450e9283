/* graph-view-select.c: the graph view's selection (by id) and Find. */
#include "graph-view-private.h"

#include <string.h>

const char *
ct_graph_view_find (CtGraphView *self, const char *text, const char *after_id)
{
  int n = node_count (self);
  int start;
  g_autofree char *needle = NULL;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  if (n == 0 || text == NULL || *text == '\0')
    return NULL;
  needle = g_utf8_casefold (text, -1);
  start = after_id != NULL ? index_of (self, after_id) + 1 : 0;
  for (int k = 0; k < n; k++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (self->model, (start + k) % n);
      g_autofree char *name = g_utf8_casefold (node->name, -1);

      if (strstr (name, needle) != NULL)
        return node->id;
      for (guint j = 0; j < node->folded->len; j++)
        {
          const CtGraphFolded *f = g_ptr_array_index (node->folded, j);
          g_autofree char *folded = g_utf8_casefold (f->name, -1);
          if (strstr (folded, needle) != NULL)
            return node->id;
        }
    }
  return NULL;
}

/* Selection */

char **
ct_graph_view_dup_selected (CtGraphView *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  for (int i = 0; i < node_count (self); i++)
    {
      const char *id = ct_graph_model_get_node (self->model, i)->id;
      if (g_hash_table_contains (self->selected, id))
        g_strv_builder_add (builder, id);
    }
  return g_strv_builder_end (builder);
}

void
ct_graph_view_update_selected (CtGraphView *self)
{
  for (guint i = 0; i < self->children->len; i++)
    {
      CtGraphNodeWidget *child = g_ptr_array_index (self->children, i);
      gboolean selected = g_hash_table_contains (self->selected, child->id);
      gboolean was = (gtk_widget_get_state_flags (GTK_WIDGET (child))
                      & GTK_STATE_FLAG_SELECTED) != 0;

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
      int index = index_of (self, ids[i]);
      if (index >= 0)
        g_hash_table_add (self->selected,
                          g_strdup (ct_graph_model_get_node (self->model, index)->id));
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
ct_graph_view_toggle_selected (CtGraphView *self, int index)
{
  const char *id = ct_graph_model_get_node (self->model, index)->id;

  if (!g_hash_table_remove (self->selected, id))
    g_hash_table_add (self->selected, g_strdup (id));
  ct_graph_view_update_selected (self);
}

