/* test-trainer.c: the trainer's life: training to max_iter hands over every
 * loss, test and update-ratio point however hand-overs coalesce; pause
 * leaves the solver at an iteration boundary, resume and stop; restart
 * repeats the run bit for bit, and with changed settings starts from the
 * same loss and reports the new rate; resuming from a solverstate written
 * mid-run continues with the uninterrupted run's losses; a huge learning
 * rate stops training with an error naming a layer; "snapshot now" and
 * export write files that load back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine-error.h"
#include "error-place.h"
#include "net.h"
#include "solver.h"
#include "solver-diff.h"
#include "test-solver-common.h"
#include "text-format.h"
#include "trainer-test-util.h"

static const CtTrainConfig ratios = { .ratio_every = 1 };

static GArray *
train_to_end (const Caffe__SolverParameter *param, const CtTrainConfig *config)
{
  CtTestTrain t;
  GArray *points;

  ct_test_train_init (&t, param, config);
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_no_error (t.error);
  points = g_array_ref (t.points);
  ct_test_train_clear (&t);
  return points;
}

static void
test_every_point (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTrainProgress *p;
  CtTestTrain t;

  ct_test_train_init (&t, param, &ratios);
  ct_trainer_start (t.trainer);
  p = ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_no_error (t.error);
  g_assert_cmpint (p->iter, ==, 20);
  g_assert_cmpint (p->max_iter, ==, 20);
  g_assert_cmpfloat (p->eta_s, ==, 0.0);
  g_assert_cmpfloat (p->elapsed_s, >, 0.0);
  /* Far fewer hand-overs than iterations may arrive; never fewer points. */
  g_test_message ("%u hand-overs for 20 iterations", t.received);
  g_assert_cmpuint (t.points->len, ==, 20);
  for (guint i = 0; i < 20; i++)
    {
      CtTrainPoint *point = &g_array_index (t.points, CtTrainPoint, i);

      g_assert_cmpint (point->iter, ==, (int) i);
      g_assert_true (isfinite (point->loss));
      /* step policy: gamma 0.5 every 7 iterations */
      g_assert_cmpfloat_with_epsilon (point->learning_rate, 0.05f * powf (0.5f, i / 7), 1e-7);
    }
  g_assert_cmpfloat (g_array_index (t.points, CtTrainPoint, 19).loss, <,
                     g_array_index (t.points, CtTrainPoint, 0).loss);
  /* Tests at 0, 5, 10, 15 and at the end (20): accuracy and loss each. */
  g_assert_cmpuint (t.tests->len, ==, 10);
  g_assert_cmpint (g_array_index (t.tests, CtTrainTestPoint, 9).iter, ==, 20);
  g_assert_cmpstrv (p->test_names, ((const char *const[]) { "accuracy", "loss", NULL }));
  /* Update ratios of conv1 and ip at every iteration. */
  g_assert_cmpstrv (p->ratio_layers, ((const char *const[]) { "conv1", "ip", NULL }));
  g_assert_cmpuint (t.ratios->len, ==, 40);
  for (guint i = 0; i < t.ratios->len; i++)
    {
      CtTrainRatio *r = &g_array_index (t.ratios, CtTrainRatio, i);

      g_assert_cmpint (r->iter, ==, (int) i / 2);
      g_assert_cmpuint (r->layer, ==, i % 2);
      g_assert_cmpfloat (r->ratio, >, 0.0);
      g_assert_cmpfloat (r->ratio, <, 1.0);
    }
  ct_test_train_clear (&t);
}

/* The main loop does not run while the trainer trains: the progress of
 * every iteration merges into one hand-over, which has every point. */
static void
test_coalesced (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTestTrain t;

  ct_test_train_init (&t, param, &ratios);
  ct_trainer_start (t.trainer);
  g_usleep (2 * G_USEC_PER_SEC);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_cmpuint (t.received, ==, 1);
  g_assert_cmpuint (t.points->len, ==, 20);
  g_assert_cmpuint (t.tests->len, ==, 10);
  g_assert_cmpuint (t.ratios->len, ==, 40);
  ct_test_train_clear (&t);
}

