/* test-window-classroom.c: the window as a lecturer uses it, under Xvfb
 * (skipped without a display).
 *
 * - toasts: an error toast goes by itself after a time long enough to read
 *   it, at once when the run is started again (the NaN message is not up
 *   during the next healthy run), and no toast covers the graph's zoom
 *   controls, at 960×540 (a 1920×1080 projector at scale 2) and 1280×720;
 * - presentation mode with a lesson open, at 960×540 and 1280×720: the
 *   lesson's step shows as a compact bar above the graph and the large
 *   view (its text, Back and Next), not as a column beside them; the
 *   window still fits the screen, the large view keeps most of the width,
 *   Next works from the bar; leaving presentation mode brings the column
 *   back;
 * - a session keeps where the step-through stood (forward or backward,
 *   which layer), the selected layer, and the inspector's blob, data or
 *   diff, focused channel, colour map and scale: saved, reopened in a new
 *   window (which steps its run there) and compared.
 *
 * With CT_SCREENSHOT_DIR set, the window is saved there at each check (at
 * the display's scale). */
#include <string.h>
#include <glib/gstdio.h>

#include "gui-test.h"
#include "lesson.h"
#include "session.h"
#include "window-lesson.h"
#include "window-private.h"
#include "window-session.h"

static CtApplication *app;

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

/* The window as drawn now, at the display's scale, to
 * CT_SCREENSHOT_DIR/NAME-WIDTHxHEIGHT.png when the folder is given. */
static void
screenshot (CtWindow *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  GtkWidget *widget = GTK_WIDGET (window);
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;
  GtkSnapshot *snapshot;
  int scale, width, height;

  if (dir == NULL)
    return;
  ct_gui_test_spin (300);
  scale = gtk_widget_get_scale_factor (widget);
  width = gtk_widget_get_width (widget);
  height = gtk_widget_get_height (widget);
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gtk_snapshot_scale (snapshot, scale, scale);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width * scale,
                                                              height * scale));
  file = g_strdup_printf ("%s-%dx%d@%d.png", name, width, height, scale);
  path = g_build_filename (dir, file, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

static CtWindow *
lenet_window (int width, int height)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  return window;
}

