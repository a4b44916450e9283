/* test-runner.c: the runner stepping the small test net (in-place ReLU, an
 * inserted Split) without a display: the order of the layers stepped
 * forward and backward, the versions of a blob an in-place layer
 * overwrites, the diffs equal bit for bit to one whole ct_net_forward +
 * ct_net_backward of the same net, statistics in every snapshot (one
 * summary for blobs sharing memory), copies only of the blobs watched
 * (made once, and their buffers used again), and the layers' parameters,
 * whose gradients start each pass from zero. */
#include <math.h>
#include <string.h>

#include "blob-stats.h"
#include "engine-error.h"
#include "error-place.h"
#include "run-test-util.h"
#include "runner-private.h"

static const CtRunConfig small_config = { .phase = CAFFE__PHASE__TRAIN, .seed = 1701 };

/* Layers of the small net as built: Caffe inserts the Split after ip. */
static const char *const small_layers[] = {
  "data", "conv1", "relu1", "ip", "ip_ip_0_split", "sum", "loss",
};

static CtNet *
reference_net (gboolean run_backward)
{
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (ct_test_small_net);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 1701, &error);
  float data[CT_TEST_DATA_COUNT], label[2];

  g_assert_no_error (error);
  ct_test_small_inputs (data, label);
  memcpy (ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "data"), NULL), data,
          sizeof data);
  memcpy (ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "label"), NULL), label,
          sizeof label);
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);
  if (run_backward)
    {
      g_assert_true (ct_net_backward (net, &error));
      g_assert_no_error (error);
    }
  return g_steal_pointer (&net);
}

static void
assert_stepped (CtRunSnapshot *snapshot, const int *want, guint n_want)
{
  guint n;
  const int *got = ct_run_snapshot_get_stepped (snapshot, &n);

  g_assert_cmpmem (got, n * sizeof (int), want, n_want * sizeof (int));
}

static void
assert_floats_equal (const float *got, const float *want, gint64 count)
{
  /* Bit for bit: the same code on the same values in the same order. */
  g_assert_cmpmem (got, (gsize) count * sizeof (float), want, (gsize) count * sizeof (float));
}

static void
test_step_order (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;

  ct_test_run_init_small (&run, &small_config);
  for (int i = 0; i < 7; i++)
    {
      ct_runner_step_forward (run.runner);
      snapshot = ct_test_run_next (&run);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
      g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_FORWARD);
      g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, i + 1);
      assert_stepped (snapshot, &i, 1);
      g_assert_cmpuint (ct_run_snapshot_n_layers (snapshot), ==, G_N_ELEMENTS (small_layers));
      for (guint l = 0; l < G_N_ELEMENTS (small_layers); l++)
        {
          const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, l);

          g_assert_cmpstr (layer->name, ==, small_layers[l]);
          g_assert_cmpint (layer->state, ==, (int) l <= i ? CT_RUN_LAYER_FORWARD_DONE
                                                          : CT_RUN_LAYER_PENDING);
        }
      /* Only blobs written so far hold data. */
      g_assert_cmpint (ct_test_blob (snapshot, "sum")->has_data, ==, i >= 5);
      g_assert_false (ct_test_blob (snapshot, "sum")->has_diff);
    }
  {
    g_autoptr (CtNet) ref = reference_net (FALSE);
    float loss = 0.0f;

    ct_net_forward (ref, &loss, NULL);
    g_assert_cmpmem (&loss, sizeof loss, (float[]) { ct_run_snapshot_get_loss (snapshot) },
                     sizeof (float));
  }

  /* Backward: the loss first, then one layer per step; the data layer
   * computes nothing and ends conv1's step. */
  {
    static const int want[][2] = { { 6 }, { 5 }, { 4 }, { 3 }, { 2 }, { 1, 0 } };

    for (guint s = 0; s < G_N_ELEMENTS (want); s++)
      {
        ct_runner_step_backward (run.runner);
        snapshot = ct_test_run_next (&run);
        g_assert_null (ct_run_snapshot_get_error (snapshot));
        g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_BACKWARD);
        assert_stepped (snapshot, want[s], s + 1 < G_N_ELEMENTS (want) ? 1 : 2);
      }
    g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, -1);
    g_assert_cmpint (ct_run_snapshot_get_layer (snapshot, 0)->state, ==,
                     CT_RUN_LAYER_BACKWARD_SKIPPED);
    g_assert_cmpint (ct_run_snapshot_get_layer (snapshot, 1)->state, ==,
                     CT_RUN_LAYER_BACKWARD_DONE);
  }

  /* Backward once more is refused with a clear error. */
  ct_runner_step_backward (run.runner);
  snapshot = ct_test_run_next (&run);
  g_assert_error ((GError *) ct_run_snapshot_get_error (snapshot), CT_RUN_ERROR,
                  CT_RUN_ERROR_PASS_COMPLETE);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, -1);

  /* Forward starts a new pass at layer 0. */
  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_next (&run);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_FORWARD);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 1);
  g_assert_false (ct_test_blob (snapshot, "conv1")->has_data);

  /* Reset goes back before layer 0. */
  ct_runner_reset (run.runner);
  snapshot = ct_test_run_next (&run);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (snapshot), ==, 0);
  g_assert_false (ct_test_blob (snapshot, "data")->has_data);
  ct_test_run_clear (&run);
}

