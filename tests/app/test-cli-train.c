/* test-cli-train.c: `cortado-cli train`, `test` and `device_query` run as
 * a user runs them (CT_CLI names the binary): Caffe's log lines with
 * glog's prefix, snapshots at intervals and after training, resuming that
 * rewrites the uninterrupted run's caffemodel byte for byte, fine-tuning,
 * gflags' single-dash spellings, SIGHUP and SIGINT (once, and every 10 ms
 * through a run, which must end well), the errors of bad
 * solvers, weights and flags, and `test` on Caffe's trained LeNet over the
 * 10,000 Fashion-MNIST test images (accuracy 0.8941, as Caffe) when
 * Debian's dataset-fashion-mnist is installed. */
#include <locale.h>
#include <signal.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "test-files.h"

typedef struct {
  int status;
  char *err;
} Run;

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->err, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* The locale cortado-cli runs in. */
static const char *run_locale = "C.UTF-8";

static char **
english_environ (void)
{
  char **env = g_get_environ ();

  env = g_environ_setenv (env, "LC_ALL", run_locale, TRUE);
  return g_environ_unsetenv (env, "LANGUAGE");
}

/* cortado-cli with the NULL-terminated arguments, in folder DIR. */
static Run
cli_in (const char *dir, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) env = english_environ ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  Run run = { 0 };
  int wait_status;
  va_list args;

  g_ptr_array_add (argv, (gpointer) g_getenv ("CT_CLI"));
  va_start (args, first);
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &run.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run.status = WEXITSTATUS (wait_status);
  return run;
}

/* Whether some line of TEXT matches PATTERN (a regex for the whole line
 * after glog's prefix). */
static gboolean
has_line (const char *text, const char *pattern)
{
  g_autofree char *full = g_strconcat ("^I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ "
                                       "[\\w.-]+:\\d+\\] ", pattern, "$", NULL);

  return g_regex_match_simple (full, text, G_REGEX_MULTILINE, 0);
}

static guint
count_lines (const char *text, const char *pattern)
{
  g_autofree char *full = g_strconcat ("^I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ "
                                       "[\\w.-]+:\\d+\\] ", pattern, "$", NULL);
  g_autoptr (GRegex) regex = g_regex_new (full, G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) info = NULL;
  guint n = 0;

  for (g_regex_match (regex, text, 0, &info); g_match_info_matches (info);
       g_match_info_next (info, NULL))
    n++;
  return n;
}

/* The training losses of the display lines ("Iteration 25 (...), loss = X"
 * and the closing "Iteration 100, loss = X"), in order. */
static GArray *
displayed_losses (const char *text)
{
  g_autoptr (GRegex) regex = g_regex_new ("^I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} +\\d+ "
                                          "[\\w.-]+:\\d+\\] Iteration \\d+(?: \\(.*\\))?, "
                                          "loss = ([0-9.e+-]+)$",
                                          G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) info = NULL;
  GArray *losses = g_array_new (FALSE, FALSE, sizeof (double));

  for (g_regex_match (regex, text, 0, &info); g_match_info_matches (info);
       g_match_info_next (info, NULL))
    {
      g_autofree char *number = g_match_info_fetch (info, 1);
      double loss = g_ascii_strtod (number, NULL);

      g_array_append_val (losses, loss);
    }
  return losses;
}

#define NET \
  "name: 'tiny'\n" \
  "layer { name: 'd' type: 'DummyData' top: 'x' top: 'label'\n" \
  "  dummy_data_param { shape { dim: 8 dim: 4 } shape { dim: 8 }\n" \
  "    data_filler { type: 'constant' value: 0.5 }\n" \
  "    data_filler { type: 'constant' value: 1 } } }\n" \
  "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'fc'\n" \
  "  inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } }\n" \
  "layer { name: 'acc' type: 'Accuracy' bottom: 'fc' bottom: 'label' top: 'accuracy'\n" \
  "  include { phase: TEST } }\n" \
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'fc' bottom: 'label' top: 'loss' }\n"

