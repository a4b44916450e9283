/* graph-layout-route.c: the layout's last phase. Node boxes get their
 * final coordinates (swapped for left-to-right), each long edge is routed
 * through its dummies (two bend points per rank it crosses), and a fresh
 * layout is moved to start at the origin. */
#include "graph-layout-private.h"

static CtGraphPoint
make_point (gboolean lr, double across, double along)
{
  CtGraphPoint p;
  p.x = lr ? along : across;
  p.y = lr ? across : along;
  return p;
}

CtGraphLayout *
ct_graph_layout_route (CtLayoutState *l)
{
  const CtGraphLayoutRequest *req = l->request;
  gboolean lr = l->options->rankdir == CT_GRAPH_RANKDIR_LR;
  CtGraphLayout *out = g_new0 (CtGraphLayout, 1);
  g_autofree double *centre = g_new0 (double, MAX (l->n_ranks, 1));
  g_autofree double *band = g_new0 (double, MAX (l->n_ranks, 1));
  double min_x = G_MAXDOUBLE, min_y = G_MAXDOUBLE, max_x = -G_MAXDOUBLE, max_y = -G_MAXDOUBLE;

  ct_graph_layout_place_ranks (l, centre, band);
  out->rankdir = l->options->rankdir;
  out->n_nodes = l->n_real;
  out->nodes = g_new0 (CtGraphLayoutNode, MAX (l->n_real, 1));
  out->n_edges = req->n_edges;
  out->routes = g_new0 (CtGraphLayoutRoute, MAX (req->n_edges, 1));
  out->n_ranks = l->n_ranks;
  out->n_crossings = l->n_crossings;
  out->n_dummies = l->n_vertices - l->n_real;

  for (guint v = 0; v < l->n_real; v++)
    {
      CtGraphLayoutNode *node = &out->nodes[v];
      /* nodes of a rank line up at the side their inputs arrive on */
      int r = l->rank[v];
      CtGraphPoint p = make_point (lr, l->x[v], centre[r] - band[r] / 2 + l->along_size[v] / 2);
      node->x = p.x;
      node->y = p.y;
      node->width = lr ? l->along_size[v] : l->across_size[v];
      node->height = lr ? l->across_size[v] : l->along_size[v];
      node->rank = l->rank[v];
      node->order = l->pos[v];
      min_x = MIN (min_x, node->x - node->width / 2);
      max_x = MAX (max_x, node->x + node->width / 2);
      min_y = MIN (min_y, node->y - node->height / 2);
      max_y = MAX (max_y, node->y + node->height / 2);
    }
  for (guint e = 0; e < req->n_edges; e++)
    {
      CtGraphLayoutRoute *route = &out->routes[e];
      guint n = 0;

      if (!edge_usable (l, e) || l->chain_len[e] == 0)
        {
          route->reversed = edge_usable (l, e) && l->reversed[e];
          continue;
        }
      route->reversed = l->reversed[e];
      route->points = g_new (CtGraphPoint, 2 * l->chain_len[e]);
      for (guint i = 0; i < l->chain_len[e]; i++)
        {
          guint d = l->chain_ids[l->chain_start[e] + i];
          int r = l->rank[d];
          route->points[n++] = make_point (lr, l->x[d], centre[r] - band[r] / 2);
          if (band[r] > 0)
            route->points[n++] = make_point (lr, l->x[d], centre[r] + band[r] / 2);
        }
      route->n_points = n;
      if (route->reversed)
        for (guint i = 0; i < n / 2; i++)
          {
            CtGraphPoint t = route->points[i];
            route->points[i] = route->points[n - 1 - i];
            route->points[n - 1 - i] = t;
          }
      for (guint i = 0; i < n; i++)
        {
          min_x = MIN (min_x, route->points[i].x);
          max_x = MAX (max_x, route->points[i].x);
          min_y = MIN (min_y, route->points[i].y);
          max_y = MAX (max_y, route->points[i].y);
        }
    }

  if (l->n_real == 0)
    min_x = min_y = max_x = max_y = 0;
  /* Incremental layouts keep their old coordinates; only fresh ones are
   * moved to start at the origin. */
  if (l->incremental)
    {
      min_x = MIN (min_x, 0);
      min_y = MIN (min_y, 0);
    }
  for (guint v = 0; v < l->n_real; v++)
    {
      out->nodes[v].x -= min_x;
      out->nodes[v].y -= min_y;
    }
  for (guint e = 0; e < req->n_edges; e++)
    for (guint i = 0; i < out->routes[e].n_points; i++)
      {
        out->routes[e].points[i].x -= min_x;
        out->routes[e].points[i].y -= min_y;
      }
  out->width = max_x - min_x;
  out->height = max_y - min_y;
  return out;
}
