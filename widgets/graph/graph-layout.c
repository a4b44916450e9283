/* graph-layout.c: the layered layout of graph-layout.h.
 *
 * Internally every vertex (real node or dummy) has a rank and an "across"
 * coordinate; the "along" coordinate comes from the rank. Everything is
 * computed in top-to-bottom terms and swapped at the end for left-to-right.
 * Adjacency between consecutive ranks is kept in compressed arrays (one
 * slice of "up" and one of "down" neighbours per vertex) so that the sweeps
 * touch contiguous memory: a 1,000-layer net with its dummies lays out in a
 * few milliseconds. */
#include "graph-layout.h"

#include <math.h>
#include <string.h>

/* How strongly a long edge's dummies and the real nodes at its ends pull
 * each other (a plain edge weighs 1, dummy to dummy 8). */
#define LONG_EDGE_END_WEIGHT 0.25

/* One end of an edge between consecutive ranks, seen from a vertex. */
typedef struct {
  guint other;
  double self_offset;   /* port offset on this vertex */
  double other_offset;  /* port offset on the other vertex */
  double weight;
  gboolean chain;       /* both ends' only link on this side */
} Link;

typedef struct {
  const CtGraphLayoutRequest *request;
  const CtGraphLayoutOptions *options;
  guint n_real;
  guint n_vertices;       /* real + dummies */

  /* Per vertex */
  int *rank;
  double *across_size;
  double *along_size;
  double *x;              /* across centre */
  double *key;            /* sort key during ordering */
  guint *pos;             /* index within its rank */
  gboolean *fixed;        /* has a previous position (incremental) */
  double *prev_x;

  /* Edges after cycle breaking: per original edge, reversed or not, and its
   * chain of dummies (first dummy index, count). */
  gboolean *reversed;
  guint *chain_start;     /* per edge: where its dummies start in CHAIN_IDS */
  guint *chain_len;
  guint *chain_ids;       /* the dummies of every edge, rank by rank */
  guint *dummy_edge;      /* per dummy (index - n_real): its (first) edge */

  /* Compressed adjacency between consecutive ranks. */
  guint *up_start;        /* n_vertices + 1 */
  Link *up;
  guint *down_start;
  Link *down;

  int n_ranks;
  GPtrArray *ranks;       /* GArray of guint (vertex ids) per rank */
  guint n_crossings;
} Layout;

void
ct_graph_layout_options_init (CtGraphLayoutOptions *options, CtGraphRankdir rankdir)
{
  options->rankdir = rankdir;
  options->node_sep = 28;
  options->rank_sep = 56;
  options->edge_sep = 14;
  options->max_sweeps = 24;
}

static const CtGraphLayoutEdgeSpec *
edge_spec (const Layout *l, guint e)
{
  return &l->request->edges[e];
}

static gboolean
edge_usable (const Layout *l, guint e)
{
  const CtGraphLayoutEdgeSpec *spec = edge_spec (l, e);

  return spec->from != spec->to && spec->from < l->n_real && spec->to < l->n_real;
}

/* Cycle breaking: an iterative DFS in node order; an edge into a node on the
 * DFS stack closes a cycle and is turned around. */
static void
break_cycles (Layout *l)
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

static guint
edge_tail (const Layout *l, guint e)
{
  return l->reversed[e] ? edge_spec (l, e)->to : edge_spec (l, e)->from;
}

static guint
edge_head (const Layout *l, guint e)
{
  return l->reversed[e] ? edge_spec (l, e)->from : edge_spec (l, e)->to;
}

/* Ranks: longest path from the sources in topological order, then sources
 * are pulled down to just above their nearest consumer (a label input
 * belongs next to the loss that reads it, not at the top of the graph). */
static void
assign_ranks (Layout *l)
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
make_dummies (Layout *l)
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
alloc_vertices (Layout *l)
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
typedef void (*LinkFunc) (Layout *l, guint upper, guint lower, double upper_offset,
                          double lower_offset, double weight, gpointer data);

static void
for_each_link (Layout *l, LinkFunc func, gpointer data)
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
count_link (Layout *l, guint upper, guint lower, double uo, double lo, double w, gpointer data)
{
  l->down_start[upper + 1]++;
  l->up_start[lower + 1]++;
}

