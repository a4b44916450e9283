/* test-cuda-net.c: whole nets and solvers on the GPU (suite `cuda`).
 *
 * With a GPU: the reference dumps of real Caffe that test-conformance
 * checks on the CPU (every blob's data and diff, every parameter, the
 * loss) reproduced with the net on the GPU to the same 1e-4; the
 * Fashion-MNIST images classified as Caffe classified them; a net switched
 * CPU -> GPU -> CPU between passes giving the same outputs; seeded short
 * trainings with every update rule (clipping, L1 and L2 decay, iter_size,
 * test nets) giving the CPU's losses, test scores and weights to 1e-4,
 * also when the device changes mid-run; a snapshot written from the GPU
 * resumed on the CPU; a Data layer's batches going straight to the GPU;
 * out-of-GPU-memory errors naming the blob and the
 * bytes; and cortado-cli's --gpu verbs.
 *
 * Without a GPU (or without CUDA) only the last group runs, and it runs
 * here: asking for the GPU is a clear error (CT_ENGINE_ERROR_NO_DEVICE,
 * exit status 1 with "no GPU available" from cortado-cli), the net stays
 * usable on the CPU, and a solver whose solver_mode is GPU trains on the
 * CPU with a warning. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "data-test-util.h"
#include "device.h"
#include "engine-error.h"
#include "fake-device.h"
#include "net-dump.h"
#include "net.h"
#include "proto-file.h"
#include "reference-dump.h"
#include "test-solver-common.h"
#include "text-format.h"

#define TOLERANCE 1e-4

static gboolean
have_gpu (void)
{
  return ct_cuda_available () == CT_STATUS_OK;
}

/* Skips the calling test unless a GPU can be used. */
#define REQUIRE_GPU()                                        \
  do {                                                       \
    if (!have_gpu ())                                        \
      {                                                      \
        g_test_skip ("no usable GPU");                       \
        return;                                              \
      }                                                      \
  } while (0)

static char *
reference_path (const char *name)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", name, NULL);
}

/* Built as test-conformance builds it: phase TEST, seed 1701, the
 * reference weights and the BatchNorm rule. */
static CtNet *
build_reference_net (const char *net_file, const char *weights_file)
{
  g_autofree char *net_path = reference_path (net_file);
  g_autofree char *weights_path = reference_path (weights_file);
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (net_path, CT_TEXT_STRICT, NULL, &error);
  CtNet *net;

  g_assert_no_error (error);
  net = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1701, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights_path, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_apply_reference_batch_norm (net, &error));
  g_assert_no_error (error);
  return net;
}

static void
use_gpu (CtNet *net, gboolean gpu)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_net_set_use_gpu (net, gpu, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_net_get_use_gpu (net), ==, gpu);
}

/* One forward and one backward from cleared parameter diffs. */
static float
run_pass (CtNet *net)
{
  g_autoptr (GError) error = NULL;
  float loss = 0.0f;

  g_assert_true (ct_net_clear_param_diffs (net, &error));
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  return loss;
}

/* ---- the reference dumps on the GPU ---- */

/* Every record of DUMP against NET's blob or parameter, read back through
 * the CPU accessors (CtMem copies from the GPU); returns how many failed. */
static guint
compare_with_dump (CtNet *net, const CtTestDump *dump)
{
  guint n_bad = 0;

  for (guint i = 0; i < dump->records->len; i++)
    {
      const CtTestDumpRecord *r = dump->records->pdata[i];
      g_autofree char *label = r->kind == 0 ? g_strdup_printf ("blob %s", r->name)
                                            : g_strdup_printf ("param %s[%d]", r->name, r->index);
      CtBlob *blob = ct_test_dump_net_blob (net, r);
      double data_err, diff_err;

      if (blob == NULL || !ct_test_dump_record_fits (r, blob))
        {
          g_test_message ("%-36s missing or of another shape", label);
          n_bad++;
          continue;
        }
      data_err = ct_test_relative_error (ct_blob_cpu_data (blob, NULL), r->data, r->count);
      diff_err = ct_test_relative_error (ct_blob_cpu_diff (blob, NULL), r->diff, r->count);
      g_test_message ("%-36s data %.3e  diff %.3e%s", label, data_err, diff_err,
                      !(data_err <= TOLERANCE && diff_err <= TOLERANCE) ? "  <-- FAIL" : "");
      if (!(data_err <= TOLERANCE && diff_err <= TOLERANCE))
        n_bad++;
    }
  return n_bad;
}

