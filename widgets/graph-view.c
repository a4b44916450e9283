/* graph-view.c: CtGraphView, the graph canvas (see graph-view.h): the
 * model and its scene, zoom, fit and the reveal animation, the highlight,
 * folds and pinned positions, and the GObject plumbing.
 *
 * The canvas owns a CtGraphScene (model + measured, laid-out geometry) and
 * one CtGraphNodeWidget child per node (graph-node.c). Children are
 * allocated at their zoomed size and placed with a translation at whole
 * pixels; each draws its box and ports scaled by the zoom into a texture
 * that panning merely moves. The canvas itself draws the grid, the edges
 * and the drag feedback (graph-view-draw.c) and the minimap
 * (graph-minimap.c). Pointer input is handled by the canvas in the capture
 * phase and hit-tested against the scene (graph-view-input.c), so the
 * children only carry focus, tooltips and the accessible names screen
 * readers and UI tests see (each layer folded into a node has an invisible
 * child of the node's for that); activating one selects its layer. */
#include "graph-view-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

G_DEFINE_FINAL_TYPE (CtGraphView, ct_graph_view, GTK_TYPE_WIDGET)

GParamSpec *ct_graph_view_properties[N_PROPS];
guint ct_graph_view_signals[N_SIGNALS];

/* Scene */

static gboolean
drop_missing_selection (CtGraphView *self)
{
  GHashTableIter iter;
  gpointer key;
  gboolean changed = FALSE;

  g_hash_table_iter_init (&iter, self->selected);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    /* ids of nodes and of folded layers alike */
    if (self->model == NULL || ct_graph_model_find_node (self->model, key) < 0)
      {
        g_hash_table_iter_remove (&iter);
        changed = TRUE;
      }
  return changed;
}

void
ct_graph_view_rebuild_scene (CtGraphView *self, gboolean keep_positions)
{
  CtGraphScene *scene = NULL;

  if (self->model != NULL)
    scene = ct_graph_scene_new (self->model, self->rankdir, self->expanded,
                                keep_positions ? self->scene : NULL,
                                keep_positions ? self->pinned : NULL);
  g_clear_pointer (&self->scene, ct_graph_scene_free);
  self->scene = scene;
  self->hover_node = -1;
  self->drag = DRAG_NONE;
  self->drop_edge = -1;
  ct_graph_view_sync_children (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ct_graph_view_set_model (CtGraphView *self, CtGraphModel *model)
{
  gboolean first, edge_lost;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (model == self->model)
    return;
  first = self->scene == NULL;
  if (model != NULL)
    ct_graph_model_ref (model);
  /* the selected edge, found again by its ends and blob */
  edge_lost = ct_graph_view_refind_edge (self, model);
  g_clear_pointer (&self->model, ct_graph_model_unref);
  self->model = model;
  ct_graph_view_rebuild_scene (self, TRUE);
  if (self->highlight != NULL && ct_graph_model_find_node (model, self->highlight) < 0)
    g_clear_pointer (&self->highlight, g_free);
  /* edge indices belong to the old model: the app sets them again */
  g_array_set_size (self->edge_runs, 0);
  if (first)
    self->fit_pending = TRUE;
  if (drop_missing_selection (self) | edge_lost)
    g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_MODEL]);
}

CtGraphModel *
ct_graph_view_get_model (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  return self->model;
}

void
ct_graph_view_set_rankdir (CtGraphView *self, CtGraphRankdir rankdir)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (rankdir == self->rankdir)
    return;
  self->rankdir = rankdir;
  g_hash_table_remove_all (self->pinned);
  ct_graph_view_rebuild_scene (self, FALSE);
  self->fit_pending = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_RANKDIR]);
}

CtGraphRankdir
ct_graph_view_get_rankdir (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), CT_GRAPH_RANKDIR_TB);
  return self->rankdir;
}