static void
fill_link (Layout *l, guint upper, guint lower, double uo, double lo, double w, gpointer data)
{
  guint *fill = data;  /* [0..nv) down fill, [nv..2nv) up fill */
  Link down = { lower, uo, lo, w, FALSE };
  Link up = { upper, lo, uo, w, FALSE };

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
weigh_links (Layout *l)
{
  for (guint v = 0; v < l->n_vertices; v++)
    for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
      {
        Link *down = &l->down[k];
        guint w = down->other;
        guint out_degree = l->down_start[v + 1] - l->down_start[v];
        guint in_degree = l->up_start[w + 1] - l->up_start[w];
        Link *up = NULL;

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
build_links (Layout *l)
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
  l->up = g_new (Link, l->up_start[nv] + 1);
  l->down = g_new (Link, l->down_start[nv] + 1);
  fill = g_new (guint, 2 * nv + 1); /* never NULL, even for an empty graph */
  memcpy (fill, l->down_start, sizeof (guint) * nv);
  memcpy (fill + nv, l->up_start, sizeof (guint) * nv);
  for_each_link (l, fill_link, fill);
  weigh_links (l);
}

static GArray *
rank_array (Layout *l, int r)
{
  return g_ptr_array_index (l->ranks, r);
}

static void
renumber (Layout *l, int r)
{
  GArray *a = rank_array (l, r);
  for (guint i = 0; i < a->len; i++)
    l->pos[g_array_index (a, guint, i)] = i;
}

/* Initial order: a depth-first walk from the sources in node order, down
 * the links in port order; a vertex joins its rank when first reached.
 * Siblings then start out side by side in the order the net lists them. */
static void
initial_order (Layout *l)
{
  guint nv = l->n_vertices;
  g_autofree gboolean *seen = g_new0 (gboolean, nv);
  g_autofree guint *stack = g_new (guint, nv + 1);

  l->ranks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (int r = 0; r < l->n_ranks; r++)
    g_ptr_array_add (l->ranks, g_array_new (FALSE, FALSE, sizeof (guint)));

  for (guint root = 0; root < nv; root++)
    {
      guint depth = 0;

      if (seen[root] || l->up_start[root] != l->up_start[root + 1])
        continue;
      stack[depth++] = root;
      seen[root] = TRUE;
      while (depth > 0)
        {
          guint v = stack[--depth];
          g_array_append_val (rank_array (l, l->rank[v]), v);
          /* push in reverse so the first port is visited first */
          for (guint i = l->down_start[v + 1]; i > l->down_start[v]; i--)
            {
              guint w = l->down[i - 1].other;
              if (!seen[w])
                {
                  seen[w] = TRUE;
                  stack[depth++] = w;
                }
            }
        }
    }
  /* Anything left (only possible for vertices whose every up-neighbour was
   * already placed) joins at the end. */
  for (guint v = 0; v < nv; v++)
    if (!seen[v])
      g_array_append_val (rank_array (l, l->rank[v]), v);
  for (int r = 0; r < l->n_ranks; r++)
    renumber (l, r);
}

/* Crossings between rank R and R+1: sort the links by upper end, then
 * lower end, and count inversions among the lower ends with a Fenwick tree.
 * An end is its vertex's position refined by the port it uses, so two
 * edges leaving one node from swapped ports count as a crossing too. */
static int
compare_guint64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static int
compare_guint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

#define PORT_SLOTS 128

static guint
end_key (guint pos, double offset)
{
  int slot = (int) floor (offset / 2) + PORT_SLOTS / 2;
  return pos * PORT_SLOTS + (guint) CLAMP (slot, 0, PORT_SLOTS - 1);
}

typedef struct {
  guint64 *links;   /* upper key << 32 | lower key */
  guint *keys;      /* distinct lower keys */
  guint *tree;
} CrossingScratch;

static guint
crossings_between (Layout *l, int r, CrossingScratch *cs)
{
  GArray *upper = rank_array (l, r);
  guint n = 0, n_keys = 0, total = 0;

  for (guint i = 0; i < upper->len; i++)
    {
      guint v = g_array_index (upper, guint, i);
      for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
        {
          const Link *link = &l->down[k];
          guint lower_key = end_key (l->pos[link->other], link->other_offset);
          cs->links[n++] = ((guint64) end_key (l->pos[v], link->self_offset) << 32) | lower_key;
          cs->keys[n_keys++] = lower_key;
        }
    }
  if (n < 2)
    return 0;
  if (n > 0)
    qsort (cs->links, n, sizeof (guint64), compare_guint64);
  if (n_keys > 0)
    qsort (cs->keys, n_keys, sizeof (guint), compare_guint);
  {
    guint distinct = 0;
    for (guint i = 0; i < n_keys; i++)
      if (distinct == 0 || cs->keys[distinct - 1] != cs->keys[i])
        cs->keys[distinct++] = cs->keys[i];
    n_keys = distinct;
  }
  memset (cs->tree, 0, sizeof (guint) * (n_keys + 1));
  for (guint i = 0; i < n; i++)
    {
      guint key = (guint) (cs->links[i] & 0xffffffffu);
      guint *found = bsearch (&key, cs->keys, n_keys, sizeof (guint), compare_guint);
      guint p = (guint) (found - cs->keys) + 1;
      guint not_greater = 0;
      for (guint j = p; j > 0; j -= j & -j)
        not_greater += cs->tree[j];
      total += i - not_greater;
      for (guint j = p; j <= n_keys; j += j & -j)
        cs->tree[j]++;
    }
  return total;
}

static guint
count_crossings (Layout *l)
{
  guint n_links = MAX (l->down_start[l->n_vertices], 1);
  CrossingScratch cs;
  guint total = 0;

  cs.links = g_new (guint64, n_links);
  cs.keys = g_new (guint, n_links);
  cs.tree = g_new (guint, n_links + 2);
  for (int r = 0; r + 1 < l->n_ranks; r++)
    total += crossings_between (l, r, &cs);
  g_free (cs.links);
  g_free (cs.keys);
  g_free (cs.tree);
  return total;
}

/* Barycentre of a vertex's neighbours on one side, in positions, nudged by
 * port offsets so that siblings on one node keep their port order. */
static gboolean
barycentre (Layout *l, guint v, gboolean use_up, double *out)
{
  const guint *start = use_up ? l->up_start : l->down_start;
  const Link *links = use_up ? l->up : l->down;
  double sum = 0;
  guint count = start[v + 1] - start[v];

  if (count == 0)
    return FALSE;
  for (guint k = start[v]; k < start[v + 1]; k++)
    {
      const Link *link = &links[k];
      double size = MAX (l->across_size[link->other], 1);
      sum += l->pos[link->other] + 0.8 * link->other_offset / size;
    }
  *out = sum / count;
  return TRUE;
}

static int
compare_by_key (gconstpointer a, gconstpointer b, gpointer data)
{
  const Layout *l = data;
  guint v = *(const guint *) a, w = *(const guint *) b;

  if (l->key[v] != l->key[w])
    return l->key[v] < l->key[w] ? -1 : 1;
  /* stable: keep the current order */
  return l->pos[v] < l->pos[w] ? -1 : l->pos[v] > l->pos[w];
}

static void
sort_rank (Layout *l, int r, gboolean use_up)
{
  GArray *a = rank_array (l, r);

  for (guint i = 0; i < a->len; i++)
    {
      guint v = g_array_index (a, guint, i);
      double b;
      if (barycentre (l, v, use_up, &b))
        l->key[v] = b;
      else
        l->key[v] = l->pos[v];  /* no neighbours there: stay put */
    }
  g_array_sort_with_data (a, compare_by_key, l);
  renumber (l, r);
}

/* Crossings among the links of V and W (V left of W) on one side. */
static guint
pair_crossings (Layout *l, guint v, guint w, gboolean use_up)
{
  const guint *start = use_up ? l->up_start : l->down_start;
  const Link *links = use_up ? l->up : l->down;
  guint count = 0;

  for (guint i = start[v]; i < start[v + 1]; i++)
    for (guint j = start[w]; j < start[w + 1]; j++)
      if (end_key (l->pos[links[i].other], links[i].other_offset)
          > end_key (l->pos[links[j].other], links[j].other_offset))
        count++;
  return count;
}

/* Swap neighbours in a rank while that lowers the crossings around it. */
static void
transpose (Layout *l)
{
  gboolean improved = TRUE;

  for (guint pass = 0; improved && pass < 8; pass++)
    {
      improved = FALSE;
      for (int r = 0; r < l->n_ranks; r++)
        {
          GArray *a = rank_array (l, r);
          for (guint i = 0; i + 1 < a->len; i++)
            {
              guint v = g_array_index (a, guint, i);
              guint w = g_array_index (a, guint, i + 1);
              guint before, after;

              if (l->fixed[v] && l->fixed[w])
                continue;
              before = pair_crossings (l, v, w, TRUE) + pair_crossings (l, v, w, FALSE);
              after = pair_crossings (l, w, v, TRUE) + pair_crossings (l, w, v, FALSE);
              if (after < before)
                {
                  g_array_index (a, guint, i) = w;
                  g_array_index (a, guint, i + 1) = v;
                  l->pos[w] = i;
                  l->pos[v] = i + 1;
                  improved = TRUE;
                }
            }
        }
    }
}

static GPtrArray *
save_order (Layout *l)
{
  GPtrArray *saved = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      GArray *copy = g_array_sized_new (FALSE, FALSE, sizeof (guint), a->len);
      g_array_append_vals (copy, a->data, a->len);
      g_ptr_array_add (saved, copy);
    }
  return saved;
}

static void
restore_order (Layout *l, GPtrArray *saved)
{
  g_ptr_array_unref (l->ranks);
  l->ranks = g_ptr_array_ref (saved);
  for (int r = 0; r < l->n_ranks; r++)
    renumber (l, r);
}

static void
reduce_crossings (Layout *l)
{
  g_autoptr(GPtrArray) best = NULL;
  guint best_crossings, stale = 0;

  transpose (l);
  best_crossings = count_crossings (l);
  best = save_order (l);
  for (guint sweep = 0; sweep < l->options->max_sweeps && best_crossings > 0; sweep++)
    {
      guint crossings;

      if (sweep % 2 == 0)
        for (int r = 1; r < l->n_ranks; r++)
          sort_rank (l, r, TRUE);
      else
        for (int r = l->n_ranks - 2; r >= 0; r--)
          sort_rank (l, r, FALSE);
      transpose (l);
      crossings = count_crossings (l);
      if (crossings < best_crossings)
        {
          best_crossings = crossings;
          g_ptr_array_unref (best);
          best = save_order (l);
          stale = 0;
        }
      else if (++stale >= 6)
        break;
    }
  restore_order (l, best);
  l->n_crossings = best_crossings;
}

/* Incremental ordering: vertices with a previous place keep their relative
 * order (sorted by their previous across coordinate); the others settle by
 * relaxation between them. */
static void
incremental_order (Layout *l)
{
  g_autofree gboolean *known = g_new0 (gboolean, l->n_vertices);

  for (guint v = 0; v < l->n_vertices; v++)
    if (l->fixed[v])
      {
        l->key[v] = l->prev_x[v];
        known[v] = TRUE;
      }
  /* A few relaxation rounds: down then up, each vertex without a previous
   * place takes the mean of its placed neighbours. */
  for (guint round = 0; round < 4; round++)
    for (guint dir = 0; dir < 2; dir++)
      for (int i = 0; i < l->n_ranks; i++)
        {
          int r = dir == 0 ? i : l->n_ranks - 1 - i;
          GArray *a = rank_array (l, r);
          for (guint j = 0; j < a->len; j++)
            {
              guint v = g_array_index (a, guint, j);
              double sum = 0;
              guint count = 0;

              if (l->fixed[v])
                continue;
              for (guint k = l->up_start[v]; k < l->up_start[v + 1]; k++)
                if (known[l->up[k].other])
                  {
                    sum += l->key[l->up[k].other] + l->up[k].other_offset - l->up[k].self_offset;
                    count++;
                  }
              for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
                if (known[l->down[k].other])
                  {
                    sum += l->key[l->down[k].other] + l->down[k].other_offset
                           - l->down[k].self_offset;
                    count++;
                  }
              if (count > 0)
                {
                  l->key[v] = sum / count;
                  known[v] = TRUE;
                }
            }
        }
  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      for (guint j = 0; j < a->len; j++)
        {
          guint v = g_array_index (a, guint, j);
          if (!known[v])
            l->key[v] = G_MAXDOUBLE / 2;  /* unconnected newcomers go right */
        }
      g_array_sort_with_data (a, compare_by_key, l);
      renumber (l, r);
    }
  /* Let the newcomers and dummies untangle; fixed pairs never swap. */
  transpose (l);
  l->n_crossings = count_crossings (l);
}

