/* test-cli.c: cortado-cli run as a user runs it (CT_CLI names the built
 * binary): exit codes, messages on good and bad files, format --in-place
 * keeping unknown fields, upgrade output that parses strictly, and info
 * on the reference LeNet caffemodel. */
#include <glib/gstdio.h>
#include <string.h>

#include "cli-run.h"
#include "binary-io.h"
#include "caffe.pb-c.h"
#include "proto-file.h"
#include "text-format.h"
#include "upgrade.h"
#include "test-files.h"

static char *
make_temp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ct-cli-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static char *
write_temp (const char *dir, const char *name, const char *contents)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

static guint
count_lines_with (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = text; (p = strstr (p, needle)) != NULL; p += strlen (needle))
    n++;
  return n;
}

static void
test_help (void)
{
  g_auto(CtCliRun) help = ct_cli_run ("--help", NULL);
  g_auto(CtCliRun) none = ct_cli_run (NULL);
  g_auto(CtCliRun) bogus = ct_cli_run ("bogus", NULL);
  g_auto(CtCliRun) verb_help = ct_cli_run ("check", "--help", NULL);
  g_auto(CtCliRun) bad_option = ct_cli_run ("check", "--no-such-option", "x", NULL);

  g_assert_cmpint (help.status, ==, 0);
  for (const char *const *v = (const char *const[]) { "check", "format", "upgrade", "info",
                                                      "Exit status", "0  success",
                                                      "1  an input file has errors",
                                                      "2  the command line is wrong", NULL };
       *v != NULL; v++)
    g_assert_nonnull (strstr (help.out, *v));

  g_assert_cmpint (none.status, ==, 2);
  g_assert_nonnull (strstr (none.err, "Usage:"));
  g_assert_cmpint (bogus.status, ==, 2);
  g_assert_nonnull (strstr (bogus.err, "unknown command 'bogus'"));

  g_assert_cmpint (verb_help.status, ==, 0);
  g_assert_nonnull (strstr (verb_help.out, "cortado-cli check"));
  g_assert_nonnull (strstr (verb_help.out, "--lenient"));
  g_assert_nonnull (strstr (verb_help.out, "Exit status"));
  g_assert_cmpint (bad_option.status, ==, 2);
}

static void
test_check_good (void)
{
  g_autofree char *net = ct_test_data_path ("zoo/mnist/lenet_train_test.prototxt");
  g_autofree char *solver = ct_test_data_path ("zoo/mnist/lenet_solver.prototxt");
  g_autofree char *v1 = ct_test_data_path ("zoo/legacy_v1_lenet/lenet_train_test.prototxt");
  g_auto(CtCliRun) run = ct_cli_run ("check", net, solver, v1, NULL);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_nonnull (strstr (run.out, "lenet_train_test.prototxt: ok (net 'LeNet', 11 layers)"));
  g_assert_nonnull (strstr (run.out, "lenet_solver.prototxt: ok (solver, type SGD)"));
  g_assert_nonnull (strstr (run.out, "legacy_v1_lenet/lenet_train_test.prototxt: upgraded V1 "
                                     "layer 'conv1' (CONVOLUTION) to Convolution"));
}

