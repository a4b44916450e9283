/* test-cli-net.c: the cortado-cli verbs that build and run nets, run as a
 * user runs them (CT_CLI names the built tool): `forward` reproducing the
 * reference dump of real Caffe record by record and classifying the four
 * Fashion-MNIST images, `forward --stats` against hand-computed
 * statistics, `check --shapes` (table and TSV), `layers`, and their errors
 * and exit codes. */
#include <math.h>
#include <string.h>
#include <glib.h>

#include <glib/gstdio.h>

#include "cli-run.h"
#include "reference-dump.h"

static void
test_forward_dump (void)
{
  g_autofree char *model = ct_test_data_path ("reference/layer_zoo.prototxt");
  g_autofree char *weights = ct_test_data_path ("reference/layer_zoo_seed1701_init.caffemodel");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ct-cli-net-XXXXXX", &error);
  g_autofree char *dump_path = g_build_filename (dir, "zoo.bin", NULL);
  g_autofree char *dump_name = NULL;
  g_auto (CtCliRun) run = ct_cli_run ("forward", "--model", model, "--weights", weights, "--fill",
                          "caffe-ref", "--backward", "--dump", dump_path, NULL);
  g_autoptr (CtTestDump) ref = ct_test_dump_load ("layer_zoo_seed1701.bin");
  g_autoptr (CtTestDump) ours = NULL;
  guint n_bad = 0;

  g_assert_no_error (error);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "loss: 4.54867"));
  g_assert_nonnull (strstr (run.out, "output loss_cls"));

  /* Our dump, read with the reader of Caffe's: the same records in the same
   * order, values within 1e-4. */
  g_assert_nonnull (ref);
  {
    /* The reader looks in $CT_TEST_DATA/reference. */
    g_autofree char *data_root = g_strdup (g_getenv ("CT_TEST_DATA"));
    g_autofree char *moved = NULL;

    g_mkdir (dump_name = g_build_filename (dir, "reference", NULL), 0700);
    moved = g_build_filename (dump_name, "zoo.bin", NULL);
    g_assert_cmpint (g_rename (dump_path, moved), ==, 0);
    g_setenv ("CT_TEST_DATA", dir, TRUE);
    ours = ct_test_dump_load ("zoo.bin");
    g_setenv ("CT_TEST_DATA", data_root, TRUE);
    g_unlink (moved);
  }
  g_rmdir (dump_name);
  g_rmdir (dir);
  g_assert_nonnull (ours);
  g_assert_cmpuint (ours->records->len, ==, 82);
  g_assert_cmpuint (ours->records->len, ==, ref->records->len);
  g_assert_cmpfloat_with_epsilon (ours->loss, ref->loss, 1e-4 * ref->loss);
  for (guint i = 0; i < ref->records->len; i++)
    {
      const CtTestDumpRecord *a = ours->records->pdata[i], *b = ref->records->pdata[i];
      double data_err, diff_err;

      g_assert_cmpint (a->kind, ==, b->kind);
      g_assert_cmpstr (a->name, ==, b->name);
      g_assert_cmpint (a->index, ==, b->index);
      g_assert_cmpuint (a->n_axes, ==, b->n_axes);
      g_assert_cmpmem (a->dims, a->n_axes * sizeof (gint64), b->dims, b->n_axes * sizeof (gint64));
      data_err = ct_test_relative_error (a->data, b->data, a->count);
      diff_err = ct_test_relative_error (a->diff, b->diff, a->count);
      if (!(data_err <= 1e-4 && diff_err <= 1e-4))
        {
          g_test_message ("%s %s[%d]: data %.3e diff %.3e", a->kind ? "param" : "blob", a->name,
                          a->index, data_err, diff_err);
          n_bad++;
        }
    }
  g_assert_cmpuint (n_bad, ==, 0);
}