static void
run_dump_on_gpu (const char *net_file, const char *weights_file, const char *dump_file)
{
  g_autoptr (CtTestDump) dump = NULL;
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  double loss_err;
  float loss;

  REQUIRE_GPU ();
  dump = ct_test_dump_load (dump_file);
  g_assert_nonnull (dump);
  net = build_reference_net (net_file, weights_file);
  g_assert_true (ct_net_fill_reference_inputs (net, &error));
  g_assert_no_error (error);
  use_gpu (net, TRUE);
  loss = run_pass (net);
  loss_err = fabs ((double) loss - (double) dump->loss) / fabs ((double) dump->loss);
  g_test_message ("loss on the GPU %.9g, Caffe %.9g, relative error %.3e", loss, dump->loss,
                  loss_err);
  g_assert_cmpuint (compare_with_dump (net, dump), ==, 0);
  g_assert_cmpfloat (loss_err, <=, TOLERANCE);
}

static void
test_dump_layer_zoo (void)
{
  run_dump_on_gpu ("layer_zoo.prototxt", "layer_zoo_seed1701_init.caffemodel",
                   "layer_zoo_seed1701.bin");
}

static void
test_dump_lenet (void)
{
  run_dump_on_gpu ("lenet_fashion_deploy_loss.prototxt", "fashion_lenet_iter_10000.caffemodel",
                   "lenet_fashion_sin.bin");
}

static void
load_floats (const char *name, CtBlob *blob)
{
  g_autofree char *path = reference_path (name);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize length = 0;
  float *data;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_cmpuint (length, ==, (gsize) ct_blob_count (blob) * sizeof (float));
  g_assert_cmpint (G_BYTE_ORDER, ==, G_LITTLE_ENDIAN);
  data = ct_blob_mutable_cpu_data (blob, NULL);
  memcpy (data, contents, length);
}

static void
test_fashion_four (void)
{
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  const int expected[4] = { 9, 2, 1, 1 };
  const float *s;
  float loss = 0.0f;

  REQUIRE_GPU ();
  net = build_reference_net ("lenet_fashion_deploy_loss.prototxt",
                             "fashion_lenet_iter_10000.caffemodel");
  load_floats ("fashion_test4_data.f32", ct_net_blob_by_name (net, "data"));
  load_floats ("fashion_test4_label.f32", ct_net_blob_by_name (net, "label"));
  use_gpu (net, TRUE);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  s = ct_blob_cpu_data (ct_net_blob_by_name (net, "ip2"), NULL);
  for (int n = 0; n < 4; n++)
    {
      int best = 0;

      for (int c = 1; c < 10; c++)
        if (s[n * 10 + c] > s[n * 10 + best])
          best = c;
      g_assert_cmpint (best, ==, expected[n]);
    }
  g_assert_cmpfloat (fabs ((double) loss - 0.000386473606) / 0.000386473606, <=, 1e-3);
}

/* ---- switching a net between passes ---- */

/* Every blob's data and diff and every parameter's diff, and with
 * PARAM_DATA their data, in one array. */
static GArray *
snapshot_net (CtNet *net, gboolean param_data)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (float));

  for (guint i = 0; i < ct_net_n_blobs (net); i++)
    {
      CtBlob *blob = ct_net_get_blob (net, i);

      g_array_append_vals (all, ct_blob_cpu_data (blob, NULL), (guint) ct_blob_count (blob));
      g_array_append_vals (all, ct_blob_cpu_diff (blob, NULL), (guint) ct_blob_count (blob));
    }
  for (guint i = 0; i < ct_net_n_params (net); i++)
    {
      CtBlob *blob = ct_net_get_param_blob (net, i);

      if (param_data)
        g_array_append_vals (all, ct_blob_cpu_data (blob, NULL), (guint) ct_blob_count (blob));
      g_array_append_vals (all, ct_blob_cpu_diff (blob, NULL), (guint) ct_blob_count (blob));
    }
  return all;
}