static void
test_check_bad (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *typo = write_temp (dir, "typo.prototxt",
                                      "name: 'n'\n"
                                      "layer {\n"
                                      "  name: 'c'\n"
                                      "  type: 'Convolution'\n"
                                      "  convolution_param {\n"
                                      "    kernal_size: 5\n"
                                      "    num_outputs: 2\n"
                                      "  }\n"
                                      "}\n"
                                      "layer {\n"
                                      "  name: 'p'\n"
                                      "  type: 'Pooling'\n"
                                      "  pooling_param { pool: MAXX }\n"
                                      "}\n");
  g_autofree char *syntax = write_temp (dir, "syntax.prototxt", "name: 'n'\nlayer {\n");
  g_autofree char *missing = g_build_filename (dir, "missing.prototxt", NULL);
  g_autofree char *good = ct_test_data_path ("zoo/mnist/lenet.prototxt");
  g_autofree char *expected1 = g_strdup_printf ("%s:6:5: unknown field 'kernal_size' in "
                                                "ConvolutionParameter\n", typo);
  g_autofree char *expected2 = g_strdup_printf ("%s:7:5: unknown field 'num_outputs' in "
                                                "ConvolutionParameter\n", typo);
  g_autofree char *expected3 = g_strdup_printf ("%s:13:25: invalid value 'MAXX' for enum "
                                                "field 'pool' in PoolingParameter\n", typo);
  g_autofree char *syntax_prefix = g_strdup_printf ("%s:", syntax);
  /* a field only V2 has is an error in a V1 file, before any upgrade */
  g_autofree char *v1 = write_temp (dir, "v1.prototxt",
                                    "layers { name: 'x' type: RELU propagate_down: true }\n");
  g_autofree char *expected4 = g_strdup_printf ("%s:1:31: unknown field 'propagate_down' in "
                                                "V1LayerParameter\n", v1);
  g_auto(CtCliRun) run = ct_cli_run ("check", typo, good, syntax, missing, v1, NULL);

  g_assert_cmpint (run.status, ==, 1);
  /* every unknown field, not only the first */
  g_assert_nonnull (strstr (run.err, expected1));
  g_assert_nonnull (strstr (run.err, expected2));
  g_assert_nonnull (strstr (run.err, expected3));
  g_assert_nonnull (strstr (run.err, expected4));
  g_assert_nonnull (strstr (run.err, syntax_prefix));
  g_assert_nonnull (strstr (run.err, "missing.prototxt: could not read"));
  /* the good file in between is still checked */
  g_assert_nonnull (strstr (run.out, "lenet.prototxt: ok"));
  ct_test_remove_tree (dir);
}

/* A net whose layers loop (a bottom made only below) or read a blob no
 * layer makes passes the parser: check says so, at the layer's place. */
static void
test_check_connections (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *loop = write_temp (dir, "loop.prototxt",
                                      "name: 'loop'\n"
                                      "layer { name: 'in' type: 'Input' top: 'data'\n"
                                      "  input_param { shape { dim: 1 dim: 3 } } }\n"
                                      "  layer { name: 'a' type: 'ReLU' bottom: 'b' top: 'a' }\n"
                                      "layer { name: 'b' type: 'ReLU' bottom: 'a' top: 'b' }\n");
  g_autofree char *orphan = write_temp (dir, "orphan.prototxt",
                                        "layer { name: 'r' type: 'ReLU' bottom: 'x' top: 'y' }\n");
  /* layers for other phases and stages make what they make for all */
  g_autofree char *phases = write_temp (dir, "phases.prototxt",
                                        "layer { name: 'in' type: 'Input' top: 'x'\n"
                                        "  include { phase: TEST stage: 'deploy' }\n"
                                        "  input_param { shape { dim: 1 } } }\n"
                                        "layer { name: 'r' type: 'ReLU' bottom: 'x' top: 'y' }\n");
  g_autofree char *expected1 = g_strdup_printf ("%s:4:3: layer 'a': bottom 'b' is made only by "
                                                "layer 'b' below it", loop);
  g_autofree char *expected2 = g_strdup_printf ("%s:1:1: layer 'r': no layer makes its bottom "
                                                "'x'", orphan);
  g_auto(CtCliRun) run = ct_cli_run ("check", loop, orphan, phases, NULL);

  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, expected1));
  g_assert_nonnull (strstr (run.err, expected2));
  g_assert_nonnull (strstr (run.out, "phases.prototxt: ok"));
  ct_test_remove_tree (dir);
}

