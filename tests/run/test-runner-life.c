/* test-runner-life.c: the runner's life around the steps: an edit
 * invalidates the run and the new run keeps the weights whose shapes still
 * match; a new configuration starts afresh; errors (a bad net, a missing
 * caffemodel, a layer failing, an unknown input) come back in the
 * snapshot; snapshots coalesce without losing an error; a runner freed
 * mid-pass or with a snapshot undelivered shuts down cleanly; and the
 * Fashion-MNIST LeNet with Caffe's trained weights steps through forward
 * and backward, with a lowered batch, as one whole pass computes it; the
 * runner says it is busy from a step queued until a snapshot answers it,
 * dropped steps and stopped passes included. */
#include <math.h>
#include <string.h>

#include "error-place.h"
#include "run-test-util.h"

static const CtRunConfig small_config = { .phase = CAFFE__PHASE__TRAIN, .seed = 1701 };

static char *
edited_net (void)
{
  g_autofree char *text = g_strdup (ct_test_small_net);
  GString *s = g_string_new (text);

  /* conv1: another filler, the same shapes: its weights are kept. ip: 4
   * outputs instead of 3: filled afresh. */
  g_assert_cmpuint (g_string_replace (s, "weight_filler { type: 'gaussian' std: 1 }",
                                      "weight_filler { type: 'constant' value: 0.5 }", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (s, "num_output: 3 weight_filler",
                                      "num_output: 4 weight_filler", 1), ==, 1);
  return g_string_free (s, FALSE);
}

static void
test_rebuild_keeps_weights (void)
{
  g_autofree char *edited = edited_net ();
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (edited);
  g_autoptr (GBytes) conv1_before = NULL;
  const CtRunVersion *version;
  const char *const *fresh;
  CtTestRun run;
  CtRunSnapshot *snapshot;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch (run.runner, (const char *const[]) { "conv1", "ip", NULL });
  ct_runner_step_forward (run.runner);
  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 2);
  g_assert_false (ct_run_snapshot_get_invalidated (snapshot));
  g_assert_null (ct_run_snapshot_get_reinitialised (snapshot));
  version = ct_test_blob (snapshot, "conv1")->versions->pdata[0];
  conv1_before = g_bytes_ref (version->data);

  ct_runner_rebuild (run.runner, param);
  snapshot = ct_test_run_next (&run);
  g_assert_true (ct_run_snapshot_get_invalidated (snapshot));
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_NONE);
  g_assert_cmpuint (ct_run_snapshot_n_layers (snapshot), ==, 0);

  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_next (&run);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  g_assert_false (ct_run_snapshot_get_invalidated (snapshot));
  fresh = ct_run_snapshot_get_reinitialised (snapshot);
  g_assert_nonnull (fresh);
  g_assert_cmpstr (fresh[0], ==, "ip");
  g_assert_null (fresh[1]);

  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  version = ct_test_blob (snapshot, "conv1")->versions->pdata[0];
  g_assert_true (g_bytes_equal (version->data, conv1_before));
  g_assert_cmpint (ct_test_blob (snapshot, "ip")->dims[1], ==, 4);

  /* Another seed: a new run, nothing kept (the constant filler now). */
  {
    CtRunConfig config = small_config;

    config.seed = 7;
    ct_runner_set_config (run.runner, &config);
    snapshot = ct_test_run_next (&run);
    g_assert_true (ct_run_snapshot_get_invalidated (snapshot));
    ct_runner_step_forward (run.runner);
    ct_runner_step_forward (run.runner);
    snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 2);
    g_assert_null (ct_run_snapshot_get_reinitialised (snapshot));
    version = ct_test_blob (snapshot, "conv1")->versions->pdata[0];
    g_assert_false (g_bytes_equal (version->data, conv1_before));
  }
  ct_test_run_clear (&run);
}

static CtRunSnapshot *
step_error (CtTestRun *run)
{
  CtRunSnapshot *snapshot;

  ct_runner_step_forward (run->runner);
  snapshot = ct_test_run_next (run);
  g_assert_nonnull (ct_run_snapshot_get_error (snapshot));
  return snapshot;
}

