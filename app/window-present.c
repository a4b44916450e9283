/* window-present.c: presentation mode (F12), the window as a lecture view:
 * full screen, large type, the layer list and the inspector's forms put
 * away, the graph fitted on the left and the stepped layer's blob large on
 * the right (CtPresentView). Stepping keeps working and the view follows
 * it: a step selects the layer it ran (window-run.c), so the runner copies
 * that layer's blobs for the view. */
#include <glib/gi18n-lib.h>

#include "present-view.h"
#include "window-lesson.h"
#include "window-private.h"

/* The graph's share of the width beside the large view, and the least
 * zoom it is shown at (node names stay readable at scale 2). */
#define GRAPH_SHARE 0.36
#define GRAPH_MIN_ZOOM 0.7

/* The graph's share of the paned's width, whatever the large view's
 * content asks (a long layer type in big type): the divider stays put
 * from step to step. */
static void
place_divider (GtkPaned *paned, GParamSpec *pspec, CtWindow *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (paned));
  int max = 0;

  if (!self->presenting || width <= 0)
    return;
  g_object_get (paned, "max-position", &max, NULL);
  gtk_paned_set_position (paned, MIN ((int) (width * GRAPH_SHARE), max));
}

void
ct_window_present_update (CtWindow *self)
{
  if (!self->presenting)
    return;
  ct_present_view_show (CT_PRESENT_VIEW (ct_window_get_part (self, "present_view")),
                        self->run_stale ? NULL : self->run_snapshot, self->run_current);
}

static void
set_presenting (CtWindow *self, gboolean on)
{
  GtkWidget *paned = ct_window_get_part (self, "present_paned");

  self->presenting = on;
  if (on)
    {
      adw_view_stack_set_visible_child_name (self->view_stack, "graph");
      gtk_widget_add_css_class (GTK_WIDGET (self), "presentation");
      gtk_window_fullscreen (GTK_WINDOW (self));
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self), "presentation");
      gtk_window_unfullscreen (GTK_WINDOW (self));
    }
  /* the view follows the step; the status line says what the view says */
  ct_window_update_switcher_bar (self);
  gtk_widget_set_visible (ct_window_get_part (self, "status_bar"), !on);
  gtk_widget_set_visible (ct_window_get_part (self, "present_view"), on);
  ct_window_update_palette (self);
  ct_window_lesson_presenting_changed (self);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), !on);
  /* the minimap would cover half of the graph's narrow share */
  if (on)
    self->minimap_before_presenting = ct_graph_view_get_show_minimap (self->graph_view);
  ct_graph_view_set_show_minimap (self->graph_view,
                                  on ? FALSE : self->minimap_before_presenting);
  gtk_widget_set_visible (GTK_WIDGET (self->phase_dropdown), !on);
  place_divider (GTK_PANED (paned), NULL, self);
  /* fitted now, and again as the window grows to the screen */
  ct_graph_view_set_min_fit_zoom (self->graph_view, on ? GRAPH_MIN_ZOOM : 0);
  ct_window_present_update (self);
}

void
ct_window_presentation_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  g_simple_action_set_state (action, state);
  set_presenting (CT_WINDOW (data), g_variant_get_boolean (state));
}

void
ct_window_init_present (CtWindow *self)
{
  g_signal_connect (ct_window_get_part (self, "present_paned"), "notify::max-position",
                    G_CALLBACK (place_divider), self);
}
