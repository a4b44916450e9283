/* test-lesson.c: reading lessons (app/lesson/lesson.c) with no display:
 * the steps, their texts in the language asked for and their actions; a
 * bad lesson fails with its file:line:column, never a crash; every bundled
 * lesson reads in English and in Simplified Chinese, with every text
 * translated. */
#include <string.h>
#include <glib/gstdio.h>

#include "lesson.h"
#include "test-files.h"

static const char *const english[] = { "en_US", "en", "C", NULL };
static const char *const chinese[] = { "zh_CN.UTF-8", "zh_CN", "zh", "C", NULL };

static const char good[] =
  "# a comment\n"
  "lesson: Looking at LeNet\n"
  "lesson[zh_CN]: 观察 LeNet\n"
  "\n"
  "step: Open the net\n"
  "step[zh_CN]: 打开网络\n"
  "say: LeNet reads a picture.\n"
  "say: Two paragraphs.\n"
  "say[zh_CN]: LeNet 读一张图片。\n"
  "do: open-example lenet-fashion\n"
  "do: input 23 7\n"
  "\r\n"
  "step: Step\n"
  "do: step-to conv1\n"
  "do: channel 4\n"
  "do: channel all\n"
  "do: solver base_lr 0.1\n"
  "do: train 200\n"
  "do: select \"a layer\"\n"
  "do: phase test\n"
  "do: view training\n"
  "do: forward\n"
  "do: backward\n"
  "do: pass\n"
  "do: reset\n"
  "do: restart\n";

static void
test_read (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtLesson) en = ct_lesson_parse (good, -1, "good.lesson", "/nowhere", english, &error);
  g_autoptr (CtLesson) zh = NULL;
  const CtLessonStep *step;
  const CtLessonAction *a;
  static const CtLessonVerb second[] = {
    CT_LESSON_STEP_TO, CT_LESSON_CHANNEL, CT_LESSON_CHANNEL, CT_LESSON_SOLVER, CT_LESSON_TRAIN,
    CT_LESSON_SELECT, CT_LESSON_PHASE, CT_LESSON_VIEW, CT_LESSON_FORWARD, CT_LESSON_BACKWARD,
    CT_LESSON_PASS, CT_LESSON_RESET, CT_LESSON_RESTART,
  };

  g_assert_no_error (error);
  g_assert_cmpstr (en->title, ==, "Looking at LeNet");
  g_assert_cmpuint (ct_lesson_n_steps (en), ==, 2);
  step = ct_lesson_get_step (en, 0);
  g_assert_cmpstr (step->title, ==, "Open the net");
  g_assert_cmpstr (step->text, ==, "LeNet reads a picture.\nTwo paragraphs.");
  g_assert_cmpint (step->line, ==, 5);
  g_assert_cmpuint (step->actions->len, ==, 2);
  a = g_ptr_array_index (step->actions, 0);
  g_assert_cmpint (a->verb, ==, CT_LESSON_OPEN_EXAMPLE);
  g_assert_cmpstr (a->text, ==, "lenet-fashion");
  g_assert_cmpint (a->line, ==, 10);
  a = g_ptr_array_index (step->actions, 1);
  g_assert_cmpint (a->verb, ==, CT_LESSON_INPUT);
  g_assert_cmpuint (a->items->len, ==, 2);
  g_assert_cmpuint (g_array_index (a->items, guint, 0), ==, 23);
  g_assert_cmpuint (g_array_index (a->items, guint, 1), ==, 7);

  step = ct_lesson_get_step (en, 1);
  /* a step with no text shows its title alone */
  g_assert_cmpstr (step->text, ==, "");
  g_assert_cmpuint (step->actions->len, ==, G_N_ELEMENTS (second));
  for (guint i = 0; i < G_N_ELEMENTS (second); i++)
    g_assert_cmpint (((CtLessonAction *) g_ptr_array_index (step->actions, i))->verb, ==,
                     second[i]);
  a = g_ptr_array_index (step->actions, 1);
  g_assert_cmpint (a->number, ==, 3);
  a = g_ptr_array_index (step->actions, 2);
  g_assert_cmpint (a->number, ==, -1);
  a = g_ptr_array_index (step->actions, 3);
  g_assert_cmpstr (a->text, ==, "base_lr");
  g_assert_cmpstr (a->value, ==, "0.1");
  a = g_ptr_array_index (step->actions, 4);
  g_assert_cmpint (a->number, ==, 200);
  a = g_ptr_array_index (step->actions, 5);
  g_assert_cmpstr (a->text, ==, "a layer");

  /* the same file in Chinese; what is not translated stays as written */
  zh = ct_lesson_parse (good, -1, "good.lesson", NULL, chinese, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (zh->title, ==, "观察 LeNet");
  g_assert_cmpstr (ct_lesson_get_step (zh, 0)->title, ==, "打开网络");
  g_assert_cmpstr (ct_lesson_get_step (zh, 0)->text, ==, "LeNet 读一张图片。");
  g_assert_cmpstr (ct_lesson_get_step (zh, 1)->title, ==, "Step");
}

