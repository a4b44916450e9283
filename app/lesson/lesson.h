/* lesson.h: a lesson, read from the plain text file a lecturer writes
 * (docs/lessons.md describes the format): a title, then steps, each with a
 * title, the text shown to the class and the actions that drive the window
 * (open a net, choose an input, step to a layer, train, ...). Texts come in
 * the language asked for when the file has it (`say[zh_CN]: ...`), else as
 * written. Everything here is checked when the file is read, so that a bad
 * lesson fails at its file:line:column before the class sees a step; no
 * GTK. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define CT_LESSON_ERROR (ct_lesson_error_quark ())
GQuark ct_lesson_error_quark (void);

typedef enum {
  CT_LESSON_ERROR_SYNTAX,   /* a line the format does not know */
  CT_LESSON_ERROR_ACTION,   /* an action or an argument that is not right */
  CT_LESSON_ERROR_EMPTY,    /* no title, or no step */
  CT_LESSON_ERROR_FILE,     /* the file cannot be read */
} CtLessonError;

/* What a `do:` line asks of the window. */
typedef enum {
  CT_LESSON_OPEN_EXAMPLE,   /* text: the bundled example's id ("lenet-fashion") */
  CT_LESSON_OPEN,           /* text: a net, solver or weights file (absolute) */
  CT_LESSON_INPUT,          /* items: Fashion-MNIST test images */
  CT_LESSON_PHASE,          /* text: "train", "test" or "both" */
  CT_LESSON_VIEW,           /* text: "graph", "source" or "training" */
  CT_LESSON_SELECT,         /* text: a layer */
  CT_LESSON_STEP_TO,        /* text: a layer, stepped forward to */
  CT_LESSON_FORWARD,        /* one forward step (F7) */
  CT_LESSON_BACKWARD,       /* one backward step (Shift+F7) */
  CT_LESSON_PASS,           /* run the rest of the pass (F5) */
  CT_LESSON_RESET,          /* back to the start of the pass (Shift+F5) */
  CT_LESSON_CHANNEL,        /* number: the channel shown large (from 0; written from 1), -1 for all */
  CT_LESSON_SOLVER,         /* text: a solver field path, value: its value */
  CT_LESSON_TRAIN,          /* number: iterations to train, waited for */
  CT_LESSON_RESTART,        /* train again from the same start (number: iterations) */
} CtLessonVerb;

typedef struct {
  CtLessonVerb verb;
  char *text;
  char *value;
  gint64 number;
  GArray *items;            /* guint, for CT_LESSON_INPUT */
  int line;                 /* where it is written, for messages */
} CtLessonAction;

typedef struct {
  char *title;
  char *text;               /* paragraphs separated by "\n" */
  GPtrArray *actions;       /* CtLessonAction, run in order */
  int line;
} CtLessonStep;

typedef struct {
  char *path;               /* the file read, or the name given to the text */
  char *title;
  GPtrArray *steps;         /* CtLessonStep */
} CtLesson;

/* Read TEXT (LENGTH bytes, -1: NUL-terminated) named NAME in messages;
 * relative paths of `open` start in BASE_DIR (NULL: the working folder).
 * LANGUAGES is the order of preference, as g_get_language_names () gives
 * it (NULL: that). */
CtLesson *ct_lesson_parse (const char *text, gssize length, const char *name,
                           const char *base_dir, const char *const *languages, GError **error);
/* Read the lesson file PATH. */
CtLesson *ct_lesson_load (const char *path, const char *const *languages, GError **error);
void ct_lesson_free (CtLesson *lesson);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtLesson, ct_lesson_free)

guint ct_lesson_n_steps (const CtLesson *lesson);
const CtLessonStep *ct_lesson_get_step (const CtLesson *lesson, guint index);

/* Whether PATH names a lesson file (by its ".lesson" ending). */
gboolean ct_lesson_is_lesson_path (const char *path);

G_END_DECLS
