/* test-cli-analysis.c: cortado-cli confusion, explain, top-activations and
 * diff as a user runs them: the confusion matrix's accuracy is the one
 * `test` prints for Caffe's trained LeNet on the Fashion-MNIST test set,
 * and diff's exit status says equal (0), different (1) or trouble (2). */
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-files.h"

#define FASHION "/usr/share/datasets/fashion-mnist/"

typedef struct {
  int status;
  char *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static Run
cli_in (const char *dir, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  Run r = { 0 };
  const char *arg;
  int wait_status = 0;
  va_list args;

  g_ptr_array_add (argv, (char *) g_getenv ("CT_CLI"));
  va_start (args, dir);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &r.out, &r.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r.status = WEXITSTATUS (wait_status);
  g_test_message ("%s", r.err);
  return r;
}

static char *
reference (const char *name)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", name, NULL);
}

static void
test_diff (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-cli-diff-XXXXXX");
  g_autofree char *a = g_build_filename (dir, "a.prototxt", NULL);
  g_autofree char *b = g_build_filename (dir, "b.prototxt", NULL);
  g_autofree char *model = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *other = reference ("layer_zoo_seed1701_init.caffemodel");
  const char *net = "layer { name: 'x' type: 'Input' top: 'x' "
                    "input_param { shape { dim: 1 } } }\n";

  g_assert_true (g_file_set_contents (a, net, -1, NULL));
  g_assert_true (g_file_set_contents (b, "# the same\n", -1, NULL));
  {
    g_autofree char *text = g_strconcat ("# the same\n", net, NULL);

    g_assert_true (g_file_set_contents (b, text, -1, NULL));
  }
  {
    g_auto (Run) r = cli_in (dir, "diff", a, b, NULL);

    g_assert_cmpint (r.status, ==, 0);
    g_assert_cmpstr (r.out, ==, "");
  }
  g_assert_true (g_file_set_contents (b, "layer { name: 'y' type: 'Input' top: 'x' "
                                         "input_param { shape { dim: 2 } } }\n", -1, NULL));
  {
    g_auto (Run) r = cli_in (dir, "diff", a, b, NULL);

    g_assert_cmpint (r.status, ==, 1);
    g_assert_cmpstr (r.out, ==, "- layer 'x' (Input)\n+ layer 'y' (Input)\n");
  }
  {
    g_auto (Run) r = cli_in (dir, "diff", model, model, NULL);

    g_assert_cmpint (r.status, ==, 0);
    g_assert_nonnull (strstr (r.out, "\nconv1\t0\t20 1 5 5\t"));
  }
  {
    g_auto (Run) r = cli_in (dir, "diff", model, other, NULL);

    g_assert_cmpint (r.status, ==, 1);
    g_assert_nonnull (strstr (r.out, "# conv1 0: shape 20 1 5 5 -> 8 2 3 3\n"));
    g_assert_nonnull (strstr (r.out, "# only in the second: ip3\n"));
  }
  {
    g_auto (Run) r = cli_in (dir, "diff", a, "missing.prototxt", NULL);

    g_assert_cmpint (r.status, ==, 2);
    g_assert_nonnull (strstr (r.err, "missing.prototxt"));
  }
  {
    g_auto (Run) r = cli_in (dir, "diff", a, model, NULL);

    g_assert_cmpint (r.status, ==, 2);
  }
  {
    g_auto (Run) r = cli_in (dir, "diff", a, NULL);

    g_assert_cmpint (r.status, ==, 2);
  }
  ct_test_remove_tree (dir);
}

static double
accuracy_of_test (const char *err)
{
  const char *at = strstr (err, "] accuracy = ");

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen ("] accuracy = "), NULL);
}

/* Caffe's trained LeNet over the 10,000 test images: the matrix's
 * accuracy is `test`'s (Caffe: 0.8941), each row holds 1,000 images. */
