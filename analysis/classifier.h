/* classifier.h: where a net's class scores and labels are. Every analysis
 * of "which class" starts here: the confusion matrix reads the scores and
 * the labels, saliency and Grad-CAM start their backward pass from one
 * score, occlusion watches one score fall.
 *
 * Found, in order: the blob named by the caller; the bottoms of the first
 * Accuracy layer (scores, labels), so that the confusion matrix counts what
 * `cortado-cli test` counts; the bottoms of the first SoftmaxWithLoss
 * layer; the first output of the net that is a Softmax's top. A blob that a
 * Split layer copies is traced back to the blob it copies, so that a
 * backward pass starts at the layer that computed the scores. */
#pragma once

#include <glib.h>

#include "net.h"

G_BEGIN_DECLS

typedef struct {
  guint score_blob;      /* the scores, N × K (× inner) along AXIS */
  guint score_layer;     /* the last layer that writes them */
  int label_blob;        /* the labels, or -1 when the net has none */
  int axis;              /* the class axis, canonical (1 for N × K) */
  gboolean probabilities; /* the scores are a Softmax's output */
  gboolean has_ignore_label;
  int ignore_label;
} CtClassifier;

/* SCORE_NAME: the scores' blob, or NULL to look for it. */
gboolean ct_classifier_find (CtNet *net, const char *score_name, CtClassifier *classifier,
                             GError **error);

/* The number of classes (the scores' extent along the class axis), the
 * samples per pass (before the axis) and the positions per sample (after
 * it: 1 for N × K). */
guint ct_classifier_n_classes (CtNet *net, const CtClassifier *classifier);
gint64 ct_classifier_outer (CtNet *net, const CtClassifier *classifier);
gint64 ct_classifier_inner (CtNet *net, const CtClassifier *classifier);

/* The last layer whose tops include blob BLOB (-1: none, a net input). */
int ct_net_last_writer (CtNet *net, guint blob);

/* Softmax of the K scores at SCORES, STRIDE apart, into PROBS (K). */
void ct_softmax_strided (const float *scores, guint k, gint64 stride, float *probs);

G_END_DECLS