/* Backward from the middle of forward runs the rest of forward first. */
static void
test_backward_finishes_forward (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;
  static const int want[] = { 2, 3, 4, 5, 6, 6 };

  ct_test_run_init_small (&run, &small_config);
  ct_runner_step_forward (run.runner);
  ct_runner_step_forward (run.runner);
  ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 2);
  ct_runner_step_backward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, 5);
  assert_stepped (snapshot, want, G_N_ELEMENTS (want));

  /* Run the rest: the whole backward pass. */
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);
  g_assert_true (ct_test_blob (snapshot, "conv1")->has_diff);
  g_assert_false (ct_test_blob (snapshot, "data")->has_diff);
  ct_test_run_clear (&run);
}

static void
test_in_place_history (void)
{
  static const char *const watch[] = { "conv1", NULL };
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const CtRunBlob *conv1;
  const CtRunVersion *before, *after;
  guint negatives = 0;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch (run.runner, watch);
  ct_runner_step_forward (run.runner);
  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 2);
  conv1 = ct_test_blob (snapshot, "conv1");
  g_assert_true (conv1->watched);
  g_assert_cmpuint (conv1->versions->len, ==, 1);

  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 3);
  conv1 = ct_test_blob (snapshot, "conv1");
  g_assert_cmpuint (conv1->versions->len, ==, 2);
  before = conv1->versions->pdata[0];
  after = conv1->versions->pdata[1];
  g_assert_cmpstr (before->label, ==, "after conv1");
  g_assert_cmpstr (after->label, ==, "after relu1");
  g_assert_cmpint (before->layer_index, ==, 1);
  g_assert_cmpint (after->layer_index, ==, 2);
  g_assert_cmpint (before->count, ==, 2 * 3 * 3 * 3);
  g_assert_cmpint (after->n_axes, ==, 4);
  for (gint64 i = 0; i < before->count; i++)
    {
      float x = ct_test_version_data (before)[i], y = ct_test_version_data (after)[i];

      g_assert_cmpfloat (y, ==, x > 0.0f ? x : 0.0f);
      negatives += x < 0.0f;
    }
  g_assert_cmpuint (negatives, >, 0);
  g_assert_cmpfloat (after->data_stats->stats.min, ==, 0.0);
  g_assert_cmpfloat (before->data_stats->stats.min, <, 0.0);
  g_assert_cmpint (after->data_stats->stats.n_zeros, ==, (gint64) negatives);

  /* Backward: each version gets the gradient with respect to itself. */
  ct_runner_run_pass (run.runner);
  ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);
  conv1 = ct_test_blob (snapshot, "conv1");
  g_assert_cmpuint (conv1->versions->len, ==, 2);
  before = conv1->versions->pdata[0];
  after = conv1->versions->pdata[1];
  for (gint64 i = 0; i < before->count; i++)
    {
      float x = ct_test_version_data (before)[i];
      float dy = ct_test_version_diff (after)[i], dx = ct_test_version_diff (before)[i];

      g_assert_cmpfloat (dx, ==, x > 0.0f ? dy : 0.0f);
    }
  ct_test_run_clear (&run);
}

