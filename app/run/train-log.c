/* train-log.c: the training-log reader (see train-log.h). */
#include "train-log.h"

#include <string.h>

/* A line longer than this is no log line: it is dropped up to its end,
 * so that a binary file cannot make the pending buffer grow without end. */
#define MAX_LINE 4096

typedef struct
{
  char *name;
  char *output;
  int net;
  GArray *points;
} TestSeries;

struct _CtTrainLog
{
  GString *pending;      /* the partial last line */
  gboolean overlong;     /* dropping a too-long line until its end */
  GArray *loss;
  GArray *lr;
  GPtrArray *tests;      /* TestSeries */
  int test_iter;         /* from "Iteration N, Testing net (#k)" */
  int test_net;
  guint64 n_lines;
};

static void
test_series_free (gpointer data)
{
  TestSeries *series = data;

  g_free (series->name);
  g_free (series->output);
  g_array_unref (series->points);
  g_free (series);
}

CtTrainLog *
ct_train_log_new (void)
{
  CtTrainLog *log = g_new0 (CtTrainLog, 1);

  log->pending = g_string_new (NULL);
  log->loss = g_array_new (FALSE, FALSE, sizeof (CtTrainLogPoint));
  log->lr = g_array_new (FALSE, FALSE, sizeof (CtTrainLogPoint));
  log->tests = g_ptr_array_new_with_free_func (test_series_free);
  log->test_iter = -1;
  return log;
}

void
ct_train_log_free (CtTrainLog *log)
{
  if (log == NULL)
    return;
  g_string_free (log->pending, TRUE);
  g_array_unref (log->loss);
  g_array_unref (log->lr);
  g_ptr_array_unref (log->tests);
  g_free (log);
}

/* Skips glog's prefix, "I1129 06:12:01.123456  1234 file.cpp:218] " (newer
 * glog writes the year too: "I20261129 ..."); a line without one is read
 * from its first non-blank character. */
static const char *
skip_prefix (const char *line)
{
  const char *end;

  if (strchr ("IWEF", line[0]) != NULL && line[0] != '\0' && g_ascii_isdigit (line[1]) &&
      (end = strstr (line, "] ")) != NULL)
    line = end + 2;
  while (*line == ' ' || *line == '\t')
    line++;
  return line;
}

/* Reads a non-negative int at *P and moves *P past it. */
static gboolean
read_int (const char **p, int *value)
{
  char *end = NULL;
  guint64 number;

  if (!g_ascii_isdigit (**p))
    return FALSE;
  number = g_ascii_strtoull (*p, &end, 10);
  if (end == *p || number > G_MAXINT)
    return FALSE;
  *value = (int) number;
  *p = end;
  return TRUE;
}

/* Reads a number as C++'s ostream writes it ("0.25", "1e-05", "nan",
 * "inf", "-inf") at P. */
static gboolean
read_number (const char *p, double *value)
{
  char *end = NULL;

  *value = g_ascii_strtod (p, &end);
  return end != p;
}

static gboolean
starts_with (const char **p, const char *prefix)
{
  gsize len = strlen (prefix);

  if (strncmp (*p, prefix, len) != 0)
    return FALSE;
  *p += len;
  return TRUE;
}

static void
add_point (GArray *series, int iter, double value)
{
  CtTrainLogPoint point = { iter, value };

  g_array_append_val (series, point);
}

static GArray *
test_series (CtTrainLog *log, int net, const char *name, gsize name_len)
{
  g_autofree char *output = g_strndup (name, name_len);
  g_autofree char *full = net == 0 ? g_strdup (output) : g_strdup_printf ("#%d %s", net, output);
  TestSeries *series;

  for (guint i = 0; i < log->tests->len; i++)
    {
      series = g_ptr_array_index (log->tests, i);
      if (strcmp (series->name, full) == 0)
        return series->points;
    }
  series = g_new0 (TestSeries, 1);
  series->name = g_steal_pointer (&full);
  series->output = g_steal_pointer (&output);
  series->net = net;
  series->points = g_array_new (FALSE, FALSE, sizeof (CtTrainLogPoint));
  g_ptr_array_add (log->tests, series);
  return series->points;
}

