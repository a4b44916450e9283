/* test-runner-device.c: the runner on a GPU, as the window's device menu
 * asks for it. With a GPU, stepping the small net (in-place ReLU, a Split,
 * a loss) forward and backward there gives the CPU run's blobs, data and
 * diffs, to the contract's 1e-4; without one, the first step fails with a
 * message that says why, and the run can go on on the CPU. */
#include <math.h>
#include <string.h>

#include "device.h"
#include "run-device.h"
#include "run-test-util.h"

static const CtRunConfig cpu_config = { .phase = CAFFE__PHASE__TRAIN, .seed = 1701 };
static const CtRunConfig gpu_config = {
  .phase = CAFFE__PHASE__TRAIN, .seed = 1701, .use_gpu = TRUE, .gpu_device = 0,
};

static gboolean
have_gpu (void)
{
  return ct_cuda_available () == CT_STATUS_OK;
}

/* Steps a whole forward and backward pass with every blob watched. */
static CtRunSnapshot *
run_both_passes (CtTestRun *run, const CtRunConfig *config)
{
  static const char *const names[] = { "data", "label", "conv1", "ip", "ip_ip_0_split_0",
                                       "ip_ip_0_split_1", "sum", "loss", NULL };

  ct_test_run_init_small (run, config);
  ct_runner_watch (run->runner, names);
  for (int i = 0; i < 7; i++)
    ct_runner_step_forward (run->runner);
  for (int i = 0; i < 6; i++)
    ct_runner_step_backward (run->runner);
  return ct_test_run_until (run, CT_RUN_PASS_BACKWARD, -1);
}

static void
assert_close (const float *gpu, const float *cpu, gint64 count, const char *what)
{
  double diff = 0, norm = 0;

  for (gint64 i = 0; i < count; i++)
    {
      diff += ((double) gpu[i] - cpu[i]) * ((double) gpu[i] - cpu[i]);
      norm += (double) cpu[i] * cpu[i];
    }
  if (sqrt (diff) > 1e-4 * sqrt (norm) + 1e-30)
    g_error ("%s: ||gpu - cpu|| = %g, ||cpu|| = %g", what, sqrt (diff), sqrt (norm));
}

static void
test_gpu_matches_cpu (void)
{
  CtTestRun cpu, gpu;
  CtRunSnapshot *on_cpu, *on_gpu;

  if (!have_gpu ())
    {
      g_test_skip ("no usable GPU");
      return;
    }
  on_cpu = run_both_passes (&cpu, &cpu_config);
  on_gpu = run_both_passes (&gpu, &gpu_config);
  g_assert_no_error (ct_run_snapshot_get_error (on_gpu));
  g_assert_cmpuint (ct_run_snapshot_n_blobs (on_gpu), ==, ct_run_snapshot_n_blobs (on_cpu));
  for (guint i = 0; i < ct_run_snapshot_n_blobs (on_cpu); i++)
    {
      const CtRunBlob *want = ct_run_snapshot_get_blob (on_cpu, i);
      const CtRunBlob *got = ct_run_snapshot_find_blob (on_gpu, want->name);

      g_assert_nonnull (got);
      g_assert_cmpuint (got->versions->len, ==, want->versions->len);
      for (guint v = 0; v < want->versions->len; v++)
        {
          g_autofree char *what = g_strdup_printf ("%s version %u", want->name, v);

          assert_close (ct_test_version_data (got->versions->pdata[v]),
                        ct_test_version_data (want->versions->pdata[v]), want->count, what);
          if (want->has_diff)
            assert_close (ct_test_version_diff (got->versions->pdata[v]),
                          ct_test_version_diff (want->versions->pdata[v]), want->count, what);
        }
    }
  ct_test_run_clear (&cpu);
  ct_test_run_clear (&gpu);
}

static void
test_no_gpu_says_why (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const GError *error;
  CtRunConfig config = gpu_config;

  if (have_gpu ())
    {
      /* A GPU that does not exist, where there is one. */
      config.gpu_device = 1000;
    }
  ct_test_run_init_small (&run, &config);
  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_next (&run);
  error = ct_run_snapshot_get_error (snapshot);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "cannot be used"));

  /* The CPU, chosen again, runs. */
  ct_runner_set_config (run.runner, &cpu_config);
  ct_runner_step_forward (run.runner);
  do
    snapshot = ct_test_run_next (&run);
  while (ct_run_snapshot_get_next_layer (snapshot) != 1);
  g_assert_no_error (ct_run_snapshot_get_error (snapshot));
  ct_test_run_clear (&run);
}

static void
test_list_gpus (void)
{
  g_autofree char *reason = NULL;
  g_auto (GStrv) gpus = ct_run_list_gpus (&reason);

  if (have_gpu ())
    {
      g_assert_cmpuint (g_strv_length (gpus), >, 0);
      g_assert_true (g_str_has_prefix (gpus[0], "GPU 0"));
      g_assert_null (reason);
    }
  else
    {
      g_assert_cmpuint (g_strv_length (gpus), ==, 0);
      g_assert_nonnull (reason);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (g_strcmp0 (g_getenv ("CT_TEST_DEVICE"), "gpu") == 0 && !have_gpu ())
    return 77;
  g_test_add_func ("/run/runner-device/list", test_list_gpus);
  g_test_add_func ("/run/runner-device/gpu-matches-cpu", test_gpu_matches_cpu);
  g_test_add_func ("/run/runner-device/no-gpu-says-why", test_no_gpu_says_why);
  return g_test_run ();
}
