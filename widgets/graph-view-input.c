/* graph-view-input.c: the graph view's input: pointer (select, move,
 * connect, disconnect, rubber band, pan, the minimap), scroll and pinch
 * zoom, the keyboard (focus along edges, zoom, delete), the widget actions,
 * and layer types dropped from a palette. */
#include "graph-view-private.h"

#include <math.h>
#include <string.h>

/* Pointer input */

static double
port_hit_radius (CtGraphView *self)
{
  return PORT_HIT / self->zoom;
}

/* The edge into bottom PORT of NODE, or -1. */
static int
edge_into (CtGraphView *self, guint node, guint port)
{
  guint n_in;
  const guint *in = ct_graph_model_node_in_edges (self->model, node, &n_in);

  for (guint i = 0; i < n_in; i++)
    if (ct_graph_model_get_edge (self->model, in[i])->to_port == port)
      return (int) in[i];
  return -1;
}

static void
set_hover (CtGraphView *self, int node)
{
  if (node == self->hover_node)
    return;
  ct_graph_view_redraw_node (self, self->hover_node);
  self->hover_node = node;
  ct_graph_view_redraw_node (self, node);
}

static void
update_cursor (CtGraphView *self, double wx, double wy)
{
  double gx, gy;
  gboolean is_top;
  guint port;
  const char *cursor = NULL;

  if (self->scene == NULL)
    {
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), NULL);
      return;
    }
  to_graph (self, wx, wy, &gx, &gy);
  if (ct_graph_minimap_contains (self, wx, wy))
    cursor = "pointer";
  else if (ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top,
                                   &port) >= 0)
    cursor = "crosshair";
  else if (ct_graph_scene_node_at (self->scene, gx, gy) >= 0)
    cursor = "default";
  else if (ct_graph_scene_edge_at (self->scene, gx, gy, EDGE_HIT / self->zoom) >= 0)
    cursor = "pointer";
  else
    cursor = "grab";
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), cursor);
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, CtGraphView *self)
{
  double gx, gy;

  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  if (self->scene == NULL || self->drag != DRAG_NONE)
    return;
  to_graph (self, x, y, &gx, &gy);
  set_hover (self, ct_graph_minimap_contains (self, x, y)
                     ? -1 : ct_graph_scene_node_at (self->scene, gx, gy));
  update_cursor (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *controller, CtGraphView *self)
{
  self->pointer_inside = FALSE;
  set_hover (self, -1);
}

/* What a click at graph point GX, GY on NODE is about: the id of the
 * folded layer there (its chip or row) or else the node's; *TOGGLE is set
 * (with the node's id) on the arrow that folds and unfolds. */
static const char *
id_at (CtGraphView *self, int node, double gx, double gy, gboolean *toggle)
{
  const CtGraphNode *n = ct_graph_model_get_node (self->model, node);
  int folded = ct_graph_scene_folded_at (self->scene, node, gx, gy, toggle);

  if (folded >= 0)
    return ((const CtGraphFolded *) g_ptr_array_index (n->folded, folded))->id;
  return n->id;
}

static void
on_click_pressed (GtkGestureClick *gesture, int n_press, double x, double y, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  double gx, gy;
  int node;
  gboolean is_top, toggle;
  guint port;
  const char *id;

  if (self->scene == NULL || ct_graph_minimap_contains (self, x, y))
    return;
  to_graph (self, x, y, &gx, &gy);
  /* ports start drags, they do not select */
  if (ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top, &port) >= 0)
    return;
  node = ct_graph_scene_node_at (self->scene, gx, gy);
  if (node < 0)
    {
      /* an edge within a few pixels selects its blob */
      int edge = ct_graph_scene_edge_at (self->scene, gx, gy, EDGE_HIT / self->zoom);

      gtk_widget_grab_focus (GTK_WIDGET (self));
      if (n_press != 1 || (edge < 0 && (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK))))
        return;
      if (edge == self->selected_edge && (edge >= 0 || g_hash_table_size (self->selected) == 0))
        return;
      ct_graph_view_select_only (self, -1);
      ct_graph_view_set_selected_edge (self, edge);
      g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
      return;
    }
  gtk_widget_grab_focus (GTK_WIDGET (child_at (self, node)));
  id = id_at (self, node, gx, gy, &toggle);
  if (toggle)
    {
      /* the arrow folds or unfolds, and nothing else (twice for a double
       * click would undo it) */
      if (n_press == 1)
        ct_graph_view_set_expanded (self, id, !ct_graph_view_get_expanded (self, id));
      return;
    }
  if (n_press == 2)
    {
      g_signal_emit (self, ct_graph_view_signals[NODE_ACTIVATED], 0, id);
      return;
    }
  if (state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK))
    ct_graph_view_toggle_selected_id (self, id);
  else if (!g_hash_table_contains (self->selected, id))
    ct_graph_view_select_only_id (self, id);
  else
    return;  /* clicking a selected node keeps a multiple selection for dragging */
  g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
}

