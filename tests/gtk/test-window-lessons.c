/* test-window-lessons.c: the bundled lessons in the window, under Xvfb
 * (skipped without a display). Each lesson opens from the examples menu's
 * action (win.open-lesson) and is followed from its first step to its last
 * through the panel's Next button, each step's actions driving the window
 * with nothing else done by the test; no step may fail, and what the steps
 * promise is checked where it shows: conv1 is the layer run, with channel
 * 3 shown large; training ends at its iteration with an earlier run on the
 * plot; the deep ReLU net is open after its backward pass, with a gradient
 * on every layer. A lesson file opens like a net (ct_window_load_file),
 * and a bad one says where it is wrong and leaves the window as it was.
 *
 * /gtk/session/reopen: a session saved after two short training runs
 * (trained weights, solver, phase, batch, chosen images, the view, both
 * runs on the plots) and opened in another window reopens to the same
 * state, and the run there computes what it computed in the first window.
 *
 * CT_TEST_LANGUAGE=zh_CN runs the same in Simplified Chinese (the panel's
 * strings and the lessons' own texts); CT_SCREENSHOT_DIR saves a step of
 * the convolution lesson as lesson-step[-zh_CN].png, and the vanishing-
 * gradient lesson's two nets after their backward pass.
 *
 * Training reads the LeNet example's LMDBs: made here in a scratch folder
 * (the working folder, where the example's relative sources lead when
 * Cortado runs uninstalled-from-elsewhere) by cortado-cli from Debian's
 * Fashion-MNIST test images. */
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "gui-test.h"
#include "heatmap-view.h"
#include "lesson-panel.h"
#include "test-files.h"
#include "window-lesson.h"
#include "window-private.h"
#include "window-session.h"

#define MNIST "/usr/share/datasets/fashion-mnist"

static CtApplication *app;
static const char *language;

#define WAIT_UNTIL(cond, seconds)                                                          \
  G_STMT_START                                                                             \
  {                                                                                        \
    gint64 deadline_ = g_get_monotonic_time () + (seconds) * G_USEC_PER_SEC;               \
    while (!(cond))                                                                        \
      {                                                                                    \
        g_assert_cmpint (g_get_monotonic_time (), <, deadline_);                           \
        ct_gui_test_spin (10);                                                             \
      }                                                                                    \
  }                                                                                        \
  G_STMT_END

static gboolean
have_data (void)
{
  if (g_file_test (MNIST "/t10k-images-idx3-ubyte.gz", G_FILE_TEST_EXISTS)
      && g_getenv ("CT_CLI") != NULL)
    return TRUE;
  g_test_skip ("needs dataset-fashion-mnist and CT_CLI");
  return FALSE;
}

/* A scratch folder with lenet-fashion/fashion_train_lmdb and
 * fashion_test_lmdb (both the 10,000 test images); lenet-fashion is made
 * the working folder, where the examples' relative sources (LeNet's
 * "fashion_test_lmdb", the deep nets' "../lenet-fashion/...") lead when
 * no installed examples folder is found. */
static char *
enter_data_folder (void)
{
  char *dir = ct_test_tmpdir_make ("cortado-lessons-XXXXXX");
  g_autofree char *folder = g_build_filename (dir, "lenet-fashion", NULL);
  g_autofree char *lmdb = g_build_filename (folder, "fashion_test_lmdb", NULL);
  g_autofree char *train = g_build_filename (folder, "fashion_train_lmdb", NULL);
  g_autoptr (GError) error = NULL;
  int status = 0;
  const char *argv[] = { g_getenv ("CT_CLI"), "convert", "mnist",
                         MNIST "/t10k-images-idx3-ubyte.gz", MNIST "/t10k-labels-idx1-ubyte.gz",
                         lmdb, NULL };

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                               NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpint (symlink ("fashion_test_lmdb", train), ==, 0);
  g_assert_cmpint (g_chdir (folder), ==, 0);
  return dir;
}

static void
leave_data_folder (char *dir)
{
  g_assert_cmpint (g_chdir ("/"), ==, 0);
  ct_test_remove_tree (dir);
  g_free (dir);
}

static CtWindow *
new_window (void)
{
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  ct_gui_test_spin (50);
  return window;
}

