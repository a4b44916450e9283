/* test-trainer-break.c: pausing inside a pass. A breakpoint on a layer
 * stops the training before that layer's forward with a step-through
 * snapshot of the live pass; steps move layer by layer through forward
 * and into backward; resume completes the iteration and training goes on,
 * with the same losses as a run never paused; stop inside a pass ends
 * after that iteration; a breakpoint on a layer the net lacks is an
 * error; an export inside a pass is written at once and a restart waits
 * for the iteration; and a followed blob is copied, and update ratios
 * computed, every N iterations, a large blob no more often than keeps
 * its copies a small share of the training time. */
#include <string.h>

#include "test-solver-common.h"
#include "text-format.h"
#include "trainer-test-util.h"

/* The train net's layers: data 0, conv1 1, relu1 2, ip 3, loss 4. */

static CtRunSnapshot *
next_break (CtTestTrain *t, guint *seen)
{
  while (t->snapshots->len <= *seen)
    g_main_context_iteration (NULL, TRUE);
  return t->snapshots->pdata[(*seen)++];
}

/* A trainer for PARAM pausing before LAYER, paused there in its second
 * iteration. */
static void
second_break (CtTestTrain *t, const Caffe__SolverParameter *param, const char *layer,
              guint *seen)
{
  ct_test_train_init (t, param, NULL);
  ct_trainer_set_breakpoint (t->trainer, layer);
  ct_trainer_start (t->trainer);
  next_break (t, seen);
  ct_trainer_resume (t->trainer);
  next_break (t, seen);
  g_assert_cmpint (t->last->iter, ==, 1);
}

static const CtRunBlob *
blob (CtRunSnapshot *s, const char *name)
{
  const CtRunBlob *b = ct_run_snapshot_find_blob (s, name);

  g_assert_nonnull (b);
  return b;
}

static void
test_breakpoint (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTrainProgress *p;
  CtRunSnapshot *s;
  CtTestTrain t, plain;
  guint seen = 0;

  ct_test_train_init (&t, param, NULL);
  ct_trainer_watch (t.trainer, "conv1", 100);
  ct_trainer_set_breakpoint (t.trainer, "ip");
  ct_trainer_start (t.trainer);
  s = next_break (&t, &seen);
  p = t.last;
  g_assert_cmpint (p->state, ==, CT_TRAIN_STATE_BREAK);
  g_assert_cmpint (p->iter, ==, 0);
  g_assert_cmpuint (t.points->len, ==, 0);
  g_assert_cmpint (ct_run_snapshot_get_pass (s), ==, CT_RUN_PASS_FORWARD);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (s), ==, 3);
  g_assert_cmpstr (ct_run_snapshot_get_layer (s, 3)->name, ==, "ip");
  g_assert_cmpint (ct_run_snapshot_get_layer (s, 2)->state, ==, CT_RUN_LAYER_FORWARD_DONE);
  g_assert_cmpint (ct_run_snapshot_get_layer (s, 3)->state, ==, CT_RUN_LAYER_PENDING);
  g_assert_true (blob (s, "conv1")->has_data);
  g_assert_false (blob (s, "ip")->has_data);
  /* The live data of the followed blob: ReLU has run, nothing negative. */
  g_assert_cmpuint (blob (s, "conv1")->versions->len, ==, 1);
  g_assert_cmpfloat (blob (s, "conv1")->data_stats->stats.min, >=, 0.0);

  ct_trainer_step_forward (t.trainer);
  s = next_break (&t, &seen);
  g_assert_cmpint (ct_run_snapshot_get_pass (s), ==, CT_RUN_PASS_FORWARD);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (s), ==, 4);
  g_assert_true (blob (s, "ip")->has_data);
  /* Past the last layer: before the first backward. */
  ct_trainer_step_forward (t.trainer);
  s = next_break (&t, &seen);
  g_assert_cmpint (ct_run_snapshot_get_pass (s), ==, CT_RUN_PASS_BACKWARD);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (s), ==, 4);
  g_assert_false (blob (s, "ip")->has_diff);
  ct_trainer_step_backward (t.trainer);
  s = next_break (&t, &seen);
  g_assert_cmpint (ct_run_snapshot_get_pass (s), ==, CT_RUN_PASS_BACKWARD);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (s), ==, 3);
  g_assert_true (blob (s, "ip")->has_diff);
  g_assert_cmpint (ct_run_snapshot_get_layer (s, 4)->state, ==, CT_RUN_LAYER_BACKWARD_DONE);
  /* ip's weights: statistics, no diff before its backward. */
  g_assert_cmpuint (ct_run_snapshot_get_layer (s, 3)->params->len, ==, 2);
  g_assert_nonnull (((CtRunParam *) ct_run_snapshot_get_layer (s, 3)->params->pdata[0])
                    ->data_stats);
  g_assert_null (((CtRunParam *) ct_run_snapshot_get_layer (s, 3)->params->pdata[0])
                 ->diff_stats);
  g_assert_cmpuint (t.points->len, ==, 0);

  /* Resume: the iteration completes, and the breakpoint fires at the next. */
  ct_trainer_resume (t.trainer);
  s = next_break (&t, &seen);
  g_assert_cmpint (ct_run_snapshot_get_next_layer (s), ==, 3);
  g_assert_cmpint (t.last->iter, ==, 1);
  g_assert_cmpuint (t.points->len, ==, 1);
  ct_trainer_set_breakpoint (t.trainer, NULL);
  ct_trainer_resume (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_no_error (t.error);
  g_assert_cmpuint (t.snapshots->len, ==, seen);

  /* Pausing inside changed nothing. */
  ct_test_train_init (&plain, param, NULL);
  ct_trainer_start (plain.trainer);
  ct_test_train_until (&plain, CT_TRAIN_STATE_FINISHED);
  g_assert_cmpuint (plain.points->len, ==, 20);
  g_assert_cmpuint (t.points->len, ==, 20);
  g_assert_cmpmem (plain.points->data, 20 * sizeof (CtTrainPoint), t.points->data,
                   20 * sizeof (CtTrainPoint));
  ct_test_train_clear (&plain);
  ct_test_train_clear (&t);
}