void
ct_graph_view_relayout (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_hash_table_remove_all (self->pinned);
  ct_graph_view_rebuild_scene (self, FALSE);
  self->fit_pending = TRUE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

const CtGraphScene *
ct_graph_view_get_scene (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  return self->scene;
}

/* Zoom and pan */

void
ct_graph_view_stop_animation (CtGraphView *self)
{
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
}

void
ct_graph_view_set_origin (CtGraphView *self, double x, double y)
{
  if (x == self->origin_x && y == self->origin_y)
    return;
  self->origin_x = x;
  self->origin_y = y;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static double zoom_floor (CtGraphView *self);

/* Zoom to ZOOM keeping the graph point under widget point WX, WY fixed. */
void
ct_graph_view_zoom_at (CtGraphView *self, double zoom, double wx, double wy)
{
  double gx, gy;

  zoom = CLAMP (zoom, zoom_floor (self), ZOOM_MAX);
  if (zoom == self->zoom)
    return;
  ct_graph_view_stop_animation (self);
  self->fitted = FALSE;
  to_graph (self, wx, wy, &gx, &gy);
  self->zoom = zoom;
  /* node pictures are drawn at the zoom */
  ct_graph_view_redraw_all_nodes (self);
  ct_graph_view_set_origin (self, gx - wx / zoom, gy - wy / zoom);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_ZOOM]);
}

double
ct_graph_view_get_zoom (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), 1);
  return self->zoom;
}

static void fit_area (int width, int height, double *area_w, double *area_h);

/* Zoom keeping the middle of the fit area still: a fitted graph is centred
 * there, above the band of overlaid controls, so that zooming in and out
 * again leaves it where it was instead of drifting up. */
void
ct_graph_view_set_zoom (CtGraphView *self, double zoom)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double aw, ah;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  self->fit_pending = FALSE;
  fit_area (width, height, &aw, &ah);
  ct_graph_view_zoom_at (self, zoom, width / 2.0, ct_graph_view_fit_top (height) + ah / 2);
}

void
ct_graph_view_zoom_in (CtGraphView *self)
{
  ct_graph_view_set_zoom (self, self->zoom * ZOOM_STEP);
}

void
ct_graph_view_zoom_out (CtGraphView *self)
{
  ct_graph_view_set_zoom (self, self->zoom / ZOOM_STEP);
}

/* The part of the view a fitted graph goes into: a margin all round, and a
 * band at the top where apps lay their controls over the canvas (zoom,
 * phase), so that no node hides under them; the bottom is left to toasts.
 * Widget pixels. */
static void
fit_area (int width, int height, double *area_w, double *area_h)
{
  *area_w = MAX (1.0, width - 2 * FIT_PAD);
  *area_h = MAX (1.0, height - FIT_PAD - ct_graph_view_fit_top (height));
}

double
ct_graph_view_fit_top (int height)
{
  return FIT_PAD + (height > 4 * FIT_CONTROLS ? FIT_CONTROLS : 0);
}

/* The least zoom: ZOOM_MIN, or less where the whole graph needs less to
 * fit (ResNet-152 is some 24,000 pixels long). */
static double
zoom_floor (CtGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double aw, ah;

  if (self->scene == NULL || width <= 0 || height <= 0)
    return ZOOM_MIN;
  fit_area (width, height, &aw, &ah);
  return MIN (ZOOM_MIN, MIN (aw / MAX (1.0, self->scene->layout->width),
                             ah / MAX (1.0, self->scene->layout->height)));
}

/* Centre the graph in the fit area at ZOOM. */
static void
fit_centre (CtGraphView *self, int width, int height, double area_h, double zoom)
{
  self->zoom = zoom;
  self->origin_x = self->scene->layout->width / 2 - width / 2.0 / zoom;
  self->origin_y = self->scene->layout->height / 2
                   - (ct_graph_view_fit_top (height) + area_h / 2) / zoom;
}

static void
mark_fitted (CtGraphView *self, int width, int height)
{
  self->fitted = TRUE;
  self->fitted_width = width;
  self->fitted_height = height;
}

/* Show the graph at ZOOM around the highlighted node, or from its input
 * end when none is highlighted. */