static void
on_secondary_pressed (GtkGestureClick *gesture, int n_press, double x, double y,
                      CtGraphView *self)
{
  double gx, gy;
  int node = -1;
  const char *id = NULL;

  if (self->scene != NULL)
    {
      to_graph (self, x, y, &gx, &gy);
      node = ct_graph_scene_node_at (self->scene, gx, gy);
    }
  if (node >= 0)
    {
      gboolean toggle;

      id = id_at (self, node, gx, gy, &toggle);
      if (!g_hash_table_contains (self->selected, id))
        {
          ct_graph_view_select_only_id (self, id);
          g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
        }
      gtk_widget_grab_focus (GTK_WIDGET (child_at (self, node)));
    }
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  g_signal_emit (self, ct_graph_view_signals[CONTEXT_MENU], 0, id, x, y);
}

static void
begin_move (CtGraphView *self, int node)
{
  const char *id = ct_graph_model_get_node (self->model, node)->id;

  g_array_set_size (self->drag_moved, 0);
  g_array_set_size (self->drag_moved_from, 0);
  if (!g_hash_table_contains (self->selected, id))
    {
      guint n = node;
      g_array_append_val (self->drag_moved, n);
    }
  else
    for (int i = 0; i < node_count (self); i++)
      if (g_hash_table_contains (self->selected, ct_graph_model_get_node (self->model, i)->id))
        {
          guint n = i;
          g_array_append_val (self->drag_moved, n);
        }
  for (guint i = 0; i < self->drag_moved->len; i++)
    {
      const CtGraphLayoutNode *n = &self->scene->layout->nodes[g_array_index (self->drag_moved,
                                                                              guint, i)];
      CtGraphPoint p = { n->x, n->y };
      g_array_append_val (self->drag_moved_from, p);
    }
  self->drag = DRAG_MOVE;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  double gx, gy;
  gboolean is_top = FALSE;
  guint port = 0;
  int node;

  self->drag = DRAG_NONE;
  self->drag_start_x = self->drag_x = x;
  self->drag_start_y = self->drag_y = y;
  self->drag_origin_x = self->origin_x;
  self->drag_origin_y = self->origin_y;
  self->drag_target = -1;
  ct_graph_view_stop_animation (self);
  if (self->scene == NULL)
    {
      self->drag = DRAG_PAN;
      return;
    }
  if (ct_graph_minimap_contains (self, x, y))
    {
      self->drag = DRAG_MINIMAP;
      ct_graph_minimap_center_on (self, x, y);
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }
  to_graph (self, x, y, &gx, &gy);
  node = ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top, &port);
  if (node >= 0 && is_top)
    {
      self->drag = DRAG_CONNECT;
      self->drag_node = node;
      self->drag_port = port;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }
  if (node >= 0 && !is_top && edge_into (self, node, port) >= 0)
    {
      self->drag = DRAG_DISCONNECT;
      self->drag_edge = edge_into (self, node, port);
      self->drag_target = node;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      return;
    }
  node = ct_graph_scene_node_at (self->scene, gx, gy);
  if (node >= 0)
    {
      self->drag_node = node;
      begin_move (self, node);
      return;
    }
  self->drag = (state & GDK_SHIFT_MASK) ? DRAG_RUBBER : DRAG_PAN;
  if (self->drag == DRAG_PAN)
    gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
}

