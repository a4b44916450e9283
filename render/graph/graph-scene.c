/* graph-scene.c: the scene geometry of graph-render.h: each node measured
 * from its text, the layout computed (incrementally when a previous scene
 * is given), port positions, the points each edge passes through, and
 * hit-testing of nodes, ports, folded layers and edges. No GTK here:
 * `cortado-cli draw` and the widget tests use it without a display. */
#include "graph-scene-private.h"

#include <math.h>
#include <string.h>

const char *
ct_graph_phase_badge (CtGraphPhase phase)
{
  switch (phase)
    {
    case CT_GRAPH_PHASE_TRAIN:
      return "TRAIN";
    case CT_GRAPH_PHASE_TEST:
      return "TEST";
    case CT_GRAPH_PHASE_ALL:
    default:
      return NULL;
    }
}

double
ct_graph_chip_width (const CtGraphFolded *folded)
{
  return ct_graph_text_width (CT_GRAPH_TEXT_CHIP, folded->type) + 12;
}

char *
ct_graph_folded_row_text (const CtGraphFolded *folded)
{
  return g_strdup_printf ("%s · %s", folded->type, folded->name);
}

/* The shape of the blob leaving top PORT of node NODE, or NULL. */
const char *
ct_graph_top_shape (const CtGraphModel *model, guint node, guint port)
{
  guint n_out;
  const guint *out = ct_graph_model_node_out_edges (model, node, &n_out);

  for (guint i = 0; i < n_out; i++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, out[i]);
      if (edge->from_port == port && edge->shape != NULL)
        return edge->shape;
    }
  return NULL;
}

/* The width of a port row entry: the blob's name and its shape. */
double
ct_graph_port_entry_width (const CtGraphNode *node, const char *shape, guint port)
{
  double w = ct_graph_text_width (CT_GRAPH_TEXT_LABEL, g_ptr_array_index (node->tops, port));
  if (shape != NULL)
    w += 5 + ct_graph_text_width (CT_GRAPH_TEXT_LABEL, shape);
  return w;
}

/* Top to bottom, a node with several tops names them in a row above its
 * ports (outside, there would be no room for names and shapes side by
 * side). */
gboolean
ct_graph_has_port_row (const CtGraphNode *node, CtGraphRankdir rankdir)
{
  return rankdir == CT_GRAPH_RANKDIR_TB && node->tops->len > 1;
}

static double
node_text_height (const CtGraphNode *node, gboolean expanded, CtGraphRankdir rankdir)
{
  double h = HEADER_HEIGHT + BODY_PAD + NAME_HEIGHT + BODY_PAD;

  if (ct_graph_has_port_row (node, rankdir))
    h += PORT_ROW_HEIGHT;

  if (node->detail != NULL)
    h += DETAIL_HEIGHT;
  if (node->folded->len > 0)
    h += expanded ? node->folded->len * ROW_HEIGHT + 4 : CHIP_HEIGHT + CHIP_GAP;
  return h;
}

