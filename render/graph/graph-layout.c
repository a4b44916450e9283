/* graph-layout.c: the layered layout of graph-layout.h: the entry point
 * that runs the four phases (rank, order, place, route; see
 * graph-layout-private.h), and the small operations on a finished layout. */
#include "graph-layout-private.h"

#include <math.h>

void
ct_graph_layout_options_init (CtGraphLayoutOptions *options, CtGraphRankdir rankdir)
{
  options->rankdir = rankdir;
  options->node_sep = 28;
  options->rank_sep = 56;
  options->edge_sep = 14;
  options->max_sweeps = 24;
}

static void
layout_clear (CtLayoutState *l)
{
  gpointer arrays[] = {
    l->rank, l->across_size, l->along_size, l->x, l->key, l->pos, l->fixed, l->prev_x,
    l->reversed, l->chain_start, l->chain_len, l->chain_ids, l->dummy_edge,
    l->up_start, l->up, l->down_start, l->down,
  };

  for (guint i = 0; i < G_N_ELEMENTS (arrays); i++)
    g_free (arrays[i]);
  if (l->ranks != NULL)
    g_ptr_array_unref (l->ranks);
}

CtGraphLayout *
ct_graph_layout_compute (const CtGraphLayoutRequest *request)
{
  CtLayoutState l = { 0 };
  CtGraphLayout *result;

  g_return_val_if_fail (request != NULL, NULL);
  l.request = request;
  l.options = &request->options;
  l.n_real = request->n_nodes;
  l.rank = g_new0 (int, MAX (l.n_real, 1));
  l.reversed = g_new0 (gboolean, MAX (request->n_edges, 1));
  l.chain_start = g_new0 (guint, MAX (request->n_edges, 1));
  l.chain_len = g_new0 (guint, MAX (request->n_edges, 1));

  ct_graph_layout_rank (&l);
  ct_graph_layout_order (&l);
  ct_graph_layout_place (&l);
  result = ct_graph_layout_route (&l);
  layout_clear (&l);
  return result;
}

CtGraphLayout *
ct_graph_layout_copy (const CtGraphLayout *layout)
{
  CtGraphLayout *copy = g_memdup2 (layout, sizeof *layout);

  copy->nodes = g_memdup2 (layout->nodes, sizeof (CtGraphLayoutNode) * MAX (layout->n_nodes, 1));
  copy->routes = g_memdup2 (layout->routes,
                            sizeof (CtGraphLayoutRoute) * MAX (layout->n_edges, 1));
  for (guint e = 0; e < layout->n_edges; e++)
    copy->routes[e].points = g_memdup2 (layout->routes[e].points,
                                        sizeof (CtGraphPoint) * layout->routes[e].n_points);
  return copy;
}

void
ct_graph_layout_free (CtGraphLayout *layout)
{
  if (layout == NULL)
    return;
  for (guint e = 0; e < layout->n_edges; e++)
    g_free (layout->routes[e].points);
  g_free (layout->routes);
  g_free (layout->nodes);
  g_free (layout);
}

void
ct_graph_layout_move_node (CtGraphLayout *layout, guint node, double x, double y,
                           const CtGraphLayoutEdgeSpec *edges)
{
  CtGraphLayoutNode *n;

  g_return_if_fail (node < layout->n_nodes);
  n = &layout->nodes[node];
  n->x = x;
  n->y = y;
  for (guint e = 0; edges != NULL && e < layout->n_edges; e++)
    if (edges[e].from == node || edges[e].to == node)
      {
        g_clear_pointer (&layout->routes[e].points, g_free);
        layout->routes[e].n_points = 0;
      }
  layout->width = MAX (layout->width, x + n->width / 2);
  layout->height = MAX (layout->height, y + n->height / 2);
}

guint
ct_graph_layout_count_overlaps (const CtGraphLayout *layout)
{
  guint count = 0;

  /* Nodes of one rank share a band, so only pairs within a rank (sorted by
   * order) and between ranks whose bands touch can overlap; a plain double
   * loop is fast enough for test-sized graphs. */
  for (guint i = 0; i < layout->n_nodes; i++)
    for (guint j = i + 1; j < layout->n_nodes; j++)
      {
        const CtGraphLayoutNode *a = &layout->nodes[i], *b = &layout->nodes[j];
        if (fabs (a->x - b->x) * 2 < a->width + b->width - 1e-6
            && fabs (a->y - b->y) * 2 < a->height + b->height - 1e-6)
          count++;
      }
  return count;
}

guint
ct_graph_layout_count_upward_edges (const CtGraphLayout *layout,
                                    const CtGraphLayoutEdgeSpec *edges)
{
  guint count = 0;

  for (guint e = 0; e < layout->n_edges; e++)
    {
      const CtGraphLayoutEdgeSpec *spec = &edges[e];
      if (spec->from == spec->to || spec->from >= layout->n_nodes || spec->to >= layout->n_nodes)
        continue;
      if (layout->nodes[spec->to].rank <= layout->nodes[spec->from].rank)
        count++;
    }
  return count;
}
