/* graph-render.c: measuring, laying out and drawing a CtGraphModel with
 * cairo and Pango (see graph-render.h). No GTK here: `cortado-cli draw`
 * and the widget tests use it without a display.
 *
 * Text is measured and drawn through one Pango context at 96 dpi with
 * metric hinting off, so that sizes are in pixels and do not change with
 * zoom: a node measured once fits its text at every scale. */
#include "graph-render.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#define FONT_FAMILY "Cantarell, DejaVu Sans, sans-serif"

/* Node geometry, in pixels at 100 %. */
#define NODE_MIN_WIDTH 112.0
#define NODE_PAD_X 10.0
#define NODE_RADIUS 7.0
#define HEADER_HEIGHT 22.0
#define NAME_HEIGHT 16.0
#define DETAIL_HEIGHT 14.0
#define BODY_PAD 5.0
#define CHIP_HEIGHT 16.0
#define CHIP_GAP 4.0
#define ROW_HEIGHT 17.0
#define PORT_RADIUS 3.5
#define PORT_SPACING_MAX 46.0
#define LABEL_GAP 5.0
#define TRUNK_LENGTH 22.0
#define PORT_ROW_HEIGHT 14.0

typedef enum {
  TEXT_TYPE,    /* header: bold */
  TEXT_NAME,
  TEXT_DETAIL,
  TEXT_CHIP,
  TEXT_LABEL,
  TEXT_BADGE,
  N_TEXT_STYLES
} TextStyle;

static const struct {
  double size;
  PangoWeight weight;
} text_styles[N_TEXT_STYLES] = {
  { 12.0, PANGO_WEIGHT_BOLD },
  { 11.5, PANGO_WEIGHT_NORMAL },
  { 10.0, PANGO_WEIGHT_NORMAL },
  { 9.5, PANGO_WEIGHT_SEMIBOLD },
  { 9.5, PANGO_WEIGHT_NORMAL },
  { 8.0, PANGO_WEIGHT_BOLD },
};

static PangoContext *
text_context (void)
{
  static PangoContext *context;

  if (g_once_init_enter (&context))
    {
      PangoFontMap *map = pango_cairo_font_map_get_default ();
      PangoContext *c = pango_font_map_create_context (map);
      cairo_font_options_t *options = cairo_font_options_create ();

      cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
      cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
      cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
      pango_cairo_context_set_font_options (c, options);
      pango_cairo_context_set_resolution (c, 96);
      pango_context_set_round_glyph_positions (c, FALSE);
      cairo_font_options_destroy (options);
      g_once_init_leave (&context, c);
    }
  return context;
}

static PangoFontDescription *
style_font (TextStyle style)
{
  static PangoFontDescription *fonts[N_TEXT_STYLES];

  if (fonts[style] == NULL)
    {
      PangoFontDescription *desc = pango_font_description_from_string (FONT_FAMILY);
      pango_font_description_set_absolute_size (desc, text_styles[style].size * PANGO_SCALE);
      pango_font_description_set_weight (desc, text_styles[style].weight);
      fonts[style] = desc;
    }
  return fonts[style];
}

static PangoLayout *
text_layout (TextStyle style, const char *text)
{
  PangoLayout *layout = pango_layout_new (text_context ());

  pango_layout_set_font_description (layout, style_font (style));
  pango_layout_set_text (layout, text, -1);
  return layout;
}

static double
text_width (TextStyle style, const char *text)
{
  g_autoptr(PangoLayout) layout = text_layout (style, text);
  PangoRectangle logical;

  pango_layout_get_extents (layout, NULL, &logical);
  return (double) logical.width / PANGO_SCALE;
}

/* Whether text of SIZE user units comes out below 9 device pixels on a
 * pixel surface (vector surfaces keep real text at any size). */