static void
close_window (CtWindow *window)
{
  ct_gui_test_close_window (window);
  ct_gui_test_spin (20);
}

/* Until the step's actions are done; they must all have been done. */
static void
wait_step (CtWindow *window, int seconds)
{
  WAIT_UNTIL (!ct_window_lesson_is_busy (window), seconds);
  ct_gui_test_settle (window);
  g_assert_cmpstr (ct_window_lesson_get_last_error (window), ==, NULL);
}

static gboolean
selected_is (CtWindow *window, const char *id)
{
  g_auto (GStrv) selected = ct_window_dup_selected (window);

  return selected != NULL && selected[0] != NULL && g_str_equal (selected[0], id);
}

static void
shoot (CtWindow *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *file = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  file = g_strdup_printf ("%s%s%s.png", name, language != NULL ? "-" : "",
                          language != NULL ? language : "");
  path = g_build_filename (dir, file, NULL);
  ct_gui_test_spin (5000);   /* the toasts gone */
  g_assert_true (ct_gui_test_save_png (GTK_WIDGET (window), path));
  g_test_message ("saved %s", path);
}

/* The panel shows step INDEX as the lesson has it, in the language asked
 * for. */
static void
check_panel (CtWindow *window, guint index)
{
  const CtLesson *lesson = ct_window_lesson_get (window);
  const CtLessonStep *step = ct_lesson_get_step (lesson, index);
  GtkWidget *panel = ct_window_lesson_get_panel (window);
  g_autofree char *position = g_strdup_printf (_("Step %u of %u"), index + 1,
                                               ct_lesson_n_steps (lesson));

  g_assert_nonnull (ct_gui_test_find_widget (panel, GTK_TYPE_LABEL, step->title));
  g_assert_nonnull (ct_gui_test_find_widget (panel, GTK_TYPE_LABEL, position));
  g_assert_true (gtk_widget_get_mapped (panel));
  if (language != NULL)
    {
      /* Chinese: the panel's own words and the lesson's */
      g_assert_cmpstr (position, !=, "Step 1 of 1");
      g_assert_null (strstr (position, "Step"));
      g_assert_true (g_utf8_strlen (step->title, -1) < (glong) strlen (step->title));
    }
}

/* Follow LESSON from its first step to its last through the Next button;
 * AT_STEP runs after each step's actions. */
static void
follow (CtWindow *window, const char *id, void (*at_step) (CtWindow *, guint, gpointer),
        gpointer data, int seconds)
{
  const CtLesson *lesson;
  GtkWidget *next;

  g_action_group_activate_action (G_ACTION_GROUP (window), "open-lesson",
                                  g_variant_new_string (id));
  lesson = ct_window_lesson_get (window);
  g_assert_nonnull (lesson);
  /* the lesson takes the palette's place */
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->palette)));
  next = ct_gui_test_find_named (ct_window_lesson_get_panel (window), "lesson-next");
  g_assert_nonnull (next);
  for (guint i = 0; i < ct_lesson_n_steps (lesson); i++)
    {
      if (i > 0)
        {
          g_assert_true (gtk_widget_get_sensitive (next));
          g_signal_emit_by_name (next, "clicked");
        }
      g_test_message ("%s, step %u: %s", id, i + 1, ct_lesson_get_step (lesson, i)->title);
      wait_step (window, seconds);
      g_assert_cmpuint (ct_window_lesson_get_index (window), ==, i);
      check_panel (window, i);
      if (at_step != NULL)
        at_step (window, i, data);
    }
  /* the last step: Next has nowhere to go */
  g_assert_false (gtk_widget_get_sensitive (next));
}

/* The step whose title (as written in English) is TITLE. */
static guint
step_index (CtWindow *window, const char *line_prefix)
{
  const CtLesson *lesson = ct_window_lesson_get (window);

  for (guint i = 0; i < ct_lesson_n_steps (lesson); i++)
    {
      const CtLessonStep *step = ct_lesson_get_step (lesson, i);

      for (guint a = 0; a < step->actions->len; a++)
        {
          const CtLessonAction *action = g_ptr_array_index (step->actions, a);

          if (action->verb == CT_LESSON_CHANNEL && action->number >= 0
              && g_str_equal (line_prefix, "channel"))
            return i;
        }
    }
  g_assert_not_reached ();
}