static void
measure_node (const CtGraphModel *model, guint index, gboolean expanded, CtGraphRankdir rankdir,
              double *width, double *height)
{
  const CtGraphNode *node = ct_graph_model_get_node (model, index);
  double w = NODE_MIN_WIDTH;
  double header = ct_graph_text_width (CT_GRAPH_TEXT_TYPE, node->type) + 2 * NODE_PAD_X;
  const char *badge = ct_graph_phase_badge (node->phase);

  if (badge != NULL)
    header += ct_graph_text_width (CT_GRAPH_TEXT_BADGE, badge) + 14;
  if (node->error != NULL)
    header += 18;
  w = MAX (w, header);
  w = MAX (w, ct_graph_text_width (CT_GRAPH_TEXT_NAME, node->name) + 2 * NODE_PAD_X);
  if (node->detail != NULL)
    w = MAX (w, ct_graph_text_width (CT_GRAPH_TEXT_DETAIL, node->detail) + 2 * NODE_PAD_X);
  if (node->folded->len > 0)
    {
      double chips = 2 * NODE_PAD_X - CHIP_GAP + TOGGLE_WIDTH;
      for (guint i = 0; i < node->folded->len; i++)
        {
          const CtGraphFolded *folded = g_ptr_array_index (node->folded, i);
          if (expanded)
            {
              g_autofree char *row = ct_graph_folded_row_text (folded);
              w = MAX (w, ct_graph_text_width (CT_GRAPH_TEXT_DETAIL, row) + 2 * NODE_PAD_X + 12
                            + TOGGLE_WIDTH);
            }
          chips += ct_graph_chip_width (folded) + CHIP_GAP;
        }
      if (!expanded)
        w = MAX (w, chips);
    }
  /* room for the ports on both sides */
  w = MAX (w, MAX (node->bottoms->len, node->tops->len) * 22.0 + 12);
  if (ct_graph_has_port_row (node, rankdir))
    {
      double widest = 0;
      for (guint i = 0; i < node->tops->len; i++)
        {
          const char *shape = ct_graph_top_shape (model, index, i);
          widest = MAX (widest, ct_graph_port_entry_width (node, shape, i));
        }
      w = MAX (w, node->tops->len * (MIN (widest, 150) + 12) + 16);
    }
  *width = ceil (MIN (w, 480));
  *height = ceil (node_text_height (node, expanded, rankdir));
}

/* Port offsets across the side they sit on, from the centre. */
static double
port_offset (guint n_ports, guint port, double side, gboolean spread)
{
  double spacing;

  if (n_ports <= 1)
    return 0;
  /* ports keep together unless they carry names, which need the width */
  spacing = spread ? (side - 16) / n_ports : MIN ((side - 16) / n_ports, PORT_SPACING_MAX);
  return (port - (n_ports - 1) / 2.0) * spacing;
}

static double
node_side (const CtGraphScene *scene, guint node)
{
  const CtGraphLayoutNode *n = &scene->layout->nodes[node];
  return scene->rankdir == CT_GRAPH_RANKDIR_LR ? n->height : n->width;
}

/* Scenes */

static gboolean
lookup_previous (const CtGraphScene *previous, const char *id, CtGraphPoint *out)
{
  int index;

  if (previous == NULL || previous->layout == NULL)
    return FALSE;
  /* folded ids find their host node: only a node's own id counts here */
  index = ct_graph_model_find_node (previous->model, id);
  if (index < 0 || strcmp (ct_graph_model_get_node (previous->model, index)->id, id) != 0
      || previous->forgotten[index])
    return FALSE;
  out->x = previous->layout->nodes[index].x;
  out->y = previous->layout->nodes[index].y;
  return TRUE;
}

