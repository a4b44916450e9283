/* bench-step.c: what a step of the window's runner costs beyond the
 * layer's own compute, and how many bytes each snapshot hands to the
 * window. A user stepping through a net presses F7 and Shift+F7 one at a
 * time; so does this benchmark: it queues one step, waits for its
 * snapshot, and queues the next, through a whole forward pass and a whole
 * backward pass, on four nets:
 *
 *   - AlexNet at batch 10 with conv1 (10×96×55×55, ReLU'd in place)
 *     watched: the largest blob a user is likely to look at;
 *   - LeNet at batch 64, conv1 and ip1 watched;
 *   - GoogLeNet at batch 10 (force_backward), its first convolution
 *     watched;
 *   - ResNet-50 (batch 1, force_backward set here), conv1 and res2a
 *     watched.
 *
 * Inputs are `cortado-cli forward --fill caffe-ref`'s deterministic fill,
 * weights the nets' fillers. Per net it prints the overhead of a step
 * (the runner's own figure: the worker's time that was not spent in
 * layers, snapshot included; the first step, which builds the net, apart)
 * as median, p95 and max; the same as the caller sees it (from queueing
 * the step to the snapshot's delivery in the main context, less the
 * layers' compute: the hand-over and the main loop's wake-up included);
 * the layers' compute for scale; and the bytes of
 * full copies a snapshot holds (and of those, the ones new in it) next to
 * what the whole net's data and diffs weigh: copies stay bounded by what is
 * watched. The goal is an overhead under 5 ms; the benchmark prints and
 * never fails on speed, since the build machines are shared.
 *
 * CT_BENCH_NETS=alexnet,lenet picks nets (default: all four);
 * CT_BENCH_LEAVE_CORE=1 runs them as the window does, on one compute
 * thread fewer (CtRunConfig.leave_a_core); CT_BENCH_PASSES=N steps
 * through N forward and backward passes and prints the last (a user
 * stepping on: the copies of the passes before are let go by then). */
#include <stdio.h>
#include <string.h>

#include "bench-util.h"
#include "runner.h"
#include "text-format.h"

typedef struct {
  const char *name;
  const char *path;          /* under tests/data */
  guint batch_size;          /* 0: as written */
  const char *const *watch;
} BenchNet;

static const char *const alexnet_watch[] = { "conv1", NULL };
static const char *const lenet_watch[] = { "conv1", "ip1", NULL };
static const char *const googlenet_watch[] = { "conv1/7x7_s2", NULL };
static const char *const resnet_watch[] = { "conv1", "res2a", NULL };

static const BenchNet nets[] = {
  { "alexnet", "timing/bvlc_alexnet_deploy_force_backward.prototxt", 10, alexnet_watch },
  { "lenet", "timing/lenet_input_b64.prototxt", 0, lenet_watch },
  { "googlenet", "timing/bvlc_googlenet_deploy_force_backward.prototxt", 10, googlenet_watch },
  { "resnet50", "zoo/resnet50/ResNet-50-deploy.prototxt", 0, resnet_watch },
};

typedef struct {
  CtRunSnapshot *last;
  guint64 seen;
} Bench;

static void
on_snapshot (CtRunner *runner, CtRunSnapshot *snapshot, gpointer user_data)
{
  Bench *bench = user_data;

  g_clear_pointer (&bench->last, ct_run_snapshot_unref);
  bench->last = ct_run_snapshot_ref (snapshot);
}

static CtRunSnapshot *
wait_next (Bench *bench)
{
  while (bench->last == NULL || ct_run_snapshot_get_serial (bench->last) <= bench->seen)
    g_main_context_iteration (NULL, TRUE);
  bench->seen = ct_run_snapshot_get_serial (bench->last);
  return bench->last;
}

static void
add_bytes (GHashTable *set, GBytes *bytes)
{
  if (bytes != NULL)
    g_hash_table_add (set, bytes);
}

/* Every full copy SNAPSHOT holds (shared ones once). */
static GHashTable *
copies_of (CtRunSnapshot *snapshot)
{
  GHashTable *set = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < ct_run_snapshot_n_blobs (snapshot); i++)
    {
      const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, i);

      for (guint v = 0; blob->versions != NULL && v < blob->versions->len; v++)
        {
          const CtRunVersion *version = blob->versions->pdata[v];

          add_bytes (set, version->data);
          add_bytes (set, version->diff);
        }
    }
  for (guint i = 0; i < ct_run_snapshot_n_layers (snapshot); i++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i);

      for (guint p = 0; layer->params != NULL && p < layer->params->len; p++)
        {
          const CtRunParam *param = layer->params->pdata[p];

          add_bytes (set, param->data);
          add_bytes (set, param->diff);
        }
    }
  return set;
}