static void
test_pause_resume_stop (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTrainProgress *p;
  CtTestTrain t;
  int paused_at;
  guint received;

  param->max_iter = 1000000;
  ct_test_train_init (&t, param, NULL);
  ct_trainer_start (t.trainer);
  ct_test_train_until_iter (&t, 3);
  ct_trainer_pause (t.trainer);
  p = ct_test_train_until (&t, CT_TRAIN_STATE_PAUSED);
  paused_at = p->iter;
  /* At an iteration boundary: every iteration begun was completed and
   * handed over. */
  g_assert_cmpuint (t.points->len, ==, (guint) paused_at);
  g_assert_cmpint (g_array_index (t.points, CtTrainPoint, t.points->len - 1).iter, ==,
                   paused_at - 1);
  received = t.received;
  ct_test_train_spin (100);
  g_assert_cmpuint (t.received, ==, received);

  ct_trainer_resume (t.trainer);
  ct_test_train_until_iter (&t, paused_at + 3);
  ct_trainer_stop (t.trainer);
  p = ct_test_train_until (&t, CT_TRAIN_STATE_STOPPED);
  g_assert_no_error (t.error);
  g_assert_cmpint (p->iter, >=, paused_at + 3);
  g_assert_cmpuint (t.points->len, ==, (guint) p->iter);
  /* Start after a stop goes on from there; stop works from a pause too. */
  ct_trainer_start (t.trainer);
  ct_test_train_until_iter (&t, p->iter + 2);
  ct_trainer_pause (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_PAUSED);
  ct_trainer_stop (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_STOPPED);
  ct_test_train_clear (&t);
}

static void
assert_same_losses (GArray *a, guint a_from, GArray *b, guint b_from, guint n)
{
  g_assert_cmpuint (a->len, >=, a_from + n);
  g_assert_cmpuint (b->len, >=, b_from + n);
  for (guint i = 0; i < n; i++)
    {
      CtTrainPoint *x = &g_array_index (a, CtTrainPoint, a_from + i);
      CtTrainPoint *y = &g_array_index (b, CtTrainPoint, b_from + i);

      g_assert_cmpint (x->iter, ==, y->iter);
      g_assert_cmpmem (&x->loss, sizeof (float), &y->loss, sizeof (float));
    }
}

static void
test_restart_repeats (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  g_autoptr (GArray) first = NULL;
  CtTestTrain t;

  /* No seed in the solver: the trainer draws one, kept for a restart. */
  param->random_seed = -1;
  ct_test_train_init (&t, param, NULL);
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  first = g_array_copy (t.points);
  g_array_set_size (t.points, 0);
  ct_trainer_restart (t.trainer);
  while (t.points->len < 20 || t.last->state != CT_TRAIN_STATE_FINISHED)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (t.error);
  assert_same_losses (first, 0, t.points, 0, 20);
  ct_test_train_clear (&t);
}

/* Restart with the settings shown: a class changes base_lr and compares
 * from the same start. The second run reports the new rate, begins with
 * the first run's loss bit for bit (same seed, so the same initial
 * weights and data), and then departs from it (the new rate is used). */
static void
test_restart_with_changes (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  g_autoptr (Caffe__SolverParameter) changed = ct_test_train_param ("");
  g_autoptr (GArray) first = NULL;
  CtTrainPoint *a, *b;
  CtTestTrain t;

  /* No seed: the trainer's drawn one must carry over to the new settings. */
  param->random_seed = -1;
  changed->random_seed = -1;
  changed->base_lr = 0.5f;
  ct_test_train_init (&t, param, NULL);
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  first = g_array_copy (t.points);
  g_array_set_size (t.points, 0);
  ct_trainer_restart_with (t.trainer, changed);
  while (t.points->len < 20 || t.last->state != CT_TRAIN_STATE_FINISHED)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (t.error);
  a = &g_array_index (first, CtTrainPoint, 0);
  b = &g_array_index (t.points, CtTrainPoint, 0);
  g_assert_cmpfloat (a->learning_rate, ==, 0.05f);
  g_assert_cmpfloat (b->learning_rate, ==, 0.5f);
  g_assert_cmpint (b->iter, ==, 0);
  g_assert_cmpmem (&a->loss, sizeof (float), &b->loss, sizeof (float));
  a = &g_array_index (first, CtTrainPoint, 3);
  b = &g_array_index (t.points, CtTrainPoint, 3);
  g_assert_cmpfloat (a->loss, !=, b->loss);
  ct_test_train_clear (&t);
}