static gboolean
small_on_pixels (cairo_t *cr, double size)
{
  double dx = size, dy = 0;

  if (cairo_surface_get_type (cairo_get_target (cr)) != CAIRO_SURFACE_TYPE_IMAGE)
    return FALSE;
  cairo_user_to_device_distance (cr, &dx, &dy);
  return sqrt (dx * dx + dy * dy) < 9.0;
}

/* Draw TEXT with its left edge at X, vertically centred on CY; elided to
 * MAX_WIDTH when > 0. */
static void
draw_text (cairo_t *cr, TextStyle style, const char *text, double x, double cy,
           double max_width, const CtGraphColor *color)
{
  g_autoptr(PangoLayout) layout = text_layout (style, text);
  PangoRectangle logical;

  pango_cairo_update_context (cr, text_context ());
  pango_layout_context_changed (layout);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
    }
  pango_layout_get_extents (layout, NULL, &logical);
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a);
  cairo_move_to (cr, x, cy - (double) logical.height / PANGO_SCALE / 2);
  if (small_on_pixels (cr, text_styles[style].size))
    {
      /* cairo places glyphs on whole pixels: below ~9 px that spaces
       * letters unevenly ("Conv olution"); outlines land where they should */
      pango_cairo_layout_path (cr, layout);
      cairo_fill (cr);
    }
  else
    pango_cairo_show_layout (cr, layout);
  /* showing text leaves a current point, which the next arc would join */
  cairo_new_path (cr);
}

/* Palettes */

#define RGB(hex) { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, \
                   ((hex) & 0xff) / 255.0, 1.0 }

static const CtGraphPalette light_palette = {
  .dark = FALSE,
  .background = RGB (0xfafafb),
  .grid = RGB (0xdcdce2),
  .node_body = RGB (0xffffff),
  .node_border = RGB (0xc9c9d1),
  .text = RGB (0x1f1f26),
  .text_dim = RGB (0x6a6a78),
  .edge = RGB (0x8e8e9c),
  .edge_label = RGB (0x55556a),
  .port = RGB (0x77778a),
  .error = RGB (0xe01b24),
  .accent = RGB (0x3584e4),
  .highlight = RGB (0xf5a300),
  .family = {
    RGB (0x7d4fb0),  /* data: purple */
    RGB (0x2a6fc9),  /* vision: blue */
    RGB (0xc4531e),  /* neuron: orange */
    RGB (0x26885a),  /* normalization: green */
    RGB (0x16808f),  /* common: teal */
    RGB (0xbf2841),  /* loss: crimson */
    RGB (0x9a6a0c),  /* recurrent: ochre */
    RGB (0x5d6472),  /* utility: slate */
    RGB (0x48484f),  /* other */
  },
};

static const CtGraphPalette dark_palette = {
  .dark = TRUE,
  .background = RGB (0x1d1d21),
  .grid = RGB (0x34343b),
  .node_body = RGB (0x2d2d33),
  .node_border = RGB (0x4a4a54),
  .text = RGB (0xeeeef2),
  .text_dim = RGB (0xa4a4b2),
  .edge = RGB (0x7e7e8e),
  .edge_label = RGB (0xb4b4c4),
  .port = RGB (0x9a9aae),
  .error = RGB (0xff5a5f),
  .accent = RGB (0x78aeed),
  .highlight = RGB (0xf8c440),
  .family = {
    RGB (0x8d5fc2),
    RGB (0x3a7bd5),
    RGB (0xc9622c),
    RGB (0x2f9566),
    RGB (0x1f8f9e),
    RGB (0xc43a52),
    RGB (0xa8781a),
    RGB (0x6a7282),
    RGB (0x5a5a63),
  },
};

const CtGraphPalette *
ct_graph_palette_get (gboolean dark)
{
  return dark ? &dark_palette : &light_palette;
}

static void
set_color (cairo_t *cr, const CtGraphColor *c, double alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, c->a * alpha);
}

/* Measuring nodes */

static const char *
phase_badge (CtGraphPhase phase)
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