static void
test_matches_whole_run (void)
{
  g_autoptr (CtNet) ref = reference_net (TRUE);
  g_autoptr (GPtrArray) names = g_ptr_array_new_null_terminated (0, NULL, TRUE);
  CtTestRun run;
  CtRunSnapshot *snapshot;

  for (guint i = 0; i < ct_net_n_blobs (ref); i++)
    g_ptr_array_add (names, (gpointer) ct_net_get_blob_name (ref, i));

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch (run.runner, (const char *const *) names->pdata);
  for (int i = 0; i < 7; i++)
    ct_runner_step_forward (run.runner);
  for (int i = 0; i < 6; i++)
    ct_runner_step_backward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);

  g_assert_cmpuint (ct_run_snapshot_n_blobs (snapshot), ==, ct_net_n_blobs (ref));
  for (guint i = 0; i < ct_net_n_blobs (ref); i++)
    {
      CtBlob *want = ct_net_get_blob (ref, i);
      const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, i);
      const CtRunVersion *first = blob->versions->pdata[0];
      const CtRunVersion *last = blob->versions->pdata[blob->versions->len - 1];
      g_autoptr (CtBlobStats) stats = ct_blob_stats_compute (ct_blob_cpu_data (want, NULL),
                                                             ct_blob_count (want));

      g_assert_cmpstr (blob->name, ==, ct_net_get_blob_name (ref, i));
      g_assert_cmpint (blob->count, ==, ct_blob_count (want));
      g_assert_true (blob->has_data);
      /* The data is the last version's; the diff, the gradient with
       * respect to the first (in place, relu1's backward wrote it last). */
      assert_floats_equal (ct_test_version_data (last), ct_blob_cpu_data (want, NULL),
                           blob->count);
      if (blob->has_diff)
        {
          assert_floats_equal (ct_test_version_diff (first), ct_blob_cpu_diff (want, NULL),
                               blob->count);
          g_assert_true (isfinite (blob->health));
        }
      /* The statistics are those of the engine's blob. */
      g_assert_cmpmem (&blob->data_stats->stats, sizeof (CtStats), &stats->stats,
                       sizeof (CtStats));
    }
  g_assert_true (ct_test_blob (snapshot, "conv1")->has_diff);
  g_assert_true (ct_test_blob (snapshot, "ip_ip_0_split_1")->has_diff);
  g_assert_false (ct_test_blob (snapshot, "label")->has_diff);
  ct_test_run_clear (&run);
}

static void
test_only_watched_copied (void)
{
  static const char *const watch[] = { "ip", "no-such-blob", NULL };
  CtTestRun run;
  CtRunSnapshot *snapshot;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch (run.runner, watch);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  for (guint i = 0; i < ct_run_snapshot_n_blobs (snapshot); i++)
    {
      const CtRunBlob *blob = ct_run_snapshot_get_blob (snapshot, i);
      gboolean is_ip = strcmp (blob->name, "ip") == 0;

      g_assert_cmpint (blob->watched, ==, is_ip);
      g_assert_true ((blob->versions != NULL) == is_ip);
      /* Statistics for every blob all the same. */
      g_assert_true (blob->has_data);
      g_assert_nonnull (blob->data_stats);
      g_assert_cmpint (blob->data_stats->stats.count, ==, blob->count);
    }
  g_assert_cmpuint (ct_test_blob (snapshot, "ip")->versions->len, ==, 1);

  /* Watching another blob hands it over at once, and drops the first. */
  ct_runner_watch (run.runner, (const char *const[]) { "sum", NULL });
  snapshot = ct_test_run_next (&run);
  g_assert_null (ct_test_blob (snapshot, "ip")->versions);
  g_assert_cmpuint (ct_test_blob (snapshot, "sum")->versions->len, ==, 1);
  ct_test_run_clear (&run);
}