/* NET_FILE on the CPU, then the GPU, then the CPU again, one pass each.
 * PARAM_DATA: whether the parameters' values are compared too (not for a
 * net whose BatchNorm updates its running statistics in every forward). */
static void
switch_net (const char *net_file, const char *weights_file, gboolean param_data)
{
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) cpu = NULL, gpu = NULL, cpu_again = NULL;
  float loss_cpu, loss_gpu, loss_cpu_again;
  double err;

  REQUIRE_GPU ();
  net = build_reference_net (net_file, weights_file);
  g_assert_true (ct_net_fill_reference_inputs (net, &error));
  g_assert_no_error (error);

  loss_cpu = run_pass (net);
  cpu = snapshot_net (net, param_data);
  use_gpu (net, TRUE);
  loss_gpu = run_pass (net);
  gpu = snapshot_net (net, param_data);
  use_gpu (net, FALSE);
  loss_cpu_again = run_pass (net);
  cpu_again = snapshot_net (net, param_data);

  g_assert_cmpuint (cpu->len, ==, gpu->len);
  err = ct_test_relative_error ((const float *) (gpointer) gpu->data,
                                (const float *) (gpointer) cpu->data, cpu->len);
  g_test_message ("CPU -> GPU: every value within %.3e; losses %.9g, %.9g", err, loss_cpu,
                  loss_gpu);
  g_assert_cmpfloat (err, <=, TOLERANCE);
  g_assert_cmpfloat (fabs (loss_gpu - loss_cpu), <=, TOLERANCE * fabs (loss_cpu));
  /* back on the CPU, the CPU's own results again */
  err = ct_test_relative_error ((const float *) (gpointer) cpu_again->data,
                                (const float *) (gpointer) cpu->data, cpu->len);
  g_test_message ("GPU -> CPU: every value within %.3e; loss %.9g", err, loss_cpu_again);
  g_assert_cmpfloat (err, <=, 1e-6);
  g_assert_cmpfloat (fabs (loss_cpu_again - loss_cpu), <=, 1e-6 * fabs (loss_cpu));
}

static void
test_switch_lenet (void)
{
  switch_net ("lenet_fashion_deploy_loss.prototxt", "fashion_lenet_iter_10000.caffemodel", TRUE);
}

static void
test_switch_layer_zoo (void)
{
  switch_net ("layer_zoo.prototxt", "layer_zoo_seed1701_init.caffemodel", FALSE);
}

/* ---- training ---- */

/* A small conv net on Input blobs that ct_test_solver_feed_inputs fills
 * (two classes); TEST adds accuracy. Nothing random but the fillers, which
 * run on the CPU at build time from the solver's seed. */
#define TRAIN_NET \
  "net_param { name: 'convclf' " \
  " layer { name: 'in' type: 'Input' top: 'data' top: 'label' " \
  "         input_param { shape { dim: 8 dim: 2 dim: 10 dim: 10 } shape { dim: 8 } } } " \
  " layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1' " \
  "         convolution_param { num_output: 6 kernel_size: 3 pad: 1 " \
  "           weight_filler { type: 'xavier' } bias_filler { type: 'constant' value: 0.1 } } } " \
  " layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1' " \
  "         pooling_param { pool: MAX kernel_size: 2 stride: 2 } } " \
  " layer { name: 'relu1' type: 'ReLU' bottom: 'pool1' top: 'pool1' } " \
  " layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1' " \
  "         inner_product_param { num_output: 12 weight_filler { type: 'xavier' } } } " \
  " layer { name: 'sig1' type: 'Sigmoid' bottom: 'ip1' top: 'ip1' } " \
  " layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2' " \
  "         param { lr_mult: 1 decay_mult: 1 } param { lr_mult: 2 decay_mult: 0 } " \
  "         inner_product_param { num_output: 2 weight_filler { type: 'gaussian' std: 0.1 } } } " \
  " layer { name: 'accuracy' type: 'Accuracy' bottom: 'ip2' bottom: 'label' top: 'accuracy' " \
  "         include { phase: TEST } } " \
  " layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' } " \
  "} " \
  "test_iter: 2 test_interval: 5 test_initialization: true display: 0 random_seed: 1701 "

typedef struct {
  GArray *losses;  /* float per iteration */
  GArray *scores;  /* float: every test score, in order */
} Trace;

