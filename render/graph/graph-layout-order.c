/* graph-layout-order.c: the layout's second phase, the order of vertices
 * within each rank. A fresh layout starts from a depth-first walk and
 * improves it by barycentre sweeps (down, then up) with adjacent swaps,
 * keeping the ordering with the fewest crossings; an incremental one keeps
 * the previous relative order of the nodes that had a place and lets the
 * newcomers settle between them. */
#include "graph-layout-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
renumber (CtLayoutState *l, int r)
{
  GArray *a = rank_array (l, r);
  for (guint i = 0; i < a->len; i++)
    l->pos[g_array_index (a, guint, i)] = i;
}

/* Initial order: a depth-first walk from the sources in node order, down
 * the links in port order; a vertex joins its rank when first reached.
 * Siblings then start out side by side in the order the net lists them. */
static void
initial_order (CtLayoutState *l)
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
crossings_between (CtLayoutState *l, int r, CrossingScratch *cs)
{
  GArray *upper = rank_array (l, r);
  guint n = 0, n_keys = 0, total = 0;

  for (guint i = 0; i < upper->len; i++)
    {
      guint v = g_array_index (upper, guint, i);
      for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
        {
          const CtLayoutLink *link = &l->down[k];
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
count_crossings (CtLayoutState *l)
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
barycentre (CtLayoutState *l, guint v, gboolean use_up, double *out)
{
  const guint *start = use_up ? l->up_start : l->down_start;
  const CtLayoutLink *links = use_up ? l->up : l->down;
  double sum = 0;
  guint count = start[v + 1] - start[v];

  if (count == 0)
    return FALSE;
  for (guint k = start[v]; k < start[v + 1]; k++)
    {
      const CtLayoutLink *link = &links[k];
      double size = MAX (l->across_size[link->other], 1);
      sum += l->pos[link->other] + 0.8 * link->other_offset / size;
    }
  *out = sum / count;
  return TRUE;
}

static int
compare_by_key (gconstpointer a, gconstpointer b, gpointer data)
{
  const CtLayoutState *l = data;
  guint v = *(const guint *) a, w = *(const guint *) b;

  if (l->key[v] != l->key[w])
    return l->key[v] < l->key[w] ? -1 : 1;
  /* stable: keep the current order */
  return l->pos[v] < l->pos[w] ? -1 : l->pos[v] > l->pos[w];
}

static void
sort_rank (CtLayoutState *l, int r, gboolean use_up)
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
pair_crossings (CtLayoutState *l, guint v, guint w, gboolean use_up)
{
  const guint *start = use_up ? l->up_start : l->down_start;
  const CtLayoutLink *links = use_up ? l->up : l->down;
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
transpose (CtLayoutState *l)
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
save_order (CtLayoutState *l)
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
restore_order (CtLayoutState *l, GPtrArray *saved)
{
  g_ptr_array_unref (l->ranks);
  l->ranks = g_ptr_array_ref (saved);
  for (int r = 0; r < l->n_ranks; r++)
    renumber (l, r);
}

static void
reduce_crossings (CtLayoutState *l)
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
incremental_order (CtLayoutState *l)
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

void
ct_graph_layout_order (CtLayoutState *l)
{
  initial_order (l);
  if (l->incremental)
    incremental_order (l);
  else
    reduce_crossings (l);
}
