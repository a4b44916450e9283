/* bench-window-train.c: training from the window against the command
 * line, as a user runs both. The lenet-fashion example's solver (its
 * LMDBs made in a scratch folder; see bench-lenet-solver.h), set to
 * CT_BENCH_ITERS training iterations (default 1000) with no tests and no
 * snapshots, is opened in the workbench window at 1280×800, which shows
 * its Training view, and trained with the Start action (F4) while the
 * plots grow; then `cortado-cli train` runs the same file. CT_BENCH_ROUNDS
 * rounds (default 3), the order alternating, after one warm-up run of
 * each.
 *
 * The window's time is from Start to the finished state as the main
 * loop sees it: building the solver included, as the CLI's whole process
 * (start and build included) is. The ratio of each round is paired
 * with the same round's CLI run; the goal is at most 1.05. Every frame
 * the window drew while training is timed from the frame clock's
 * before-paint to after-paint (the goal is under 16 ms). Under Xvfb GTK
 * draws with cairo in software: the main loop's drawing competes with
 * the training for the cores, a pessimistic case. Without a display it
 * skips (77); it never fails on speed. */
#include <stdio.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "application.h"
#include "bench-lenet-solver.h"
#include "bench-util.h"
#include "window-private.h"
#include "test-files.h"

#define MAX_ROUNDS 32

typedef struct {
  gint64 paint_start;
  GArray *work;        /* double, ms */
} Frames;

static void
on_before_paint (GdkFrameClock *clock, Frames *f)
{
  f->paint_start = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock, Frames *f)
{
  if (f->paint_start > 0)
    {
      double ms = (double) (g_get_monotonic_time () - f->paint_start) / 1000.0;
      g_array_append_val (f->work, ms);
    }
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static int
env_int (const char *name, int fallback, int low, int high)
{
  const char *text = g_getenv (name);

  return text != NULL ? CLAMP (atoi (text), low, high) : fallback;
}

static double
pct (GArray *values, double p)
{
  double *v = (double *) (gpointer) values->data;
  int n = (int) values->len;

  if (n == 0)
    return 0.0;
  qsort (v, (size_t) n, sizeof *v, ct_bench_compare_doubles);
  return v[(int) (p * (n - 1) + 0.5)];
}

/* Trains SOLVER_PATH in a new window; the seconds from Start to the
 * finished state. FRAMES gets the work of every frame drawn meanwhile. */
static double
train_in_window (CtApplication *app, const char *solver_path, int iters, Frames *frames)
{
  g_autoptr (GFile) file = g_file_new_for_path (solver_path);
  CtWindow *window = ct_window_new (app);
  GdkFrameClock *clock;
  gulong before, after;
  gint64 t0, deadline;
  double seconds;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  if (!ct_window_load_file (window, file))
    g_error ("the window could not open %s", solver_path);
  spin (500);
  if (g_strcmp0 (adw_view_stack_get_visible_child_name (window->view_stack), "training") != 0)
    g_error ("the solver did not open the Training view");
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  before = g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), frames);
  after = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), frames);

  t0 = g_get_monotonic_time ();
  deadline = t0 + 600 * G_USEC_PER_SEC;
  g_action_group_activate_action (G_ACTION_GROUP (window), "train-toggle", NULL);
  while (ct_window_train_get_state (window) != CT_TRAIN_STATE_FINISHED)
    {
      if (ct_window_train_get_state (window) == CT_TRAIN_STATE_STOPPED)
        g_error ("training stopped: %s", ct_window_train_get_last_error (window));
      if (g_get_monotonic_time () > deadline)
        g_error ("training did not finish within 600 s");
      g_main_context_iteration (NULL, TRUE);
    }
  seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  if (ct_window_train_get_iter (window) != iters)
    g_error ("the window trained %d iterations of %d", ct_window_train_get_iter (window), iters);

  g_signal_handler_disconnect (clock, before);
  g_signal_handler_disconnect (clock, after);
  gtk_window_destroy (GTK_WINDOW (window));
  spin (200);
  return seconds;
}