/* With no budget, the version relu1 overwrites is not kept. */
static void
test_history_budget (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const CtRunBlob *conv1;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch (run.runner, (const char *const[]) { "conv1", NULL });
  ct_runner_set_history_budget (run.runner, 100);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  conv1 = ct_test_blob (snapshot, "conv1");
  g_assert_true (conv1->history_cut);
  g_assert_cmpuint (conv1->versions->len, ==, 1);
  g_assert_cmpstr (((CtRunVersion *) conv1->versions->pdata[0])->label, ==, "after relu1");

  ct_runner_set_history_budget (run.runner, CT_RUN_HISTORY_BUDGET);
  ct_runner_run_pass (run.runner);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  conv1 = ct_test_blob (snapshot, "conv1");
  g_assert_false (conv1->history_cut);
  g_assert_cmpuint (conv1->versions->len, ==, 2);
  ct_test_run_clear (&run);
}

/* Every layer's parameters have statistics; the watched layer's come in
 * full, equal to the weights one whole pass of the same net has, and after
 * backward so do their gradients. */
static void
test_params (void)
{
  g_autoptr (CtNet) ref = reference_net (TRUE);
  CtLayer *conv1 = ct_net_layer_by_name (ref, "conv1");
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const CtRunLayer *layer;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch_params (run.runner, (const char *const[]) { "conv1", NULL });
  ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_next (&run);
  layer = ct_run_snapshot_get_layer (snapshot, 1);
  g_assert_cmpuint (layer->params->len, ==, 2);
  for (guint k = 0; k < 2; k++)
    {
      const CtRunParam *param = layer->params->pdata[k];
      CtBlob *want = conv1->blobs->pdata[k];
      gsize bytes = (gsize) ct_blob_count (want) * sizeof (float);

      g_assert_cmpstr (param->name, ==, k == 0 ? "0" : "1");
      g_assert_cmpint (param->count, ==, ct_blob_count (want));
      g_assert_cmpmem (g_bytes_get_data (param->data, NULL), g_bytes_get_size (param->data),
                       ct_blob_cpu_data (want, NULL), bytes);
      g_assert_null (param->diff);
      g_assert_null (param->diff_stats);
    }
  g_assert_cmpint (((CtRunParam *) layer->params->pdata[0])->dims[0], ==, 3);
  g_assert_cmpfloat (((CtRunParam *) layer->params->pdata[1])->data_stats->stats.mean, ==,
                     (double) 0.1f);
  /* Not watched: statistics only. */
  layer = ct_run_snapshot_get_layer (snapshot, 3);
  g_assert_cmpstr (layer->name, ==, "ip");
  g_assert_nonnull (((CtRunParam *) layer->params->pdata[0])->data_stats);
  g_assert_null (((CtRunParam *) layer->params->pdata[0])->data);
  g_assert_cmpuint (ct_run_snapshot_get_layer (snapshot, 2)->params->len, ==, 0);

  ct_runner_run_pass (run.runner);
  ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);
  layer = ct_run_snapshot_get_layer (snapshot, 1);
  for (guint k = 0; k < 2; k++)
    {
      const CtRunParam *param = layer->params->pdata[k];
      CtBlob *want = conv1->blobs->pdata[k];
      gsize bytes = (gsize) ct_blob_count (want) * sizeof (float);

      g_assert_nonnull (param->diff_stats);
      g_assert_cmpmem (g_bytes_get_data (param->diff, NULL), g_bytes_get_size (param->diff),
                       ct_blob_cpu_diff (want, NULL), bytes);
    }
  /* The gradients of layers not watched are not summarised; watching the
   * layer brings them, equal to the engine's. */
  layer = ct_run_snapshot_get_layer (snapshot, 3);
  g_assert_cmpint (layer->state, ==, CT_RUN_LAYER_BACKWARD_DONE);
  g_assert_null (((CtRunParam *) layer->params->pdata[0])->diff_stats);
  ct_runner_watch_params (run.runner, (const char *const[]) { "conv1", "ip", NULL });
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);
  layer = ct_run_snapshot_get_layer (snapshot, 3);
  {
    CtBlob *want = ct_net_layer_by_name (ref, "ip")->blobs->pdata[0];
    const CtRunParam *param = layer->params->pdata[0];
    g_autoptr (CtBlobStats) stats = ct_blob_stats_compute (ct_blob_cpu_diff (want, NULL),
                                                           ct_blob_count (want));

    g_assert_nonnull (param->diff_stats);
    g_assert_cmpfloat (param->diff_stats->stats.l2_norm, ==, stats->stats.l2_norm);
    g_assert_cmpfloat (param->diff_stats->stats.l2_norm, >, 0);
  }
  ct_test_run_clear (&run);
}

