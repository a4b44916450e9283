/* window-lesson.h: a lesson in a CtWindow (see window-lesson.c). */
#pragma once

#include "lesson.h"
#include "window.h"

G_BEGIN_DECLS

/* Open the lesson file FILE in SELF's lesson panel and run its first step
 * (errors become a toast: the window stays as it was). */
gboolean ct_window_lesson_open (CtWindow *self, GFile *file);
/* A bundled lesson by its id ("convolution"). */
gboolean ct_window_lesson_open_bundled (CtWindow *self, const char *id);
/* Go to step INDEX and run its actions. */
void ct_window_lesson_go_to (CtWindow *self, guint index);
void ct_window_lesson_close (CtWindow *self);

/* Enables win.lesson-next and win.lesson-back as the lesson allows. */
void ct_window_lesson_update_actions (CtWindow *self);
/* Presentation mode began or ended: the lesson's step moves between the
 * column beside the graph and a bar above it. */
void ct_window_lesson_presenting_changed (CtWindow *self);

/* For tests: the lesson shown (or NULL), its step, and whether the step's
 * actions are still running; the last action that failed (or NULL). */
const CtLesson *ct_window_lesson_get (CtWindow *self);
guint ct_window_lesson_get_index (CtWindow *self);
gboolean ct_window_lesson_is_busy (CtWindow *self);
const char *ct_window_lesson_get_last_error (CtWindow *self);
GtkWidget *ct_window_lesson_get_panel (CtWindow *self);

/* win.open-lesson's handler (its parameter: a bundled lesson's id), and
 * win.lesson-next's and win.lesson-back's (Alt+Right, Alt+Left: a
 * presenter's remote often sends those). */
void ct_window_open_lesson_activated (GSimpleAction *action, GVariant *param, gpointer data);
void ct_window_lesson_next_activated (GSimpleAction *action, GVariant *param, gpointer data);
void ct_window_lesson_back_activated (GSimpleAction *action, GVariant *param, gpointer data);

G_END_DECLS