/* The bytes of SET's copies, and of those not in OLD (may be NULL). */
static void
sum_bytes (GHashTable *set, GHashTable *old, double *total, double *fresh)
{
  GHashTableIter iter;
  gpointer key;

  *total = *fresh = 0.0;
  g_hash_table_iter_init (&iter, set);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      double size = (double) g_bytes_get_size (key);

      *total += size;
      if (old == NULL || !g_hash_table_contains (old, key))
        *fresh += size;
    }
}

static double
percentile (double *v, int n, double p)
{
  int k;

  qsort (v, (size_t) n, sizeof *v, ct_bench_compare_doubles);
  k = (int) (p * (n - 1) + 0.5);
  return v[k];
}

typedef struct {
  GArray *overhead;   /* double, ms */
  GArray *seen;       /* double, ms: delivered less compute */
  GArray *compute;    /* double, ms */
  double max_bytes, max_fresh;
  double sum_fresh;
} Figures;

static void
record (Figures *fig, CtRunSnapshot *snapshot, gint64 queued, GHashTable **copies)
{
  double overhead = ct_run_snapshot_get_overhead_us (snapshot) / 1000.0;
  double compute = ct_run_snapshot_get_compute_us (snapshot) / 1000.0;
  double seen = (double) (g_get_monotonic_time () - queued) / 1000.0 - compute;
  GHashTable *now = copies_of (snapshot);
  double total, fresh;

  sum_bytes (now, *copies, &total, &fresh);
  g_array_append_val (fig->overhead, overhead);
  g_array_append_val (fig->seen, seen);
  g_array_append_val (fig->compute, compute);
  fig->max_bytes = MAX (fig->max_bytes, total);
  fig->max_fresh = MAX (fig->max_fresh, fresh);
  fig->sum_fresh += fresh;
  g_clear_pointer (copies, g_hash_table_unref);
  *copies = now;
}

static void
print_figures (const char *pass, Figures *fig)
{
  int n = (int) fig->overhead->len;
  double *o = (double *) (gpointer) fig->overhead->data;
  double *e = (double *) (gpointer) fig->seen->data;
  double *c = (double *) (gpointer) fig->compute->data;
  double compute_total = 0.0;

  for (int i = 0; i < n; i++)
    compute_total += c[i];
  printf ("  %-8s %3d steps  overhead ms: median %6.2f  p95 %6.2f  max %6.2f   "
          "compute ms: median %7.2f  total %8.1f\n",
          pass, n, percentile (o, n, 0.5), percentile (o, n, 0.95), percentile (o, n, 1.0),
          percentile (c, n, 0.5), compute_total);
  printf ("  %-8s as delivered, less compute, ms: median %6.2f  p95 %6.2f  max %6.2f\n", "",
          percentile (e, n, 0.5), percentile (e, n, 0.95), percentile (e, n, 1.0));
  printf ("  %-8s copies per snapshot: at most %.1f MiB held, %.1f MiB new (mean new %.2f MiB)\n",
          "", fig->max_bytes / 1048576.0, fig->max_fresh / 1048576.0,
          n > 0 ? fig->sum_fresh / n / 1048576.0 : 0.0);
}

static double
net_bytes (CtRunSnapshot *snapshot)
{
  double bytes = 0.0;

  for (guint i = 0; i < ct_run_snapshot_n_blobs (snapshot); i++)
    bytes += 2.0 * (double) ct_run_snapshot_get_blob (snapshot, i)->count * sizeof (float);
  return bytes;
}