static int
target_node (CtGraphView *self, double wx, double wy, int *bottom_port)
{
  double gx, gy;
  gboolean is_top;
  guint port;
  int node;

  to_graph (self, wx, wy, &gx, &gy);
  *bottom_port = -1;
  node = ct_graph_scene_port_at (self->scene, gx, gy, port_hit_radius (self), &is_top, &port);
  if (node >= 0 && !is_top)
    {
      *bottom_port = (int) port;
      return node;
    }
  return ct_graph_scene_node_at (self->scene, gx, gy);
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, CtGraphView *self)
{
  int bottom_port;

  self->drag_x = self->drag_start_x + dx;
  self->drag_y = self->drag_start_y + dy;
  switch (self->drag)
    {
    case DRAG_PAN:
      self->fitted = FALSE;
      ct_graph_view_set_origin (self, self->drag_origin_x - dx / self->zoom,
                                self->drag_origin_y - dy / self->zoom);
      break;
    case DRAG_MINIMAP:
      ct_graph_minimap_center_on (self, self->drag_x, self->drag_y);
      break;
    case DRAG_MOVE:
      if (fabs (dx) < 4 && fabs (dy) < 4)
        break;
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      for (guint i = 0; i < self->drag_moved->len; i++)
        {
          CtGraphPoint from = g_array_index (self->drag_moved_from, CtGraphPoint, i);
          ct_graph_scene_move_node (self->scene, g_array_index (self->drag_moved, guint, i),
                                    from.x + dx / self->zoom, from.y + dy / self->zoom);
        }
      gtk_widget_queue_allocate (GTK_WIDGET (self));
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;
    case DRAG_CONNECT:
    case DRAG_DISCONNECT:
      {
        int old = self->drag_target;
        self->drag_target = target_node (self, self->drag_x, self->drag_y, &bottom_port);
        if (self->drag == DRAG_CONNECT && self->drag_target == self->drag_node)
          self->drag_target = -1;
        if (old != self->drag_target)
          {
            ct_graph_view_redraw_node (self, old);
            ct_graph_view_redraw_node (self, self->drag_target);
          }
        gtk_widget_queue_draw (GTK_WIDGET (self));
      }
      break;
    case DRAG_RUBBER:
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;
    case DRAG_NONE:
    default:
      break;
    }
}

static void
finish_rubber (CtGraphView *self, GdkModifierType state)
{
  double x0, y0, x1, y1;
  gboolean changed = FALSE;

  to_graph (self, MIN (self->drag_start_x, self->drag_x), MIN (self->drag_start_y, self->drag_y),
            &x0, &y0);
  to_graph (self, MAX (self->drag_start_x, self->drag_x), MAX (self->drag_start_y, self->drag_y),
            &x1, &y1);
  if (!(state & GDK_CONTROL_MASK) && g_hash_table_size (self->selected) > 0)
    {
      g_hash_table_remove_all (self->selected);
      changed = TRUE;
    }
  for (int i = 0; i < node_count (self); i++)
    {
      double bx, by, bw, bh;
      ct_graph_scene_node_box (self->scene, i, &bx, &by, &bw, &bh);
      if (bx + bw >= x0 && bx <= x1 && by + bh >= y0 && by <= y1)
        changed |= g_hash_table_add (self->selected,
                                     g_strdup (ct_graph_model_get_node (self->model, i)->id));
    }
  ct_graph_view_update_selected (self);
  if (changed)
    g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
}

/* A connection from FROM into TO is asked for. The model that follows lays
 * TO out again as if new, beside its new input, as inserting a layer does:
 * a layer dropped somewhere on the canvas and then connected must not stay
 * where it was dropped, above its input, with its edges running up behind
 * other nodes. FROM too, when the user had placed it where it was dropped. */
