/* analysis-net.h: a net made ready for the analyses of one input, and the
 * passes they run on it.
 *
 * Saliency, Grad-CAM and occlusion put an image (or a batch of altered
 * copies) into the net's input blob and run only the layers between it and
 * the scores: from the layer after the one that writes the input (an Input
 * or a Data layer, which would otherwise read a new batch) to the layer
 * that writes the scores (the loss and accuracy layers, which need labels
 * of the same batch size, are left out). The input blob is reshaped to the
 * batch wanted; the layers run reshape themselves. The backward pass from a
 * score down to the input needs a net built with force_backward, as
 * ct_analysis_load_net builds it. */
#pragma once

#include <glib.h>

#include "classifier.h"
#include "net.h"

G_BEGIN_DECLS

/* MODEL (a prototxt, upgraded when old) built in PHASE, with
 * force_backward when FORCE_BACKWARD, and WEIGHTS (comma-separated
 * caffemodels, or NULL) copied in. Errors name the file. */
CtNet *ct_analysis_load_net (const char *model, const char *weights, Caffe__Phase phase,
                             gboolean force_backward, GError **error);
/* The same from PARAM (not modified), e.g. a document's net with its data
 * paths resolved; errors name SOURCE_NAME. */
CtNet *ct_analysis_net_new (const Caffe__NetParameter *param, const char *source_name,
                            const char *weights, Caffe__Phase phase, gboolean force_backward,
                            GError **error);

/* Where an image goes in, and the layers that run from it to the scores. */
typedef struct {
  guint input_blob;
  guint first_layer;   /* the first layer after the one that writes the input */
  guint score_layer;   /* the classifier's score_layer */
  guint channels, height, width;
} CtAnalysisPath;

/* INPUT_NAME: the input blob (NULL: the net's first input, else "data").
 * The input must be N × C × H × W and come before the scores. */
gboolean ct_analysis_path_init (CtAnalysisPath *path, CtNet *net,
                                const CtClassifier *classifier, const char *input_name,
                                GError **error);

/* Reshape the input to BATCH images of C × H × W and return its data to
 * fill (BATCH × C × H × W floats). */
float *ct_analysis_path_batch (const CtAnalysisPath *path, CtNet *net, guint batch,
                               GError **error);

/* Forward from the first layer to the scores. */
gboolean ct_analysis_path_forward (const CtAnalysisPath *path, CtNet *net, GError **error);

/* The scores of the last forward: the classifier's blob, checked to be one
 * row of K per image (inner 1). */
const float *ct_analysis_path_scores (const CtAnalysisPath *path, CtNet *net,
                                      const CtClassifier *classifier, guint *n_classes,
                                      GError **error);

/* Set the scores' diff to 1 at (sample 0, CLASS) and 0 elsewhere and run
 * backward from the score layer down to layer END (inclusive, >=
 * first_layer). */
gboolean ct_analysis_path_backward_from_class (const CtAnalysisPath *path, CtNet *net,
                                               const CtClassifier *classifier, guint klass,
                                               guint end, GError **error);

/* One IMAGE (channels × height × width floats) forward, then backward from
 * its score of CLASS down to layer END, as saliency and Grad-CAM need;
 * *SCORE (when not NULL) gets that score. */
gboolean ct_analysis_path_explain_class (const CtAnalysisPath *path, CtNet *net,
                                         const CtClassifier *classifier, const float *image,
                                         guint klass, guint end, float *score, GError **error);

G_END_DECLS