static double
chip_width (const CtGraphFolded *folded)
{
  return text_width (TEXT_CHIP, folded->type) + 12;
}

static char *
folded_row_text (const CtGraphFolded *folded)
{
  return g_strdup_printf ("%s · %s", folded->type, folded->name);
}

/* The shape of the blob leaving top PORT of node NODE, or NULL. */
static const char *
top_shape (const CtGraphModel *model, guint node, guint port)
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
static double
port_entry_width (const CtGraphNode *node, const char *shape, guint port)
{
  double w = text_width (TEXT_LABEL, g_ptr_array_index (node->tops, port));
  if (shape != NULL)
    w += 5 + text_width (TEXT_LABEL, shape);
  return w;
}

/* Top to bottom, a node with several tops names them in a row above its
 * ports (outside, there would be no room for names and shapes side by
 * side). */
static gboolean
has_port_row (const CtGraphNode *node, CtGraphRankdir rankdir)
{
  return rankdir == CT_GRAPH_RANKDIR_TB && node->tops->len > 1;
}

static double
node_text_height (const CtGraphNode *node, gboolean expanded, CtGraphRankdir rankdir)
{
  double h = HEADER_HEIGHT + BODY_PAD + NAME_HEIGHT + BODY_PAD;

  if (has_port_row (node, rankdir))
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
  double header = text_width (TEXT_TYPE, node->type) + 2 * NODE_PAD_X;
  const char *badge = phase_badge (node->phase);

  if (badge != NULL)
    header += text_width (TEXT_BADGE, badge) + 14;
  if (node->error != NULL)
    header += 18;
  w = MAX (w, header);
  w = MAX (w, text_width (TEXT_NAME, node->name) + 2 * NODE_PAD_X);
  if (node->detail != NULL)
    w = MAX (w, text_width (TEXT_DETAIL, node->detail) + 2 * NODE_PAD_X);
  if (node->folded->len > 0)
    {
      double chips = 2 * NODE_PAD_X - CHIP_GAP;
      for (guint i = 0; i < node->folded->len; i++)
        {
          const CtGraphFolded *folded = g_ptr_array_index (node->folded, i);
          if (expanded)
            {
              g_autofree char *row = folded_row_text (folded);
              w = MAX (w, text_width (TEXT_DETAIL, row) + 2 * NODE_PAD_X + 12);
            }
          chips += chip_width (folded) + CHIP_GAP;
        }
      if (!expanded)
        w = MAX (w, chips);
    }
  /* room for the ports on both sides */
  w = MAX (w, MAX (node->bottoms->len, node->tops->len) * 22.0 + 12);
  if (has_port_row (node, rankdir))
    {
      double widest = 0;
      for (guint i = 0; i < node->tops->len; i++)
        widest = MAX (widest, port_entry_width (node, top_shape (model, index, i), i));
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
  if (index < 0 || strcmp (ct_graph_model_get_node (previous->model, index)->id, id) != 0)
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
                                       has_port_row (from, rankdir));
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
              const char *shape = top_shape (model, i, port);
              double w = shape != NULL ? text_width (TEXT_LABEL, shape) : 0;
              if (node->tops->len > 1 || strcmp (node->tops->pdata[port], node->name) != 0)
                w += text_width (TEXT_LABEL, node->tops->pdata[port]) + 6;
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
                               is_top && has_port_row (n, scene->rankdir));
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
ct_graph_scene_move_node (CtGraphScene *scene, guint node, double x, double y)
{
  g_return_if_fail (node < scene->layout->n_nodes);
  ct_graph_layout_move_node (scene->layout, node, x, y, scene->edge_specs);
}

/* Edge geometry: the port, the bend points, the port; consecutive points
 * joined by cubic curves with tangents along the rank axis, so edges leave
 * and enter ports straight and run straight through the ranks they cross. */

typedef struct {
  guint n;
  CtGraphPoint p[64];
  CtGraphPoint *heap;
} EdgePoints;

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