/* Place one rank: minimise sum w_i (x_i - d_i)^2 keeping neighbours at
 * least their separation apart. Subtracting the cumulative minimum offsets
 * makes the constraints plain x'_i <= x'_{i+1}: an isotonic regression,
 * solved exactly by pooling adjacent violators. */
typedef struct {
  double weight, mean;
  guint first, count;
} Block;

static void
place_rank (Layout *l, int r, const double *desired, const double *weight, Block *blocks,
            double *offset)
{
  GArray *a = rank_array (l, r);
  guint n_blocks = 0;

  if (a->len == 0)
    return;
  offset[0] = 0;
  for (guint i = 1; i < a->len; i++)
    {
      guint u = g_array_index (a, guint, i - 1), v = g_array_index (a, guint, i);
      gboolean dummies = u >= l->n_real || v >= l->n_real;
      double gap = dummies ? l->options->edge_sep : l->options->node_sep;
      offset[i] = offset[i - 1] + (l->across_size[u] + l->across_size[v]) / 2 + gap;
    }
  for (guint i = 0; i < a->len; i++)
    {
      Block b = { weight[i], desired[i] - offset[i], i, 1 };
      while (n_blocks > 0 && blocks[n_blocks - 1].mean >= b.mean)
        {
          Block *prev = &blocks[--n_blocks];
          double w = prev->weight + b.weight;
          b.mean = (prev->mean * prev->weight + b.mean * b.weight) / w;
          b.weight = w;
          b.first = prev->first;
          b.count += prev->count;
        }
      blocks[n_blocks++] = b;
    }
  for (guint k = 0; k < n_blocks; k++)
    for (guint i = blocks[k].first; i < blocks[k].first + blocks[k].count; i++)
      l->x[g_array_index (a, guint, i)] = blocks[k].mean + offset[i];
}