static void
fit_readable (CtGraphView *self, int width, int height, double zoom)
{
  int index = self->highlight != NULL ? index_of (self, self->highlight) : -1;
  double x, y, w, h;

  self->zoom = zoom;
  if (index < 0)
    {
      self->origin_x = self->scene->layout->width / 2 - width / 2.0 / zoom;
      self->origin_y = -ct_graph_view_fit_top (height) / zoom;
      return;
    }
  ct_graph_scene_node_box (self->scene, index, &x, &y, &w, &h);
  self->origin_x = x + w / 2 - width / 2.0 / zoom;
  self->origin_y = y + h / 2 - height / 2.0 / zoom;
}

void
ct_graph_view_set_min_fit_zoom (CtGraphView *self, double zoom)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  self->min_fit_zoom = MAX (0.0, zoom);
  self->fit_pending = TRUE;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

void
ct_graph_view_fit_now (CtGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double gw, gh, aw, ah, zoom;

  if (self->scene == NULL || width <= 0 || height <= 0)
    return;
  fit_area (width, height, &aw, &ah);
  gw = MAX (1.0, self->scene->layout->width);
  gh = MAX (1.0, self->scene->layout->height);
  zoom = MIN (1.0, MIN (aw / gw, ah / gh));
  zoom = CLAMP (zoom, zoom_floor (self), ZOOM_MAX);
  if (zoom < self->min_fit_zoom)
    fit_readable (self, width, height, self->min_fit_zoom);
  /* a graph much longer than wide (most nets) would become a thin line:
   * fit its width and show where the data comes in */
  else if (zoom < 0.35 && self->rankdir == CT_GRAPH_RANKDIR_TB && aw / gw > 2 * zoom)
    {
      zoom = MIN (1.0, MAX (0.35, aw / gw));
      self->zoom = zoom;
      self->origin_x = self->scene->layout->width / 2 - width / 2.0 / zoom;
      self->origin_y = -ct_graph_view_fit_top (height) / zoom;
    }
  else if (zoom < 0.35 && self->rankdir == CT_GRAPH_RANKDIR_LR && ah / gh > 2 * zoom)
    {
      zoom = MIN (1.0, MAX (0.35, ah / gh));
      self->zoom = zoom;
      self->origin_x = -FIT_PAD / zoom;
      self->origin_y = self->scene->layout->height / 2
                       - (ct_graph_view_fit_top (height) + ah / 2) / zoom;
    }
  else
    fit_centre (self, width, height, ah, zoom);
  mark_fitted (self, width, height);
  ct_graph_view_redraw_all_nodes (self);
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_ZOOM]);
}

void
ct_graph_view_zoom_to_fit (CtGraphView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  double gw, gh, aw, ah, zoom;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  ct_graph_view_stop_animation (self);
  self->fit_pending = FALSE;
  if (self->scene == NULL || width <= 0 || height <= 0)
    {
      self->fit_pending = TRUE;
      return;
    }
  /* the explicit "fit" always shows everything */
  fit_area (width, height, &aw, &ah);
  gw = MAX (1.0, self->scene->layout->width);
  gh = MAX (1.0, self->scene->layout->height);
  zoom = CLAMP (MIN (1.0, MIN (aw / gw, ah / gh)), zoom_floor (self), ZOOM_MAX);
  fit_centre (self, width, height, ah, zoom);
  mark_fitted (self, width, height);
  ct_graph_view_redraw_all_nodes (self);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_ZOOM]);
}

void
ct_graph_view_set_show_minimap (CtGraphView *self, gboolean show)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  show = !!show;
  if (show == self->show_minimap)
    return;
  self->show_minimap = show;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_SHOW_MINIMAP]);
}

gboolean
ct_graph_view_get_show_minimap (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  return self->show_minimap;
}

static double
ease_out_cubic (double t)
{
  double u = 1 - t;
  return 1 - u * u * u;
}

static gboolean
animate_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);
  double t = (gdk_frame_clock_get_frame_time (clock) - self->anim_start) / 250000.0;

  if (t >= 1)
    {
      self->tick_id = 0;
      ct_graph_view_set_origin (self, self->anim_to_x, self->anim_to_y);
      return G_SOURCE_REMOVE;
    }
  t = ease_out_cubic (MAX (t, 0));
  ct_graph_view_set_origin (self, self->anim_from_x + (self->anim_to_x - self->anim_from_x) * t,
                            self->anim_from_y + (self->anim_to_y - self->anim_from_y) * t);
  return G_SOURCE_CONTINUE;
}

