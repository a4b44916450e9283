/* train-log.h: reads a training log as it grows.
 *
 * Cortado's `cortado-cli train` and real Caffe print the same lines
 * ("Iteration 100, loss = 0.3", "Iteration 100, lr = 0.01",
 * "    Test net output #0: accuracy = 0.98"), each after a glog prefix
 * such as "I1129 06:12:01.123456  1234 solver.cpp:218] ". CtTrainLog
 * takes the file's bytes in any pieces, waits for the end of a partial
 * last line, and keeps one series per quantity: the training loss, the
 * learning rate, and each test net output. Lines it does not know are
 * skipped; no input makes it fail. No GTK. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  int iter;
  double value;
} CtTrainLogPoint;

typedef struct _CtTrainLog CtTrainLog;

CtTrainLog *ct_train_log_new (void);
void ct_train_log_free (CtTrainLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtTrainLog, ct_train_log_free)

/* Reads LEN more bytes of the log. Returns how many points the complete
 * lines among them added to the series. */
guint ct_train_log_feed (CtTrainLog *log, const char *bytes, gsize len);

/* The points of the training loss and the learning rate, in the order
 * of the log (CtTrainLogPoint each). */
const GArray *ct_train_log_get_loss (const CtTrainLog *log);
const GArray *ct_train_log_get_lr (const CtTrainLog *log);

/* The test outputs, one series per test net and output name, in the
 * order they first appeared. The name is the output's ("accuracy"), or
 * "#1 accuracy" for a second test net. */
guint ct_train_log_get_n_tests (const CtTrainLog *log);
const char *ct_train_log_get_test_name (const CtTrainLog *log, guint index);
const GArray *ct_train_log_get_test (const CtTrainLog *log, guint index);
/* The output's own name ("accuracy"), and in *NET its test net (0 for
 * the first). */
const char *ct_train_log_get_test_output (const CtTrainLog *log, guint index, int *net);

/* How many complete lines were read. */
guint64 ct_train_log_get_n_lines (const CtTrainLog *log);

G_END_DECLS
