/* bench-lenet-solver.c: the training benchmarks' solver and the
 * `cortado-cli train` process timed on it (see bench-lenet-solver.h). */
#include <stdio.h>
#include <string.h>

#include "bench-lenet-solver.h"
#include "solver.h"
#include "text-format.h"

/* The fallback, when the example or the dataset is missing. */
static const char dummy_lenet[] =
  "net_param { name: 'LeNet' "
  "  layer { name: 'mnist' type: 'DummyData' top: 'data' top: 'label' "
  "    dummy_data_param { shape { dim: 64 dim: 1 dim: 28 dim: 28 } shape { dim: 64 } "
  "      data_filler { type: 'uniform' min: 0 max: 1 } "
  "      data_filler { type: 'uniform' min: 0 max: 9.99 } } } "
  "  layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1' "
  "    convolution_param { num_output: 20 kernel_size: 5 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1' "
  "    pooling_param { pool: MAX kernel_size: 2 stride: 2 } } "
  "  layer { name: 'conv2' type: 'Convolution' bottom: 'pool1' top: 'conv2' "
  "    convolution_param { num_output: 50 kernel_size: 5 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'pool2' type: 'Pooling' bottom: 'conv2' top: 'pool2' "
  "    pooling_param { pool: MAX kernel_size: 2 stride: 2 } } "
  "  layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool2' top: 'ip1' "
  "    inner_product_param { num_output: 500 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'ip1' } "
  "  layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2' "
  "    inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' } "
  "} "
  "base_lr: 0.01 momentum: 0.9 weight_decay: 0.0005 lr_policy: 'inv' gamma: 0.0001 "
  "power: 0.75 display: 100 random_seed: 1701 ";

Caffe__SolverParameter *
ct_bench_parse_solver (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *m = ct_text_parse (&caffe__solver_parameter__descriptor, text, -1, NULL,
                                       CT_TEXT_STRICT, &error);

  if (m == NULL)
    g_error ("%s", error->message);
  return (Caffe__SolverParameter *) m;
}

static gboolean
convert (const char *cli, const char *dataset, const char *set, const char *db)
{
  g_autofree char *images = g_strdup_printf ("%s/%s-images-idx3-ubyte.gz", dataset, set);
  g_autofree char *labels = g_strdup_printf ("%s/%s-labels-idx1-ubyte.gz", dataset, set);
  const char *argv[] = { cli, "convert", "mnist", images, labels, db, NULL };
  int status = 0;

  return g_spawn_sync (NULL, (char **) argv, NULL,
                       G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                       NULL, NULL, &status, NULL) &&
         g_spawn_check_wait_status (status, NULL);
}

/* The example's solver and net in WORKDIR with their LMDBs, or NULL. */
static Caffe__SolverParameter *
example_solver (const char *workdir, const char *cli)
{
  const char *examples = g_getenv ("CT_EXAMPLES");
  const char *dataset = g_getenv ("CT_FASHION_MNIST");
  g_autofree char *folder = NULL, *solver = NULL, *net = NULL, *text = NULL, *copy = NULL;
  g_autofree char *train_db = g_build_filename (workdir, "fashion_train_lmdb", NULL);
  g_autofree char *test_db = g_build_filename (workdir, "fashion_test_lmdb", NULL);

  if (dataset == NULL)
    dataset = "/usr/share/datasets/fashion-mnist";
  if (examples == NULL || cli == NULL)
    return NULL;
  folder = g_build_filename (examples, "lenet-fashion", NULL);
  solver = g_build_filename (folder, "lenet_solver.prototxt", NULL);
  net = g_build_filename (folder, "lenet_train_test.prototxt", NULL);
  copy = g_build_filename (workdir, "lenet_train_test.prototxt", NULL);
  if (!g_file_get_contents (net, &text, NULL, NULL) ||
      !g_file_set_contents (copy, text, -1, NULL) ||
      !convert (cli, dataset, "train", train_db) || !convert (cli, dataset, "t10k", test_db))
    return NULL;
  return ct_solver_param_load_file (solver, NULL);
}

Caffe__SolverParameter *
ct_bench_lenet_solver (const char *workdir, const char *cli, int iters, char **solver_path,
                       char **description)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param = example_solver (workdir, cli), *read;

  if (param != NULL)
    *description = g_strdup ("the lenet-fashion example's solver, Fashion-MNIST LMDB");
  else
    {
      param = ct_bench_parse_solver (dummy_lenet);
      *description = g_strdup ("LeNet on DummyData (the example or its dataset is missing)");
    }
  /* Training iterations only: no test at 0 (test_interval stays above
   * max_iter), no snapshot files. */
  param->has_max_iter = TRUE;
  param->max_iter = iters;
  param->has_test_initialization = TRUE;
  param->test_initialization = FALSE;
  param->has_snapshot_after_train = TRUE;
  param->snapshot_after_train = FALSE;
  param->has_snapshot = TRUE;
  param->snapshot = 0;
  *solver_path = g_build_filename (workdir, "lenet_solver.prototxt", NULL);
  text = ct_text_print (&param->base);
  if (!g_file_set_contents (*solver_path, text, -1, &error))
    g_error ("%s", error->message);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  /* Read back, so that every contender trains what the file says. */
  read = ct_solver_param_load_file (*solver_path, &error);
  if (read == NULL)
    g_error ("%s", error->message);
  return read;
}

/* Seconds since midnight of the glog line holding MARKER, or -1. */
static double
log_stamp (const char *log, const char *marker)
{
  const char *at = strstr (log, marker);
  int hours, minutes, seconds, micro;

  if (at == NULL)
    return -1;
  while (at > log && at[-1] != '\n')
    at--;
  if (sscanf (at, "%*c%*4d %d:%d:%d.%d", &hours, &minutes, &seconds, &micro) != 4)
    return -1;
  return hours * 3600.0 + minutes * 60.0 + seconds + micro / 1e6;
}

void
ct_bench_run_cli (const char *cli, const char *solver_path, double *train, double *total)
{
  g_autofree char *flag = g_strdup_printf ("--solver=%s", solver_path);
  const char *argv[] = { cli, "train", flag, NULL };
  g_autofree char *log = NULL;
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  double begin, end;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     &log, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("cortado-cli train: %s\n%s", error->message, log != NULL ? log : "");
  *total = (double) (g_get_monotonic_time () - start) / 1e6;
  begin = log_stamp (log, "Starting Optimization");
  end = log_stamp (log, "Optimization Done.");
  if (begin < 0 || end < 0)
    g_error ("cortado-cli train logged no optimization stamps:\n%s", log);
  *train = end >= begin ? end - begin : end + 86400 - begin;
}