static void
on_iteration (CtSolver *solver, const CtSolverIteration *info, gpointer user_data)
{
  Trace *t = user_data;

  g_array_append_val (t->losses, info->loss);
}

static void
on_test_done (CtSolver *solver, const CtSolverTestResult *r, gpointer user_data)
{
  Trace *t = user_data;

  for (guint i = 0; i < r->n_scores; i++)
    g_array_append_val (t->scores, r->scores[i].value);
}

static void
trace_clear (Trace *t)
{
  g_array_unref (t->losses);
  g_array_unref (t->scores);
}

/* Train a solver from TEXT one iteration at a time, on the device
 * SCHEDULE names per iteration ('c' or 'g'); the losses and test scores
 * in T; the solver is returned for its weights. */
static CtSolver *
train (const char *text, const char *schedule, Trace *t)
{
  CtSolver *solver = ct_test_solver_new_ok (text);
  CtSolverObserverFuncs funcs = { .iteration = on_iteration, .test_done = on_test_done };

  t->losses = g_array_new (FALSE, FALSE, sizeof (float));
  t->scores = g_array_new (FALSE, FALSE, sizeof (float));
  ct_test_solver_feed_inputs (solver);
  ct_solver_add_observer (solver, &funcs, t, NULL);
  for (const char *d = schedule; *d != '\0'; d++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (ct_solver_set_use_gpu (solver, *d == 'g', &error));
      g_assert_no_error (error);
      g_assert_cmpint (ct_solver_get_use_gpu (solver), ==, *d == 'g');
      g_assert_true (ct_solver_step (solver, 1, &error));
      g_assert_no_error (error);
    }
  return solver;
}

static void
assert_close_arrays (const char *what, GArray *ours, GArray *ref)
{
  g_assert_cmpuint (ours->len, ==, ref->len);
  for (guint i = 0; i < ref->len; i++)
    {
      double a = g_array_index (ours, float, i), b = g_array_index (ref, float, i);
      double err = fabs (a - b) / MAX (fabs (b), 1e-3);

      if (!(err <= TOLERANCE))
        g_error ("%s %u: %.9g here, %.9g on the CPU (relative error %.3e)", what, i, a, b, err);
    }
}

/* ||A's learnables - B's|| / ||B's||, over all of them. */
static double
weights_error (CtNet *a, CtNet *b)
{
  double diff = 0.0, norm = 0.0;

  g_assert_cmpuint (ct_net_n_learnable (a), ==, ct_net_n_learnable (b));
  for (guint i = 0; i < ct_net_n_learnable (a); i++)
    {
      CtBlob *x = ct_net_get_learnable (a, i)->blob;
      CtBlob *y = ct_net_get_learnable (b, i)->blob;
      const float *dx = ct_blob_cpu_data (x, NULL), *dy = ct_blob_cpu_data (y, NULL);

      for (gint64 j = 0; j < ct_blob_count (y); j++)
        {
          diff += ((double) dx[j] - dy[j]) * ((double) dx[j] - dy[j]);
          norm += (double) dy[j] * dy[j];
        }
    }
  return sqrt (diff / MAX (norm, 1e-30));
}

/* The CPU's run against SCHEDULE's. */
static void
compare_training (const char *extra, const char *schedule)
{
  g_autofree char *text = g_strconcat (TRAIN_NET, extra, NULL);
  g_autofree char *cpu_schedule = g_strnfill (strlen (schedule), 'c');
  g_autoptr (CtSolver) cpu = NULL, other = NULL;
  Trace tc, to;
  double err;

  REQUIRE_GPU ();
  cpu = train (text, cpu_schedule, &tc);
  other = train (text, schedule, &to);
  for (guint i = 0; i < tc.losses->len; i++)
    g_test_message ("iteration %u (%c): loss %.9g, CPU %.9g", i, schedule[i],
                    (double) g_array_index (to.losses, float, i),
                    (double) g_array_index (tc.losses, float, i));
  assert_close_arrays ("loss", to.losses, tc.losses);
  assert_close_arrays ("test score", to.scores, tc.scores);
  g_assert_cmpuint (tc.scores->len, >, 0);
  err = weights_error (ct_solver_get_net (other), ct_solver_get_net (cpu));
  g_test_message ("weights after %zu iterations within %.3e of the CPU's", strlen (schedule),
                  err);
  g_assert_cmpfloat (err, <=, TOLERANCE);
  /* the loss fell: the run trained, on either device */
  g_assert_cmpfloat (g_array_index (to.losses, float, to.losses->len - 1), <,
                     g_array_index (to.losses, float, 0));
  trace_clear (&tc);
  trace_clear (&to);
}

