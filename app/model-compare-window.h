/* model-compare-window.h: CtModelCompareWindow, two caffemodels of one
 * net side by side: what training changed between two snapshots (or
 * between the weights loaded and another file), per parameter blob:
 * ‖Δw‖/‖w‖ as a bar and a number, and the largest change of one value;
 * the legend of the colours the graph gives each layer (and a button that
 * asks to clear them); a blob picked shown as the first model has it, the
 * second, and their difference, with its largest changes listed.
 *
 * Signals: "compared" (void) once the comparison is done; "clear-marks"
 * (void) when the user asks to take the colours off the graph. */
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

/* CtLayerChange* (weight-compare.h) per layer, once compared; else NULL. */
const GPtrArray *ct_model_compare_window_get_layers (CtModelCompareWindow *self);

/* Show blob 0 of LAYER (the graph's selection follows here); FALSE when
 * the comparison has no such layer (yet). */
gboolean ct_model_compare_window_select_layer (CtModelCompareWindow *self, const char *layer);

/* For tests: the list of largest changes as shown, and the heatmap of the
 * first model (0), the second (1) or their difference (2). */
const char *ct_model_compare_window_get_changes_text (CtModelCompareWindow *self);
GtkWidget *ct_model_compare_window_get_view (CtModelCompareWindow *self, guint which);

G_END_DECLS
