/* window-train-private.h: what window-train.c (the training controller:
 * the trainer's life, actions, header bar, toasts, breakpoints) and
 * window-train-actions.c (the training actions' handlers) share; the
 * Training view itself is CtTrainView (train-view.c). */
#pragma once

#include "train-view.h"
#include "trainer.h"
#include "window-private.h"

G_BEGIN_DECLS

typedef struct _CtWindowFollow CtWindowFollow;

struct _CtWindowTrain {
  CtWindow *window;
  CtTrainer *trainer;
  CtTrainState state;
  gboolean built;              /* the trainer was started (its solver exists) */
  int iter, max_iter;
  gboolean run_on_gpu;         /* the current run computes on GPU run_gpu_device */
  int run_gpu_device;
  char *breakpoint;            /* the layer training pauses before, or NULL */
  gboolean at_break;           /* a breakpoint's snapshot is shown in the step view */
  char *watch_blob;            /* the blob followed, or NULL */
  char *export_dir;            /* where the weights for the step view go */
  gboolean export_for_step;    /* the next caffemodel written goes to the step view */
  char *compare_dir;           /* where the live weights to compare go */
  char *compare_other;         /* the snapshot they are compared with, while asked for */
  char *last_error;            /* the last training error shown, for tests */
  char *last_files;            /* the files written last, newline-separated */
  Caffe__SolverParameter *run_param; /* the current run's settings, or NULL */
  CtWindowFollow *follow;      /* the training log followed, or NULL */

  /* Header bar (window.ui). */
  GtkWidget *controls;
  GtkButton *toggle_button;
  GtkLabel *stats_label;

  /* The Training view (window.ui). */
  CtTrainView *view;
};

typedef struct _CtWindowTrain CtWindowTrain;

/* window-train-follow.c */
/* Stops following a training log (nothing happens when none is). */
void ct_window_train_follow_stop (CtWindow *self);

/* window-train.c */
gboolean ct_window_train_start (CtWindow *self, const char *resume);
/* The run again from the same start with the settings shown now. */
void ct_window_train_restart (CtWindow *self);
void ct_window_train_update_controls (CtWindow *self);
/* The selected layer's first top (owned, or NULL), and its name in
 * *LAYER_NAME (owned; may be NULL). */
char *ct_window_train_selected_top (CtWindow *self, char **layer_name);

/* window-train-actions.c */
void ct_window_train_build_controls (CtWindow *self);
void ct_window_train_update_break_state (CtWindow *self);

G_END_DECLS
