/* window-layout.c: the window on the screen it is given. A lecture hall's
 * projector or a HiDPI laptop at scale 2 gives a 1920×1080 screen 960×540
 * logical pixels: the window starts no larger than the screen, and below a
 * width where the layer list would squeeze the graph the list starts hidden
 * (F9 shows it, as GNOME apps show a sidebar). The header bar's view
 * switcher gives way to the title and a bar at the bottom when narrow
 * (window.ui). */
#include <glib/gi18n-lib.h>

#include "window-private.h"

/* Logical widths below which the layer list starts hidden: the inspector
 * (330) and a graph of readable width take the rest. */
#define PALETTE_ROOM 1100

/* The palette is shown with the graph and the source, when the user wants
 * it (win.show-palette) and not in presentation mode. */
void
ct_window_update_palette (CtWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "show-palette");
  g_autoptr (GVariant) state = action != NULL ? g_action_get_state (action) : NULL;
  const char *view = adw_view_stack_get_visible_child_name (self->view_stack);
  gboolean wanted = state == NULL || g_variant_get_boolean (state);

  gtk_widget_set_visible (ct_window_get_part (self, "palette_pane"),
                          wanted && !self->presenting && g_strcmp0 (view, "training") != 0);
  /* the inspector edits layers of the graph: beside the plots on a narrow
   * screen it would take a third of their room */
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_scroller),
                          !self->presenting
                            && !(self->narrow_window && g_strcmp0 (view, "training") == 0));
}

void
ct_window_show_palette_changed (GSimpleAction *action, GVariant *state, gpointer data)
{
  g_simple_action_set_state (action, state);
  ct_window_update_palette (CT_WINDOW (data));
}

/* The first monitor's size in logical pixels, or FALSE when none is known
 * (no display yet). */
static gboolean
screen_size (CtWindow *self, int *width, int *height)
{
  GListModel *monitors = gdk_display_get_monitors (gtk_widget_get_display (GTK_WIDGET (self)));
  g_autoptr (GdkMonitor) monitor = g_list_model_get_item (monitors, 0);
  GdkRectangle area;

  if (monitor == NULL)
    return FALSE;
  gdk_monitor_get_geometry (monitor, &area);
  *width = area.width;
  *height = area.height;
  return area.width > 0 && area.height > 0;
}

/* The bar at the bottom switches views when the header bar has no room
 * for a switcher (and not in presentation mode, which shows the graph). */
void
ct_window_update_switcher_bar (CtWindow *self)
{
  GtkWidget *squeezer = ct_window_get_part (self, "switcher_squeezer");
  gboolean none = adw_squeezer_get_visible_child (ADW_SQUEEZER (squeezer))
                  == ct_window_get_part (self, "switcher_none");

  gtk_widget_set_visible (ct_window_get_part (self, "view_switcher_bar"),
                          none && !self->presenting);
}

static void
switcher_squeezed (AdwSqueezer *squeezer, GParamSpec *pspec, CtWindow *self)
{
  ct_window_update_switcher_bar (self);
}

/* A narrow window: icons say Open and Save where their words would take
 * the view switcher's room (tooltips and accessible names keep the
 * words), and the Training view drops the inspector. */
static void
set_narrow (CtWindow *self, gboolean narrow)
{
  AdwSplitButton *save = ADW_SPLIT_BUTTON (ct_window_get_part (self, "save_button"));

  if (narrow == self->narrow_window)
    return;
  self->narrow_window = narrow;
  if (narrow)
    {
      adw_split_button_set_icon_name (self->open_button, "document-open-symbolic");
      adw_split_button_set_icon_name (save, "document-save-symbolic");
    }
  else
    {
      adw_split_button_set_label (self->open_button, _("_Open"));
      adw_split_button_set_label (save, _("_Save"));
    }
  ct_window_update_palette (self);
}

static void
surface_layout (GdkSurface *surface, int width, int height, CtWindow *self)
{
  set_narrow (self, width < PALETTE_ROOM);
}

static void
realized (CtWindow *self)
{
  g_signal_connect_object (gtk_native_get_surface (GTK_NATIVE (self)), "layout",
                           G_CALLBACK (surface_layout), self, 0);
}

void
ct_window_init_layout (CtWindow *self)
{
  int width, height, screen_w, screen_h;

  g_signal_connect (ct_window_get_part (self, "switcher_squeezer"), "notify::visible-child",
                    G_CALLBACK (switcher_squeezed), self);

  if (!screen_size (self, &screen_w, &screen_h))
    return;
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  if (width > screen_w || height > screen_h)
    gtk_window_set_default_size (GTK_WINDOW (self), MIN (width, screen_w),
                                 MIN (height, screen_h));
  set_narrow (self, screen_w < PALETTE_ROOM);
  g_signal_connect (self, "realize", G_CALLBACK (realized), NULL);
  if (screen_w < PALETTE_ROOM)
    g_action_change_state (g_action_map_lookup_action (G_ACTION_MAP (self), "show-palette"),
                           g_variant_new_boolean (FALSE));
}