/* An earlier run is labelled by the settings that set it apart. */
static void
test_diff_label (void)
{
  g_autoptr (Caffe__SolverParameter) a = ct_test_train_param ("");
  g_autoptr (Caffe__SolverParameter) b = ct_test_train_param ("");
  g_autofree char *same = NULL, *one = NULL, *two = NULL, *capped = NULL;

  same = ct_solver_param_diff (a, b, 3);
  g_assert_null (same);
  b->base_lr = 0.1f;
  one = ct_solver_param_diff (a, b, 3);
  g_assert_cmpstr (one, ==, "base_lr 0.05");
  b->momentum = 0.5f;
  b->has_momentum = TRUE;
  two = ct_solver_param_diff (a, b, 3);
  g_assert_cmpstr (two, ==, "base_lr 0.05, momentum 0.9");
  capped = ct_solver_param_diff (a, b, 1);
  g_assert_cmpstr (capped, ==, "base_lr 0.05, …");
}

static void
test_resume_solverstate (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *prefix = g_build_filename (dir, "tiny", NULL);
  g_autofree char *state = g_build_filename (dir, "tiny_iter_10.solverstate", NULL);
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  g_autoptr (GArray) whole = NULL;
  g_autoptr (GArray) resumed = NULL;
  CtTrainConfig config = { .resume = state };

  /* The uninterrupted run writes a snapshot at iteration 10, mid-run. */
  param->snapshot = 10;
  param->has_snapshot = TRUE;
  param->snapshot_prefix = prefix;
  whole = train_to_end (param, NULL);
  g_assert_true (g_file_test (state, G_FILE_TEST_EXISTS));
  resumed = train_to_end (param, &config);
  g_assert_cmpuint (resumed->len, ==, 10);
  assert_same_losses (whole, 10, resumed, 0, 10);
  param->snapshot_prefix = NULL;
  ct_test_remove_tree (dir);
}

static void
test_not_finite (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  Caffe__NetParameter *net;
  Caffe__BlobShape *label;
  CtTrainProgress *p;
  CtTestTrain t;

  /* A Euclidean loss against 4×3 targets (a softmax saturates instead
   * of overflowing), no test net (its Accuracy wants class labels), and
   * AbsVal for ReLU: no unit dies, so the huge steps reach infinity. */
  net = param->net_param;
  label = net->layer[0]->dummy_data_param->shape[1];
  free (label->dim);
  label->dim = calloc (2, sizeof (int64_t));
  label->dim[0] = 4;
  label->dim[1] = 3;
  label->n_dim = 2;
  free (net->layer[4]->type);
  net->layer[4]->type = strdup ("EuclideanLoss");
  param->n_test_iter = 0;
  g_assert_cmpstr (net->layer[2]->name, ==, "relu1");
  free (net->layer[2]->type);
  net->layer[2]->type = strdup ("AbsVal");
  free (net->layer[2]->top[0]);
  net->layer[2]->top[0] = strdup ("abs1");
  free (net->layer[3]->bottom[0]);
  net->layer[3]->bottom[0] = strdup ("abs1");
  param->base_lr = 1e30f;
  param->max_iter = 1000;
  ct_test_train_init (&t, param, &ratios);
  ct_trainer_start (t.trainer);
  while (t.last == NULL || (t.last->state != CT_TRAIN_STATE_STOPPED &&
                            t.last->state != CT_TRAIN_STATE_FINISHED))
    g_main_context_iteration (NULL, TRUE);
  p = t.last;
  g_assert_error (t.error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NOT_FINITE);
  g_test_message ("%s", t.error->message);
  g_assert_nonnull (strstr (t.error->message, "layer '"));
  /* the layer and blob travel as data, not only in the message */
  g_assert_nonnull (ct_error_get_layer (t.error));
  g_assert_nonnull (strstr (t.error->message, ct_error_get_layer (t.error)));
  g_assert_cmpint (p->iter, <, 1000);
  ct_test_train_clear (&t);
}

