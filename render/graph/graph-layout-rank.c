/* graph-layout-rank.c: the layout's first phase. Cycles are broken by
 * turning back edges around; every node gets a rank (longest path from the
 * sources, with sources pulled down next to their first consumer); long
 * edges are cut into chains of dummy nodes, one per rank they cross; and
 * the links between consecutive ranks are built and weighed for the phases
 * that follow. */
#include "graph-layout-private.h"

#include <math.h>
#include <string.h>

/* How strongly a long edge's dummies and the real nodes at its ends pull
 * each other (a plain edge weighs 1, dummy to dummy 8). */
#define LONG_EDGE_END_WEIGHT 0.25

/* Cycle breaking: an iterative DFS in node order; an edge into a node on the
 * DFS stack closes a cycle and is turned around. */
static void
break_cycles (CtLayoutState *l)
{
  const CtGraphLayoutRequest *req = l->request;
  guint n = l->n_real;
  g_autofree guint *out_start = g_new0 (guint, n + 1);
  g_autofree guint *out_edges = g_new (guint, req->n_edges + 1);
  g_autofree guint8 *state = g_new0 (guint8, n); /* 0 new, 1 on stack, 2 done */
  g_autofree guint *stack = g_new (guint, n + 1);
  g_autofree guint *next = g_new0 (guint, n);    /* next out-edge to look at */

  for (guint e = 0; e < req->n_edges; e++)
    if (edge_usable (l, e))
      out_start[edge_spec (l, e)->from + 1]++;
  for (guint v = 0; v < n; v++)
    out_start[v + 1] += out_start[v];
  {
    g_autofree guint *fill = g_memdup2 (out_start, sizeof (guint) * n);
    for (guint e = 0; e < req->n_edges; e++)
      if (edge_usable (l, e))
        out_edges[fill[edge_spec (l, e)->from]++] = e;
  }

  for (guint root = 0; root < n; root++)
    {
      guint depth = 0;

      if (state[root] != 0)
        continue;
      stack[depth++] = root;
      state[root] = 1;
      next[root] = out_start[root];
      while (depth > 0)
        {
          guint v = stack[depth - 1];

          if (next[v] < out_start[v + 1])
            {
              guint e = out_edges[next[v]++];
              guint w = edge_spec (l, e)->to;

              if (state[w] == 1)
                l->reversed[e] = TRUE;
              else if (state[w] == 0)
                {
                  state[w] = 1;
                  next[w] = out_start[w];
                  stack[depth++] = w;
                }
            }
          else
            {
              state[v] = 2;
              depth--;
            }
        }
    }
}

/* Ranks: longest path from the sources in topological order, then sources
 * are pulled down to just above their nearest consumer (a label input
 * belongs next to the loss that reads it, not at the top of the graph). */
static void
assign_ranks (CtLayoutState *l)
{
  const CtGraphLayoutRequest *req = l->request;
  guint n = l->n_real;
  g_autofree guint *indegree = g_new0 (guint, n);
  g_autofree guint *out_start = g_new0 (guint, n + 1);
  g_autofree guint *out_edges = g_new (guint, req->n_edges + 1);
  g_autofree guint *queue = g_new (guint, n + 1);
  g_autofree gboolean *is_source = g_new0 (gboolean, n);
  guint head = 0, tail = 0;

  for (guint e = 0; e < req->n_edges; e++)
    if (edge_usable (l, e))
      {
        indegree[edge_head (l, e)]++;
        out_start[edge_tail (l, e) + 1]++;
      }
  for (guint v = 0; v < n; v++)
    out_start[v + 1] += out_start[v];
  {
    g_autofree guint *fill = g_memdup2 (out_start, sizeof (guint) * n);
    for (guint e = 0; e < req->n_edges; e++)
      if (edge_usable (l, e))
        out_edges[fill[edge_tail (l, e)]++] = e;
  }

  for (guint v = 0; v < n; v++)
    {
      l->rank[v] = 0;
      is_source[v] = indegree[v] == 0;
      if (indegree[v] == 0)
        queue[tail++] = v;
    }
  while (head < tail)
    {
      guint v = queue[head++];
      for (guint i = out_start[v]; i < out_start[v + 1]; i++)
        {
          guint w = edge_head (l, out_edges[i]);
          l->rank[w] = MAX (l->rank[w], l->rank[v] + 1);
          if (--indegree[w] == 0)
            queue[tail++] = w;
        }
    }
  /* Cycle breaking leaves a DAG, so every node was queued. */
  g_assert (tail == n);

  /* Pull sources down. A source's consumers are never sources, so one pass
   * over the sources is enough. */
  for (guint v = 0; v < n; v++)
    {
      int lowest = G_MAXINT;

      if (!is_source[v] || out_start[v] == out_start[v + 1])
        continue;
      for (guint i = out_start[v]; i < out_start[v + 1]; i++)
        lowest = MIN (lowest, l->rank[edge_head (l, out_edges[i])]);
      l->rank[v] = MAX (l->rank[v], lowest - 1);
    }

  l->n_ranks = 0;
  for (guint v = 0; v < n; v++)
    l->n_ranks = MAX (l->n_ranks, l->rank[v] + 1);
}

