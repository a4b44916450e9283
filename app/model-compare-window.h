/* model-compare-window.h: CtModelCompareWindow, two caffemodels of one
 * net side by side: what training changed between two snapshots (or
 * between the weights loaded and another file), per parameter blob:
 * ‖Δw‖/‖w‖ as a bar and a number, and the largest change of one value. */
#pragma once

#include <gtk/gtk.h>

#include "model-diff.h"

G_BEGIN_DECLS

#define CT_TYPE_MODEL_COMPARE_WINDOW (ct_model_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (CtModelCompareWindow, ct_model_compare_window, CT, MODEL_COMPARE_WINDOW,
                      GtkWindow)

/* Compares SECOND against FIRST (Δw = second − first) on a worker thread. */
CtModelCompareWindow *ct_model_compare_window_new (GtkWindow *parent, const char *first,
                                                   const char *second);

/* The comparison, or NULL until it is done (or when it failed). */
const CtModelDiff *ct_model_compare_window_get_diff (CtModelCompareWindow *self);

G_END_DECLS