#define SOLVER \
  "# the tiny net\n" \
  "net: 'net.prototxt'\n" \
  "test_iter: 2\n" \
  "test_interval: 50\n" \
  "base_lr: 0.01\n" \
  "momentum: 0.9\n" \
  "lr_policy: 'inv'\n" \
  "gamma: 0.0001\n" \
  "power: 0.75\n" \
  "display: 25\n" \
  "max_iter: 100\n" \
  "snapshot_prefix: 'out/tiny'\n" \
  "random_seed: 7\n"

/* Snapshots every 50 iterations; the signal test goes without. */
#define EVERY_50 "snapshot: 50\n"

static char *
setup_dir (const char *solver_extra)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ct-cli-train-XXXXXX", &error);
  g_autofree char *net = g_build_filename (dir, "net.prototxt", NULL);
  g_autofree char *solver = g_build_filename (dir, "solver.prototxt", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *text = g_strconcat (SOLVER, solver_extra, NULL);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (net, NET, -1, NULL));
  g_assert_true (g_file_set_contents (solver, text, -1, NULL));
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
  return dir;
}

static gboolean
exists_in (const char *dir, const char *relative)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);

  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static GBytes *
read_in (const char *dir, const char *relative)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);
  g_autoptr (GMappedFile) file = g_mapped_file_new (path, FALSE, NULL);

  g_assert_nonnull (file);
  return g_mapped_file_get_bytes (file);
}

static void
test_train (void)
{
  g_autofree char *dir = setup_dir (EVERY_50);
  g_auto (Run) run = cli_in (dir, "train", "--solver=solver.prototxt", NULL);

  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  /* the lines Caffe's parse_log reads */
  g_assert_true (has_line (run.err, "Iteration 25 \\([0-9.e+]+ iter/s, [0-9.e+-]+s/25 iters\\), "
                                    "loss = [0-9.e-]+"));
  g_assert_cmpuint (count_lines (run.err, "    Train net output #0: loss = [0-9.e-]+ "
                                          "\\(\\* 1 = [0-9.e-]+ loss\\)"), ==, 4);
  g_assert_true (has_line (run.err, "Iteration 25, lr = 0\\.00998129"));
  g_assert_true (has_line (run.err, "Iteration 0, Testing net \\(#0\\)"));
  g_assert_true (has_line (run.err, "Iteration 50, Testing net \\(#0\\)"));
  g_assert_true (has_line (run.err, "Iteration 100, Testing net \\(#0\\)"));
  g_assert_cmpuint (count_lines (run.err, "    Test net output #0: accuracy = [0-9.e-]+"), ==, 3);
  g_assert_true (has_line (run.err, "    Test net output #0: accuracy = 1"));
  g_assert_cmpuint (count_lines (run.err, "    Test net output #1: loss = [0-9.e-]+ \\(\\* 1 = "
                                          "[0-9.e-]+ loss\\)"), ==, 3);
  g_assert_true (has_line (run.err, "Iteration 100, loss = [0-9.e-]+"));
  /* The loss falls at every display, to a tenth of where it began: the
   * 3-way task is trivial, and SGD with momentum gets it to about 2%
   * (without momentum to a third, with momentum's sign flipped to half). */
  {
    g_autoptr (GArray) losses = displayed_losses (run.err);
    const double *loss = (const double *) losses->data;

    g_assert_cmpuint (losses->len, ==, 5);
    g_assert_cmpfloat (loss[0], >, 0.5);
    for (guint i = 1; i < losses->len; i++)
      g_assert_cmpfloat (loss[i], <, loss[i - 1]);
    g_assert_cmpfloat (loss[losses->len - 1], <, loss[0] / 10);
  }
  g_assert_true (has_line (run.err, "Snapshotting to binary proto file out/tiny_iter_50"
                                    "\\.caffemodel"));
  g_assert_true (has_line (run.err, "Snapshotting solver state to binary proto file "
                                    "out/tiny_iter_100\\.solverstate"));
  g_assert_true (has_line (run.err, "Optimization Done\\."));
  /* no progress line when standard error is not a terminal */
  g_assert_null (strchr (run.err, '\r'));
  g_assert_true (exists_in (dir, "out/tiny_iter_50.caffemodel"));
  g_assert_true (exists_in (dir, "out/tiny_iter_50.solverstate"));
  g_assert_true (exists_in (dir, "out/tiny_iter_100.caffemodel"));
  g_assert_true (exists_in (dir, "out/tiny_iter_100.solverstate"));
  ct_test_remove_tree (dir);
}

