/* lesson-panel.h: CtLessonPanel, the side panel that shows a lesson: its
 * title, the current step's title and text, where the class is ("Step 2
 * of 7"), and Back, Next and Close. It shows what it is given; the window
 * (window-lesson.c) runs the steps and answers its signals: "step-chosen"
 * (the index of the step to go to) and "close". */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CT_TYPE_LESSON_PANEL (ct_lesson_panel_get_type ())
G_DECLARE_FINAL_TYPE (CtLessonPanel, ct_lesson_panel, CT, LESSON_PANEL, GtkBox)

CtLessonPanel *ct_lesson_panel_new (void);
/* Show step INDEX of N_STEPS of the lesson TITLE. */
void ct_lesson_panel_show_step (CtLessonPanel *self, const char *title, guint index,
                                guint n_steps, const char *step_title, const char *text);
/* While the step's actions run, Back and Next wait. */
void ct_lesson_panel_set_busy (CtLessonPanel *self, gboolean busy);
guint ct_lesson_panel_get_index (CtLessonPanel *self);
/* Compact: one row (where the class is, the step's title and text, Back,
 * Next, Close) for a bar across presentation mode; else a column. */
void ct_lesson_panel_set_compact (CtLessonPanel *self, gboolean compact);
gboolean ct_lesson_panel_get_compact (CtLessonPanel *self);

G_END_DECLS
