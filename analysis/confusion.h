/* confusion.h: the confusion matrix of a classifier over a test set: how
 * often each true class was predicted as each class, each class's
 * precision, recall and accuracy, and every sample's label, prediction and
 * confidence, so that a view can list a cell's samples or the mistakes the
 * net was surest of.
 *
 * The prediction is the class of the highest score (the lowest index on a
 * tie), the confidence its softmax probability (the score itself when the
 * scores are a Softmax's output). A sample whose label is the ignore label
 * of the net's Accuracy or loss layer is not counted, as Accuracy skips it;
 * the matrix's diagonal over its total is then the accuracy
 * `cortado-cli test` prints. */
#pragma once

#include <glib.h>

#include "analysis-error.h"
#include "classifier.h"
#include "net.h"
#include "sample-store.h"

G_BEGIN_DECLS

typedef struct {
  guint64 index;      /* the sample's place in the test set, counting from 0 */
  guint label;
  guint predicted;
  float confidence;   /* probability of the predicted class */
  float label_probability;
} CtConfusionSample;

typedef struct {
  guint n_classes;
  guint64 *counts;    /* n_classes × n_classes: [label × n + predicted] */
  GArray *samples;    /* CtConfusionSample, in test-set order */
  guint64 next_index; /* the index the next sample gets */
  guint64 ignored;    /* samples with the ignore label */
} CtConfusion;

CtConfusion *ct_confusion_new (guint n_classes);
void ct_confusion_free (CtConfusion *confusion);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtConfusion, ct_confusion_free)

/* Count one sample given its K scores (STRIDE floats apart) and label;
 * PROBABILITIES: the scores are probabilities already. Labels outside the
 * classes are an error. */
gboolean ct_confusion_add (CtConfusion *confusion, const float *scores, gint64 stride,
                           gboolean probabilities, float label, GError **error);

/* Count every sample of the scores and labels the net holds now (after a
 * forward pass). */
gboolean ct_confusion_add_batch (CtConfusion *confusion, CtNet *net,
                                 const CtClassifier *classifier, GError **error);

/* Run the net forward ITERATIONS times (its data layers read the next
 * batch each time) and count every batch. PROGRESS is told after each
 * pass. The net needs labels (CT_ANALYSIS_ERROR_NO_CLASSIFIER otherwise). */
CtConfusion *ct_confusion_run (CtNet *net, const CtClassifier *classifier, guint iterations,
                               CtAnalysisProgressFunc progress, gpointer user_data,
                               GError **error);
/* The same, and the images of blob INPUT_BLOB added to STORE after each
 * pass, so that sample i's image is ct_sample_store_get (STORE, i) (for
 * scores of one row per image). */
CtConfusion *ct_confusion_run_keeping (CtNet *net, const CtClassifier *classifier,
                                       guint iterations, guint input_blob,
                                       CtSampleStore *store, CtAnalysisProgressFunc progress,
                                       gpointer user_data, GError **error);

guint64 ct_confusion_count (const CtConfusion *confusion, guint label, guint predicted);
guint64 ct_confusion_total (const CtConfusion *confusion);
guint64 ct_confusion_correct (const CtConfusion *confusion);
/* correct / total (0 when empty) */
double ct_confusion_accuracy (const CtConfusion *confusion);
/* For class C: of the samples predicted C, the share that are C; of the
 * samples that are C, the share predicted C; and the share of all samples
 * on which "is it C?" is answered right. NaN when the share is 0 / 0. */
double ct_confusion_precision (const CtConfusion *confusion, guint c);
double ct_confusion_recall (const CtConfusion *confusion, guint c);
double ct_confusion_class_accuracy (const CtConfusion *confusion, guint c);

/* The samples of cell (LABEL, PREDICTED), most confident first: a new
 * array of CtConfusionSample. */
GArray *ct_confusion_cell_samples (const CtConfusion *confusion, guint label, guint predicted);
/* Every misclassified sample, most confident first. */
GArray *ct_confusion_misclassified (const CtConfusion *confusion);

G_END_DECLS