/* Resuming at 50 rewrites the iteration-100 caffemodel byte for byte. */
static void
test_resume (void)
{
  g_autofree char *dir = setup_dir (EVERY_50);
  g_autoptr (GBytes) full = NULL;
  g_autoptr (GBytes) resumed = NULL;

  {
    g_auto (Run) run = cli_in (dir, "train", "--solver", "solver.prototxt", NULL);
    g_assert_cmpint (run.status, ==, 0);
  }
  full = read_in (dir, "out/tiny_iter_100.caffemodel");
  {
    g_autofree char *path = g_build_filename (dir, "out/tiny_iter_100.caffemodel", NULL);
    g_assert_cmpint (g_remove (path), ==, 0);
  }
  {
    /* Caffe's single-dash spellings */
    g_auto (Run) run = cli_in (dir, "train", "-solver", "solver.prototxt",
                               "-snapshot=out/tiny_iter_50.solverstate", NULL);
    g_test_message ("%s", run.err);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (has_line (run.err, "Resuming from out/tiny_iter_50\\.solverstate"));
    g_assert_false (has_line (run.err, "Iteration 25, lr = .*"));
    g_assert_true (has_line (run.err, "Iteration 75, lr = .*"));
  }
  resumed = read_in (dir, "out/tiny_iter_100.caffemodel");
  g_assert_cmpuint (g_bytes_get_size (full), >, 100);
  g_assert_true (g_bytes_equal (full, resumed));
  ct_test_remove_tree (dir);
}

static void
test_finetune_and_iterations (void)
{
  g_autofree char *dir = setup_dir (EVERY_50);
  g_auto (Run) first = cli_in (dir, "train", "--solver=solver.prototxt", "--iterations=50",
                               NULL);
  g_auto (Run) second = { 0 };

  g_assert_cmpint (first.status, ==, 0);
  g_assert_true (exists_in (dir, "out/tiny_iter_50.caffemodel"));
  g_assert_false (exists_in (dir, "out/tiny_iter_100.caffemodel"));
  g_assert_cmpuint (count_lines (first.err, "Iteration \\d+, lr = .*"), ==, 2);

  second = cli_in (dir, "train", "-solver=solver.prototxt", "-weights",
                   "out/tiny_iter_50.caffemodel", "-iterations", "10", "-stage", "x,y",
                   "-level", "2", NULL);
  g_test_message ("%s", second.err);
  g_assert_cmpint (second.status, ==, 0);
  g_assert_true (has_line (second.err, "Finetuning from out/tiny_iter_50\\.caffemodel"));
  g_assert_true (exists_in (dir, "out/tiny_iter_10.caffemodel"));
  /* the fine-tuned run starts where the first ended: accuracy 1 at 0 */
  g_assert_true (has_line (second.err, "    Test net output #0: accuracy = 1"));
  ct_test_remove_tree (dir);
}

typedef struct {
  const char *extra_solver;   /* added to the solver file */
  const char *args[6];        /* after "train" */
  int status;
  const char *message;        /* a part of stderr */
} BadCase;

static void
check_bad (gconstpointer data)
{
  const BadCase *c = data;
  g_autofree char *dir = setup_dir (c->extra_solver);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) env = english_environ ();
  g_autofree char *err = NULL;
  int wait_status;

  g_ptr_array_add (argv, (gpointer) g_getenv ("CT_CLI"));
  for (guint i = 0; i < G_N_ELEMENTS (c->args) && c->args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) c->args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, env, G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, &err, &wait_status, NULL));
  g_test_message ("%s", err);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, c->status);
  g_assert_nonnull (strstr (err, c->message));
  /* nothing that fails saves weights */
  g_assert_false (exists_in (dir, "out/tiny_iter_50.caffemodel"));
  ct_test_remove_tree (dir);
}