#define ALL_GPU "gggggggggggggggg"

static void
test_train_sgd (void)
{
  /* momentum, L2 decay, a step policy, gradients clipped every iteration */
  compare_training ("type: 'SGD' base_lr: 0.1 momentum: 0.9 weight_decay: 0.005 "
                    "lr_policy: 'step' gamma: 0.5 stepsize: 8 clip_gradients: 0.5 ", ALL_GPU);
}

static void
test_train_nesterov (void)
{
  compare_training ("type: 'Nesterov' base_lr: 0.05 momentum: 0.9 weight_decay: 0.01 "
                    "regularization_type: 'L1' lr_policy: 'fixed' ", ALL_GPU);
}

static void
test_train_adagrad (void)
{
  compare_training ("type: 'AdaGrad' base_lr: 0.05 weight_decay: 0.001 lr_policy: 'fixed' ",
                    ALL_GPU);
}

static void
test_train_rmsprop (void)
{
  compare_training ("type: 'RMSProp' base_lr: 0.01 rms_decay: 0.9 delta: 1e-6 "
                    "lr_policy: 'inv' gamma: 0.1 power: 0.75 ", ALL_GPU);
}

static void
test_train_adadelta (void)
{
  compare_training ("type: 'AdaDelta' base_lr: 1.0 momentum: 0.95 delta: 1e-6 "
                    "lr_policy: 'fixed' ", ALL_GPU);
}

static void
test_train_adam (void)
{
  /* iter_size: two passes accumulate before each update */
  compare_training ("type: 'Adam' base_lr: 0.01 momentum: 0.9 momentum2: 0.999 "
                    "lr_policy: 'fixed' iter_size: 2 ", ALL_GPU);
}

static void
test_train_switching (void)
{
  /* CPU -> GPU -> CPU -> GPU mid-run, history and weights following */
  compare_training ("type: 'Adam' base_lr: 0.01 lr_policy: 'fixed' weight_decay: 0.001 ",
                    "ccccggggggccccgg");
  compare_training ("type: 'SGD' base_lr: 0.1 momentum: 0.9 lr_policy: 'fixed' "
                    "clip_gradients: 0.5 ", "ggggccccccgggggc");
}

/* A snapshot taken from the GPU, resumed on the CPU: the same weights and
 * history, and the next iterations as the GPU run makes them. */