static void
test_check_lenient (void)
{
  g_autofree char *path = ct_test_data_path ("zoo/resnext50/deploy_resnext50-32x4d.prototxt");
  g_auto(CtCliRun) strict = ct_cli_run ("check", path, NULL);
  g_auto(CtCliRun) lenient = ct_cli_run ("check", "--lenient", path, NULL);
  g_autofree char *first = g_strdup_printf ("%s:55:5: unknown field 'ceil_mode' in "
                                            "PoolingParameter", path);

  g_assert_cmpint (strict.status, ==, 1);
  g_assert_nonnull (strstr (strict.err, first));
  g_assert_cmpint (lenient.status, ==, 0);
  g_assert_cmpuint (count_lines_with (lenient.out, "kept unknown field 'ceil_mode' in "
                                                   "PoolingParameter"),
                    ==, count_lines_with (strict.err, "unknown field 'ceil_mode'"));
  g_assert_cmpuint (count_lines_with (lenient.out, "kept unknown field"), ==, 1);
  g_assert_nonnull (strstr (lenient.out, "moved net input 'data' (1×3×224×224) into an Input "
                                         "layer"));
}

static void
test_format (void)
{
  g_autofree char *path = ct_test_data_path ("zoo/mnist/lenet.prototxt");
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_auto(CtCliRun) run = ct_cli_run ("format", path, NULL);
  g_auto(CtCliRun) two = ct_cli_run ("format", path, path, NULL);
  ProtobufCMessage *msg;

  msg = ct_text_parse_file (&caffe__net_parameter__descriptor, path, CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  expected = ct_text_print (msg);
  protobuf_c_message_free_unpacked (msg, NULL);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, expected);
  g_assert_cmpint (two.status, ==, 2);
}

static void
test_format_in_place (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *path = write_temp (dir, "fork.prototxt",
                                      "name:'fork'  # a comment\n"
                                      "layer { name: 'p' type: 'Pooling'\n"
                                      "  pooling_param { pool: MAX kernel_size: 2 ceil_mode: true }\n"
                                      "  prior_box_param { min_size: 30 }}\n");
  g_autofree char *broken = write_temp (dir, "broken.prototxt", "layer { name: 'x'\n");
  g_autofree char *after = NULL, *after_broken = NULL;
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;

  {
    g_auto(CtCliRun) strict = ct_cli_run ("format", path, NULL);
    g_assert_cmpint (strict.status, ==, 1);
    g_assert_nonnull (strstr (strict.err, "unknown field 'ceil_mode'"));
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("format", "--in-place", path, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "rewritten"));
  }
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_test_message ("%s", after);
  g_assert_nonnull (strstr (after, "ceil_mode: true"));
  g_assert_nonnull (strstr (after, "prior_box_param"));
  g_assert_nonnull (strstr (after, "min_size: 30"));
  g_assert_true (g_str_has_prefix (after, "name: \"fork\"\n"));
  msg = ct_text_parse (&caffe__net_parameter__descriptor, after, -1, "after", CT_TEXT_LENIENT,
                       &error);
  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (msg, NULL);
  {
    g_auto(CtCliRun) again = ct_cli_run ("format", "-i", path, NULL);
    g_assert_cmpint (again.status, ==, 0);
    g_assert_nonnull (strstr (again.out, "already in canonical form"));
  }
  {
    g_auto(CtCliRun) bad = ct_cli_run ("format", "--in-place", broken, NULL);
    g_assert_cmpint (bad.status, ==, 1);
  }
  g_assert_true (g_file_get_contents (broken, &after_broken, NULL, NULL));
  g_assert_cmpstr (after_broken, ==, "layer { name: 'x'\n");
  ct_test_remove_tree (dir);
}

