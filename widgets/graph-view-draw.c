/* graph-view-draw.c: what the graph view draws itself, in widget
 * coordinates and only for the visible part of the graph: the background
 * grid and the edges (under the nodes), then the feedback of a drag in
 * progress and the minimap (over them); and where each node child goes. */
#include "graph-view-private.h"

#include <math.h>

static void
draw_feedback (CtGraphView *self, cairo_t *cr, const CtGraphPalette *palette)
{
  if (self->drag == DRAG_CONNECT || self->drag == DRAG_DISCONNECT)
    {
      CtGraphPoint from;
      double fx, fy;

      if (self->drag == DRAG_CONNECT)
        from = ct_graph_scene_port_position (self->scene, self->drag_node, TRUE, self->drag_port);
      else
        {
          const CtGraphEdge *edge = ct_graph_model_get_edge (self->model, self->drag_edge);
          from = ct_graph_scene_port_position (self->scene, edge->from_node, TRUE,
                                               edge->from_port);
        }
      to_widget (self, from.x, from.y, &fx, &fy);
      cairo_move_to (cr, fx, fy);
      if (self->rankdir == CT_GRAPH_RANKDIR_LR)
        {
          double d = MAX (fabs (self->drag_x - fx) / 2, 20);
          cairo_curve_to (cr, fx + d, fy, self->drag_x - d, self->drag_y, self->drag_x,
                          self->drag_y);
        }
      else
        {
          double d = MAX (fabs (self->drag_y - fy) / 2, 20);
          cairo_curve_to (cr, fx, fy + d, self->drag_x, self->drag_y - d, self->drag_x,
                          self->drag_y);
        }
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 1);
      cairo_set_line_width (cr, 2.5);
      if (self->drag == DRAG_DISCONNECT && self->drag_target < 0)
        {
          static const double dashes[] = { 6, 4 };
          cairo_set_dash (cr, dashes, 2, 0);
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_arc (cr, self->drag_x, self->drag_y, 4.5, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  else if (self->drag == DRAG_RUBBER)
    {
      double x = MIN (self->drag_start_x, self->drag_x);
      double y = MIN (self->drag_start_y, self->drag_y);
      double w = fabs (self->drag_x - self->drag_start_x);
      double h = fabs (self->drag_y - self->drag_start_y);
      cairo_rectangle (cr, x + 0.5, y + 0.5, w, h);
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.15);
      cairo_fill_preserve (cr);
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.9);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
    }
}

static gboolean
node_visible (CtGraphView *self, guint index, const double *rect)
{
  const CtGraphLayoutNode *n = &self->scene->layout->nodes[index];
  double m = NODE_MARGIN;

  return n->x + n->width / 2 + m >= rect[0] && n->x - n->width / 2 - m <= rect[0] + rect[2]
         && n->y + n->height / 2 + m >= rect[1] && n->y - n->height / 2 - m <= rect[1] + rect[3];
}

/* The dot grid: one dot repeated by the renderer, not thousands drawn. */
static void
snapshot_grid (CtGraphView *self, GtkSnapshot *snapshot, const CtGraphPalette *palette,
               int width, int height)
{
  double step = GRID_STEP * self->zoom;
  double x0, y0, dot = self->zoom >= 0.6 ? 2 : 1;
  GdkRGBA color = { palette->grid.r, palette->grid.g, palette->grid.b, 1 };

  while (step < 12)
    step *= 2;
  x0 = fmod (-self->origin_x * self->zoom, step);
  y0 = fmod (-self->origin_y * self->zoom, step);
  if (x0 < 0)
    x0 += step;
  if (y0 < 0)
    y0 += step;
  x0 = round (x0);
  y0 = round (y0);
  gtk_snapshot_push_repeat (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height),
                            &GRAPHENE_RECT_INIT (x0, y0, step, step));
  gtk_snapshot_append_color (snapshot, &color, &GRAPHENE_RECT_INIT (x0, y0, dot, dot));
  gtk_snapshot_pop (snapshot);
}

/* The node whose edges stand out: the highlighted one, else the only
 * selected one. */
static int
emphasised_node (CtGraphView *self)
{
  int node = index_of (self, self->highlight);

  if (node < 0 && g_hash_table_size (self->selected) == 1)
    {
      GHashTableIter iter;
      gpointer key;
      g_hash_table_iter_init (&iter, self->selected);
      if (g_hash_table_iter_next (&iter, &key, NULL))
        node = index_of (self, key);
    }
  return node;
}