/* Dummies: one per rank an edge crosses. Edges leaving the same port (a
 * blob read by several layers) share their dummies rank by rank, so a blob
 * travels as one line that branches off near each reader rather than as a
 * sheaf of parallel lines. */
static guint64
port_key (guint tail, double offset)
{
  return ((guint64) tail << 32) | (guint32) (gint32) lround (offset * 16);
}

static void
make_dummies (CtLayoutState *l)
{
  const CtGraphLayoutRequest *req = l->request;
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        (GDestroyNotify) g_hash_table_unref);
  g_autoptr(GArray) owners = g_array_new (FALSE, FALSE, sizeof (guint));
  guint total = 0, n_dummies = 0;

  for (guint e = 0; e < req->n_edges; e++)
    if (edge_usable (l, e))
      {
        int span = l->rank[edge_head (l, e)] - l->rank[edge_tail (l, e)];
        l->chain_start[e] = total;
        l->chain_len[e] = span > 1 ? (guint) (span - 1) : 0;
        total += l->chain_len[e];
      }
  l->chain_ids = g_new (guint, MAX (total, 1));
  for (guint e = 0; e < req->n_edges; e++)
    {
      GHashTable *by_rank = NULL;
      int tail_rank;

      if (!edge_usable (l, e) || l->chain_len[e] == 0)
        continue;
      tail_rank = l->rank[edge_tail (l, e)];
      if (!l->reversed[e])
        {
          guint64 key = port_key (edge_spec (l, e)->from, edge_spec (l, e)->from_offset);
          by_rank = g_hash_table_lookup (groups, &key);
          if (by_rank == NULL)
            {
              by_rank = g_hash_table_new (g_direct_hash, g_direct_equal);
              g_hash_table_insert (groups, g_memdup2 (&key, sizeof key), by_rank);
            }
        }
      for (guint i = 0; i < l->chain_len[e]; i++)
        {
          gpointer rank_key = GINT_TO_POINTER (tail_rank + 1 + (int) i);
          gpointer found = by_rank != NULL ? g_hash_table_lookup (by_rank, rank_key) : NULL;
          guint d;

          if (found != NULL)
            d = GPOINTER_TO_UINT (found) - 1;
          else
            {
              d = l->n_real + n_dummies++;
              g_array_append_val (owners, e);
              if (by_rank != NULL)
                g_hash_table_insert (by_rank, rank_key, GUINT_TO_POINTER (d + 1));
            }
          l->chain_ids[l->chain_start[e] + i] = d;
        }
    }
  l->n_vertices = l->n_real + n_dummies;
  l->dummy_edge = g_new (guint, MAX (n_dummies, 1));
  if (n_dummies > 0) /* owners->data may be NULL, which memcpy must never get */
    memcpy (l->dummy_edge, owners->data, sizeof (guint) * n_dummies);
}

static void
alloc_vertices (CtLayoutState *l)
{
  guint nv = l->n_vertices;
  const CtGraphLayoutRequest *req = l->request;
  gboolean lr = l->options->rankdir == CT_GRAPH_RANKDIR_LR;

  l->rank = g_renew (int, l->rank, nv);
  l->across_size = g_new0 (double, nv);
  l->along_size = g_new0 (double, nv);
  l->x = g_new0 (double, nv);
  l->key = g_new0 (double, nv);
  l->pos = g_new0 (guint, nv);
  l->fixed = g_new0 (gboolean, nv);
  l->prev_x = g_new0 (double, nv);

  for (guint v = 0; v < l->n_real; v++)
    {
      double w = req->widths != NULL ? req->widths[v] : 100;
      double h = req->heights != NULL ? req->heights[v] : 40;
      l->across_size[v] = lr ? h : w;
      l->along_size[v] = lr ? w : h;
      if (req->previous != NULL && req->has_previous != NULL && req->has_previous[v])
        {
          l->fixed[v] = TRUE;
          l->prev_x[v] = lr ? req->previous[v].y : req->previous[v].x;
        }
    }
  for (guint e = 0; e < req->n_edges; e++)
    if (edge_usable (l, e))
      {
        int r = l->rank[edge_tail (l, e)];
        for (guint i = 0; i < l->chain_len[e]; i++)
          {
            guint d = l->chain_ids[l->chain_start[e] + i];
            l->rank[d] = r + 1 + (int) i;
            l->across_size[d] = l->options->edge_sep;
          }
      }
}

/* The consecutive-rank links of edge E: tail -> d1 -> ... -> head, with
 * the port offsets at the real ends (turned around for reversed edges). */
typedef void (*LinkFunc) (CtLayoutState *l, guint upper, guint lower, double upper_offset,
                          double lower_offset, double weight, gpointer data);