/* The toast widgets under WIDGET showing now. */
static void
find_toasts (GtkWidget *widget, GPtrArray *found)
{
  if (g_str_equal (G_OBJECT_TYPE_NAME (widget), "AdwToastWidget")
      && gtk_widget_get_mapped (widget))
    g_ptr_array_add (found, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    find_toasts (child, found);
}

/* The toasts shown now (at most two seconds' wait for one to come up). */
static GPtrArray *
shown_toasts (CtWindow *window, gboolean wait)
{
  GPtrArray *found = g_ptr_array_new ();

  for (int tries = 0; tries < 40; tries++)
    {
      g_ptr_array_set_size (found, 0);
      find_toasts (GTK_WIDGET (window), found);
      if (found->len > 0 || !wait)
        break;
      ct_gui_test_spin (50);
    }
  /* the toast's show animation */
  ct_gui_test_spin (400);
  g_ptr_array_set_size (found, 0);
  find_toasts (GTK_WIDGET (window), found);
  return found;
}

static void
assert_apart (CtWindow *window, GtkWidget *toast, const char *where)
{
  GtkWidget *controls = ct_window_get_part (window, "graph_controls");
  graphene_rect_t a, b;

  g_assert_true (gtk_widget_compute_bounds (toast, GTK_WIDGET (window), &a));
  g_assert_true (gtk_widget_compute_bounds (controls, GTK_WIDGET (window), &b));
  g_test_message ("%s: toast %.0f,%.0f %.0f×%.0f; controls %.0f,%.0f %.0f×%.0f", where,
                  a.origin.x, a.origin.y, a.size.width, a.size.height, b.origin.x, b.origin.y,
                  b.size.width, b.size.height);
  g_assert_true (gtk_widget_get_mapped (controls));
  if (graphene_rect_intersection (&a, &b, NULL))
    g_error ("%s: the toast covers the graph's zoom controls", where);
}

static const char nan_message[] =
  "Training stopped at layer “ip1”: its output holds NaN (not a number) after iteration 1234; "
  "lower base_lr and restart";

/* No toast under WINDOW after a wait of at most SECONDS. */
static void
wait_no_toasts (CtWindow *window, int seconds)
{
  for (int tries = 0;; tries++)
    {
      g_autoptr (GPtrArray) toasts = g_ptr_array_new ();

      find_toasts (GTK_WIDGET (window), toasts);
      if (toasts->len == 0)
        return;
      if (tries > seconds * 20)
        {
          GtkWidget *label = ct_gui_test_find_widget (g_ptr_array_index (toasts, 0),
                                                      GTK_TYPE_LABEL, NULL);

          g_error ("a toast is still up: %s",
                   label != NULL ? gtk_label_get_text (GTK_LABEL (label)) : "?");
        }
      ct_gui_test_spin (50);
    }
}

static void
test_toasts (void)
{
  static const int sizes[][2] = { { 960, 540 }, { 1280, 720 } };
  static const char second[] = "The run stopped: layer “ip1” gave NaN";

  /* a short message gets the floor, a long one more, never minutes */
  g_assert_cmpuint (ct_window_error_timeout ("Saved"), ==, 8);
  g_assert_cmpuint (ct_window_error_timeout (nan_message), >, 8);
  g_assert_cmpuint (ct_window_error_timeout (nan_message), <=, 25);
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      CtWindow *window = lenet_window (sizes[s][0], sizes[s][1]);
      g_autoptr (GPtrArray) toasts = NULL;
      g_autofree char *where = g_strdup_printf ("%d×%d", sizes[s][0], sizes[s][1]);
      guint64 serial = 0;

      /* two errors of one failure: one at a time, the later one last */
      ct_window_show_error (window, nan_message);
      ct_window_show_error (window, second);
      g_assert_cmpuint (ct_window_n_errors (window), ==, 2);
      /* after the animation of a toast added before, if any */
      for (int tries = 0; ct_window_get_error_shown (window) == NULL; tries++)
        {
          g_assert_cmpint (tries, <, 40);
          ct_gui_test_spin (50);
        }
      g_assert_cmpstr (ct_window_get_error_shown (window), ==, nan_message);
      /* it goes by itself, after a time to read it */
      g_assert_cmpuint (adw_toast_get_timeout (window->shown_toast), ==,
                        ct_window_error_timeout (nan_message));
      toasts = shown_toasts (window, TRUE);
      g_assert_cmpuint (toasts->len, ==, 1);
      assert_apart (window, g_ptr_array_index (toasts, 0), where);
      screenshot (window, "toast-error");
      for (int tries = 0; g_strcmp0 (ct_window_get_error_shown (window), second) != 0; tries++)
        {
          g_assert_cmpint (tries, <, 100);
          ct_gui_test_spin (50);
        }
      g_assert_cmpuint (ct_window_n_errors (window), ==, 1);
      g_clear_pointer (&toasts, g_ptr_array_unref);
      toasts = shown_toasts (window, TRUE);
      g_assert_cmpuint (toasts->len, ==, 1);
      assert_apart (window, g_ptr_array_index (toasts, 0), where);

      /* a routine toast sits where the error did */
      ct_window_dismiss_error (window);
      g_assert_cmpuint (ct_window_n_errors (window), ==, 0);
      ct_window_show_toast (window, "The backward pass is complete: step forward to start a "
                                    "new pass");
      ct_gui_test_spin (800);
      g_clear_pointer (&toasts, g_ptr_array_unref);
      toasts = shown_toasts (window, TRUE);
      g_assert_cmpuint (toasts->len, >=, 1);
      assert_apart (window, g_ptr_array_index (toasts, 0), where);
      wait_no_toasts (window, 6);

      /* the NaN message goes when the next run starts */
      ct_window_show_error (window, nan_message);
      g_clear_pointer (&toasts, g_ptr_array_unref);
      toasts = shown_toasts (window, TRUE);
      g_assert_cmpuint (toasts->len, ==, 1);
      g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
      g_assert_cmpuint (ct_window_n_errors (window), ==, 0);
      g_assert_null (ct_run_snapshot_get_error (ct_gui_test_next_snapshot (window, &serial)));
      wait_no_toasts (window, 2);
      g_assert_null (ct_window_get_error_shown (window));
      ct_gui_test_close_window (window);
    }
}

/* Errors and dismissals at any pace (a run that fails again at once after
 * F7): libadwaita 1.2 crashed on these before toasts were paced. */
static void
test_toast_pace (void)
{
  CtWindow *window = lenet_window (960, 540);
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);

  for (int i = 0; i < 30; i++)
    {
      g_autofree char *message = g_strdup_printf ("error %d", i);

      ct_window_show_error (window, message);
      if (i == 5)
        ct_window_show_toast (window, "routine");
      ct_gui_test_spin (g_rand_int_range (rand, 0, 400));
      if (i % 2 == 0)
        ct_window_dismiss_error (window);
      ct_gui_test_spin (g_rand_int_range (rand, 0, 200));
    }
  ct_window_dismiss_error (window);
  wait_no_toasts (window, 8);
  g_assert_cmpuint (ct_window_n_errors (window), ==, 0);
  ct_gui_test_close_window (window);
}