static void
test_snapshot_from_gpu (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *text = g_strdup_printf ("%s type: 'Adam' base_lr: 0.01 lr_policy: 'fixed' "
                                           "snapshot_prefix: '%s/run' ", TRAIN_NET, dir);
  g_autofree char *state = g_build_filename (dir, "run_iter_6.solverstate", NULL);
  g_autoptr (CtSolver) gpu = NULL, cpu = NULL;
  g_autoptr (GError) error = NULL;
  GPtrArray *hg, *hc;
  Trace tg, tc;

  if (!have_gpu ())
    {
      ct_test_remove_tree (dir);
      g_test_skip ("no usable GPU");
      return;
    }
  gpu = train (text, "gggggg", &tg);
  g_assert_true (ct_solver_snapshot (gpu, &error));
  g_assert_no_error (error);

  cpu = train (text, "", &tc);
  g_assert_true (ct_solver_restore (cpu, state, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_solver_get_iter (cpu), ==, 6);
  g_assert_true (ct_test_same_weights (ct_solver_get_net (cpu), ct_solver_get_net (gpu)));
  hg = ct_solver_get_history (gpu);
  hc = ct_solver_get_history (cpu);
  g_assert_cmpuint (hg->len, ==, hc->len);
  for (guint i = 0; i < hg->len; i++)
    g_assert_cmpmem (ct_blob_cpu_data (hg->pdata[i], NULL),
                     ct_blob_count (hg->pdata[i]) * sizeof (float),
                     ct_blob_cpu_data (hc->pdata[i], NULL),
                     ct_blob_count (hc->pdata[i]) * sizeof (float));

  /* four more iterations each: the resumed CPU run follows the GPU's */
  g_assert_true (ct_solver_set_use_gpu (gpu, TRUE, &error));
  g_assert_true (ct_solver_step (gpu, 4, &error));
  g_assert_true (ct_solver_step (cpu, 4, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (tg.losses->len, ==, 10);
  g_assert_cmpuint (tc.losses->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      double a = g_array_index (tc.losses, float, i), b = g_array_index (tg.losses, float, 6 + i);

      g_assert_cmpfloat (fabs (a - b), <=, TOLERANCE * MAX (fabs (b), 1e-3));
    }
  g_assert_cmpfloat (weights_error (ct_solver_get_net (cpu), ct_solver_get_net (gpu)), <=,
                     TOLERANCE);
  trace_clear (&tg);
  trace_clear (&tc);
  ct_test_remove_tree (dir);
}

/* ---- the Data layer ---- */

/* Batches of an LMDB read by a net on the GPU land in the tops' GPU
 * copies (the heads say so) and equal the CPU net's, batch by batch,
 * with and without the prefetch thread. */
static void
test_data_layer (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *db = g_build_filename (dir, "db", NULL);

  if (!have_gpu ())
    {
      ct_test_remove_tree (dir);
      g_test_skip ("no usable GPU");
      return;
    }
  ct_test_write_db (db, CT_DB_LMDB, 10, 2, 3, 4);
  for (int prefetch = 0; prefetch <= 3; prefetch += 3)
    {
      g_autofree char *text = g_strdup_printf (
        "name: 'd' layer { name: 'data' type: 'Data' top: 'data' top: 'label' "
        "transform_param { scale: 0.5 } "
        "data_param { source: '%s' backend: LMDB batch_size: 4 prefetch: %d } }", db, prefetch);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtNet) cpu = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
      g_autoptr (CtNet) gpu = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);

      g_assert_no_error (error);
      use_gpu (gpu, TRUE);
      for (int batch = 0; batch < 3; batch++)
        {
          g_assert_true (ct_net_forward (cpu, NULL, &error));
          g_assert_true (ct_net_forward (gpu, NULL, &error));
          g_assert_no_error (error);
          for (guint b = 0; b < 2; b++)
            {
              CtBlob *ours = ct_net_get_blob (gpu, b), *ref = ct_net_get_blob (cpu, b);

              g_assert_cmpint (ct_mem_get_head (ct_blob_get_data_mem (ours)), ==,
                               CT_MEM_HEAD_AT_GPU);
              g_assert_cmpmem (ct_blob_cpu_data (ours, NULL),
                               ct_blob_count (ours) * sizeof (float),
                               ct_blob_cpu_data (ref, NULL),
                               ct_blob_count (ref) * sizeof (float));
            }
        }
    }
  ct_test_remove_tree (dir);
}

/* ---- errors ---- */

#define SMALL_NET \
  "name: 'small' " \
  "layer { name: 'in' type: 'Input' top: 'data' input_param { shape { dim: 10 dim: 30 } } } " \
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip' " \
  "        inner_product_param { num_output: 4 } } "

static CtNet *
small_net (void)
{
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = (Caffe__NetParameter *)
    ct_text_parse (&caffe__net_parameter__descriptor, SMALL_NET, -1, "small.prototxt",
                   CT_TEXT_STRICT, &error);
  CtNet *net;

  g_assert_no_error (error);
  net = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 1, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_no_error (error);
  return net;
}

/* Running out of GPU memory (a device that refuses every allocation) is
 * reported when the net moves to the GPU, naming the blob and the bytes,
 * and the net stays on the CPU, where it still runs. */
static void
test_out_of_memory (void)
{
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;

  REQUIRE_GPU ();
  fake_device_install ();
  net = small_net ();
  fake_device_stats.fail_with = CT_STATUS_OUT_OF_MEMORY;
  g_assert_false (ct_net_set_use_gpu (net, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "blob 'data'"));
  g_assert_nonnull (strstr (error->message, "out of GPU memory allocating 1200 bytes"));
  g_assert_false (ct_net_get_use_gpu (net));
  g_clear_error (&error);
  fake_device_stats.fail_with = CT_STATUS_OK;
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&net, ct_net_free);
  fake_device_uninstall ();
}