static const CtGraphPoint *
edge_points (const CtGraphScene *scene, guint e, EdgePoints *buf, guint *n_out)
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

static void
edge_points_clear (EdgePoints *buf)
{
  g_clear_pointer (&buf->heap, g_free);
}

/* The control points of the curve from A to B. */
static void
segment_controls (gboolean lr, CtGraphPoint a, CtGraphPoint b, CtGraphPoint *c1,
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

static gboolean
points_aligned (gboolean lr, CtGraphPoint a, CtGraphPoint b)
{
  return lr ? fabs (a.y - b.y) < 0.5 : fabs (a.x - b.x) < 0.5;
}

static void
path_edge (cairo_t *cr, gboolean lr, const CtGraphPoint *p, guint n, double end_trim)
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
      if (points_aligned (lr, p[i - 1], b))
        {
          cairo_line_to (cr, b.x, b.y);
          continue;
        }
      segment_controls (lr, p[i - 1], b, &c1, &c2);
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

static void
points_bounds (const CtGraphPoint *p, guint n, double *x0, double *y0, double *x1, double *y1)
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
  gboolean show_name = !has_port_row (n, scene->rankdir)
                       && (n->tops->len > 1 || strcmp (blob, n->name) != 0);

  for (guint i = 0; i < n_out && shape == NULL; i++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (scene->model, out[i]);
      if (edge->from_port == port)
        shape = edge->shape;
    }
  *shape_out = shape;
  if (has_port_row (n, scene->rankdir))
    return NULL;  /* named, with the shape, inside the node */
  if (!show_name && shape == NULL)
    return NULL;
  return g_strdup (show_name ? blob : "");
}

static void rounded_rect (cairo_t *cr, double x, double y, double w, double h, double r);

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
          name_w = *name != '\0' ? text_width (TEXT_LABEL, name) : 0;
          total_w = name_w + (shape != NULL ? text_width (TEXT_LABEL, shape) : 0)
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
          rounded_rect (cr, x - 2, cy - 6.5, total_w + 4, 13, 3);
          set_color (cr, &palette->background, 0.8);
          cairo_fill (cr);
          if (*name != '\0')
            draw_text (cr, TEXT_LABEL, name, x, cy, 0, &palette->text_dim);
          if (shape != NULL)
            draw_text (cr, TEXT_LABEL, shape, x + name_w + (name_w > 0 ? 6 : 0), cy, 0,
                       &palette->edge_label);
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
        EdgePoints buf = { 0 };
        guint n;
        const CtGraphPoint *p;
        double x0, y0, x1, y1;

        /* highlighted edges on top */
        if (hot != (pass == 1))
          continue;
        p = edge_points (scene, e, &buf, &n);
        points_bounds (p, n, &x0, &y0, &x1, &y1);
        if (!outside_clip (clip, x0, y0, x1, y1, 20))
          {
            const CtGraphColor *color = hot ? &palette->accent : &palette->edge;
            set_color (cr, color, 1);
            cairo_set_line_width (cr, hot ? 2.2 : 1.4);
            path_edge (cr, lr, p, n, PORT_RADIUS + 5);
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
        edge_points_clear (&buf);
      }
  if (labels)
    render_port_labels (cr, scene, palette, clip);
  cairo_restore (cr);
}

/* Nodes */

static void
rounded_rect (cairo_t *cr, double x, double y, double w, double h, double r)
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
  double w = text_width (TEXT_BADGE, text) + 8;

  rounded_rect (cr, right - w, cy - 6.5, w, 13, 6.5);
  set_color (cr, fill, 1);
  cairo_fill (cr);
  draw_text (cr, TEXT_BADGE, text, right - w + 4, cy, 0, ink);
}

