/* lesson.c: reading a lesson file (see lesson.h and docs/lessons.md).
 *
 * The file is a list of `key: value` lines; a key may carry a language in
 * brackets (`say[zh_CN]: ...`). Each text keeps every language it is
 * written in until its step ends, then the one the reader prefers is
 * chosen, so that one file serves every class and the actions (which are
 * the same in every language) are written once. */
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "caffe.pb-c.h"
#include "field-path.h"
#include "lesson.h"

G_DEFINE_QUARK (ct-lesson-error-quark, ct_lesson_error)

/* A text in several languages: language tag ("" untranslated) -> GString. */
typedef GHashTable Texts;

typedef struct {
  const char *name;           /* the file's name, for messages */
  const char *base_dir;
  const char *const *languages;
  CtLesson *lesson;
  Texts *title;               /* the lesson's */
  CtLessonStep *step;         /* the step being read, or NULL */
  Texts *step_title;
  Texts *step_text;
} Reader;

static void
string_free (gpointer s)
{
  g_string_free (s, TRUE);
}

static Texts *
texts_new_full (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, string_free);
}

/* Append VALUE to the text in LANG; paragraphs (several lines of one key)
 * are separated by SEPARATOR. */
static void
texts_add (Texts *texts, const char *lang, const char *value, const char *separator)
{
  GString *s = g_hash_table_lookup (texts, lang);

  if (s == NULL)
    {
      s = g_string_new (NULL);
      g_hash_table_insert (texts, g_strdup (lang), s);
    }
  else
    g_string_append (s, separator);
  g_string_append (s, value);
}

/* Where LANG comes in the reader's preferences (lower is better), or
 * G_MAXINT when it is not wanted. The untranslated text ranks where "C"
 * does, or last. */
static int
language_rank (const char *const *languages, const char *lang)
{
  guint n = g_strv_length ((char **) languages);

  for (guint i = 0; i < n; i++)
    if ((*lang == '\0' && g_str_equal (languages[i], "C")) || g_str_equal (languages[i], lang))
      return (int) i;
  return *lang == '\0' ? (int) n : G_MAXINT;
}

static char *
texts_choose (Texts *texts, const char *const *languages)
{
  GHashTableIter iter;
  gpointer key, value;
  GString *best = NULL;
  int best_rank = G_MAXINT;

  g_hash_table_iter_init (&iter, texts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      int rank = language_rank (languages, key);

      if (rank < best_rank || best == NULL)
        {
          best = value;
          best_rank = rank;
        }
    }
  return best != NULL ? g_strdup (best->str) : NULL;
}

static void
action_free (gpointer data)
{
  CtLessonAction *action = data;

  g_free (action->text);
  g_free (action->value);
  if (action->items != NULL)
    g_array_unref (action->items);
  g_free (action);
}

static void
step_free (gpointer data)
{
  CtLessonStep *step = data;

  g_free (step->title);
  g_free (step->text);
  g_ptr_array_unref (step->actions);
  g_free (step);
}

void
ct_lesson_free (CtLesson *lesson)
{
  if (lesson == NULL)
    return;
  g_free (lesson->path);
  g_free (lesson->title);
  g_ptr_array_unref (lesson->steps);
  g_free (lesson);
}

static gboolean
fail (GError **error, CtLessonError code, const Reader *r, int line, int column,
      const char *format, ...) G_GNUC_PRINTF (6, 7);

static gboolean
fail (GError **error, CtLessonError code, const Reader *r, int line, int column,
      const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, CT_LESSON_ERROR, code, "%s:%d:%d: %s", r->name, line, column, message);
  return FALSE;
}

/* The step read so far gets its texts in the preferred language. */
static gboolean
finish_step (Reader *r, GError **error)
{
  if (r->step == NULL)
    return TRUE;
  r->step->title = texts_choose (r->step_title, r->languages);
  r->step->text = texts_choose (r->step_text, r->languages);
  if (r->step->text == NULL)
    r->step->text = g_strdup ("");
  g_hash_table_remove_all (r->step_title);
  g_hash_table_remove_all (r->step_text);
  r->step = NULL;
  return TRUE;
}