CtGraphScene *
ct_graph_scene_new (CtGraphModel *model, CtGraphRankdir rankdir, GHashTable *expanded,
                    const CtGraphScene *previous, GHashTable *pinned)
{
  CtGraphScene *scene = g_new0 (CtGraphScene, 1);
  guint n = ct_graph_model_n_nodes (model);
  guint m = ct_graph_model_n_edges (model);
  g_autofree double *widths = g_new0 (double, MAX (n, 1));
  g_autofree double *heights = g_new0 (double, MAX (n, 1));
  g_autofree CtGraphPoint *prev = g_new0 (CtGraphPoint, MAX (n, 1));
  g_autofree gboolean *has_prev = g_new0 (gboolean, MAX (n, 1));
  CtGraphLayoutRequest request = { 0 };
  gboolean any_prev = FALSE;

  scene->model = ct_graph_model_ref (model);
  scene->rankdir = rankdir;
  scene->expanded = g_new0 (gboolean, MAX (n, 1));
  scene->forgotten = g_new0 (gboolean, MAX (n, 1));
  scene->edge_specs = g_new0 (CtGraphLayoutEdgeSpec, MAX (m, 1));

  if (previous != NULL && previous->rankdir != rankdir)
    previous = NULL;
  for (guint i = 0; i < n; i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (model, i);
      scene->expanded[i] = expanded != NULL && g_hash_table_contains (expanded, node->id);
      measure_node (model, i, scene->expanded[i], rankdir, &widths[i], &heights[i]);
      has_prev[i] = lookup_previous (previous, node->id, &prev[i]);
      any_prev |= has_prev[i];
    }
  for (guint e = 0; e < m; e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);
      const CtGraphNode *from = ct_graph_model_get_node (model, edge->from_node);
      const CtGraphNode *to = ct_graph_model_get_node (model, edge->to_node);
      double from_side = rankdir == CT_GRAPH_RANKDIR_LR ? heights[edge->from_node]
                                                        : widths[edge->from_node];
      double to_side = rankdir == CT_GRAPH_RANKDIR_LR ? heights[edge->to_node]
                                                      : widths[edge->to_node];
      CtGraphLayoutEdgeSpec *spec = &scene->edge_specs[e];

      spec->from = edge->from_node;
      spec->to = edge->to_node;
      spec->from_offset = port_offset (from->tops->len, edge->from_port, from_side,
                                       ct_graph_has_port_row (from, rankdir));
      spec->to_offset = port_offset (to->bottoms->len, edge->to_port, to_side, FALSE);
    }

  request.n_nodes = n;
  request.widths = widths;
  request.heights = heights;
  request.n_edges = m;
  request.edges = scene->edge_specs;
  request.previous = any_prev ? prev : NULL;
  request.has_previous = any_prev ? has_prev : NULL;
  ct_graph_layout_options_init (&request.options, rankdir);
  if (rankdir == CT_GRAPH_RANKDIR_LR)
    {
      /* left to right, edge labels run along the gaps between ranks:
       * make the gaps as wide as the longest label */
      double widest = 0;
      for (guint i = 0; i < n; i++)
        {
          const CtGraphNode *node = ct_graph_model_get_node (model, i);
          for (guint port = 0; port < node->tops->len; port++)
            {
              const char *shape = ct_graph_top_shape (model, i, port);
              double w = shape != NULL ? ct_graph_text_width (CT_GRAPH_TEXT_LABEL, shape) : 0;
              if (node->tops->len > 1 || strcmp (node->tops->pdata[port], node->name) != 0)
                w += ct_graph_text_width (CT_GRAPH_TEXT_LABEL, node->tops->pdata[port]) + 6;
              widest = MAX (widest, w);
            }
        }
      request.options.rank_sep = CLAMP (widest + 28, request.options.rank_sep, 220);
    }
  scene->layout = ct_graph_layout_compute (&request);

  if (pinned != NULL)
    for (guint i = 0; i < n; i++)
      {
        const CtGraphPoint *p = g_hash_table_lookup (pinned,
                                                     ct_graph_model_get_node (model, i)->id);
        if (p != NULL)
          ct_graph_scene_move_node (scene, i, p->x, p->y);
      }
  return scene;
}

void
ct_graph_scene_free (CtGraphScene *scene)
{
  if (scene == NULL)
    return;
  ct_graph_model_unref (scene->model);
  g_free (scene->expanded);
  g_free (scene->forgotten);
  g_free (scene->edge_specs);
  ct_graph_layout_free (scene->layout);
  g_free (scene);
}

CtGraphPoint
ct_graph_scene_port_position (const CtGraphScene *scene, guint node, gboolean is_top,
                              guint port)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  const CtGraphLayoutNode *ln = &scene->layout->nodes[node];
  guint count = is_top ? n->tops->len : n->bottoms->len;
  double offset = port_offset (count, port, node_side (scene, node),
                               is_top && ct_graph_has_port_row (n, scene->rankdir));
  CtGraphPoint p;

  if (scene->rankdir == CT_GRAPH_RANKDIR_LR)
    {
      p.x = ln->x + (is_top ? ln->width / 2 : -ln->width / 2);
      p.y = ln->y + offset;
    }
  else
    {
      p.x = ln->x + offset;
      p.y = ln->y + (is_top ? ln->height / 2 : -ln->height / 2);
    }
  return p;
}

void
ct_graph_scene_node_box (const CtGraphScene *scene, guint node, double *x, double *y,
                         double *width, double *height)
{
  const CtGraphLayoutNode *ln = &scene->layout->nodes[node];

  *x = ln->x - ln->width / 2;
  *y = ln->y - ln->height / 2;
  *width = ln->width;
  *height = ln->height;
}