static void
draw_folded (cairo_t *cr, const CtGraphScene *scene, guint node, const CtGraphNode *n,
             const CtGraphPalette *palette, double x, double y, double w)
{
  if (scene->expanded[node])
    {
      for (guint i = 0; i < n->folded->len; i++)
        {
          const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
          g_autofree char *row = folded_row_text (f);
          double cy = y + i * ROW_HEIGHT + ROW_HEIGHT / 2;

          cairo_arc (cr, x + NODE_PAD_X + 3, cy, 3.5, 0, 2 * G_PI);
          set_color (cr, &palette->family[f->family], 1);
          cairo_fill (cr);
          draw_text (cr, TEXT_DETAIL, row, x + NODE_PAD_X + 11, cy,
                     w - 2 * NODE_PAD_X - 11, f->error != NULL ? &palette->error
                                                               : &palette->text);
        }
      return;
    }
  {
    double cx = x + NODE_PAD_X;
    double cy = y + CHIP_HEIGHT / 2;
    for (guint i = 0; i < n->folded->len; i++)
      {
        const CtGraphFolded *f = g_ptr_array_index (n->folded, i);
        double cw = chip_width (f);
        CtGraphColor fill, ink;

        if (cx + cw > x + w - NODE_PAD_X + 0.5)
          {
            draw_text (cr, TEXT_CHIP, "…", cx, cy, 0, &palette->text_dim);
            break;
          }
        mix (&fill, &palette->family[f->family], &palette->node_body, palette->dark ? 0.6 : 0.84);
        mix (&ink, &palette->family[f->family], &palette->text, palette->dark ? 0.55 : 0.25);
        rounded_rect (cr, cx, cy - CHIP_HEIGHT / 2, cw, CHIP_HEIGHT, CHIP_HEIGHT / 2);
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
        draw_text (cr, TEXT_CHIP, f->type, cx + 6, cy, 0, &ink);
        cx += cw + CHIP_GAP;
      }
  }
}

static void
draw_port_row (cairo_t *cr, const CtGraphScene *scene, guint node, const CtGraphNode *n,
               const CtGraphPalette *palette)
{
  double x, y, w, h, cy;
  double spacing;

  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  cy = y + h - PORT_ROW_HEIGHT / 2 - 1;
  spacing = (w - 16) / n->tops->len;
  cairo_move_to (cr, x + 6, y + h - PORT_ROW_HEIGHT - 0.5);
  cairo_line_to (cr, x + w - 6, y + h - PORT_ROW_HEIGHT - 0.5);
  set_color (cr, &palette->node_border, 0.7);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);
  for (guint port = 0; port < n->tops->len; port++)
    {
      const char *name = g_ptr_array_index (n->tops, port);
      const char *shape = top_shape (scene->model, node, port);
      CtGraphPoint p = ct_graph_scene_port_position (scene, node, TRUE, port);
      double name_w = text_width (TEXT_LABEL, name);
      double tw = MIN (port_entry_width (n, shape, port), spacing - 4);
      double left = p.x - tw / 2;

      draw_text (cr, TEXT_LABEL, name, left, cy, spacing - 4, &palette->text);
      if (shape != NULL && name_w + 5 < tw)
        draw_text (cr, TEXT_LABEL, shape, left + name_w + 5, cy, tw - name_w - 5,
                   &palette->edge_label);
    }
}

