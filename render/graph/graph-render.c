/* graph-render.c: painting a scene with cairo (see graph-render.h): the
 * palettes, edges with their arrow heads and port labels, node boxes with
 * their header, name, detail, folded layers and ports. No GTK here: the
 * same code draws the canvas, the tests' images and `cortado-cli draw`. */
#include "graph-scene-private.h"

#include <math.h>
#include <string.h>

/* Palettes */

/* Each colour of the two looks side by side: light, then dark. */
#define FAMILY(f) G_STRUCT_OFFSET (CtGraphPalette, family) + (f) * sizeof (CtGraphColor)

static const struct {
  gsize offset;
  guint32 light, dark;
} palette_colours[] = {
  { G_STRUCT_OFFSET (CtGraphPalette, background), 0xfafafb, 0x1d1d21 },
  { G_STRUCT_OFFSET (CtGraphPalette, grid), 0xdcdce2, 0x34343b },
  { G_STRUCT_OFFSET (CtGraphPalette, node_body), 0xffffff, 0x2d2d33 },
  { G_STRUCT_OFFSET (CtGraphPalette, node_border), 0xc9c9d1, 0x4a4a54 },
  { G_STRUCT_OFFSET (CtGraphPalette, text), 0x1f1f26, 0xeeeef2 },
  { G_STRUCT_OFFSET (CtGraphPalette, text_dim), 0x6a6a78, 0xa4a4b2 },
  { G_STRUCT_OFFSET (CtGraphPalette, edge), 0x8e8e9c, 0x7e7e8e },
  { G_STRUCT_OFFSET (CtGraphPalette, edge_label), 0x55556a, 0xb4b4c4 },
  { G_STRUCT_OFFSET (CtGraphPalette, port), 0x77778a, 0x9a9aae },
  { G_STRUCT_OFFSET (CtGraphPalette, error), 0xe01b24, 0xff5a5f },
  { G_STRUCT_OFFSET (CtGraphPalette, accent), 0x3584e4, 0x78aeed },
  { G_STRUCT_OFFSET (CtGraphPalette, highlight), 0xf5a300, 0xf8c440 },
  { FAMILY (CT_GRAPH_FAMILY_DATA), 0x7d4fb0, 0x8d5fc2 },           /* purple */
  { FAMILY (CT_GRAPH_FAMILY_VISION), 0x2a6fc9, 0x3a7bd5 },         /* blue */
  { FAMILY (CT_GRAPH_FAMILY_NEURON), 0xc4531e, 0xc9622c },         /* orange */
  { FAMILY (CT_GRAPH_FAMILY_NORMALIZATION), 0x26885a, 0x2f9566 },  /* green */
  { FAMILY (CT_GRAPH_FAMILY_COMMON), 0x16808f, 0x1f8f9e },         /* teal */
  { FAMILY (CT_GRAPH_FAMILY_LOSS), 0xbf2841, 0xc43a52 },           /* crimson */
  { FAMILY (CT_GRAPH_FAMILY_RECURRENT), 0x9a6a0c, 0xa8781a },      /* ochre */
  { FAMILY (CT_GRAPH_FAMILY_UTILITY), 0x5d6472, 0x6a7282 },        /* slate */
  { FAMILY (CT_GRAPH_FAMILY_OTHER), 0x48484f, 0x5a5a63 },
};

static void
fill_palette (CtGraphPalette *palette, gboolean dark)
{
  palette->dark = dark;
  for (guint i = 0; i < G_N_ELEMENTS (palette_colours); i++)
    {
      guint32 hex = dark ? palette_colours[i].dark : palette_colours[i].light;
      CtGraphColor *c = G_STRUCT_MEMBER_P (palette, palette_colours[i].offset);

      c->r = (hex >> 16 & 0xff) / 255.0;
      c->g = (hex >> 8 & 0xff) / 255.0;
      c->b = (hex & 0xff) / 255.0;
      c->a = 1.0;
    }
}