/* "Iteration N, loss = X", "Iteration N (… iter/s, …), loss = X",
 * "Iteration N, lr = Y", "Iteration N, Testing net (#k)". */
static guint
read_iteration (CtTrainLog *log, const char *p)
{
  int iter, net;
  const char *loss;
  double value;

  if (!read_int (&p, &iter))
    return 0;
  if (starts_with (&p, ", lr = "))
    {
      if (!read_number (p, &value))
        return 0;
      add_point (log->lr, iter, value);
      return 1;
    }
  if (starts_with (&p, ", Testing net (#"))
    {
      if (!read_int (&p, &net) || *p != ')')
        return 0;
      log->test_iter = iter;
      log->test_net = net;
      return 0;
    }
  if (*p == ' ' && p[1] == '(' && (loss = strstr (p, "), loss = ")) != NULL)
    p = loss + 1;
  if (!starts_with (&p, ", loss = ") || !read_number (p, &value))
    return 0;
  add_point (log->loss, iter, value);
  return 1;
}

/* "Test net output #k: NAME = A" or "… = A (* W = L loss)". */
static guint
read_test_output (CtTrainLog *log, const char *p)
{
  int index;
  const char *name, *equals;
  double value;

  if (log->test_iter < 0 || !read_int (&p, &index) || !starts_with (&p, ": "))
    return 0;
  name = p;
  equals = strstr (name, " = ");
  if (equals == NULL || equals == name || !read_number (equals + 3, &value))
    return 0;
  add_point (test_series (log, log->test_net, name, equals - name), log->test_iter, value);
  return 1;
}

static guint
read_line (CtTrainLog *log, const char *line)
{
  const char *p = skip_prefix (line);

  log->n_lines++;
  if (starts_with (&p, "Iteration "))
    return read_iteration (log, p);
  if (starts_with (&p, "Test net output #"))
    return read_test_output (log, p);
  return 0;
}

guint
ct_train_log_feed (CtTrainLog *log, const char *bytes, gsize len)
{
  guint added = 0;

  g_return_val_if_fail (log != NULL, 0);
  g_return_val_if_fail (bytes != NULL || len == 0, 0);
  for (gsize i = 0; i < len; i++)
    {
      char c = bytes[i];

      if (c == '\n')
        {
          if (!log->overlong)
            added += read_line (log, log->pending->str);
          log->overlong = FALSE;
          g_string_truncate (log->pending, 0);
        }
      else if (log->overlong)
        continue;
      else if (log->pending->len >= MAX_LINE)
        {
          log->overlong = TRUE;
          g_string_truncate (log->pending, 0);
        }
      else if (c != '\r' && c != '\0')
        g_string_append_c (log->pending, c);
    }
  return added;
}

const GArray *
ct_train_log_get_loss (const CtTrainLog *log)
{
  return log->loss;
}

const GArray *
ct_train_log_get_lr (const CtTrainLog *log)
{
  return log->lr;
}

guint
ct_train_log_get_n_tests (const CtTrainLog *log)
{
  return log->tests->len;
}

const char *
ct_train_log_get_test_name (const CtTrainLog *log, guint index)
{
  g_return_val_if_fail (index < log->tests->len, NULL);
  return ((TestSeries *) g_ptr_array_index (log->tests, index))->name;
}

const GArray *
ct_train_log_get_test (const CtTrainLog *log, guint index)
{
  g_return_val_if_fail (index < log->tests->len, NULL);
  return ((TestSeries *) g_ptr_array_index (log->tests, index))->points;
}

const char *
ct_train_log_get_test_output (const CtTrainLog *log, guint index, int *net)
{
  TestSeries *series;

  g_return_val_if_fail (index < log->tests->len, NULL);
  series = g_ptr_array_index (log->tests, index);
  if (net != NULL)
    *net = series->net;
  return series->output;
}

guint64
ct_train_log_get_n_lines (const CtTrainLog *log)
{
  return log->n_lines;
}