static void
convolution_step (CtWindow *window, guint index, gpointer data)
{
  if (index == 0)
    {
      g_assert_cmpint (ct_window_layer_for_id (window, "conv1"), >=, 0);
      return;
    }
  if (index == step_index (window, "channel"))
    {
      CtHeatmapView *heatmap = CT_HEATMAP_VIEW (
        ct_gui_test_find_widget (GTK_WIDGET (window->blob_panel), CT_TYPE_HEATMAP_VIEW, NULL));

      g_assert_cmpstr (window->run_current, ==, "conv1");
      g_assert_nonnull (heatmap);
      g_assert_cmpint (ct_heatmap_view_get_zoom_channel (heatmap), ==, 3);
      shoot (window, "lesson-step");
    }
}

static void
test_convolution (void)
{
  CtWindow *window;
  char *dir;

  if (!have_data ())
    return;
  dir = enter_data_folder ();
  window = new_window ();
  follow (window, "convolution", convolution_step, NULL, 60);
  g_assert_cmpstr (window->run_current, ==, "ip2");
  g_assert_true (selected_is (window, "ip2"));
  close_window (window);
  leave_data_folder (dir);
}

static void
test_training (void)
{
  CtWindow *window;
  char *dir;
  CtPlot *plot;
  int faded = 0;

  if (!have_data ())
    return;
  dir = enter_data_folder ();
  window = new_window ();
  follow (window, "training", NULL, NULL, 240);
  /* 200 iterations, twice: the restart's at the larger rate, the first
   * run still on the plot */
  g_assert_cmpint (ct_window_train_get_iter (window), ==, 200);
  g_assert_cmpint (ct_window_train_get_state (window), ==, CT_TRAIN_STATE_FINISHED);
  plot = ct_plot_view_get_plot (ct_window_train_get_plot (window));
  for (int i = 0; i < ct_plot_get_n_series (plot); i++)
    faded += ct_plot_series_get_faded (plot, i);
  g_assert_cmpint (faded, >, 0);
  {
    Caffe__SolverParameter *param = ct_solver_panel_dup_param (window->solver_panel);

    g_assert_cmpfloat (param->base_lr, ==, 0.05f);
    protobuf_c_message_free_unpacked (&param->base, NULL);
  }
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (window->view_stack), ==, "training");
  shoot (window, "lesson-training");
  close_window (window);
  leave_data_folder (dir);
}

/* fc1's gradient health over fc8's: how much of the gradient reaches the
 * first layer. */
static double
first_over_last (CtWindow *window)
{
  CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);
  const CtRunBlob *fc1, *fc8;

  g_assert_nonnull (snapshot);
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_BACKWARD);
  fc1 = ct_run_snapshot_find_blob (snapshot, "fc1");
  fc8 = ct_run_snapshot_find_blob (snapshot, "fc8");
  g_assert_nonnull (fc1);
  g_assert_nonnull (fc8);
  g_test_message ("gradient health: fc1 %g, fc8 %g", fc1->health, fc8->health);
  g_assert_true (fc1->health > 0 && fc8->health > 0);
  return fc1->health / fc8->health;
}

static void
vanishing_step (CtWindow *window, guint index, gpointer data)
{
  double *sigmoid = data;

  /* after the sigmoid net's backward pass */
  if (index == 2)
    {
      g_assert_cmpint (ct_window_layer_for_id (window, "sigmoid8"), >=, 0);
      *sigmoid = first_over_last (window);
      shoot (window, "lesson-vanishing-sigmoid");
    }
}