const CtGraphPalette *
ct_graph_palette_get (gboolean dark)
{
  static CtGraphPalette palettes[2];
  static gsize filled;

  if (g_once_init_enter (&filled))
    {
      fill_palette (&palettes[0], FALSE);
      fill_palette (&palettes[1], TRUE);
      g_once_init_leave (&filled, 1);
    }
  return &palettes[dark ? 1 : 0];
}

static void
set_color (cairo_t *cr, const CtGraphColor *c, double alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, c->a * alpha);
}

void
ct_graph_path_edge (cairo_t *cr, gboolean lr, const CtGraphPoint *p, guint n, double end_trim)
{
  CtGraphPoint last = p[n - 1];

  /* stop short of the target so the arrow head ends at the port */
  if (lr)
    last.x -= end_trim;
  else
    last.y -= end_trim;
  cairo_move_to (cr, p[0].x, p[0].y);
  for (guint i = 1; i < n; i++)
    {
      CtGraphPoint b = i == n - 1 ? last : p[i];
      CtGraphPoint c1, c2;
      if (ct_graph_points_aligned (lr, p[i - 1], b))
        {
          cairo_line_to (cr, b.x, b.y);
          continue;
        }
      ct_graph_segment_controls (lr, p[i - 1], b, &c1, &c2);
      cairo_curve_to (cr, c1.x, c1.y, c2.x, c2.y, b.x, b.y);
    }
}

static void
arrow_head (cairo_t *cr, gboolean lr, CtGraphPoint tip)
{
  double len = 7, half = 3.5;

  if (lr)
    {
      cairo_move_to (cr, tip.x, tip.y);
      cairo_line_to (cr, tip.x - len, tip.y - half);
      cairo_line_to (cr, tip.x - len, tip.y + half);
    }
  else
    {
      cairo_move_to (cr, tip.x, tip.y);
      cairo_line_to (cr, tip.x - half, tip.y - len);
      cairo_line_to (cr, tip.x + half, tip.y - len);
    }
  cairo_close_path (cr);
  cairo_fill (cr);
}

static gboolean
outside_clip (const double *clip, double x0, double y0, double x1, double y1, double margin)
{
  return clip != NULL && (x1 + margin < clip[0] || y1 + margin < clip[1]
                          || x0 - margin > clip[0] + clip[2] || y0 - margin > clip[1] + clip[3]);
}

/* The label for a node's top port: blob name when it says something the
 * node's name does not, and the shape. NULL when there is nothing to say. */
static char *
port_label (const CtGraphScene *scene, guint node, guint port, const char **shape_out)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  const char *blob = g_ptr_array_index (n->tops, port);
  const char *shape = NULL;
  guint n_out;
  const guint *out = ct_graph_model_node_out_edges (scene->model, node, &n_out);
  gboolean show_name = !ct_graph_has_port_row (n, scene->rankdir)
                       && (n->tops->len > 1 || strcmp (blob, n->name) != 0);

  for (guint i = 0; i < n_out && shape == NULL; i++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (scene->model, out[i]);
      if (edge->from_port == port)
        shape = edge->shape;
    }
  *shape_out = shape;
  if (ct_graph_has_port_row (n, scene->rankdir))
    return NULL;  /* named, with the shape, inside the node */
  if (!show_name && shape == NULL)
    return NULL;
  return g_strdup (show_name ? blob : "");
}

/* Whether a top port's label goes before it (left in TB, above in LR)
 * rather than after: when the edge leaving it heads that way, the label
 * goes on the other side. A fan-out leaves as one stem; its label goes
 * after unless every branch turns that way. */
static gboolean
label_goes_before (const CtGraphScene *scene, guint node, guint port, CtGraphPoint p)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;
  guint n_out, n_after = 0, n_edges = 0;
  const guint *out = ct_graph_model_node_out_edges (scene->model, node, &n_out);

  for (guint k = 0; k < n_out; k++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (scene->model, out[k]);
      const CtGraphLayoutRoute *route = &scene->layout->routes[out[k]];
      CtGraphPoint next;
      double d;

      if (edge->from_port != port)
        continue;
      next = route->n_points > 0 ? route->points[0]
                                 : ct_graph_scene_port_position (scene, edge->to_node, FALSE,
                                                                 edge->to_port);
      d = lr ? next.y - p.y : next.x - p.x;
      n_edges++;
      if (d > 4)
        n_after++;
    }
  /* several ports: the left half label to the left, the right half to the
   * right, so that neighbours' labels never meet */
  {
    const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
    guint count = n->tops->len;
    if (count > 1 && 2 * port + 1 < count)
      return TRUE;
    if (count > 1 && 2 * port + 1 > count)
      return FALSE;
  }
  return n_edges > 0 && n_after == n_edges;
}

