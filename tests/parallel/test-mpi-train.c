/* test-mpi-train.c: `mpirun -np 2 cortado-cli train` as a cluster user runs
 * it, against the same training in one process: 2 ranks with batch 32 end
 * with the weights of 1 process with batch 64 (the LeNet example and the
 * CIFAR-10 quick example, on small databases made here, with momentum and
 * weight decay); a net with BatchNorm trains; rank 0 alone logs, tests and
 * snapshots; a 2-rank run resumed from its solverstate reaches the
 * uninterrupted run's weights; a rank that is killed, or that cannot read
 * its data, ends the job with an error within 60 s.
 *
 * The /threads tests run the same trainings in one process with 2 solvers
 * in threads (--cpu_solvers=2; --gpu=0,1 where 2 GPUs exist), SIGHUP and
 * SIGINT to it, and the error for more GPUs than there are; they need no
 * MPI.
 *
 * CT_CLI names cortado-cli, CT_MPIRUN mpirun (empty when not found). Every
 * /mpi test skips, saying why, when Cortado was built without MPI or there
 * is no mpirun. */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "caffe.pb-c.h"
#include "data-test-util.h"
#include "devices.h"

static gboolean
can_run (void)
{
  const char *mpirun = g_getenv ("CT_MPIRUN");

  if (!CT_HAVE_MPI)
    {
      g_test_skip ("cortado-cli was built without MPI (meson -Dmpi, libopenmpi-dev)");
      return FALSE;
    }
  if (mpirun == NULL || *mpirun == '\0')
    {
      g_test_skip ("no mpirun found (openmpi-bin)");
      return FALSE;
    }
  return TRUE;
}

typedef struct {
  int status;     /* exit status, or -1 when it did not end in time */
  char *log;      /* stdout and stderr */
  double seconds;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->log, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static void
on_ended (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

/* Start ARGV in DIR with its output into DIR/NAME.log. */
static GSubprocess *
start (const char *dir, const char *name, const char *const *argv)
{
  g_autoptr (GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autofree char *log = g_strdup_printf ("%s/%s.log", dir, name);
  g_autoptr (GError) error = NULL;
  GSubprocess *process;

  g_subprocess_launcher_set_cwd (launcher, dir);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "LANGUAGE");
  g_subprocess_launcher_set_stdout_file_path (launcher, log);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  return process;
}

/* Wait at most LIMIT seconds for PROCESS; its log from DIR/NAME.log. */
static Run
finish (GSubprocess *process, const char *dir, const char *name, double limit)
{
  g_autofree char *log = g_strdup_printf ("%s/%s.log", dir, name);
  gint64 started = g_get_monotonic_time ();
  gboolean done = FALSE;
  Run run = { .status = -1 };

  g_subprocess_wait_async (process, NULL, on_ended, &done);
  while (!done && (g_get_monotonic_time () - started) / 1e6 < limit)
    g_main_context_iteration (NULL, FALSE) || (g_usleep (20000), TRUE);
  run.seconds = (g_get_monotonic_time () - started) / 1e6;
  if (done)
    run.status = g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process)
                                                     : 128 + g_subprocess_get_term_sig (process);
  else
    {
      g_subprocess_force_exit (process);
      g_subprocess_wait (process, NULL, NULL);
    }
  g_file_get_contents (log, &run.log, NULL, NULL);
  if (run.status != 0)
    g_test_message ("%s ended with %d after %.1f s:\n%s", name, run.status, run.seconds,
                    run.log);
  return run;
}

/* cortado-cli train with the solver DIR/SOLVER and EXTRA (may be NULL), on
 * RANKS ranks under mpirun (or directly when RANKS is 0, in one process
 * with EXTRA saying how many solvers when RANKS is negative). */
static Run
train (const char *dir, int ranks, const char *solver, const char *extra, double limit)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GSubprocess) process = NULL;
  g_autofree char *name = g_strdup_printf ("%s-%d", solver, ABS (ranks));

  if (ranks > 0)
    {
      g_ptr_array_add (argv, g_strdup (g_getenv ("CT_MPIRUN")));
      g_ptr_array_add (argv, g_strdup ("--oversubscribe"));
      g_ptr_array_add (argv, g_strdup ("-np"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", ranks));
    }
  g_ptr_array_add (argv, g_strdup (g_getenv ("CT_CLI")));
  g_ptr_array_add (argv, g_strdup ("train"));
  g_ptr_array_add (argv, g_strdup_printf ("--solver=%s", solver));
  if (extra != NULL)
    g_ptr_array_add (argv, g_strdup (extra));
  g_ptr_array_add (argv, NULL);
  process = start (dir, name, (const char *const *) argv->pdata);
  return finish (process, dir, name, limit);
}

/* ---- nets and solvers ---- */

static char *
replace (char *text, const char *from, const char *to)
{
  g_auto (GStrv) parts = g_strsplit (text, from, -1);

  g_assert_cmpuint (g_strv_length (parts), >, 1);
  g_free (text);
  return g_strjoinv (to, parts);
}

/* An example net from data/examples with its databases in DIR, the train
 * batch BATCH (test batch 50) and no mean file. */
static void
write_example (const char *dir, const char *example, const char *name, const char *train_db,
               const char *test_db, const char *old_train_batch, int batch, const char *out)
{
  g_autofree char *path = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples", example,
                                            name, NULL);
  g_autofree char *target = g_build_filename (dir, out, NULL);
  g_autofree char *train_source = g_strdup_printf ("source: \"%s/train_db\"", dir);
  g_autofree char *test_source = g_strdup_printf ("source: \"%s/test_db\"", dir);
  g_autofree char *train_batch = g_strdup_printf ("%s\n    batch_size: %d", train_source, batch);
  g_autofree char *old_batch = g_strdup_printf ("%s\n    batch_size: %s", train_source,
                                                old_train_batch);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  text = replace (text, train_db, train_source);
  text = replace (text, test_db, test_source);
  /* the first batch_size after the train source is the train batch */
  text = replace (text, old_batch, train_batch);
  if (strstr (text, "mean_file") != NULL)
    text = replace (text, "mean_file: \"mean.binaryproto\"", "scale: 0.00390625");
  g_assert_true (g_file_set_contents (target, text, -1, NULL));
  g_free (text);
}