static void
test_snapshot_and_export (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *prefix = g_build_filename (dir, "snap", NULL);
  g_autofree char *folder = g_build_filename (dir, "export", "here", NULL);
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  Caffe__NetParameter *net_param;
  g_autoptr (CtNet) net = NULL;
  g_autoptr (CtSolver) solver = NULL;
  g_autoptr (GError) error = NULL;
  CtTestTrain t;

  param->max_iter = 3;
  param->snapshot_prefix = prefix;
  ct_test_train_init (&t, param, NULL);
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  ct_trainer_snapshot_now (t.trainer);
  ct_trainer_export (t.trainer, folder);
  ct_test_train_wait_files (&t, 5);
  g_assert_true (g_str_has_suffix (t.files->pdata[0], "snap_iter_3.caffemodel"));
  g_assert_true (g_str_has_suffix (t.files->pdata[1], "snap_iter_3.solverstate"));
  g_assert_true (g_str_has_suffix (t.files->pdata[2], "here/tiny.prototxt"));
  g_assert_true (g_str_has_suffix (t.files->pdata[3], "here/tiny_iter_3.caffemodel"));
  g_assert_true (g_str_has_suffix (t.files->pdata[4], "here/tiny_iter_3.solverstate"));

  /* The exported net and weights load back... */
  net_param = (Caffe__NetParameter *) ct_text_parse_file (&caffe__net_parameter__descriptor,
                                                          t.files->pdata[2], CT_TEXT_STRICT,
                                                          &error);
  g_assert_no_error (error);
  net = ct_net_new (net_param, CAFFE__PHASE__TRAIN, 0, NULL, 1, &error);
  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, t.files->pdata[3], &error));
  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (&net_param->base, NULL);
  /* ... and so does the solverstate, into a solver that goes on. */
  param->snapshot_prefix = NULL;
  solver = ct_solver_new (param, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ct_solver_restore (solver, t.files->pdata[4], &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_solver_get_iter (solver), ==, 3);
  ct_test_train_clear (&t);
  ct_test_remove_tree (dir);
}

/* A solver file naming its net by a path relative to itself, opened from
 * elsewhere: the net is found, and the export copies its text. */
/* DIR/NAME with TEXT; returns its path. */
static char *
write_file (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_relative_net (void)
{
  g_autoptr (Caffe__SolverParameter) inline_param = ct_test_train_param ("");
  g_autofree char *net_text = ct_text_print (&inline_param->net_param->base);
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *solver_path =
    write_file (dir, "solver.prototxt",
                "net: 'tiny.prototxt' base_lr: 0.01 lr_policy: 'fixed' max_iter: 2 "
                "display: 0 random_seed: 3 snapshot_after_train: false");
  g_autofree char *folder = g_build_filename (dir, "out", NULL);
  g_autoptr (Caffe__SolverParameter) param = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *exported = NULL;
  CtTestTrain t;

  /* The solver names its net relative to its own folder. */
  g_free (write_file (dir, "tiny.prototxt", net_text));
  param = ct_solver_param_load_file (solver_path, &error);
  g_assert_no_error (error);
  ct_test_train_init_from (&t, param, solver_path, NULL);
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_no_error (t.error);
  ct_trainer_export (t.trainer, folder);
  ct_test_train_wait_files (&t, 3);
  g_assert_true (g_file_get_contents (t.files->pdata[0], &exported, NULL, NULL));
  g_assert_cmpstr (exported, ==, net_text);
  ct_test_train_clear (&t);
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/trainer/every-point", test_every_point);
  g_test_add_func ("/run/trainer/coalesced", test_coalesced);
  g_test_add_func ("/run/trainer/pause-resume-stop", test_pause_resume_stop);
  g_test_add_func ("/run/trainer/restart-repeats", test_restart_repeats);
  g_test_add_func ("/run/trainer/restart-with-changes", test_restart_with_changes);
  g_test_add_func ("/run/trainer/diff-label", test_diff_label);
  g_test_add_func ("/run/trainer/resume-solverstate", test_resume_solverstate);
  g_test_add_func ("/run/trainer/not-finite", test_not_finite);
  g_test_add_func ("/run/trainer/snapshot-and-export", test_snapshot_and_export);
  g_test_add_func ("/run/trainer/relative-net", test_relative_net);
  return g_test_run ();
}
