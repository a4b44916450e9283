/* bench-text.c: how long parsing and printing a large prototxt takes.
 *
 * Parses and prints the largest net of tests/data/zoo (Inception-ResNet-v2,
 * about 236 KB) 50 times after a few warm-up rounds, and prints the median
 * of each phase in milliseconds, wall clock and this thread's CPU time
 * (the machines are shared: CPU time does not count time spent preempted).
 * The goal is parse + print under 5 ms. */
#include <stdlib.h>
#include <time.h>

#include "caffe.pb-c.h"
#include "text-format.h"

#define N_RUNS 50
#define N_WARMUP 5
#define GOAL_MS 5.0

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static gint64
cpu_time_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int
main (int argc, char **argv)
{
  const char *data = g_getenv ("CT_TEST_DATA");
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  double parse_ms[N_RUNS], print_ms[N_RUNS], total_ms[N_RUNS], cpu_ms[N_RUNS];
  gsize length, printed_length = 0;

  path = g_build_filename (data != NULL ? data : CT_TEST_SOURCE_DIR "/tests/data", "zoo",
                           "inception_resnet_v2", "deploy_inception-resnet-v2.prototxt", NULL);
  if (!g_file_get_contents (path, &text, &length, &error))
    {
      g_printerr ("bench-text: %s\n", error->message);
      return 1;
    }

  for (guint run = 0; run < N_WARMUP + N_RUNS; run++)
    {
      gint64 t0, t1, t2, c0, c2;
      ProtobufCMessage *msg;
      char *out;

      c0 = cpu_time_us ();
      t0 = g_get_monotonic_time ();
      msg = ct_text_parse (&caffe__net_parameter__descriptor, text, (gssize) length, path,
                           CT_TEXT_STRICT, &error);
      t1 = g_get_monotonic_time ();
      if (msg == NULL)
        {
          g_printerr ("bench-text: %s\n", error->message);
          return 1;
        }
      out = ct_text_print (msg);
      t2 = g_get_monotonic_time ();
      c2 = cpu_time_us ();

      printed_length = strlen (out);
      g_free (out);
      protobuf_c_message_free_unpacked (msg, NULL);

      if (run >= N_WARMUP)
        {
          parse_ms[run - N_WARMUP] = (t1 - t0) / 1000.0;
          print_ms[run - N_WARMUP] = (t2 - t1) / 1000.0;
          total_ms[run - N_WARMUP] = (t2 - t0) / 1000.0;
          cpu_ms[run - N_WARMUP] = (c2 - c0) / 1000.0;
        }
    }

  {
    double total = median (total_ms, N_RUNS);

    g_print ("bench-text: %s (%" G_GSIZE_FORMAT " bytes in, %" G_GSIZE_FORMAT " bytes out), "
             "median of %d runs\n", path, length, printed_length, N_RUNS);
    g_print ("  parse  %.3f ms\n", median (parse_ms, N_RUNS));
    g_print ("  print  %.3f ms\n", median (print_ms, N_RUNS));
    g_print ("  total  %.3f ms (goal < %.0f ms)%s\n", total, GOAL_MS,
             total < GOAL_MS ? "" : "  OVER GOAL");
    g_print ("  cpu    %.3f ms (parse + print, this thread's CPU time)\n", median (cpu_ms, N_RUNS));
  }
  return 0;
}