/* The small net with a second InnerProduct sharing ip's parameters by
 * name. */
static const char shared_net[] =
  "name: 'shared'\n"
  "layer { name: 'data' type: 'Input' top: 'data' top: 'label'\n"
  "  input_param { shape { dim: 2 dim: 1 dim: 5 dim: 5 } shape { dim: 2 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 3 kernel_size: 3\n"
  "    weight_filler { type: 'gaussian' std: 1 } bias_filler { type: 'constant' value: 0.1 } } }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'conv1' top: 'ip'\n"
  "  param { name: 'w' } param { name: 'b' }\n"
  "  inner_product_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.5 } } }\n"
  "layer { name: 'ip2' type: 'InnerProduct' bottom: 'conv1' top: 'ip2'\n"
  "  param { name: 'w' } param { name: 'b' }\n"
  "  inner_product_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.5 } } }\n"
  "layer { name: 'sum' type: 'Eltwise' bottom: 'ip' bottom: 'ip2' top: 'sum' }\n"
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'sum' bottom: 'label' top: 'loss' }\n";

/* Parameter gradients start every backward pass from zero: after two
 * passes they are those of one whole pass of a fresh net, a gradient that
 * two layers share included (both layers add to it: it is zeroed once,
 * before the first of them runs backward). */
static void
test_param_diffs_per_pass (void)
{
  static const char *const layers[] = { "conv1", "ip", "ip2", NULL };
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (shared_net);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) ref = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 1701, &error);
  float data[CT_TEST_DATA_COUNT], label[2];
  CtTestRun run;
  CtRunSnapshot *snapshot;

  g_assert_no_error (error);
  ct_test_small_inputs (data, label);
  memcpy (ct_blob_mutable_cpu_data (ct_net_blob_by_name (ref, "data"), NULL), data, sizeof data);
  memcpy (ct_blob_mutable_cpu_data (ct_net_blob_by_name (ref, "label"), NULL), label,
          sizeof label);
  g_assert_true (ct_net_forward (ref, NULL, &error));
  g_assert_true (ct_net_backward (ref, &error));
  g_assert_no_error (error);

  ct_test_run_init (&run, shared_net, &small_config);
  ct_test_set_small_inputs (run.runner);
  ct_runner_watch_params (run.runner, layers);
  for (int pass = 0; pass < 2; pass++)
    {
      /* a Split is inserted after conv1: seven layers */
      ct_runner_run_pass (run.runner);
      ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
      ct_runner_run_pass (run.runner);
      snapshot = ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);
      g_assert_null (ct_run_snapshot_get_error (snapshot));
    }
  for (guint l = 0; l < ct_run_snapshot_n_layers (snapshot); l++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, l);
      CtLayer *want = ct_net_layer_by_name (ref, layer->name);

      if (!g_strv_contains (layers, layer->name))
        continue;
      g_assert_cmpuint (layer->params->len, ==, 2);
      for (guint k = 0; k < layer->params->len; k++)
        {
          const CtRunParam *got = layer->params->pdata[k];
          CtBlob *blob = want->blobs->pdata[k];

          g_assert_nonnull (got->diff);
          assert_floats_equal (g_bytes_get_data (got->diff, NULL), ct_blob_cpu_diff (blob, NULL),
                               ct_blob_count (blob));
        }
    }
  ct_test_run_clear (&run);
}

/* A watched blob's copy is made once: beginning backward, and its diff
 * arriving, hand over the data already handed over, not a new copy; a
 * new forward pass copies it again. */
