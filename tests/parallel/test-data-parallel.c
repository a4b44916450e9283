/* test-data-parallel.c: the parts of data-parallel training that need no
 * MPI launcher: the Data layer's share of the records for each rank (and
 * the TEST phase reading all of them), and a solver joined to a
 * single-rank communicator training exactly as one alone (the bucketed,
 * overlapped exchange then averages over one rank, which must change no
 * bit). */
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
  "   data_param { source: '%s' batch_size: 8 backend: LMDB } }"
  " layer { name: 'ip1' type: 'InnerProduct' bottom: 'data' top: 'ip1'"
  "   inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }"
  " layer { name: 'relu' type: 'ReLU' bottom: 'ip1' top: 'ip1' }"
  " layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'"
  "   inner_product_param { num_output: 7 weight_filler { type: 'xavier' } } }"
  " layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' } }"
  " base_lr: 0.05 momentum: 0.9 weight_decay: 0.001 lr_policy: 'fixed' max_iter: 10"
  " random_seed: 5 iter_size: %d snapshot_prefix: '%s/s'";

static CtSolver *
make_solver (const char *dir, const char *db, int iter_size)
{
  g_autofree char *text = g_strdup_printf (solver_text, db, iter_size, dir);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parallel/data-shard", test_shard);
  g_test_add_data_func ("/parallel/single-rank", GINT_TO_POINTER (1), check_single_rank);
  g_test_add_data_func ("/parallel/single-rank-iter-size", GINT_TO_POINTER (3),
                        check_single_rank);
  return g_test_run ();
}