/* How far from a neighbour's centre a link pulls a vertex: not at all.
 * Following port offsets would line a node up under the port that feeds it,
 * but a node entered at its second port (an Eltwise closing a residual
 * block) would then sit a port's offset beside its block, and the next
 * block beside that: a 50-block ResNet would drift across the page. Edges
 * into side ports take a slight slant instead. Ports still order nodes
 * (crossing reduction counts them). */
static double
port_pull (const Link *link)
{
  return 0 * (link->other_offset - link->self_offset);
}

/* Where V's neighbours on the chosen sides pull it. */
static void
desired_x (Layout *l, guint v, gboolean use_up, gboolean use_down, gboolean straighten,
           double *d, double *w)
{
  double sum = 0, weight = 0;

  if (use_up)
    for (guint k = l->up_start[v]; k < l->up_start[v + 1]; k++)
      {
        const Link *link = &l->up[k];
        /* the last sweep lines chains up exactly wherever there is room */
        double lw = straighten && link->chain ? 100 * link->weight : link->weight;
        sum += lw * (l->x[link->other] + port_pull (link));
        weight += lw;
      }
  if (use_down)
    for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
      {
        const Link *link = &l->down[k];
        sum += link->weight * (l->x[link->other] + port_pull (link));
        weight += link->weight;
      }
  if (l->fixed[v])
    {
      /* an unchanged node stays where it was unless it has to make room:
       * its old place outweighs every neighbour's pull, the straightening
       * pull of long edges too (a long edge bends round a node rather than
       * shoving it aside: the user knows where the node was) */
      double hold = straighten ? 1e6 : 1000;
      sum += hold * l->prev_x[v];
      weight += hold;
    }
  if (weight == 0)
    {
      *d = l->x[v];
      *w = 0.01;
      return;
    }
  *d = sum / weight;
  *w = weight;
}


static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Coordinates for a fresh layout: Brandes and Köpf's method. Each vertex is
 * aligned with the median of its neighbours in the rank above (or below),
 * long edges first, into vertical blocks; blocks are packed as tightly as
 * their separations allow, to the left (or right). Of the four layouts
 * (up/down x left/right) aligned on the narrowest, each vertex takes the
 * mean of its two middle candidates. Alignment with one median neighbour,
 * rather than the mean of all, keeps spines straight: an Inception block's
 * middle branch continues the line of the block above instead of the
 * concatenation settling between uneven branches and drifting, block after
 * block. */

typedef struct {
  Layout *l;
  GHashTable *conflicts;   /* guint64 keys of (upper, lower) pairs */
  GPtrArray *layers;       /* GArray of guint, in the variant's order */
  guint *bpos;             /* position within the variant's layer */
  guint *root;
  guint *align;
  double *xs;
  guint *chain_up;         /* chain_length memos, G_MAXUINT: unknown */
  guint *chain_down;
} Compaction;

static guint64
pair_key (guint a, guint b)
{
  return ((guint64) MIN (a, b) << 32) | MAX (a, b);
}

static gboolean
is_dummy (const Layout *l, guint v)
{
  return v >= l->n_real;
}

/* Type 1 conflicts: a segment between two dummies (part of a long edge)
 * crossed by another segment; the other one gives way. */
