/* bench-nets.c: Cortado's speed next to BVLC Caffe's on the CPU.
 *
 * Runs `cortado-cli time` (CT_CLI) on the timing nets of
 * tests/data/timing — LeNet batch 64 with an Input layer, CIFAR-10 quick
 * batch 100, AlexNet batch 10 and GoogLeNet batch 10 (both with
 * force_backward), ResNet-50 batch 8 (a training iteration) — REPEATS
 * times each (CT_BENCH_REPEATS, default 3), and prints the median forward,
 * backward and forward+backward milliseconds per iteration with their
 * ratio to what `caffe time` measured on the same kind of machine
 * (../shared/reference/README.md): below 1 is faster than Caffe. Beside
 * each time, the memory: the planned bytes of blobs and parameters that
 * `time` prints (the same on every run) and the process's peak (max RSS,
 * the largest of the runs). Caffe's figures come from an idle machine; the load average is
 * printed before and after, because a shared machine's load moves these
 * numbers by 2x. Never fails on speed alone. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib.h>
#include <glib-unix.h>

typedef struct {
  const char *file;
  const char *label;
  int iterations;
  double caffe_forward;  /* ms, 0 when not published */
  double caffe_total;    /* fwd+bwd ms */
} TimingNet;

/* Caffe's figures: `caffe time`, OpenBLAS with 2 threads, an idle 2-vCPU
 * machine, three runs within 4% of each other. */
static const TimingNet nets[] = {
  { "lenet_input_b64.prototxt", "LeNet b64", 50, 7.3, 17.5 },
  { "cifar10_quick_input_train.prototxt", "CIFAR-10 quick b100", 10, 0, 145 },
  { "bvlc_alexnet_deploy_force_backward.prototxt", "AlexNet b10", 5, 181, 472 },
  { "bvlc_googlenet_deploy_force_backward.prototxt", "GoogLeNet b10", 3, 527, 1129 },
  /* Caffe's time not measured on an idle machine yet */
  { "resnet50_b8_train.prototxt", "ResNet-50 b8", 2, 0, 0 },
};

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static char *
load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return g_strdup ("unknown");
  return g_strndup (text, strcspn (text, " "));
}

/* The number after LABEL in Caffe's line "LABEL X ms.", or -1. */
static double
read_ms (const char *log, const char *label)
{
  const char *at = strstr (log, label);

  if (at == NULL)
    return -1;
  return g_ascii_strtod (at + strlen (label), NULL);
}

/* All of FD into a string (the child's stderr). */
static char *
read_all (int fd)
{
  GString *text = g_string_new (NULL);
  char buf[4096];
  gssize n;

  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_string_append_len (text, buf, n);
  close (fd);
  return g_string_free (text, FALSE);
}

/* One `time` run: FORWARD, BACKWARD and TOTAL ms per iteration, the
 * planned MB of blobs and parameters and the process's max RSS in MB. */
static gboolean
run_once (const char *cli, const char *model, int iterations, double *forward,
          double *backward, double *total, double *planned_mb, double *rss_mb)
{
  g_autofree char *model_flag = g_strdup_printf ("--model=%s", model);
  g_autofree char *iter_flag = g_strdup_printf ("--iterations=%d", iterations);
  const char *argv[] = { cli, "time", model_flag, iter_flag, NULL };
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  struct rusage usage;
  int status = 0, err_fd = -1;
  GPid pid;

  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, &pid, NULL, NULL, &err_fd, &error))
    {
      g_printerr ("bench-nets: %s: %s\n", model, error->message);
      return FALSE;
    }
  err = read_all (err_fd);
  if (wait4 (pid, &status, 0, &usage) != pid || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-nets: %s: %s\n%s", model, error != NULL ? error->message : "wait4",
                  err);
      return FALSE;
    }
  g_spawn_close_pid (pid);
  *forward = read_ms (err, "Average Forward pass: ");
  *backward = read_ms (err, "Average Backward pass: ");
  *total = read_ms (err, "Average Forward-Backward: ");
  *planned_mb = read_ms (err, "Memory of blobs and parameters: ");
  *rss_mb = (double) usage.ru_maxrss / 1024.0; /* kilobytes on Linux */
  return *forward >= 0 && *backward >= 0 && *total >= 0;
}

int
main (int argc, char **argv)
{
  const char *cli = g_getenv ("CT_CLI");
  const char *data = g_getenv ("CT_TEST_DATA");
  const char *repeats_text = g_getenv ("CT_BENCH_REPEATS");
  guint repeats = repeats_text != NULL ? (guint) CLAMP (atoi (repeats_text), 1, 100) : 3;
  g_autofree char *load_before = load_average ();
  g_autofree char *load_after = NULL;
  int failures = 0;

  if (cli == NULL || data == NULL)
    {
      g_printerr ("bench-nets: CT_CLI and CT_TEST_DATA must be set\n");
      return 1;
    }
  g_print ("bench-nets: cortado-cli time, median of %u runs; load average %s before\n",
           repeats, load_before);
  g_print ("%-22s %10s %10s %10s %10s %8s %8s %10s %10s\n", "net", "fwd ms", "bwd ms",
           "fwd+bwd", "Caffe", "ratio", "fwd/Caffe", "plan MB", "peak MB");
  for (gsize i = 0; i < G_N_ELEMENTS (nets); i++)
    {
      const TimingNet *net = &nets[i];
      g_autofree char *model = g_build_filename (data, "timing", net->file, NULL);
      g_autofree double *fwd = g_new (double, repeats);
      g_autofree double *bwd = g_new (double, repeats);
      g_autofree double *tot = g_new (double, repeats);
      char fwd_ratio[32] = "-", caffe[32] = "-", ratio[32] = "-";
      double f, b, t, planned = -1, peak = 0;
      guint done = 0;

      for (guint r = 0; r < repeats; r++)
        {
          double rss = 0;

          if (!run_once (cli, model, net->iterations, &fwd[done], &bwd[done], &tot[done],
                         &planned, &rss))
            continue;
          peak = MAX (peak, rss);
          done++;
        }
      if (done == 0)
        {
          failures++;
          continue;
        }
      f = median (fwd, done);
      b = median (bwd, done);
      t = median (tot, done);
      if (net->caffe_forward > 0)
        g_snprintf (fwd_ratio, sizeof fwd_ratio, "%.2f", f / net->caffe_forward);
      if (net->caffe_total > 0)
        {
          g_snprintf (caffe, sizeof caffe, "%.1f", net->caffe_total);
          g_snprintf (ratio, sizeof ratio, "%.2f", t / net->caffe_total);
        }
      g_print ("%-22s %10.1f %10.1f %10.1f %10s %8s %8s %10.1f %10.0f\n", net->label, f, b, t,
               caffe, ratio, fwd_ratio, planned, peak);
    }
  load_after = load_average ();
  g_print ("bench-nets: load average %s after (Caffe's figures: an idle machine)\n",
           load_after);
  return failures > 0 ? 1 : 0;
}