static void
test_errors (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const GError *error;

  /* A bad net. */
  ct_test_run_init (&run, "layer { name: 'odd' type: 'NoSuchLayer' top: 'x' }", &small_config);
  snapshot = step_error (&run);
  g_assert_nonnull (strstr (ct_run_snapshot_get_error (snapshot)->message, "odd"));
  /* the window selects the layer from the error's data, not its words */
  g_assert_cmpstr (ct_error_get_layer (ct_run_snapshot_get_error (snapshot)), ==, "odd");
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_NONE);
  g_assert_cmpuint (ct_run_snapshot_n_layers (snapshot), ==, 0);
  ct_test_run_clear (&run);

  /* A missing caffemodel. */
  {
    CtRunConfig config = small_config;

    config.weights = "/nonexistent/cortado-weights.caffemodel";
    ct_test_run_init (&run, ct_test_small_net, &config);
    snapshot = step_error (&run);
    g_assert_nonnull (strstr (ct_run_snapshot_get_error (snapshot)->message,
                              "cortado-weights.caffemodel"));
    ct_test_run_clear (&run);
  }

  /* An input the net does not have. */
  ct_test_run_init (&run, ct_test_small_net, &small_config);
  ct_runner_set_input (run.runner, "nope", (const gint64[]) { 1 }, 1, (const float[]) { 1 });
  snapshot = step_error (&run);
  g_assert_error ((GError *) ct_run_snapshot_get_error (snapshot), CT_RUN_ERROR,
                  CT_RUN_ERROR_NO_BLOB);
  ct_test_run_clear (&run);

  /* A layer failing: label 7 of 3 classes. The run stays before it. */
  ct_test_run_init_small (&run, &small_config);
  ct_runner_set_input (run.runner, "label", (const gint64[]) { 2 }, 1, (const float[]) { 0, 7 });
  ct_runner_run_pass (run.runner);
  for (;;)
    {
      snapshot = ct_test_run_next (&run);
      error = ct_run_snapshot_get_error (snapshot);
      if (error != NULL)
        break;
    }
  g_assert_nonnull (strstr (error->message, "'loss'"));
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 6);
  g_assert_cmpint (ct_run_snapshot_get_layer (snapshot, 6)->state, ==, CT_RUN_LAYER_PENDING);
  ct_test_run_clear (&run);
}

/* Commands queued while the main loop is busy hand over one snapshot, the
 * latest, and it still carries the error of a step in between. */
static void
test_coalesce (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;

  ct_test_run_init_small (&run, &small_config);
  for (int i = 0; i < 7; i++)
    ct_runner_step_forward (run.runner);
  for (int i = 0; i < 7; i++)
    ct_runner_step_backward (run.runner); /* the seventh is refused */
  ct_runner_step_forward (run.runner);
  /* The small net steps in microseconds: let the worker finish. */
  g_usleep (G_USEC_PER_SEC);
  do
    snapshot = ct_test_run_next (&run);
  while (ct_run_snapshot_get_serial (snapshot) < 15);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_true (snapshot == run.last);
  g_assert_cmpuint (run.received, ==, 1);
  g_assert_cmpuint (ct_run_snapshot_get_serial (snapshot), ==, 15);
  g_assert_error ((GError *) ct_run_snapshot_get_error (snapshot), CT_RUN_ERROR,
                  CT_RUN_ERROR_PASS_COMPLETE);
  /* Every layer run since the start, in order. */
  {
    static const int want[] = { 0, 1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2, 1, 0, 0 };
    guint n;
    const int *stepped = ct_run_snapshot_get_stepped (snapshot, &n);

    g_assert_cmpmem (stepped, n * sizeof (int), want, sizeof want);
  }
  ct_test_run_clear (&run);
}

static char *
lenet_text (guint batch)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA"), "reference",
                                            "lenet_fashion_deploy_loss.prototxt", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  GString *s;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  s = g_string_new (text);
  if (batch != 4)
    {
      g_autofree char *shapes = g_strdup_printf ("shape { dim: %u dim: 1 dim: 28 dim: 28 } "
                                                 "shape { dim: %u }", batch, batch);

      g_assert_cmpuint (g_string_replace (s, "shape { dim: 4 dim: 1 dim: 28 dim: 28 } "
                                          "shape { dim: 4 }", shapes, 1), ==, 1);
    }
  return g_string_free (s, FALSE);
}

static char *
reference_file (const char *name)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", name, NULL);
}

static float *
read_floats (const char *name, gsize *count)
{
  g_autofree char *path = reference_file (name);
  g_autoptr (GError) error = NULL;
  char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_no_error (error);
  *count = length / sizeof (float);
  return (float *) contents;
}

/* LeNet with Caffe's trained weights, batch lowered from 4 to 2, the first
 * two Fashion-MNIST test images, stepped through layer by layer. */