static void
test_vanishing (void)
{
  CtWindow *window;
  CtRunSnapshot *snapshot;
  const CtRunBlob *fc1;
  char *dir;

  if (!have_data ())
    return;
  dir = enter_data_folder ();
  window = new_window ();
  double sigmoid = 0, relu;

  follow (window, "vanishing-gradients", vanishing_step, &sigmoid, 60);
  /* the ReLU net, after its backward pass, with fc1 selected */
  g_assert_cmpint (ct_window_layer_for_id (window, "relu8"), >=, 0);
  g_assert_true (selected_is (window, "fc1"));
  snapshot = ct_window_run_get_snapshot (window);
  g_assert_nonnull (snapshot);
  g_assert_cmpint (ct_run_snapshot_get_pass (snapshot), ==, CT_RUN_PASS_BACKWARD);
  fc1 = ct_run_snapshot_find_blob (snapshot, "fc1");
  g_assert_nonnull (fc1);
  g_test_message ("fc1's gradient health with ReLU: %g", fc1->health);
  g_assert_true (fc1->health > 0);
  /* what the lesson says: the sigmoids lose the gradient on the way back,
   * the ReLUs keep it */
  relu = first_over_last (window);
  g_test_message ("fc1/fc8 health: sigmoid %g, ReLU %g", sigmoid, relu);
  g_assert_cmpfloat (sigmoid, <, 0.1);
  g_assert_cmpfloat (relu, >, 10 * sigmoid);
  shoot (window, "lesson-vanishing-relu");
  close_window (window);
  leave_data_folder (dir);
}

/* A lesson file opens like a net; a bad one says where, and the window
 * keeps what it showed. */
static void
test_open_file (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-lesson-file-XXXXXX");
  g_autofree char *good = g_build_filename (dir, "mine.lesson", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.lesson", NULL);
  g_autoptr (GFile) good_file = g_file_new_for_path (good);
  g_autoptr (GFile) bad_file = g_file_new_for_path (bad);
  CtWindow *window = new_window ();

  g_assert_true (g_file_set_contents (good,
                                      "lesson: Mine\nstep: One\nsay: Hello.\n"
                                      "do: open-example mlp\ndo: select fc1\n"
                                      "step: Two\nsay: Bye.\ndo: select no-such-layer\n",
                                      -1, NULL));
  g_assert_true (g_file_set_contents (bad, "lesson: Bad\nstep: One\ndo: fly\n", -1, NULL));
  g_assert_false (ct_window_load_file (window, bad_file));
  g_assert_null (ct_window_lesson_get (window));
  WAIT_UNTIL (ct_window_get_error_shown (window) != NULL, 5);
  g_assert_nonnull (strstr (ct_window_get_error_shown (window), "bad.lesson:3:5"));

  /* Alt+Right and Alt+Left only while a lesson can go there */
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "lesson-next"));
  g_assert_true (ct_window_load_file (window, good_file));
  wait_step (window, 30);
  g_assert_true (selected_is (window, "fc1"));
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "lesson-next"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "lesson-back"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "lesson-next", NULL);
  WAIT_UNTIL (!ct_window_lesson_is_busy (window), 30);
  g_assert_cmpuint (ct_window_lesson_get_index (window), ==, 1);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "lesson-back"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "lesson-next"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "lesson-back", NULL);
  wait_step (window, 30);
  g_assert_cmpuint (ct_window_lesson_get_index (window), ==, 0);
  /* a step that cannot be done names its line, and the lesson goes on */
  ct_window_lesson_go_to (window, 1);
  WAIT_UNTIL (!ct_window_lesson_is_busy (window), 30);
  g_assert_nonnull (ct_window_lesson_get_last_error (window));
  g_assert_nonnull (strstr (ct_window_lesson_get_last_error (window), "mine.lesson:8"));
  /* a step that would open another net over unsaved edits refuses, and
   * the edits stay */
  {
    CtDocument *document = ct_window_get_document (window);
    g_autofree char *edited = NULL;

    ct_document_set_text (document, "name: \"edited\"\n");
    ct_gui_test_settle (window);
    g_assert_true (ct_window_has_unsaved_changes (window));
    edited = g_strdup (ct_document_get_text (document));
    ct_window_lesson_go_to (window, 0);
    WAIT_UNTIL (!ct_window_lesson_is_busy (window), 30);
    g_assert_nonnull (strstr (ct_window_lesson_get_last_error (window), "mine.lesson:4"));
    g_assert_cmpstr (ct_document_get_text (document), ==, edited);
    ct_document_discard_draft (document);
  }
  /* closing it brings the palette back */
  ct_window_lesson_close (window);
  g_assert_null (ct_window_lesson_get (window));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->palette)));
  close_window (window);
  ct_test_remove_tree (dir);
}