static const BadCase bad_cases[] = {
  { EVERY_50, { "train", "--solver=missing.prototxt" }, 1, "missing.prototxt" },
  { EVERY_50 "type: 'Adamm'\n", { "train", "--solver=solver.prototxt" }, 1,
    "solver.prototxt:15:1: field 'type' in SolverParameter: unknown solver type 'Adamm'" },
  { EVERY_50 "max_iterations: 5\n", { "train", "--solver=solver.prototxt" }, 1,
    "solver.prototxt:15:1: unknown field 'max_iterations' in SolverParameter" },
  { EVERY_50, { "train", "--solver=solver.prototxt", "--weights=net.prototxt" }, 1,
    "net.prototxt" },
  { EVERY_50, { "train", "--solver=solver.prototxt", "--weights=w", "--snapshot=s" }, 2,
    "not both" },
  { EVERY_50, { "train" }, 2, "no solver given" },
  { EVERY_50, { "train", "--solver=solver.prototxt", "--sigint_effect=explode" }, 2,
    "--sigint_effect takes stop, snapshot or none" },
  { EVERY_50, { "train", "--solver=solver.prototxt", "--snapshot=out/none.solverstate" }, 1,
    "out/none.solverstate" },
  { EVERY_50, { "test", "--model=net.prototxt" }, 2, "no weights given" },
  { EVERY_50, { "test", "--model=nope.prototxt", "--weights=w.caffemodel" }, 1,
    "nope.prototxt" },
  /* a number that is not one: refused by check and by train, at its place */
  { EVERY_50 "weight_decay: nan\n", { "check", "solver.prototxt" }, 1,
    "solver.prototxt:15:1: field 'weight_decay' in SolverParameter: weight_decay must be a "
    "finite number" },
  { EVERY_50 "weight_decay: nan\n", { "train", "--solver=solver.prototxt" }, 1,
    "solver.prototxt:15:1: field 'weight_decay' in SolverParameter" },
  /* a decay that overflows: training stops, naming the first layer that
   * made a NaN or an infinity, and leaves no snapshot */
  { EVERY_50 "weight_decay: 1e38\n", { "train", "--solver=solver.prototxt" }, 1,
    "training stopped: " },
};

static void
test_no_gpu (void)
{
  g_autofree char *dir = setup_dir (EVERY_50);

  if (CT_HAVE_CUDA)
    {
      g_test_skip ("built with CUDA");
      ct_test_remove_tree (dir);
      return;
    }
  {
    g_auto (Run) run = cli_in (dir, "train", "--solver=solver.prototxt", "--gpu=0", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "no GPU available: Cortado was built without CUDA"));
    g_assert_false (exists_in (dir, "out/tiny_iter_100.caffemodel"));
  }
  {
    g_auto (Run) run = cli_in (dir, "device_query", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "no GPU available: Cortado was built without CUDA"));
  }
  {
    g_auto (Run) run = cli_in (dir, "test", "-model", "net.prototxt", "-weights", "x",
                               "-gpu", "0", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "no GPU available"));
  }
  ct_test_remove_tree (dir);
}