static void
render_port_labels (cairo_t *cr, const CtGraphScene *scene, const CtGraphPalette *palette,
                    const double *clip)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;

  for (guint i = 0; i < ct_graph_model_n_nodes (scene->model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (scene->model, i);
      guint n_out;

      ct_graph_model_node_out_edges (scene->model, i, &n_out);
      if (n_out == 0)
        continue;
      for (guint port = 0; port < node->tops->len; port++)
        {
          const char *shape;
          g_autofree char *name = port_label (scene, i, port, &shape);
          CtGraphPoint p = ct_graph_scene_port_position (scene, i, TRUE, port);
          double x, cy, name_w, total_w;
          gboolean before;

          if (name == NULL)
            continue;
          if (outside_clip (clip, p.x, p.y, p.x, p.y, 200))
            continue;
          name_w = *name != '\0' ? ct_graph_text_width (CT_GRAPH_TEXT_LABEL, name) : 0;
          total_w = name_w + (shape != NULL ? ct_graph_text_width (CT_GRAPH_TEXT_LABEL, shape) : 0)
                    + (name_w > 0 && shape != NULL ? 6 : 0);
          /* beside the edge's first stretch, on the side it does not turn to */
          before = label_goes_before (scene, i, port, p);
          if (lr)
            {
              x = p.x + 5;
              cy = before ? p.y - 9 : p.y + 9;
            }
          else
            {
              x = before ? p.x - LABEL_GAP - 1 - total_w : p.x + LABEL_GAP + 1;
              cy = p.y + 10;
            }
          /* a veil of background so that edges passing behind do not cross
           * out the text */
          ct_graph_rounded_rect (cr, x - 2, cy - 6.5, total_w + 4, 13, 3);
          set_color (cr, &palette->background, 0.8);
          cairo_fill (cr);
          if (*name != '\0')
            ct_graph_text_draw (cr, CT_GRAPH_TEXT_LABEL, name, x, cy, 0, &palette->text_dim);
          if (shape != NULL)
            ct_graph_text_draw (cr, CT_GRAPH_TEXT_LABEL, shape,
                                x + name_w + (name_w > 0 ? 6 : 0), cy, 0, &palette->edge_label);
        }
    }
}

void
ct_graph_render_edges (cairo_t *cr, const CtGraphScene *scene, const CtGraphPalette *palette,
                       const double *clip, int highlight_node, gboolean labels)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;

  cairo_save (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (int pass = 0; pass < 2; pass++)
    for (guint e = 0; e < ct_graph_model_n_edges (scene->model); e++)
      {
        const CtGraphEdge *edge = ct_graph_model_get_edge (scene->model, e);
        gboolean hot = highlight_node >= 0 && ((int) edge->from_node == highlight_node
                                               || (int) edge->to_node == highlight_node);
        CtGraphEdgePoints buf = { 0 };
        guint n;
        const CtGraphPoint *p;
        double x0, y0, x1, y1;

        /* highlighted edges on top */
        if (hot != (pass == 1))
          continue;
        p = ct_graph_scene_edge_points (scene, e, &buf, &n);
        ct_graph_points_bounds (p, n, &x0, &y0, &x1, &y1);
        if (!outside_clip (clip, x0, y0, x1, y1, 20))
          {
            const CtGraphColor *color = hot ? &palette->accent : &palette->edge;
            set_color (cr, color, 1);
            cairo_set_line_width (cr, hot ? 2.2 : 1.4);
            ct_graph_path_edge (cr, lr, p, n, PORT_RADIUS + 5);
            cairo_stroke (cr);
            {
              CtGraphPoint tip = p[n - 1];
              if (lr)
                tip.x -= PORT_RADIUS;
              else
                tip.y -= PORT_RADIUS;
              arrow_head (cr, lr, tip);
            }
          }
        ct_graph_edge_points_clear (&buf);
      }
  if (labels)
    render_port_labels (cr, scene, palette, clip);
  cairo_restore (cr);
}

