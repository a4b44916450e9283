/* cli-time.c: `cortado-cli time --model NET [--iterations N]`: the speed
 * benchmark of Caffe's `caffe time`, with its flags and its lines, so that
 * scripts written for one read the other.
 *
 * As Caffe does, the net is built (phase TRAIN unless --phase says
 * otherwise), run forward and backward once so that every buffer is
 * allocated, and then run N times; each layer's forward and backward time
 * comes from the net's own per-layer timing, and the averages are printed
 * on stderr as glog lines ("I1122 12:31:41.123456  4242 cli-time.c:88]
 * Average Forward pass: 7.3 ms."), with gflags' spellings accepted
 * (`-model x`, `-model=x`), as the other verbs that stand in for `caffe`
 * do (cli-caffe.c). With --gpu the net runs on that GPU and each layer's
 * time waits for the device to finish its work (ct_net_set_timing_sync),
 * so the times are the GPU's, as Caffe's CUDA event timers give them.
 * Caffe leaves Input blobs at zero; here they are filled
 * by the reference rule unless --fill says otherwise, so that the
 * arithmetic sees realistic numbers. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "cli-net-private.h"
#include "cli-private.h"
#include "devices.h"
#include "engine-error.h"
#include "net-dump.h"
#include "net.h"

typedef struct {
  char *model;
  int iterations;
  char *phase;
  int level;
  char **stages;
  char *gpu;
  char *fill;
  gint64 seed;
  gboolean keep_blobs;
} TimeOptions;

static void
options_clear (TimeOptions *o)
{
  g_free (o->model);
  g_free (o->phase);
  g_strfreev (o->stages);
  g_free (o->gpu);
  g_free (o->fill);
}

/* Milliseconds as Caffe's streams print them. */
static const char *
format_ms (char *buf, double ms)
{
  return ct_cli_format_number (buf, ms);
}

static double
now_ms (void)
{
  return (double) g_get_monotonic_time () / 1000.0;
}

static void
log_note (const char *model, const char *note)
{
  CT_CLI_LOG_WARNING ("%s: %s", model, note);
}

/* --fill random: every Input top uniform in [-1, 1), labels as the
 * reference rule gives them (so that loss layers see valid classes). */
static gboolean
fill_random (CtNet *net, guint64 seed, GError **error)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) seed);

  if (!ct_net_fill_reference_inputs (net, error))
    return FALSE;
  for (guint k = 0; k < ct_net_n_inputs (net); k++)
    {
      guint index = ct_net_input_index (net, k);
      CtBlob *blob = ct_net_get_blob (net, index);
      float *data;

      if (strstr (ct_net_get_blob_name (net, index), "label") != NULL)
        continue;
      if ((data = ct_blob_mutable_cpu_data (blob, error)) == NULL)
        return FALSE;
      for (gint64 i = 0; i < ct_blob_count (blob); i++)
        data[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
    }
  return TRUE;
}

static gboolean
fill_inputs (CtNet *net, const TimeOptions *o, GError **error)
{
  if (strcmp (o->fill, "zero") == 0)
    return TRUE;
  if (!ct_net_apply_reference_batch_norm (net, error))
    return FALSE;
  if (strcmp (o->fill, "random") == 0)
    return fill_random (net, (guint64) o->seed, error);
  return ct_net_fill_reference_inputs (net, error);
}

/* On the GPU, a pass has ended when the device has finished it. */
static gboolean
wait_for_device (gboolean use_gpu, GError **error)
{
  return !use_gpu || ct_engine_gpu_synchronize (error);
}

/* Layers whose CPU passes the layer before them runs (a planned net's
 * BatchNorm runs the Scale and ReLU after it): their times are in its. */
static void
log_absorbed (CtNet *net)
{
  guint n = 0;

  for (guint i = 0; i < ct_net_n_layers (net); i++)
    n += ct_net_get_layer (net, i)->absorbed_by != NULL;
  if (n > 0)
    CT_CLI_LOG_INFO (g_dngettext (GETTEXT_PACKAGE,
                                  "%u in-place layer runs within the layer before it: its "
                                  "time is in that layer's (--keep-blobs runs every layer "
                                  "by itself)",
                                  "%u in-place layers run within the layers before them: "
                                  "their times are in those layers' (--keep-blobs runs every "
                                  "layer by itself)", n), n);
}

