/* bench-trainer.c: training in the window's trainer (CtTrainer) against
 * the solver alone in this process and against the `cortado-cli train`
 * process (CT_CLI), on the same solver: the bundled LeNet example
 * (CT_EXAMPLES/lenet-fashion) on Fashion-MNIST LMDBs made from Debian's
 * dataset files into a temporary folder (a LeNet on DummyData when either
 * is missing). The solver file is the example's, with max_iter set to
 * CT_BENCH_ITERS (default 40, not a multiple of display, so that the CLI
 * does no extra final forward), no test at iteration 0 and no snapshots,
 * so that only training iterations are timed.
 *
 * The method: one warm-up run of every kind (page faults, thread pools,
 * the CPU clock ramp, the page cache of the LMDB and the binary), then
 * CT_BENCH_ROUNDS rounds (default 15) in which every contender runs once,
 * in an order rotated by one each round and reversed every other round,
 * so that no contender always runs first or after the same one. The
 * solver alone runs on a new thread each time, as the trainer's worker is
 * new and the CLI a new process (the kernels keep per-thread caches).
 * Ratios are paired: each round's time over the same round's solver (or
 * CLI) time, then the median and the range of those ratios, which
 * cancels most of the slow drift of a shared machine's load; the ratio of
 * the best times is printed beside them. "train" is the training alone (the CLI's from its log's
 * "Starting Optimization" to "Optimization Done." stamps, the trainer's
 * from its own elapsed time, which leaves out a held-back blob copy made
 * once training finished), "total" includes building the solver (and
 * for the CLI starting the process). "CPU" is the user and system time of
 * every thread, building included (the CLI's whole process): it moves
 * far less with the load than the times do, but counts the kernel pool's
 * spinning too.
 *
 * The trainer contenders: none of the extras; update ratios every 10 and
 * every iteration; conv1 (737,280 values) followed every 10 and every
 * iteration (the trainer holds copies back to a share of the training
 * time: the last list says how many came); both at every iteration;
 * and what the window asks for (ratios every 10, following every 50).
 *
 * Then the hand-over cost alone: a net whose iteration takes microseconds
 * (CT_BENCH_TINY_ITERS iterations, default 4000), trainer against solver,
 * gives the trainer's fixed cost per iteration (posting the progress,
 * waking the main context, delivering it).
 *
 * Every trainer run checks that every loss point reached the main
 * context. Prints the load average before and after; never fails on
 * speed: the build machines are shared and noisy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>

#include "bench-lenet-solver.h"
#include "solver.h"
#include "trainer.h"
#include "test-files.h"

#define MAX_ROUNDS 64

/* The tiny net, for the hand-over cost. */
static const char tiny_net[] =
  "net_param { name: 'tiny' "
  "  layer { name: 'data' type: 'DummyData' top: 'data' top: 'target' "
  "    dummy_data_param { shape { dim: 1 dim: 1 } shape { dim: 1 dim: 1 } "
  "      data_filler { type: 'uniform' } data_filler { type: 'uniform' } } } "
  "  layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip' "
  "    inner_product_param { num_output: 1 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'loss' type: 'EuclideanLoss' bottom: 'ip' bottom: 'target' top: 'loss' } "
  "} "
  "base_lr: 0.01 momentum: 0.9 lr_policy: 'fixed' display: 0 random_seed: 1 "
  "snapshot_after_train: false ";

typedef enum {
  KIND_SOLVER,
  KIND_CLI,
  KIND_TRAINER,
} Kind;

typedef struct {
  const char *label;
  Kind kind;
  guint ratio_every;     /* trainer: update ratios every this many (0: none) */
  guint watch_every;     /* trainer: the followed blob every this many (0: none) */
  double train[MAX_ROUNDS];
  double total[MAX_ROUNDS];
  double cpu[MAX_ROUNDS];  /* user + system seconds of every thread */
  guint handovers, ratios, copies; /* of the last run */
} Contender;

typedef struct {
  Caffe__SolverParameter *param;
  char *solver_path;     /* the same file for every contender */
  const char *cli;       /* NULL: no CLI contender */
  char *description;
  const char *watch;     /* the blob followed */
  int iters;
} Setup;