void
ct_graph_render_edge_selected (cairo_t *cr, const CtGraphScene *scene,
                               const CtGraphPalette *palette, guint edge)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;
  CtGraphEdgePoints buf = { 0 };
  CtGraphPoint tip;
  guint n;
  const CtGraphPoint *p;

  if (edge >= ct_graph_model_n_edges (scene->model))
    return;
  p = ct_graph_scene_edge_points (scene, edge, &buf, &n);
  cairo_save (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  /* a soft halo wider than any run look (a health strip shows through
   * it), then the edge itself in the accent colour: the selection reads
   * over dashed, bold and health strips alike, at any zoom */
  ct_graph_path_edge (cr, lr, p, n, CT_GRAPH_EDGE_END_TRIM);
  set_color (cr, &palette->accent, 0.4);
  cairo_set_line_width (cr, 13);
  cairo_stroke_preserve (cr);
  set_color (cr, &palette->accent, 1);
  cairo_set_line_width (cr, 3);
  cairo_stroke (cr);
  tip = p[n - 1];
  if (lr)
    tip.x -= PORT_RADIUS;
  else
    tip.y -= PORT_RADIUS;
  arrow_head (cr, lr, tip);
  cairo_restore (cr);
  ct_graph_edge_points_clear (&buf);
}

/* Nodes */

void
ct_graph_rounded_rect (cairo_t *cr, double x, double y, double w, double h, double r)
{
  r = MIN (r, MIN (w, h) / 2);
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_arc (cr, x + w - r, y + h - r, r, 0, G_PI / 2);
  cairo_arc (cr, x + r, y + h - r, r, G_PI / 2, G_PI);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
}

/* The top part of a rounded rectangle: rounded top corners, square bottom. */
static void
header_path (cairo_t *cr, double x, double y, double w, double h, double r)
{
  cairo_new_sub_path (cr);
  cairo_move_to (cr, x, y + h);
  cairo_arc (cr, x + r, y + r, r, G_PI, 3 * G_PI / 2);
  cairo_arc (cr, x + w - r, y + r, r, -G_PI / 2, 0);
  cairo_line_to (cr, x + w, y + h);
  cairo_close_path (cr);
}

static void
mix (CtGraphColor *out, const CtGraphColor *a, const CtGraphColor *b, double t)
{
  out->r = a->r + (b->r - a->r) * t;
  out->g = a->g + (b->g - a->g) * t;
  out->b = a->b + (b->b - a->b) * t;
  out->a = 1;
}

static void
draw_badge (cairo_t *cr, const char *text, double right, double cy, const CtGraphColor *fill,
            const CtGraphColor *ink)
{
  double w = ct_graph_text_width (CT_GRAPH_TEXT_BADGE, text) + 8;

  ct_graph_rounded_rect (cr, right - w, cy - 6.5, w, 13, 6.5);
  set_color (cr, fill, 1);
  cairo_fill (cr);
  ct_graph_text_draw (cr, CT_GRAPH_TEXT_BADGE, text, right - w + 4, cy, 0, ink);
}

/* The disclosure arrow: pointing right while folded, down when unfolded. */
static void
draw_toggle (cairo_t *cr, const CtGraphScene *scene, guint node, const CtGraphPalette *palette)
{
  double box[4], cx, cy;

  if (!ct_graph_scene_folded_toggle_box (scene, node, box))
    return;
  cx = box[0] + box[2] / 2;
  cy = box[1] + box[3] / 2;
  if (scene->expanded[node])
    {
      cairo_move_to (cr, cx - 4, cy - 2);
      cairo_line_to (cr, cx + 4, cy - 2);
      cairo_line_to (cr, cx, cy + 3);
    }
  else
    {
      cairo_move_to (cr, cx - 2, cy - 4);
      cairo_line_to (cr, cx + 3, cy);
      cairo_line_to (cr, cx - 2, cy + 4);
    }
  cairo_close_path (cr);
  set_color (cr, &palette->text_dim, 1);
  cairo_fill (cr);
}

