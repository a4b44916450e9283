/* test-train-log.c: the training-log reader (app/run/train-log.c) on a
 * real Caffe log and a Cortado log (tests/data/train-logs), fed whole,
 * in pieces and cut short, and on garbage. */
#include <math.h>
#include <string.h>

#include "train-log.h"

static char *
read_sample (const char *name, gsize *len)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA"), "train-logs", name, NULL);
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, len, &error);
  g_assert_no_error (error);
  return text;
}

static void
assert_points (const GArray *series, const int *iters, const double *values, guint n)
{
  g_assert_cmpuint (series->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const CtTrainLogPoint *point = &g_array_index (series, CtTrainLogPoint, i);

      g_assert_cmpint (point->iter, ==, iters[i]);
      g_assert_cmpfloat_with_epsilon (point->value, values[i], 1e-9 * fabs (values[i]) + 1e-12);
    }
}

/* The first N points of A and B are the same (compared field by field:
 * the padding after iter holds anything). */
static void
assert_same_points (const GArray *a, const GArray *b, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      const CtTrainLogPoint *pa = &g_array_index (a, CtTrainLogPoint, i);
      const CtTrainLogPoint *pb = &g_array_index (b, CtTrainLogPoint, i);

      g_assert_cmpint (pa->iter, ==, pb->iter);
      g_assert_true (pa->value == pb->value || (isnan (pa->value) && isnan (pb->value)));
    }
}

static void
assert_same_series (const GArray *a, const GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  assert_same_points (a, b, a->len);
}

static void
assert_same_log (const CtTrainLog *a, const CtTrainLog *b)
{
  assert_same_series (ct_train_log_get_loss (a), ct_train_log_get_loss (b));
  assert_same_series (ct_train_log_get_lr (a), ct_train_log_get_lr (b));
  g_assert_cmpuint (ct_train_log_get_n_tests (a), ==, ct_train_log_get_n_tests (b));
  for (guint i = 0; i < ct_train_log_get_n_tests (a); i++)
    {
      g_assert_cmpstr (ct_train_log_get_test_name (a, i), ==, ct_train_log_get_test_name (b, i));
      assert_same_series (ct_train_log_get_test (a, i), ct_train_log_get_test (b, i));
    }
  g_assert_cmpuint (ct_train_log_get_n_lines (a), ==, ct_train_log_get_n_lines (b));
}

/* Series A is a beginning of series B. */
static void
assert_prefix_series (const GArray *a, const GArray *b)
{
  g_assert_cmpuint (a->len, <=, b->len);
  assert_same_points (a, b, a->len);
}

static CtTrainLog *
read_whole (const char *text, gsize len)
{
  CtTrainLog *log = ct_train_log_new ();

  ct_train_log_feed (log, text, len);
  return log;
}

/* The figures are those of the sample, read by eye. */
static void
test_caffe_log (void)
{
  static const int loss_iters[] = { 0, 5, 10, 15, 20, 25, 30 };
  static const double loss[] = { 1.22409, 0.457279, 0.0925634, 0.0207395, 0.0145266,
                                 0.00447164, 0.00490711 };
  static const int lr_iters[] = { 0, 5, 10, 15, 20, 25 };
  static const double lr[] = { 0.1, 0.1, 0.05, 0.05, 0.025, 0.025 };
  static const int test_iters[] = { 0, 10, 20, 30 };
  static const double accuracy[] = { 0.1875, 1, 1, 1 };
  static const double test_loss[] = { 1.60781, 0.0918779, 0.0110117, 0.00555623 };
  gsize len;
  g_autofree char *text = read_sample ("caffe-tiny.log", &len);
  g_autoptr (CtTrainLog) log = read_whole (text, len);

  assert_points (ct_train_log_get_loss (log), loss_iters, loss, G_N_ELEMENTS (loss));
  assert_points (ct_train_log_get_lr (log), lr_iters, lr, G_N_ELEMENTS (lr));
  g_assert_cmpuint (ct_train_log_get_n_tests (log), ==, 2);
  g_assert_cmpstr (ct_train_log_get_test_name (log, 0), ==, "accuracy");
  g_assert_cmpstr (ct_train_log_get_test_name (log, 1), ==, "loss");
  assert_points (ct_train_log_get_test (log, 0), test_iters, accuracy, 4);
  assert_points (ct_train_log_get_test (log, 1), test_iters, test_loss, 4);
}