static void
forget_places (CtGraphView *self, int from, int to)
{
  const char *from_id = ct_graph_model_get_node (self->model, from)->id;

  ct_graph_view_forget_place (self, ct_graph_model_get_node (self->model, to)->id);
  if (g_hash_table_contains (self->pinned, from_id))
    ct_graph_view_forget_place (self, from_id);
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));
  DragMode mode = self->drag;
  int target, bottom_port;

  self->drag = DRAG_NONE;
  if (self->scene == NULL)
    return;
  switch (mode)
    {
    case DRAG_CONNECT:
      target = target_node (self, self->drag_start_x + dx, self->drag_start_y + dy, &bottom_port);
      if (target < 0 || target == self->drag_node)
        break;
      forget_places (self, self->drag_node, target);
      g_signal_emit (self, ct_graph_view_signals[CONNECT_REQUESTED], 0,
                     ct_graph_model_get_node (self->model, self->drag_node)->id,
                     self->drag_port, ct_graph_model_get_node (self->model, target)->id,
                     bottom_port);
      break;
    case DRAG_DISCONNECT:
      {
        const CtGraphEdge *edge = ct_graph_model_get_edge (self->model, self->drag_edge);
        guint from = edge->from_node, from_port = edge->from_port, to = edge->to_node;
        g_autofree char *from_id = g_strdup (ct_graph_model_get_node (self->model, from)->id);
        target = target_node (self, self->drag_start_x + dx, self->drag_start_y + dy,
                              &bottom_port);
        g_autofree char *target_id = NULL;
        if (target == (int) to && (bottom_port < 0 || bottom_port == (int) edge->to_port))
          break;  /* let go where it was: nothing changes */
        /* by id: the app's answer to the first signal replaces the model */
        if (target >= 0 && target != (int) from)
          {
            target_id = g_strdup (ct_graph_model_get_node (self->model, target)->id);
            forget_places (self, (int) from, target);
          }
        g_signal_emit (self, ct_graph_view_signals[DISCONNECT_REQUESTED], 0,
                       (guint) self->drag_edge);
        /* dropped on another node: reconnect the blob there */
        if (target_id != NULL && self->model != NULL
            && ct_graph_model_find_node (self->model, target_id) >= 0)
          g_signal_emit (self, ct_graph_view_signals[CONNECT_REQUESTED], 0, from_id, from_port,
                         target_id, bottom_port);
      }
      break;
    case DRAG_MOVE:
      if (fabs (dx) < 4 && fabs (dy) < 4)
        break;
      for (guint i = 0; i < self->drag_moved->len; i++)
        {
          guint node = g_array_index (self->drag_moved, guint, i);
          const CtGraphLayoutNode *n = &self->scene->layout->nodes[node];
          const char *id = ct_graph_model_get_node (self->model, node)->id;
          ct_graph_view_pin (self, id, n->x, n->y);
          g_signal_emit (self, ct_graph_view_signals[NODE_MOVED], 0, id);
        }
      break;
    case DRAG_RUBBER:
      finish_rubber (self, state);
      break;
    case DRAG_PAN:
    case DRAG_MINIMAP:
    case DRAG_NONE:
    default:
      break;
    }
  if (self->drag_target >= 0)
    ct_graph_view_redraw_node (self, self->drag_target);
  self->drag_target = -1;
  update_cursor (self, self->drag_start_x + dx, self->drag_start_y + dy);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, CtGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (controller));
  gboolean wheel = gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL;

  self->fit_pending = FALSE;
  if (state & GDK_CONTROL_MASK)
    {
      double factor = pow (wheel ? 1.15 : 1.01, -dy);
      ct_graph_view_zoom_at (self, self->zoom * factor, self->pointer_x, self->pointer_y);
      return TRUE;
    }
  if (state & GDK_SHIFT_MASK && dx == 0)
    {
      dx = dy;
      dy = 0;
    }
  ct_graph_view_stop_animation (self);
  self->fitted = FALSE;
  ct_graph_view_set_origin (self, self->origin_x + dx * (wheel ? 50 : 1) / self->zoom,
                            self->origin_y + dy * (wheel ? 50 : 1) / self->zoom);
  return TRUE;
}

static void
on_pinch_begin (GtkGesture *gesture, GdkEventSequence *sequence, CtGraphView *self)
{
  self->pinch_zoom = self->zoom;
}

static void
on_pinch_scale (GtkGestureZoom *gesture, double scale, CtGraphView *self)
{
  double cx, cy;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    {
      cx = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      cy = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  ct_graph_view_zoom_at (self, self->pinch_zoom * scale, cx, cy);
}

/* Keyboard */

static int
focused_node (CtGraphView *self)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (GTK_WIDGET (self)));

  while (focus != NULL && !CT_IS_GRAPH_NODE_WIDGET (focus))
    focus = focus == GTK_WIDGET (self) ? NULL : gtk_widget_get_parent (focus);
  if (focus == NULL || CT_GRAPH_NODE_WIDGET (focus)->view != self)
    return -1;
  return (int) CT_GRAPH_NODE_WIDGET (focus)->index;
}

/* The neighbour of NODE in direction: along edges (forward: to consumers,
 * backward: to producers), picking the one closest across; or within the
 * rank (across: -1 left/up, +1 right/down). */
