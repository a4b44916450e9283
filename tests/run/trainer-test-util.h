/* trainer-test-util.h: what the trainer's tests share: a small solver
 * (DummyData → Convolution → ReLU → InnerProduct → SoftmaxWithLoss, with
 * an Accuracy in TEST; constant data, so that a resumed run reads what the
 * uninterrupted one read), and a fixture that gathers every progress a
 * trainer hands over while the test iterates the main context. */
#pragma once

#include <glib.h>

#include "trainer.h"

G_BEGIN_DECLS

/* The solver, with EXTRA (fields the text lacks; may be "") appended;
 * tests change its fields for the rest. */
Caffe__SolverParameter *ct_test_train_param (const char *extra);
void ct_test_train_param_free (Caffe__SolverParameter *param);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Caffe__SolverParameter, ct_test_train_param_free)

typedef struct {
  CtTrainer *trainer;
  CtTrainProgress *last;  /* the latest progress */
  CtTrainProgress *watch; /* the latest progress with a watch copy */
  guint received;
  GArray *points;         /* CtTrainPoint: every point of every progress */
  GArray *tests;          /* CtTrainTestPoint */
  GArray *ratios;         /* CtTrainRatio */
  GPtrArray *files;       /* char* */
  GPtrArray *snapshots;   /* CtRunSnapshot*: every breakpoint snapshot */
  GError *error;          /* the first error */
} CtTestTrain;

void ct_test_train_init (CtTestTrain *t, const Caffe__SolverParameter *param,
                         const CtTrainConfig *config);
/* The same for a solver read from SOURCE_PATH. */
void ct_test_train_init_from (CtTestTrain *t, const Caffe__SolverParameter *param,
                              const char *source_path, const CtTrainConfig *config);
void ct_test_train_clear (CtTestTrain *t);
/* Iterate the main context until the latest progress has STATE (failing
 * after 60 s); returns it (borrowed). */
CtTrainProgress *ct_test_train_until (CtTestTrain *t, CtTrainState state);
/* Iterate until a progress at least ITER iterations in arrives. */
CtTrainProgress *ct_test_train_until_iter (CtTestTrain *t, int iter);
/* Iterate until N files were written in all, with no error. */
void ct_test_train_wait_files (CtTestTrain *t, guint n);
/* Iterate the main context for MS milliseconds. */
void ct_test_train_spin (guint ms);

G_END_DECLS
