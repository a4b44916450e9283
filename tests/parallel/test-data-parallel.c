/* test-data-parallel.c: the parts of data-parallel training that need no
 * MPI launcher: the Data layer's share of the records for each rank (and
 * the TEST phase reading all of them), and a solver joined to a
 * single-rank communicator training exactly as one alone (the bucketed,
 * overlapped exchange then averages over one rank, which must change no
 * bit); the threads' communicator (sums, broadcasts, agreement, a broken
 * group); and two solvers in two threads, each reading its share of the
 * records with batch 4, stepping as one solver with batch 8. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "comm.h"
#include "data-parallel.h"
#include "data-shard.h"
#include "data-test-util.h"
#include "solver.h"
#include "text-format.h"

static char *
data_net (const char *source, const char *phase, int batch)
{
  return g_strdup_printf ("layer { name: 'd' type: 'Data' top: 'data' top: 'label'"
                          " data_param { source: '%s' batch_size: %d backend: LMDB } }"
                          " layer { name: 's' type: 'Silence' bottom: 'data' bottom: 'label' }"
                          " state { phase: %s }", source, batch, phase);
}

/* The labels (record index mod 7) of two batches of a Data net. */
static void
read_labels (const char *source, Caffe__Phase phase, int batch, float *labels)
{
  g_autofree char *text = data_net (source, phase == CAFFE__PHASE__TRAIN ? "TRAIN" : "TEST",
                                    batch);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_test_build_net (text, phase, 1, &error);

  g_assert_no_error (error);
  for (int b = 0; b < 2; b++)
    {
      g_assert_true (ct_net_forward (net, NULL, &error));
      memcpy (labels + b * batch, ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL),
              (gsize) batch * sizeof (float));
    }
}

static void
test_shard (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *db = g_build_filename (dir, "db", NULL);
  float labels[8];

  /* 7 records: labels 0..6; 2 batches of 4 wrap around */
  ct_test_write_db (db, CT_DB_LMDB, 7, 1, 2, 2);

  ct_data_shard_set (1, 2);
  read_labels (db, CAFFE__PHASE__TRAIN, 4, labels);
  /* rank 1 of 2 reads records 1, 3, 5, then (after 7 wraps to 0 again,
   * the reading order goes on counting) offsets 7->0, 9->2, ...: the
   * records at odd positions of the endless reading order */
  {
    const float want[8] = { 1, 3, 5, 0, 2, 4, 6, 1 };

    for (int i = 0; i < 8; i++)
      g_assert_cmpfloat (labels[i], ==, want[i]);
  }
  ct_data_shard_set (0, 2);
  read_labels (db, CAFFE__PHASE__TRAIN, 4, labels);
  {
    const float want[8] = { 0, 2, 4, 6, 1, 3, 5, 0 };

    for (int i = 0; i < 8; i++)
      g_assert_cmpfloat (labels[i], ==, want[i]);
  }
  /* TEST reads everything, whatever the rank */
  ct_data_shard_set (1, 2);
  read_labels (db, CAFFE__PHASE__TEST, 4, labels);
  for (int i = 0; i < 8; i++)
    g_assert_cmpfloat (labels[i], ==, (float) (i % 7));
  ct_data_shard_set (0, 1);
  ct_test_remove_tree (dir);
}

static const char solver_text[] =
  "net_param { name: 'mlp'"
  " layer { name: 'd' type: 'Data' top: 'data' top: 'label'"
  "   transform_param { scale: 0.00390625 }"
  "   data_param { source: '%s' batch_size: %d backend: LMDB } }"
  " layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1'"
  "   inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }"
  " layer { name: 'relu' type: 'ReLU' bottom: 'ip1' top: 'ip1' }"
  " layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'"
  "   inner_product_param { num_output: 7 weight_filler { type: 'xavier' } } }"
  " layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' } }"
  " base_lr: 0.05 momentum: 0.9 weight_decay: 0.001 lr_policy: 'fixed' max_iter: 10"
  " random_seed: 5 iter_size: %d snapshot_prefix: '%s/s'";

static CtSolver *
make_solver_batch (const char *dir, const char *db, int iter_size, int batch)
{
  g_autofree char *text = g_strdup_printf (solver_text, db, batch, iter_size, dir);
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param = (Caffe__SolverParameter *)
    ct_text_parse (&caffe__solver_parameter__descriptor, text, -1, "solver", 0, &error);
  CtSolver *solver;

  g_assert_no_error (error);
  solver = ct_solver_new (param, NULL, &error);
  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return solver;
}

static CtSolver *
make_solver (const char *dir, const char *db, int iter_size)
{
  return make_solver_batch (dir, db, iter_size, 8);
}

