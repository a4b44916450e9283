/* saliency.h: which input values a class score is most sensitive to: the
 * gradient of the score of one class with respect to the input image, got
 * from the engine's backward pass started at that score (Simonyan et al.,
 * 2013). The map a view shows is, per pixel, the largest absolute gradient
 * over the channels. */
#pragma once

#include <glib.h>

#include "analysis-net.h"

G_BEGIN_DECLS

/* d score[KLASS] / d input for IMAGE (C × H × W floats, the path's size)
 * as the only image of the batch: C × H × W floats. *SCORE (may be NULL)
 * gets the score. The net must carry a gradient to the input
 * (force_backward). */
float *ct_saliency_gradient (CtNet *net, const CtClassifier *classifier,
                             const CtAnalysisPath *path, const float *image, guint klass,
                             float *score, GError **error);

/* Per pixel, the largest |GRADIENT| over the channels: H × W floats. */
float *ct_saliency_map (const float *gradient, guint channels, guint height, guint width);

G_END_DECLS
