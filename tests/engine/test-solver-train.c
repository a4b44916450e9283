/* test-solver-train.c: training as a whole. A small classifier whose loss
 * falls and whose test accuracy rises; what the observers see (every
 * iteration, display flags, smoothed loss, tests with named scores,
 * snapshots) and Caffe's log lines; test nets from test_net_param and the
 * generic net with test_state stages, and their averaged scores; stop and
 * snapshot requests; random_seed repeating a run bit for bit; and bad net
 * files and weights. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-solver-common.h"

/* Two classes, shifted by ±1 (see ct_test_solver_feed_inputs); TEST adds
 * accuracy. */
#define CLASSIFIER_NET \
  "name: 'clf' " \
  "layer { name: 'in' type: 'Input' top: 'data' top: 'label' " \
  "        input_param { shape { dim: 20 dim: 4 } shape { dim: 20 } } } " \
  "layer { name: 'fc1' type: 'InnerProduct' bottom: 'data' top: 'fc1' " \
  "        inner_product_param { num_output: 8 weight_filler { type: 'xavier' } } } " \
  "layer { name: 'relu' type: 'ReLU' bottom: 'fc1' top: 'fc1' } " \
  "layer { name: 'fc2' type: 'InnerProduct' bottom: 'fc1' top: 'fc2' " \
  "        inner_product_param { num_output: 2 weight_filler { type: 'xavier' } } } " \
  "layer { name: 'accuracy' type: 'Accuracy' bottom: 'fc2' bottom: 'label' top: 'accuracy' " \
  "        include { phase: TEST } } " \
  "layer { name: 'only_a' type: 'Silence' bottom: 'label' include { stage: 'a' } } " \
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'fc2' bottom: 'label' top: 'loss' } "

typedef struct {
  GArray *iterations;    /* CtSolverIteration */
  GPtrArray *tests;      /* char*: "iter net name=value ..." */
  GPtrArray *snapshots;  /* char*: model paths */
  GPtrArray *log;        /* char* */
  int stop_at, snapshot_at;
  float first_accuracy, last_accuracy;
} Watch;

static void
watch_clear (Watch *w)
{
  g_array_unref (w->iterations);
  g_ptr_array_unref (w->tests);
  g_ptr_array_unref (w->snapshots);
  g_ptr_array_unref (w->log);
}

static void
on_log (CtSolver *solver, CtSolverLogLevel level, const char *file, int line,
        const char *message, gpointer user_data)
{
  Watch *w = user_data;

  g_ptr_array_add (w->log, g_strdup (message));
}

static void
on_iteration (CtSolver *solver, const CtSolverIteration *info, gpointer user_data)
{
  Watch *w = user_data;

  g_array_append_val (w->iterations, *info);
  if (info->iter == w->stop_at)
    ct_solver_request (solver, CT_SOLVER_ACTION_STOP);
  if (info->iter == w->snapshot_at)
    ct_solver_request (solver, CT_SOLVER_ACTION_SNAPSHOT);
}

static void
on_test_done (CtSolver *solver, const CtSolverTestResult *r, gpointer user_data)
{
  Watch *w = user_data;
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s, "%d #%u", r->iter, r->test_net_id);
  for (guint i = 0; i < r->n_scores; i++)
    {
      g_string_append_printf (s, " %s=%.4f", r->scores[i].name, (double) r->scores[i].value);
      if (strcmp (r->scores[i].name, "accuracy") == 0)
        {
          if (w->tests->len == 0)
            w->first_accuracy = r->scores[i].value;
          w->last_accuracy = r->scores[i].value;
        }
    }
  g_ptr_array_add (w->tests, g_string_free (g_steal_pointer (&s), FALSE));
}