void
ct_graph_render_node (cairo_t *cr, const CtGraphScene *scene, guint node,
                      CtGraphNodeState state, const CtGraphPalette *palette)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  const CtGraphColor *family = &palette->family[n->family];
  double x, y, w, h, cy, right;
  const char *badge = phase_badge (n->phase);
  CtGraphColor white = { 1, 1, 1, 1 };

  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  cairo_save (cr);

  /* rings outside the box: step-through highlight, selection */
  if (state & CT_GRAPH_NODE_STATE_HIGHLIGHT)
    {
      rounded_rect (cr, x - 6, y - 6, w + 12, h + 12, NODE_RADIUS + 6);
      set_color (cr, &palette->highlight, 0.35);
      cairo_fill (cr);
      rounded_rect (cr, x - 3.5, y - 3.5, w + 7, h + 7, NODE_RADIUS + 3.5);
      set_color (cr, &palette->highlight, 1);
      cairo_set_line_width (cr, 3);
      cairo_stroke (cr);
    }
  if (state & (CT_GRAPH_NODE_STATE_SELECTED | CT_GRAPH_NODE_STATE_DROP_TARGET))
    {
      rounded_rect (cr, x - 3.5, y - 3.5, w + 7, h + 7, NODE_RADIUS + 3.5);
      set_color (cr, &palette->accent, state & CT_GRAPH_NODE_STATE_SELECTED ? 1 : 0.6);
      cairo_set_line_width (cr, 2.5);
      cairo_stroke (cr);
    }

  /* shadow */
  rounded_rect (cr, x, y + 1.5, w, h, NODE_RADIUS);
  cairo_set_source_rgba (cr, 0, 0, 0, palette->dark ? 0.35 : 0.10);
  cairo_fill (cr);

  /* body and header */
  rounded_rect (cr, x, y, w, h, NODE_RADIUS);
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
  rounded_rect (cr, x + 0.5, y + 0.5, w - 1, h - 1, NODE_RADIUS - 0.5);
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
      draw_text (cr, TEXT_BADGE, "!", right - 7.8, cy, 0, &error_ink);
      right -= 18;
    }
  if (badge != NULL)
    {
      CtGraphColor fill = { 1, 1, 1, 0.85 };
      draw_badge (cr, badge, right, cy, &fill, family);
      right -= text_width (TEXT_BADGE, badge) + 12;
    }
  draw_text (cr, TEXT_TYPE, n->type, x + NODE_PAD_X, cy, right - x - NODE_PAD_X, &white);

  /* body: name, detail, folded layers */
  y += HEADER_HEIGHT + BODY_PAD;
  draw_text (cr, TEXT_NAME, n->name, x + NODE_PAD_X, y + NAME_HEIGHT / 2, w - 2 * NODE_PAD_X,
             &palette->text);
  y += NAME_HEIGHT;
  if (n->detail != NULL)
    {
      draw_text (cr, TEXT_DETAIL, n->detail, x + NODE_PAD_X, y + DETAIL_HEIGHT / 2,
                 w - 2 * NODE_PAD_X, &palette->text_dim);
      y += DETAIL_HEIGHT;
    }
  if (n->folded->len > 0)
    draw_folded (cr, scene, node, n, palette, x, y + 2, w);
  if (has_port_row (n, scene->rankdir))
    draw_port_row (cr, scene, node, n, palette);
  cairo_restore (cr);
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
    ct_graph_render_node (cr, scene, i, CT_GRAPH_NODE_STATE_NONE, palette);
  for (guint i = 0; i < n; i++)
    ct_graph_render_ports (cr, scene, i, palette);
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

