/* gui-test.h: what the window tests under Xvfb share: running the main
 * loop for a while, waiting for a document to settle, finding a widget by
 * type and label, saving a window as PNG, and the start of a test program
 * whose recent files and drafts stay in a scratch folder. */
#pragma once

#include <gtk/gtk.h>

#include "application.h"
#include "runner.h"
#include "window.h"

G_BEGIN_DECLS

/* Run the main loop for MS milliseconds. */
void ct_gui_test_spin (guint ms);
/* Until WINDOW's document is checked and the main loop idle. */
void ct_gui_test_settle (CtWindow *window);
/* The first widget under WIDGET of TYPE whose label is TEXT (TEXT NULL:
 * any), depth first. */
GtkWidget *ct_gui_test_find_widget (GtkWidget *widget, GType type, const char *text);
/* WIDGET as drawn now, written to PATH. */
gboolean ct_gui_test_save_png (GtkWidget *widget, const char *path);

/* Discards WINDOW's draft and closes it. */
void ct_gui_test_close_window (CtWindow *window);
/* The first widget under WIDGET (itself included) named NAME, depth first. */
GtkWidget *ct_gui_test_find_named (GtkWidget *widget, const char *name);
/* Waits, iterating the main loop, for a snapshot of WINDOW's run newer
 * than *SERIAL (at most a minute), and sets *SERIAL to its serial. */
CtRunSnapshot *ct_gui_test_next_snapshot (CtWindow *window, guint64 *serial);

/* Start a GUI test program: gettext, a scratch folder (returned, owned) for
 * recent files and drafts, English strings, g_test_init, GTK and a
 * registered application (returned in *APP). FALSE without a display: a
 * "no-display" test that skips has been added under PREFIX; run the tests,
 * then call ct_gui_test_finish() either way. */
gboolean ct_gui_test_init (int *argc, char ***argv, const char *prefix, char **scratch,
                           CtApplication **app);
/* Drop APP and the scratch folder; returns STATUS, or 77 (skip) without a
 * display. */
int ct_gui_test_finish (int status, char *scratch, CtApplication *app);

G_END_DECLS
