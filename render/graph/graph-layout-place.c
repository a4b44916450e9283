/* graph-layout-place.c: the layout's third phase, coordinates. A fresh
 * layout takes Brandes and Köpf's compaction; an incremental one uses
 * alternating sweeps that place each node where its neighbours pull it (a
 * least squares fit per rank that keeps nodes apart), holding unchanged
 * nodes at their old places, so chains and long edges run straight and a
 * small edit moves few nodes. Ranks get their depth along the other axis. */
#include "graph-layout-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Place one rank: minimise sum w_i (x_i - d_i)^2 keeping neighbours at
 * least their separation apart. Subtracting the cumulative minimum offsets
 * makes the constraints plain x'_i <= x'_{i+1}: an isotonic regression,
 * solved exactly by pooling adjacent violators. */
typedef struct {
  double weight, mean;
  guint first, count;
} Block;

static void
place_rank (CtLayoutState *l, int r, const double *desired, const double *weight, Block *blocks,
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
port_pull (const CtLayoutLink *link)
{
  return 0 * (link->other_offset - link->self_offset);
}

/* Where V's neighbours on the chosen sides pull it. */
static void
desired_x (CtLayoutState *l, guint v, gboolean use_up, gboolean use_down, gboolean straighten,
           double *d, double *w)
{
  double sum = 0, weight = 0;

  if (use_up)
    for (guint k = l->up_start[v]; k < l->up_start[v + 1]; k++)
      {
        const CtLayoutLink *link = &l->up[k];
        /* the last sweep lines chains up exactly wherever there is room */
        double lw = straighten && link->chain ? 100 * link->weight : link->weight;
        sum += lw * (l->x[link->other] + port_pull (link));
        weight += lw;
      }
  if (use_down)
    for (guint k = l->down_start[v]; k < l->down_start[v + 1]; k++)
      {
        const CtLayoutLink *link = &l->down[k];
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
  CtLayoutState *l;
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
is_dummy (const CtLayoutState *l, guint v)
{
  return v >= l->n_real;
}

/* Type 1 conflicts: a segment between two dummies (part of a long edge)
 * crossed by another segment; the other one gives way. */
static void
find_type1_conflicts (CtLayoutState *l, GHashTable *conflicts)
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
link_count (const CtLayoutState *l, guint v, gboolean up)
{
  return up ? l->up_start[v + 1] - l->up_start[v] : l->down_start[v + 1] - l->down_start[v];
}

/* A side edge: a long edge from a node that branches to a node that
 * merges, such as a residual shortcut. It runs beside the blocks it skips
 * and never sets where a real node goes. */
static gboolean
is_side_edge (const CtLayoutState *l, guint dummy)
{
  guint e = l->dummy_edge[dummy - l->n_real];
  return link_count (l, edge_tail (l, e), FALSE) > 1 && link_count (l, edge_head (l, e), TRUE) > 1;
}

/* Whether V goes on beyond itself on one side (UP or down): it ends there,
 * or a real node or a long edge that is not a side edge follows. */
static gboolean
continues (const CtLayoutState *l, guint v, gboolean up)
{
  const guint *start = up ? l->up_start : l->down_start;
  const CtLayoutLink *links = up ? l->up : l->down;

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
may_align (const CtLayoutState *l, guint v, guint w, gboolean use_up)
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
  CtLayoutState *l = c->l;
  guint *memo = up ? c->chain_up : c->chain_down;
  guint count = 0, w = v;

  if (memo[v] != G_MAXUINT)
    return memo[v];
  for (;;)
    {
      const CtLayoutLink *links = up ? l->up : l->down;
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
  CtLayoutState *l = c->l;
  const guint *start = use_up ? l->up_start : l->down_start;
  const CtLayoutLink *links = use_up ? l->up : l->down;
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
  CtLayoutState *l = c->l;
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
separation (const CtLayoutState *l, guint u, guint v)
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
  CtLayoutState *l = c->l;
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
  CtLayoutState *l = c->l;

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
brandes_koepf (CtLayoutState *l)
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

/* Room for placing the widest rank. */
typedef struct {
  double *desired, *weight, *offset;
  Block *blocks;
} RankScratch;

static void
rank_scratch_init (CtLayoutState *l, RankScratch *s)
{
  guint max_len = 1;

  for (int r = 0; r < l->n_ranks; r++)
    max_len = MAX (max_len, rank_array (l, r)->len);
  s->desired = g_new (double, max_len);
  s->weight = g_new (double, max_len);
  s->offset = g_new (double, max_len);
  s->blocks = g_new (Block, max_len);
}

static void
rank_scratch_clear (RankScratch *s)
{
  g_free (s->desired);
  g_free (s->weight);
  g_free (s->offset);
  g_free (s->blocks);
}

/* Averaging four layouts can bring neighbours closer than their
 * separation; move them apart as little as possible. */
static void
resolve_overlaps (CtLayoutState *l)
{
  RankScratch s;

  rank_scratch_init (l, &s);
  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      for (guint i = 0; i < a->len; i++)
        {
          s.desired[i] = l->x[g_array_index (a, guint, i)];
          s.weight[i] = is_dummy (l, g_array_index (a, guint, i)) ? 0.5 : 1;
        }
      place_rank (l, r, s.desired, s.weight, s.blocks, s.offset);
    }
  rank_scratch_clear (&s);
}

void
ct_graph_layout_place (CtLayoutState *l)
{
  RankScratch s;

  if (!l->incremental)
    {
      brandes_koepf (l);
      resolve_overlaps (l);
      return;
    }

  /* Start packed and centred on 0 (or at previous places). */
  rank_scratch_init (l, &s);
  for (int r = 0; r < l->n_ranks; r++)
    {
      GArray *a = rank_array (l, r);
      for (guint i = 0; i < a->len; i++)
        {
          guint v = g_array_index (a, guint, i);
          s.desired[i] = l->fixed[v] ? l->prev_x[v] : 0;
          s.weight[i] = l->fixed[v] ? 1 : 0.01;
        }
      place_rank (l, r, s.desired, s.weight, s.blocks, s.offset);
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
                       straighten, &s.desired[j], &s.weight[j]);
          place_rank (l, r, s.desired, s.weight, s.blocks, s.offset);
        }
    }
  rank_scratch_clear (&s);
}

void
ct_graph_layout_place_ranks (CtLayoutState *l, double *centre, double *band)
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