static int
neighbour (CtGraphView *self, int node, int along, int across)
{
  const CtGraphLayout *layout = self->scene->layout;
  const CtGraphLayoutNode *from = &layout->nodes[node];
  gboolean lr = self->rankdir == CT_GRAPH_RANKDIR_LR;
  double from_across = lr ? from->y : from->x;
  int best = -1;
  double best_d = G_MAXDOUBLE;

  if (along != 0)
    {
      guint n;
      const guint *edges = along > 0 ? ct_graph_model_node_out_edges (self->model, node, &n)
                                     : ct_graph_model_node_in_edges (self->model, node, &n);
      for (guint i = 0; i < n; i++)
        {
          const CtGraphEdge *e = ct_graph_model_get_edge (self->model, edges[i]);
          int other = along > 0 ? (int) e->to_node : (int) e->from_node;
          const CtGraphLayoutNode *o = &layout->nodes[other];
          double d = fabs ((lr ? o->y : o->x) - from_across) + 0.01 * abs (o->rank - from->rank);
          if (d < best_d)
            {
              best_d = d;
              best = other;
            }
        }
      return best;
    }
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      const CtGraphLayoutNode *o = &layout->nodes[i];
      double delta = (lr ? o->y : o->x) - from_across;
      double d;
      if ((int) i == node || delta * across <= 0)
        continue;
      /* same rank first, then the nearest rank */
      d = fabs (delta) + 10000.0 * abs (o->rank - from->rank);
      if (d < best_d)
        {
          best_d = d;
          best = (int) i;
        }
    }
  return best;
}

static void
move_focus (CtGraphView *self, int node, GdkModifierType state)
{
  if (node < 0)
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  ct_graph_view_reveal (self, ct_graph_model_get_node (self->model, node)->id, TRUE);
  if (state & GDK_CONTROL_MASK)
    return;  /* move the focus only */
  if (state & GDK_SHIFT_MASK)
    g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, node)->id));
  else
    {
      g_hash_table_remove_all (self->selected);
      g_hash_table_add (self->selected, g_strdup (ct_graph_model_get_node (self->model, node)->id));
    }
  ct_graph_view_update_selected (self);
  g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, CtGraphView *self)
{
  int focus = focused_node (self);
  gboolean lr = self->rankdir == CT_GRAPH_RANKDIR_LR;
  int along = 0, across = 0;

  state &= gtk_accelerator_get_default_mod_mask ();
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      ct_graph_view_zoom_in (self);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      ct_graph_view_zoom_out (self);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      if (state != 0)
        return FALSE;
      ct_graph_view_zoom_to_fit (self);
      return TRUE;
    case GDK_KEY_1:
    case GDK_KEY_KP_1:
      if (state != 0)
        return FALSE;
      ct_graph_view_set_zoom (self, 1.0);
      return TRUE;
    case GDK_KEY_Delete:
    case GDK_KEY_KP_Delete:
    case GDK_KEY_BackSpace:
      {
        g_auto(GStrv) ids = ct_graph_view_dup_selected (self);
        if (ids[0] != NULL)
          g_signal_emit (self, ct_graph_view_signals[DELETE_REQUESTED], 0, ids);
        return ids[0] != NULL;
      }
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
      if (focus < 0)
        return FALSE;
      g_signal_emit (self, ct_graph_view_signals[NODE_ACTIVATED], 0,
                     ct_graph_model_get_node (self->model, focus)->id);
      return TRUE;
    case GDK_KEY_space:
      if (focus < 0)
        return FALSE;
      ct_graph_view_toggle_selected (self, focus);
      g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
      return TRUE;
    case GDK_KEY_Escape:
      if (g_hash_table_size (self->selected) == 0 && self->selected_edge < 0)
        return FALSE;
      ct_graph_view_select_only (self, -1);
      ct_graph_view_set_selected_edge (self, -1);
      g_signal_emit (self, ct_graph_view_signals[SELECTION_CHANGED], 0);
      return TRUE;
    case GDK_KEY_F10:
      if (state != GDK_SHIFT_MASK)
        return FALSE;
      G_GNUC_FALLTHROUGH;
    case GDK_KEY_Menu:
      {
        double x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
        double y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
        if (focus >= 0)
          to_widget (self, self->scene->layout->nodes[focus].x,
                     self->scene->layout->nodes[focus].y, &x, &y);
        g_signal_emit (self, ct_graph_view_signals[CONTEXT_MENU], 0,
                       focus >= 0 ? ct_graph_model_get_node (self->model, focus)->id : NULL,
                       x, y);
        return TRUE;
      }
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      *(lr ? &across : &along) = -1;
      break;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      *(lr ? &across : &along) = 1;
      break;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      *(lr ? &along : &across) = -1;
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      *(lr ? &along : &across) = 1;
      break;
    default:
      return FALSE;
    }
  if (self->scene == NULL || node_count (self) == 0)
    return FALSE;
  if (focus < 0)
    {
      /* no node has the focus: start from the selection, else the first
       * node */
      for (int i = 0; i < node_count (self) && focus < 0; i++)
        if (g_hash_table_contains (self->selected, ct_graph_model_get_node (self->model, i)->id))
          focus = i;
      move_focus (self, focus >= 0 ? focus : 0, state);
      return TRUE;
    }
  move_focus (self, neighbour (self, focus, along, across), state);
  return TRUE;
}