static void
test_test_verb (void)
{
  g_autofree char *dir = setup_dir (EVERY_50);
  g_auto (Run) train = cli_in (dir, "train", "--solver=solver.prototxt", NULL);
  g_auto (Run) run = cli_in (dir, "test", "--model=net.prototxt",
                             "--weights=out/tiny_iter_100.caffemodel", "--iterations=3", NULL);

  g_assert_cmpint (train.status, ==, 0);
  g_test_message ("%s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (has_line (run.err, "Running for 3 iterations\\."));
  g_assert_cmpuint (count_lines (run.err, "Batch \\d, accuracy = 1"), ==, 3);
  g_assert_cmpuint (count_lines (run.err, "Batch \\d, loss = [0-9.e-]+"), ==, 3);
  g_assert_true (has_line (run.err, "Loss: [0-9.e-]+"));
  g_assert_true (has_line (run.err, "accuracy = 1"));
  g_assert_true (has_line (run.err, "loss = [0-9.e-]+ \\(\\* 1 = [0-9.e-]+ loss\\)"));
  ct_test_remove_tree (dir);
}

/* Numbers in the log keep their dots under a locale with decimal commas. */
static void
test_comma_locale (void)
{
  g_autofree char *dir = NULL;

  if (setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("no de_DE.UTF-8 locale");
      return;
    }
  setlocale (LC_ALL, "C");
  dir = setup_dir (EVERY_50);
  run_locale = "de_DE.UTF-8";
  {
    g_auto (Run) run = cli_in (dir, "train", "--solver=solver.prototxt", "--iterations=30",
                               NULL);
    run_locale = "C.UTF-8";
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (has_line (run.err, "Iteration 25, lr = 0\\.00998129"));
    g_assert_true (has_line (run.err, "Iteration 25 \\([0-9.e+]+ iter/s, [0-9.e+-]+s/25 iters\\), "
                                      "loss = [0-9]\\.[0-9e-]+"));
  }
  ct_test_remove_tree (dir);
}

/* Read lines from STREAM until one contains NEEDLE; all are kept in LOG. */
static gboolean
read_until (GDataInputStream *stream, const char *needle, GString *log)
{
  char *line;

  while ((line = g_data_input_stream_read_line (stream, NULL, NULL, NULL)) != NULL)
    {
      gboolean found = strstr (line, needle) != NULL;

      g_string_append_printf (log, "%s\n", line);
      g_free (line);
      if (found)
        return TRUE;
    }
  return FALSE;
}

/* What a shell's background job and nohup start with. */
static void
ignore_signals (gpointer data)
{
  signal (SIGINT, SIG_IGN);
  signal (SIGHUP, SIG_IGN);
}

/* SIGHUP snapshots, SIGINT stops after a snapshot; with IGNORED, the same
 * though cortado-cli started with both signals ignored (as Caffe's tool,
 * cortado-cli takes them whatever it inherited). */
static void
check_signals (gboolean ignored)
{
  g_autofree char *dir = setup_dir ("");
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GDataInputStream) err = NULL;
  g_autoptr (GString) log = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = english_environ ();

  g_subprocess_launcher_set_cwd (launcher, dir);
  g_subprocess_launcher_set_environ (launcher, env);
  if (ignored)
    g_subprocess_launcher_set_child_setup (launcher, ignore_signals, NULL, NULL);
  /* long enough never to end by itself within the test's time */
  proc = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("CT_CLI"), "train",
                                      "--solver=solver.prototxt", "--iterations=100000000",
                                      NULL);
  g_assert_no_error (error);
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (proc));
  g_assert_true (read_until (err, "Starting Optimization", log));
  g_subprocess_send_signal (proc, SIGHUP);
  g_assert_true (read_until (err, "Snapshotting solver state", log));
  g_subprocess_send_signal (proc, SIGINT);
  g_assert_true (read_until (err, "Optimization stopped early.", log));
  read_until (err, "\x01", log);
  g_assert_true (g_subprocess_wait (proc, NULL, &error));
  g_test_message ("%s", log->str);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  /* two snapshots: SIGHUP's, and the one after stopping */
  g_assert_cmpuint (count_lines (log->str, "Snapshotting to binary proto file "
                                           "out/tiny_iter_\\d+\\.caffemodel"), ==, 2);
  ct_test_remove_tree (dir);
}

static void
test_signals (void)
{
  check_signals (FALSE);
}

static void
test_signals_ignored (void)
{
  check_signals (TRUE);
}

/* A LeNet-shaped net on random data: its matrix products run in oneDNN's
 * JIT kernels, where a signal handler used to corrupt the heap. */