static void
test_confusion_lenet (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *net = reference ("lenet_train_test.prototxt");
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *labels = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples",
                                              "lenet-fashion", "labels.txt", NULL);
  g_auto (GStrv) lines = NULL;
  double test_accuracy;

  if (!g_file_test (FASHION "t10k-images-idx3-ubyte.gz", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("dataset-fashion-mnist is not installed");
      return;
    }
  dir = ct_test_tmpdir_make ("cortado-cli-confusion-XXXXXX");
  {
    g_auto (Run) r = cli_in (dir, "convert", "mnist", FASHION "t10k-images-idx3-ubyte.gz",
                             FASHION "t10k-labels-idx1-ubyte.gz", "fashion_test_lmdb", NULL);

    g_assert_cmpint (r.status, ==, 0);
  }
  {
    g_auto (Run) r = cli_in (dir, "test", "--model", net, "--weights", weights,
                             "--iterations", "100", NULL);

    g_assert_cmpint (r.status, ==, 0);
    test_accuracy = accuracy_of_test (r.err);
  }
  {
    g_auto (Run) r = cli_in (dir, "confusion", "--model", net, "--weights", weights,
                             "--iterations", "100", "--labels", labels, "--mistakes", "3", NULL);

    g_assert_cmpint (r.status, ==, 0);
    lines = g_strsplit (r.out, "\n", -1);
  }
  g_assert_true (g_str_has_prefix (lines[0], "# accuracy\t"));
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (lines[0] + strlen ("# accuracy\t"), NULL),
                                  test_accuracy, 1e-6);
  g_assert_true (g_str_has_suffix (lines[0], "\t10000"));
  g_assert_true (g_str_has_prefix (lines[1], "true\\predicted\tT-shirt/top\tTrouser\t"));
  for (guint i = 2; i < 12; i++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[i], "\t", -1);

      g_assert_cmpuint (g_strv_length (cells), ==, 15);
      g_assert_cmpstr (cells[11], ==, "1000");
    }
  g_assert_cmpstr (lines[12], ==, "");
  /* the deploy net (Input layers, batch 4) fed the IDX files gives the same */
  {
    g_autofree char *deploy = reference ("lenet_fashion_deploy_loss.prototxt");
    g_auto (Run) r = cli_in (dir, "confusion", "--model", deploy, "--weights", weights,
                             "--fashion", "--scale", "0.00390625", NULL);
    g_auto (GStrv) fashion_lines = NULL;

    g_assert_cmpint (r.status, ==, 0);
    fashion_lines = g_strsplit (r.out, "\n", -1);
    g_assert_cmpstr (fashion_lines[0], ==, lines[0]);
    for (guint i = 2; i < 12; i++)
      {
        /* the same counts; the rows are named by number (no labels.txt) */
        g_assert_cmpstr (strchr (fashion_lines[i], '\t'), ==, strchr (lines[i], '\t'));
      }
  }
  g_assert_cmpstr (lines[13], ==, "index\ttrue\tpredicted\tconfidence\ttrue_probability");
  g_assert_nonnull (lines[16]);
  {
    g_auto (Run) r = cli_in (dir, "top-activations", "--model", net, "--weights", weights,
                             "--layer", "conv1", "--channel", "3", "--iterations", "2",
                             "--png-prefix", "top", NULL);
    g_auto (GStrv) rows = NULL;
    g_autofree char *png = g_build_filename (dir, "top09.png", NULL);

    g_assert_cmpint (r.status, ==, 0);
    rows = g_strsplit (r.out, "\n", -1);
    g_assert_cmpstr (rows[0], ==, "rank\tindex\tvalue\ty\tx\ttop\tleft\theight\twidth");
    g_assert_cmpuint (g_strv_length (rows), ==, 11);
    for (guint i = 2; i < 10; i++)
      {
        g_auto (GStrv) prev = g_strsplit (rows[i - 1], "\t", -1);
        g_auto (GStrv) cur = g_strsplit (rows[i], "\t", -1);

        g_assert_cmpfloat (g_ascii_strtod (prev[2], NULL), >=, g_ascii_strtod (cur[2], NULL));
        g_assert_cmpstr (cur[7], ==, "5"); /* conv1 sees 5 × 5 pixels */
      }
    g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));
  }
  ct_test_remove_tree (dir);
}

static void
test_explain (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *net = reference ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  const char *methods[] = { "saliency", "grad-cam", "occlusion" };

  if (!g_file_test (FASHION "t10k-images-idx3-ubyte.gz", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("dataset-fashion-mnist is not installed");
      return;
    }
  dir = ct_test_tmpdir_make ("cortado-cli-explain-XXXXXX");
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      g_autofree char *png = g_strdup_printf ("%s.png", methods[i]);
      g_autofree char *npy = g_strdup_printf ("%s.npy", methods[i]);
      g_autofree char *npy_path = g_build_filename (dir, npy, NULL);
      g_autofree char *bytes = NULL;
      gsize length = 0;
      /* image 0 of the test set is an ankle boot (class 9) */
      g_auto (Run) r = cli_in (dir, "explain", "--model", net, "--weights", weights,
                               "--method", methods[i], "--layer", "conv2", "--fashion", "0",
                               "--scale", "0.00390625", "--png", png, "--npy", npy, NULL);

      g_assert_cmpint (r.status, ==, 0);
      g_assert_true (g_str_has_prefix (r.out, methods[i]));
      g_assert_nonnull (strstr (r.out, "\tclass 9\t"));
      g_assert_true (g_file_get_contents (npy_path, &bytes, &length, NULL));
      g_assert_cmpuint (length, ==, 128 + 28 * 28 * 4);
    }
  {
    g_auto (Run) r = cli_in (dir, "explain", "--model", net, "--method", "grad-cam",
                             "--fashion", "0", NULL);

    g_assert_cmpint (r.status, ==, 2);
  }
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("CT_CLI"));
  g_test_add_func ("/analysis/cli/diff", test_diff);
  g_test_add_func ("/analysis/cli/confusion-lenet", test_confusion_lenet);
  g_test_add_func ("/analysis/cli/explain", test_explain);
  return g_test_run ();
}
