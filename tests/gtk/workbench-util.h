/* workbench-util.h: what the workbench tests (test-workbench*.c, one
 * binary) share: the application, the main loop run for a while or until
 * the window is idle, LeNet in a window, and look-ups in the widget tree. */
#pragma once

#include "test-files.h"

#include <gtk/gtk.h>

#include "gui-test.h"

#include "application.h"
#include "graph-view.h"
#include "window.h"

extern CtApplication *ct_test_app;

/* Run the main loop for MS milliseconds. */
/* Run it until the window's document is checked and idle work is done. */
/* A 1280 x 800 window showing the LeNet example, settled. */
CtWindow *ct_test_lenet_window (void);
CtGraphView *ct_test_view_of (CtWindow *window);
/* The index of the layer NAME in WINDOW's net, or -1. */
int ct_test_layer_named (CtWindow *window, const char *name);
/* Activate the window action ACTION, which must be enabled. */
void ct_test_activate (CtWindow *window, const char *action);
/* The first widget under WIDGET of TYPE whose label is TEXT (TEXT NULL:
 * any), depth first. */
/* ACCEL in one spelling, for comparing (NULL if it does not parse). */
char *ct_test_normalise_accel (const char *accel);

/* The tests of test-workbench-edit.c and test-workbench-files.c. */
void ct_test_workbench_add_edit_tests (void);
void ct_test_workbench_add_files_tests (void);
