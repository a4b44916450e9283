/* graph-render-run.c: how a step-through shows on the graph (see
 * graph-render.h): a mark on each layer already run (a check for forward,
 * a down arrow for backward), a red ring on the layer that failed, edges
 * drawn dashed while their blob is empty and bold once it holds data, and
 * after backward a gradient-health strip on each edge. Plain data in (node
 * states, one CtGraphEdgeRun per edge): the runner is the app's business.
 * No GTK, so tests and `cortado-cli draw` could paint it too. */
#include "graph-scene-private.h"

#include <math.h>

static void
set_color (cairo_t *cr, const CtGraphColor *c, double alpha)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, c->a * alpha);
}

static void
hex_color (guint32 hex, CtGraphColor *out)
{
  out->r = (hex >> 16 & 0xff) / 255.0;
  out->g = (hex >> 8 & 0xff) / 255.0;
  out->b = (hex & 0xff) / 255.0;
  out->a = 1;
}

void
ct_graph_health_color (double health, CtGraphColor *out)
{
  /* Stops on log10 of the ratio; between them the colours blend. Blue
   * (dark), green (middle), orange (light), red for broken numbers. */
  static const struct {
    double at;
    guint32 hex;
  } stops[] = {
    { -7, 0x1a3d99 }, { -5, 0x3a7bd5 }, { -3, 0x2f9566 }, { -1, 0x2f9566 },
    { 1, 0xf0a020 },  { 3, 0xe66100 },
  };
  double l;

  if (isnan (health) || isinf (health))
    {
      hex_color (0xe01b24, out);
      return;
    }
  l = health > 0 ? log10 (health) : stops[0].at;
  if (l <= stops[0].at)
    {
      hex_color (stops[0].hex, out);
      return;
    }
  for (guint i = 1; i < G_N_ELEMENTS (stops); i++)
    if (l <= stops[i].at)
      {
        CtGraphColor a, b;
        double t = (l - stops[i - 1].at) / (stops[i].at - stops[i - 1].at);
        hex_color (stops[i - 1].hex, &a);
        hex_color (stops[i].hex, &b);
        out->r = a.r + (b.r - a.r) * t;
        out->g = a.g + (b.g - a.g) * t;
        out->b = a.b + (b.b - a.b) * t;
        out->a = 1;
        return;
      }
  hex_color (stops[G_N_ELEMENTS (stops) - 1].hex, out);
}

void
ct_graph_render_run_mark (cairo_t *cr, const CtGraphScene *scene, guint node,
                          CtGraphNodeState state, const CtGraphPalette *palette)
{
  double x, y, w, h, cx, cy;
  CtGraphColor fill;

  if ((state & (CT_GRAPH_NODE_STATE_RUN_DONE | CT_GRAPH_NODE_STATE_RUN_BACKWARD)) == 0)
    return;
  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  /* on the box's left edge, level with the header: inside the margin the
   * node widget keeps for its rings */
  cx = x;
  cy = y + HEADER_HEIGHT / 2;
  hex_color (state & CT_GRAPH_NODE_STATE_RUN_BACKWARD ? 0x7d4fb0 : 0x26885a, &fill);
  cairo_save (cr);
  cairo_arc (cr, cx, cy, 7, 0, 2 * G_PI);
  set_color (cr, &fill, 1);
  cairo_fill_preserve (cr);
  set_color (cr, &palette->node_body, 1);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_set_line_width (cr, 1.8);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  if (state & CT_GRAPH_NODE_STATE_RUN_BACKWARD)
    {
      /* a down arrow: the gradient came back through here */
      cairo_move_to (cr, cx, cy - 3.5);
      cairo_line_to (cr, cx, cy + 3.5);
      cairo_move_to (cr, cx - 3, cy + 0.5);
      cairo_line_to (cr, cx, cy + 3.5);
      cairo_line_to (cr, cx + 3, cy + 0.5);
    }
  else
    {
      cairo_move_to (cr, cx - 3.2, cy + 0.2);
      cairo_line_to (cr, cx - 0.9, cy + 2.6);
      cairo_line_to (cr, cx + 3.4, cy - 2.6);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

static gboolean
outside (const double *clip, double x0, double y0, double x1, double y1)
{
  return clip != NULL
         && (x1 < clip[0] - 20 || y1 < clip[1] - 20 || x0 > clip[0] + clip[2] + 20
             || y0 > clip[1] + clip[3] + 20);
}

/* A pill along the edge just past the port it leaves (the blob's label sits
 * beside that port, not on the line), so that a blob feeding several
 * layers shows one strip, not one per edge at different places. */
static void
health_strip (cairo_t *cr, gboolean lr, CtGraphPoint start, double health,
              const CtGraphPalette *palette)
{
  CtGraphColor color;
  double x, y, w, h;

  ct_graph_health_color (health, &color);
  if (lr)
    {
      x = start.x + 8;
      y = start.y - 3.5;
      w = 22;
      h = 7;
    }
  else
    {
      x = start.x - 3.5;
      y = start.y + 8;
      w = 7;
      h = 22;
    }
  ct_graph_rounded_rect (cr, x - 1.5, y - 1.5, w + 3, h + 3, 5);
  set_color (cr, &palette->background, 1);
  cairo_fill (cr);
  ct_graph_rounded_rect (cr, x, y, w, h, 3.5);
  set_color (cr, &color, 1);
  cairo_fill (cr);
}

void
ct_graph_render_edge_runs (cairo_t *cr, const CtGraphScene *scene,
                           const CtGraphPalette *palette, const double *clip,
                           const CtGraphEdgeRun *runs, guint n_runs)
{
  gboolean lr = scene->rankdir == CT_GRAPH_RANKDIR_LR;
  guint n_edges = MIN (n_runs, ct_graph_model_n_edges (scene->model));
  static const double dash[] = { 4, 4 };

  if (runs == NULL)
    return;
  cairo_save (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  for (int pass = 0; pass < 2; pass++)
    for (guint e = 0; e < n_edges; e++)
      {
        CtGraphEdgePoints buf = { 0 };
        const CtGraphPoint *p;
        guint n;
        double x0, y0, x1, y1;

        if (runs[e].state == CT_GRAPH_EDGE_RUN_NONE)
          continue;
        p = ct_graph_scene_edge_points (scene, e, &buf, &n);
        ct_graph_points_bounds (p, n, &x0, &y0, &x1, &y1);
        if (!outside (clip, x0, y0, x1, y1))
          {
            if (pass == 0 && runs[e].state == CT_GRAPH_EDGE_RUN_EMPTY)
              {
                /* gaps of background colour over the plain edge: dashed */
                cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
                ct_graph_path_edge (cr, lr, p, n, PORT_RADIUS + 9);
                set_color (cr, &palette->background, 1);
                cairo_set_line_width (cr, 2.6);
                cairo_stroke (cr);
                cairo_set_dash (cr, NULL, 0, 0);
              }
            else if (pass == 0)
              {
                ct_graph_path_edge (cr, lr, p, n, PORT_RADIUS + 5);
                set_color (cr, &palette->text, 0.8);
                cairo_set_line_width (cr, 2.6);
                cairo_stroke (cr);
              }
            else if (runs[e].state == CT_GRAPH_EDGE_RUN_DIFF)
              health_strip (cr, lr, p[0], runs[e].health, palette);
          }
        ct_graph_edge_points_clear (&buf);
      }
  cairo_restore (cr);
}