/* NODE's folded layers, as chips or (expanded) rows; those whose bit is set
 * in SELECTED are marked as selected. */
static void
draw_folded (cairo_t *cr, const CtGraphScene *scene, guint node, const CtGraphNode *n,
             const CtGraphPalette *palette, guint32 selected)
{
  double box[4], arrow[4], next_x, y, w, h;

  ct_graph_scene_node_box (scene, node, &next_x, &y, &w, &h);
  next_x += NODE_PAD_X;
  ct_graph_scene_folded_toggle_box (scene, node, arrow);
  for (guint i = 0; i < n->folded->len; i++)
    {
      const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
      gboolean is_selected = i < 32 && (selected & (1u << i)) != 0;
      double cy;

      if (!ct_graph_scene_folded_box (scene, node, i, box))
        {
          ct_graph_text_draw (cr, CT_GRAPH_TEXT_CHIP, "…", next_x, arrow[1] + CHIP_HEIGHT / 2,
                              0, &palette->text_dim);
          break;
        }
      cy = box[1] + box[3] / 2;
      next_x = box[0] + box[2] + CHIP_GAP;
      if (scene->expanded[node])
        {
          g_autofree char *row = ct_graph_folded_row_text (f);

          if (is_selected)
            {
              ct_graph_rounded_rect (cr, box[0] - 4, box[1], box[2] + 6, box[3], 4);
              set_color (cr, &palette->accent, 0.2);
              cairo_fill (cr);
            }
          cairo_arc (cr, box[0] + 3, cy, 3.5, 0, 2 * G_PI);
          set_color (cr, &palette->family[f->family], 1);
          cairo_fill (cr);
          ct_graph_text_draw (cr, CT_GRAPH_TEXT_DETAIL, row, box[0] + 11, cy, box[2] - 11,
                              f->error != NULL ? &palette->error : &palette->text);
        }
      else
        {
          CtGraphColor fill, ink;

          mix (&fill, &palette->family[f->family], &palette->node_body,
               palette->dark ? 0.6 : 0.84);
          mix (&ink, &palette->family[f->family], &palette->text, palette->dark ? 0.55 : 0.25);
          ct_graph_rounded_rect (cr, box[0], box[1], box[2], box[3], CHIP_HEIGHT / 2);
          set_color (cr, &fill, 1);
          cairo_fill_preserve (cr);
          if (f->error != NULL)
            {
              set_color (cr, &palette->error, 1);
              cairo_set_line_width (cr, 1.2);
              cairo_stroke (cr);
            }
          else
            cairo_new_path (cr);
          if (is_selected)
            {
              ct_graph_rounded_rect (cr, box[0] - 2, box[1] - 2, box[2] + 4, box[3] + 4,
                                     CHIP_HEIGHT / 2 + 2);
              set_color (cr, &palette->accent, 1);
              cairo_set_line_width (cr, 2);
              cairo_stroke (cr);
            }
          ct_graph_text_draw (cr, CT_GRAPH_TEXT_CHIP, f->type, box[0] + 6, cy, 0, &ink);
        }
    }
  draw_toggle (cr, scene, node, palette);
}