/* A file path relative to the lesson starts in its folder, and must be
 * there. */
static void
test_open_relative (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("lesson-XXXXXX");
  g_autofree char *net = g_build_filename (dir, "net.prototxt", NULL);
  g_autofree char *path = g_build_filename (dir, "a.lesson", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtLesson) lesson = NULL;
  const CtLessonAction *a;

  g_assert_true (g_file_set_contents (net, "name: \"n\"\n", -1, NULL));
  g_assert_true (g_file_set_contents (path, "lesson: L\nstep: S\ndo: open net.prototxt\n", -1,
                                      NULL));
  lesson = ct_lesson_load (path, english, &error);
  g_assert_no_error (error);
  a = g_ptr_array_index (ct_lesson_get_step (lesson, 0)->actions, 0);
  g_assert_cmpint (a->verb, ==, CT_LESSON_OPEN);
  g_assert_cmpstr (a->text, ==, net);

  g_assert_true (g_file_set_contents (path, "lesson: L\nstep: S\ndo: open other.prototxt\n", -1,
                                      NULL));
  g_clear_pointer (&lesson, ct_lesson_free);
  lesson = ct_lesson_load (path, english, &error);
  g_assert_null (lesson);
  g_assert_error (error, CT_LESSON_ERROR, CT_LESSON_ERROR_ACTION);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, ":3:10: there is no file"));
  g_clear_error (&error);

  g_autofree char *missing = g_build_filename (dir, "missing.lesson", NULL);
  g_assert_null (ct_lesson_load (missing, english, &error));
  g_assert_error (error, CT_LESSON_ERROR, CT_LESSON_ERROR_FILE);
  ct_test_remove_tree (dir);
}

typedef struct {
  const char *text;
  const char *message;   /* the start of the message after "bad.lesson:" */
} Bad;

static const Bad bad[] = {
  { "lesson: L\nstep: S\ndo: jump conv1\n", "3:5: unknown action “jump”" },
  { "lesson: L\nstep: S\ndo: input 10000\n", "3:11: “10000” is not a Fashion-MNIST test image" },
  { "lesson: L\nstep: S\ndo: input -1\n", "3:11: “-1” is not" },
  { "lesson: L\nstep: S\ndo: input boot\n", "3:11: “boot” is not" },
  { "lesson: L\nstep: S\ndo: step-to\n", "3:5: “step-to” takes 1 argument, not 0" },
  { "lesson: L\nstep: S\ndo: forward now\n", "3:13: “forward” takes 0 arguments, not 1" },
  { "lesson: L\nstep: S\ndo: solver base_lrr 0.1\n", "3:12: " },
  { "lesson: L\nstep: S\ndo: solver base_lr fast\n", "3:12: " },
  { "lesson: L\nstep: S\ndo: channel three\n", "3:13: “three” is not a channel" },
  { "lesson: L\nstep: S\ndo: channel 0\n", "3:13: “0” is not a channel" },
  { "lesson: L\nstep: S\ndo: train 0\n", "3:11: “0” is not a number of iterations" },
  { "lesson: L\nstep: S\ndo: phase deploy\n", "3:11: “deploy” is not one of train, test, both" },
  { "lesson: L\nstep: S\ndo: view heatmap\n", "3:10: “heatmap” is not one of" },
  { "lesson: L\nstep: S\ndo: select \"conv 1\n", "3:12: a quote that is not closed" },
  { "lesson: L\nstep: S\ndo:\n", "3:4: an empty action" },
  { "lesson: L\nstep: S\ndo[zh_CN]: pass\n", "3:3: actions are the same in every language" },
  { "lesson: L\nsay: hello\n", "2:1: text before the first step" },
  { "lesson: L\ndo: pass\n", "2:1: an action before the first step" },
  { "lesson: L\nstep: S\nsee: x\n", "3:1: unknown key “see”" },
  { "lesson: L\nstep: S\nsay hello\n", "3:5: a colon was expected" },
  { "lesson: L\nstep: S\nsay[: x\n", "3:5: a language in brackets" },
  { "lesson: L\nstep: S\n  say: x\n", "3:1: a line begins with its key" },
  { "lesson: L\nstep:\n", "2:6: a step needs a title" },
  { "lesson: L\nstep[zh_CN]: 步\n", "2:1: a translated step title needs" },
  { "lesson: L\nstep: S\nlesson: M\n", "3:1: the lesson’s title belongs before" },
  { "step: S\n", "1:1: the lesson has no title" },
  { "lesson: L\n", "1:1: the lesson has no steps" },
  { "", "1:1: the lesson has no title" },
  { "lesson: L\nstep: S\nsay: \xff\xfe\n", "3:1: the text is not UTF-8" },
  { ": x\n", "1:1: expected “key: value”" },
};

