/* window-private.h: CtWindow's insides, shared by window.c (layout, files,
 * title, closing), window-actions.c (the win.* actions and their keys),
 * window-graph.c (graph canvas <-> document), window-source.c (source
 * view <-> document), window-inspector.c (the selected layer's form),
 * window-run.c (the runner: marks on the graph, watching), window-inputs.c
 * (what the run feeds Input layers) and window-train.c (the trainer). The
 * window keeps the document, the selection, the runner and the trainer,
 * and composes panels that keep their own state behind their own headers:
 * CtBlobPanel, CtRunControls, CtSolverPanel, CtTrainView and
 * CtInputBrowser. The selection is one CtSelection owned here: each of
 * those files sets it and watches it, and none calls another to pass a
 * selection on. */
#pragma once

#include <gtksourceview/gtksource.h>

#include "blob-panel.h"
#include "run-controls.h"
#include "solver-panel.h"
#include "train-view.h"
#include "graph-view.h"
#include "net-graph.h"
#include "palette.h"
#include "property-form.h"
#include "plot-view.h"
#include "runner.h"
#include "selection.h"
#include "trainer.h"
#include "window.h"

G_BEGIN_DECLS

struct _CtWindow {
  AdwApplicationWindow parent_instance;

  CtDocument *document;
  GFile *weights;
  /* What is selected: set by the graph, the source view and the inspector,
   * watched by each of them (see selection.h). */
  CtSelection *selection;

  /* Template children. */
  AdwToastOverlay *toast_overlay;
  /* toasts, paced (window-toasts.c) */
  GQueue *toast_ops;           /* AdwToast* (owned) to add, in order */
  AdwToast *shown_toast;       /* the toast in the overlay (owned), until dismissed */
  gboolean error_dismiss;      /* SHOWN_TOAST, an error, is to be dismissed */
  gint64 toast_quiet_until;    /* monotonic µs: the overlay's animations are over */
  guint toast_source;
  AdwWindowTitle *window_title;
  AdwSplitButton *open_button;
  AdwViewStack *view_stack;
  CtPalette *palette;
  CtGraphView *graph_view;
  AdwStatusPage *empty_page;
  GtkSearchBar *find_bar;
  GtkSearchEntry *find_entry;
  GtkLabel *find_status;
  GtkDropDown *phase_dropdown;
  GtkLabel *zoom_label;
  GtkSourceView *source_view;
  GtkScrolledWindow *inspector_scroller;
  GtkLabel *inspector_title;
  GtkLabel *inspector_subtitle;
  GtkLabel *inspector_description;
  GtkLabel *inspector_shapes;
  GtkLabel *inspector_error;
  CtPropertyForm *property_form;
  GtkImage *status_icon;
  GtkLabel *summary_label;
  GtkSpinner *check_spinner;
  GtkWidget *problem_button;
  GtkLabel *problem_label;
  GMenuModel *recent_menu;
  GMenuModel *examples_menu;
  GMenuModel *node_menu;
  GMenuModel *canvas_menu;

  /* The graph shown, and what maps its nodes to layers. */
  CtNetGraph *graph;
  guint graph_source;          /* pending rebuild of the graph */
  gboolean graph_has_shapes;
  GtkWidget *context_popover;

  /* The inspector shows the layer of this node id (NULL: the net). */
  char *inspected_id;
  guint inspector_source;

  /* Source view. */
  GtkSourceBuffer *source_buffer;
  GtkTextTag *error_tag;
  GtkTextTag *warning_tag;
  guint source_timeout;        /* debounced re-parse */
  gboolean setting_text;       /* our own buffer changes */
  gboolean source_follows_selection;
  guint cursor_source;

  gboolean close_confirmed;
  /* Presentation mode is on (window-present.c). */
  gboolean presenting;
  gboolean minimap_before_presenting;
  gboolean narrow_window;      /* under 1100 logical pixels wide (window-layout.c) */

  /* The inspector's view of the run's blobs (blob-panel.c). */
  CtBlobPanel *blob_panel;

