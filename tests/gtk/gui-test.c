/* gui-test.c: helpers of the window tests under Xvfb (see gui-test.h). */
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "gui-test.h"
#ifdef CT_TEST_HAVE_X11
#include <gdk/x11/gdkx.h>
#endif
#include "test-files.h"
#include "window-private.h"

static gboolean
flag_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
ct_gui_test_spin (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, flag_timeout, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

void
ct_gui_test_settle (CtWindow *window)
{
  ct_gui_test_spin (20);
  ct_document_wait_validated (ct_window_get_document (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  ct_gui_test_spin (20);
}

GtkWidget *
ct_gui_test_find_widget (GtkWidget *widget, GType type, const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type)
          && (text == NULL || (GTK_IS_LABEL (child)
                               && g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), text) == 0)))
        return child;
      found = ct_gui_test_find_widget (child, type, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

gboolean
ct_gui_test_save_png (GtkWidget *widget, const char *path)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  /* the node is NULL until the widget has been drawn once */
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return FALSE;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  return gdk_texture_save_to_png (texture, path);
}

static void
skip_no_display (void)
{
  g_test_skip ("no display");
}

/* Xvfb starts the pointer at the screen's centre, over whatever a test
 * window shows there, and a toast under the pointer waits for it to leave
 * (libadwaita). The tests' windows open at the top left: the pointer goes
 * to the far corner. */
static void
park_pointer (void)
{
#ifdef CT_TEST_HAVE_X11
  GdkDisplay *display = gdk_display_get_default ();
  Display *x;
  int screen;

  if (!GDK_IS_X11_DISPLAY (display))
    return;
  x = gdk_x11_display_get_xdisplay (display);
  screen = DefaultScreen (x);
  XWarpPointer (x, None, RootWindow (x, screen), 0, 0, 0, 0, DisplayWidth (x, screen) - 1,
                DisplayHeight (x, screen) - 1);
  XFlush (x);
#endif
}

gboolean
ct_gui_test_init (int *argc, char ***argv, const char *prefix, char **scratch,
                  CtApplication **app)
{
  const char *localedir = g_getenv ("CORTADO_LOCALEDIR");
  g_autofree char *drafts = NULL;
  g_autofree char *data = NULL;
  g_autofree char *skip = NULL;

  *scratch = g_dir_make_tmp ("cortado-gui-test-XXXXXX", NULL);
  *app = NULL;
  drafts = g_build_filename (*scratch, "drafts", NULL);
  data = g_build_filename (*scratch, "data", NULL);
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  /* Before GLib reads them: recent files and drafts stay in SCRATCH. */
  g_setenv ("CORTADO_DRAFTS_DIR", drafts, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  /* English strings: the tests look for labels by their text. */
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (argc, argv, NULL);
  if (!gtk_init_check ())
    {
      skip = g_strdup_printf ("%s/no-display", prefix);
      g_test_add_func (skip, skip_no_display);
      return FALSE;
    }
  park_pointer ();
  ct_application_ensure_resources ();
  *app = ct_application_new ();
  g_application_set_flags (G_APPLICATION (*app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  g_assert_true (g_application_register (G_APPLICATION (*app), NULL, NULL));
  return TRUE;
}

int
ct_gui_test_finish (int status, char *scratch, CtApplication *app)
{
  gboolean display = app != NULL;

  g_clear_object (&app);
  ct_test_remove_tree (scratch);
  g_free (scratch);
  return display ? status : 77;
}

void
ct_gui_test_close_window (CtWindow *window)
{
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

GtkWidget *
ct_gui_test_find_named (GtkWidget *widget, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (widget), name) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = ct_gui_test_find_named (child, name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

CtRunSnapshot *
ct_gui_test_next_snapshot (CtWindow *window, guint64 *serial)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  for (;;)
    {
      CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);

      if (snapshot != NULL && ct_run_snapshot_get_serial (snapshot) > *serial)
        {
          *serial = ct_run_snapshot_get_serial (snapshot);
          return snapshot;
        }
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      ct_gui_test_spin (2);
    }
}