static void
test_lenet (void)
{
  static const char *const layers[] = { "data", "conv1", "pool1", "conv2", "pool2", "ip1",
                                        "relu1", "ip2", "loss" };
  g_autofree char *text = lenet_text (4);
  g_autofree char *text2 = lenet_text (2);
  g_autofree char *weights = reference_file ("fashion_lenet_iter_10000.caffemodel");
  gsize n_data, n_label;
  g_autofree float *data = read_floats ("fashion_test4_data.f32", &n_data);
  g_autofree float *label = read_floats ("fashion_test4_label.f32", &n_label);
  CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 1, .weights = weights,
                         .batch_size = 2 };
  g_autoptr (GError) error = NULL;
  g_autoptr (Caffe__NetParameter) param2 = ct_test_parse (text2);
  g_autoptr (CtNet) ref = NULL;
  CtTestRun run;
  CtRunSnapshot *snapshot = NULL;
  float loss = 0.0f;
  guint n;

  g_assert_cmpuint (n_data, ==, 4 * 28 * 28);
  g_assert_cmpuint (n_label, ==, 4);

  /* The same pass in one go. */
  ref = ct_net_new (param2, CAFFE__PHASE__TEST, 0, NULL, 1, &error);
  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (ref, weights, &error));
  memcpy (ct_blob_mutable_cpu_data (ct_net_blob_by_name (ref, "data"), NULL), data,
          2 * 28 * 28 * sizeof (float));
  memcpy (ct_blob_mutable_cpu_data (ct_net_blob_by_name (ref, "label"), NULL), label,
          2 * sizeof (float));
  g_assert_true (ct_net_forward (ref, &loss, &error));
  g_assert_true (ct_net_backward (ref, &error));
  g_assert_no_error (error);

  ct_test_run_init (&run, text, &config);
  ct_runner_set_input (run.runner, "data", (const gint64[]) { 2, 1, 28, 28 }, 4, data);
  ct_runner_set_input (run.runner, "label", (const gint64[]) { 2 }, 1, label);
  ct_runner_watch (run.runner, (const char *const[]) { "conv1", "ip1", NULL });
  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      int stepped_want = (int) i;
      const int *stepped;

      ct_runner_step_forward (run.runner);
      snapshot = ct_test_run_next (&run);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
      stepped = ct_run_snapshot_get_stepped (snapshot, &n);
      g_assert_cmpmem (stepped, n * sizeof (int), &stepped_want, sizeof (int));
      g_assert_cmpstr (ct_run_snapshot_get_layer (snapshot, i)->name, ==, layers[i]);
      /* The first step also builds the net. */
      g_test_message ("%s: %.0f us in the layer, %.0f us besides", layers[i],
                      ct_run_snapshot_get_compute_us (snapshot),
                      ct_run_snapshot_get_overhead_us (snapshot));
      g_assert_cmpfloat (ct_run_snapshot_get_compute_us (snapshot), >=, 0.0);
    }
  g_assert_cmpint (ct_test_blob (snapshot, "data")->dims[0], ==, 2);
  g_assert_cmpmem (&loss, sizeof loss, (float[]) { ct_run_snapshot_get_loss (snapshot) },
                   sizeof (float));
  g_assert_cmpuint (ct_test_blob (snapshot, "ip1")->versions->len, ==, 2);

  for (int guard = 0; guard < 20; guard++)
    {
      ct_runner_step_backward (run.runner);
      snapshot = ct_test_run_next (&run);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
      if (ct_run_snapshot_get_next_layer (snapshot) < 0)
        break;
    }
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, -1);
  for (guint b = 0; b < 2; b++)
    {
      const char *name = b == 0 ? "conv1" : "ip1";
      CtBlob *want = ct_net_blob_by_name (ref, name);
      const CtRunBlob *blob = ct_test_blob (snapshot, name);
      const CtRunVersion *first = blob->versions->pdata[0];
      const CtRunVersion *last = blob->versions->pdata[blob->versions->len - 1];
      gsize bytes = (gsize) ct_blob_count (want) * sizeof (float);

      g_assert_cmpmem (ct_test_version_data (last), bytes, ct_blob_cpu_data (want, NULL), bytes);
      g_assert_cmpmem (ct_test_version_diff (first), bytes, ct_blob_cpu_diff (want, NULL), bytes);
      g_assert_true (blob->has_diff);
      g_assert_cmpfloat (blob->health, >, 0.0);
    }
  /* Trained weights: the loss of two test images is small. */
  g_assert_cmpfloat (ct_run_snapshot_get_loss (snapshot), <, 2.0);
  ct_test_run_clear (&run);
}