static void
test_upgrade (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "lenet_v2.prototxt", NULL);
  g_autofree char *legacy = ct_test_data_path ("zoo/legacy_v1_lenet/lenet_train_test.prototxt");
  g_autofree char *v2 = ct_test_data_path ("zoo/mnist/lenet_train_test.prototxt");
  g_autofree char *solver = ct_test_data_path ("zoo/legacy_v1_solver_type/"
                                       "mnist_autoencoder_solver_nesterov.prototxt");
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  ProtobufCMessage *msg;

  {
    g_auto(CtCliRun) run = ct_cli_run ("upgrade", legacy, out, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "upgraded V1 layer 'ip2' (INNER_PRODUCT) to InnerProduct"));
  }
  /* the output parses strictly, needs no upgrade, and is BVLC's V2 file */
  msg = ct_text_parse_file (&caffe__net_parameter__descriptor, out, CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  g_assert_false (ct_net_needs_upgrade ((Caffe__NetParameter *) msg));
  protobuf_c_message_free_unpacked (msg, NULL);
  g_assert_true (g_file_get_contents (out, &written, NULL, NULL));
  {
    g_auto(CtCliRun) formatted = ct_cli_run ("format", v2, NULL);
    g_assert_cmpstr (written, ==, formatted.out);
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("upgrade", solver, "-", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "type: \"Nesterov\""));
    g_assert_null (strstr (run.out, "solver_type"));
    g_assert_nonnull (strstr (run.err, "upgraded solver_type NESTEROV"));
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("upgrade", legacy, NULL);
    g_assert_cmpint (run.status, ==, 2);
  }
  {
    g_autofree char *missing = g_build_filename (dir, "missing.prototxt", NULL);
    g_auto(CtCliRun) run = ct_cli_run ("upgrade", missing, out, NULL);
    g_assert_cmpint (run.status, ==, 1);
  }
  ct_test_remove_tree (dir);
}

static void
test_info_caffemodel (void)
{
  g_autofree char *path = ct_test_data_path ("reference/fashion_lenet_iter_10000.caffemodel");
  g_auto(CtCliRun) run = ct_cli_run ("info", path, NULL);
  static const char *const lines[] = {
    "net: LeNet\n",
    "conv1  Convolution      20×1×5×5, 20\n",
    "conv2  Convolution      50×20×5×5, 50\n",
    "ip1    InnerProduct     500×800, 500\n",
    "ip2    InnerProduct     10×500, 10\n",
    "pool1  Pooling          -\n",
    "total: 431080 parameters in 8 blobs (4 of 9 layers have parameters)\n",
  };

  g_test_message ("%s", run.out);
  g_assert_cmpint (run.status, ==, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (lines); i++)
    g_assert_nonnull (strstr (run.out, lines[i]));
}

static void
test_info_other_files (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *model = ct_test_data_path ("reference/fashion_lenet_iter_10000.caffemodel");
  g_autofree char *contents = NULL;
  g_autofree char *cut = NULL, *renamed = NULL, *mean = NULL, *state = NULL, *text = NULL;
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;
  gsize length;

  g_assert_true (g_file_get_contents (model, &contents, &length, &error));
  cut = g_build_filename (dir, "cut.caffemodel", NULL);
  g_assert_true (g_file_set_contents (cut, contents, 5000, NULL));
  renamed = g_build_filename (dir, "weights.bin", NULL);
  g_assert_true (g_file_set_contents (renamed, contents, length, NULL));

  mean = g_build_filename (dir, "mean.binaryproto", NULL);
  msg = ct_text_parse (&caffe__blob_proto__descriptor,
                       "shape { dim: 1 dim: 3 dim: 4 dim: 4 } data: 1", -1, "mean",
                       CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  g_assert_true (ct_binary_write_file (msg, mean, &error));
  protobuf_c_message_free_unpacked (msg, NULL);

  state = g_build_filename (dir, "lenet_iter_123.solverstate", NULL);
  msg = ct_text_parse (&caffe__solver_state__descriptor,
                       "iter: 123 current_step: 1 learned_net: 'lenet_iter_123.caffemodel'\n"
                       "history { shape { dim: 20 dim: 1 dim: 5 dim: 5 } }\n"
                       "history { num: 1 channels: 1 height: 1 width: 20 }\n", -1, "state",
                       CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  g_assert_true (ct_binary_write_file (msg, state, &error));
  protobuf_c_message_free_unpacked (msg, NULL);

  text = ct_test_data_path ("zoo/mnist/lenet.prototxt");
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", cut, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "cut.caffemodel: truncated at byte 5000 while reading"));
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", renamed, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "conv1  Convolution      20×1×5×5, 20\n"));
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", mean, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.out, ==, "blob: 1×3×4×4 (48 values)\n");
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", state, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.out, ==, "iter: 123\ncurrent_step: 1\n"
                                  "learned_net: lenet_iter_123.caffemodel\n"
                                  "history: 2 blobs\n  1: 20×1×5×5\n  2: 1×1×1×20\n");
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", text, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "not a protobuf file"));
  }
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", NULL);
    g_assert_cmpint (run.status, ==, 2);
  }
  ct_test_remove_tree (dir);
}