static void
test_copies_shared (void)
{
  static const char *const watch[] = { "ip", NULL };
  CtTestRun run;
  CtRunSnapshot *snapshot;
  CtRunVersion *forward, *now;

  ct_test_run_init_small (&run, &small_config);
  ct_runner_watch (run.runner, watch);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  g_assert_cmpuint (ct_test_blob (snapshot, "ip")->versions->len, ==, 1);
  forward = ct_run_version_ref (ct_test_blob (snapshot, "ip")->versions->pdata[0]);
  g_assert_null (forward->diff);

  /* loss, sum: ip's version is as it was */
  for (int i = 0; i < 2; i++)
    {
      ct_runner_step_backward (run.runner);
      snapshot = ct_test_run_next (&run);
      g_assert_false (ct_test_blob (snapshot, "ip")->has_diff);
      g_assert_true (ct_test_blob (snapshot, "ip")->versions->pdata[0] == forward);
    }
  /* the Split gives ip its diff: a new version, the same data */
  ct_runner_step_backward (run.runner);
  snapshot = ct_test_run_next (&run);
  g_assert_true (ct_test_blob (snapshot, "ip")->has_diff);
  now = ct_run_version_ref (ct_test_blob (snapshot, "ip")->versions->pdata[0]);
  g_assert_nonnull (now->diff);
  g_assert_true (now->data == forward->data);
  ct_run_version_unref (forward);

  /* a new forward pass writes ip again: a new copy */
  ct_runner_run_pass (run.runner);
  ct_test_run_until (&run, CT_RUN_PASS_BACKWARD, -1);
  ct_runner_run_pass (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 7);
  g_assert_false (((CtRunVersion *) ct_test_blob (snapshot, "ip")->versions->pdata[0])->data
                  == now->data);
  ct_run_version_unref (now);
  ct_test_run_clear (&run);
}

/* The Split's tops share ip's memory: one summary serves both. */
static void
test_stats_shared (void)
{
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const CtRunBlob *top0, *top1;

  ct_test_run_init_small (&run, &small_config);
  for (int i = 0; i < 5; i++)
    ct_runner_step_forward (run.runner);
  snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 5);
  top0 = ct_run_snapshot_find_blob (snapshot, "ip_ip_0_split_0");
  top1 = ct_run_snapshot_find_blob (snapshot, "ip_ip_0_split_1");
  g_assert_true (top0->has_data && top1->has_data);
  g_assert_true (top0->data_stats == top1->data_stats);
  g_assert_cmpmem (&top0->data_stats->stats, sizeof (CtStats),
                   &ct_run_snapshot_find_blob (snapshot, "ip")->data_stats->stats,
                   sizeof (CtStats));
  ct_test_run_clear (&run);
}

/* The buffer of a big copy let go of is the next copy of its size from
 * the same spares; once they are closed, buffers let go of are freed. */
static void
test_spare_buffers (void)
{
  static const gint64 dims[] = { 1, 1 << 18 };  /* 1 MiB of floats */
  g_autofree float *values = g_new (float, dims[1]);
  CtRunSpares *spares = ct_run_spares_new ();
  CtRunVersion *first, *second, *other, *diff;
  gconstpointer memory;

  for (gint64 i = 0; i < dims[1]; i++)
    values[i] = (float) i;
  first = ct_run_version_new (spares, "first", 0, dims, 2, values, NULL, NULL, NULL);
  memory = g_bytes_get_data (first->data, NULL);
  ct_run_version_unref (first);
  values[7] = -1.0f;
  /* half the size: not that buffer */
  other = ct_run_version_new (spares, "other", 0, (const gint64[]) { 1, 1 << 17 }, 2, values,
                              NULL, NULL, NULL);
  g_assert_false (g_bytes_get_data (other->data, NULL) == memory);
  second = ct_run_version_new (spares, "second", 0, dims, 2, values, NULL, NULL, NULL);
  g_assert_true (g_bytes_get_data (second->data, NULL) == memory);
  assert_floats_equal (g_bytes_get_data (second->data, NULL), values, dims[1]);
  g_assert_cmpfloat (second->data_stats->stats.min, ==, -1.0f);
  /* a diff too, and copies that outlive their spares */
  diff = ct_run_version_with_diff (spares, second, values, NULL);
  g_assert_true (diff->data == second->data);
  g_assert_false (g_bytes_get_data (diff->diff, NULL) == memory);
  ct_run_version_unref (second);
  ct_run_spares_close (spares);
  ct_run_version_unref (diff);
  ct_run_version_unref (other);
}

