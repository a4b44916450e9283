/* graph-layout.h: automatic layered layout of a directed graph, GTK-free.
 *
 * The classic four steps: cycles are broken by turning back edges around;
 * every node gets a rank (longest path from the sources, with sources pulled
 * down next to their first consumer); long edges are cut into chains of
 * dummy nodes, one per rank they cross; the order within each rank comes
 * from barycentre sweeps (down, then up) with adjacent swaps, keeping the
 * ordering with the fewest crossings; and coordinates come from alternating
 * sweeps that place each node where its neighbours' ports pull it (a least
 * squares fit per rank that keeps nodes apart), so chains and long edges run
 * straight.
 *
 * Incremental layout: nodes with a previous position keep their relative
 * order (no crossing reduction moves them) and are pulled back to their
 * previous cross-axis coordinate; ranks keep their previous depth (the
 * shallowest of their nodes', with at most one rank's pitch of slack, so that
 * gaps do not pile up) unless the ranks above need more room. A small edit
 * then moves few nodes, and undoing it brings them back.
 *
 * Coordinates: "along" is the rank axis (y for TB, x for LR), "across" is
 * the other. Positions are node centres; the graph's bounding box starts at
 * (0, 0). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CT_GRAPH_RANKDIR_TB,  /* ranks from top to bottom (Caffe's data at the top) */
  CT_GRAPH_RANKDIR_LR,  /* ranks from left to right */
} CtGraphRankdir;

typedef struct {
  double x, y;
} CtGraphPoint;

typedef struct {
  guint from, to;
  /* Where the edge leaves FROM and enters TO, as an offset from the node's
   * centre along the across axis (ports spread over a node's side). */
  double from_offset, to_offset;
} CtGraphLayoutEdgeSpec;

typedef struct {
  CtGraphRankdir rankdir;
  double node_sep;      /* gap between neighbours in a rank (default 28) */
  double rank_sep;      /* gap between ranks (default 56) */
  double edge_sep;      /* room a long edge takes in a rank it crosses (default 14) */
  guint max_sweeps;     /* crossing-reduction sweeps (default 24) */
} CtGraphLayoutOptions;

/* Fill OPTIONS with the defaults for RANKDIR. */
void ct_graph_layout_options_init (CtGraphLayoutOptions *options, CtGraphRankdir rankdir);

typedef struct {
  guint n_nodes;
  /* Sizes in final orientation: width along x, height along y. */
  const double *widths;
  const double *heights;
  guint n_edges;
  const CtGraphLayoutEdgeSpec *edges;
  /* Optional (NULL): a previous centre for each node, used when
   * HAS_PREVIOUS[i]. */
  const CtGraphPoint *previous;
  const gboolean *has_previous;
  CtGraphLayoutOptions options;
} CtGraphLayoutRequest;

typedef struct {
  double x, y;           /* centre */
  double width, height;
  int rank;
  int order;             /* position within the rank, dummies counted */
} CtGraphLayoutNode;

typedef struct {
  /* Bend points between the two ports (two per rank the edge crosses: where
   * it enters and leaves that rank's band), in order from FROM to TO. */
  guint n_points;
  CtGraphPoint *points;
  gboolean reversed;     /* the edge was turned around to break a cycle */
} CtGraphLayoutRoute;

typedef struct {
  CtGraphRankdir rankdir;
  guint n_nodes;
  CtGraphLayoutNode *nodes;
  guint n_edges;
  CtGraphLayoutRoute *routes;
  guint n_ranks;
  double width, height;  /* bounding box of nodes and routes */
  guint n_crossings;     /* edge crossings between adjacent ranks */
  guint n_dummies;
} CtGraphLayout;

/* Lay out REQUEST. Never fails (self-loops are ignored, cycles broken). */
CtGraphLayout *ct_graph_layout_compute (const CtGraphLayoutRequest *request);
CtGraphLayout *ct_graph_layout_copy (const CtGraphLayout *layout);
void ct_graph_layout_free (CtGraphLayout *layout);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtGraphLayout, ct_graph_layout_free)

/* Move node I to centre X, Y (a user's drag): the routes of its edges lose
 * their bend points and the bounding box grows to include it. */
void ct_graph_layout_move_node (CtGraphLayout *layout, guint node, double x, double y,
                                const CtGraphLayoutEdgeSpec *edges);

/* Checks for tests: the number of pairs of nodes whose boxes overlap, and
 * of edges that do not point to a later rank (self loops excluded). */
guint ct_graph_layout_count_overlaps (const CtGraphLayout *layout);
guint ct_graph_layout_count_upward_edges (const CtGraphLayout *layout,
                                          const CtGraphLayoutEdgeSpec *edges);

G_END_DECLS