void
ct_graph_scene_forget_node (CtGraphScene *scene, guint node)
{
  g_return_if_fail (node < scene->layout->n_nodes);
  scene->forgotten[node] = TRUE;
}

void
ct_graph_scene_move_node (CtGraphScene *scene, guint node, double x, double y)
{
  g_return_if_fail (node < scene->layout->n_nodes);
  ct_graph_layout_move_node (scene->layout, node, x, y, scene->edge_specs);
}

/* Edge geometry (see graph-scene-private.h) */

static guint
port_fan_out (const CtGraphScene *scene, guint node, guint port)
{
  guint n_out, count = 0;
  const guint *out = ct_graph_model_node_out_edges (scene->model, node, &n_out);

  for (guint i = 0; i < n_out; i++)
    if (ct_graph_model_get_edge (scene->model, out[i])->from_port == port)
      count++;
  return count;
}

const CtGraphPoint *
ct_graph_scene_edge_points (const CtGraphScene *scene, guint e, CtGraphEdgePoints *buf,
                            guint *n_out)
{
  const CtGraphEdge *edge = ct_graph_model_get_edge (scene->model, e);
  const CtGraphLayoutRoute *route = &scene->layout->routes[e];
  gboolean trunk = port_fan_out (scene, edge->from_node, edge->from_port) > 1;
  guint n = route->n_points + 2 + (trunk ? 1 : 0);
  CtGraphPoint *p = n <= G_N_ELEMENTS (buf->p) ? buf->p : (buf->heap = g_new (CtGraphPoint, n));
  guint k = 0;

  p[k++] = ct_graph_scene_port_position (scene, edge->from_node, TRUE, edge->from_port);
  if (trunk)
    {
      /* a blob read by several layers leaves its port as one stem, then
       * fans out; its label sits beside the stem */
      p[k] = p[0];
      if (scene->rankdir == CT_GRAPH_RANKDIR_LR)
        p[k].x += TRUNK_LENGTH;
      else
        p[k].y += TRUNK_LENGTH;
      k++;
    }
  if (route->n_points > 0) /* a straight edge has no points, and maybe no array */
    memcpy (p + k, route->points, route->n_points * sizeof (CtGraphPoint));
  p[n - 1] = ct_graph_scene_port_position (scene, edge->to_node, FALSE, edge->to_port);
  *n_out = n;
  return p;
}

void
ct_graph_edge_points_clear (CtGraphEdgePoints *buf)
{
  g_clear_pointer (&buf->heap, g_free);
}

/* The control points of the curve from A to B. */
void
ct_graph_segment_controls (gboolean lr, CtGraphPoint a, CtGraphPoint b, CtGraphPoint *c1,
                           CtGraphPoint *c2)
{
  if (lr)
    {
      double d = (b.x - a.x) * 0.5;
      if (fabs (d) < 12)
        d = d < 0 ? -12 : 12;
      *c1 = (CtGraphPoint) { a.x + d, a.y };
      *c2 = (CtGraphPoint) { b.x - d, b.y };
    }
  else
    {
      double d = (b.y - a.y) * 0.5;
      if (fabs (d) < 12)
        d = d < 0 ? -12 : 12;
      *c1 = (CtGraphPoint) { a.x, a.y + d };
      *c2 = (CtGraphPoint) { b.x, b.y - d };
    }
}

gboolean
ct_graph_points_aligned (gboolean lr, CtGraphPoint a, CtGraphPoint b)
{
  return lr ? fabs (a.y - b.y) < 0.5 : fabs (a.x - b.x) < 0.5;
}

void
ct_graph_points_bounds (const CtGraphPoint *p, guint n, double *x0, double *y0, double *x1,
                        double *y1)
{
  *x0 = *x1 = p[0].x;
  *y0 = *y1 = p[0].y;
  for (guint i = 1; i < n; i++)
    {
      *x0 = MIN (*x0, p[i].x);
      *x1 = MAX (*x1, p[i].x);
      *y0 = MIN (*y0, p[i].y);
      *y1 = MAX (*y1, p[i].y);
    }
}

