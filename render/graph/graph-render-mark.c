/* graph-render-mark.c: a colour laid over a node by a comparison (see
 * graph-render.h): the body below the header tinted and a solid stripe
 * down its left side, so that the family colour of the header still says
 * what the layer is while the mark says how it compares. Plain data in:
 * what the colour means is the caller's business. No GTK. */
#include "graph-scene-private.h"

#define STRIPE_WIDTH 6.0
#define TINT_ALPHA 0.30

void
ct_graph_render_node_mark (cairo_t *cr, const CtGraphScene *scene, guint node,
                           const CtGraphColor *color)
{
  double x, y, w, h;

  ct_graph_scene_node_box (scene, node, &x, &y, &w, &h);
  if (h <= HEADER_HEIGHT)
    return;
  cairo_save (cr);
  /* clip to the rounded box so that the tint keeps its corners */
  ct_graph_rounded_rect (cr, x, y, w, h, NODE_RADIUS);
  cairo_clip (cr);
  cairo_rectangle (cr, x, y + HEADER_HEIGHT, w, h - HEADER_HEIGHT);
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a * TINT_ALPHA);
  cairo_fill (cr);
  cairo_rectangle (cr, x, y + HEADER_HEIGHT, STRIPE_WIDTH, h - HEADER_HEIGHT);
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a);
  cairo_fill (cr);
  cairo_restore (cr);
}