static void
draw_port_row (cairo_t *cr, const CtGraphScene *scene, guint node, const CtGraphNode *n,
               const CtGraphPalette *palette)
{
  double x, y, w, h, cy;
  double spacing;

  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  /* the names sit above the ports, not on them: half hidden by a port
   * circle and the border, "data" and "label" could not be read */
  cy = y + h - PORT_ROW_CLEAR - (PORT_ROW_HEIGHT - PORT_ROW_CLEAR) / 2;
  spacing = (w - 16) / n->tops->len;
  cairo_move_to (cr, x + 6, y + h - PORT_ROW_HEIGHT - 0.5);
  cairo_line_to (cr, x + w - 6, y + h - PORT_ROW_HEIGHT - 0.5);
  set_color (cr, &palette->node_border, 0.7);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  for (guint port = 0; port < n->tops->len; port++)
    {
      const char *name = g_ptr_array_index (n->tops, port);
      const char *shape = ct_graph_top_shape (scene->model, node, port);
      CtGraphPoint p = ct_graph_scene_port_position (scene, node, TRUE, port);
      double name_w = ct_graph_text_width (CT_GRAPH_TEXT_LABEL, name);
      double tw = MIN (ct_graph_port_entry_width (n, shape, port), spacing - 4);
      double left = p.x - tw / 2;

      ct_graph_text_draw (cr, CT_GRAPH_TEXT_LABEL, name, left, cy, spacing - 4, &palette->text);
      if (shape != NULL && name_w + 5 < tw)
        ct_graph_text_draw (cr, CT_GRAPH_TEXT_LABEL, shape, left + name_w + 5, cy, tw - name_w - 5,
                            &palette->edge_label);
    }
}

void
ct_graph_render_node (cairo_t *cr, const CtGraphScene *scene, guint node,
                      CtGraphNodeState state, guint32 folded_selected,
                      const CtGraphPalette *palette)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  const CtGraphColor *family = &palette->family[n->family];
  double x, y, w, h, cy, right;
  const char *badge = ct_graph_phase_badge (n->phase);
  CtGraphColor white = { 1, 1, 1, 1 };

  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  cairo_save (cr);

  /* rings outside the box: step-through highlight, selection */
  if (state & CT_GRAPH_NODE_STATE_HIGHLIGHT)
    {
      ct_graph_rounded_rect (cr, x - 6, y - 6, w + 12, h + 12, NODE_RADIUS + 6);
      set_color (cr, &palette->highlight, 0.35);
      cairo_fill (cr);
      ct_graph_rounded_rect (cr, x - 3.5, y - 3.5, w + 7, h + 7, NODE_RADIUS + 3.5);
      set_color (cr, &palette->highlight, 1);
      cairo_set_line_width (cr, 3);
      cairo_stroke (cr);
    }
  if (state & (CT_GRAPH_NODE_STATE_SELECTED | CT_GRAPH_NODE_STATE_DROP_TARGET))
    {
      ct_graph_rounded_rect (cr, x - 3.5, y - 3.5, w + 7, h + 7, NODE_RADIUS + 3.5);
      set_color (cr, &palette->accent, state & CT_GRAPH_NODE_STATE_SELECTED ? 1 : 0.6);
      cairo_set_line_width (cr, 2.5);
      cairo_stroke (cr);
    }

  if (state & CT_GRAPH_NODE_STATE_RUN_FAILED)
    {
      ct_graph_rounded_rect (cr, x - 3.5, y - 3.5, w + 7, h + 7, NODE_RADIUS + 3.5);
      set_color (cr, &palette->error, 1);
      cairo_set_line_width (cr, 3);
      cairo_stroke (cr);
    }

  /* shadow */
  ct_graph_rounded_rect (cr, x, y + 1.5, w, h, NODE_RADIUS);
  cairo_set_source_rgba (cr, 0, 0, 0, palette->dark ? 0.35 : 0.10);
  cairo_fill (cr);

  /* body and header */
  ct_graph_rounded_rect (cr, x, y, w, h, NODE_RADIUS);
  set_color (cr, &palette->node_body, 1);
  cairo_fill (cr);
  header_path (cr, x, y, w, HEADER_HEIGHT, NODE_RADIUS);
  if (state & CT_GRAPH_NODE_STATE_HOVER)
    {
      CtGraphColor lighter;
      mix (&lighter, family, &white, 0.12);
      set_color (cr, &lighter, 1);
    }
  else
    set_color (cr, family, 1);
  cairo_fill (cr);

  /* border: red for errors, the family colour for focus, quiet otherwise */
  ct_graph_rounded_rect (cr, x + 0.5, y + 0.5, w - 1, h - 1, NODE_RADIUS - 0.5);
  if (n->error != NULL)
    {
      set_color (cr, &palette->error, 1);
      cairo_set_line_width (cr, 2.2);
    }
  else if (state & CT_GRAPH_NODE_STATE_FOCUSED)
    {
      set_color (cr, &palette->accent, 1);
      cairo_set_line_width (cr, 2);
    }
  else
    {
      set_color (cr, &palette->node_border, 1);
      cairo_set_line_width (cr, 1);
    }
  cairo_stroke (cr);

  /* header text, error mark, phase badge */
  cy = y + HEADER_HEIGHT / 2;
  right = x + w - 6;
  if (n->error != NULL)
    {
      CtGraphColor error_ink = palette->error;
      cairo_arc (cr, right - 6, cy, 6.5, 0, 2 * G_PI);
      set_color (cr, &white, 1);
      cairo_fill (cr);
      ct_graph_text_draw (cr, CT_GRAPH_TEXT_BADGE, "!", right - 7.8, cy, 0, &error_ink);
      right -= 18;
    }
  if (badge != NULL)
    {
      CtGraphColor fill = { 1, 1, 1, 0.85 };
      draw_badge (cr, badge, right, cy, &fill, family);
      right -= ct_graph_text_width (CT_GRAPH_TEXT_BADGE, badge) + 12;
    }
  ct_graph_text_draw (cr, CT_GRAPH_TEXT_TYPE, n->type, x + NODE_PAD_X, cy, right - x - NODE_PAD_X,
                      &white);

  /* body: name, detail, folded layers */
  y += HEADER_HEIGHT + BODY_PAD;
  ct_graph_text_draw (cr, CT_GRAPH_TEXT_NAME, n->name, x + NODE_PAD_X, y + NAME_HEIGHT / 2,
                      w - 2 * NODE_PAD_X, &palette->text);
  y += NAME_HEIGHT;
  if (n->detail != NULL)
    {
      ct_graph_text_draw (cr, CT_GRAPH_TEXT_DETAIL, n->detail, x + NODE_PAD_X,
                          y + DETAIL_HEIGHT / 2, w - 2 * NODE_PAD_X, &palette->text_dim);
      y += DETAIL_HEIGHT;
    }
  if (n->folded->len > 0)
    draw_folded (cr, scene, node, n, palette, folded_selected);
  if (ct_graph_has_port_row (n, scene->rankdir))
    draw_port_row (cr, scene, node, n, palette);
  cairo_restore (cr);
  ct_graph_render_run_mark (cr, scene, node, state, palette);
}

