/* window-train-private.h: what window-train.c (the training controller:
 * the trainer's life, actions, header bar, toasts, breakpoints) and
 * window-train-view.c (the Training view: plots of the runs, update
 * ratios, the followed blob) share. */
#pragma once

#include "heatmap-view.h"
#include "plot-view.h"
#include "trainer.h"
#include "window-private.h"

G_BEGIN_DECLS

struct _CtWindowTrain {
  CtWindow *window;
  CtTrainer *trainer;
  CtTrainState state;
  gboolean built;              /* the trainer was started (its solver exists) */
  int iter, max_iter;
  char *breakpoint;            /* the layer training pauses before, or NULL */
  gboolean at_break;           /* a breakpoint's snapshot is shown in the step view */
  char *watch_blob;            /* the blob followed, or NULL */
  char *export_dir;            /* where the weights for the step view go */
  gboolean export_for_step;    /* the next caffemodel written goes to the step view */
  char *last_error;            /* the last training error shown, for tests */
  char *last_files;            /* the files written last, newline-separated */

  /* Header bar. */
  GtkWidget *controls;
  GtkButton *toggle_button;
  GtkLabel *stats_label;

  /* The Training view. */
  GtkWidget *page;
  GtkLabel *status_label;
  CtPlotView *plot;
  guint runs;                  /* runs shown on the plot, the current one included */
  gboolean run_has_points;
  int s_loss, s_smooth, s_lr;  /* the current run's series, or -1 */
  /* Caffe's smoothed loss, the mean of the last AVERAGE_LOSS losses, made
   * here: the trainer steps one iteration at a time, and each step starts
   * the solver's own window afresh. */
  guint average_loss;
  GArray *recent_losses;       /* float, a ring of up to AVERAGE_LOSS */
  guint recent_next;
  double recent_sum;
  GHashTable *test_series;     /* "net:output" -> series index + 1 */
  GHashTable *test_values;     /* output name -> last value (double *) */
  GtkWidget *ratio_box;        /* the update ratios, one row per layer */
  GHashTable *ratios;          /* layer name -> last ratio (double *) */
  GHashTable *ratio_labels;    /* layer name -> its row's number (GtkLabel) */
  GtkLabel *watch_label;
  CtHeatmapView *watch_heatmap;
};

typedef struct _CtWindowTrain CtWindowTrain;

/* window-train.c */
gboolean ct_window_train_start (CtWindow *self, const char *resume);
void ct_window_train_update_controls (CtWindow *self);
/* The selected layer's first top (owned, or NULL), and its name in
 * *LAYER_NAME (owned; may be NULL). */
char *ct_window_train_selected_top (CtWindow *self, char **layer_name);

/* window-train-actions.c */
void ct_window_train_add_actions (CtWindow *self);
void ct_window_train_build_controls (CtWindow *self);
GtkWidget *ct_window_train_menu_button (void);
void ct_window_train_update_break_state (CtWindow *self);

/* window-train-view.c */
GtkWidget *ct_window_train_view_build (CtWindowTrain *t, GtkWidget *menu_button);
/* A new run begins: the series shown become an earlier run (faded). */
void ct_window_train_view_new_run (CtWindowTrain *t);
/* Another net: every run is forgotten. */
void ct_window_train_view_clear (CtWindowTrain *t);
/* The update ratios' rows and values gone. */
void ct_window_train_view_clear_ratios (CtWindowTrain *t);
void ct_window_train_view_take (CtWindowTrain *t, const CtTrainProgress *p);
char *ct_window_train_format_stats (const CtTrainProgress *p);

G_END_DECLS