static void
test_forward_inputs (void)
{
  g_autofree char *model = ct_test_data_path ("reference/lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights = ct_test_data_path ("reference/fashion_lenet_iter_10000.caffemodel");
  g_autofree char *images = ct_test_data_path ("reference/fashion_test4_data.f32");
  g_autofree char *labels = ct_test_data_path ("reference/fashion_test4_label.f32");
  g_autofree char *data_arg = g_strconcat ("data=", images, NULL);
  g_autofree char *label_arg = g_strconcat ("label=", labels, NULL);
  g_autofree char *wrong_arg = g_strconcat ("data=", labels, NULL);
  g_auto (CtCliRun) ok = ct_cli_run ("forward", "--model", model, "--weights", weights, "--input", data_arg,
                         "--input", label_arg, NULL);
  g_auto (CtCliRun) wrong_size = ct_cli_run ("forward", "--model", model, "--input", wrong_arg, NULL);
  g_auto (CtCliRun) no_blob = ct_cli_run ("forward", "--model", model, "--input", "nothing=x.f32", NULL);
  g_auto (CtCliRun) bad_item = ct_cli_run ("forward", "--model", model, "--input", "data", NULL);

  g_assert_cmpint (ok.status, ==, 0);
  g_assert_true (g_str_has_prefix (ok.out, "loss: 0.00038647"));
  g_assert_cmpint (wrong_size.status, ==, 1);
  g_assert_nonnull (strstr (wrong_size.err, "16 bytes"));
  g_assert_nonnull (strstr (wrong_size.err, "'data'"));
  g_assert_cmpint (no_blob.status, ==, 1);
  g_assert_nonnull (strstr (no_blob.err, "'nothing'"));
  g_assert_cmpint (bad_item.status, ==, 2);
}

static void
test_forward_usage (void)
{
  g_autofree char *model = ct_test_data_path ("zoo/mnist/lenet.prototxt");
  g_autofree char *train = ct_test_data_path ("zoo/mnist/lenet_train_test.prototxt");
  g_auto (CtCliRun) no_model = ct_cli_run ("forward", NULL);
  g_auto (CtCliRun) bad_phase = ct_cli_run ("forward", "--model", model, "--phase", "VALIDATE", NULL);
  g_auto (CtCliRun) bad_fill = ct_cli_run ("forward", "--model", model, "--fill", "random", NULL);
  g_auto (CtCliRun) data_layer = ct_cli_run ("forward", "--model", train, "--phase", "TRAIN", NULL);
  g_auto (CtCliRun) zeros = ct_cli_run ("forward", "--model", model, "--seed", "3", NULL);

  g_assert_cmpint (no_model.status, ==, 2);
  g_assert_cmpint (bad_phase.status, ==, 2);
  g_assert_nonnull (strstr (bad_phase.err, "VALIDATE"));
  g_assert_cmpint (bad_fill.status, ==, 2);
  /* A net whose data layer cannot be built: the file, the layer, the type. */
  g_assert_cmpint (data_layer.status, ==, 1);
  g_assert_nonnull (strstr (data_layer.err, "lenet_train_test.prototxt"));
  g_assert_nonnull (strstr (data_layer.err, "'mnist'"));
  g_assert_nonnull (strstr (data_layer.err, "Data"));
  /* Zero inputs through LeNet: ten equal probabilities of 0.1. */
  g_assert_cmpint (zeros.status, ==, 0);
  g_assert_nonnull (strstr (zeros.out, "output prob, shape 64 10 (640): 0.100000001 0.100000001"));
}

static void
test_check_shapes_tsv (void)
{
  g_autofree char *model = ct_test_data_path ("zoo/mnist/lenet.prototxt");
  g_auto (CtCliRun) run = ct_cli_run ("check", "--shapes", "--tsv", model, NULL);
  g_auto (GStrv) lines = NULL;

  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  /* 9 tops and 8 parameter blobs, then the empty rest after the last \n. */
  g_assert_cmpuint (g_strv_length (lines), ==, 9 + 8 + 1);
  g_assert_cmpstr (lines[0], ==, "data\tInput\ttop\tdata\t64 1 28 28");
  g_assert_cmpstr (lines[1], ==, "conv1\tConvolution\ttop\tconv1\t64 20 24 24");
  g_assert_cmpstr (lines[2], ==, "conv1\tConvolution\tparam\t0\t20 1 5 5");
  g_assert_cmpstr (lines[3], ==, "conv1\tConvolution\tparam\t1\t20");
  g_assert_cmpstr (lines[10], ==, "ip1\tInnerProduct\tparam\t0\t500 800");
  g_assert_cmpstr (lines[12], ==, "relu1\tReLU\ttop\tip1\t64 500");
  g_assert_cmpstr (lines[16], ==, "prob\tSoftmax\ttop\tprob\t64 10");
}

static void
test_check_shapes_table (void)
{
  g_autofree char *model = ct_test_data_path ("reference/layer_zoo.prototxt");
  g_autofree char *train = ct_test_data_path ("zoo/mnist/lenet_train_test.prototxt");
  g_auto (CtCliRun) run = ct_cli_run ("check", "--shapes", model, NULL);
  g_auto (CtCliRun) broken = ct_cli_run ("check", "--shapes", "--phase", "TRAIN", train, NULL);
  g_auto (CtCliRun) bad_phase = ct_cli_run ("check", "--shapes", "--phase", "NOW", model, NULL);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "net 'LayerZoo' in phase TEST: 47 layers"));
  /* Split layers are listed. */
  g_assert_nonnull (strstr (run.out, "elu1_elu1_0_split"));
  g_assert_nonnull (strstr (run.out, "total: "));
  /* The data layer fails; the rest is listed without shapes. */
  g_assert_cmpint (broken.status, ==, 1);
  g_assert_nonnull (strstr (broken.err, "'mnist'"));
  g_assert_nonnull (strstr (broken.err, "8 layers have no shapes"));
  g_assert_nonnull (strstr (broken.out, "unknown"));
  g_assert_cmpint (bad_phase.status, ==, 2);
}