/* Words of a `do:` line: separated by blanks, or in double quotes (a
 * layer's or a file's name with spaces). COLUMNS gets each word's column. */
static char **
split_words (const char *text, int first_column, GArray *columns, gboolean *unclosed)
{
  g_autoptr (GPtrArray) words = g_ptr_array_new_with_free_func (g_free);
  const char *p = text;

  *unclosed = FALSE;
  while (*p != '\0')
    {
      const char *start;

      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      {
        int column = first_column + (int) g_utf8_pointer_to_offset (text, p);
        g_array_append_val (columns, column);
      }
      if (*p == '"')
        {
          start = ++p;
          while (*p != '\0' && *p != '"')
            p++;
          if (*p != '"')
            {
              *unclosed = TRUE;
              g_ptr_array_add (words, g_strndup (start, (gsize) (p - start)));
              break;
            }
          g_ptr_array_add (words, g_strndup (start, (gsize) (p - start)));
          p++;
          continue;
        }
      start = p;
      while (*p != '\0' && *p != ' ' && *p != '\t')
        p++;
      g_ptr_array_add (words, g_strndup (start, (gsize) (p - start)));
    }
  g_ptr_array_add (words, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&words), FALSE);
}

static gboolean
parse_count (const char *word, gint64 min, gint64 max, gint64 *out)
{
  char *end = NULL;
  gint64 value;

  if (word == NULL || !g_ascii_isdigit (*word))
    return FALSE;
  value = g_ascii_strtoll (word, &end, 10);
  if (*end != '\0' || value < min || value > max)
    return FALSE;
  *out = value;
  return TRUE;
}

typedef struct {
  const char *name;
  CtLessonVerb verb;
  int min_args, max_args;
} VerbInfo;

static const VerbInfo verbs[] = {
  { "open-example", CT_LESSON_OPEN_EXAMPLE, 1, 1 },
  { "open", CT_LESSON_OPEN, 1, 1 },
  { "input", CT_LESSON_INPUT, 1, 64 },
  { "phase", CT_LESSON_PHASE, 1, 1 },
  { "view", CT_LESSON_VIEW, 1, 1 },
  { "select", CT_LESSON_SELECT, 1, 1 },
  { "step-to", CT_LESSON_STEP_TO, 1, 1 },
  { "forward", CT_LESSON_FORWARD, 0, 0 },
  { "backward", CT_LESSON_BACKWARD, 0, 0 },
  { "pass", CT_LESSON_PASS, 0, 0 },
  { "reset", CT_LESSON_RESET, 0, 0 },
  { "channel", CT_LESSON_CHANNEL, 1, 1 },
  { "solver", CT_LESSON_SOLVER, 2, 2 },
  { "train", CT_LESSON_TRAIN, 1, 1 },
  { "restart", CT_LESSON_RESTART, 0, 0 },
};

/* The test set of Fashion-MNIST that the input browser shows. */
#define FASHION_TEST_ITEMS 10000

static gboolean
check_one_of (const Reader *r, int line, int column, const char *word,
              const char *const *allowed, GError **error)
{
  g_autofree char *list = NULL;

  if (g_strv_contains (allowed, word))
    return TRUE;
  list = g_strjoinv (", ", (char **) allowed);
  return fail (error, CT_LESSON_ERROR_ACTION, r, line, column,
               _("“%s” is not one of %s"), word, list);
}