static void
draw_port (cairo_t *cr, CtGraphPoint p, const CtGraphPalette *palette, gboolean connected)
{
  cairo_arc (cr, p.x, p.y, PORT_RADIUS, 0, 2 * G_PI);
  set_color (cr, &palette->node_body, 1);
  cairo_fill_preserve (cr);
  set_color (cr, connected ? &palette->port : &palette->error, 1);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
}

void
ct_graph_render_ports (cairo_t *cr, const CtGraphScene *scene, guint node,
                       const CtGraphPalette *palette)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  guint n_in;
  const guint *in = ct_graph_model_node_in_edges (scene->model, node, &n_in);

  cairo_save (cr);
  for (guint port = 0; port < n->bottoms->len; port++)
    {
      gboolean connected = FALSE;
      for (guint i = 0; i < n_in && !connected; i++)
        connected = ct_graph_model_get_edge (scene->model, in[i])->to_port == port;
      /* a bottom nothing produces is a mistake; show it */
      draw_port (cr, ct_graph_scene_port_position (scene, node, FALSE, port), palette,
                 connected);
    }
  for (guint port = 0; port < n->tops->len; port++)
    draw_port (cr, ct_graph_scene_port_position (scene, node, TRUE, port), palette, TRUE);
  cairo_restore (cr);
}

void
ct_graph_render_scene (cairo_t *cr, const CtGraphScene *scene, const CtGraphPalette *palette)
{
  guint n = ct_graph_model_n_nodes (scene->model);

  ct_graph_render_edges (cr, scene, palette, NULL, -1, TRUE);
  for (guint i = 0; i < n; i++)
    ct_graph_render_node (cr, scene, i, CT_GRAPH_NODE_STATE_NONE, 0, palette);
  for (guint i = 0; i < n; i++)
    ct_graph_render_ports (cr, scene, i, palette);
}