static void
test_layers (void)
{
  g_auto (CtCliRun) run = ct_cli_run ("layers", "--tsv", NULL);
  g_auto (CtCliRun) table = ct_cli_run ("layers", NULL);
  g_auto (GStrv) lines = NULL;

  g_assert_cmpint (run.status, ==, 0);
  lines = g_strsplit (run.out, "\n", -1);
  g_test_message ("%u layer types", g_strv_length (lines) - 1);
  g_assert_cmpuint (g_strv_length (lines) - 1, >=, 55);
  g_assert_nonnull (strstr (run.out, "\nLSTM\tRecurrent\t"));
  g_assert_nonnull (strstr (run.out, "\nRNN\tRecurrent\t"));
  g_assert_true (g_str_has_prefix (run.out, "Input\tData\t"));
  g_assert_cmpint (table.status, ==, 0);
  g_assert_true (g_str_has_prefix (table.out, "TYPE"));
}

static char *
write_floats (const char *dir, const char *name, const float *values, gsize n)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  /* Little-endian float32, as --input reads (the test machines are). */
  g_assert_cmpint (G_BYTE_ORDER, ==, G_LITTLE_ENDIAN);
  g_assert_true (g_file_set_contents (path, (const char *) values, (gssize) (n * sizeof (float)),
                                      &error));
  g_assert_no_error (error);
  return path;
}

/* x = (1, -2, 0, 3) → ReLU → y = (1, 0, 0, 3) → loss = sum y = 4, so the
 * diffs are 1 for y and the loss, and (1, 0, 0, 1) for x. Every number
 * below is worked out by hand: x's mean 0.5, deviations ±0.5 and ±2.5, so
 * std √(13/4); y's std √(6/4); health ‖dx‖/‖x‖ = √2/√14, ‖dy‖/‖y‖ = 2/√10;
 * x's histogram over [-2, 3] in 32 bins of 5/32 puts -2, 0, 1 and 3 in
 * bins 0, 12, 19 and 31. */
