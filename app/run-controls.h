/* run-controls.h: CtRunControls, the run's buttons in the header bar
 * (reset, backward, forward, run or stop, settings, input) and the run
 * settings the next runner is built with: batch size, seed, input fill,
 * device, the transform of input images (see run-controls.c), and the
 * pace of a pass, which applies at once. The buttons activate win.run-*
 * actions. */
#pragma once

#include <gtk/gtk.h>

#include "run-inputs.h"
#include "runner.h"

G_BEGIN_DECLS

#define CT_TYPE_RUN_CONTROLS (ct_run_controls_get_type ())
G_DECLARE_FINAL_TYPE (CtRunControls, ct_run_controls, CT, RUN_CONTROLS, GtkBox)

/* The batch for inspection (0: the net's own). */
guint ct_run_controls_get_batch (CtRunControls *self);
void ct_run_controls_set_batch (CtRunControls *self, guint batch);
guint64 ct_run_controls_get_seed (CtRunControls *self);
void ct_run_controls_set_seed (CtRunControls *self, guint64 seed);
CtRunFill ct_run_controls_get_fill (CtRunControls *self);
/* Whether a GPU computes, and which. */
gboolean ct_run_controls_get_use_gpu (CtRunControls *self);
int ct_run_controls_get_gpu_device (CtRunControls *self);
/* The pause after each layer of a whole pass, in milliseconds (0: full
 * speed); "pace-changed" says when it changes. Setting picks the nearest
 * pace the list offers. */
guint ct_run_controls_get_pace (CtRunControls *self);
void ct_run_controls_set_pace (CtRunControls *self, guint ms_per_layer);
/* The weights file's name shown (NULL: the fillers). */
void ct_run_controls_set_weights_name (CtRunControls *self, const char *name);
/* While a pass runs, Stop stands in for Run (the focus moves along). */
void ct_run_controls_set_passing (CtRunControls *self, gboolean passing);
/* The Input popover: the transform images go through (its scale, mean
 * and channel order; "transform-changed" says when they change) and
 * what the input is now (set by window-inputs.c). */
const CtInputTransform *ct_run_controls_get_transform (CtRunControls *self);
void ct_run_controls_set_input_text (CtRunControls *self, const char *text);
GtkMenuButton *ct_run_controls_get_input_button (CtRunControls *self);
/* The parts tests look at. */
GtkMenuButton *ct_run_controls_get_settings_button (CtRunControls *self);
GtkWidget *ct_run_controls_get_pass_button (CtRunControls *self);
GtkWidget *ct_run_controls_get_stop_button (CtRunControls *self);

G_END_DECLS