static void
scroll_to (CtGraphView *self, double origin_x, double origin_y)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
  gboolean animate = gtk_widget_get_mapped (GTK_WIDGET (self)) && clock != NULL;

  ct_graph_view_stop_animation (self);
  if (animate)
    {
      g_object_get (gtk_widget_get_settings (GTK_WIDGET (self)), "gtk-enable-animations",
                    &animate, NULL);
    }
  if (!animate)
    {
      ct_graph_view_set_origin (self, origin_x, origin_y);
      return;
    }
  self->anim_start = gdk_frame_clock_get_frame_time (clock);
  self->anim_from_x = self->origin_x;
  self->anim_from_y = self->origin_y;
  self->anim_to_x = origin_x;
  self->anim_to_y = origin_y;
  self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), animate_tick, NULL, NULL);
}

gboolean
ct_graph_view_reveal (CtGraphView *self, const char *id, gboolean focus)
{
  int index;
  double x, y, w, h, wx0, wy0, wx1, wy1;
  int width, height;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  index = index_of (self, id);
  if (index < 0 || self->scene == NULL)
    return FALSE;
  if (self->fit_pending)
    {
      self->fit_pending = FALSE;
      ct_graph_view_fit_now (self);
    }
  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  ct_graph_scene_node_box (self->scene, index, &x, &y, &w, &h);
  to_widget (self, x, y, &wx0, &wy0);
  to_widget (self, x + w, y + h, &wx1, &wy1);
  /* a fitted graph that shows the node stays as the user (or the window)
   * fitted it */
  if (self->fitted && wx0 >= 0 && wy0 >= 0 && wx1 <= width && wy1 <= height)
    {
      if (focus && child_at (self, index) != NULL)
        gtk_widget_grab_focus (GTK_WIDGET (child_at (self, index)));
      return TRUE;
    }
  /* a node shown too small to read is not shown: zoom in first */
  if (self->zoom < REVEAL_MIN_ZOOM && width > 0 && height > 0)
    ct_graph_view_zoom_at (self, READABLE_ZOOM, width / 2.0, height / 2.0);
  ct_graph_scene_node_box (self->scene, index, &x, &y, &w, &h);
  to_widget (self, x, y, &wx0, &wy0);
  to_widget (self, x + w, y + h, &wx1, &wy1);
  if (wx0 < 0 || wy0 < 0 || wx1 > width || wy1 > height)
    {
      self->fitted = FALSE;
      scroll_to (self, x + w / 2 - width / 2.0 / self->zoom, y + h / 2 - height / 2.0 / self->zoom);
    }
  if (focus && child_at (self, index) != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (child_at (self, index)));
  return TRUE;
}

void
ct_graph_view_set_highlight (CtGraphView *self, const char *id)
{
  int old, index;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (g_strcmp0 (id, self->highlight) == 0)
    return;
  old = index_of (self, self->highlight);
  index = index_of (self, id);
  g_free (self->highlight);
  /* a folded layer's id lights up its host node */
  self->highlight = index >= 0 ? g_strdup (ct_graph_model_get_node (self->model, index)->id)
                                 : NULL;
  ct_graph_view_redraw_node (self, old);
  ct_graph_view_redraw_node (self, index);
  if (index >= 0)
    ct_graph_view_reveal (self, self->highlight, FALSE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), ct_graph_view_properties[PROP_HIGHLIGHT]);
}

const char *
ct_graph_view_get_highlight (CtGraphView *self)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  return self->highlight;
}

void
ct_graph_view_clear_run_states (CtGraphView *self)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (g_hash_table_size (self->run_states) == 0)
    return;
  g_hash_table_remove_all (self->run_states);
  for (guint i = 0; i < self->children->len; i++)
    ct_graph_view_redraw_node (self, i);
}