static void
snapshot_edges (CtGraphView *self, GtkSnapshot *snapshot, const CtGraphPalette *palette,
                int width, int height, const double *rect)
{
  double x0, y0, x1, y1;
  cairo_t *cr;

  /* only the part of the view the graph covers (labels reach a little
   * beyond its box) */
  to_widget (self, -160, -40, &x0, &y0);
  to_widget (self, self->scene->layout->width + 160, self->scene->layout->height + 40, &x1, &y1);
  x0 = floor (MAX (x0, 0));
  y0 = floor (MAX (y0, 0));
  x1 = ceil (MIN (x1, width));
  y1 = ceil (MIN (y1, height));
  if (x1 <= x0 || y1 <= y0)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x0, y0, x1 - x0, y1 - y0));
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_translate (cr, -self->origin_x, -self->origin_y);
  /* far out, labels would be unreadable specks: edges only */
  ct_graph_render_edges (cr, self->scene, palette, rect, emphasised_node (self),
                         self->zoom >= LABEL_MIN_ZOOM);
  ct_graph_render_edge_runs (cr, self->scene, palette, rect,
                             (const CtGraphEdgeRun *) (gpointer) self->edge_runs->data,
                             self->edge_runs->len);
  if (self->selected_edge >= 0)
    ct_graph_render_edge_selected (cr, self->scene, palette, (guint) self->selected_edge);
  if (self->drop_edge >= 0)
    {
      /* the edge a dropped layer would be inserted into */
      const CtGraphEdge *edge = ct_graph_model_get_edge (self->model, self->drop_edge);
      CtGraphPoint a = ct_graph_scene_port_position (self->scene, edge->from_node, TRUE,
                                                     edge->from_port);
      CtGraphPoint b = ct_graph_scene_port_position (self->scene, edge->to_node, FALSE,
                                                     edge->to_port);
      cairo_arc (cr, (a.x + b.x) / 2, (a.y + b.y) / 2, 9, 0, 2 * G_PI);
      cairo_set_source_rgba (cr, palette->accent.r, palette->accent.g, palette->accent.b, 0.9);
      cairo_fill (cr);
    }
  cairo_destroy (cr);
}

void
ct_graph_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  const CtGraphPalette *palette = ct_graph_view_palette (widget);
  GdkRGBA background = { palette->background.r, palette->background.g, palette->background.b,
                         1 };
  double rect[4], box[4], s[2];
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;
  /* Per frame only the edges in view are drawn (and the minimap): the
   * background is a colour, the grid one repeated dot, and every node a
   * texture GTK keeps while pan moves it. */
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));
  snapshot_grid (self, snapshot, palette, width, height);
  if (self->scene == NULL)
    return;
  ct_graph_view_visible_rect (self, rect);
  snapshot_edges (self, snapshot, palette, width, height, rect);

  for (guint i = 0; i < self->children->len; i++)
    if (node_visible (self, i, rect))
      gtk_widget_snapshot_child (widget, g_ptr_array_index (self->children, i), snapshot);

  if (self->drag == DRAG_CONNECT || self->drag == DRAG_DISCONNECT || self->drag == DRAG_RUBBER)
    {
      cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
      draw_feedback (self, cr, palette);
      cairo_destroy (cr);
    }
  if (ct_graph_minimap_geometry (self, box, s))
    {
      cr = gtk_snapshot_append_cairo (snapshot,
                                      &GRAPHENE_RECT_INIT (floor (box[0]) - 1, floor (box[1]) - 1,
                                                           ceil (box[2]) + 2, ceil (box[3]) + 2));
      ct_graph_minimap_draw (self, cr, palette);
      cairo_destroy (cr);
    }
}

void
ct_graph_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);

  /* a window resized (or a pane dragged) fits a fitted graph again */
  if (self->fitted && (width != self->fitted_width || height != self->fitted_height))
    self->fit_pending = TRUE;
  if (self->fit_pending && self->scene != NULL && width > 0 && height > 0)
    {
      self->fit_pending = FALSE;
      ct_graph_view_fit_now (self);
    }
  for (guint i = 0; i < self->children->len; i++)
    {
      GtkWidget *child = g_ptr_array_index (self->children, i);
      double x, y, w, h, wx, wy;
      GskTransform *transform;

      ct_graph_scene_node_box (self->scene, i, &x, &y, &w, &h);
      to_widget (self, x - NODE_MARGIN, y - NODE_MARGIN, &wx, &wy);
      /* whole pixels: a node texture placed at a fraction would be
       * resampled and blur; edges meet it within half a pixel */
      transform = gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT ((float) round (wx),
                                                                       (float) round (wy)));
      gtk_widget_allocate (child, (int) ceil ((w + 2 * NODE_MARGIN) * self->zoom) + 1,
                           (int) ceil ((h + 2 * NODE_MARGIN) * self->zoom) + 1, -1, transform);
    }
}

void
ct_graph_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                       int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);

  /* children are placed freely: measure them only to satisfy GTK */
  for (guint i = 0; i < self->children->len; i++)
    gtk_widget_measure (g_ptr_array_index (self->children, i), orientation, -1, NULL, NULL,
                        NULL, NULL);
  *minimum = 120;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 640 : 480;
}