static void
test_cortado_log (void)
{
  gsize len;
  g_autofree char *text = read_sample ("cortado-tiny.log", &len);
  g_autoptr (CtTrainLog) log = read_whole (text, len);
  const GArray *loss = ct_train_log_get_loss (log), *lr = ct_train_log_get_lr (log);

  /* The same solver as the Caffe sample: display 5, max_iter 30, step lr. */
  g_assert_cmpuint (loss->len, ==, 7);
  g_assert_cmpuint (lr->len, ==, 6);
  for (guint i = 0; i < lr->len; i++)
    {
      const CtTrainLogPoint *point = &g_array_index (lr, CtTrainLogPoint, i);

      g_assert_cmpint (point->iter, ==, 5 * (int) i);
      g_assert_cmpfloat (point->value, ==, 0.1 * pow (0.5, point->iter / 10));
    }
  g_assert_cmpint (g_array_index (loss, CtTrainLogPoint, 6).iter, ==, 30);
  g_assert_cmpuint (ct_train_log_get_n_tests (log), ==, 2);
  g_assert_cmpstr (ct_train_log_get_test_name (log, 0), ==, "accuracy");
  g_assert_cmpstr (ct_train_log_get_test_name (log, 1), ==, "loss");
  g_assert_cmpuint (ct_train_log_get_test (log, 0)->len, ==, 4);
  g_assert_cmpint (g_array_index (ct_train_log_get_test (log, 0), CtTrainLogPoint, 3).iter, ==, 30);
  /* The net learns: the last test accuracy is 1, as in Caffe's run. */
  g_assert_cmpfloat (g_array_index (ct_train_log_get_test (log, 0), CtTrainLogPoint, 3).value,
                     ==, 1.0);
}

/* Fed in two pieces cut at every byte, the reader gives what it gives
 * for the whole file; and every prefix alone gives a beginning of it. */
static void
check_every_cut (const char *name)
{
  gsize len;
  g_autofree char *text = read_sample (name, &len);
  g_autoptr (CtTrainLog) whole = read_whole (text, len);

  for (gsize cut = 0; cut <= len; cut++)
    {
      g_autoptr (CtTrainLog) log = ct_train_log_new ();
      g_autoptr (CtTrainLog) prefix = NULL;
      guint added;

      added = ct_train_log_feed (log, text, cut);
      prefix = read_whole (text, cut);
      assert_same_log (log, prefix);
      assert_prefix_series (ct_train_log_get_loss (prefix), ct_train_log_get_loss (whole));
      assert_prefix_series (ct_train_log_get_lr (prefix), ct_train_log_get_lr (whole));
      for (guint i = 0; i < ct_train_log_get_n_tests (prefix); i++)
        assert_prefix_series (ct_train_log_get_test (prefix, i), ct_train_log_get_test (whole, i));
      added += ct_train_log_feed (log, text + cut, len - cut);
      assert_same_log (log, whole);
      g_assert_cmpuint (added, ==, ct_train_log_get_loss (whole)->len +
                                   ct_train_log_get_lr (whole)->len + 8);
    }
}

static void
test_every_cut (void)
{
  check_every_cut ("caffe-tiny.log");
  check_every_cut ("cortado-tiny.log");
}

/* One byte at a time: a line counts only once its end has come. */
static void
test_byte_by_byte (void)
{
  gsize len;
  g_autofree char *text = read_sample ("caffe-tiny.log", &len);
  g_autoptr (CtTrainLog) whole = read_whole (text, len);
  g_autoptr (CtTrainLog) log = ct_train_log_new ();

  for (gsize i = 0; i < len; i++)
    {
      guint added = ct_train_log_feed (log, text + i, 1);

      if (text[i] != '\n')
        g_assert_cmpuint (added, ==, 0);
    }
  assert_same_log (log, whole);
}

static void
test_partial_line_waits (void)
{
  g_autoptr (CtTrainLog) log = ct_train_log_new ();

  g_assert_cmpuint (ct_train_log_feed (log, "Iteration 40, loss = 0.5", 24), ==, 0);
  g_assert_cmpuint (ct_train_log_get_loss (log)->len, ==, 0);
  /* The rest of the number comes later: 0.55, never 0.5. */
  g_assert_cmpuint (ct_train_log_feed (log, "5\r\n", 3), ==, 1);
  g_assert_cmpfloat (g_array_index (ct_train_log_get_loss (log), CtTrainLogPoint, 0).value, ==,
                     0.55);
  g_assert_cmpint (g_array_index (ct_train_log_get_loss (log), CtTrainLogPoint, 0).iter, ==, 40);
}

