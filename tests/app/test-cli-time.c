/* test-cli-time.c: `cortado-cli time` as scripts written for `caffe time`
 * call it (CT_CLI names the built binary): Caffe's flag spellings, its
 * output lines with glog's prefix, a line per layer and pass, the
 * averages, and the exit codes for wrong command lines and bad nets. */
#include <string.h>
#include <glib.h>

#include "cli-run.h"

static char *
lenet (void)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "timing", "lenet_input_b64.prototxt",
                           NULL);
}

/* How many stderr lines have glog's prefix and end with TEXT ... "ms.". */
static guint
count_lines (const char *err, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (err, "\n", -1);
  g_autoptr (GRegex) prefix = g_regex_new ("^[IW][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} "
                                           " *[0-9]+ [a-z-]+\\.c:[0-9]+\\] ", 0, 0, NULL);
  guint n = 0;

  for (char **l = lines; *l != NULL; l++)
    if (strstr (*l, text) != NULL)
      {
        g_assert_true (g_regex_match (prefix, *l, 0, NULL));
        n++;
      }
  return n;
}

static double
value_after (const char *err, const char *label)
{
  const char *at = strstr (err, label);

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (label), NULL);
}

static void
check_report (const char *err, guint layers)
{
  double forward = value_after (err, "Average Forward pass: ");
  double backward = value_after (err, "Average Backward pass: ");
  double total = value_after (err, "Average Forward-Backward: ");

  g_assert_cmpuint (count_lines (err, "\tforward: "), ==, layers);
  g_assert_cmpuint (count_lines (err, "\tbackward: "), ==, layers);
  g_assert_cmpuint (count_lines (err, "Average Forward pass: "), ==, 1);
  g_assert_cmpuint (count_lines (err, "Total Time: "), ==, 1);
  g_assert_cmpfloat (forward, >, 0);
  g_assert_cmpfloat (backward, >, 0);
  /* The total also counts the time between passes. */
  g_assert_cmpfloat (total, >=, 0.9 * (forward + backward));
  g_assert_nonnull (strstr (err, "      conv1\tforward: "));
}

static void
test_caffe_spellings (void)
{
  g_autofree char *model = lenet ();
  g_autofree char *model_eq = g_strdup_printf ("-model=%s", model);
  g_autofree char *model_long = g_strdup_printf ("--model=%s", model);

  /* gflags' single dash, with a space and with '=', and GLib's double dash. */
  {
    g_auto (CtCliRun) run = ct_cli_run ("time", "-model", model, "-iterations", "2", NULL);

    g_assert_cmpint (run.status, ==, 0);
    /* LeNet with an Input layer: data, conv1, pool1, conv2, pool2, ip1,
     * relu1, ip2, loss. */
    check_report (run.err, 9);
    g_assert_cmpuint (count_lines (run.err, "forward-backward time: "), ==, 2);
  }
  {
    g_auto (CtCliRun) run = ct_cli_run ("time", model_eq, "-iterations=1", "-phase", "TEST", NULL);

    g_assert_cmpint (run.status, ==, 0);
    check_report (run.err, 9);
  }
  {
    g_auto (CtCliRun) run = ct_cli_run ("time", model_long, "--iterations", "1", "--fill", "random", NULL);

    g_assert_cmpint (run.status, ==, 0);
    check_report (run.err, 9);
  }
}

static void
test_gpu_without_cuda (void)
{
  g_autofree char *model = lenet ();
  g_auto (CtCliRun) run = ct_cli_run ("time", "-model", model, "-gpu", "0", "-iterations", "1", NULL);

  /* As train and test do, and as Caffe built without CUDA does. */
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "no GPU available"));
}

static void
test_errors (void)
{
  g_autofree char *model = lenet ();
  g_autofree char *missing = g_build_filename (g_getenv ("CT_TEST_DATA"), "timing",
                                               "no-such-net.prototxt", NULL);
  struct {
    int status;
    const char *needle;
    const char *args[5];
  } cases[] = {
    { 2, "no net given", { "-iterations", "3", NULL } },
    { 2, "--iterations must be positive", { "-model", model, "-iterations", "0", NULL } },
    { 2, "--phase takes TRAIN or TEST", { "-model", model, "-phase", "VALIDATE", NULL } },
    { 2, "--fill takes", { "-model", model, "--fill", "ones", NULL } },
    { 1, "no-such-net.prototxt", { "-model", missing, NULL } },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (CtCliRun) run = ct_cli_run ("time", cases[i].args[0], cases[i].args[1], cases[i].args[2],
                                   cases[i].args[3], cases[i].args[4], NULL);

      g_assert_cmpint (run.status, ==, cases[i].status);
      g_assert_nonnull (strstr (run.err, cases[i].needle));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/cli/time/caffe-spellings", test_caffe_spellings);
  g_test_add_func ("/app/cli/time/gpu", test_gpu_without_cuda);
  g_test_add_func ("/app/cli/time/errors", test_errors);
  return g_test_run ();
}