static void
set_field (CtWindow *window, const char *path, const char *value)
{
  g_signal_emit_by_name (ct_solver_panel_get_form (window->solver_panel), "changed", path, value);
}

static void
train_to_end (CtWindow *window)
{
  WAIT_UNTIL (ct_window_train_get_state (window) == CT_TRAIN_STATE_FINISHED, 120);
  g_assert_null (ct_window_train_get_last_error (window));
}

/* conv1's output statistics after stepping WINDOW's run to it. */
static CtStats
conv1_stats (CtWindow *window)
{
  CtRunSnapshot *snapshot;
  const CtRunBlob *blob;
  int steps = 0;

  g_action_group_activate_action (G_ACTION_GROUP (window), "run-reset", NULL);
  ct_gui_test_settle (window);
  while (g_strcmp0 (window->run_current, "conv1") != 0)
    {
      g_assert_cmpint (steps++, <, 10);
      g_action_group_activate_action (G_ACTION_GROUP (window), "run-forward", NULL);
      WAIT_UNTIL (!ct_runner_is_busy (window->runner) && window->run_pending == NULL, 60);
    }
  snapshot = ct_window_run_get_snapshot (window);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  blob = ct_run_snapshot_find_blob (snapshot, "conv1");
  g_assert_nonnull (blob);
  g_assert_true (blob->has_data);
  return blob->data_stats->stats;
}

/* conv1's statistics where WINDOW's run stands now (at conv1). */
static CtStats
conv1_stats_now (CtWindow *window)
{
  CtRunSnapshot *snapshot = ct_window_run_get_snapshot (window);
  const CtRunBlob *blob;

  g_assert_nonnull (snapshot);
  g_assert_null (ct_run_snapshot_get_error (snapshot));
  blob = ct_run_snapshot_find_blob (snapshot, "conv1");
  g_assert_nonnull (blob);
  g_assert_true (blob->has_data);
  return blob->data_stats->stats;
}

static void
assert_same_sessions (const CtSession *a, const CtSession *b)
{
  g_assert_cmpstr (a->net_text, ==, b->net_text);
  g_assert_cmpstr (a->solver_text, ==, b->solver_text);
  g_assert_cmpstr (a->phase, ==, b->phase);
  g_assert_cmpstr (a->view, ==, b->view);
  g_assert_cmpuint (a->batch, ==, b->batch);
  g_assert_cmpuint (a->seed, ==, b->seed);
  g_assert_nonnull (a->weights);
  g_assert_nonnull (b->weights);
  g_assert_true (g_bytes_equal (a->weights, b->weights));
  g_assert_nonnull (b->items);
  g_assert_cmpuint (a->items->len, ==, b->items->len);
  g_assert_cmpmem (a->items->data, a->items->len * sizeof (guint), b->items->data,
                   b->items->len * sizeof (guint));
  g_assert_cmpuint (a->series->len, ==, b->series->len);
  for (guint i = 0; i < a->series->len; i++)
    {
      const CtSessionSeries *x = g_ptr_array_index (a->series, i);
      const CtSessionSeries *y = g_ptr_array_index (b->series, i);

      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpstr (x->run_label, ==, y->run_label);
      g_assert_cmpint (x->faded, ==, y->faded);
      g_assert_cmpint (x->color, ==, y->color);
      g_assert_cmpuint (x->xs->len, ==, y->xs->len);
      g_assert_cmpmem (x->xs->data, x->xs->len * sizeof (double), y->xs->data,
                       y->xs->len * sizeof (double));
    }
}