/* Small helpers */

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The median of N values (left as they are), with their range. */
static double
median (const double *values, int n, double *low, double *high)
{
  double sorted[MAX_ROUNDS];

  memcpy (sorted, values, n * sizeof *values);
  qsort (sorted, n, sizeof *sorted, compare_doubles);
  if (low != NULL)
    *low = sorted[0];
  if (high != NULL)
    *high = sorted[n - 1];
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static char *
load_average (void)
{
  g_autofree char *text = NULL;
  char **fields;
  char *result;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return g_strdup ("unknown");
  fields = g_strsplit (text, " ", 4);
  result = g_strv_length (fields) >= 3
             ? g_strdup_printf ("%s %s %s", fields[0], fields[1], fields[2])
             : g_strdup ("unknown");
  g_strfreev (fields);
  return result;
}

static int
env_int (const char *name, int fallback, int low, int high)
{
  const char *text = g_getenv (name);

  return text != NULL ? CLAMP (atoi (text), low, high) : fallback;
}

static double
seconds_since (gint64 start_us)
{
  return (double) (g_get_monotonic_time () - start_us) / 1e6;
}

/* The solver */

static void
setup_solver (Setup *s, const char *workdir)
{
  s->param = ct_bench_lenet_solver (workdir, s->cli, s->iters, &s->solver_path,
                                    &s->description);
}

/* The contenders */

typedef struct {
  const Setup *setup;
  double train, total;
} SolverRun;

static gpointer
solver_thread (gpointer data)
{
  SolverRun *run = data;
  const Setup *s = run->setup;
  gint64 start = g_get_monotonic_time (), built;
  g_autoptr (GError) error = NULL;
  CtSolver *solver = ct_solver_new (s->param, s->solver_path, &error);

  if (solver == NULL)
    g_error ("%s", error->message);
  built = g_get_monotonic_time ();
  /* What `cortado-cli train` runs. */
  if (!ct_solver_solve (solver, NULL, &error))
    g_error ("%s", error->message);
  run->train = seconds_since (built);
  run->total = seconds_since (start);
  ct_solver_free (solver);
  return NULL;
}

/* On a thread of its own, as the CLI runs in a new process and the
 * trainer on a new worker: the kernels keep per-thread caches (oneDNN's
 * plans), which a solver run on the benchmark's main thread would find
 * warm from the run before. */
static void
run_solver (const Setup *s, double *train, double *total)
{
  SolverRun run = { s, 0, 0 };

  g_thread_join (g_thread_new ("bench-solver", solver_thread, &run));
  *train = run.train;
  *total = run.total;
}

static void
run_cli (const Setup *s, double *train, double *total)
{
  ct_bench_run_cli (s->cli, s->solver_path, train, total);
}

typedef struct {
  CtTrainProgress *last;
  guint handovers, points, ratios, copies;
} Received;

static void
on_progress (CtTrainer *trainer, CtTrainProgress *progress, gpointer user_data)
{
  Received *r = user_data;

  (void) trainer;
  if (progress->error != NULL)
    g_error ("%s", progress->error->message);
  r->handovers++;
  r->points += progress->points->len;
  r->ratios += progress->ratios->len;
  r->copies += progress->watch_data != NULL;
  g_clear_pointer (&r->last, ct_train_progress_unref);
  r->last = ct_train_progress_ref (progress);
}

static void
run_trainer (const Setup *s, Contender *c, const Caffe__SolverParameter *param,
             double *train, double *total)
{
  CtTrainConfig config = { .ratio_every = c->ratio_every };
  Received r = { 0 };
  gint64 start = g_get_monotonic_time ();
  CtTrainer *t = ct_trainer_new (param, s->solver_path, &config, on_progress, &r);

  if (c->watch_every > 0)
    ct_trainer_watch (t, s->watch, c->watch_every);
  ct_trainer_start (t);
  while (r.last == NULL || r.last->state != CT_TRAIN_STATE_FINISHED)
    g_main_context_iteration (NULL, TRUE);
  *total = seconds_since (start);
  /* The worker's own clock, from the end of the build to the last
   * iteration's post. */
  *train = r.last->elapsed_s;
  ct_trainer_free (t);
  if (r.points != (guint) param->max_iter)
    g_error ("the main context got %u loss points of %d", r.points, param->max_iter);
  c->handovers = r.handovers;
  c->ratios = r.ratios;
  c->copies = r.copies;
  ct_train_progress_unref (r.last);
}

static double
cpu_seconds (int who)
{
  struct rusage usage;

  getrusage (who, &usage);
  return (double) usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         (double) usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void
run (const Setup *s, Contender *c, int round)
{
  /* The CLI's is its whole process's, start and build included. */
  int who = c->kind == KIND_CLI ? RUSAGE_CHILDREN : RUSAGE_SELF;
  double train = 0, total = 0, cpu = cpu_seconds (who);

  switch (c->kind)
    {
    case KIND_SOLVER:
      run_solver (s, &train, &total);
      break;
    case KIND_CLI:
      run_cli (s, &train, &total);
      break;
    case KIND_TRAINER:
      run_trainer (s, c, s->param, &train, &total);
      break;
    }
  cpu = cpu_seconds (who) - cpu;
  if (round >= 0)
    {
      c->train[round] = train;
      c->total[round] = total;
      c->cpu[round] = cpu;
    }
}

/* The table */

/* The median and range of C's train (or CPU) times over REF's, round
 * by round. */
static double
paired_ratio (const double *c, const double *ref, int rounds, double *low, double *high)
{
  double ratios[MAX_ROUNDS];

  for (int i = 0; i < rounds; i++)
    ratios[i] = c[i] / ref[i];
  return median (ratios, rounds, low, high);
}

static void
print_ratio (const Contender *c, const Contender *ref, int rounds)
{
  double low, high, r, best_c, best_ref;

  if (ref == NULL)
    {
      printf (" %27s", "-");
      return;
    }
  r = paired_ratio (c->train, ref->train, rounds, &low, &high);
  median (c->train, rounds, &best_c, NULL);
  median (ref->train, rounds, &best_ref, NULL);
  printf (" %6.3f [%5.3f %5.3f] %6.3f", r, low, high, best_c / best_ref);
}

static void
print_table (const Setup *s, Contender *cs, int n, int rounds)
{
  const Contender *solver = &cs[0], *cli = s->cli != NULL ? &cs[1] : NULL;
  const Contender *bare = NULL;

  for (int i = 0; i < n; i++)
    if (cs[i].kind == KIND_TRAINER && cs[i].ratio_every == 0 && cs[i].watch_every == 0)
      bare = &cs[i];
  printf ("\nSeconds (median [min max] of the rounds):\n"
          "%-32s %26s %7s %7s %7s\n", "", "train", "it/s", "total", "CPU");
  for (int i = 0; i < n; i++)
    {
      const Contender *c = &cs[i];
      double low, high, t = median (c->train, rounds, &low, &high);

      printf ("%-32s %7.3f [%7.3f %7.3f] %7.1f %7.3f %7.3f\n", c->label, t, low, high,
              s->iters / t, median (c->total, rounds, NULL, NULL),
              median (c->cpu, rounds, NULL, NULL));
    }
  printf ("\nTrain time ratios: the median [min max] of each round's ratio, then the ratio "
          "of the best times;\nCPU: the median of each round's CPU time over the solver "
          "alone's; +ms/iter: milliseconds\nper iteration over the plain trainer (median of "
          "paired differences):\n"
          "%-32s %27s %27s %6s %9s\n", "", "/ solver alone       best", "/ cortado-cli       best",
          "CPU", "+ms/iter");
  for (int i = 0; i < n; i++)
    {
      const Contender *c = &cs[i];

      printf ("%-32s", c->label);
      print_ratio (c, solver, rounds);
      print_ratio (c, cli, rounds);
      printf (" %6.3f", paired_ratio (c->cpu, solver->cpu, rounds, NULL, NULL));
      if (bare != NULL && c->kind == KIND_TRAINER && c != bare)
        {
          double diffs[MAX_ROUNDS];

          for (int r = 0; r < rounds; r++)
            diffs[r] = (c->train[r] - bare->train[r]) * 1e3 / s->iters;
          printf (" %+9.3f", median (diffs, rounds, NULL, NULL));
        }
      printf ("\n");
    }
  printf ("\nHanded over per trainer run (%d iterations):\n", s->iters);
  for (int i = 0; i < n; i++)
    if (cs[i].kind == KIND_TRAINER)
      printf ("  %-32s %4u progresses, %4u ratios, %4u blob copies\n", cs[i].label,
              cs[i].handovers, cs[i].ratios, cs[i].copies);
}

/* The hand-over cost: a net whose iterations cost next to nothing. */
static void
handover_cost (int rounds, double lenet_ms)
{
  Setup s = { .iters = env_int ("CT_BENCH_TINY_ITERS", 4000, 10, 1000000) };
  Contender solver = { "solver alone", KIND_SOLVER, 0, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 };
  Contender trainer = { "trainer", KIND_TRAINER, 0, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 };
  double per_iter[MAX_ROUNDS], solver_us, trainer_us, cost_us;

  s.param = ct_bench_parse_solver (tiny_net);
  s.param->has_max_iter = TRUE;
  s.param->max_iter = s.iters;
  run (&s, &solver, -1);
  run (&s, &trainer, -1);
  for (int r = 0; r < rounds; r++)
    {
      if (r % 2 == 0)
        {
          run (&s, &solver, r);
          run (&s, &trainer, r);
        }
      else
        {
          run (&s, &trainer, r);
          run (&s, &solver, r);
        }
      per_iter[r] = (trainer.train[r] - solver.train[r]) * 1e6 / s.iters;
    }
  solver_us = median (solver.train, rounds, NULL, NULL) * 1e6 / s.iters;
  trainer_us = median (trainer.train, rounds, NULL, NULL) * 1e6 / s.iters;
  cost_us = median (per_iter, rounds, NULL, NULL);
  printf ("\nHand-over cost: a one-weight net, %d iterations, %d rounds (alternating):\n",
          s.iters, rounds);
  printf ("  solver alone %.1f µs/iter, trainer %.1f µs/iter (%u hand-overs for %d points): "
          "the trainer's own cost is %.1f µs per iteration (median of paired differences), "
          "%.3f%% of a LeNet iteration (%.1f ms)\n",
          solver_us, trainer_us, trainer.handovers, s.iters, cost_us,
          cost_us / (lenet_ms * 10), lenet_ms);
  protobuf_c_message_free_unpacked (&s.param->base, NULL);
}

int
main (void)
{
  Setup s = { .cli = g_getenv ("CT_CLI"), .watch = "conv1" };
  int rounds = env_int ("CT_BENCH_ROUNDS", 15, 1, MAX_ROUNDS);
  g_autofree char *workdir = NULL, *old_dir = g_get_current_dir ();
  g_autofree char *load_before = NULL, *load_after = NULL;
  g_autoptr (GError) error = NULL;
  Contender all[] = {
    { "solver alone (ct_solver_solve)", KIND_SOLVER, 0, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "cortado-cli train (process)", KIND_CLI, 0, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "trainer", KIND_TRAINER, 0, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "trainer, ratios every 10", KIND_TRAINER, 10, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "trainer, ratios every 1", KIND_TRAINER, 1, 0, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "trainer, follow conv1 every 10", KIND_TRAINER, 0, 10, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "trainer, follow conv1 every 1", KIND_TRAINER, 0, 1, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    { "trainer, ratios 1 + follow 1", KIND_TRAINER, 1, 1, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
    /* What the window asks for. */
    { "trainer, ratios 10 + follow 50", KIND_TRAINER, 10, 50, { 0 }, { 0 }, { 0 }, 0, 0, 0 },
  };
  Contender *cs = all;
  int n = G_N_ELEMENTS (all);

  s.iters = env_int ("CT_BENCH_ITERS", 40, 1, 1000000);
  if (s.cli != NULL && !g_file_test (s.cli, G_FILE_TEST_IS_EXECUTABLE))
    s.cli = NULL;
  workdir = g_dir_make_tmp ("cortado-bench-trainer-XXXXXX", &error);
  if (workdir == NULL)
    g_error ("%s", error->message);
  setup_solver (&s, workdir);
  /* The Data layer's sources are relative to the working folder, as in
   * Caffe; the CLI runs from here too. */
  if (g_chdir (workdir) != 0)
    g_error ("cannot enter %s", workdir);
  if (s.cli == NULL)
    {
      /* No CLI: drop its row, keep the solver first. */
      all[1] = all[0];
      cs = &all[1];
      n--;
    }

  load_before = load_average ();
  printf ("LeNet, batch 64, %d iterations: %s.\n", s.iters, s.description);
  printf ("%d rounds, the order rotated and reversed between rounds, after a warm-up run of "
          "each kind; "
          "%d processors; load average before: %s\n", rounds, g_get_num_processors (),
          load_before);
  for (int i = 0; i < n; i++)
    if (cs[i].kind != KIND_TRAINER || (cs[i].ratio_every == 1 && cs[i].watch_every == 1))
      run (&s, &cs[i], -1);
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < n; k++)
      run (&s, &cs[(r % 2 == 0 ? k + r : n - 1 - k + r) % n], r);
  load_after = load_average ();
  print_table (&s, cs, n, rounds);
  handover_cost (rounds, median (cs[0].train, rounds, NULL, NULL) * 1e3 / s.iters);
  printf ("load average after: %s. Goal: the trainer's train time within 5%% of the CLI's "
          "(and of the solver alone).\n", load_after);

  if (g_chdir (old_dir) != 0)
    g_warning ("cannot go back to %s", old_dir);
  ct_test_remove_tree (workdir);
  protobuf_c_message_free_unpacked (&s.param->base, NULL);
  g_free (s.solver_path);
  g_free (s.description);
  return 0;
}