static void
set_state (CtWindow *window, const char *action, gboolean on)
{
  g_action_group_change_action_state (G_ACTION_GROUP (window), action,
                                      g_variant_new_boolean (on));
}

/* WIDGET's box in WINDOW's coordinates. */
static graphene_rect_t
bounds (CtWindow *window, GtkWidget *widget)
{
  graphene_rect_t r;

  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (window), &r));
  return r;
}

static void
test_present_lesson (void)
{
  static const int sizes[][2] = { { 960, 540 }, { 1280, 720 } };

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      CtWindow *window = ct_window_new (app);
      GtkWidget *panel, *next, *view = NULL;
      graphene_rect_t p, v, w;
      int min_width, min_height;
      guint index;

      gtk_window_set_default_size (GTK_WINDOW (window), sizes[s][0], sizes[s][1]);
      gtk_window_present (GTK_WINDOW (window));
      g_action_group_activate_action (G_ACTION_GROUP (window), "open-lesson",
                                      g_variant_new_string ("convolution"));
      for (int tries = 0; ct_window_lesson_is_busy (window); tries++)
        {
          g_assert_cmpint (tries, <, 1200);
          ct_gui_test_spin (50);
        }
      ct_gui_test_settle (window);
      panel = ct_window_lesson_get_panel (window);
      g_assert_true (gtk_widget_get_mapped (panel));
      screenshot (window, "lesson");

      set_state (window, "presentation", TRUE);
      ct_gui_test_spin (300);
      view = ct_window_get_part (window, "present_view");
      g_assert_true (gtk_widget_get_mapped (panel));
      g_assert_true (gtk_widget_get_mapped (view));
      /* the step as a bar across the top, the large view below it */
      p = bounds (window, panel);
      v = bounds (window, view);
      w = bounds (window, GTK_WIDGET (window));
      g_test_message ("%d×%d: bar %.0f,%.0f %.0f×%.0f; large view %.0f,%.0f %.0f×%.0f",
                      sizes[s][0], sizes[s][1], p.origin.x, p.origin.y, p.size.width,
                      p.size.height, v.origin.x, v.origin.y, v.size.width, v.size.height);
      g_assert_cmpfloat (p.size.width, >=, w.size.width * 0.9);
      g_assert_cmpfloat (p.size.height, <=, w.size.height * 0.25);
      g_assert_cmpfloat (v.origin.y, >=, p.origin.y + p.size.height);
      g_assert_cmpfloat (v.size.width, >=, w.size.width * 0.5);
      /* the whole window still fits the screen */
      gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL,
                          NULL, NULL);
      gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_VERTICAL, min_width, &min_height,
                          NULL, NULL, NULL);
      g_assert_cmpint (min_width, <=, 960);
      g_assert_cmpint (min_height, <=, 540);
      screenshot (window, "present-lesson");
      /* Next from the bar */
      index = ct_window_lesson_get_index (window);
      next = ct_gui_test_find_named (panel, "lesson-next");
      g_assert_true (gtk_widget_get_mapped (next));
      g_signal_emit_by_name (next, "clicked");
      g_assert_cmpuint (ct_window_lesson_get_index (window), ==, index + 1);
      for (int tries = 0; ct_window_lesson_is_busy (window); tries++)
        {
          g_assert_cmpint (tries, <, 1200);
          ct_gui_test_spin (50);
        }
      screenshot (window, "present-lesson-next");

      /* back to the column beside the graph */
      set_state (window, "presentation", FALSE);
      ct_gui_test_spin (300);
      p = bounds (window, panel);
      g_assert_cmpfloat (p.size.width, <, w.size.width * 0.5);
      g_assert_true (gtk_widget_get_mapped (panel));
      ct_window_lesson_close (window);
      ct_gui_test_close_window (window);
    }
}

/* Wait (at most a minute) until the run has answered and is shown. */
static void
wait_run (CtWindow *window)
{
  for (int tries = 0; (window->runner != NULL && ct_runner_is_busy (window->runner))
                      || window->run_pending != NULL; tries++)
    {
      g_assert_cmpint (tries, <, 1200);
      ct_gui_test_spin (50);
    }
  ct_gui_test_spin (100);
}

static void
step (CtWindow *window, const char *action, guint times)
{
  for (guint i = 0; i < times; i++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
      wait_run (window);
    }
}