static void
find_type1_conflicts (Layout *l, GHashTable *conflicts)
{
  for (int r = 1; r < l->n_ranks; r++)
    {
      GArray *prev = rank_array (l, r - 1);
      GArray *layer = rank_array (l, r);
      guint k0 = 0, scan = 0;

      for (guint i = 0; i < layer->len; i++)
        {
          guint v = g_array_index (layer, guint, i);
          int w = -1;
          guint k1;

          if (is_dummy (l, v))
            for (guint k = l->up_start[v]; k < l->up_start[v + 1] && w < 0; k++)
              if (is_dummy (l, l->up[k].other))
                w = (int) l->up[k].other;
          k1 = w >= 0 ? l->pos[w] : prev->len;
          if (w < 0 && i + 1 < layer->len)
            continue;
          for (guint s_i = scan; s_i <= i; s_i++)
            {
              guint sv = g_array_index (layer, guint, s_i);
              for (guint k = l->up_start[sv]; k < l->up_start[sv + 1]; k++)
                {
                  guint u = l->up[k].other;
                  guint upos = l->pos[u];
                  if ((upos < k0 || k1 < upos) && !(is_dummy (l, u) && is_dummy (l, sv)))
                    g_hash_table_add (conflicts, g_memdup2 ((guint64[]) { pair_key (u, sv) },
                                                            sizeof (guint64)));
                }
            }
          scan = i + 1;
          k0 = k1;
        }
    }
}

static gboolean
has_conflict (Compaction *c, guint a, guint b)
{
  guint64 key = pair_key (a, b);
  return g_hash_table_contains (c->conflicts, &key);
}

static guint
link_count (const Layout *l, guint v, gboolean up)
{
  return up ? l->up_start[v + 1] - l->up_start[v] : l->down_start[v + 1] - l->down_start[v];
}

/* A side edge: a long edge from a node that branches to a node that
 * merges, such as a residual shortcut. It runs beside the blocks it skips
 * and never sets where a real node goes. */
static gboolean
is_side_edge (const Layout *l, guint dummy)
{
  guint e = l->dummy_edge[dummy - l->n_real];
  return link_count (l, edge_tail (l, e), FALSE) > 1 && link_count (l, edge_head (l, e), TRUE) > 1;
}

/* Whether V goes on beyond itself on one side (UP or down): it ends there,
 * or a real node or a long edge that is not a side edge follows. */
static gboolean
continues (const Layout *l, guint v, gboolean up)
{
  const guint *start = up ? l->up_start : l->down_start;
  const Link *links = up ? l->up : l->down;

  if (start[v + 1] == start[v])
    return TRUE;
  for (guint k = start[v]; k < start[v + 1]; k++)
    if (!is_dummy (l, links[k].other) || !is_side_edge (l, links[k].other))
      return TRUE;
  return FALSE;
}

/* Whether V may share a vertical line with its neighbour W (above it when
 * USE_UP): a side edge never lines up with a real node, and where one of
 * the two branches toward the other, the other must go on beyond. */
static gboolean
may_align (const Layout *l, guint v, guint w, gboolean use_up)
{
  if (is_dummy (l, v) != is_dummy (l, w) && is_side_edge (l, is_dummy (l, v) ? v : w))
    return FALSE;
  if (link_count (l, w, !use_up) > 1 && !continues (l, v, !use_up))
    return FALSE;
  if (link_count (l, v, use_up) > 1 && !continues (l, w, use_up))
    return FALSE;
  return TRUE;
}

/* How many real nodes follow V in a plain chain toward one side (V itself
 * included when it has exactly one link each way), crossing dummies. */
static guint
chain_length (Compaction *c, guint v, gboolean up)
{
  Layout *l = c->l;
  guint *memo = up ? c->chain_up : c->chain_down;
  guint count = 0, w = v;

  if (memo[v] != G_MAXUINT)
    return memo[v];
  for (;;)
    {
      const Link *links = up ? l->up : l->down;
      const guint *start = up ? l->up_start : l->down_start;

      if (!is_dummy (l, w))
        {
          if (link_count (l, w, TRUE) != 1 || link_count (l, w, FALSE) != 1)
            break;
          count++;
        }
      if (start[w + 1] - start[w] != 1)
        break;
      w = links[start[w]].other;
      if (!is_dummy (l, w) && memo[w] != G_MAXUINT)
        {
          count += memo[w];
          break;
        }
    }
  memo[v] = count;
  return count;
}

static int
compare_by_bpos (gconstpointer a, gconstpointer b, gpointer data)
{
  const guint *bpos = data;
  guint x = bpos[*(const guint *) a], y = bpos[*(const guint *) b];
  return x < y ? -1 : x > y;
}

/* The neighbours of V on one side that V lines up with: among those
 * allowed, the ones that lead into the longest plain chain (the block's
 * main path), and of those the median (or the two medians) of all the
 * neighbours when they qualify, else the median(s) of the qualifying ones.
 * Equal branches (GoogLeNet's) keep the plain median rule and so their
 * symmetry; uneven ones (Inception-ResNet's) keep one spine through the
 * longest branch, from the top of a block and from its bottom alike.
 * Returns how many (0 to 2) are in OUT. */
static guint
aligned_medians (Compaction *c, guint v, gboolean use_up, GArray *scratch, guint out[2])
{
  Layout *l = c->l;
  const guint *start = use_up ? l->up_start : l->down_start;
  const Link *links = use_up ? l->up : l->down;
  guint n = 0, best = 0, n_all;
  double mp;

  g_array_set_size (scratch, 0);
  for (guint k = start[v]; k < start[v + 1]; k++)
    g_array_append_val (scratch, links[k].other);
  if (scratch->len == 0)
    return 0;
  g_array_sort_with_data (scratch, compare_by_bpos, c->bpos);
  n_all = scratch->len;
  for (guint i = 0; i < n_all; i++)
    {
      guint w = g_array_index (scratch, guint, i);
      if (may_align (l, v, w, use_up))
        best = MAX (best, chain_length (c, w, use_up) + 1);
    }
  if (best == 0)
    return 0;
  /* the medians of all, if they qualify */
  mp = (n_all - 1) / 2.0;
  for (guint m = (guint) floor (mp); m <= (guint) ceil (mp); m++)
    {
      guint w = g_array_index (scratch, guint, m);
      if (may_align (l, v, w, use_up) && chain_length (c, w, use_up) + 1 == best
          && (n == 0 || out[0] != w))
        out[n++] = w;
    }
  if (n > 0)
    return n;
  /* else the medians of the qualifying ones */
  {
    guint kept = 0;
    for (guint i = 0; i < n_all; i++)
      {
        guint w = g_array_index (scratch, guint, i);
        if (may_align (l, v, w, use_up) && chain_length (c, w, use_up) + 1 == best)
          g_array_index (scratch, guint, kept++) = w;
      }
    mp = (kept - 1) / 2.0;
    for (guint m = (guint) floor (mp); m <= (guint) ceil (mp); m++)
      {
        guint w = g_array_index (scratch, guint, m);
        if (n == 0 || out[0] != w)
          out[n++] = w;
      }
  }
  return n;
}