static void
on_snapshot (CtSolver *solver, int iter, const char *model, const char *state,
             gpointer user_data)
{
  Watch *w = user_data;

  g_assert_true (g_file_test (model, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (state, G_FILE_TEST_IS_REGULAR));
  g_ptr_array_add (w->snapshots, g_strdup (model));
}

static void
watch (CtSolver *solver, Watch *w)
{
  CtSolverObserverFuncs funcs = {
    .log = on_log,
    .iteration = on_iteration,
    .test_done = on_test_done,
    .snapshot = on_snapshot,
  };

  w->iterations = g_array_new (FALSE, FALSE, sizeof (CtSolverIteration));
  w->tests = g_ptr_array_new_with_free_func (g_free);
  w->snapshots = g_ptr_array_new_with_free_func (g_free);
  w->log = g_ptr_array_new_with_free_func (g_free);
  w->stop_at = w->snapshot_at = -1;
  ct_test_solver_feed_inputs (solver);
  ct_solver_add_observer (solver, &funcs, w, NULL);
}

static gboolean
log_has (Watch *w, const char *line)
{
  for (guint i = 0; i < w->log->len; i++)
    if (strcmp (w->log->pdata[i], line) == 0)
      return TRUE;
  return FALSE;
}

static guint
log_count_prefix (Watch *w, const char *prefix)
{
  guint n = 0;

  for (guint i = 0; i < w->log->len; i++)
    n += g_str_has_prefix (w->log->pdata[i], prefix);
  return n;
}

static char *
classifier_solver (const char *dir, const char *extra)
{
  return g_strdup_printf ("net_param { " CLASSIFIER_NET " } "
                          "test_iter: 3 test_interval: 20 base_lr: 0.1 momentum: 0.9 "
                          "lr_policy: 'inv' gamma: 0.001 power: 0.75 weight_decay: 0.0005 "
                          "display: 10 average_loss: 5 max_iter: 60 snapshot: 40 "
                          "snapshot_prefix: '%s/clf' random_seed: 1701 %s", dir, extra);
}

static void
test_training_run (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *text = classifier_solver (dir, "");
  g_autoptr (CtSolver) solver = ct_test_solver_new_ok (text);
  g_autoptr (GError) error = NULL;
  Watch w = { 0 };
  const CtSolverIteration *first, *last;
  double early = 0, late = 0;

  watch (solver, &w);
  g_assert_true (ct_solver_solve (solver, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ct_solver_stopped_early (solver));
  g_assert_cmpint (ct_solver_get_iter (solver), ==, 60);

  /* every iteration once, in order; displays every 10 */
  g_assert_cmpuint (w.iterations->len, ==, 60);
  for (guint i = 0; i < 60; i++)
    {
      const CtSolverIteration *it = &g_array_index (w.iterations, CtSolverIteration, i);

      g_assert_cmpint (it->iter, ==, (int) i);
      g_assert_cmpint (it->display, ==, i % 10 == 0);
      g_assert_cmpfloat_with_epsilon (it->learning_rate, 0.1 * pow (1 + 0.001 * i, -0.75), 1e-7);
      if (i < 5)
        early += it->loss / 5;
      if (i >= 55)
        late += it->loss / 5;
    }
  first = &g_array_index (w.iterations, CtSolverIteration, 0);
  last = &g_array_index (w.iterations, CtSolverIteration, 59);
  /* the smoothed loss is the mean of the last 5 */
  g_assert_cmpfloat_with_epsilon (last->smoothed_loss, late, 1e-5);
  g_assert_cmpfloat (first->smoothed_loss, ==, first->loss);
  g_test_message ("loss: first 5 iterations %.4f, last 5 %.4f", early, late);
  g_assert_cmpfloat (late, <, early * 0.5);

  /* tests at 0, 20, 40 and after training at 60 */
  for (guint i = 0; i < w.tests->len; i++)
    g_test_message ("test %s", (const char *) w.tests->pdata[i]);
  g_assert_cmpuint (w.tests->len, ==, 4);
  g_assert_true (g_str_has_prefix (w.tests->pdata[3], "60 #0 accuracy="));
  g_test_message ("accuracy %.4f -> %.4f", w.first_accuracy, w.last_accuracy);
  g_assert_cmpfloat (w.last_accuracy, >=, 0.9f);

  /* snapshots at 40 and after training */
  g_assert_cmpuint (w.snapshots->len, ==, 2);
  g_assert_true (g_str_has_suffix (w.snapshots->pdata[0], "/clf_iter_40.caffemodel"));
  g_assert_true (g_str_has_suffix (w.snapshots->pdata[1], "/clf_iter_60.caffemodel"));

  /* Caffe's lines, as parse_log reads them */
  g_assert_true (log_has (&w, "Iteration 0, Testing net (#0)"));
  g_assert_true (log_has (&w, "Iteration 60, Testing net (#0)"));
  g_assert_cmpuint (log_count_prefix (&w, "    Test net output #0: accuracy = "), ==, 4);
  g_assert_cmpuint (log_count_prefix (&w, "    Test net output #1: loss = "), ==, 4);
  g_assert_cmpuint (log_count_prefix (&w, "    Train net output #0: loss = "), ==, 6);
  g_assert_cmpuint (log_count_prefix (&w, "Iteration 50 ("), ==, 1);
  g_assert_true (log_has (&w, "Iteration 10, lr = 0.0992565"));
  g_assert_cmpuint (log_count_prefix (&w, "Iteration 60, loss = "), ==, 1);
  g_assert_true (log_has (&w, "Learning Rate Policy: inv"));
  g_assert_true (log_has (&w, "Creating test net (#0) specified by net_param"));
  g_assert_true (log_has (&w, "Optimization Done."));
  {
    g_autofree char *line = g_strdup_printf ("Snapshotting to binary proto file %s/clf_iter_40"
                                             ".caffemodel", dir);
    g_assert_true (log_has (&w, line));
  }
  for (guint i = 0; i < w.log->len; i++)
    if (strstr (w.log->pdata[i], "loss = ") != NULL && strstr (w.log->pdata[i], "(* 1 = ") == NULL
        && strstr (w.log->pdata[i], "output") != NULL)
      g_error ("a loss output without its weight: %s", (const char *) w.log->pdata[i]);
  watch_clear (&w);
  ct_test_remove_tree (dir);
}

static void
test_requests (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *text = classifier_solver (dir, "test_initialization: false");
  g_autoptr (CtSolver) solver = ct_test_solver_new_ok (text);
  g_autoptr (GError) error = NULL;
  Watch w = { 0 };

  watch (solver, &w);
  w.snapshot_at = 6;   /* after iteration 6 is done: iter 7 */
  w.stop_at = 24;      /* stops with iter 25 */
  g_assert_true (ct_solver_solve (solver, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ct_solver_stopped_early (solver));
  g_assert_cmpint (ct_solver_get_iter (solver), ==, 25);
  g_assert_cmpuint (w.iterations->len, ==, 25);
  /* no test at 0 (test_initialization: false), one at 20 */
  g_assert_cmpuint (w.tests->len, ==, 1);
  g_assert_true (g_str_has_prefix (w.tests->pdata[0], "20 #0"));
  /* the requested snapshot and the one after stopping */
  g_assert_cmpuint (w.snapshots->len, ==, 2);
  g_assert_true (g_str_has_suffix (w.snapshots->pdata[0], "/clf_iter_7.caffemodel"));
  g_assert_true (g_str_has_suffix (w.snapshots->pdata[1], "/clf_iter_25.caffemodel"));
  g_assert_true (log_has (&w, "Optimization stopped early."));
  g_assert_false (log_has (&w, "Optimization Done."));

  /* the solver goes on after a stop */
  g_assert_true (ct_solver_step (solver, 3, &error));
  g_assert_cmpint (ct_solver_get_iter (solver), ==, 28);
  watch_clear (&w);
  ct_test_remove_tree (dir);
}

/* Test nets: one from test_net_param whose single output is its input,
 * fed with pass p -> [p, 10p], so that 4 batches average to [1.5, 15]; two
 * copies of the generic net with stages a and b. */
static gboolean
feed_ramp (CtSolver *solver, CtNet *net, int test_net_id, int iter, int pass,
           gpointer user_data, GError **error)
{
  int blob = ct_net_blob_index (net, "v");
  float *v;

  if (test_net_id != 0 || blob < 0)
    return TRUE;
  v = ct_blob_mutable_cpu_data (ct_net_get_blob (net, (guint) blob), error);
  v[0] = (float) pass;
  v[1] = 10.0f * (float) pass;
  return TRUE;
}

static void
test_test_nets (void)
{
  g_autoptr (CtSolver) solver = NULL;
  g_autoptr (GError) error = NULL;
  CtSolverObserverFuncs ramp = { .feed = feed_ramp };
  Watch w = { 0 };

  solver = ct_test_solver_new_ok (
    "net_param { " CLASSIFIER_NET " } "
    "test_net_param { name: 'ramp' layer { name: 'in' type: 'Input' top: 'v' "
    "                 input_param { shape { dim: 2 } } } } "
    "test_iter: 4 test_iter: 2 test_iter: 2 "
    "test_state { } test_state { stage: 'a' } test_state { stage: 'b' } "
    "train_state { stage: 'b' } "
    "test_interval: 100 base_lr: 0.01 lr_policy: 'fixed' max_iter: 1 display: 0 "
    "snapshot_after_train: false random_seed: 3");
  g_assert_cmpuint (ct_solver_n_test_nets (solver), ==, 3);
  /* stages: only net #1 has the stage-a layer; the train net is TRAIN */
  g_assert_cmpint (ct_net_layer_index (ct_solver_get_test_net (solver, 1), "only_a"), >=, 0);
  g_assert_cmpint (ct_net_layer_index (ct_solver_get_test_net (solver, 2), "only_a"), <, 0);
  g_assert_cmpint (ct_net_layer_index (ct_solver_get_test_net (solver, 2), "accuracy"), >=, 0);
  g_assert_cmpint (ct_net_layer_index (ct_solver_get_net (solver), "accuracy"), <, 0);
  g_assert_cmpint (ct_net_layer_index (ct_solver_get_net (solver), "only_a"), <, 0);
  /* the test nets use the train net's weights, not copies */
  g_assert_true (ct_blob_cpu_data (ct_net_get_learnable (ct_solver_get_test_net (solver, 1),
                                                         0)->blob, NULL) ==
                 ct_blob_cpu_data (ct_net_get_learnable (ct_solver_get_net (solver), 0)->blob,
                                   NULL));

  watch (solver, &w);
  ct_solver_add_observer (solver, &ramp, NULL, NULL);
  g_assert_true (ct_solver_test_all (solver, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (w.tests->len, ==, 3);
  g_test_message ("%s", (const char *) w.tests->pdata[0]);
  g_assert_cmpstr (w.tests->pdata[0], ==, "0 #0 v=1.5000 v=15.0000");
  g_assert_true (g_str_has_prefix (w.tests->pdata[1], "0 #1 accuracy="));
  g_assert_true (g_str_has_prefix (w.tests->pdata[2], "0 #2 accuracy="));
  g_assert_true (log_has (&w, "    Test net output #0: v = 1.5"));
  g_assert_true (log_has (&w, "    Test net output #1: v = 15"));
  /* the construction log is replayed to a new observer */
  g_assert_true (log_has (&w, "Creating test net (#0) specified by test_net_param"));
  g_assert_true (log_has (&w, "Creating test net (#2) specified by net_param"));
  watch_clear (&w);
}

#define RANDOM_NET(seed) \
  "net_param { name: 'rnd' " \
  "  layer { name: 'd' type: 'DummyData' top: 'x' top: 'y' " \
  "    dummy_data_param { shape { dim: 8 dim: 5 } shape { dim: 8 dim: 2 } " \
  "      data_filler { type: 'gaussian' std: 1 } data_filler { type: 'uniform' } } } " \
  "  layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'p' " \
  "    inner_product_param { num_output: 2 weight_filler { type: 'gaussian' std: 0.5 } " \
  "                          bias_filler { type: 'uniform' } } } " \
  "  layer { name: 'drop' type: 'Dropout' bottom: 'p' top: 'p' } " \
  "  layer { name: 'loss' type: 'EuclideanLoss' bottom: 'p' bottom: 'y' top: 'loss' } } " \
  "base_lr: 0.1 lr_policy: 'fixed' momentum: 0.9 max_iter: 8 display: 0 " \
  "snapshot_after_train: false random_seed: " #seed

static void
test_random_seed (void)
{
  g_autoptr (CtSolver) a = ct_test_solver_new_ok (RANDOM_NET (42));
  g_autoptr (CtSolver) b = ct_test_solver_new_ok (RANDOM_NET (42));
  g_autoptr (CtSolver) c = ct_test_solver_new_ok (RANDOM_NET (43));
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_solver_solve (a, NULL, &error));
  g_assert_true (ct_solver_solve (b, NULL, &error));
  g_assert_true (ct_solver_solve (c, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ct_test_same_weights (ct_solver_get_net (a), ct_solver_get_net (b)));
  g_assert_false (ct_test_same_weights (ct_solver_get_net (a), ct_solver_get_net (c)));
}

/* Net files relative to the solver file, bad nets and bad weights. */
static void
test_files (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *solver_path = g_build_filename (dir, "s.prototxt", NULL);
  g_autofree char *net_path = g_build_filename (dir, "n.prototxt", NULL);
  g_autofree char *bad_weights = g_build_filename (dir, "bad.caffemodel", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSolver) solver = NULL;
  Caffe__SolverParameter *param;

  g_assert_true (g_file_set_contents (net_path, CLASSIFIER_NET, -1, NULL));
  g_assert_true (g_file_set_contents (solver_path,
                                      "# a solver\nnet: 'n.prototxt'\ntest_iter: 1\n"
                                      "test_interval: 10\nbase_lr: 0.1\nlr_policy: 'fixed'\n",
                                      -1, NULL));
  param = ct_solver_param_load_file (solver_path, &error);
  g_assert_no_error (error);
  solver = ct_solver_new (param, solver_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ct_solver_n_test_nets (solver), ==, 1);

  /* weights that are not a caffemodel */
  g_assert_true (g_file_set_contents (bad_weights, "\x0a\xff\xff\xff\xff\xff", 6, NULL));
  g_assert_false (ct_solver_load_weights (solver, bad_weights, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "bad.caffemodel"));
  g_clear_error (&error);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  /* a missing net file: the error names the solver file, line and field */
  g_assert_true (g_file_set_contents (solver_path,
                                      "# a solver\nbase_lr: 0.1\n  net: 'missing.prototxt'\n"
                                      "lr_policy: 'fixed'\n", -1, NULL));
  param = ct_solver_param_load_file (solver_path, &error);
  g_assert_no_error (error);
  g_assert_null (ct_solver_new (param, solver_path, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "s.prototxt:3:3: field 'net' in SolverParameter"));
  g_assert_nonnull (strstr (error->message, "missing.prototxt"));
  g_clear_error (&error);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  /* a wrong field in the solver file: position from the parser */
  g_assert_true (g_file_set_contents (solver_path, "net: 'n.prototxt'\nbase_lr: 0.1\n"
                                      "max_iters: 10\n", -1, NULL));
  g_assert_null (ct_solver_param_load_file (solver_path, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "s.prototxt:3:1"));
  g_assert_nonnull (strstr (error->message, "max_iters"));
  g_clear_error (&error);

  /* a bad solver type: named with its line */
  g_assert_true (g_file_set_contents (solver_path, "net: 'n.prototxt'\nbase_lr: 0.1\n"
                                      "lr_policy: 'fixed'\ntype: \"Adamm\"\n", -1, NULL));
  param = ct_solver_param_load_file (solver_path, &error);
  g_assert_no_error (error);
  g_assert_null (ct_solver_new (param, solver_path, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "s.prototxt:4:1: field 'type' in SolverParameter: "
                                            "unknown solver type 'Adamm'"));
  g_clear_error (&error);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  /* a net that does not build: the error names the net and the layer */
  g_assert_true (g_file_set_contents (net_path, "name: 'x' layer { name: 'l' type: 'Nope' }",
                                      -1, NULL));
  g_assert_true (g_file_set_contents (solver_path, "net: 'n.prototxt'\nlr_policy: 'fixed'\n",
                                      -1, NULL));
  param = ct_solver_param_load_file (solver_path, &error);
  g_assert_null (ct_solver_new (param, solver_path, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "unknown layer type 'Nope'"));
  protobuf_c_message_free_unpacked (&param->base, NULL);
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/solver-train/training-run", test_training_run);
  g_test_add_func ("/engine/solver-train/requests", test_requests);
  g_test_add_func ("/engine/solver-train/test-nets", test_test_nets);
  g_test_add_func ("/engine/solver-train/random-seed", test_random_seed);
  g_test_add_func ("/engine/solver-train/files", test_files);
  return g_test_run ();
}