static void
print_layer_times (CtNet *net, int iterations)
{
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      const CtNetLayerTiming *t = ct_net_get_layer_timing (net, i);
      const char *name = ct_layer_get_name (ct_net_get_layer (net, i));
      char fwd[G_ASCII_DTOSTR_BUF_SIZE], bwd[G_ASCII_DTOSTR_BUF_SIZE];

      CT_CLI_LOG_INFO ("%10s\tforward: %s ms.", name,
                       format_ms (fwd, t->forward_us / 1000.0 / iterations));
      CT_CLI_LOG_INFO ("%10s\tbackward: %s ms.", name,
                       format_ms (bwd, t->backward_us / 1000.0 / iterations));
    }
}

static gboolean
run (const TimeOptions *o, Caffe__Phase phase, GError **error)
{
  g_auto (GStrv) stages = ct_cli_split_stages (o->stages);
  CtCliNetRequest request = {
    .model = o->model,
    .phase = phase,
    .level = o->level,
    .stages = (const char *const *) stages,
    .seed = (guint64) o->seed,
    .report_note = log_note,
    .memory_plan = o->keep_blobs ? CT_NET_MEMORY_KEEP_ALL : CT_NET_MEMORY_TRAINING,
  };
  g_autoptr (CtNet) net = NULL;
  gsize planned, unplanned;
  double forward_ms = 0.0, backward_ms = 0.0, total_start, total_ms;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean use_gpu = FALSE;
  float loss = 0.0f;

  /* As train and test: a GPU asked for and not there is an error. */
  if (!ct_cli_select_gpu (o->gpu, FALSE, &use_gpu, error))
    return FALSE;
  /* Not in Caffe's output: how many threads the kernels share the work
   * between (CT_NUM_THREADS, or OpenBLAS's count); on the GPU, for the
   * layers that fall back to the CPU. */
  CT_CLI_LOG_INFO ("CPU threads: %d", ct_engine_cpu_threads ());
  if ((net = ct_cli_load_net (&request, error)) == NULL || !fill_inputs (net, o, error))
    return FALSE;
  /* Not in Caffe's output either: what the blobs and parameters take, as
   * planned and as they would each with memory of their own. */
  ct_net_get_memory (net, &planned, &unplanned);
  CT_CLI_LOG_INFO (_("Memory of blobs and parameters: %s MB planned, %s MB unplanned"),
                   ct_cli_format_number (a, (double) planned / 1e6),
                   ct_cli_format_number (b, (double) unplanned / 1e6));
  if (!use_gpu)
    log_absorbed (net);
  /* Each layer's time waits for its kernels, so that the times are the
   * GPU's work and not only the launches. */
  if (use_gpu && !ct_net_set_use_gpu (net, TRUE, error))
    return FALSE;
  ct_net_set_timing_sync (net, use_gpu);

  /* One clean pass first, as Caffe's tool does, so that buffers are
   * allocated and the timed iterations are steady. */
  CT_CLI_LOG_INFO ("Performing Forward");
  if (!ct_net_forward (net, &loss, error))
    return FALSE;
  CT_CLI_LOG_INFO ("Initial loss: %s", ct_cli_format_number (a, (double) loss));
  CT_CLI_LOG_INFO ("Performing Backward");
  if (!ct_net_backward (net, error))
    return FALSE;

  ct_net_reset_timing (net);
  CT_CLI_LOG_INFO ("*** Benchmark begins ***");
  CT_CLI_LOG_INFO ("Testing for %d iterations.", o->iterations);
  total_start = now_ms ();
  for (int j = 0; j < o->iterations; j++)
    {
      double t0 = now_ms (), t1, t2;

      if (!ct_net_forward (net, NULL, error) || !wait_for_device (use_gpu, error))
        return FALSE;
      t1 = now_ms ();
      if (!ct_net_backward (net, error) || !wait_for_device (use_gpu, error))
        return FALSE;
      t2 = now_ms ();
      forward_ms += t1 - t0;
      backward_ms += t2 - t1;
      CT_CLI_LOG_INFO ("Iteration: %d forward-backward time: %s ms.", j + 1,
                       format_ms (a, t2 - t0));
    }
  CT_CLI_LOG_INFO ("Average time per layer: ");
  print_layer_times (net, o->iterations);
  total_ms = now_ms () - total_start;
  CT_CLI_LOG_INFO ("Average Forward pass: %s ms.", format_ms (a, forward_ms / o->iterations));
  CT_CLI_LOG_INFO ("Average Backward pass: %s ms.", format_ms (a, backward_ms / o->iterations));
  CT_CLI_LOG_INFO ("Average Forward-Backward: %s ms.", format_ms (a, total_ms / o->iterations));
  CT_CLI_LOG_INFO ("Total Time: %s ms.", format_ms (a, total_ms));
  CT_CLI_LOG_INFO ("*** Benchmark ends ***");
  return TRUE;
}