/* The blob panel's view once it shows an item (at most ten seconds). */
static void
panel_view (CtWindow *window, CtBlobPanelView *view)
{
  for (int tries = 0;; tries++)
    {
      ct_blob_panel_get_view (window->blob_panel, view);
      if (view->item != NULL)
        return;
      g_assert_cmpint (tries, <, 200);
      ct_gui_test_spin (50);
    }
}

static void
assert_same_view (const CtSession *a, const CtSession *b)
{
  g_test_message ("step %s, next %d, selected %s; blob %s %s, channel %d, colormap %d, "
                  "scale %d", b->step_pass, b->step_next, b->selected, b->blob,
                  b->blob_diff ? "diff" : "data", b->channel, b->colormap, b->scale);
  g_assert_cmpstr (a->step_pass, ==, b->step_pass);
  g_assert_cmpint (a->step_next, ==, b->step_next);
  g_assert_cmpstr (a->selected, ==, b->selected);
  g_assert_cmpstr (a->blob, ==, b->blob);
  g_assert_cmpint (a->blob_diff, ==, b->blob_diff);
  g_assert_cmpint (a->channel, ==, b->channel);
  g_assert_cmpint (a->colormap, ==, b->colormap);
  g_assert_cmpint (a->scale, ==, b->scale);
}

/* Save WINDOW's session, reopen it in a new window, and compare. */
static void
save_reopen (CtWindow *window, const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("classroom-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (CtSession) saved = ct_window_session_collect (window);
  g_autoptr (CtSession) reopened = NULL;
  g_autoptr (GError) error = NULL;
  CtWindow *again = ct_window_new (app);

  g_assert_true (ct_window_session_save (window, file, &error));
  g_assert_no_error (error);
  gtk_window_set_default_size (GTK_WINDOW (again), 1280, 720);
  gtk_window_present (GTK_WINDOW (again));
  g_assert_true (ct_window_session_open (again, file));
  for (int tries = 0; ct_window_session_is_restoring (again); tries++)
    {
      g_assert_cmpint (tries, <, 1200);
      ct_gui_test_spin (50);
    }
  ct_gui_test_spin (200);
  reopened = ct_window_session_collect (again);
  assert_same_view (saved, reopened);
  screenshot (again, name);
  ct_gui_test_close_window (again);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_session_view (void)
{
  CtWindow *window = lenet_window (1280, 720);
  const char *conv2[] = { "conv2", NULL };
  const char *ip2[] = { "ip2", NULL };
  CtBlobPanelView view = { 0 };
  g_autoptr (CtSession) shown = NULL;

  /* forward to pool2, conv2's output looked at: channel 7, the third
   * colour map, the second scale */
  step (window, "run-forward", 5);
  ct_window_select (window, conv2);
  wait_run (window);
  panel_view (window, &view);
  view.channel = 7;
  view.colormap = 2;
  view.scale = 1;
  g_assert_true (ct_blob_panel_set_view (window->blob_panel, &view));
  ct_blob_panel_view_clear (&view);
  shown = ct_window_session_collect (window);
  g_assert_cmpstr (shown->step_pass, ==, "forward");
  g_assert_cmpint (shown->step_next, ==, 5);
  g_assert_cmpstr (shown->selected, ==, "conv2");
  g_assert_cmpint (shown->channel, ==, 7);
  g_assert_cmpint (shown->colormap, ==, 2);
  g_assert_cmpint (shown->scale, ==, 1);
  g_assert_nonnull (shown->blob);
  save_reopen (window, "forward.cortado-session");

  /* the rest of the pass, then back three layers: the diff of ip2's output */
  step (window, "run-forward", 4);
  step (window, "run-backward", 3);
  ct_window_select (window, ip2);
  wait_run (window);
  panel_view (window, &view);
  view.diff = TRUE;
  view.channel = -1;
  view.colormap = -1;
  view.scale = 0;
  g_assert_true (ct_blob_panel_set_view (window->blob_panel, &view));
  ct_blob_panel_view_clear (&view);
  g_clear_pointer (&shown, ct_session_free);
  shown = ct_window_session_collect (window);
  g_assert_cmpstr (shown->step_pass, ==, "backward");
  g_assert_true (shown->blob_diff);
  save_reopen (window, "backward.cortado-session");
  ct_gui_test_close_window (window);
}

int
main (int argc, char *argv[])
{
  char *scratch;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-classroom", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-classroom/toasts", test_toasts);
      g_test_add_func ("/gtk/window-classroom/toast-pace", test_toast_pace);
      g_test_add_func ("/gtk/window-classroom/present-lesson", test_present_lesson);
      g_test_add_func ("/gtk/window-classroom/session-view", test_session_view);
    }
  return ct_gui_test_finish (g_test_run (), scratch, app);
}
