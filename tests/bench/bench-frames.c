/* bench-frames.c: the window's frames while the runner computes. It opens
 * GoogLeNet (force_backward, batch 4 unless CT_BENCH_BATCH says otherwise)
 * in the workbench window at 1280×800, selects the first convolution (so
 * that its blob is copied at every step and the inspector draws its
 * heatmap), takes the first step (which builds the net), then presses F5
 * twice: the whole forward pass, then the whole backward pass, each layer
 * handed to the window as a snapshot.
 *
 * A tick callback on the graph keeps the frame clock running and stamps
 * every frame; the frame clock's before-paint and after-paint signals
 * time each frame's own work (layout and drawing). Printed, for one second
 * idle and then for the two passes: frame intervals (median, p95, max, and
 * how many exceeded 1.5 refresh periods, a dropped frame) and frame work
 * (median, p95, max). The goal is frames under 16 ms while the engine
 * computes; the benchmark prints and never fails on speed, since the
 * build machines are shared. Under Xvfb GTK draws with cairo in software,
 * a pessimistic case. Without a display it skips (77), as the GUI tests
 * do. */
#include <stdio.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "application.h"
#include "bench-util.h"
#include "selection.h"
#include "window-private.h"
#include "test-files.h"

typedef struct {
  gboolean recording;
  gint64 last_tick, paint_start;
  GArray *intervals;   /* double, ms */
  GArray *work;        /* double, ms */
} Frames;

static gboolean
on_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Frames *f = data;
  gint64 now = g_get_monotonic_time ();

  if (f->recording && f->last_tick > 0)
    {
      double ms = (double) (now - f->last_tick) / 1000.0;
      g_array_append_val (f->intervals, ms);
    }
  f->last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void
on_before_paint (GdkFrameClock *clock, Frames *f)
{
  f->paint_start = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock, Frames *f)
{
  if (f->recording && f->paint_start > 0)
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

static void
report (const char *what, Frames *f, double seconds)
{
  guint dropped = 0;

  for (guint i = 0; i < f->intervals->len; i++)
    dropped += g_array_index (f->intervals, double, i) > 25.0;
  printf ("%s: %.2f s, %u frames (%u longer than 25 ms)\n", what, seconds, f->intervals->len,
          dropped);
  printf ("  frame interval ms: median %6.2f  p95 %6.2f  max %6.2f\n", pct (f->intervals, 0.5),
          pct (f->intervals, 0.95), pct (f->intervals, 1.0));
  printf ("  frame work ms:     median %6.2f  p95 %6.2f  max %6.2f  (%u frames drew)\n",
          pct (f->work, 0.5), pct (f->work, 0.95), pct (f->work, 1.0), f->work->len);
  fflush (stdout);
  g_array_set_size (f->intervals, 0);
  g_array_set_size (f->work, 0);
}

/* Until the runner has answered every step; the snapshots it delivered. */
static guint
run_until_idle (CtWindow *window)
{
  guint64 first = 0, last = 0;
  gint64 deadline = g_get_monotonic_time () + 300 * G_USEC_PER_SEC;

  /* answered, and the answer shown (at most one snapshot is shown a frame) */
  while (window->runner == NULL || ct_runner_is_busy (window->runner)
         || window->run_pending != NULL)
    {
      CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);

      if (snapshot != NULL)
        {
          if (first == 0)
            first = ct_run_snapshot_get_serial (snapshot);
          last = ct_run_snapshot_get_serial (snapshot);
        }
      if (g_get_monotonic_time () > deadline)
        {
          fprintf (stderr, "the runner did not finish within 300 s\n");
          exit (1);
        }
      g_main_context_iteration (NULL, TRUE);
    }
  return (guint) (last - first);
}