static gboolean
parse_action (Reader *r, const char *value, int line, int column, GError **error)
{
  g_autoptr (GArray) columns = g_array_new (FALSE, FALSE, sizeof (int));
  gboolean unclosed = FALSE;
  g_auto (GStrv) words = split_words (value, column, columns, &unclosed);
  guint n_args;
  const VerbInfo *info = NULL;
  CtLessonAction *action;
  static const char *const phases[] = { "train", "test", "both", NULL };
  static const char *const views[] = { "graph", "source", "training", NULL };

  if (r->step == NULL)
    return fail (error, CT_LESSON_ERROR_SYNTAX, r, line, 1,
                 _("an action before the first step (“step:”)"));
  if (unclosed)
    return fail (error, CT_LESSON_ERROR_SYNTAX, r, line,
                 g_array_index (columns, int, columns->len - 1), _("a quote that is not closed"));
  if (words[0] == NULL)
    return fail (error, CT_LESSON_ERROR_ACTION, r, line, column, _("an empty action"));
  for (gsize i = 0; i < G_N_ELEMENTS (verbs); i++)
    if (g_str_equal (verbs[i].name, words[0]))
      info = &verbs[i];
  if (info == NULL)
    return fail (error, CT_LESSON_ERROR_ACTION, r, line, g_array_index (columns, int, 0),
                 _("unknown action “%s”"), words[0]);
  n_args = g_strv_length (words) - 1;
  if ((int) n_args < info->min_args || (int) n_args > info->max_args)
    {
      /* too many: at the first one too many; too few: at the action */
      int at = g_array_index (columns, int, (int) n_args > info->max_args ? info->max_args + 1 : 0);

      if (info->min_args == info->max_args)
        return fail (error, CT_LESSON_ERROR_ACTION, r, line, at,
                     g_dngettext (GETTEXT_PACKAGE, "“%s” takes %d argument, not %u",
                                  "“%s” takes %d arguments, not %u", info->max_args),
                     info->name, info->max_args, n_args);
      return fail (error, CT_LESSON_ERROR_ACTION, r, line, at,
                   _("“%s” takes %d to %d arguments, not %u"), info->name, info->min_args,
                   info->max_args, n_args);
    }

  action = g_new0 (CtLessonAction, 1);
  action->verb = info->verb;
  action->line = line;
  action->number = -1;
  g_ptr_array_add (r->step->actions, action);
  switch (info->verb)
    {
    case CT_LESSON_OPEN:
      {
        g_autofree char *path = g_path_is_absolute (words[1])
                                  ? g_strdup (words[1])
                                  : g_build_filename (r->base_dir != NULL ? r->base_dir : ".",
                                                      words[1], NULL);
        g_autoptr (GFile) file = g_file_new_for_path (path);

        if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
          return fail (error, CT_LESSON_ERROR_ACTION, r, line, g_array_index (columns, int, 1),
                       _("there is no file “%s”"), path);
        action->text = g_file_get_path (file);
        break;
      }
    case CT_LESSON_INPUT:
      action->items = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint i = 1; i <= n_args; i++)
        {
          gint64 item;

          if (!parse_count (words[i], 0, FASHION_TEST_ITEMS - 1, &item))
            return fail (error, CT_LESSON_ERROR_ACTION, r, line, g_array_index (columns, int, i),
                         _("“%s” is not a Fashion-MNIST test image (0 to %d)"), words[i],
                         FASHION_TEST_ITEMS - 1);
          g_array_append_val (action->items, (guint) { (guint) item });
        }
      break;
    case CT_LESSON_PHASE:
      if (!check_one_of (r, line, g_array_index (columns, int, 1), words[1], phases, error))
        return FALSE;
      action->text = g_strdup (words[1]);
      break;
    case CT_LESSON_VIEW:
      if (!check_one_of (r, line, g_array_index (columns, int, 1), words[1], views, error))
        return FALSE;
      action->text = g_strdup (words[1]);
      break;
    case CT_LESSON_CHANNEL:
      if (g_str_equal (words[1], "all"))
        action->number = -1;
      /* counted from 1, as the heatmap shows them ("channel 4 of 20") */
      else if (parse_count (words[1], 1, G_MAXINT, &action->number))
        action->number--;
      else
        return fail (error, CT_LESSON_ERROR_ACTION, r, line, g_array_index (columns, int, 1),
                     _("“%s” is not a channel: write a number from 1, or “all”"), words[1]);
      break;
    case CT_LESSON_TRAIN:
      if (!parse_count (words[1], 1, G_MAXINT, &action->number))
        return fail (error, CT_LESSON_ERROR_ACTION, r, line, g_array_index (columns, int, 1),
                     _("“%s” is not a number of iterations"), words[1]);
      break;
    case CT_LESSON_SOLVER:
      {
        /* checked on a solver of its own, as the form would check it */
        Caffe__SolverParameter *scratch = malloc (sizeof *scratch);
        g_autoptr (GError) field_error = NULL;
        gboolean ok;

        caffe__solver_parameter__init (scratch);
        ok = ct_field_path_set (&scratch->base, words[1], words[2], &field_error);
        protobuf_c_message_free_unpacked (&scratch->base, NULL);
        if (!ok)
          return fail (error, CT_LESSON_ERROR_ACTION, r, line, g_array_index (columns, int, 1),
                       "%s", field_error->message);
        action->text = g_strdup (words[1]);
        action->value = g_strdup (words[2]);
        break;
      }
    case CT_LESSON_OPEN_EXAMPLE:
    case CT_LESSON_SELECT:
    case CT_LESSON_STEP_TO:
      action->text = g_strdup (words[1]);
      break;
    case CT_LESSON_FORWARD:
    case CT_LESSON_BACKWARD:
    case CT_LESSON_PASS:
    case CT_LESSON_RESET:
    case CT_LESSON_RESTART:
    default:
      break;
    }
  return TRUE;
}