/* A lowered batch reaches Input shapes; the caffe-ref fill fills them. */
static void
test_batch_size (void)
{
  CtRunConfig config = small_config;
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const CtRunBlob *data;
  const CtRunVersion *version;

  config.batch_size = 1;
  config.fill = CT_RUN_FILL_CAFFE_REF;
  ct_test_run_init (&run, ct_test_small_net, &config);
  ct_runner_watch (run.runner, (const char *const[]) { "data", "label", NULL });
  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_next (&run);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  data = ct_test_blob (snapshot, "data");
  g_assert_cmpint (data->dims[0], ==, 1);
  g_assert_cmpint (data->count, ==, 25);
  g_assert_cmpint (ct_test_blob (snapshot, "label")->dims[0], ==, 1);
  /* Input 0 gets sin (0.01 i + 0). */
  version = data->versions->pdata[0];
  g_assert_cmpfloat (ct_test_version_data (version)[3], ==, (float) sin (0.03));
  ct_test_run_clear (&run);
}

static void
test_free_mid_run (void)
{
  g_autofree char *text = lenet_text (64);
  CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 3, .fill = CT_RUN_FILL_CAFFE_REF };
  CtTestRun run;
  guint received;

  /* Freed before any step. */
  ct_test_run_init (&run, text, &config);
  ct_test_run_clear (&run);

  /* Freed in the middle of a pass: the worker stops after its layer. */
  ct_test_run_init (&run, text, &config);
  ct_runner_watch (run.runner, (const char *const[]) { "conv1", "ip1", NULL });
  ct_runner_run_pass (run.runner);
  ct_runner_run_pass (run.runner);
  ct_test_run_next (&run);
  ct_test_run_clear (&run);

  /* Freed with a snapshot posted but not delivered: the callback never
   * runs afterwards. */
  ct_test_run_init (&run, text, &config);
  ct_runner_step_forward (run.runner);
  ct_runner_step_forward (run.runner);
  g_usleep (G_USEC_PER_SEC / 2);
  received = run.received;
  g_clear_pointer (&run.runner, ct_runner_free);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (run.received, ==, received);
  ct_test_run_clear (&run);

  /* Stopped in the middle of a pass: the worker stays ready, and the step
   * queued after the stop runs. */
  ct_test_run_init (&run, text, &config);
  ct_runner_run_pass (run.runner);
  ct_test_run_next (&run);
  ct_runner_stop (run.runner);
  ct_runner_step_forward (run.runner);
  g_usleep (G_USEC_PER_SEC);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  {
    guint stepped;
    const int *layers = ct_run_snapshot_get_stepped (run.last, &stepped);
    int next = ct_run_snapshot_get_next_layer (run.last);

    g_assert_null (ct_run_snapshot_get_error (run.last));
    g_assert_cmpint (ct_run_snapshot_get_pass (run.last), ==, CT_RUN_PASS_FORWARD);
    g_assert_cmpint (next, >=, 1);
    g_assert_cmpint (next, <=, 9);
    g_assert_cmpuint (stepped, >, 0);
    g_assert_cmpint (layers[stepped - 1], ==, next - 1);
  }
  ct_test_run_clear (&run);
}

/* Iterate until the runner has answered every step queued. */
static CtRunSnapshot *
until_idle (CtTestRun *run)
{
  CtRunSnapshot *snapshot = NULL;

  while (ct_runner_is_busy (run->runner))
    snapshot = ct_test_run_next (run);
  return snapshot;
}

/* The pace of a pass: a pause after each layer, cut short by a stop, and
 * changed while the pass runs. Only bounds that hold on a loaded machine
 * are checked: pauses make a pass at least that long, and a cut pause is
 * far shorter than the one asked for. */
static void
test_pace (void)
{
  g_autofree char *text = lenet_text (8);
  CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 3, .fill = CT_RUN_FILL_CAFFE_REF };
  const guint pace_ms = 120, long_ms = 600 * 1000;
  CtTestRun run;
  CtRunSnapshot *snapshot;
  guint n_layers;
  gint64 t0;

  ct_test_run_init (&run, text, &config);

  /* every layer but the last is followed by a pause */
  ct_runner_set_pace (run.runner, pace_ms);
  t0 = g_get_monotonic_time ();
  ct_runner_run_pass (run.runner);
  snapshot = until_idle (&run);
  n_layers = ct_run_snapshot_n_layers (run.last);
  g_assert_cmpuint (n_layers, >, 2);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (run.last), ==, (int) n_layers);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, (gint64) (n_layers - 1) * pace_ms * 1000);
  /* the pauses are not the worker's overhead */
  g_assert_nonnull (snapshot);
  g_assert_cmpfloat (ct_run_snapshot_get_overhead_us (snapshot), <, pace_ms * 1000.0);

  /* a stop ends a long pause at once: the pass stops after layer 0 */
  ct_runner_reset (run.runner);
  until_idle (&run);
  ct_runner_set_pace (run.runner, long_ms);
  t0 = g_get_monotonic_time ();
  ct_runner_run_pass (run.runner);
  do
    snapshot = ct_test_run_next (&run);
  while (ct_run_snapshot_get_next_layer (snapshot) < 1);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
  ct_runner_stop (run.runner);
  until_idle (&run);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (run.last), ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, (gint64) long_ms * 1000 / 4);

  /* a pace set while the pass pauses applies at once */
  ct_runner_run_pass (run.runner);
  do
    snapshot = ct_test_run_next (&run);
  while (ct_run_snapshot_get_next_layer (snapshot) < 2);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 2);
  ct_runner_set_pace (run.runner, 0);
  until_idle (&run);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (run.last), ==, (int) n_layers);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, (gint64) long_ms * 1000 / 4);
  ct_test_run_clear (&run);
}

