/* graph-minimap.c: the graph view's minimap, the whole graph in small in
 * the top-right corner with the part in view marked; shown when the graph
 * does not fit. A click or drag on it moves the view. */
#include "graph-view-private.h"

void
ct_graph_view_visible_rect (CtGraphView *self, double *rect)
{
  to_graph (self, 0, 0, &rect[0], &rect[1]);
  rect[2] = gtk_widget_get_width (GTK_WIDGET (self)) / self->zoom;
  rect[3] = gtk_widget_get_height (GTK_WIDGET (self)) / self->zoom;
}

/* The minimap's placement: a box in the bottom-right corner and the scale
 * that maps graph coordinates into it. FALSE when not shown. */
gboolean
ct_graph_minimap_geometry (CtGraphView *self, double *box, double *scale)  /* scale[2]: x, y */
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double gw, gh, s, visible[4];

  if (!self->show_minimap || self->scene == NULL || width < 320 || height < 240)
    return FALSE;
  gw = MAX (self->scene->layout->width, 1);
  gh = MAX (self->scene->layout->height, 1);
  ct_graph_view_visible_rect (self, visible);
  /* only when the graph does not fit */
  if (visible[0] <= 0 && visible[1] <= 0 && visible[0] + visible[2] >= gw
      && visible[1] + visible[3] >= gh)
    return FALSE;
  s = MIN (MINIMAP_MAX / gw, MIN (height * 0.6, MINIMAP_MAX * 1.6) / gh);
  /* a map nearly as large as the graph it maps (a small net just too long
   * for the view) would only hide it: at most a quarter of the view's scale */
  s = MIN (s, self->zoom / 4);
  scale[1] = s;
  /* a very tall net (ResNet-152) would be a hairline: widen it */
  scale[0] = MAX (s, MIN (48.0, MINIMAP_MAX) / gw);
  box[2] = gw * scale[0] + 2 * 6;
  box[3] = gh * scale[1] + 2 * 6;
  box[0] = width - box[2] - MINIMAP_PAD;
  /* top right, below the band where apps overlay their controls (the
   * bottom is left to toasts) */
  box[1] = ct_graph_view_fit_top ((int) height) - FIT_PAD + MINIMAP_PAD;
  return TRUE;
}

void
ct_graph_minimap_draw (CtGraphView *self, cairo_t *cr, const CtGraphPalette *palette)
{
  double box[4], s[2], visible[4];
  const CtGraphLayout *layout;

  if (!ct_graph_minimap_geometry (self, box, s))
    return;
  layout = self->scene->layout;
  cairo_save (cr);
  ct_graph_rounded_rect (cr, box[0], box[1], box[2], box[3], 8);
  cairo_set_source_rgba (cr, palette->node_body.r, palette->node_body.g, palette->node_body.b,
                         0.92);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, palette->dark ? 0.5 : 0.15);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);

  cairo_translate (cr, box[0] + 6, box[1] + 6);
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CtGraphLayoutNode *n = &layout->nodes[i];
      const CtGraphNode *node = ct_graph_model_get_node (self->model, i);
      const CtGraphColor *c = node->error != NULL ? &palette->error
                                                  : &palette->family[node->family];
      cairo_rectangle (cr, (n->x - n->width / 2) * s[0], (n->y - n->height / 2) * s[1],
                       MAX (n->width * s[0], 1.5), MAX (n->height * s[1], 1.5));
      cairo_set_source_rgba (cr, c->r, c->g, c->b, 0.85);
      cairo_fill (cr);
    }
  ct_graph_view_visible_rect (self, visible);
  cairo_rectangle (cr, -6, -6, box[2], box[3]);
  cairo_clip (cr);
  cairo_rectangle (cr, visible[0] * s[0], visible[1] * s[1], visible[2] * s[0],
                   visible[3] * s[1]);
  cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.12);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.9);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  cairo_restore (cr);
}

gboolean
ct_graph_minimap_contains (CtGraphView *self, double wx, double wy)
{
  double box[4], s[2];

  return ct_graph_minimap_geometry (self, box, s) && wx >= box[0] && wx <= box[0] + box[2]
         && wy >= box[1] && wy <= box[1] + box[3];
}

void
ct_graph_minimap_center_on (CtGraphView *self, double wx, double wy)
{
  double box[4], s[2];

  if (!ct_graph_minimap_geometry (self, box, s))
    return;
  ct_graph_view_stop_animation (self);
  ct_graph_view_set_origin (self,
                            (wx - box[0] - 6) / s[0]
                              - gtk_widget_get_width (GTK_WIDGET (self)) / 2.0 / self->zoom,
                            (wy - box[1] - 6) / s[1]
                              - gtk_widget_get_height (GTK_WIDGET (self)) / 2.0 / self->zoom);
}