/* KEY[LANG] at the start of LINE: KEY and LANG (may be "") in KEY_OUT and
 * LANG_OUT, and where the value starts; FALSE when the line is no key. */
static gboolean
split_key (const Reader *r, const char *line, int line_no, char **key_out, char **lang_out,
           const char **value_out, GError **error)
{
  const char *p = line;
  const char *colon;

  while (g_ascii_isalnum (*p) || *p == '-' || *p == '_')
    p++;
  if (p == line)
    return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, 1,
                 _("expected “key: value”, such as “say: …”"));
  *key_out = g_strndup (line, (gsize) (p - line));
  if (*p == '[')
    {
      const char *lang = ++p;

      while (g_ascii_isalnum (*p) || *p == '_' || *p == '-' || *p == '@' || *p == '.')
        p++;
      if (*p != ']' || p == lang)
        return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no,
                     (int) g_utf8_pointer_to_offset (line, p) + 1,
                     _("a language in brackets, such as “[zh_CN]”, was expected"));
      *lang_out = g_strndup (lang, (gsize) (p - lang));
      p++;
    }
  else
    *lang_out = g_strdup ("");
  colon = p;
  while (*colon == ' ' || *colon == '\t')
    colon++;
  if (*colon != ':')
    return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no,
                 (int) g_utf8_pointer_to_offset (line, colon) + 1, _("a colon was expected"));
  colon++;
  while (*colon == ' ' || *colon == '\t')
    colon++;
  *value_out = colon;
  return TRUE;
}

static gboolean
parse_line (Reader *r, const char *line, int line_no, GError **error)
{
  g_autofree char *key = NULL;
  g_autofree char *lang = NULL;
  const char *value = NULL;
  int value_column;

  if (!split_key (r, line, line_no, &key, &lang, &value, error))
    return FALSE;
  value_column = (int) g_utf8_pointer_to_offset (line, value) + 1;
  if (g_str_equal (key, "lesson"))
    {
      if (r->lesson->steps->len > 0 || r->step != NULL)
        return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, 1,
                     _("the lesson’s title belongs before its first step"));
      texts_add (r->title, lang, value, " ");
      return TRUE;
    }
  if (g_str_equal (key, "step"))
    {
      /* a translated title continues the step it follows */
      if (*lang == '\0' || r->step == NULL)
        {
          if (*lang != '\0')
            return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, 1,
                         _("a translated step title needs the step’s own “step:” line first"));
          finish_step (r, NULL);
          r->step = g_new0 (CtLessonStep, 1);
          r->step->line = line_no;
          r->step->actions = g_ptr_array_new_with_free_func (action_free);
          g_ptr_array_add (r->lesson->steps, r->step);
        }
      if (*value == '\0')
        return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, value_column,
                     _("a step needs a title"));
      texts_add (r->step_title, lang, value, " ");
      return TRUE;
    }
  if (g_str_equal (key, "say"))
    {
      if (r->step == NULL)
        return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, 1,
                     _("text before the first step (“step:”)"));
      texts_add (r->step_text, lang, value, "\n");
      return TRUE;
    }
  if (g_str_equal (key, "do"))
    {
      if (*lang != '\0')
        return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, 3,
                     _("actions are the same in every language: write “do:” without one"));
      return parse_action (r, value, line_no, value_column, error);
    }
  return fail (error, CT_LESSON_ERROR_SYNTAX, r, line_no, 1,
               _("unknown key “%s” (a lesson has “lesson”, “step”, “say” and “do”)"), key);
}