/* Without a GPU: asking for one is a clear error, and the net carries on
 * on the CPU. */
static void
test_no_gpu_engine (void)
{
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSolver) solver = NULL;
  g_autofree char *text = g_strconcat (TRAIN_NET, "type: 'SGD' base_lr: 0.1 lr_policy: 'fixed' ",
                                       NULL);

  if (have_gpu ())
    {
      g_test_skip ("a GPU is present");
      return;
    }
  net = small_net ();
  g_assert_false (ct_net_set_use_gpu (net, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "net 'small' cannot run on the GPU"));
  if (CT_HAVE_CUDA)
    g_assert_nonnull (strstr (error->message, ct_cuda_last_error ()));
  g_clear_error (&error);
  g_assert_false (ct_net_get_use_gpu (net));
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);

  solver = ct_test_solver_new_ok (text);
  ct_test_solver_feed_inputs (solver);
  g_assert_false (ct_solver_set_use_gpu (solver, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_false (ct_solver_get_use_gpu (solver));
  for (guint i = 0; i < ct_solver_n_test_nets (solver); i++)
    g_assert_false (ct_net_get_use_gpu (ct_solver_get_test_net (solver, i)));
  g_assert_true (ct_solver_step (solver, 2, &error));
  g_assert_no_error (error);
}

/* ---- cortado-cli ---- */

static char *
write_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* A net that feeds itself (DummyData), and a solver for it that
 * snapshots into DIR; SOLVER_EXTRA is added to the solver. */
static char *
write_cli_solver (const char *dir, const char *solver_extra)
{
  g_autofree char *net = write_file (
    dir, "net.prototxt",
    "name: 'dummy'\n"
    "layer { name: 'd' type: 'DummyData' top: 'data' top: 'label'\n"
    "  dummy_data_param { shape { dim: 4 dim: 6 } shape { dim: 4 }\n"
    "    data_filler { type: 'gaussian' std: 1 } data_filler { type: 'constant' value: 1 } } }\n"
    "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
    "  inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' }\n");
  g_autofree char *text = g_strdup_printf ("net: '%s'\nbase_lr: 0.1\nlr_policy: 'fixed'\n"
                                           "max_iter: 4\ndisplay: 1\nrandom_seed: 3\n"
                                           "snapshot_prefix: '%s/snap'\n%s", net, dir,
                                           solver_extra);

  return write_file (dir, "solver.prototxt", text);
}

static void
test_cli_gpu (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *solver = write_cli_solver (dir, "");
  g_autofree char *lenet = reference_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *model = g_build_filename (dir, "snap_iter_4.caffemodel", NULL);
  g_autofree char *net = g_build_filename (dir, "net.prototxt", NULL);
  const char *verbs[][8] = {
    { "train", "--solver", solver, "--gpu=0", NULL },
    { "time", "--model", lenet, "--gpu=0", "--iterations=1", NULL },
    { "test", "--model", net, "--weights", model, "--gpu=0", "--iterations=1", NULL },
    { "device_query", "--gpu=0", NULL },
  };

  if (!have_gpu ())
    {
      /* each verb fails the same clear way, with status 1 */
      for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
        {
          g_auto (CtCliRun) run = ct_cli_runv (verbs[i]);

          g_test_message ("%s: %s", verbs[i][0], run.err);
          g_assert_cmpint (run.status, ==, 1);
          g_assert_nonnull (strstr (run.err, "no GPU available"));
          if (CT_HAVE_CUDA)
            g_assert_nonnull (strstr (run.err, ct_cuda_last_error ()));
        }
      g_assert_false (g_file_test (model, G_FILE_TEST_EXISTS));
      ct_test_remove_tree (dir);
      return;
    }
  {
    g_auto (CtCliRun) run = ct_cli_runv (verbs[0]);

    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.err, "Using GPUs 0"));
    g_assert_nonnull (strstr (run.err, "Optimization Done."));
    g_assert_true (g_file_test (model, G_FILE_TEST_EXISTS));
  }
  {
    g_auto (CtCliRun) run = ct_cli_runv (verbs[1]);

    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.err, "Use GPU with device ID 0"));
    g_assert_nonnull (strstr (run.err, "Average Forward-Backward:"));
  }
  {
    g_auto (CtCliRun) run = ct_cli_runv (verbs[2]);

    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.err, "Use GPU with device ID 0"));
    g_assert_nonnull (strstr (run.err, "Loss: "));
  }
  {
    g_auto (CtCliRun) run = ct_cli_runv (verbs[3]);
    const char *fields[] = {
      "Device id:", "Major revision number:", "Minor revision number:", "Name:",
      "Total global memory:", "Total shared memory per block:", "Total registers per block:",
      "Warp size:", "Maximum memory pitch:", "Maximum threads per block:",
      "Maximum dimension of block:", "Maximum dimension of grid:", "Clock rate:",
      "Total constant memory:", "Texture alignment:", "Concurrent copy and execution:",
      "Number of multiprocessors:", "Kernel execution timeout:",
    };

    g_test_message ("%s", run.err);
    g_assert_cmpint (run.status, ==, 0);
    for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
      g_assert_nonnull (strstr (run.err, fields[i]));
  }
  {
    /* a list takes its first GPU and says so; an id that is no device fails */
    g_auto (CtCliRun) list = ct_cli_run ("time", "--model", lenet, "--gpu=0,0",
                                         "--iterations=1", NULL);
    g_auto (CtCliRun) bad = ct_cli_run ("time", "--model", lenet, "--gpu=99", NULL);

    g_assert_cmpint (list.status, ==, 0);
    g_assert_nonnull (strstr (list.err, "using GPU 0 only"));
    g_assert_cmpint (bad.status, ==, 1);
    g_assert_nonnull (strstr (bad.err, "no GPU with id '99'"));
  }
  ct_test_remove_tree (dir);
}