int
main (int argc, char **argv)
{
  const char *dir = g_getenv ("CT_TEST_DATA");
  const char *batch = g_getenv ("CT_BENCH_BATCH");
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  const char *const select[] = { "conv1/7x7_s2", NULL };
  Frames frames = { 0 };
  CtApplication *app;
  CtWindow *window;
  GtkWidget *graph;
  GdkFrameClock *clock;
  CtRunSnapshot *snapshot;
  gint64 t0;
  guint delivered;

  g_autofree char *scratch = g_dir_make_tmp ("cortado-bench-frames-XXXXXX", NULL);
  g_autofree char *drafts = g_build_filename (scratch, "drafts", NULL);
  g_autofree char *data = g_build_filename (scratch, "data", NULL);

  /* the recent files need a program name (g_test_init gives the tests one) */
  g_set_prgname ("bench-frames");
  /* recent files and drafts in a scratch folder, not the user's */
  g_setenv ("CORTADO_DRAFTS_DIR", drafts, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("LANGUAGE", "C", TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  if (!gtk_init_check ())
    {
      printf ("no display: skipped\n");
      ct_test_remove_tree (scratch);
      return 77;
    }
  ct_application_ensure_resources ();
  app = ct_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_NON_UNIQUE | G_APPLICATION_HANDLES_OPEN);
  if (!g_application_register (G_APPLICATION (app), NULL, NULL))
    return 1;

  path = g_build_filename (dir != NULL ? dir : CT_TEST_SOURCE_DIR "/tests/data", "timing",
                           "bvlc_googlenet_deploy_force_backward.prototxt", NULL);
  file = g_file_new_for_path (path);
  window = ct_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  if (!ct_window_load_file (window, file))
    return 1;
  ct_run_controls_set_batch (window->run_controls,
                             batch != NULL ? (guint) g_ascii_strtoull (batch, NULL, 10) : 4);
  spin (1000);
  ct_selection_set (window->selection, select, 0);
  spin (200);

  graph = ct_window_get_graph_view (window);
  frames.intervals = g_array_new (FALSE, FALSE, sizeof (double));
  frames.work = g_array_new (FALSE, FALSE, sizeof (double));
  gtk_widget_add_tick_callback (graph, on_tick, &frames, NULL);
  clock = gtk_widget_get_frame_clock (graph);
  if (clock == NULL)
    {
      fprintf (stderr, "the graph has no frame clock\n");
      return 1;
    }
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), &frames);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &frames);
  printf ("GoogLeNet, batch %u, conv1/7x7_s2 selected, window 1280x800\n",
          ct_run_controls_get_batch (window->run_controls));

  frames.recording = TRUE;
  t0 = g_get_monotonic_time ();
  spin (1000);
  report ("idle", &frames, (double) (g_get_monotonic_time () - t0) / 1e6);

  /* The first step builds the net (not what the goal is about): apart. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
  t0 = g_get_monotonic_time ();
  run_until_idle (window);
  report ("first step (builds the net)", &frames, (double) (g_get_monotonic_time () - t0) / 1e6);
  snapshot = ct_window_run_get_snapshot (window);
  if (snapshot == NULL || ct_run_snapshot_get_error (snapshot) != NULL)
    {
      fprintf (stderr, "the run failed: %s\n",
               snapshot != NULL ? ct_run_snapshot_get_error (snapshot)->message : "no snapshot");
      return 1;
    }

  for (int pass = 0; pass < 2; pass++)
    {
      g_action_group_activate_action (G_ACTION_GROUP (window), "run-pass", NULL);
      t0 = g_get_monotonic_time ();
      delivered = run_until_idle (window);
      printf ("%s pass: %u snapshots shown\n", pass == 0 ? "forward" : "backward", delivered);
      report (pass == 0 ? "F5, forward pass" : "F5, backward pass", &frames,
              (double) (g_get_monotonic_time () - t0) / 1e6);
    }
  frames.recording = FALSE;

  gtk_window_destroy (GTK_WINDOW (window));
  spin (100);
  g_array_unref (frames.intervals);
  g_array_unref (frames.work);
  g_object_unref (app);
  ct_test_remove_tree (scratch);
  return 0;
}