void
ct_graph_view_add_run_state (CtGraphView *self, const char *id, CtGraphNodeState state)
{
  int index;
  const char *host;
  guint old;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  index = index_of (self, id);
  if (index < 0)
    return;
  /* a folded layer's mark goes on its host node */
  host = ct_graph_model_get_node (self->model, index)->id;
  old = GPOINTER_TO_UINT (g_hash_table_lookup (self->run_states, host));
  state &= CT_GRAPH_NODE_STATE_RUN_DONE | CT_GRAPH_NODE_STATE_RUN_BACKWARD
           | CT_GRAPH_NODE_STATE_RUN_FAILED;
  if ((old | state) == old)
    return;
  g_hash_table_insert (self->run_states, g_strdup (host), GUINT_TO_POINTER (old | state));
  ct_graph_view_redraw_node (self, index);
}

void
ct_graph_view_set_run_states (CtGraphView *self, const char *const *ids,
                              const CtGraphNodeState *states, guint n)
{
  const CtGraphNodeState run_bits = CT_GRAPH_NODE_STATE_RUN_DONE
                                    | CT_GRAPH_NODE_STATE_RUN_BACKWARD
                                    | CT_GRAPH_NODE_STATE_RUN_FAILED;
  GHashTable *fresh;

  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  fresh = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n; i++)
    {
      int index = index_of (self, ids[i]);
      const char *host;
      guint old;

      if (index < 0 || (states[i] & run_bits) == 0)
        continue;
      host = ct_graph_model_get_node (self->model, index)->id;
      old = GPOINTER_TO_UINT (g_hash_table_lookup (fresh, host));
      g_hash_table_insert (fresh, g_strdup (host), GUINT_TO_POINTER (old | (states[i] & run_bits)));
    }
  /* a step changes one or two nodes: redraw only those, not a whole
   * 500-layer net every step */
  for (guint i = 0; self->model != NULL && i < ct_graph_model_n_nodes (self->model); i++)
    {
      const char *id = ct_graph_model_get_node (self->model, i)->id;
      if (g_hash_table_lookup (fresh, id) != g_hash_table_lookup (self->run_states, id))
        ct_graph_view_redraw_node (self, (int) i);
    }
  g_hash_table_unref (self->run_states);
  self->run_states = fresh;
}

CtGraphNodeState
ct_graph_view_get_run_state (CtGraphView *self, const char *id)
{
  int index;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), 0);
  index = index_of (self, id);
  if (index < 0)
    return 0;
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->run_states,
                                                ct_graph_model_get_node (self->model, index)->id));
}

void
ct_graph_view_set_edge_runs (CtGraphView *self, const CtGraphEdgeRun *runs, guint n_runs)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  g_array_set_size (self->edge_runs, 0);
  if (runs != NULL)
    g_array_append_vals (self->edge_runs, runs, n_runs);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const CtGraphEdgeRun *
ct_graph_view_get_edge_runs (CtGraphView *self, guint *n_runs)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), NULL);
  *n_runs = self->edge_runs->len;
  return (const CtGraphEdgeRun *) (gpointer) self->edge_runs->data;
}

void
ct_graph_view_set_expanded (CtGraphView *self, const char *id, gboolean expanded)
{
  g_return_if_fail (CT_IS_GRAPH_VIEW (self));
  if (id == NULL || !!expanded == g_hash_table_contains (self->expanded, id))
    return;
  if (expanded)
    g_hash_table_add (self->expanded, g_strdup (id));
  else
    g_hash_table_remove (self->expanded, id);
  ct_graph_view_rebuild_scene (self, TRUE);
}

gboolean
ct_graph_view_get_expanded (CtGraphView *self, const char *id)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  return id != NULL && g_hash_table_contains (self->expanded, id);
}

gboolean
ct_graph_view_get_node_position (CtGraphView *self, const char *id, double *x, double *y)
{
  int index;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  index = index_of (self, id);
  if (index < 0 || self->scene == NULL
      || strcmp (ct_graph_model_get_node (self->model, index)->id, id) != 0)
    return FALSE;
  *x = self->scene->layout->nodes[index].x;
  *y = self->scene->layout->nodes[index].y;
  return TRUE;
}

void
ct_graph_view_pin (CtGraphView *self, const char *id, double x, double y)
{
  CtGraphPoint *p = g_new (CtGraphPoint, 1);

  p->x = x;
  p->y = y;
  g_hash_table_insert (self->pinned, g_strdup (id), p);
}

