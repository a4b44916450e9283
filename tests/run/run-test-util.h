/* run-test-util.h: what the runner's tests share: the small test net
 * (Input → Convolution → ReLU in place → InnerProduct fed twice to an
 * Eltwise, so that a Split is inserted → SoftmaxWithLoss), its inputs, and
 * a fixture that collects the snapshots a runner hands over while the test
 * iterates the main context. */
#pragma once

#include <glib.h>

#include "net.h"
#include "runner.h"

G_BEGIN_DECLS

extern const char ct_test_small_net[];

Caffe__NetParameter *ct_test_parse (const char *text);
void ct_test_param_free (Caffe__NetParameter *param);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Caffe__NetParameter, ct_test_param_free)

/* The small net's inputs: data 2×1×5×5 (sines), label {0, 2}. */
#define CT_TEST_DATA_COUNT 50
void ct_test_small_inputs (float *data, float *label);
void ct_test_set_small_inputs (CtRunner *runner);

typedef struct {
  CtRunner *runner;
  CtRunSnapshot *last;   /* the latest snapshot handed over */
  guint received;        /* how many were handed over */
  guint64 seen_serial;   /* the serial the test last waited for */
} CtTestRun;

/* A runner for TEXT with CONFIG, whose snapshots land in RUN. */
void ct_test_run_init (CtTestRun *run, const char *text, const CtRunConfig *config);
/* The same for the small net, its inputs given. */
void ct_test_run_init_small (CtTestRun *run, const CtRunConfig *config);
void ct_test_run_clear (CtTestRun *run);
/* Iterate the main context until a snapshot newer than the last one
 * waited for arrives (failing after 60 s); returns it (borrowed). */
CtRunSnapshot *ct_test_run_next (CtTestRun *run);
/* Iterate until the latest snapshot has PASS and NEXT_LAYER. */
CtRunSnapshot *ct_test_run_until (CtTestRun *run, CtRunPass pass, int next_layer);

/* The version list of watched blob NAME, asserted present. */
const CtRunBlob *ct_test_blob (CtRunSnapshot *snapshot, const char *name);
const float *ct_test_version_data (const CtRunVersion *version);
const float *ct_test_version_diff (const CtRunVersion *version);

G_END_DECLS