/* A second test net's outputs are a series of their own. */
static void
test_second_test_net (void)
{
  static const char text[] =
    "I1129 06:12:01.1  1 solver.cpp:347] Iteration 100, Testing net (#0)\n"
    "I1129 06:12:01.1  1 solver.cpp:414]     Test net output #0: accuracy = 0.5\n"
    "I1129 06:12:01.1  1 solver.cpp:347] Iteration 100, Testing net (#1)\n"
    "I1129 06:12:01.1  1 solver.cpp:414]     Test net output #0: accuracy = 0.25\n"
    "    Test net output #1: loss = nan (* 1 = nan loss)\n";
  g_autoptr (CtTrainLog) log = ct_train_log_new ();
  int net = -1;

  g_assert_cmpuint (ct_train_log_feed (log, text, strlen (text)), ==, 3);
  g_assert_cmpuint (ct_train_log_get_n_tests (log), ==, 3);
  g_assert_cmpstr (ct_train_log_get_test_name (log, 0), ==, "accuracy");
  g_assert_cmpstr (ct_train_log_get_test_name (log, 1), ==, "#1 accuracy");
  g_assert_cmpstr (ct_train_log_get_test_name (log, 2), ==, "#1 loss");
  g_assert_cmpstr (ct_train_log_get_test_output (log, 2, &net), ==, "loss");
  g_assert_cmpint (net, ==, 1);
  g_assert_cmpstr (ct_train_log_get_test_output (log, 0, &net), ==, "accuracy");
  g_assert_cmpint (net, ==, 0);
  g_assert_cmpfloat (g_array_index (ct_train_log_get_test (log, 1), CtTrainLogPoint, 0).value, ==,
                     0.25);
  g_assert_true (isnan (g_array_index (ct_train_log_get_test (log, 2), CtTrainLogPoint, 0).value));
}

/* Lines that look almost like the log's add nothing. */
static void
test_near_misses (void)
{
  static const char *const lines[] = {
    "Iteration",
    "Iteration ",
    "Iteration -5, loss = 1",
    "Iteration 99999999999999999999, loss = 1",
    "Iteration 5, loss = ",
    "Iteration 5, loss = x",
    "Iteration 5, lr =",
    "Iteration 5 (, loss",
    "Iteration 5/30  loss 0.5  lr 0.1  100 it/s  ETA 0s",
    "Iteration 5, Testing net (#",
    "Iteration 5, Testing net (#x)",
    "Test net output #0: accuracy = 1",   /* no "Testing net" before it */
    "I",
    "I1",
    "I1129 06:12:01.1  1 solver.cpp:414]",
    "]",
    "",
  };
  g_autoptr (CtTrainLog) log = ct_train_log_new ();

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *line = g_strconcat (lines[i], "\n", NULL);

      g_assert_cmpuint (ct_train_log_feed (log, line, strlen (line)), ==, 0);
    }
  g_assert_cmpuint (ct_train_log_feed (log, "Iteration 1, Testing net (#0)\n", 30), ==, 0);
  g_assert_cmpuint (ct_train_log_feed (log, "Test net output #0:  = 1\n", 25), ==, 0);
  g_assert_cmpuint (ct_train_log_feed (log, "Test net output #0: x =\n", 24), ==, 0);
  g_assert_cmpuint (ct_train_log_get_n_tests (log), ==, 0);
  g_assert_cmpuint (ct_train_log_get_n_lines (log), ==, G_N_ELEMENTS (lines) + 3);
}

/* Random bytes and a huge line: no crash, the pending line stays small,
 * and a good line after them is read. */
static void
test_garbage (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (24);
  g_autoptr (CtTrainLog) log = ct_train_log_new ();
  g_autofree char *huge = g_malloc (1 << 20);
  char bytes[512];

  for (int round = 0; round < 2000; round++)
    {
      gsize len = g_rand_int_range (rand, 0, sizeof bytes);

      for (gsize i = 0; i < len; i++)
        bytes[i] = (char) g_rand_int_range (rand, 0, 256);
      ct_train_log_feed (log, bytes, len);
    }
  memset (huge, 'I', 1 << 20);
  memcpy (huge + (1 << 19), "\nIteration 7, lr = 0.5", 22);   /* inside the huge line: lost */
  ct_train_log_feed (log, "\n", 1);
  ct_train_log_feed (log, huge, 1 << 19);
  ct_train_log_feed (log, huge + (1 << 19), 1 << 19);
  ct_train_log_feed (log, "\nIteration 8, lr = 0.25\n", 24);
  ct_train_log_feed (log, NULL, 0);
  g_assert_cmpuint (ct_train_log_get_lr (log)->len, >=, 1);
  g_assert_cmpint (g_array_index (ct_train_log_get_lr (log), CtTrainLogPoint,
                                  ct_train_log_get_lr (log)->len - 1).iter, ==, 8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/train-log/caffe", test_caffe_log);
  g_test_add_func ("/train-log/cortado", test_cortado_log);
  g_test_add_func ("/train-log/every-cut", test_every_cut);
  g_test_add_func ("/train-log/byte-by-byte", test_byte_by_byte);
  g_test_add_func ("/train-log/partial-line", test_partial_line_waits);
  g_test_add_func ("/train-log/second-test-net", test_second_test_net);
  g_test_add_func ("/train-log/near-misses", test_near_misses);
  g_test_add_func ("/train-log/garbage", test_garbage);
  return g_test_run ();
}