static void
vertical_alignment (Compaction *c, gboolean use_up)
{
  Layout *l = c->l;
  g_autoptr(GArray) scratch = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint v = 0; v < l->n_vertices; v++)
    c->root[v] = c->align[v] = v;
  for (guint li = 0; li < c->layers->len; li++)
    {
      GArray *layer = g_ptr_array_index (c->layers, li);
      int prev_idx = -1;

      for (guint i = 0; i < layer->len; i++)
        {
          guint v = g_array_index (layer, guint, i);
          guint cand[2], n_cand = aligned_medians (c, v, use_up, scratch, cand);

          for (guint m = 0; m < n_cand; m++)
            {
              guint w = cand[m], back[2], n_back;
              gboolean mutual = FALSE;

              if (c->align[v] != v || prev_idx >= (int) c->bpos[w] || has_conflict (c, v, w))
                continue;
              /* W must choose V too: a node that branches lines up with its
               * own median, not with whichever branch comes first */
              n_back = aligned_medians (c, w, !use_up, scratch, back);
              for (guint b = 0; b < n_back; b++)
                mutual |= back[b] == v;
              if (!mutual)
                continue;
              c->align[w] = v;
              c->align[v] = c->root[v] = c->root[w];
              prev_idx = (int) c->bpos[w];
            }
        }
    }
}

typedef struct {
  guint from, to;
  double weight;
} BlockEdge;

static double
separation (const Layout *l, guint u, guint v)
{
  double gap_u = is_dummy (l, u) ? l->options->edge_sep : l->options->node_sep;
  double gap_v = is_dummy (l, v) ? l->options->edge_sep : l->options->node_sep;
  return (l->across_size[u] + l->across_size[v] + gap_u + gap_v) / 2;
}

/* Pack the blocks: each as far left as its left neighbours allow, then as
 * far right as its right neighbours allow (closing gaps a block's other
 * members opened). */
static void
horizontal_compaction (Compaction *c)
{
  Layout *l = c->l;
  guint nv = l->n_vertices;
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (BlockEdge));
  g_autofree guint *in_start = g_new0 (guint, nv + 1);
  g_autofree guint *out_start = g_new0 (guint, nv + 1);
  g_autofree guint *in_list = NULL;
  g_autofree guint *out_list = NULL;
  g_autofree guint *indegree = g_new0 (guint, nv);
  g_autofree guint *order = g_new (guint, nv);
  guint n_order = 0, head = 0;

  for (guint li = 0; li < c->layers->len; li++)
    {
      GArray *layer = g_ptr_array_index (c->layers, li);
      for (guint i = 1; i < layer->len; i++)
        {
          guint u = g_array_index (layer, guint, i - 1), v = g_array_index (layer, guint, i);
          BlockEdge e = { c->root[u], c->root[v], separation (l, u, v) };
          g_array_append_val (edges, e);
        }
    }
  for (guint i = 0; i < edges->len; i++)
    {
      BlockEdge *e = &g_array_index (edges, BlockEdge, i);
      out_start[e->from + 1]++;
      in_start[e->to + 1]++;
      indegree[e->to]++;
    }
  for (guint v = 0; v < nv; v++)
    {
      in_start[v + 1] += in_start[v];
      out_start[v + 1] += out_start[v];
    }
  in_list = g_new (guint, edges->len + 1);
  out_list = g_new (guint, edges->len + 1);
  {
    g_autofree guint *in_fill = g_memdup2 (in_start, sizeof (guint) * nv);
    g_autofree guint *out_fill = g_memdup2 (out_start, sizeof (guint) * nv);
    for (guint i = 0; i < edges->len; i++)
      {
        BlockEdge *e = &g_array_index (edges, BlockEdge, i);
        out_list[out_fill[e->from]++] = i;
        in_list[in_fill[e->to]++] = i;
      }
  }
  /* topological order of the roots (the block graph is acyclic: every rank
   * orders its blocks the same way) */
  for (guint v = 0; v < nv; v++)
    if (c->root[v] == v && indegree[v] == 0)
      order[n_order++] = v;
  while (head < n_order)
    {
      guint v = order[head++];
      for (guint k = out_start[v]; k < out_start[v + 1]; k++)
        {
          guint w = g_array_index (edges, BlockEdge, out_list[k]).to;
          if (--indegree[w] == 0)
            order[n_order++] = w;
        }
    }
  for (guint i = 0; i < n_order; i++)
    {
      guint v = order[i];
      double x = 0;
      for (guint k = in_start[v]; k < in_start[v + 1]; k++)
        {
          BlockEdge *e = &g_array_index (edges, BlockEdge, in_list[k]);
          x = MAX (x, c->xs[e->from] + e->weight);
        }
      c->xs[v] = x;
    }
  for (guint i = n_order; i > 0; i--)
    {
      guint v = order[i - 1];
      double x = G_MAXDOUBLE;
      for (guint k = out_start[v]; k < out_start[v + 1]; k++)
        {
          BlockEdge *e = &g_array_index (edges, BlockEdge, out_list[k]);
          x = MIN (x, c->xs[e->to] - e->weight);
        }
      if (x != G_MAXDOUBLE)
        c->xs[v] = MAX (c->xs[v], x);
    }
  for (guint v = 0; v < nv; v++)
    c->xs[v] = c->xs[c->root[v]];
}