/* Widget actions: the same operations as the keys, for menus, shortcuts
 * of the window and tests. */

static void
action_zoom (GtkWidget *widget, const char *name, GVariant *parameter)
{
  CtGraphView *self = CT_GRAPH_VIEW (widget);

  if (strcmp (name, "graph.zoom-in") == 0)
    ct_graph_view_zoom_in (self);
  else if (strcmp (name, "graph.zoom-out") == 0)
    ct_graph_view_zoom_out (self);
  else if (strcmp (name, "graph.zoom-fit") == 0)
    ct_graph_view_zoom_to_fit (self);
  else
    ct_graph_view_set_zoom (self, 1.0);
}

static void
action_select_all (GtkWidget *widget, const char *name, GVariant *parameter)
{
  ct_graph_view_select_all (CT_GRAPH_VIEW (widget));
  g_signal_emit (widget, ct_graph_view_signals[SELECTION_CHANGED], 0);
}

static void
action_delete (GtkWidget *widget, const char *name, GVariant *parameter)
{
  g_auto(GStrv) ids = ct_graph_view_dup_selected (CT_GRAPH_VIEW (widget));

  if (ids[0] != NULL)
    g_signal_emit (widget, ct_graph_view_signals[DELETE_REQUESTED], 0, ids);
}

/* "graph.navigate" with "up", "down", "left" or "right": as the arrow key. */
static void
action_navigate (GtkWidget *widget, const char *name, GVariant *parameter)
{
  static const struct {
    const char *name;
    guint keyval;
  } keys[] = {
    { "up", GDK_KEY_Up }, { "down", GDK_KEY_Down },
    { "left", GDK_KEY_Left }, { "right", GDK_KEY_Right },
  };
  const char *direction = g_variant_get_string (parameter, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (strcmp (direction, keys[i].name) == 0)
      on_key_pressed (NULL, keys[i].keyval, 0, 0, CT_GRAPH_VIEW (widget));
}

/* Drops from the palette */

static GdkDragAction
on_drop_motion (GtkDropTarget *target, double x, double y, CtGraphView *self)
{
  double gx, gy;
  int edge = -1;

  if (self->scene != NULL)
    {
      to_graph (self, x, y, &gx, &gy);
      if (ct_graph_scene_node_at (self->scene, gx, gy) < 0)
        edge = ct_graph_scene_edge_at (self->scene, gx, gy, 10 / self->zoom);
    }
  if (edge != self->drop_edge)
    {
      self->drop_edge = edge;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  return GDK_ACTION_COPY;
}

static void
on_drop_leave (GtkDropTarget *target, CtGraphView *self)
{
  if (self->drop_edge >= 0)
    {
      self->drop_edge = -1;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, CtGraphView *self)
{
  const char *type;
  double gx, gy;
  int edge;

  if (!G_VALUE_HOLDS_STRING (value) || (type = g_value_get_string (value)) == NULL
      || *type == '\0')
    return FALSE;
  to_graph (self, x, y, &gx, &gy);
  on_drop_motion (target, x, y, self);
  edge = self->drop_edge;
  self->drop_edge = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, ct_graph_view_signals[LAYER_DROPPED], 0, type, gx, gy, edge);
  return TRUE;
}

void
ct_graph_view_class_init_input (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "graph.zoom-in", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.zoom-out", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.zoom-fit", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.zoom-reset", NULL, action_zoom);
  gtk_widget_class_install_action (widget_class, "graph.select-all", NULL, action_select_all);
  gtk_widget_class_install_action (widget_class, "graph.delete", NULL, action_delete);
  gtk_widget_class_install_action (widget_class, "graph.navigate", "s", action_navigate);
}

void
ct_graph_view_init_input (CtGraphView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;
  GtkDropTarget *drop;

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_click_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_SECONDARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_secondary_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (gesture, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_pinch_scale), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_key_new ();
  g_signal_connect (controller, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  drop = gtk_drop_target_new (G_TYPE_STRING, GDK_ACTION_COPY);
  g_signal_connect (drop, "motion", G_CALLBACK (on_drop_motion), self);
  g_signal_connect (drop, "leave", G_CALLBACK (on_drop_leave), self);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
