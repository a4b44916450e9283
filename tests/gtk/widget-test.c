/* widget-test.c: helpers for the widget tests under Xvfb (see
 * widget-test.h). */
#include "widget-test.h"

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
skip_no_display (void)
{
  g_test_skip ("no display (run under xvfb-run)");
}

gboolean
ct_widget_test_init (int *argc, char ***argv, const char *prefix)
{
  g_autofree char *path = g_strdup_printf ("%s/no-display", prefix);

  g_setenv ("GTK_A11Y", "test", TRUE);
  g_setenv ("GSK_RENDERER", "cairo", FALSE);
  g_test_init (argc, argv, NULL);
  if (gtk_init_check ())
    return TRUE;
  g_test_add_func (path, skip_no_display);
  return FALSE;
}

static void
on_after_paint (GdkFrameClock *clock, gboolean *painted)
{
  *painted = TRUE;
}

void
ct_widget_test_wait_for_paint (GtkWidget *widget)
{
  gboolean painted = FALSE, timed_out = FALSE;
  guint id = g_timeout_add (5000, timeout_cb, &timed_out);
  GdkFrameClock *clock;
  gulong handler;

  while (!timed_out && (gtk_widget_get_width (widget) <= 0 || !gtk_widget_get_mapped (widget)))
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  clock = gtk_widget_get_frame_clock (widget);
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &painted);
  gtk_widget_queue_draw (widget);
  while (!painted && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, handler);
  if (!timed_out)
    g_source_remove (id);
  g_assert_false (timed_out);
}

GtkEventController *
ct_widget_test_find_controller (GtkWidget *widget, GType type)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type))
        return c; /* the widget keeps its own reference */
    }
  g_assert_not_reached ();
}

GdkTexture *
ct_widget_test_render (GtkWidget *widget, const GdkRGBA *background)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int w, h;
  GskRenderer *renderer;
  GskRenderNode *node;
  GdkTexture *texture;

  ct_widget_test_wait_for_paint (widget);
  w = gtk_widget_get_width (widget);
  h = gtk_widget_get_height (widget);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  gtk_snapshot_append_color (snapshot, background, &GRAPHENE_RECT_INIT (0, 0, w, h));
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  return texture;
}

guint32
ct_widget_test_pixel (const guint8 *data, gsize stride, double x, double y)
{
  const guint8 *p = data + (gsize) y * stride + (gsize) x * 4;

  /* GDK_MEMORY_DEFAULT is B, G, R, A in memory (native ARGB32). */
  return (guint32) p[2] << 16 | (guint32) p[1] << 8 | p[0];
}