static void
bk_variant (Compaction *c, gboolean from_top, gboolean from_left, double *out)
{
  Layout *l = c->l;

  g_ptr_array_set_size (c->layers, 0);
  for (int i = 0; i < l->n_ranks; i++)
    {
      GArray *src = rank_array (l, from_top ? i : l->n_ranks - 1 - i);
      GArray *layer = g_array_sized_new (FALSE, FALSE, sizeof (guint), src->len);
      for (guint j = 0; j < src->len; j++)
        {
          guint v = g_array_index (src, guint, from_left ? j : src->len - 1 - j);
          g_array_append_val (layer, v);
          c->bpos[v] = j;
        }
      g_ptr_array_add (c->layers, layer);
    }
  vertical_alignment (c, from_top);
  memset (c->xs, 0, sizeof (double) * l->n_vertices);
  horizontal_compaction (c);
  for (guint v = 0; v < l->n_vertices; v++)
    out[v] = from_left ? c->xs[v] : -c->xs[v];
}

static void
brandes_koepf (Layout *l)
{
  guint nv = l->n_vertices;
  Compaction c = { 0 };
  double *xss[4];
  double min_x[4], max_x[4], width[4];
  int narrowest = 0;

  if (nv == 0)
    return;
  c.l = l;
  c.conflicts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c.layers = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  c.bpos = g_new0 (guint, nv);
  c.root = g_new0 (guint, nv);
  c.align = g_new0 (guint, nv);
  c.xs = g_new0 (double, nv);
  c.chain_up = g_new (guint, nv);
  c.chain_down = g_new (guint, nv);
  memset (c.chain_up, 0xff, sizeof (guint) * nv);
  memset (c.chain_down, 0xff, sizeof (guint) * nv);
  find_type1_conflicts (l, c.conflicts);

  for (int k = 0; k < 4; k++)
    {
      xss[k] = g_new (double, nv);
      bk_variant (&c, k < 2, k % 2 == 0, xss[k]);
      min_x[k] = G_MAXDOUBLE;
      max_x[k] = -G_MAXDOUBLE;
      width[k] = 0;
      {
        double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
        for (guint v = 0; v < nv; v++)
          {
            min_x[k] = MIN (min_x[k], xss[k][v]);
            max_x[k] = MAX (max_x[k], xss[k][v]);
            lo = MIN (lo, xss[k][v] - l->across_size[v] / 2);
            hi = MAX (hi, xss[k][v] + l->across_size[v] / 2);
          }
        width[k] = hi - lo;
      }
      if (width[k] < width[narrowest])
        narrowest = k;
    }
  /* align the four on the narrowest: left ones by their left edge, right
   * ones by their right edge */
  for (int k = 0; k < 4; k++)
    {
      double delta = k % 2 == 0 ? min_x[narrowest] - min_x[k] : max_x[narrowest] - max_x[k];
      for (guint v = 0; v < nv; v++)
        xss[k][v] += delta;
    }
  for (guint v = 0; v < nv; v++)
    {
      double x[4] = { xss[0][v], xss[1][v], xss[2][v], xss[3][v] };
      qsort (x, 4, sizeof (double), compare_double);
      l->x[v] = (x[1] + x[2]) / 2;
    }

  for (int k = 0; k < 4; k++)
    g_free (xss[k]);
  g_hash_table_unref (c.conflicts);
  g_ptr_array_unref (c.layers);
  g_free (c.bpos);
  g_free (c.root);
  g_free (c.align);
  g_free (c.xs);
  g_free (c.chain_up);
  g_free (c.chain_down);
}

/* Averaging four layouts can bring neighbours closer than their
 * separation; move them apart as little as possible. */
static void
resolve_overlaps (Layout *l)
{
  guint max_len = 1;
  double *desired, *weight, *offset;
  Block *blocks;

  for (int r = 0; r < l->n_ranks; r++)
    max_len = MAX (max_len, rank_array (l, r)->len);
  desired = g_new (double, max_len);
  weight = g_new (double, max_len);
  offset = g_new (double, max_len);
  blocks = g_new (Block, max_len);
  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      for (guint i = 0; i < a->len; i++)
        {
          desired[i] = l->x[g_array_index (a, guint, i)];
          weight[i] = is_dummy (l, g_array_index (a, guint, i)) ? 0.5 : 1;
        }
      place_rank (l, r, desired, weight, blocks, offset);
    }
  g_free (desired);
  g_free (weight);
  g_free (offset);
  g_free (blocks);
}