  /* The run (window-run.c): built at the first step, from the document. */
  CtRunner *runner;
  CtRunSnapshot *run_snapshot;  /* the latest shown, or NULL */
  CtRunSnapshot *run_pending;   /* handed over, to show at the next frame, or NULL */
  guint run_show_tick;          /* the tick callback that shows it, or 0 */
  CtRunConfig run_applied;      /* what the runner was given (weights owned) */
  gboolean run_stale;           /* the net was edited since the runner had it */
  int run_epoch;                /* the runner's at its last rebuild: older snapshots
                                 * are the old run's */
  gboolean run_shown;           /* a run is shown (an edit warns once) */
  char *run_current;            /* the layer that ran last (highlighted), or NULL */
  gboolean run_passing;         /* F5 queued a pass the runner has not answered */
  gboolean run_following;       /* steps select the layer they run */
  gboolean run_selecting;       /* that selection is being made */
  /* The step buttons and the settings for the next build (run-controls.c). */
  CtRunControls *run_controls;
  GtkLabel *run_label;

  /* What the run feeds Input layers (window-inputs.c). */
  struct _CtWindowInputs *inputs;

  /* Training (window-train.c) and its solver (solver-panel.c). */
  struct _CtWindowTrain *train;
  CtSolverPanel *solver_panel;
};

/* window.c */
void ct_window_update_title (CtWindow *self);
void ct_window_save_async (CtWindow *self, gboolean save_as, gboolean close_after);
void ct_window_update_recent_menu (CtWindow *self);
void ct_window_report_error (CtWindow *self, const char *what, const GError *error);
/* A part of window.ui that one file uses, by its id ("input_button"). */
GtkWidget *ct_window_get_part (CtWindow *self, const char *id);

/* window-actions.c: every win.* action and its keys, in one table. */
void ct_window_init_actions (CtWindow *self);

/* window-layout.c */
void ct_window_init_layout (CtWindow *self);
void ct_window_update_palette (CtWindow *self);
void ct_window_update_switcher_bar (CtWindow *self);
void ct_window_show_palette_changed (GSimpleAction *action, GVariant *state, gpointer data);

/* window-present.c */
void ct_window_init_present (CtWindow *self);
void ct_window_present_update (CtWindow *self);
void ct_window_presentation_changed (GSimpleAction *action, GVariant *state, gpointer data);
void ct_window_update_actions (CtWindow *self);

/* The handlers of that table that live beside what they drive. */
#define CT_WINDOW_ACTION_HANDLER(name) \
  void ct_window_##name##_activated (GSimpleAction *action, GVariant *param, gpointer data)
/* window-run.c */
CT_WINDOW_ACTION_HANDLER (run_forward);
CT_WINDOW_ACTION_HANDLER (run_backward);
CT_WINDOW_ACTION_HANDLER (run_pass);
CT_WINDOW_ACTION_HANDLER (run_reset);
CT_WINDOW_ACTION_HANDLER (run_stop);
CT_WINDOW_ACTION_HANDLER (open_weights);
CT_WINDOW_ACTION_HANDLER (use_fillers);
/* window-analysis.c */
CT_WINDOW_ACTION_HANDLER (analyze);
/* window-compare.c */
CT_WINDOW_ACTION_HANDLER (compare_weights);
CT_WINDOW_ACTION_HANDLER (compare_saved);
CT_WINDOW_ACTION_HANDLER (compare_file);
CT_WINDOW_ACTION_HANDLER (compare_revision);
/* window-inputs.c */
CT_WINDOW_ACTION_HANDLER (open_image);
CT_WINDOW_ACTION_HANDLER (open_folder);
CT_WINDOW_ACTION_HANDLER (browse);
CT_WINDOW_ACTION_HANDLER (use_fill);
/* draw-input.c */
CT_WINDOW_ACTION_HANDLER (draw_input);
/* export-view.c */
CT_WINDOW_ACTION_HANDLER (export_view);
/* window-train-actions.c */
CT_WINDOW_ACTION_HANDLER (train_toggle);
CT_WINDOW_ACTION_HANDLER (train_stop);
CT_WINDOW_ACTION_HANDLER (train_snapshot);
CT_WINDOW_ACTION_HANDLER (train_restart);
CT_WINDOW_ACTION_HANDLER (train_export);
CT_WINDOW_ACTION_HANDLER (train_resume_from);
CT_WINDOW_ACTION_HANDLER (train_break_here);
CT_WINDOW_ACTION_HANDLER (plot_export);
CT_WINDOW_ACTION_HANDLER (plot_log);
/* window-train-follow.c */
CT_WINDOW_ACTION_HANDLER (train_follow_log);
#undef CT_WINDOW_ACTION_HANDLER

