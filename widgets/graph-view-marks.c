/* graph-view-marks.c: CtGraphView's comparison marks (see graph-view.h):
 * a colour and a note per layer id, drawn over its node and added to the
 * node's tooltip and accessible description. Kept by layer id, so that a
 * new model (an edit) keeps the marks of the layers it still has; a layer
 * folded into a node shows its mark on that node when the node has none of
 * its own. */
#include "graph-view-private.h"

void
ct_graph_view_mark_free (gpointer data)
{
  GraphMark *mark = data;

  g_free (mark->note);
  g_free (mark);
}

const GraphMark *
ct_graph_view_lookup_mark (CtGraphView *self, const char *id)
{
  const GraphMark *mark = g_hash_table_lookup (self->marks, id);
  int index;
  const CtGraphNode *node;

  if (mark != NULL || g_hash_table_size (self->marks) == 0)
    return mark;
  index = index_of (self, id);
  if (index < 0)
    return NULL;
  node = ct_graph_model_get_node (self->model, (guint) index);
  for (guint i = 0; i < node->folded->len && mark == NULL; i++)
    mark = g_hash_table_lookup (self->marks,
                                ((const CtGraphFolded *) node->folded->pdata[i])->id);
  return mark;
}

static void
refresh_all (CtGraphView *self)
{
  for (guint i = 0; i < self->children->len; i++)
    ct_graph_view_refresh_node (self, (int) i);
}

void
ct_graph_view_set_marks (CtGraphView *self, const CtGraphNodeMark *marks, guint n)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->marks);
  for (guint i = 0; i < n; i++)
    {
      GraphMark *mark = g_new0 (GraphMark, 1);

      mark->color = marks[i].color;
      mark->note = g_strdup (marks[i].note != NULL ? marks[i].note : "");
      g_hash_table_insert (self->marks, g_strdup (marks[i].id), mark);
    }
  refresh_all (self);
}

void
ct_graph_view_clear_marks (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (g_hash_table_size (self->marks) == 0)
    return;
  g_hash_table_remove_all (self->marks);
  refresh_all (self);
}

const char *
ct_graph_view_get_mark (CtGraphView *self, const char *id, CtGraphColor *color)
{
  const GraphMark *mark;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  mark = ct_graph_view_lookup_mark (self, id);
  if (mark != NULL && color != NULL)
    *color = mark->color;
  return mark != NULL ? mark->note : NULL;
}

guint
ct_graph_view_n_marks (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), 0);
  return g_hash_table_size (self->marks);
}