static void
test_busy (void)
{
  g_autofree char *text = lenet_text (64);
  CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 3, .fill = CT_RUN_FILL_CAFFE_REF };
  CtTestRun run;
  CtRunSnapshot *snapshot;
  guint n_layers;

  ct_test_run_init (&run, text, &config);
  g_assert_false (ct_runner_is_busy (run.runner));

  /* A whole pass: busy until its last snapshot, whose layers are all done. */
  ct_runner_run_pass (run.runner);
  g_assert_true (ct_runner_is_busy (run.runner));
  snapshot = ct_test_run_next (&run);
  n_layers = ct_run_snapshot_n_layers (snapshot);
  g_assert_cmpuint (n_layers, >, 1);
  /* a snapshot of the pass still on its way says so */
  if (ct_run_snapshot_get_next_layer (snapshot) < (int) n_layers)
    g_assert_true (ct_runner_is_busy (run.runner));
  snapshot = until_idle (&run);
  if (snapshot == NULL)
    snapshot = run.last;
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, (int) n_layers);

  /* A stop with nothing running answers no step and leaves it idle. */
  ct_runner_stop (run.runner);
  ct_test_run_next (&run);
  g_assert_false (ct_runner_is_busy (run.runner));

  /* Two passes queued and stopped: the dropped steps are answered by the
   * stop's snapshot, which says where the run stands. */
  ct_runner_run_pass (run.runner);
  ct_runner_run_pass (run.runner);
  ct_runner_stop (run.runner);
  g_assert_true (ct_runner_is_busy (run.runner));
  snapshot = until_idle (&run);
  g_assert_nonnull (snapshot);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), !=, CT_RUN_PASS_NONE);

  /* One step after it: busy, then answered. */
  ct_runner_step_forward (run.runner);
  g_assert_true (ct_runner_is_busy (run.runner));
  snapshot = until_idle (&run);
  g_assert_nonnull (snapshot);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  ct_test_run_clear (&run);
}

/* A quiet watch sends no snapshot of its own: the step after it carries
 * the copies (a window selecting the layer a step will run). */
static void
test_quiet_watch (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;
  guint received;
  gint64 until;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_step_forward (run.runner);
  ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 1);
  received = run.received;
  ct_runner_set_watch_quiet (run.runner, TRUE);
  ct_runner_watch (run.runner, (const char *const[]) { "conv1", NULL });
  ct_runner_watch_params (run.runner, (const char *const[]) { "conv1", NULL });
  ct_runner_set_watch_quiet (run.runner, FALSE);
  until = g_get_monotonic_time () + G_USEC_PER_SEC / 5;
  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (run.received, ==, received);

  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 2);
  g_assert_cmpuint (run.received, ==, received + 1);
  g_assert_cmpuint (ct_test_blob (snapshot, "conv1")->versions->len, ==, 1);

  /* loud again: a watch alone is answered */
  ct_runner_watch (run.runner, (const char *const[]) { "ip", NULL });
  snapshot = ct_test_run_next (&run);
  g_assert_true (ct_test_blob (snapshot, "ip")->watched);
  ct_test_run_clear (&run);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/runner/rebuild-keeps-weights", test_rebuild_keeps_weights);
  g_test_add_func ("/run/runner/errors", test_errors);
  g_test_add_func ("/run/runner/coalesce", test_coalesce);
  g_test_add_func ("/run/runner/batch-size", test_batch_size);
  g_test_add_func ("/run/runner/lenet", test_lenet);
  g_test_add_func ("/run/runner/free-mid-run", test_free_mid_run);
  g_test_add_func ("/run/runner/busy", test_busy);
  g_test_add_func ("/run/runner/pace", test_pace);
  g_test_add_func ("/run/runner/quiet-watch", test_quiet_watch);
  return g_test_run ();
}