/* A copy made with its statistics (in one pass over the values) holds the
 * values and the statistics computed apart: small (the kernel's path),
 * in a spare buffer, in a bigger one with a last block cut short, and in
 * the same buffer again once the first copy is let go of. */
static void
test_copy_with_stats (void)
{
  static const gint64 counts[] = { 1000, 1 << 18, (3 << 19) + 3 };
  CtRunSpares *spares = ct_run_spares_new ();

  for (gsize c = 0; c < G_N_ELEMENTS (counts); c++)
    {
      gint64 n = counts[c];
      g_autofree float *values = g_new (float, n);
      gconstpointer memory = NULL;

      for (gint64 i = 0; i < n; i++)
        values[i] = i % 3 == 0 ? 0.0f : (float) (i % 1001) - 500.25f;
      for (int round = 0; round < 2; round++)
        {
          g_autoptr (CtBlobStats) want = ct_blob_stats_compute (values, n);
          g_autoptr (CtBlobStats) stats = NULL;
          GBytes *copy = ct_run_copy_floats (spares, values, n, &stats);

          g_assert_cmpuint (g_bytes_get_size (copy), ==, (gsize) n * sizeof (float));
          g_assert_cmpmem (g_bytes_get_data (copy, NULL), g_bytes_get_size (copy), values,
                           (gsize) n * sizeof (float));
          g_assert_cmpmem (&stats->stats, sizeof (CtStats), &want->stats, sizeof (CtStats));
          g_assert_cmpmem (stats->histogram, sizeof stats->histogram, want->histogram,
                           sizeof want->histogram);
          if (round == 1 && n >= (1 << 18))
            g_assert_true (g_bytes_get_data (copy, NULL) == memory);
          memory = g_bytes_get_data (copy, NULL);
          g_bytes_unref (copy);
          values[n / 2] = -1e6f;
        }
    }
  ct_run_spares_close (spares);
}

/* Buffers made ahead are kept for the copies of their size, up to N, and
 * never past the bound on the bytes kept (256 MiB); small sizes are not
 * made ahead. */
static void
test_spares_prefill (void)
{
  static const gint64 dims[] = { 1, 1 << 18 };  /* 1 MiB of floats */
  gsize size = (gsize) dims[1] * sizeof (float), big = (gsize) 96 << 20;
  g_autofree float *values = g_new0 (float, dims[1]);
  CtRunSpares *spares = ct_run_spares_new ();
  CtRunVersion *version;

  ct_run_spares_prefill (spares, size, 3);
  g_assert_cmpuint (ct_run_spares_n_kept (spares, size), ==, 3);
  version = ct_run_version_new (spares, "first", 0, dims, 2, values, NULL, NULL, NULL);
  g_assert_cmpuint (ct_run_spares_n_kept (spares, size), ==, 2);
  ct_run_spares_prefill (spares, size, 3);
  g_assert_cmpuint (ct_run_spares_n_kept (spares, size), ==, 3);
  ct_run_spares_prefill (spares, 4096, 2);
  g_assert_cmpuint (ct_run_spares_n_kept (spares, 4096), ==, 0);
  /* 3 MiB kept: two buffers of 96 MiB fit under 256 MiB, a third not */
  ct_run_spares_prefill (spares, big, 3);
  g_assert_cmpuint (ct_run_spares_n_kept (spares, big), ==, 2);
  g_assert_cmpuint (ct_run_spares_n_kept (spares, size), ==, 3);
  ct_run_version_unref (version);
  ct_run_spares_close (spares);
}

/* Chosen samples of a data layer's tops (ct_runner_set_items): after the
 * layer reads its batch, its first samples are the chosen ones and the
 * rest stay as the layer gave them, in every pass; a sample of another
 * size is an error naming the layer. */