#define STORM_NET \
  "name: 'storm'\n" \
  "layer { name: 'd' type: 'DummyData' top: 'x' top: 'label'\n" \
  "  dummy_data_param { shape { dim: 64 dim: 1 dim: 28 dim: 28 } shape { dim: 64 }\n" \
  "    data_filler { type: 'uniform' } data_filler { type: 'constant' value: 1 } } }\n" \
  "layer { name: 'conv1' type: 'Convolution' bottom: 'x' top: 'conv1'\n" \
  "  convolution_param { num_output: 20 kernel_size: 5 weight_filler { type: 'xavier' } } }\n" \
  "layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'\n" \
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n" \
  "layer { name: 'conv2' type: 'Convolution' bottom: 'pool1' top: 'conv2'\n" \
  "  convolution_param { num_output: 50 kernel_size: 5 weight_filler { type: 'xavier' } } }\n" \
  "layer { name: 'pool2' type: 'Pooling' bottom: 'conv2' top: 'pool2'\n" \
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n" \
  "layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool2' top: 'ip1'\n" \
  "  inner_product_param { num_output: 500 weight_filler { type: 'xavier' } } }\n" \
  "layer { name: 'relu' type: 'ReLU' bottom: 'ip1' top: 'ip1' }\n" \
  "layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'\n" \
  "  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }\n" \
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }\n"

/* The bits of SIGHUP and SIGINT in /proc's signal masks. */
#define HUP_INT_BITS ((1ull << (SIGHUP - 1)) | (1ull << (SIGINT - 1)))

/* The mask FIELD ("SigBlk", "SigCgt") of a /proc status file. */
static guint64
proc_mask (const char *status_path, const char *field)
{
  g_autofree char *text = NULL;
  g_autofree char *key = g_strconcat ("\n", field, ":\t", NULL);
  const char *at;

  g_assert_true (g_file_get_contents (status_path, &text, NULL, NULL));
  at = strstr (text, key);
  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen (key), NULL, 16);
}

/* No thread of PID has a handler for SIGHUP or SIGINT, and every thread
 * blocks them (but the one waiting for them in sigwait, which shows them
 * unblocked while it waits): none is interrupted inside a matrix product. */
static void
check_signals_blocked (const char *pid)
{
  g_autofree char *tasks = g_build_filename ("/proc", pid, "task", NULL);
  g_autofree char *status = g_build_filename ("/proc", pid, "status", NULL);
  g_autoptr (GDir) dir = g_dir_open (tasks, 0, NULL);
  const char *name;
  guint n = 0;

  if (dir == NULL)
    return;   /* not Linux */
  g_assert_cmphex (proc_mask (status, "SigCgt") & HUP_INT_BITS, ==, 0);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tasks, name, "status", NULL);
      g_autofree char *comm_path = g_build_filename (tasks, name, "comm", NULL);
      g_autofree char *comm = NULL;

      /* a thread that ended since the listing has nothing to say */
      if (!g_file_get_contents (comm_path, &comm, NULL, NULL))
        continue;
      if (g_str_has_prefix (comm, "ct-signals"))
        continue;
      g_assert_cmphex (proc_mask (path, "SigBlk") & HUP_INT_BITS, ==, HUP_INT_BITS);
      n++;
    }
  g_test_message ("%u threads block SIGHUP and SIGINT", n);
  g_assert_cmpuint (n, >, 0);
}

static void
on_storm_ended (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
}

/* SIGHUP every 10 ms while training (a snapshot each time) ends in a clean
 * run: the signals never interrupt a thread (they used to corrupt the heap
 * inside oneDNN's matrix products within a few dozen signals). */