static void
test_session_reopen (void)
{
  CtWindow *first, *second;
  char *dir;
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSession) saved = NULL;
  g_autoptr (CtSession) reopened = NULL;
  g_autoptr (GFile) first_weights = NULL;
  guint items[] = { 23, 5 };
  CtStats before, after;
  guint faded = 0;

  if (!have_data ())
    return;
  dir = enter_data_folder ();
  path = g_build_filename (dir, "class.cortado-session", NULL);
  file = g_file_new_for_path (path);

  first = new_window ();
  g_assert_true (ct_window_load_example (first, "lenet-fashion"));
  adw_view_stack_set_visible_child_name (first->view_stack, "training");
  set_field (first, "max_iter", "20");
  set_field (first, "test_interval", "10");
  set_field (first, "test_iter[0]", "5");
  set_field (first, "snapshot_after_train", "false");
  set_field (first, "base_lr", "0.02");
  g_action_group_activate_action (G_ACTION_GROUP (first), "train-toggle", NULL);
  train_to_end (first);
  WAIT_UNTIL (ct_window_get_weights (first) != NULL, 30);
  first_weights = g_object_ref (ct_window_get_weights (first));
  set_field (first, "base_lr", "0.03");
  g_action_group_activate_action (G_ACTION_GROUP (first), "train-restart", NULL);
  ct_gui_test_spin (50);
  train_to_end (first);
  /* the second run's weights went to the step view: they come after
   * the run has finished, and the first run's are there until then */
  WAIT_UNTIL (ct_window_get_weights (first) != first_weights, 30);
  ct_window_inputs_set_items (first, items, G_N_ELEMENTS (items));
  g_action_group_change_action_state (G_ACTION_GROUP (first), "phase",
                                      g_variant_new_string ("test"));
  ct_run_controls_set_batch (first->run_controls, 2);
  ct_run_controls_set_seed (first->run_controls, 4242);
  before = conv1_stats (first);
  g_assert_true (ct_window_session_save (first, file, &error));
  g_assert_no_error (error);
  saved = ct_window_session_collect (first);
  for (guint i = 0; i < saved->series->len; i++)
    faded += ((CtSessionSeries *) g_ptr_array_index (saved->series, i))->faded;
  /* both runs are on the plots, the first one faded */
  g_assert_cmpuint (faded, >, 0);
  g_assert_cmpuint (faded, <, saved->series->len);

  second = new_window ();
  g_assert_true (ct_window_load_file (second, file));
  ct_gui_test_settle (second);
  reopened = ct_window_session_collect (second);
  assert_same_sessions (saved, reopened);
  g_assert_cmpstr (ct_document_get_text (ct_window_get_document (second)), ==,
                   ct_document_get_text (ct_window_get_document (first)));
  /* the same weights and images through the same net: the same conv1,
   * where the reopened run stands once stepped to where the first one
   * stood (a reset there would read the data layer's next batch) */
  WAIT_UNTIL (!ct_window_session_is_restoring (second), 60);
  g_assert_cmpstr (second->run_current, ==, "conv1");
  after = conv1_stats_now (second);
  g_test_message ("conv1 mean %.9g / %.9g, std %.9g / %.9g", before.mean, after.mean,
                  before.std, after.std);
  g_assert_cmpfloat (before.mean, ==, after.mean);
  g_assert_cmpfloat (before.std, ==, after.std);
  g_assert_cmpfloat (before.min, ==, after.min);
  g_assert_cmpfloat (before.max, ==, after.max);

  /* a damaged session says so and leaves the window as it was */
  g_assert_true (g_file_set_contents (path, "[Session]\nversion=1\n", -1, NULL));
  g_assert_false (ct_window_load_file (second, file));
  WAIT_UNTIL (ct_window_get_error_shown (second) != NULL, 5);
  close_window (first);
  close_window (second);
  leave_data_folder (dir);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  gboolean display = ct_gui_test_init (&argc, &argv, "/gtk/lessons", &scratch, &app);
  int status;

  /* After gui-test's English: the language this run is for */
  language = g_getenv ("CT_TEST_LANGUAGE");
  if (language != NULL)
    {
      g_setenv ("LANGUAGE", language, TRUE);
      /* gettext translates nothing in the C locale */
      if (setlocale (LC_MESSAGES, NULL) == NULL || g_str_equal (setlocale (LC_MESSAGES, NULL), "C"))
        g_test_message ("the locale is C: %s strings will not show", language);
    }
  if (display)
    {
      g_test_add_func ("/gtk/lessons/open-file", test_open_file);
      g_test_add_func ("/gtk/lessons/convolution", test_convolution);
      g_test_add_func ("/gtk/lessons/vanishing-gradients", test_vanishing);
      g_test_add_func ("/gtk/lessons/training", test_training);
      g_test_add_func ("/gtk/session/reopen", test_session_reopen);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