CtLesson *
ct_lesson_parse (const char *text, gssize length, const char *name, const char *base_dir,
                 const char *const *languages, GError **error)
{
  g_autoptr (CtLesson) lesson = g_new0 (CtLesson, 1);
  g_autoptr (GHashTable) title = texts_new_full ();
  g_autoptr (GHashTable) step_title = texts_new_full ();
  g_autoptr (GHashTable) step_text = texts_new_full ();
  g_autofree char *copy = NULL;
  g_auto (GStrv) lines = NULL;
  Reader r = { 0 };
  const char *end = NULL;

  g_return_val_if_fail (text != NULL, NULL);
  copy = length < 0 ? g_strdup (text) : g_strndup (text, (gsize) length);
  lesson->path = g_strdup (name != NULL ? name : "lesson");
  lesson->steps = g_ptr_array_new_with_free_func (step_free);
  r.name = lesson->path;
  r.base_dir = base_dir;
  r.languages = languages != NULL ? languages : g_get_language_names ();
  r.lesson = lesson;
  r.title = title;
  r.step_title = step_title;
  r.step_text = step_text;

  if (!g_utf8_validate (copy, -1, &end))
    {
      int line = 1;

      for (const char *p = copy; p < end; p++)
        line += *p == '\n';
      fail (error, CT_LESSON_ERROR_SYNTAX, &r, line, 1, _("the text is not UTF-8"));
      return NULL;
    }
  lines = g_strsplit (copy, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      gsize n = strlen (line);
      const char *p = line;

      /* CRLF files from other systems read the same */
      while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
        line[--n] = '\0';
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0' || *p == '#')
        continue;
      if (p != line)
        return fail (error, CT_LESSON_ERROR_SYNTAX, &r, i + 1, 1,
                     _("a line begins with its key, not with blanks")),
               NULL;
      if (i == 0 && g_str_has_prefix (line, "\xEF\xBB\xBF"))
        memmove (line, line + 3, strlen (line + 3) + 1);
      if (!parse_line (&r, line, i + 1, error))
        return NULL;
    }
  finish_step (&r, NULL);
  lesson->title = texts_choose (title, r.languages);
  if (lesson->title == NULL)
    {
      fail (error, CT_LESSON_ERROR_EMPTY, &r, 1, 1, _("the lesson has no title (“lesson: …”)"));
      return NULL;
    }
  if (lesson->steps->len == 0)
    {
      fail (error, CT_LESSON_ERROR_EMPTY, &r, 1, 1, _("the lesson has no steps (“step: …”)"));
      return NULL;
    }
  return g_steal_pointer (&lesson);
}

CtLesson *
ct_lesson_load (const char *path, const char *const *languages, GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char *dir = NULL;
  gsize length = 0;
  g_autoptr (GError) read_error = NULL;

  if (!g_file_get_contents (path, &text, &length, &read_error))
    {
      g_set_error (error, CT_LESSON_ERROR, CT_LESSON_ERROR_FILE, "%s", read_error->message);
      return NULL;
    }
  dir = g_path_get_dirname (path);
  return ct_lesson_parse (text, (gssize) length, path, dir, languages, error);
}

guint
ct_lesson_n_steps (const CtLesson *lesson)
{
  return lesson->steps->len;
}

const CtLessonStep *
ct_lesson_get_step (const CtLesson *lesson, guint index)
{
  g_return_val_if_fail (index < lesson->steps->len, NULL);
  return g_ptr_array_index (lesson->steps, index);
}

gboolean
ct_lesson_is_lesson_path (const char *path)
{
  return path != NULL && g_str_has_suffix (path, ".lesson");
}