/* The LeNet example's solver settings (SGD with momentum and weight decay,
 * the inv policy); RULE replaces them when not NULL. */
static const char lenet_rule[] =
  "base_lr: 0.01\nmomentum: 0.9\nweight_decay: 0.0005\n"
  "lr_policy: \"inv\"\ngamma: 0.0001\npower: 0.75\n";

static void
write_solver_with (const char *dir, const char *name, const char *net, int max_iter,
                   const char *rule, const char *extra)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text =
    g_strdup_printf ("net: \"%s\"\n%s"
                     "display: 5\nmax_iter: %d\nrandom_seed: 1701\n"
                     "snapshot_prefix: \"%s/%s\"\n%s\n",
                     net, rule != NULL ? rule : lenet_rule, max_iter, dir, name,
                     extra != NULL ? extra : "");

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
write_solver (const char *dir, const char *name, const char *net, int max_iter,
              const char *extra)
{
  write_solver_with (dir, name, net, max_iter, NULL, extra);
}

/* ---- comparing weights ---- */

static Caffe__NetParameter *
read_model (const char *path)
{
  g_autofree char *bytes = NULL;
  gsize length;
  Caffe__NetParameter *net;

  g_assert_true (g_file_get_contents (path, &bytes, &length, NULL));
  net = caffe__net_parameter__unpack (NULL, length, (const guint8 *) bytes);
  g_assert_nonnull (net);
  return net;
}

/* The largest relative L2 distance between the blobs of two caffemodels. */
static double
model_distance (const char *a_path, const char *b_path)
{
  Caffe__NetParameter *a = read_model (a_path), *b = read_model (b_path);
  double worst = 0.0;
  guint n_blobs = 0;

  g_assert_cmpuint (a->n_layer, ==, b->n_layer);
  for (gsize l = 0; l < a->n_layer; l++)
    {
      g_assert_cmpuint (a->layer[l]->n_blobs, ==, b->layer[l]->n_blobs);
      for (gsize k = 0; k < a->layer[l]->n_blobs; k++)
        {
          const Caffe__BlobProto *x = a->layer[l]->blobs[k], *y = b->layer[l]->blobs[k];
          double diff = 0.0, norm = 0.0, rel;

          g_assert_cmpuint (x->n_data, ==, y->n_data);
          for (gsize i = 0; i < x->n_data; i++)
            {
              diff += ((double) x->data[i] - y->data[i]) * ((double) x->data[i] - y->data[i]);
              norm += (double) x->data[i] * x->data[i];
            }
          rel = sqrt (diff) / MAX (sqrt (norm), 1e-30);
          g_test_message ("%s blob %zu: relative L2 %.3g", a->layer[l]->name, k, rel);
          worst = MAX (worst, rel);
          n_blobs++;
        }
    }
  g_assert_cmpuint (n_blobs, >, 0);
  protobuf_c_message_free_unpacked (&a->base, NULL);
  protobuf_c_message_free_unpacked (&b->base, NULL);
  return worst;
}