void
ct_graph_view_forget_place (CtGraphView *self, const char *id)
{
  int index = index_of (self, id);

  g_hash_table_remove (self->pinned, id);
  if (index >= 0 && self->scene != NULL)
    ct_graph_scene_forget_node (self->scene, index);
}

gboolean
ct_graph_view_set_node_position (CtGraphView *self, const char *id, double x, double y)
{
  int index;

  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  index = index_of (self, id);
  if (index < 0 || self->scene == NULL
      || strcmp (ct_graph_model_get_node (self->model, index)->id, id) != 0)
    return FALSE;
  ct_graph_view_pin (self, id, x, y);
  ct_graph_scene_move_node (self->scene, index, x, y);
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

gboolean
ct_graph_view_export (CtGraphView *self, const char *path, GError **error)
{
  g_return_val_if_fail (CT_IS_GRAPH_VIEW (self), FALSE);
  if (self->scene == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("There is no graph to export"));
      return FALSE;
    }
  return ct_graph_render_to_file (self->scene, path, ct_graph_palette_get (FALSE), 1, error);
}

/* GObject */

static void
ct_graph_view_dispose (GObject *object)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  ct_graph_view_stop_animation (self);
  for (guint i = 0; self->children != NULL && i < self->children->len; i++)
    {
      CtGraphNodeWidget *child = g_ptr_array_index (self->children, i);
      child->view = NULL;
      gtk_widget_unparent (GTK_WIDGET (child));
    }
  if (self->children != NULL)
    g_ptr_array_set_size (self->children, 0);
  if (self->children_by_id != NULL)
    g_hash_table_remove_all (self->children_by_id);
  g_clear_pointer (&self->scene, ct_graph_scene_free);
  g_clear_pointer (&self->model, ct_graph_model_unref);
  G_OBJECT_CLASS (ct_graph_view_parent_class)->dispose (object);
}

static void
ct_graph_view_finalize (GObject *object)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  g_hash_table_unref (self->expanded);
  g_hash_table_unref (self->pinned);
  g_hash_table_unref (self->selected);
  g_hash_table_unref (self->children_by_id);
  g_ptr_array_unref (self->children);
  g_array_unref (self->drag_moved);
  g_array_unref (self->drag_moved_from);
  g_free (self->highlight);
  g_hash_table_unref (self->run_states);
  g_array_unref (self->edge_runs);
  g_hash_table_unref (self->marks);
  G_OBJECT_CLASS (ct_graph_view_parent_class)->finalize (object);
}