static void
for_each_link (CtLayoutState *l, LinkFunc func, gpointer data)
{
  const CtGraphLayoutRequest *req = l->request;
  /* links into shared dummies come once per edge: keep one */
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint e = 0; e < req->n_edges; e++)
    {
      const CtGraphLayoutEdgeSpec *spec = edge_spec (l, e);
      guint prev;
      double prev_offset;
      gboolean prev_dummy = FALSE;

      if (!edge_usable (l, e))
        continue;
      prev = edge_tail (l, e);
      prev_offset = l->reversed[e] ? spec->to_offset : spec->from_offset;
      for (guint i = 0; i < l->chain_len[e]; i++)
        {
          guint d = l->chain_ids[l->chain_start[e] + i];
          guint64 key = ((guint64) prev << 32) | d;

          /* dot's weights: straight long edges matter most */
          if (!g_hash_table_contains (seen, &key))
            {
              g_hash_table_add (seen, g_memdup2 (&key, sizeof key));
              func (l, prev, d, prev_offset, 0, prev_dummy ? 8 : 2, data);
            }
          prev = d;
          prev_offset = 0;
          prev_dummy = TRUE;
        }
      func (l, prev, edge_head (l, e), prev_offset,
            l->reversed[e] ? spec->from_offset : spec->to_offset, prev_dummy ? 2 : 1, data);
    }
}

static void
count_link (CtLayoutState *l, guint upper, guint lower, double uo, double lo, double w,
            gpointer data)
{
  l->down_start[upper + 1]++;
  l->up_start[lower + 1]++;
}

static void
fill_link (CtLayoutState *l, guint upper, guint lower, double uo, double lo, double w,
           gpointer data)
{
  guint *fill = data;  /* [0..nv) down fill, [nv..2nv) up fill */
  CtLayoutLink down = { lower, uo, lo, w, FALSE };
  CtLayoutLink up = { upper, lo, uo, w, FALSE };

  l->down[fill[upper]++] = down;
  l->up[fill[l->n_vertices + lower]++] = up;
}

/* Link weights beyond dot's 1/2/8: a link that is both ends' only link on
 * that side (a plain chain) weighs three times as much, and a link pulls a
 * vertex less the more links its other end shares the pull with. A node
 * then sits under its single parent rather than halfway to a concatenation
 * that gathers four branches, and the concatenation still centres itself
 * under the four. */
static void
weigh_links (CtLayoutState *l)
{
  for (guint v = 0; v < l->n_vertices; v++)
    for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
      {
        CtLayoutLink *down = &l->down[k];
        guint w = down->other;
        guint out_degree = l->down_start[v + 1] - l->down_start[v];
        guint in_degree = l->up_start[w + 1] - l->up_start[w];
        CtLayoutLink *up = NULL;

        for (guint j = l->up_start[w]; j < l->up_start[w + 1] && up == NULL; j++)
          if (l->up[j].other == v && l->up[j].weight == down->weight
              && l->up[j].self_offset == down->other_offset)
            up = &l->up[j];
        if (out_degree == 1 && in_degree == 1)
          {
            down->weight *= 3;
            down->chain = TRUE;
            if (up != NULL)
              {
                up->weight *= 3;
                up->chain = TRUE;
              }
          }
        down->weight /= in_degree;
        if (up != NULL)
          up->weight /= out_degree;
      }
  /* A long edge is straight (its dummies hold together) but only loosely
   * tied to its ends, in both directions: it neither drags the nodes it
   * joins nor pushes the nodes beside it. A residual shortcut then runs
   * beside its block while the block's spine stays straight; tied tightly,
   * it would sit on the spine and push each block sideways, block after
   * block. */
  for (guint v = 0; v < l->n_vertices; v++)
    {
      gboolean dummy = v >= l->n_real;
      for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
        if (dummy != (l->down[k].other >= l->n_real))
          l->down[k].weight = LONG_EDGE_END_WEIGHT;
      for (guint k = l->up_start[v]; k < l->up_start[v + 1]; k++)
        if (dummy != (l->up[k].other >= l->n_real))
          l->up[k].weight = LONG_EDGE_END_WEIGHT;
    }
}

static void
build_links (CtLayoutState *l)
{
  guint nv = l->n_vertices;
  g_autofree guint *fill = NULL;

  l->up_start = g_new0 (guint, nv + 1);
  l->down_start = g_new0 (guint, nv + 1);
  for_each_link (l, count_link, NULL);
  for (guint v = 0; v < nv; v++)
    {
      l->up_start[v + 1] += l->up_start[v];
      l->down_start[v + 1] += l->down_start[v];
    }
  l->up = g_new (CtLayoutLink, l->up_start[nv] + 1);
  l->down = g_new (CtLayoutLink, l->down_start[nv] + 1);
  fill = g_new (guint, 2 * nv + 1); /* never NULL, even for an empty graph */
  memcpy (fill, l->down_start, sizeof (guint) * nv);
  memcpy (fill + nv, l->up_start, sizeof (guint) * nv);
  for_each_link (l, fill_link, fill);
  weigh_links (l);
}

void
ct_graph_layout_rank (CtLayoutState *l)
{
  break_cycles (l);
  assign_ranks (l);
  make_dummies (l);
  alloc_vertices (l);
  build_links (l);
  for (guint v = 0; v < l->n_real && !l->incremental; v++)
    l->incremental = l->fixed[v];
}