/* One rank through the exchange (several small buckets) trains bit for bit
 * as a solver alone. */
static void
check_single_rank (gconstpointer data)
{
  const int iter_size = GPOINTER_TO_INT (data);
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *db = g_build_filename (dir, "db", NULL);
  g_autoptr (CtSolver) alone = NULL;
  g_autoptr (CtSolver) joined = NULL;
  g_autoptr (CtComm) comm = ct_comm_single_new ();
  g_autoptr (CtDataParallel) dp = NULL;
  g_autoptr (GError) error = NULL;
  CtDataParallelStats stats;
  CtNet *a, *b;

  ct_test_write_db (db, CT_DB_LMDB, 40, 1, 4, 4);
  alone = make_solver (dir, db, iter_size);
  joined = make_solver (dir, db, iter_size);
  dp = ct_data_parallel_new (joined, comm, 64, &error);
  g_assert_no_error (error);
  g_assert_true (ct_data_parallel_broadcast_state (dp, &error));
  g_assert_true (ct_solver_step (alone, 10, &error));
  g_assert_no_error (error);
  g_assert_true (ct_solver_step (joined, 10, &error));
  g_assert_no_error (error);
  ct_data_parallel_get_stats (dp, &stats);
  g_assert_cmpuint (stats.iterations, ==, 10);
  g_assert_cmpuint (stats.floats, ==, 16 * 10 + 10 + 10 * 7 + 7);
  g_assert_cmpuint (stats.n_buckets, >, 1);
  a = ct_solver_get_net (alone);
  b = ct_solver_get_net (joined);
  for (guint i = 0; i < ct_net_n_learnable (a); i++)
    {
      CtBlob *x = ct_net_get_learnable (a, i)->blob, *y = ct_net_get_learnable (b, i)->blob;

      g_assert_cmpmem (ct_blob_cpu_data (x, NULL), ct_blob_count (x) * sizeof (float),
                       ct_blob_cpu_data (y, NULL), ct_blob_count (y) * sizeof (float));
    }
  g_assert_true (ct_solver_is_root (joined));
  ct_test_remove_tree (dir);
}

/* ---- the threads' communicator ---- */

typedef struct {
  CtComm *comm;
  float values[7];
  int flag;
  char text[8];
  gboolean ok;
  GError *error;
} CommThread;

/* Each rank: a sum of 7 floats, a broadcast, an or. */
static gpointer
comm_thread (gpointer data)
{
  CommThread *t = data;
  const guint r = t->comm->rank;
  CtCommRequest *request;

  for (int i = 0; i < 7; i++)
    t->values[i] = (float) ((r + 1) * (i + 1));
  t->flag = 1 << r;
  g_snprintf (t->text, sizeof t->text, "rank%u", r);
  request = ct_comm_sum_start (t->comm, t->values, 7, &t->error);
  t->ok = request != NULL && ct_comm_sum_wait (t->comm, request, &t->error) &&
          ct_comm_broadcast (t->comm, t->text, sizeof t->text, &t->error) &&
          ct_comm_or_int (t->comm, &t->flag, &t->error);
  return NULL;
}

static void
test_threads_comm (void)
{
  enum { N = 3 };
  g_autoptr (CtCommGroup) group = ct_comm_group_new (N);
  CommThread t[N] = { 0 };
  GThread *threads[N];

  for (guint r = 0; r < N; r++)
    {
      t[r].comm = ct_comm_threads_new (group, r);
      g_assert_true (ct_comm_is_threads (t[r].comm));
      g_assert_cmpuint (t[r].comm->size, ==, N);
      g_assert_false (t[r].comm->device_memory);
      threads[r] = g_thread_new ("rank", comm_thread, &t[r]);
    }
  for (guint r = 0; r < N; r++)
    {
      g_thread_join (threads[r]);
      g_assert_no_error (t[r].error);
      g_assert_true (t[r].ok);
      /* (1 + 2 + 3) * (i + 1) on every rank */
      for (int i = 0; i < 7; i++)
        g_assert_cmpfloat (t[r].values[i], ==, 6.0f * (float) (i + 1));
      g_assert_cmpstr (t[r].text, ==, "rank0");
      g_assert_cmpint (t[r].flag, ==, 7);
      ct_comm_free (t[r].comm);
    }
  g_assert_false (ct_comm_is_threads (NULL));
}

/* A rank that breaks the group frees the one waiting for it. */
static gpointer
waiting_thread (gpointer data)
{
  CommThread *t = data;

  t->ok = ct_comm_or_int (t->comm, &t->flag, &t->error);
  return NULL;
}