static void
test_stop_inside (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTrainProgress *p;
  CtTestTrain t;
  guint seen = 0;

  second_break (&t, param, "conv1", &seen);
  ct_trainer_stop (t.trainer);
  p = ct_test_train_until (&t, CT_TRAIN_STATE_STOPPED);
  /* The iteration paused inside was completed, then training stopped. */
  g_assert_cmpint (p->iter, ==, 2);
  g_assert_cmpuint (t.points->len, ==, 2);
  /* A trainer freed while paused inside a pass shuts down. */
  ct_trainer_start (t.trainer);
  next_break (&t, &seen);
  ct_test_train_clear (&t);
}

/* Inside a pass: an export is written at once (the weights are the last
 * update's); a restart waits for the iteration to end. */
static void
test_commands_inside (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTestTrain t;
  guint seen = 0;

  second_break (&t, param, "ip", &seen);
  ct_trainer_export (t.trainer, dir);
  ct_test_train_wait_files (&t, 3);
  g_assert_true (g_str_has_suffix (t.files->pdata[1], "tiny_iter_1.caffemodel"));
  g_assert_cmpint (t.last->state, ==, CT_TRAIN_STATE_BREAK);

  ct_trainer_restart (t.trainer);
  ct_trainer_set_breakpoint (t.trainer, NULL);
  ct_trainer_resume (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_no_error (t.error);
  /* Iteration 1 completed, then the restart trained 0..19 again. */
  g_assert_cmpuint (t.points->len, ==, 22);
  g_assert_cmpint (g_array_index (t.points, CtTrainPoint, 2).iter, ==, 0);
  g_assert_cmpmem (&g_array_index (t.points, CtTrainPoint, 0), sizeof (CtTrainPoint),
                   &g_array_index (t.points, CtTrainPoint, 2), sizeof (CtTrainPoint));
  ct_test_train_clear (&t);
  ct_test_remove_tree (dir);
}

static void
test_unknown_layer (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTestTrain t;

  ct_test_train_init (&t, param, NULL);
  ct_trainer_set_breakpoint (t.trainer, "nope");
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  g_assert_error (t.error, CT_TRAIN_ERROR, CT_TRAIN_ERROR_NO_LAYER);
  g_assert_nonnull (strstr (t.error->message, "nope"));
  g_assert_cmpuint (t.snapshots->len, ==, 0);
  ct_test_train_clear (&t);
}

static void
test_watch (void)
{
  g_autoptr (Caffe__SolverParameter) param = ct_test_train_param ("");
  CtTrainProgress *p;
  CtTestTrain t;

  ct_test_train_init (&t, param, NULL);
  ct_trainer_watch (t.trainer, "conv1", 5);
  ct_trainer_set_ratio_every (t.trainer, 5);
  ct_trainer_start (t.trainer);
  ct_test_train_until (&t, CT_TRAIN_STATE_FINISHED);
  p = t.watch;
  g_assert_nonnull (p);
  g_assert_cmpstr (p->watch_name, ==, "conv1");
  g_assert_cmpint (p->watch_iter, ==, 15);
  g_assert_cmpuint (p->watch_n_axes, ==, 4);
  g_assert_cmpint (p->watch_dims[1], ==, 2);
  g_assert_cmpuint (g_bytes_get_size (p->watch_data), ==, 4 * 2 * 4 * 4 * sizeof (float));
  g_assert_cmpint (p->watch_stats->stats.count, ==, 4 * 2 * 4 * 4);
  /* Update ratios at 0, 5, 10 and 15, of conv1 and ip. */
  g_assert_cmpuint (t.ratios->len, ==, 8);
  g_assert_cmpint (g_array_index (t.ratios, CtTrainRatio, 7).iter, ==, 15);
  ct_test_train_clear (&t);
}

typedef struct {
  CtTrainProgress *last;
  guint copies;
  int first_copy, last_copy;
} Followed;

static void
on_followed (CtTrainer *trainer, CtTrainProgress *p, gpointer user_data)
{
  Followed *f = user_data;

  (void) trainer;
  g_assert_no_error (p->error);
  if (p->watch_data != NULL && f->copies++ == 0)
    f->first_copy = p->watch_iter;
  if (p->watch_data != NULL)
    f->last_copy = p->watch_iter;
  g_clear_pointer (&f->last, ct_train_progress_unref);
  f->last = ct_train_progress_ref (p);
}

static gboolean
followed_state (const Followed *f, int state)
{
  return f->last != NULL && f->last->state == (CtTrainState) state;
}

static gboolean
followed_iter (const Followed *f, int iter)
{
  return f->last != NULL && f->last->iter >= iter;
}

/* Iterate the main context until REACHED (failing after 60 s). */
static void
follow_until (const Followed *f, gboolean (*reached) (const Followed *, int), int arg)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!reached (f, arg))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (200);
    }
}

