/* analysis-window.h: CtAnalysisWindow, "What the Net Learned": the
 * confusion matrix of trained weights over the net's TEST data (click a
 * cell to browse its images, most confident first, or list the mistakes),
 * and for a chosen image its saliency, Grad-CAM or occlusion map over it
 * with an opacity, exportable as PNG and .npy. The work runs on a worker
 * thread with progress and cancel; the numbers come from analysis/. */
#pragma once

#include <gtk/gtk.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

#define CT_TYPE_ANALYSIS_WINDOW (ct_analysis_window_get_type ())
G_DECLARE_FINAL_TYPE (CtAnalysisWindow, ct_analysis_window, CT, ANALYSIS_WINDOW, GtkWindow)

/* A window for NET (copied; its data paths resolved) named NAME, with the
 * weights in WEIGHTS_PATH and the class names of LABELS_PATH (labels.txt,
 * or NULL); counting starts at once. */
CtAnalysisWindow *ct_analysis_window_new (GtkWindow *parent, const Caffe__NetParameter *net,
                                          const char *name, const char *weights_path,
                                          const char *labels_path);

/* The number of samples counted so far (0 before the first count ends). */
guint64 ct_analysis_window_get_total (CtAnalysisWindow *self);

/* The image picked (C × H × W floats as the net saw it, borrowed) and its
 * place in the test set, or NULL when none is. "Step Through This Image"
 * emits "step-through" for it: the workbench makes it the input of its
 * step view when it can. */
const float *ct_analysis_window_get_sample (CtAnalysisWindow *self, guint64 *index,
                                            guint *channels, guint *height, guint *width);

/* "Compare Weights With…" opens a CtModelCompareWindow and emits
 * "compare-opened" (CtModelCompareWindow *) with it, so that the workbench
 * shows the comparison on its graph too. */

G_END_DECLS