static const char *const items_net =
  "layer { name: 'source' type: 'DummyData' top: 'data' top: 'label'"
  "  dummy_data_param { shape { dim: 3 dim: 1 dim: 2 dim: 2 } shape { dim: 3 }"
  "    data_filler { type: 'constant' value: 0.5 } data_filler { type: 'constant' value: 7 } } }"
  "layer { name: 'scores' type: 'InnerProduct' bottom: 'data' top: 'scores'"
  "  inner_product_param { num_output: 2 weight_filler { type: 'constant' value: 1 } } }";

static void
test_items (void)
{
  static const CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 1701 };
  static const float chosen[4] = { 1, 2, 3, 4 };
  static const float chosen_label[1] = { 9 };
  static const char *const watch[] = { "data", "label", NULL };
  CtTestRun run;
  CtRunSnapshot *snapshot;
  const float *data, *label;

  ct_test_run_init (&run, items_net, &config);
  ct_runner_watch (run.runner, watch);
  ct_runner_set_items (run.runner, "data", 1, 4, chosen);
  ct_runner_set_items (run.runner, "label", 1, 1, chosen_label);
  for (int pass = 0; pass < 2; pass++)
    {
      ct_runner_step_forward (run.runner);
      snapshot = ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 1);
      data = ct_test_version_data (ct_test_blob (snapshot, "data")->versions->pdata[0]);
      label = ct_test_version_data (ct_test_blob (snapshot, "label")->versions->pdata[0]);
      for (int i = 0; i < 4; i++)
        g_assert_cmpfloat (data[i], ==, chosen[i]);
      for (int i = 4; i < 12; i++)
        g_assert_cmpfloat (data[i], ==, 0.5f);
      g_assert_cmpfloat (label[0], ==, 9.0f);
      g_assert_cmpfloat (label[1], ==, 7.0f);
      g_assert_cmpfloat (label[2], ==, 7.0f);
      /* the next pass reads a new batch and takes the chosen ones again */
      ct_runner_step_forward (run.runner);
      ct_test_run_until (&run, CT_RUN_PASS_FORWARD, 2);
    }

  /* samples of 3 values do not fit a blob of 4 per sample */
  ct_runner_set_items (run.runner, "data", 1, 3, chosen);
  ct_runner_step_forward (run.runner);
  do
    snapshot = ct_test_run_next (&run);
  while (ct_run_snapshot_get_error (snapshot) == NULL);
  g_assert_error ((GError *) ct_run_snapshot_get_error (snapshot), CT_ENGINE_ERROR,
                  CT_ENGINE_ERROR_SHAPE);
  g_assert_nonnull (strstr (ct_run_snapshot_get_error (snapshot)->message, "'source'"));
  g_assert_cmpstr (ct_error_get_layer (ct_run_snapshot_get_error (snapshot)), ==, "source");
  g_assert_cmpstr (ct_error_get_blob (ct_run_snapshot_get_error (snapshot)), ==, "data");
  ct_test_run_clear (&run);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/runner/step-order", test_step_order);
  g_test_add_func ("/run/runner/items", test_items);
  g_test_add_func ("/run/runner/backward-finishes-forward", test_backward_finishes_forward);
  g_test_add_func ("/run/runner/in-place-history", test_in_place_history);
  g_test_add_func ("/run/runner/matches-whole-run", test_matches_whole_run);
  g_test_add_func ("/run/runner/only-watched-copied", test_only_watched_copied);
  g_test_add_func ("/run/runner/history-budget", test_history_budget);
  g_test_add_func ("/run/runner/params", test_params);
  g_test_add_func ("/run/runner/param-diffs-per-pass", test_param_diffs_per_pass);
  g_test_add_func ("/run/runner/copies-shared", test_copies_shared);
  g_test_add_func ("/run/runner/spare-buffers", test_spare_buffers);
  g_test_add_func ("/run/runner/stats-shared", test_stats_shared);
  g_test_add_func ("/run/runner/copy-with-stats", test_copy_with_stats);
  g_test_add_func ("/run/runner/spares-prefill", test_spares_prefill);
  return g_test_run ();
}