/* A blob of a million values followed every iteration of a net whose
 * iterations cost next to nothing: its copies (milliseconds each) are
 * held back to a small share of the training time, the first one at
 * once, and a copy held back comes when training finishes or pauses. A
 * small blob keeps its exact cadence (test_watch). */
static void
test_watch_budget (void)
{
  static const char text[] =
    "net_param { name: 'big' "
    "  layer { name: 'data' type: 'DummyData' top: 'data' top: 'label' top: 'big' "
    "    dummy_data_param { shape { dim: 4 dim: 8 } shape { dim: 4 } "
    "      shape { dim: 1 dim: 1 dim: 1024 dim: 1024 } "
    "      data_filler { type: 'constant' value: 0.5 } data_filler { type: 'constant' value: 1 } "
    "      data_filler { type: 'constant' value: 0.25 } } } "
    "  layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip' "
    "    inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } } "
    "  layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' } "
    "} "
    "base_lr: 0.01 lr_policy: 'fixed' max_iter: 60 display: 0 random_seed: 3 "
    "snapshot_after_train: false ";
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param = (Caffe__SolverParameter *) ct_text_parse (
    &caffe__solver_parameter__descriptor, text, -1, NULL, CT_TEXT_STRICT, &error);
  Followed f = { NULL, 0, -1, -1 };
  CtTrainer *trainer;

  g_assert_no_error (error);
  trainer = ct_trainer_new (param, NULL, NULL, on_followed, &f);
  ct_trainer_watch (trainer, "big", 1);
  ct_trainer_start (trainer);
  follow_until (&f, followed_state, CT_TRAIN_STATE_FINISHED);
  g_test_message ("%u copies", f.copies);
  g_assert_cmpint (f.first_copy, ==, 0);
  /* Sixty without the budget; a copy costs about as much as a hundred
   * of these iterations. */
  g_assert_cmpuint (f.copies, <=, 30);
  g_assert_cmpint (f.last_copy, ==, 59);
  ct_trainer_free (trainer);
  g_clear_pointer (&f.last, ct_train_progress_unref);

  /* A pause brings the blob of the last iteration (training too long to
   * finish first). */
  param->max_iter = 100000000;
  f = (Followed) { NULL, 0, -1, -1 };
  trainer = ct_trainer_new (param, NULL, NULL, on_followed, &f);
  ct_trainer_watch (trainer, "big", 1);
  ct_trainer_start (trainer);
  follow_until (&f, followed_iter, 10);
  ct_trainer_pause (trainer);
  follow_until (&f, followed_state, CT_TRAIN_STATE_PAUSED);
  g_assert_cmpint (f.last_copy, ==, f.last->iter - 1);
  ct_trainer_free (trainer);
  g_clear_pointer (&f.last, ct_train_progress_unref);
  protobuf_c_message_free_unpacked (&param->base, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/trainer/breakpoint", test_breakpoint);
  g_test_add_func ("/run/trainer/stop-inside", test_stop_inside);
  g_test_add_func ("/run/trainer/commands-inside", test_commands_inside);
  g_test_add_func ("/run/trainer/unknown-layer", test_unknown_layer);
  g_test_add_func ("/run/trainer/watch", test_watch);
  g_test_add_func ("/run/trainer/watch-budget", test_watch_budget);
  return g_test_run ();
}