/* window-compare.c: what the actions do, without their dialogs. The
 * weights loaded against OTHER, a caffemodel (weights must be loaded);
 * the document's text against the file PATH, or (with REV) against PATH
 * as git revision REV holds it. */
struct _CtModelCompareWindow *ct_window_compare_weights (CtWindow *self, const char *other);
/* FIRST against OTHER, two caffemodels of the window's net, shown on the
 * graph. */
struct _CtModelCompareWindow *ct_window_compare_weights_files (CtWindow *self, const char *first,
                                                               const char *other);
/* What win.compare-weights does once OTHER is chosen: the weights of the
 * training run while it goes, is paused or stands at a breakpoint (the
 * comparison window comes when the trainer has written them), else the
 * weights loaded; FALSE after saying why when there are none. */
gboolean ct_window_compare_weights_now (CtWindow *self, const char *other);
/* Show COMPARE's comparison on the graph (as win.compare-weights does),
 * for one opened elsewhere (the analysis window's "Compare Weights With…"). */
void ct_window_show_weights_compare (CtWindow *self, struct _CtModelCompareWindow *compare);
void ct_window_compare_net (CtWindow *self, const char *path, const char *rev);

/* window-graph.c */
void ct_window_init_graph (CtWindow *self);
void ct_window_graph_document_changed (CtWindow *self, CtDocumentChange flags);
void ct_window_graph_document_validated (CtWindow *self);
guint *ct_window_selected_layers (CtWindow *self, guint *n_out);
guint *ct_window_selected_layers_folded (CtWindow *self, guint *n_out);
void ct_window_select_layers (CtWindow *self, const int *layers, guint n, gboolean reveal);
void ct_window_select_with_flags (CtWindow *self, const char *const *ids, CtSelectionFlags flags);
void ct_window_set_phase (CtWindow *self, CtDocumentPhase phase);
void ct_window_store_layout (CtWindow *self);
void ct_window_graph_dispose (CtWindow *self);

/* window-source.c */
void ct_window_init_source (CtWindow *self);
void ct_window_source_document_changed (CtWindow *self, CtDocumentChange flags);
void ct_window_source_document_validated (CtWindow *self);
void ct_window_source_reveal_layer (CtWindow *self, int layer, gboolean select);
void ct_window_source_dispose (CtWindow *self);
void ct_window_source_flush (CtWindow *self);
void ct_window_show_problem (CtWindow *self);

/* window-inspector.c */
void ct_window_init_inspector (CtWindow *self);
void ct_window_refresh_inspector (CtWindow *self);
void ct_window_inspector_focus_name (CtWindow *self);
void ct_window_inspector_dispose (CtWindow *self);

/* window-run.c */
void ct_window_init_run (CtWindow *self);
void ct_window_run_update_actions (CtWindow *self);
void ct_window_run_document_changed (CtWindow *self, CtDocumentChange flags);
void ct_window_run_weights_changed (CtWindow *self);
/* The graph has a new model: put the run's marks on it again. */
void ct_window_run_graph_changed (CtWindow *self);
/* The latest snapshot shown (borrowed), or NULL before the first step:
 * one handed over is shown at the next frame while the window is mapped. */
CtRunSnapshot *ct_window_run_get_snapshot (CtWindow *self);
void ct_window_run_dispose (CtWindow *self);