static void
test_signal_storm (void)
{
  g_autofree char *dir = setup_dir ("");
  g_autofree char *net = g_build_filename (dir, "storm.prototxt", NULL);
  g_autofree char *solver = g_build_filename (dir, "storm-solver.prototxt", NULL);
  g_autofree char *log_path = g_build_filename (dir, "storm.log", NULL);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = english_environ ();
  g_autofree char *log = NULL;
  gboolean ended = FALSE, checked = FALSE;
  guint signals = 0;

  g_assert_true (g_file_set_contents (net, STORM_NET, -1, NULL));
  g_assert_true (g_file_set_contents (solver, "net: 'storm.prototxt'\nbase_lr: 0.01\n"
                                      "momentum: 0.9\nlr_policy: 'fixed'\ndisplay: 10\n"
                                      "max_iter: 20\nsnapshot_prefix: 'out/storm'\n"
                                      "random_seed: 7\n", -1, NULL));
  g_subprocess_launcher_set_cwd (launcher, dir);
  g_subprocess_launcher_set_environ (launcher, env);
  g_subprocess_launcher_set_stderr_file_path (launcher, log_path);
  proc = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("CT_CLI"), "train",
                                      "--solver=storm-solver.prototxt", NULL);
  g_assert_no_error (error);
  g_subprocess_wait_async (proc, NULL, on_storm_ended, &ended);
  while (!ended)
    {
      g_autofree char *text = NULL;

      g_main_context_iteration (NULL, FALSE);
      if (!checked && g_file_get_contents (log_path, &text, NULL, NULL) &&
          strstr (text, "Starting Optimization") != NULL)
        {
          check_signals_blocked (g_subprocess_get_identifier (proc));
          checked = TRUE;
        }
      if (checked)
        {
          g_subprocess_send_signal (proc, SIGHUP);
          signals++;
        }
      g_usleep (G_USEC_PER_SEC / 100);
    }
  g_assert_true (g_file_get_contents (log_path, &log, NULL, NULL));
  g_test_message ("%u SIGHUPs; %s", signals, log);
  g_assert_true (checked);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  g_assert_true (has_line (log, "Optimization Done\\."));
  g_assert_cmpuint (count_lines (log, "Snapshotting to binary proto file out/storm_iter_\\d+"
                                      "\\.caffemodel"), >, 1);
  g_assert_true (exists_in (dir, "out/storm_iter_20.caffemodel"));
  ct_test_remove_tree (dir);
}

/* Caffe's trained LeNet (tests/data/reference) scored on the 10,000
 * Fashion-MNIST test images. */
static void
test_reference_lenet (void)
{
  const char *data = g_getenv ("CT_TEST_DATA");
  const char *images = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  const char *labels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  g_autofree char *ref = NULL;
  g_autofree char *net = NULL;
  g_autofree char *weights = NULL;
  g_autofree char *dir = NULL;

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("dataset-fashion-mnist is not installed");
      return;
    }
  g_assert_nonnull (data);
  ref = g_build_filename (data, "reference", NULL);
  net = g_build_filename (ref, "lenet_train_test.prototxt", NULL);
  weights = g_build_filename (ref, "fashion_lenet_iter_10000.caffemodel", NULL);
  dir = setup_dir (EVERY_50);
  {
    g_auto (Run) run = cli_in (dir, "convert", "mnist", images, labels, "fashion_test_lmdb",
                               NULL);
    g_assert_cmpint (run.status, ==, 0);
  }
  {
    g_auto (Run) run = cli_in (dir, "test", "-model", net, "-weights", weights,
                               "-iterations", "100", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpuint (count_lines (run.err, "Batch \\d+, accuracy = [0-9.e-]+"), ==, 100);
    /* Caffe: accuracy 0.8941, loss 0.3212 */
    g_assert_true (has_line (run.err, "accuracy = 0\\.894[0-3]"));
    g_assert_true (has_line (run.err, "loss = 0\\.321[0-9]* \\(\\* 1 = 0\\.321[0-9]* loss\\)"));
  }
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("CT_CLI"));
  g_test_add_func ("/app/cli-train/train", test_train);
  g_test_add_func ("/app/cli-train/resume", test_resume);
  g_test_add_func ("/app/cli-train/finetune-and-iterations", test_finetune_and_iterations);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/app/cli-train/bad/%u", i);
      g_test_add_data_func (path, &bad_cases[i], check_bad);
    }
  g_test_add_func ("/app/cli-train/no-gpu", test_no_gpu);
  g_test_add_func ("/app/cli-train/test-verb", test_test_verb);
  g_test_add_func ("/app/cli-train/signals", test_signals);
  g_test_add_func ("/app/cli-train/signals-ignored", test_signals_ignored);
  g_test_add_func ("/app/cli-train/signal-storm", test_signal_storm);
  g_test_add_func ("/app/cli-train/comma-locale", test_comma_locale);
  g_test_add_func ("/app/cli-train/reference-lenet", test_reference_lenet);
  return g_test_run ();
}
