/* graph-layout-private.h: the working state the four phases of the layered
 * layout share (graph-layout-rank.c, -order.c, -place.c, -route.c), and the
 * entry point of each phase. ct_graph_layout_compute() in graph-layout.c runs
 * them in order.
 *
 * Every vertex (real node or dummy) has a rank and an "across" coordinate;
 * the "along" coordinate comes from the rank. Everything is computed in
 * top-to-bottom terms and swapped at the end for left-to-right. Adjacency
 * between consecutive ranks is kept in compressed arrays (one slice of "up"
 * and one of "down" neighbours per vertex) so that the sweeps touch
 * contiguous memory: a 1,000-layer net with its dummies lays out in a few
 * milliseconds. */
#pragma once

#include "graph-layout.h"

/* One end of an edge between consecutive ranks, seen from a vertex. */
typedef struct {
  guint other;
  double self_offset;   /* port offset on this vertex */
  double other_offset;  /* port offset on the other vertex */
  double weight;
  gboolean chain;       /* both ends' only link on this side */
} CtLayoutLink;

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
  CtLayoutLink *up;
  guint *down_start;
  CtLayoutLink *down;

  gboolean incremental;   /* some real node has a previous position */

  int n_ranks;
  GPtrArray *ranks;       /* GArray of guint (vertex ids) per rank */
  guint n_crossings;
} CtLayoutState;

static inline const CtGraphLayoutEdgeSpec *
edge_spec (const CtLayoutState *l, guint e)
{
  return &l->request->edges[e];
}

static inline gboolean
edge_usable (const CtLayoutState *l, guint e)
{
  const CtGraphLayoutEdgeSpec *spec = edge_spec (l, e);

  return spec->from != spec->to && spec->from < l->n_real && spec->to < l->n_real;
}

/* The ends of edge E after cycle breaking. */
static inline guint
edge_tail (const CtLayoutState *l, guint e)
{
  return l->reversed[e] ? edge_spec (l, e)->to : edge_spec (l, e)->from;
}

static inline guint
edge_head (const CtLayoutState *l, guint e)
{
  return l->reversed[e] ? edge_spec (l, e)->from : edge_spec (l, e)->to;
}

static inline GArray *
rank_array (CtLayoutState *l, int r)
{
  return g_ptr_array_index (l->ranks, r);
}

/* Rank: break cycles, give every node a rank, cut long edges into chains
 * of dummies and link consecutive ranks (graph-layout-rank.c). */
void ct_graph_layout_rank (CtLayoutState *l);
/* Order the vertices within each rank (graph-layout-order.c). */
void ct_graph_layout_order (CtLayoutState *l);
/* Across coordinates (graph-layout-place.c). */
void ct_graph_layout_place (CtLayoutState *l);
/* The along coordinate of each rank's centre line, and each rank's band
 * (graph-layout-place.c). */
void ct_graph_layout_place_ranks (CtLayoutState *l, double *centre, double *band);
/* The result: node boxes and the routes of edges through their dummies
 * (graph-layout-route.c). */
CtGraphLayout *ct_graph_layout_route (CtLayoutState *l);