/* A snapshot from elsewhere (the trainer at a breakpoint) shown as the
 * run's own: graph marks, status line, blob panel, CURRENT (may be NULL)
 * highlighted. NULL clears what was shown. */
void ct_window_run_show_external (CtWindow *self, CtRunSnapshot *snapshot, const char *current);

/* window-train.c: training in the window. */
typedef struct _CtWindowTrain CtWindowTrain;
void ct_window_init_train (CtWindow *self);
void ct_window_train_dispose (CtWindow *self);
void ct_window_train_update_actions (CtWindow *self);
void ct_window_train_document_changed (CtWindow *self, CtDocumentChange flags);
/* A run (going, paused or ended) is in the Training view. */
gboolean ct_window_train_has_run (CtWindow *self);
/* At a breakpoint, step the trainer (F7, Shift+F7) and return TRUE; else
 * FALSE: the step is the runner's. */
gboolean ct_window_train_step (CtWindow *self, gboolean forward);
/* Pause training before LAYER's forward (NULL: nowhere). */
void ct_window_train_set_breakpoint (CtWindow *self, const char *layer);
const char *ct_window_train_get_breakpoint (CtWindow *self);
/* Train again from a .solverstate (its caffemodel beside it). */
gboolean ct_window_train_resume_from (CtWindow *self, const char *solverstate);
CtTrainState ct_window_train_get_state (CtWindow *self);
/* A run is going, paused or at a breakpoint: its solver holds weights. */
gboolean ct_window_train_has_live_weights (CtWindow *self);
/* Ask the trainer for its weights now (between iterations) and compare
 * them with OTHER once written; FALSE when no run has live weights. */
gboolean ct_window_train_compare_live (CtWindow *self, const char *other);
int ct_window_train_get_iter (CtWindow *self);
CtPlotView *ct_window_train_get_plot (CtWindow *self);
/* Plots the training log at PATH in the Training view and follows it as
 * it grows (read once a second); FALSE with ERROR when it is no file. */
gboolean ct_window_train_follow_log (CtWindow *self, const char *path, GError **error);
/* Reads what was appended to the log followed now; TRUE when it added
 * points. Tests call it instead of waiting for the timer. */
gboolean ct_window_train_follow_poll (CtWindow *self);
/* The last value of test output NAME ("accuracy") in this run. */
gboolean ct_window_train_get_test_value (CtWindow *self, const char *name, double *value);
/* The last training error shown, and the files written last (newline-
 * separated), or NULL: for tests. */
const char *ct_window_train_get_last_error (CtWindow *self);
const char *ct_window_train_get_last_files (CtWindow *self);

/* window-inputs.c */
typedef struct _CtWindowInputs CtWindowInputs;
void ct_window_init_inputs (CtWindow *self);
void ct_window_inputs_dispose (CtWindow *self);
/* Whether a dropped FILE is an image file or a folder (of images). */
gboolean ct_window_inputs_is_image (GFile *file);
void ct_window_inputs_set_path (CtWindow *self, GFile *file);
void ct_window_inputs_set_items (CtWindow *self, const guint *items, guint n_items);
gboolean ct_window_inputs_changed (CtWindow *self);
gboolean ct_window_inputs_take_cleared (CtWindow *self);
void ct_window_inputs_apply (CtWindow *self, CtRunner *runner);
GtkWindow *ct_window_inputs_show_browser (CtWindow *self);
GtkSelectionModel *ct_window_inputs_get_browser_selection (CtWindow *self);
/* The chosen Fashion-MNIST items (guint), or the chosen image file or
 * folder; NULL when the input is something else (a saved session). */
const GArray *ct_window_inputs_get_items (CtWindow *self);
const char *ct_window_inputs_get_path (CtWindow *self);

/* Toasts (window-toasts.c). */
void ct_window_add_toast (CtWindow *self, AdwToast *toast);
void ct_window_toasts_dispose (CtWindow *self);

G_END_DECLS
