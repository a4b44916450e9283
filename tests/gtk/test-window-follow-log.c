/* test-window-follow-log.c: the Training view following a training log
 * written elsewhere (win.train-follow-log). A real Caffe log
 * (tests/data/train-logs/caffe-tiny.log) is written in three pieces, cut
 * inside lines; the plot's series grow with each piece, read by the
 * window's own one-second timer, and hold the log's figures at the end. A
 * log started afresh becomes a new run. */
#include <string.h>
#include <glib/gstdio.h>

#include "gui-test.h"
#include "window-private.h"
#include "window-train-private.h"

static CtApplication *app;

#define WAIT_UNTIL(cond, seconds)                                                          \
  G_STMT_START                                                                             \
  {                                                                                        \
    gint64 deadline_ = g_get_monotonic_time () + (seconds) * G_USEC_PER_SEC;               \
    while (!(cond))                                                                        \
      {                                                                                    \
        g_assert_cmpint (g_get_monotonic_time (), <, deadline_);                           \
        ct_gui_test_spin (20);                                                             \
      }                                                                                    \
  }                                                                                        \
  G_STMT_END

static int
find_series (CtPlot *plot, const char *name, gboolean faded)
{
  for (int i = 0; i < ct_plot_get_n_series (plot); i++)
    if (g_strcmp0 (ct_plot_series_get_name (plot, i), name) == 0
        && ct_plot_series_get_visible (plot, i)
        && ct_plot_series_get_faded (plot, i) == faded)
      return i;
  return -1;
}

static gsize
n_points (CtWindow *window, const char *name)
{
  CtPlot *plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  int series = find_series (plot, name, FALSE);

  return series < 0 ? 0 : ct_plot_series_get_n_points (plot, series);
}

static void
append (const char *path, const char *bytes, gsize len)
{
  FILE *file = g_fopen (path, "ab");

  g_assert_nonnull (file);
  g_assert_cmpuint (fwrite (bytes, 1, len, file), ==, len);
  fclose (file);
}

static void
test_follow (void)
{
  g_autofree char *sample_path = g_build_filename (g_getenv ("CT_TEST_DATA"), "train-logs",
                                                   "caffe-tiny.log", NULL);
  g_autofree char *dir = g_dir_make_tmp ("cortado-follow-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "train.log", NULL);
  g_autofree char *sample = NULL;
  g_autoptr (GError) error = NULL;
  CtWindow *window = ct_window_new (app);
  CtPlot *plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  const char *cut1, *cut2;
  gsize len;
  double accuracy = 0;
  int loss;

  g_assert_true (g_file_get_contents (sample_path, &sample, &len, &error));
  gtk_window_present (GTK_WINDOW (window));
  ct_gui_test_settle (window);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "train-follow-log"));

  /* A file that is not there is said so. */
  g_assert_false (ct_window_train_follow_log (window, "/nonexistent/train.log", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);

  /* Piece 1: up to the middle of iteration 10's loss line. */
  cut1 = strstr (sample, "] Iteration 10 (") + 10;
  cut2 = strstr (sample, "] Iteration 25 (") + 10;
  append (path, sample, cut1 - sample);
  g_assert_true (ct_window_train_follow_log (window, path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_points (window, "Smoothed"), ==, 2);       /* iterations 0 and 5 */
  g_assert_cmpuint (n_points (window, "Learning rate"), ==, 2);
  g_assert_cmpuint (n_points (window, "Test accuracy"), ==, 2);  /* 0, and 10 before its loss */
  g_assert_cmpuint (n_points (window, "Test loss"), ==, 2);

  /* Piece 2, read by the timer: up to iteration 25. */
  append (path, cut1, cut2 - cut1);
  WAIT_UNTIL (n_points (window, "Smoothed") == 5, 5);
  g_assert_cmpuint (n_points (window, "Learning rate"), ==, 5);
  g_assert_cmpuint (n_points (window, "Test accuracy"), ==, 3);

  /* Piece 3: the rest. */
  append (path, cut2, sample + len - cut2);
  WAIT_UNTIL (n_points (window, "Smoothed") == 7, 5);
  g_assert_cmpuint (n_points (window, "Learning rate"), ==, 6);
  g_assert_cmpuint (n_points (window, "Test accuracy"), ==, 4);
  loss = find_series (plot, "Smoothed", FALSE);
  g_assert_cmpfloat (ct_plot_series_get_xs (plot, loss)[6], ==, 30);
  g_assert_cmpfloat_with_epsilon (ct_plot_series_get_ys (plot, loss)[0], 1.22409, 1e-6);
  g_assert_true (ct_window_train_get_test_value (window, "accuracy", &accuracy));
  g_assert_cmpfloat (accuracy, ==, 1.0);

  /* The job starts again over the same file: a new run, the old one faded. */
  g_assert_true (g_file_set_contents (path, sample, cut1 - sample, &error));
  WAIT_UNTIL (find_series (plot, "Smoothed", TRUE) >= 0 && n_points (window, "Smoothed") == 2, 5);
  g_assert_cmpuint (ct_plot_series_get_n_points (plot, find_series (plot, "Smoothed", TRUE)), ==, 7);

  ct_gui_test_close_window (window);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-follow-log", &scratch, &app))
    g_test_add_func ("/gtk/window-follow-log/follow", test_follow);
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