/* solver_mode: GPU without --gpu trains on the GPU when there is one,
 * and on the CPU with a warning when there is none. */
static void
test_cli_solver_mode (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *solver = write_cli_solver (dir, "solver_mode: GPU\n");
  g_auto (CtCliRun) run = ct_cli_run ("train", "--solver", solver, NULL);

  g_assert_cmpint (run.status, ==, 0);
  if (have_gpu ())
    g_assert_nonnull (strstr (run.err, "Using GPUs 0"));
  else
    g_assert_nonnull (strstr (run.err, "training on the CPU"));
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cuda/cuda-net/dump/layer-zoo", test_dump_layer_zoo);
  g_test_add_func ("/cuda/cuda-net/dump/lenet-sine", test_dump_lenet);
  g_test_add_func ("/cuda/cuda-net/dump/fashion-four", test_fashion_four);
  g_test_add_func ("/cuda/cuda-net/switch/lenet", test_switch_lenet);
  g_test_add_func ("/cuda/cuda-net/switch/layer-zoo", test_switch_layer_zoo);
  g_test_add_func ("/cuda/cuda-net/train/sgd", test_train_sgd);
  g_test_add_func ("/cuda/cuda-net/train/nesterov", test_train_nesterov);
  g_test_add_func ("/cuda/cuda-net/train/adagrad", test_train_adagrad);
  g_test_add_func ("/cuda/cuda-net/train/rmsprop", test_train_rmsprop);
  g_test_add_func ("/cuda/cuda-net/train/adadelta", test_train_adadelta);
  g_test_add_func ("/cuda/cuda-net/train/adam", test_train_adam);
  g_test_add_func ("/cuda/cuda-net/train/switching", test_train_switching);
  g_test_add_func ("/cuda/cuda-net/train/snapshot-from-gpu", test_snapshot_from_gpu);
  g_test_add_func ("/cuda/cuda-net/data/layer", test_data_layer);
  g_test_add_func ("/cuda/cuda-net/errors/out-of-memory", test_out_of_memory);
  g_test_add_func ("/cuda/cuda-net/errors/no-gpu", test_no_gpu_engine);
  g_test_add_func ("/cuda/cuda-net/cli/gpu", test_cli_gpu);
  g_test_add_func ("/cuda/cuda-net/cli/solver-mode", test_cli_solver_mode);
  return g_test_run ();
}