static void
assign_across (Layout *l)
{
  guint max_len = 1;
  double *desired, *weight, *offset;
  Block *blocks;
  gboolean incremental = FALSE;

  for (int r = 0; r < l->n_ranks; r++)
    max_len = MAX (max_len, rank_array (l, r)->len);
  desired = g_new (double, max_len);
  weight = g_new (double, max_len);
  offset = g_new (double, max_len);
  blocks = g_new (Block, max_len);

  for (guint v = 0; v < l->n_real && !incremental; v++)
    incremental = l->fixed[v];
  if (!incremental)
    {
      brandes_koepf (l);
      resolve_overlaps (l);
      g_free (desired);
      g_free (weight);
      g_free (offset);
      g_free (blocks);
      return;
    }

  /* Start packed and centred on 0 (or at previous places). */
  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      for (guint i = 0; i < a->len; i++)
        {
          guint v = g_array_index (a, guint, i);
          desired[i] = l->fixed[v] ? l->prev_x[v] : 0;
          weight[i] = l->fixed[v] ? 1 : 0.01;
        }
      place_rank (l, r, desired, weight, blocks, offset);
    }

  for (guint iter = 0; iter <= 12; iter++)
    {
      gboolean down = iter % 2 == 0;
      gboolean both = iter >= 8 && iter < 12;
      gboolean straighten = iter == 12;
      for (int i = 0; i < l->n_ranks; i++)
        {
          int r = down ? i : l->n_ranks - 1 - i;
          GArray *a = rank_array (l, r);
          for (guint j = 0; j < a->len; j++)
            desired_x (l, g_array_index (a, guint, j), down || both, !down || both,
                       straighten, &desired[j], &weight[j]);
          place_rank (l, r, desired, weight, blocks, offset);
        }
    }

  g_free (desired);
  g_free (weight);
  g_free (offset);
  g_free (blocks);
}

/* The along coordinate of each rank's centre line, and each rank's band. */
static void
assign_along (Layout *l, double *centre, double *band)
{
  const CtGraphLayoutRequest *req = l->request;
  gboolean lr = l->options->rankdir == CT_GRAPH_RANKDIR_LR;
  double previous_end = 0;

  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      double height = 0, min_centre;
      g_autoptr(GArray) prev = g_array_new (FALSE, FALSE, sizeof (double));

      for (guint i = 0; i < a->len; i++)
        {
          guint v = g_array_index (a, guint, i);
          height = MAX (height, l->along_size[v]);
          if (v < l->n_real && l->fixed[v])
            {
              /* nodes line up at the start of their band: keep that edge */
              double p = (lr ? req->previous[v].x : req->previous[v].y) - l->along_size[v] / 2;
              g_array_append_val (prev, p);
            }
        }
      band[r] = height;
      min_centre = r == 0 ? height / 2 : previous_end + l->options->rank_sep + height / 2;
      centre[r] = min_centre;
      if (prev->len > 0)
        {
          /* The shallowest previous place: a node that moved to this rank
           * from deeper down (its input was cut) must not drag the rank and
           * everything below it down with it. At most one rank's pitch of
           * slack is kept, so that deleting a layer leaves the rest in place
           * while gaps never pile up over a series of edits (or an undo). */
          double shallowest;
          g_array_sort (prev, compare_double);
          shallowest = g_array_index (prev, double, 0);
          centre[r] = CLAMP (shallowest + height / 2, min_centre,
                             min_centre + height + l->options->rank_sep);
        }
      previous_end = centre[r] + height / 2;
    }
}

static CtGraphPoint
make_point (gboolean lr, double across, double along)
{
  CtGraphPoint p;
  p.x = lr ? along : across;
  p.y = lr ? across : along;
  return p;
}

static CtGraphLayout *
build_result (Layout *l)
{
  const CtGraphLayoutRequest *req = l->request;
  gboolean lr = l->options->rankdir == CT_GRAPH_RANKDIR_LR;
  CtGraphLayout *out = g_new0 (CtGraphLayout, 1);
  g_autofree double *centre = g_new0 (double, MAX (l->n_ranks, 1));
  g_autofree double *band = g_new0 (double, MAX (l->n_ranks, 1));
  double min_x = G_MAXDOUBLE, min_y = G_MAXDOUBLE, max_x = -G_MAXDOUBLE, max_y = -G_MAXDOUBLE;

  assign_along (l, centre, band);
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
  {
    gboolean incremental = FALSE;
    for (guint v = 0; v < l->n_real && !incremental; v++)
      incremental = l->fixed[v];
    if (incremental)
      {
        min_x = MIN (min_x, 0);
        min_y = MIN (min_y, 0);
      }
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

static void
layout_clear (Layout *l)
{
  g_free (l->rank);
  g_free (l->across_size);
  g_free (l->along_size);
  g_free (l->x);
  g_free (l->key);
  g_free (l->pos);
  g_free (l->fixed);
  g_free (l->prev_x);
  g_free (l->reversed);
  g_free (l->chain_start);
  g_free (l->chain_len);
  g_free (l->chain_ids);
  g_free (l->dummy_edge);
  g_free (l->up_start);
  g_free (l->up);
  g_free (l->down_start);
  g_free (l->down);
  if (l->ranks != NULL)
    g_ptr_array_unref (l->ranks);
}

CtGraphLayout *
ct_graph_layout_compute (const CtGraphLayoutRequest *request)
{
  Layout l = { 0 };
  CtGraphLayout *result;
  gboolean incremental = FALSE;

  g_return_val_if_fail (request != NULL, NULL);
  l.request = request;
  l.options = &request->options;
  l.n_real = request->n_nodes;
  l.rank = g_new0 (int, MAX (l.n_real, 1));
  l.reversed = g_new0 (gboolean, MAX (request->n_edges, 1));
  l.chain_start = g_new0 (guint, MAX (request->n_edges, 1));
  l.chain_len = g_new0 (guint, MAX (request->n_edges, 1));

  break_cycles (&l);
  assign_ranks (&l);
  make_dummies (&l);
  alloc_vertices (&l);
  build_links (&l);
  initial_order (&l);
  for (guint v = 0; v < l.n_real && !incremental; v++)
    incremental = l.fixed[v];
  if (incremental)
    incremental_order (&l);
  else
    reduce_crossings (&l);
  assign_across (&l);
  result = build_result (&l);
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