static gboolean
bench_net (const BenchNet *net, guint n_passes)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA") != NULL
                                            ? g_getenv ("CT_TEST_DATA")
                                            : CT_TEST_SOURCE_DIR "/tests/data",
                                            net->path, NULL);
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = (Caffe__NetParameter *)
    ct_text_parse_file (&caffe__net_parameter__descriptor, path, CT_TEXT_STRICT, &error);
  CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 1701,
                         .batch_size = net->batch_size, .fill = CT_RUN_FILL_CAFFE_REF,
                         .leave_a_core = g_strcmp0 (g_getenv ("CT_BENCH_LEAVE_CORE"), "1") == 0 };
  Bench bench = { 0 };
  Figures forward = { g_array_new (FALSE, FALSE, sizeof (double)),
                      g_array_new (FALSE, FALSE, sizeof (double)),
                      g_array_new (FALSE, FALSE, sizeof (double)) };
  Figures backward = { g_array_new (FALSE, FALSE, sizeof (double)),
                       g_array_new (FALSE, FALSE, sizeof (double)),
                       g_array_new (FALSE, FALSE, sizeof (double)) };
  GHashTable *copies = NULL;
  CtRunner *runner;
  CtRunSnapshot *snapshot;
  double build_ms;
  guint n_layers;
  gint64 t0;

  if (param == NULL)
    {
      fprintf (stderr, "%s: %s\n", net->name, error->message);
      return FALSE;
    }
  /* Deploy nets compute no gradients unless told to. */
  param->has_force_backward = TRUE;
  param->force_backward = TRUE;
  runner = ct_runner_new (param, &config, on_snapshot, &bench);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  ct_runner_watch (runner, net->watch);

  /* The first step builds the net: apart. */
  t0 = g_get_monotonic_time ();
  ct_runner_step_forward (runner);
  snapshot = wait_next (&bench);
  build_ms = (double) (g_get_monotonic_time () - t0) / 1000.0;
  if (ct_run_snapshot_get_error (snapshot) != NULL)
    {
      fprintf (stderr, "%s: %s\n", net->name, ct_run_snapshot_get_error (snapshot)->message);
      ct_runner_free (runner);
      g_clear_pointer (&bench.last, ct_run_snapshot_unref);
      return FALSE;
    }
  copies = copies_of (snapshot);
  n_layers = ct_run_snapshot_n_layers (snapshot);
  for (guint pass = 1; pass < n_passes; pass++)
    {
      /* the passes before the last: run, not measured */
      while ((guint) ct_run_snapshot_get_next_layer (snapshot) < n_layers)
        {
          ct_runner_step_forward (runner);
          snapshot = wait_next (&bench);
        }
      do
        {
          ct_runner_step_backward (runner);
          snapshot = wait_next (&bench);
        }
      while (ct_run_snapshot_get_next_layer (snapshot) >= 0);
      /* forward from a complete backward pass begins the next one */
      ct_runner_step_forward (runner);
      snapshot = wait_next (&bench);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
      g_clear_pointer (&copies, g_hash_table_unref);
      copies = copies_of (snapshot);
    }
  while ((guint) ct_run_snapshot_get_next_layer (snapshot) < n_layers)
    {
      t0 = g_get_monotonic_time ();
      ct_runner_step_forward (runner);
      snapshot = wait_next (&bench);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
      record (&forward, snapshot, t0, &copies);
    }
  do
    {
      t0 = g_get_monotonic_time ();
      ct_runner_step_backward (runner);
      snapshot = wait_next (&bench);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
      record (&backward, snapshot, t0, &copies);
    }
  while (ct_run_snapshot_get_next_layer (snapshot) >= 0);

  printf ("%s: %u layers, %u blobs (data and diffs %.1f MiB), first step (build) %.0f ms\n",
          net->name, n_layers, ct_run_snapshot_n_blobs (snapshot),
          net_bytes (snapshot) / 1048576.0, build_ms);
  print_figures ("forward", &forward);
  print_figures ("backward", &backward);
  fflush (stdout);

  g_clear_pointer (&copies, g_hash_table_unref);
  g_array_unref (forward.overhead);
  g_array_unref (forward.seen);
  g_array_unref (forward.compute);
  g_array_unref (backward.overhead);
  g_array_unref (backward.seen);
  g_array_unref (backward.compute);
  ct_runner_free (runner);
  g_clear_pointer (&bench.last, ct_run_snapshot_unref);
  return TRUE;
}

int
main (void)
{
  const char *pick = g_getenv ("CT_BENCH_NETS");
  g_auto (GStrv) picked = pick != NULL ? g_strsplit (pick, ",", -1) : NULL;
  const char *passes = g_getenv ("CT_BENCH_PASSES");
  guint n_passes = passes != NULL ? MAX (1, (guint) g_ascii_strtoull (passes, NULL, 10)) : 1;
  gboolean ok = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (nets); i++)
    if (picked == NULL || g_strv_contains ((const char *const *) picked, nets[i].name))
      ok = bench_net (&nets[i], n_passes) && ok;
  return ok ? 0 : 1;
}