static void
test_bad (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtLesson) lesson = ct_lesson_parse (bad[i].text, -1, "bad.lesson", "/nowhere",
                                                      english, &error);
      g_autofree char *expected = g_strconcat ("bad.lesson:", bad[i].message, NULL);

      g_autofree char *shown = g_strescape (bad[i].text, NULL);

      g_test_message ("%s -> %s", shown, error != NULL ? error->message : "(no error)");
      g_assert_null (lesson);
      g_assert_nonnull (error);
      g_assert_true (error->domain == CT_LESSON_ERROR);
      g_assert_true (g_str_has_prefix (error->message, expected));
    }
}

/* Every prefix of a good lesson and every byte changed: an error or a
 * lesson, never a crash (run under the sanitizers). */
static void
test_never_crashes (void)
{
  gsize n = strlen (good);

  for (gsize cut = 0; cut <= n; cut++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtLesson) lesson = ct_lesson_parse (good, (gssize) cut, "cut.lesson", NULL,
                                                      english, &error);
      g_assert_true ((lesson == NULL) != (error == NULL));
    }
  for (gsize at = 0; at < n; at++)
    for (int c = 0; c < 256; c += 37)
      {
        g_autofree char *text = g_strdup (good);
        g_autoptr (GError) error = NULL;
        g_autoptr (CtLesson) lesson = NULL;

        text[at] = (char) (c == 0 ? '\n' : c);
        lesson = ct_lesson_parse (text, -1, "changed.lesson", NULL, english, &error);
        g_assert_true ((lesson == NULL) != (error == NULL));
      }
}

static char *
lessons_dir (void)
{
  return g_build_filename (CT_TEST_SOURCE_DIR, "data", "lessons", NULL);
}

/* The bundled lessons: each reads in both languages, with the same steps
 * and actions, and each Chinese text is a translation (not the English
 * shown as a fallback). */
static void
test_bundled (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n_lessons = 0;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtLesson) en = NULL;
      g_autoptr (CtLesson) zh = NULL;

      if (!ct_lesson_is_lesson_path (path))
        continue;
      n_lessons++;
      en = ct_lesson_load (path, english, &error);
      g_assert_no_error (error);
      zh = ct_lesson_load (path, chinese, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ct_lesson_n_steps (en), ==, ct_lesson_n_steps (zh));
      g_assert_cmpuint (ct_lesson_n_steps (en), >=, 4);
      g_assert_cmpstr (en->title, !=, zh->title);
      for (guint i = 0; i < ct_lesson_n_steps (en); i++)
        {
          const CtLessonStep *e = ct_lesson_get_step (en, i);
          const CtLessonStep *z = ct_lesson_get_step (zh, i);

          g_test_message ("%s step %u: %s / %s", name, i + 1, e->title, z->title);
          g_assert_cmpstr (e->title, !=, z->title);
          g_assert_cmpstr (e->text, !=, "");
          g_assert_cmpstr (e->text, !=, z->text);
          g_assert_cmpuint (e->actions->len, ==, z->actions->len);
        }
    }
  g_assert_cmpuint (n_lessons, >=, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lesson/read", test_read);
  g_test_add_func ("/lesson/open-relative", test_open_relative);
  g_test_add_func ("/lesson/bad", test_bad);
  g_test_add_func ("/lesson/never-crashes", test_never_crashes);
  g_test_add_func ("/lesson/bundled", test_bundled);
  return g_test_run ();
}