/* Hit testing */

int
ct_graph_scene_node_at (const CtGraphScene *scene, double x, double y)
{
  /* last drawn wins, as on screen */
  for (guint i = scene->layout->n_nodes; i > 0; i--)
    {
      double bx, by, bw, bh;
      ct_graph_scene_node_box (scene, i - 1, &bx, &by, &bw, &bh);
      if (x >= bx && x <= bx + bw && y >= by && y <= by + bh)
        return (int) i - 1;
    }
  return -1;
}

int
ct_graph_scene_port_at (const CtGraphScene *scene, double x, double y, double radius,
                        gboolean *is_top, guint *port)
{
  int best = -1;
  double best_d = radius * radius;

  for (guint i = 0; i < scene->layout->n_nodes; i++)
    {
      const CtGraphNode *n = ct_graph_model_get_node (scene->model, i);
      for (int side = 0; side < 2; side++)
        {
          guint count = side ? n->tops->len : n->bottoms->len;
          for (guint k = 0; k < count; k++)
            {
              CtGraphPoint p = ct_graph_scene_port_position (scene, i, side, k);
              double d = (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y);
              if (d <= best_d)
                {
                  best_d = d;
                  best = (int) i;
                  if (is_top != NULL)
                    *is_top = side;
                  if (port != NULL)
                    *port = k;
                }
            }
        }
    }
  return best;
}

/* The top of NODE's folded layers (chips or rows). */
static double
folded_top (const CtGraphScene *scene, guint node, const CtGraphNode *n)
{
  double bx, by, bw, bh;

  ct_graph_scene_node_box (scene, node, &bx, &by, &bw, &bh);
  return by + HEADER_HEIGHT + BODY_PAD + NAME_HEIGHT + (n->detail != NULL ? DETAIL_HEIGHT : 0) + 2;
}

gboolean
ct_graph_scene_folded_box (const CtGraphScene *scene, guint node, guint folded, double *box)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  double bx, by, bw, bh, top, cx;

  if (n == NULL || folded >= n->folded->len)
    return FALSE;
  ct_graph_scene_node_box (scene, node, &bx, &by, &bw, &bh);
  top = folded_top (scene, node, n);
  if (scene->expanded[node])
    {
      box[0] = bx + NODE_PAD_X;
      box[1] = top + folded * ROW_HEIGHT;
      box[2] = bw - 2 * NODE_PAD_X - TOGGLE_WIDTH;
      box[3] = ROW_HEIGHT;
      return TRUE;
    }
  cx = bx + NODE_PAD_X;
  for (guint i = 0; i <= folded; i++)
    {
      double cw = ct_graph_chip_width (g_ptr_array_index (n->folded, i));

      /* chips that do not fit before the arrow are left out (an ellipsis) */
      if (cx + cw > bx + bw - NODE_PAD_X - TOGGLE_WIDTH + 0.5)
        return FALSE;
      if (i == folded)
        {
          box[0] = cx;
          box[1] = top;
          box[2] = cw;
          box[3] = CHIP_HEIGHT;
        }
      cx += cw + CHIP_GAP;
    }
  return TRUE;
}

gboolean
ct_graph_scene_folded_toggle_box (const CtGraphScene *scene, guint node, double *box)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  double bx, by, bw, bh;

  if (n == NULL || n->folded->len == 0)
    return FALSE;
  ct_graph_scene_node_box (scene, node, &bx, &by, &bw, &bh);
  box[0] = bx + bw - NODE_PAD_X - TOGGLE_WIDTH + 2;
  box[1] = folded_top (scene, node, n);
  box[2] = TOGGLE_WIDTH;
  box[3] = scene->expanded[node] ? ROW_HEIGHT : CHIP_HEIGHT;
  return TRUE;
}

static gboolean
box_contains (const double *box, double pad, double x, double y)
{
  return x >= box[0] - pad && x <= box[0] + box[2] + pad && y >= box[1] - pad
         && y <= box[1] + box[3] + pad;
}