int
ct_cli_time (int argc, char **argv)
{
  TimeOptions o = { .iterations = 50, .seed = 1701 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_FILENAME, &o.model, N_("The net to time"), N_("NET") },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &o.iterations,
      N_("The number of timed iterations (default 50)"), N_("N") },
    { "phase", 'p', 0, G_OPTION_ARG_STRING, &o.phase,
      N_("Build the net for TRAIN (the default) or TEST"), N_("PHASE") },
    { "level", 0, 0, G_OPTION_ARG_INT, &o.level, N_("The net state's level (default 0)"),
      N_("N") },
    { "stage", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.stages,
      N_("A stage of the net state (may be repeated or comma-separated)"), N_("STAGE") },
    { "gpu", 'g', 0, G_OPTION_ARG_STRING, &o.gpu,
      N_("GPU ids as Caffe takes them (an error when there is no usable GPU)"), N_("IDS") },
    { "fill", 0, 0, G_OPTION_ARG_STRING, &o.fill,
      N_("How the Input blobs are filled: caffe-ref (the default: sin (0.01 i + k), "
         "labels i % 10), random (uniform in [-1, 1)) or zero (as Caffe leaves them)"),
      N_("RULE") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &o.seed,
      N_("Seed of the fillers and random layers (default 1701)"), N_("N") },
    { "keep-blobs", 0, 0, G_OPTION_ARG_NONE, &o.keep_blobs,
      N_("Give every blob's data and diff memory of its own and run every layer by "
         "itself, as Caffe does, instead of sharing memory between blobs whose lives do "
         "not overlap and running in-place layers within the layer before them"), NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  Caffe__Phase phase = CAFFE__PHASE__TRAIN;
  int status = CT_CLI_EXIT_OK;

  ct_cli_accept_single_dash (argc, argv, entries);
  context = ct_cli_context_new ("time", NULL,
                                _("Time a net's forward and backward passes, layer by layer, "
                                  "as Caffe's 'caffe time' does, and print the averages."),
                                entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("time", _("unexpected argument '%s'"), argv[1]);
  else if (o.model == NULL)
    status = ct_cli_usage_error ("time", _("no net given (--model NET)"));
  else if (o.iterations <= 0)
    status = ct_cli_usage_error ("time", _("--iterations must be positive, not %d"),
                                 o.iterations);
  else if (o.phase != NULL && !ct_cli_parse_phase (o.phase, &phase))
    status = ct_cli_usage_error ("time", _("--phase takes TRAIN or TEST, not '%s'"), o.phase);
  else if (o.fill != NULL && strcmp (o.fill, "caffe-ref") != 0 && strcmp (o.fill, "random") != 0
           && strcmp (o.fill, "zero") != 0)
    status = ct_cli_usage_error ("time", _("--fill takes caffe-ref, random or zero, not '%s'"),
                                 o.fill);
  else
    {
      if (o.fill == NULL)
        o.fill = g_strdup ("caffe-ref");
      if (!run (&o, phase, &error))
        {
          g_printerr ("cortado-cli time: %s\n", error->message);
          status = CT_CLI_EXIT_INPUT;
        }
    }
  options_clear (&o);
  return status;
}