static guint
count (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* ---- the tests ---- */

typedef struct {
  const char *example;
  const char *net;
  const char *train_db;
  const char *test_db;
  const char *old_batch;
  int c, h, w;
  int iters;
  const char *rule;    /* the solver's settings; NULL: the LeNet example's */
} Example;

static const Example lenet = {
  "lenet-fashion", "lenet_train_test.prototxt", "source: \"fashion_train_lmdb\"",
  "source: \"fashion_test_lmdb\"", "64", 1, 28, 28, 40, NULL,
};
static const Example cifar = {
  "cifar10-quick", "cifar10_quick_train_test.prototxt", "source: \"cifar10_train_lmdb\"",
  "source: \"cifar10_test_lmdb\"", "100", 3, 32, 32, 30,
  /* Caffe's cifar10_quick_solver */
  "base_lr: 0.001\nmomentum: 0.9\nweight_decay: 0.004\nlr_policy: \"fixed\"\n",
};

/* 2 ranks × batch 32 = 1 process × batch 64: 2 MPI ranks, or with
 * THREADS, 2 solvers in threads of one process (--cpu_solvers=2, or
 * --gpu=0,1 with GPUS). */
static void
check_same_weights_with (const Example *e, gboolean threads, gboolean gpus)
{
  g_autofree char *dir = NULL;
  g_autofree char *db = NULL, *one = NULL, *two = NULL;
  g_auto (Run) alone = { 0 };
  g_auto (Run) ranks = { 0 };
  double distance;

  dir = ct_test_make_temp_dir ();
  db = g_build_filename (dir, "train_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 320, e->c, e->h, e->w);
  g_clear_pointer (&db, g_free);
  db = g_build_filename (dir, "test_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 100, e->c, e->h, e->w);
  write_example (dir, e->example, e->net, e->train_db, e->test_db, e->old_batch, 64, "b64.prototxt");
  write_example (dir, e->example, e->net, e->train_db, e->test_db, e->old_batch, 32, "b32.prototxt");
  write_solver_with (dir, "one", "b64.prototxt", e->iters, e->rule, NULL);
  write_solver_with (dir, "two", "b32.prototxt", e->iters, e->rule, NULL);

  alone = train (dir, 0, "one", gpus ? "--gpu=0" : NULL, 600);
  g_assert_cmpint (alone.status, ==, 0);
  ranks = train (dir, threads ? -2 : 2, "two",
                 gpus ? "--gpu=0,1" : threads ? "--cpu_solvers=2" : NULL, 600);
  g_assert_cmpint (ranks.status, ==, 0);
  g_assert_nonnull (strstr (ranks.log, gpus ? "Data-parallel over 2 ranks (NCCL)"
                                       : threads ? "Data-parallel over 2 ranks (threads)"
                                                 : "Data-parallel over 2 ranks (MPI)"));
  if (gpus)
    g_assert_nonnull (strstr (ranks.log, "Using GPUs 0, 1"));
  else if (threads)
    g_assert_nonnull (strstr (ranks.log, "Using the CPU: 2 solvers in threads"));
  else
    g_assert_nonnull (strstr (ranks.log, "MPI rank 1 of 2"));
  one = g_strdup_printf ("%s/one_iter_%d.caffemodel", dir, e->iters);
  two = g_strdup_printf ("%s/two_iter_%d.caffemodel", dir, e->iters);
  distance = model_distance (one, two);
  g_test_message ("%s: largest relative L2 distance %.3g", e->example, distance);
  g_assert_cmpfloat (distance, <=, 1e-4);
  /* one display line per display iteration: rank 0 alone logs */
  g_assert_cmpuint (count (ranks.log, "] Iteration 5 ("), ==, 1);
  g_assert_cmpuint (count (ranks.log, "Snapshotting to binary proto file"), ==, 1);
  ct_test_remove_tree (dir);
}

static void
check_same_weights (gconstpointer data)
{
  if (can_run ())
    check_same_weights_with (data, FALSE, FALSE);
}

/* The same with 2 solvers on CPU threads: the multi-GPU driver (data
 * shares, averaging, rank 0's duties and weights) without a GPU. */
static void
check_same_weights_threads (gconstpointer data)
{
  check_same_weights_with (data, TRUE, FALSE);
}

static guint
gpu_count (void)
{
  return CT_HAVE_CUDA ? (guint) ct_engine_gpu_count (NULL) : 0;
}

/* The same on 2 GPUs of one process (NCCL between them). */
static void
test_two_gpus (void)
{
  if (gpu_count () < 2)
    {
      g_autofree char *why = g_strdup_printf ("%u GPUs here: --gpu=0,1 needs 2", gpu_count ());

      g_test_skip (why);
      return;
    }
  check_same_weights_with (&lenet, TRUE, TRUE);
}

/* More GPUs asked for than there are, or none built: a clear error, and
 * no training. */
static void
test_too_many_gpus (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *flag = g_strdup_printf ("--gpu=0,%u", MAX (gpu_count (), 1));
  g_auto (Run) run = { 0 };

  write_solver (dir, "s", "missing.prototxt", 10, NULL);
  run = train (dir, 0, "s", flag, 60);
  g_assert_cmpint (run.status, ==, 1);
  if (!CT_HAVE_CUDA)
    g_assert_nonnull (strstr (run.log, "no GPU available: Cortado was built without CUDA"));
  else if (gpu_count () == 0)
    g_assert_nonnull (strstr (run.log, "no GPU available"));
  else
    g_assert_nonnull (strstr (run.log, "no GPU with id"));
  g_assert_null (strstr (run.log, "Starting Optimization"));
  ct_test_remove_tree (dir);
}

static const char batchnorm_net[] =
  "name: 'bn'\n"
  "layer { name: 'd' type: 'Data' top: 'data' top: 'label' include { phase: TRAIN }\n"
  "  transform_param { scale: 0.00390625 }\n"
  "  data_param { source: '%s/train_db' batch_size: 16 backend: LMDB } }\n"
  "layer { name: 'd' type: 'Data' top: 'data' top: 'label' include { phase: TEST }\n"
  "  transform_param { scale: 0.00390625 }\n"
  "  data_param { source: '%s/train_db' batch_size: 16 backend: LMDB } }\n"
  "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'conv'\n"
  "  convolution_param { num_output: 8 kernel_size: 3 weight_filler { type: 'xavier' } } }\n"
  "layer { name: 'bn' type: 'BatchNorm' bottom: 'conv' top: 'conv' }\n"
  "layer { name: 'scale' type: 'Scale' bottom: 'conv' top: 'conv' scale_param { bias_term: true } }\n"
  "layer { name: 'relu' type: 'ReLU' bottom: 'conv' top: 'conv' }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'conv' top: 'ip'\n"
  "  inner_product_param { num_output: 7 weight_filler { type: 'xavier' } } }\n"
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' }\n"
  "layer { name: 'acc' type: 'Accuracy' bottom: 'ip' bottom: 'label' top: 'acc' include { phase: TEST } }\n";

/* A BatchNorm net trains on 2 ranks (its statistics per rank); tests and
 * snapshots happen once, on rank 0. */
static void
test_batchnorm (void)
{
  g_autofree char *dir = NULL, *db = NULL, *net = NULL, *text = NULL, *model = NULL;
  g_auto (Run) run = { 0 };

  if (!can_run ())
    return;
  dir = ct_test_make_temp_dir ();
  db = g_build_filename (dir, "train_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 64, 1, 8, 8);
  net = g_build_filename (dir, "bn.prototxt", NULL);
  text = g_strdup_printf (batchnorm_net, dir, dir);
  g_assert_true (g_file_set_contents (net, text, -1, NULL));
  write_solver (dir, "bn", "bn.prototxt", 20,
                "test_iter: 2\ntest_interval: 10\nsnapshot: 10\ntest_initialization: false");
  run = train (dir, 2, "bn", NULL, 300);
  g_assert_cmpint (run.status, ==, 0);
  /* tests at 10 and 20, once each, with their accuracy line */
  g_assert_cmpuint (count (run.log, "Test net output #0: acc = "), ==, 2);
  g_assert_cmpuint (count (run.log, "Snapshotting to binary proto file"), ==, 2);
  g_assert_cmpuint (count (run.log, "Optimization Done."), ==, 1);
  model = g_strdup_printf ("%s/bn_iter_20.caffemodel", dir);
  g_assert_true (g_file_test (model, G_FILE_TEST_EXISTS));
  g_assert_null (strstr (run.log, "loss = nan"));
  ct_test_remove_tree (dir);
}

/* Resumed from its own solverstate, a 2-rank run reaches the weights of
 * the uninterrupted one (the database is a whole number of iterations
 * long at the snapshot, so that both read the same records after it). */
static void
test_resume (void)
{
  g_autofree char *dir = NULL, *db = NULL, *full = NULL, *resumed = NULL, *state = NULL;
  g_autofree char *flag = NULL;
  g_auto (Run) first = { 0 };
  g_auto (Run) second = { 0 };
  double distance;

  if (!can_run ())
    return;
  dir = ct_test_make_temp_dir ();
  db = g_build_filename (dir, "train_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 256, 1, 28, 28);
  g_clear_pointer (&db, g_free);
  db = g_build_filename (dir, "test_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 100, 1, 28, 28);
  write_example (dir, lenet.example, lenet.net, lenet.train_db, lenet.test_db, lenet.old_batch,
                 32, "b32.prototxt");
  write_solver (dir, "run", "b32.prototxt", 24, "snapshot: 12");
  first = train (dir, 2, "run", NULL, 600);
  g_assert_cmpint (first.status, ==, 0);
  full = g_strdup_printf ("%s/run_iter_24.caffemodel", dir);
  resumed = g_strdup_printf ("%s/uninterrupted.caffemodel", dir);
  g_assert_cmpint (g_rename (full, resumed), ==, 0);
  state = g_strdup_printf ("%s/run_iter_12.solverstate", dir);
  flag = g_strdup_printf ("--snapshot=%s", state);
  second = train (dir, 2, "run", flag, 600);
  g_assert_cmpint (second.status, ==, 0);
  distance = model_distance (resumed, full);
  g_test_message ("resumed against uninterrupted: relative L2 %.3g", distance);
  g_assert_cmpfloat (distance, <=, 1e-5);
  ct_test_remove_tree (dir);
}

/* Start 2 ranks training LeNet for ever in DIR, each writing its process
 * id to pid.RANK; return once they train (a display line at 10). */
static GSubprocess *
start_long_job (const char *dir, const char *name)
{
  g_autofree char *db = NULL, *script = NULL, *pid_path = NULL;
  GSubprocess *process;
  const char *argv[8];
  gint64 waited = 0;

  db = g_build_filename (dir, "train_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 256, 1, 28, 28);
  g_clear_pointer (&db, g_free);
  db = g_build_filename (dir, "test_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 100, 1, 28, 28);
  write_example (dir, lenet.example, lenet.net, lenet.train_db, lenet.test_db, lenet.old_batch,
                 32, "b32.prototxt");
  write_solver (dir, "long", "b32.prototxt", 1000000, NULL);
  /* each rank writes its process id, then becomes cortado-cli */
  script = g_strdup_printf ("echo $$ > pid.$OMPI_COMM_WORLD_RANK.tmp && "
                            "mv pid.$OMPI_COMM_WORLD_RANK.tmp pid.$OMPI_COMM_WORLD_RANK && "
                            "exec '%s' train --solver=long", g_getenv ("CT_CLI"));
  argv[0] = g_getenv ("CT_MPIRUN");
  argv[1] = "--oversubscribe";
  argv[2] = "-np";
  argv[3] = "2";
  argv[4] = "sh";
  argv[5] = "-c";
  argv[6] = script;
  argv[7] = NULL;
  process = start (dir, name, argv);
  pid_path = g_build_filename (dir, "pid.1", NULL);
  for (;;)
    {
      g_autofree char *log_path = g_strdup_printf ("%s/%s.log", dir, name);
      g_autofree char *log = NULL;

      if (g_file_get_contents (log_path, &log, NULL, NULL) &&
          strstr (log, "] Iteration 10 (") != NULL && g_file_test (pid_path, G_FILE_TEST_EXISTS))
        break;
      g_assert_cmpint (waited, <, 300);
      g_usleep (G_USEC_PER_SEC / 10);
      waited++;
    }
  return process;
}

static void
signal_rank (const char *dir, int rank, int signum)
{
  g_autofree char *path = g_strdup_printf ("%s/pid.%d", dir, rank);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (kill ((pid_t) g_ascii_strtoll (text, NULL, 10), signum), ==, 0);
}

/* Rank 1 killed mid-run: the job ends, non-zero, within 60 s. */
static void
test_killed_rank (void)
{
  g_autofree char *dir = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_auto (Run) run = { 0 };

  if (!can_run ())
    return;
  dir = ct_test_make_temp_dir ();
  process = start_long_job (dir, "killed");
  signal_rank (dir, 1, SIGKILL);
  run = finish (process, dir, "killed", 60);
  g_assert_cmpint (run.status, !=, -1);   /* ended within 60 s */
  g_assert_cmpint (run.status, !=, 0);
  g_test_message ("the job ended %.1f s after rank 1 was killed", run.seconds);
  ct_test_remove_tree (dir);
}

static guint
count_snapshots (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while ((name = g_dir_read_name (d)) != NULL)
    n += g_str_has_suffix (name, ".solverstate");
  return n;
}

/* SIGHUP to rank 1 snapshots (rank 0 writes it), SIGINT to rank 1 stops
 * every rank after a snapshot, with status 0. */
static void
test_signals (void)
{
  g_autofree char *dir = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_auto (Run) run = { 0 };
  gint64 waited = 0;

  if (!can_run ())
    return;
  dir = ct_test_make_temp_dir ();
  process = start_long_job (dir, "signals");
  signal_rank (dir, 1, SIGHUP);
  while (count_snapshots (dir) == 0)
    {
      g_assert_cmpint (waited++, <, 600);
      g_usleep (G_USEC_PER_SEC / 10);
    }
  signal_rank (dir, 1, SIGINT);
  run = finish (process, dir, "signals", 60);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpuint (count_snapshots (dir), ==, 2);
  g_assert_cmpuint (count (run.log, "Optimization stopped early."), ==, 1);
  ct_test_remove_tree (dir);
}

/* 2 solvers in threads of one process: SIGHUP snapshots once (rank 0),
 * SIGINT stops both after a snapshot, with status 0. */
static void
test_threads_signals (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *db = g_build_filename (dir, "train_db", NULL);
  g_autofree char *log_path = g_build_filename (dir, "threads.log", NULL);
  g_autofree char *solver = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_auto (Run) run = { 0 };
  const char *argv[5];
  gint64 waited = 0;

  ct_test_write_db (db, CT_DB_LMDB, 256, 1, 28, 28);
  g_clear_pointer (&db, g_free);
  db = g_build_filename (dir, "test_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 100, 1, 28, 28);
  write_example (dir, lenet.example, lenet.net, lenet.train_db, lenet.test_db, lenet.old_batch,
                 32, "b32.prototxt");
  write_solver (dir, "long", "b32.prototxt", 1000000, NULL);
  argv[0] = g_getenv ("CT_CLI");
  argv[1] = "train";
  argv[2] = "--solver=long";
  argv[3] = "--cpu_solvers=2";
  argv[4] = NULL;
  process = start (dir, "threads", argv);
  for (;;)
    {
      g_autofree char *log = NULL;

      if (g_file_get_contents (log_path, &log, NULL, NULL) &&
          strstr (log, "] Iteration 10 (") != NULL)
        break;
      g_assert_cmpint (waited++, <, 3000);
      g_usleep (G_USEC_PER_SEC / 10);
    }
  g_subprocess_send_signal (process, SIGHUP);
  for (waited = 0; count_snapshots (dir) == 0; waited++)
    {
      g_assert_cmpint (waited, <, 600);
      g_usleep (G_USEC_PER_SEC / 10);
    }
  g_subprocess_send_signal (process, SIGINT);
  run = finish (process, dir, "threads", 60);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpuint (count_snapshots (dir), ==, 2);
  g_assert_cmpuint (count (run.log, "Optimization stopped early."), ==, 1);
  ct_test_remove_tree (dir);
}

/* A record only rank 1 reads is corrupt: every rank ends, the error names
 * rank 1 (solver 1 of the threads) and the record. */
static void
check_bad_record (gboolean threads)
{
  g_autofree char *dir = NULL, *db = NULL;
  static const char junk_text[] = "\xff\xff\xff not a Datum";
  g_autoptr (GBytes) junk = g_bytes_new_static (junk_text, sizeof junk_text - 1);
  g_auto (Run) run = { 0 };

  dir = ct_test_make_temp_dir ();
  db = g_build_filename (dir, "train_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 256, 1, 28, 28);
  ct_test_put_record (db, CT_DB_LMDB, "00000101", junk);
  g_clear_pointer (&db, g_free);
  db = g_build_filename (dir, "test_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 100, 1, 28, 28);
  write_example (dir, lenet.example, lenet.net, lenet.train_db, lenet.test_db, lenet.old_batch,
                 32, "b32.prototxt");
  write_solver (dir, "bad", "b32.prototxt", 100, NULL);
  run = train (dir, threads ? -2 : 2, "bad", threads ? "--cpu_solvers=2" : NULL, 60);
  g_assert_cmpint (run.status, !=, -1);
  g_assert_cmpint (run.status, !=, 0);
  g_assert_nonnull (strstr (run.log, threads ? "solver 1 of 2" : "rank 1 of 2"));
  g_assert_nonnull (strstr (run.log, "00000101"));
  ct_test_remove_tree (dir);
}

static void
test_bad_record (void)
{
  if (can_run ())
    check_bad_record (FALSE);
}

static void
test_threads_bad_record (void)
{
  check_bad_record (TRUE);
}

/* One rank on GPU 0 through NCCL (mpirun -np 1) trains as the plain GPU
 * run. Needs a GPU; more GPUs than one would run 2 ranks the same way. */
static void
test_nccl_one_rank (void)
{
  g_autofree char *dir = NULL, *db = NULL, *one = NULL, *two = NULL;
  g_auto (Run) plain = { 0 };
  g_auto (Run) ranks = { 0 };
  double distance;

  if (!can_run ())
    return;
  if (!CT_HAVE_CUDA || ct_engine_gpu_count (NULL) == 0)
    {
      g_test_skip ("no GPU here (or Cortado built without CUDA): the NCCL path is not run");
      return;
    }
  dir = ct_test_make_temp_dir ();
  db = g_build_filename (dir, "train_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 320, 1, 28, 28);
  g_clear_pointer (&db, g_free);
  db = g_build_filename (dir, "test_db", NULL);
  ct_test_write_db (db, CT_DB_LMDB, 100, 1, 28, 28);
  write_example (dir, lenet.example, lenet.net, lenet.train_db, lenet.test_db, lenet.old_batch,
                 64, "b64.prototxt");
  write_solver (dir, "plain", "b64.prototxt", 40, NULL);
  write_solver (dir, "nccl", "b64.prototxt", 40, NULL);
  plain = train (dir, 0, "plain", "--gpu=0", 600);
  g_assert_cmpint (plain.status, ==, 0);
  ranks = train (dir, 1, "nccl", "--gpu=0", 600);
  g_assert_cmpint (ranks.status, ==, 0);
  g_assert_nonnull (strstr (ranks.log, "Data-parallel over 1 ranks (NCCL)"));
  one = g_strdup_printf ("%s/plain_iter_40.caffemodel", dir);
  two = g_strdup_printf ("%s/nccl_iter_40.caffemodel", dir);
  distance = model_distance (one, two);
  g_test_message ("NCCL, one rank, against the plain GPU run: relative L2 %.3g", distance);
  g_assert_cmpfloat (distance, <=, 1e-5);
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/mpi/same-weights/lenet", &lenet, check_same_weights);
  g_test_add_data_func ("/mpi/same-weights/cifar10-quick", &cifar, check_same_weights);
  g_test_add_func ("/mpi/batchnorm", test_batchnorm);
  g_test_add_func ("/mpi/resume", test_resume);
  g_test_add_func ("/mpi/killed-rank", test_killed_rank);
  g_test_add_func ("/mpi/signals", test_signals);
  g_test_add_func ("/mpi/bad-record", test_bad_record);
  g_test_add_func ("/mpi/nccl-one-rank", test_nccl_one_rank);
  g_test_add_data_func ("/threads/same-weights/lenet", &lenet, check_same_weights_threads);
  g_test_add_data_func ("/threads/same-weights/cifar10-quick", &cifar,
                        check_same_weights_threads);
  g_test_add_func ("/threads/signals", test_threads_signals);
  g_test_add_func ("/threads/bad-record", test_threads_bad_record);
  g_test_add_func ("/threads/too-many-gpus", test_too_many_gpus);
  g_test_add_func ("/threads/two-gpus", test_two_gpus);
  return g_test_run ();
}
