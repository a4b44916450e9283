/* train-view.h: CtTrainView, the Training view beside the solver panel:
 * the live plots of the runs, the update ratio of each layer and the blob
 * followed (see train-view.c). The window's training controller
 * (window-train.c) hands it every progress of the trainer. */
#pragma once

#include <gtk/gtk.h>

#include "plot-view.h"
#include "train-log.h"
#include "trainer.h"

G_BEGIN_DECLS

#define CT_TYPE_TRAIN_VIEW (ct_train_view_get_type ())
G_DECLARE_FINAL_TYPE (CtTrainView, ct_train_view, CT, TRAIN_VIEW, GtkBox)

CtTrainView *ct_train_view_new (void);

/* A new run begins: the series shown become an earlier run (faded),
 * labelled EARLIER_LABEL (what set its settings apart: "base_lr 0.01"),
 * or "run N" when NULL. EARLIER and CURRENT (either may be NULL: not
 * known) are the two runs' settings: below the plot, every earlier run
 * whose settings are known says, in full, how they differ from CURRENT's. */
void ct_train_view_new_run (CtTrainView *self, const char *earlier_label,
                            const Caffe__SolverParameter *earlier,
                            const Caffe__SolverParameter *current);
/* The loss is smoothed over AVERAGE_LOSS iterations, as Caffe does. */
void ct_train_view_set_average_loss (CtTrainView *self, guint average_loss);
/* Another net: every run is forgotten. */
void ct_train_view_clear (CtTrainView *self);
void ct_train_view_take (CtTrainView *self, const CtTrainProgress *p);
/* Shows the whole of LOG (a training log followed) as the current run. */
void ct_train_view_show_log (CtTrainView *self, const CtTrainLog *log);
/* The line above the plots. */
void ct_train_view_set_status (CtTrainView *self, const char *text);
/* Why the blob followed is not shown (a message in its place). */
void ct_train_view_set_watch_note (CtTrainView *self, const char *text);
CtPlotView *ct_train_view_get_plot (CtTrainView *self);
/* The last update ratio of LAYER in this run (NULL: none), the number its
 * row shows, and how many layers have one. */
const double *ct_train_view_get_ratio (CtTrainView *self, const char *layer);
const char *ct_train_view_get_ratio_text (CtTrainView *self, const char *layer);
guint ct_train_view_get_n_ratios (CtTrainView *self);
/* The last value of test output NAME ("accuracy") in this run. */
gboolean ct_train_view_get_test_value (CtTrainView *self, const char *name, double *value);
/* The header bar's two lines while training. */
char *ct_train_view_format_stats (const CtTrainProgress *p);
/* The time trained so far, for the figures' tooltip. */
char *ct_train_view_format_elapsed (const CtTrainProgress *p);

G_END_DECLS