static void
test_forward_stats (void)
{
  static const char net[] =
    "name: 'stats' force_backward: true\n"
    "layer { name: 'x' type: 'Input' top: 'x' input_param { shape { dim: 1 dim: 4 } } }\n"
    "layer { name: 'r' type: 'ReLU' bottom: 'x' top: 'y' }\n"
    "layer { name: 'loss' type: 'Reduction' bottom: 'y' top: 'loss' loss_weight: 1\n"
    "  reduction_param { operation: SUM } }\n";
  static const char want[] =
    "blob\tpart\tshape\tcount\tmin\tmax\tmean\tstd\tl2\tzeros\tnan\tinf\thealth"
    "\thistogram\n"
    "x\tdata\t1x4\t4\t-2\t3\t0.5\t1.80277564\t3.74165739\t0.25\t0\t0\t-\t"
    "1,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,1\n"
    "x\tdiff\t1x4\t4\t0\t1\t0.5\t0.5\t1.41421356\t0.5\t0\t0\t0.377964473\t"
    "2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2\n"
    "y\tdata\t1x4\t4\t0\t3\t1\t1.22474487\t3.16227766\t0.5\t0\t0\t-\t"
    "2,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1\n"
    "y\tdiff\t1x4\t4\t1\t1\t1\t0\t2\t0\t0\t0\t0.632455532\t"
    "4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "loss\tdata\tscalar\t1\t4\t4\t4\t0\t4\t0\t0\t0\t-\t"
    "1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
    "loss\tdiff\tscalar\t1\t1\t1\t1\t0\t1\t0\t0\t0\t0.25\t"
    "1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n";
  static const float x[] = { 1, -2, 0, 3 };
  static const float odd[] = { NAN, -INFINITY, 4, 0 };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ct-cli-stats-XXXXXX", &error);
  g_autofree char *model = g_build_filename (dir, "net.prototxt", NULL);
  g_autofree char *x_path = write_floats (dir, "x.f32", x, 4);
  g_autofree char *odd_path = write_floats (dir, "odd.f32", odd, 4);
  g_autofree char *x_arg = g_strconcat ("x=", x_path, NULL);
  g_autofree char *odd_arg = g_strconcat ("x=", odd_path, NULL);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (model, net, -1, &error));
  {
    g_auto (CtCliRun) run = ct_cli_run ("forward", "--model", model, "--input", x_arg, "--stats",
                                        "--backward", NULL);
    g_auto (CtCliRun) forward_only = ct_cli_run ("forward", "--model", model, "--input", x_arg,
                                                 "--stats", NULL);
    /* NaN and infinities are counted, and left out of the moments: the
     * finite values are 4 and 0. */
    g_auto (CtCliRun) nonfinite = ct_cli_run ("forward", "--model", model, "--input", odd_arg,
                                              "--stats", NULL);
    g_auto (GStrv) lines = NULL;

    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.out, ==, want);
    g_assert_cmpint (forward_only.status, ==, 0);
    lines = g_strsplit (forward_only.out, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 5); /* header, x, y, loss, "" */
    g_assert_true (g_str_has_prefix (lines[1], "x\tdata\t"));
    g_assert_true (g_str_has_prefix (lines[2], "y\tdata\t"));
    g_assert_cmpint (nonfinite.status, ==, 0);
    g_assert_nonnull (strstr (nonfinite.out,
                              "\nx\tdata\t1x4\t4\t0\t4\t2\t2\t4\t0.25\t1\t1\t-\t"
                              "1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
                              "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1\n"));
  }
  g_unlink (x_path);
  g_unlink (odd_path);
  g_unlink (model);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("CT_CLI") == NULL || g_getenv ("CT_TEST_DATA") == NULL)
    g_error ("CT_CLI and CT_TEST_DATA must name the built cortado-cli and tests/data");

  g_test_add_func ("/app/cli-net/forward/dump", test_forward_dump);
  g_test_add_func ("/app/cli-net/forward/inputs", test_forward_inputs);
  g_test_add_func ("/app/cli-net/forward/usage", test_forward_usage);
  g_test_add_func ("/app/cli-net/forward/stats", test_forward_stats);
  g_test_add_func ("/app/cli-net/check-shapes/tsv", test_check_shapes_tsv);
  g_test_add_func ("/app/cli-net/check-shapes/table", test_check_shapes_table);
  g_test_add_func ("/app/cli-net/layers", test_layers);
  return g_test_run ();
}