/* What a save killed midway left (NAME.caffemodel.XXXXXX) is named as
 * such and read as what it was going to be. */
static void
test_info_unfinished_save (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *model = ct_test_data_path ("reference/fashion_lenet_iter_10000.caffemodel");
  g_autofree char *contents = NULL;
  g_autofree char *left = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (model, &contents, &length, NULL));
  left = g_build_filename (dir, "lenet_iter_100.caffemodel.ZE6OZ3", NULL);
  g_assert_true (g_file_set_contents (left, contents, 5000, NULL));
  {
    g_auto(CtCliRun) run = ct_cli_run ("info", left, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "read as "));
    g_assert_nonnull (strstr (run.err, "a save of "));
    g_assert_nonnull (strstr (run.err, "lenet_iter_100.caffemodel that did not finish"));
    g_assert_nonnull (strstr (run.err, "truncated at byte 5000"));
  }
  ct_test_remove_tree (dir);
}

/* A run that never asks for a GPU never opens the CUDA module (nor,
 * through it, the CUDA runtime and cuBLAS). */
static void
test_layers_no_cuda (void)
{
  g_setenv ("LD_DEBUG", "files", TRUE);
  {
    g_auto (CtCliRun) run = ct_cli_run ("layers", NULL);

    g_unsetenv ("LD_DEBUG");
    g_assert_cmpint (run.status, ==, 0);
    g_assert_null (strstr (run.err, "libctcuda"));
    g_assert_null (strstr (run.err, "libcublas"));
    g_assert_null (strstr (run.err, "libcudart"));
  }
}

/* device_query says why there is no GPU: here, no module where it looks. */
static void
test_device_query_no_module (void)
{
  g_setenv ("CT_CUDA_MODULE", "/nonexistent/libctcuda.so", TRUE);
  {
    g_auto (CtCliRun) run = ct_cli_run ("device_query", NULL);

    g_unsetenv ("CT_CUDA_MODULE");
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "CPU kernels: "));
    if (CT_HAVE_CUDA)
      g_assert_nonnull (strstr (run.err, "no GPU available: Cortado's CUDA module "
                                         "/nonexistent/libctcuda.so is missing"));
    else
      g_assert_nonnull (strstr (run.err, "no GPU available: Cortado was built without CUDA"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("CT_CLI") == NULL || g_getenv ("CT_TEST_DATA") == NULL)
    g_error ("CT_CLI and CT_TEST_DATA must name the built cortado-cli and tests/data");

  g_test_add_func ("/app/cli/help", test_help);
  g_test_add_func ("/app/cli/check/good", test_check_good);
  g_test_add_func ("/app/cli/check/bad", test_check_bad);
  g_test_add_func ("/app/cli/check/lenient", test_check_lenient);
  g_test_add_func ("/app/cli/check/connections", test_check_connections);
  g_test_add_func ("/app/cli/format/stdout", test_format);
  g_test_add_func ("/app/cli/format/in-place", test_format_in_place);
  g_test_add_func ("/app/cli/upgrade", test_upgrade);
  g_test_add_func ("/app/cli/info/caffemodel", test_info_caffemodel);
  g_test_add_func ("/app/cli/info/other-files", test_info_other_files);
  g_test_add_func ("/app/cli/info/unfinished-save", test_info_unfinished_save);
  g_test_add_func ("/app/cli/layers/no-cuda", test_layers_no_cuda);
  g_test_add_func ("/app/cli/device-query/no-module", test_device_query_no_module);

  return g_test_run ();
}