int
ct_graph_scene_folded_at (const CtGraphScene *scene, guint node, double x, double y,
                          gboolean *toggle)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  double box[4];

  *toggle = FALSE;
  if (n == NULL)
    return -1;
  /* the arrow is small: a few pixels of slack round it */
  if (ct_graph_scene_folded_toggle_box (scene, node, box) && box_contains (box, 3, x, y))
    {
      *toggle = TRUE;
      return -1;
    }
  for (guint i = 0; i < n->folded->len; i++)
    if (ct_graph_scene_folded_box (scene, node, i, box) && box_contains (box, 1, x, y))
      return (int) i;
  return -1;
}

static double
segment_distance2 (CtGraphPoint a, CtGraphPoint b, double x, double y)
{
  double dx = b.x - a.x, dy = b.y - a.y;
  double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((x - a.x) * dx + (y - a.y) * dy) / len2 : 0;
  double px, py;

  t = CLAMP (t, 0, 1);
  px = a.x + t * dx - x;
  py = a.y + t * dy - y;
  return px * px + py * py;
}

static CtGraphPoint
bezier (CtGraphPoint a, CtGraphPoint c1, CtGraphPoint c2, CtGraphPoint b, double t)
{
  double u = 1 - t;
  CtGraphPoint p;
  p.x = u * u * u * a.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * b.x;
  p.y = u * u * u * a.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * b.y;
  return p;
}

/* The squared distance from X, Y to the curve from A to B as
 * ct_graph_path_edge() draws it: short chords (about 2 px of the control
 * polygon each), so that a point the line covers is never farther than
 * a fraction of a pixel from them. */
static double
curve_distance2 (gboolean lr, CtGraphPoint a, CtGraphPoint b, double x, double y)
{
  CtGraphPoint c1, c2, prev = a;
  double len, best = G_MAXDOUBLE;
  int steps;

  if (ct_graph_points_aligned (lr, a, b))
    return segment_distance2 (a, b, x, y);
  ct_graph_segment_controls (lr, a, b, &c1, &c2);
  len = hypot (c1.x - a.x, c1.y - a.y) + hypot (c2.x - c1.x, c2.y - c1.y)
        + hypot (b.x - c2.x, b.y - c2.y);
  steps = CLAMP ((int) ceil (len / 2), 8, 2048);
  for (int s = 1; s <= steps; s++)
    {
      CtGraphPoint q = bezier (a, c1, c2, b, (double) s / steps);

      best = MIN (best, segment_distance2 (prev, q, x, y));
      prev = q;
    }
  return best;
}

int
ct_graph_scene_edge_at (const CtGraphScene *scene, double x, double y, double tolerance)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;
  int best = -1;
  double best_d = tolerance * tolerance;
  /* controls reach this far beyond a short segment's ends */
  double margin = tolerance + 12;

  for (guint e = 0; e < ct_graph_model_n_edges (scene->model); e++)
    {
      CtGraphEdgePoints buf = { 0 };
      guint n;
      const CtGraphPoint *p = ct_graph_scene_edge_points (scene, e, &buf, &n);
      CtGraphPoint last, tip;
      double x0, y0, x1, y1, d;

      ct_graph_points_bounds (p, n, &x0, &y0, &x1, &y1);
      if (n < 2 || x < x0 - margin || x > x1 + margin || y < y0 - margin || y > y1 + margin)
        {
          ct_graph_edge_points_clear (&buf);
          continue;
        }
      /* as drawn: the curve stops short of the port, where the arrow head
       * runs on to its tip */
      last = tip = p[n - 1];
      if (lr)
        {
          last.x -= CT_GRAPH_EDGE_END_TRIM;
          tip.x -= PORT_RADIUS;
        }
      else
        {
          last.y -= CT_GRAPH_EDGE_END_TRIM;
          tip.y -= PORT_RADIUS;
        }
      d = segment_distance2 (last, tip, x, y);
      for (guint i = 1; i < n; i++)
        d = MIN (d, curve_distance2 (lr, p[i - 1], i == n - 1 ? last : p[i], x, y));
      if (d < best_d)
        {
          best_d = d;
          best = (int) e;
        }
      ct_graph_edge_points_clear (&buf);
    }
  return best;
}