static void
test_threads_broken (void)
{
  g_autoptr (CtCommGroup) group = ct_comm_group_new (2);
  CommThread t = { .comm = ct_comm_threads_new (group, 1) };
  GThread *thread = g_thread_new ("rank", waiting_thread, &t);

  /* rank 0 fails instead of taking part */
  g_usleep (G_USEC_PER_SEC / 20);
  ct_comm_group_break (group);
  g_thread_join (thread);
  g_assert_false (t.ok);
  g_assert_error (t.error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_COMM);
  g_clear_error (&t.error);
  ct_comm_free (t.comm);
}

/* ---- two solvers in two threads ---- */

typedef struct {
  const char *dir;
  const char *db;
  CtComm *comm;
  CtSolver *solver;
  GError *error;
} SolverThread;

/* As cortado-cli's threads do: the share of the records and a seed of its
 * own before the solver is built, then rank 0's weights, then training. */
static gpointer
solver_thread (gpointer data)
{
  SolverThread *t = data;
  g_autoptr (CtDataParallel) dp = NULL;

  ct_data_shard_set (t->comm->rank, t->comm->size);
  t->solver = make_solver_batch (t->dir, t->db, 1, 4);
  /* a different filler draw on rank 1: the broadcast must undo it */
  if (t->comm->rank == 1)
    {
      CtBlob *w = ct_net_get_learnable (ct_solver_get_net (t->solver), 0)->blob;

      ct_blob_mutable_cpu_data (w, NULL)[0] += 1.0f;
    }
  dp = ct_data_parallel_new (t->solver, t->comm, 64, &t->error);
  if (dp != NULL && ct_data_parallel_broadcast_state (dp, &t->error))
    ct_solver_step (t->solver, 10, &t->error);
  ct_data_shard_set (0, 1);
  return NULL;
}

static double
relative_l2 (CtBlob *x, CtBlob *y)
{
  const float *a = ct_blob_cpu_data (x, NULL), *b = ct_blob_cpu_data (y, NULL);
  double diff = 0.0, norm = 0.0;

  for (gint64 i = 0; i < ct_blob_count (x); i++)
    {
      diff += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
      norm += (double) a[i] * a[i];
    }
  return sqrt (diff) / MAX (sqrt (norm), 1e-30);
}

static void
test_two_threads (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *db = g_build_filename (dir, "db", NULL);
  g_autoptr (CtCommGroup) group = ct_comm_group_new (2);
  g_autoptr (CtSolver) alone = NULL;
  g_autoptr (GError) error = NULL;
  SolverThread t[2] = { 0 };
  GThread *other;
  CtNet *a;

  ct_test_write_db (db, CT_DB_LMDB, 40, 1, 4, 4);
  alone = make_solver_batch (dir, db, 1, 8);
  g_assert_true (ct_solver_step (alone, 10, &error));
  g_assert_no_error (error);
  for (guint r = 0; r < 2; r++)
    t[r] = (SolverThread) { dir, db, ct_comm_threads_new (group, r), NULL, NULL };
  other = g_thread_new ("rank 1", solver_thread, &t[1]);
  solver_thread (&t[0]);
  g_thread_join (other);
  a = ct_solver_get_net (alone);
  for (guint r = 0; r < 2; r++)
    {
      CtNet *b;

      g_assert_no_error (t[r].error);
      b = ct_solver_get_net (t[r].solver);
      g_assert_cmpint (ct_solver_get_iter (t[r].solver), ==, 10);
      g_assert_true (ct_solver_is_root (t[r].solver) == (r == 0));
      for (guint i = 0; i < ct_net_n_learnable (a); i++)
        {
          double d = relative_l2 (ct_net_get_learnable (a, i)->blob,
                                  ct_net_get_learnable (b, i)->blob);

          g_test_message ("rank %u, learnable %u: relative L2 %.3g", r, i, d);
          g_assert_cmpfloat (d, <=, 1e-4);
        }
      g_clear_pointer (&t[r].solver, ct_solver_free);
      ct_comm_free (t[r].comm);
    }
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parallel/data-shard", test_shard);
  g_test_add_data_func ("/parallel/single-rank", GINT_TO_POINTER (1), check_single_rank);
  g_test_add_data_func ("/parallel/single-rank-iter-size", GINT_TO_POINTER (3),
                        check_single_rank);
  g_test_add_func ("/parallel/threads/comm", test_threads_comm);
  g_test_add_func ("/parallel/threads/broken", test_threads_broken);
  g_test_add_func ("/parallel/threads/two-solvers", test_two_threads);
  return g_test_run ();
}