static void
ct_graph_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_pointer (value, self->model);
      break;
    case PROP_RANKDIR:
      g_value_set_int (value, self->rankdir);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;
    case PROP_SHOW_MINIMAP:
      g_value_set_boolean (value, self->show_minimap);
      break;
    case PROP_HIGHLIGHT:
      g_value_set_string (value, self->highlight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_graph_view_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  CtGraphView *self = CT_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      ct_graph_view_set_model (self, g_value_get_pointer (value));
      break;
    case PROP_RANKDIR:
      ct_graph_view_set_rankdir (self, g_value_get_int (value));
      break;
    case PROP_ZOOM:
      ct_graph_view_set_zoom (self, g_value_get_double (value));
      break;
    case PROP_SHOW_MINIMAP:
      ct_graph_view_set_show_minimap (self, g_value_get_boolean (value));
      break;
    case PROP_HIGHLIGHT:
      ct_graph_view_set_highlight (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_graph_view_class_init (CtGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_graph_view_dispose;
  object_class->finalize = ct_graph_view_finalize;
  object_class->get_property = ct_graph_view_get_property;
  object_class->set_property = ct_graph_view_set_property;
  widget_class->snapshot = ct_graph_view_snapshot;
  widget_class->size_allocate = ct_graph_view_size_allocate;
  widget_class->measure = ct_graph_view_measure;

  /* A CtGraphModel (a plain struct, not a boxed type: use the functions). */
  ct_graph_view_properties[PROP_MODEL] =
    g_param_spec_pointer ("model", NULL, NULL,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  ct_graph_view_properties[PROP_RANKDIR] =
    g_param_spec_int ("rankdir", NULL, NULL, CT_GRAPH_RANKDIR_TB, CT_GRAPH_RANKDIR_LR,
                      CT_GRAPH_RANKDIR_TB,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  ct_graph_view_properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, ZOOM_FLOOR_MIN, ZOOM_MAX, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  ct_graph_view_properties[PROP_SHOW_MINIMAP] =
    g_param_spec_boolean ("show-minimap", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  ct_graph_view_properties[PROP_HIGHLIGHT] =
    g_param_spec_string ("highlight", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, ct_graph_view_properties);

  ct_graph_view_signals[SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 0);
  ct_graph_view_signals[NODE_ACTIVATED] =
    g_signal_new ("node-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  ct_graph_view_signals[CONNECT_REQUESTED] =
    g_signal_new ("connect-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_STRING,
                  G_TYPE_INT);
  ct_graph_view_signals[DISCONNECT_REQUESTED] =
    g_signal_new ("disconnect-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  ct_graph_view_signals[DELETE_REQUESTED] =
    g_signal_new ("delete-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);
  ct_graph_view_signals[LAYER_DROPPED] =
    g_signal_new ("layer-dropped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                  NULL, NULL, G_TYPE_NONE, 4, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                  G_TYPE_INT);
  ct_graph_view_signals[CONTEXT_MENU] =
    g_signal_new ("context-menu", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
  ct_graph_view_signals[NODE_MOVED] =
    g_signal_new ("node-moved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  ct_graph_view_class_init_input (widget_class);

  gtk_widget_class_set_css_name (widget_class, "graphview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

/* How to read an edge's gradient-health strip, over the strip: the blob,
 * its ratio ‖diff‖/‖data‖ and what the colours mean. */
char *
ct_graph_view_edge_health_text (const char *blob, double health)
{
  char ratio[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (ratio, sizeof ratio, "%.3g", health);
  /* TRANSLATORS: the tooltip of an edge's gradient-health strip; %s is the
   * blob, %s its ratio of gradient to value sizes */
  return g_strdup_printf (_("Gradient health of “%s”: ‖diff‖ / ‖data‖ = %s\n"
                            "Green (10⁻³ to 10⁻¹): a gradient that trains well. Blue, darker "
                            "below 10⁻⁵: it vanishes, the layers below learn slowly. Orange "
                            "above 10: it explodes. Red: NaN or infinity."),
                          blob, ratio);
}

static gboolean
query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);
  double gx, gy;
  int edge;
  const CtGraphEdgeRun *run;
  g_autofree char *text = NULL;

  if (keyboard || self->scene == NULL || self->edge_runs->len == 0)
    return FALSE;
  to_graph (self, x, y, &gx, &gy);
  edge = ct_graph_scene_edge_at (self->scene, gx, gy, 10 / self->zoom);
  if (edge < 0 || (guint) edge >= self->edge_runs->len)
    return FALSE;
  run = &g_array_index (self->edge_runs, CtGraphEdgeRun, edge);
  if (run->state != CT_GRAPH_EDGE_RUN_DIFF)
    return FALSE;
  text = ct_graph_view_edge_health_text (ct_graph_model_get_edge (self->model, (guint) edge)->blob,
                                         run->health);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
ct_graph_view_init (CtGraphView *self)
{
  self->zoom = 1;
  self->show_minimap = TRUE;
  self->hover_node = -1;
  self->drag_target = -1;
  self->drop_edge = -1;
  self->selected_edge = -1;
  self->expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pinned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->selected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->run_states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->edge_runs = g_array_new (FALSE, TRUE, sizeof (CtGraphEdgeRun));
  self->marks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       ct_graph_view_mark_free);
  self->children_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->children = g_ptr_array_new ();
  self->drag_moved = g_array_new (FALSE, FALSE, sizeof (guint));
  self->drag_moved_from = g_array_new (FALSE, FALSE, sizeof (CtGraphPoint));

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  /* the edges' gradient-health strips say how to read them */
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip), NULL);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Net graph"), -1);

  ct_graph_view_init_input (self);
}

GtkWidget *
ct_graph_view_new (void)
{
  return g_object_new (CT_TYPE_GRAPH_VIEW, NULL);
}