gboolean
ct_graph_scene_hit_folded (const CtGraphScene *scene, guint node, double x, double y)
{
  const CtGraphNode *n = ct_graph_model_get_node (scene->model, node);
  double bx, by, bw, bh, top;

  if (n == NULL || n->folded->len == 0)
    return FALSE;
  ct_graph_scene_node_box (scene, node, &bx, &by, &bw, &bh);
  top = by + HEADER_HEIGHT + BODY_PAD + NAME_HEIGHT + (n->detail != NULL ? DETAIL_HEIGHT : 0);
  if (has_port_row (n, scene->rankdir))
    bh -= PORT_ROW_HEIGHT;
  return x >= bx && x <= bx + bw && y >= top && y <= by + bh;
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

int
ct_graph_scene_edge_at (const CtGraphScene *scene, double x, double y, double tolerance)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;
  int best = -1;
  double best_d = tolerance * tolerance;

  for (guint e = 0; e < ct_graph_model_n_edges (scene->model); e++)
    {
      EdgePoints buf = { 0 };
      guint n;
      const CtGraphPoint *p = edge_points (scene, e, &buf, &n);
      double x0, y0, x1, y1;

      points_bounds (p, n, &x0, &y0, &x1, &y1);
      if (x < x0 - tolerance || x > x1 + tolerance || y < y0 - tolerance || y > y1 + tolerance)
        {
          edge_points_clear (&buf);
          continue;
        }
      for (guint i = 1; i < n; i++)
        {
          CtGraphPoint c1, c2, prev = p[i - 1];
          segment_controls (lr, p[i - 1], p[i], &c1, &c2);
          for (int s = 1; s <= 16; s++)
            {
              CtGraphPoint q = points_aligned (lr, p[i - 1], p[i])
                                 ? (CtGraphPoint) { p[i - 1].x + (p[i].x - p[i - 1].x) * s / 16.0,
                                                    p[i - 1].y + (p[i].y - p[i - 1].y) * s / 16.0 }
                                 : bezier (p[i - 1], c1, c2, p[i], s / 16.0);
              double d = segment_distance2 (prev, q, x, y);
              if (d < best_d)
                {
                  best_d = d;
                  best = (int) e;
                }
              prev = q;
            }
        }
      edge_points_clear (&buf);
    }
  return best;
}

/* Files */

#define EXPORT_MARGIN 24.0
#define MAX_IMAGE_SIDE 32000.0

static void
paint_export (cairo_t *cr, const CtGraphScene *scene, const CtGraphPalette *palette,
              double width, double height)
{
  set_color (cr, &palette->background, 1);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_translate (cr, EXPORT_MARGIN, EXPORT_MARGIN);
  ct_graph_render_scene (cr, scene, palette);
}

static gboolean
check_surface (cairo_surface_t *surface, const char *path, GError **error)
{
  cairo_status_t status = cairo_surface_status (surface);

  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("could not write %s: %s"), path,
               cairo_status_to_string (status));
  return FALSE;
}

gboolean
ct_graph_render_to_file (const CtGraphScene *scene, const char *path,
                         const CtGraphPalette *palette, double scale, GError **error)
{
  double width = scene->layout->width + 2 * EXPORT_MARGIN;
  double height = scene->layout->height + 2 * EXPORT_MARGIN;
  g_autofree char *lower = g_ascii_strdown (path, -1);
  cairo_surface_t *surface = NULL;
  cairo_t *cr;
  gboolean ok;

  if (palette == NULL)
    palette = ct_graph_palette_get (FALSE);
  if (scale <= 0)
    scale = 1;

  if (g_str_has_suffix (lower, ".png"))
    {
      cairo_status_t status;

      /* cairo's image surfaces stop at 32767 pixels a side */
      scale = MIN (scale, MAX_IMAGE_SIDE / MAX (width, height));
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale),
                                            (int) ceil (height * scale));
      if (!check_surface (surface, path, error))
        {
          cairo_surface_destroy (surface);
          return FALSE;
        }
      cr = cairo_create (surface);
      cairo_scale (cr, scale, scale);
      paint_export (cr, scene, palette, width, height);
      cairo_destroy (cr);
      status = cairo_surface_write_to_png (surface, path);
      cairo_surface_destroy (surface);
      if (status != CAIRO_STATUS_SUCCESS)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("could not write %s: %s"), path,
                       cairo_status_to_string (status));
          return FALSE;
        }
      return TRUE;
    }
  if (g_str_has_suffix (lower, ".svg"))
    surface = cairo_svg_surface_create (path, width, height);
  else if (g_str_has_suffix (lower, ".pdf"))
    surface = cairo_pdf_surface_create (path, width, height);
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: unknown image format (use .png, .svg or .pdf)"), path);
      return FALSE;
    }
  if (!check_surface (surface, path, error))
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }
  cr = cairo_create (surface);
  paint_export (cr, scene, palette, width, height);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  ok = check_surface (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}