static char *
load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return g_strdup ("unknown");
  text[strcspn (text, "\n")] = '\0';
  return g_strdup (text);
}

int
main (void)
{
  const char *cli = g_getenv ("CT_CLI");
  int iters = env_int ("CT_BENCH_ITERS", 1000, 10, 1000000);
  int rounds = env_int ("CT_BENCH_ROUNDS", 3, 1, MAX_ROUNDS);
  g_autofree char *scratch = g_dir_make_tmp ("cortado-bench-window-train-XXXXXX", NULL);
  g_autofree char *drafts = g_build_filename (scratch, "drafts", NULL);
  g_autofree char *data = g_build_filename (scratch, "data", NULL);
  g_autofree char *old_dir = g_get_current_dir ();
  g_autofree char *solver_path = NULL, *description = NULL, *load = NULL;
  double window_s[MAX_ROUNDS], cli_total[MAX_ROUNDS], cli_train[MAX_ROUNDS];
  double ratio_total[MAX_ROUNDS], ratio_train[MAX_ROUNDS], unused;
  Frames frames = { 0 };
  Caffe__SolverParameter *param;
  CtApplication *app;

  g_set_prgname ("bench-window-train");
  g_setenv ("CORTADO_DRAFTS_DIR", drafts, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  if (cli == NULL || !gtk_init_check ())
    {
      printf ("no display or no CT_CLI: skipped\n");
      ct_test_remove_tree (scratch);
      return 77;
    }
  param = ct_bench_lenet_solver (scratch, cli, iters, &solver_path, &description);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  /* the Data layers' sources are relative to the working folder */
  if (g_chdir (scratch) != 0)
    g_error ("cannot enter %s", scratch);

  ct_application_ensure_resources ();
  app = ct_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  if (!g_application_register (G_APPLICATION (app), NULL, NULL))
    return 1;
  frames.work = g_array_new (FALSE, FALSE, sizeof (double));

  load = load_average ();
  printf ("LeNet, batch 64, %d iterations: %s; window 1280x800 on its Training view.\n"
          "%d rounds alternating after a warm-up of each; %d processors; load average "
          "before: %s\n", iters, description, rounds, g_get_num_processors (), load);
  fflush (stdout);
  train_in_window (app, solver_path, iters, &frames);
  ct_bench_run_cli (cli, solver_path, &unused, &unused);
  g_array_set_size (frames.work, 0);
  for (int r = 0; r < rounds; r++)
    {
      if (r % 2 == 0)
        {
          window_s[r] = train_in_window (app, solver_path, iters, &frames);
          ct_bench_run_cli (cli, solver_path, &cli_train[r], &cli_total[r]);
        }
      else
        {
          ct_bench_run_cli (cli, solver_path, &cli_train[r], &cli_total[r]);
          window_s[r] = train_in_window (app, solver_path, iters, &frames);
        }
      ratio_total[r] = window_s[r] / cli_total[r];
      ratio_train[r] = window_s[r] / cli_train[r];
      printf ("round %d: window %.3f s (%.1f it/s), cortado-cli %.3f s whole process, "
              "%.3f s training: ratio %.3f (%.3f to its training alone)\n",
              r + 1, window_s[r], iters / window_s[r], cli_total[r], cli_train[r],
              ratio_total[r], ratio_train[r]);
      fflush (stdout);
    }
  g_free (load);
  load = load_average ();
  printf ("window / cortado-cli, median of the paired ratios: %.3f against the whole process, "
          "%.3f against its training alone (goal: at most 1.05)\n",
          ct_bench_median (ratio_total, rounds), ct_bench_median (ratio_train, rounds));
  printf ("frames drawn while training: %u; frame work ms: median %.2f  p95 %.2f  max %.2f "
          "(goal: under 16)\n", frames.work->len, pct (frames.work, 0.5),
          pct (frames.work, 0.95), pct (frames.work, 1.0));
  printf ("load average after: %s\n", load);

  if (g_chdir (old_dir) != 0)
    g_warning ("cannot go back to %s", old_dir);
  g_array_unref (frames.work);
  g_object_unref (app);
  ct_test_remove_tree (scratch);
  return 0;
}
