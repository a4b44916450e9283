/* trainer-test-util.c: the trainer tests' solver and fixture. */
#include <glib/gstdio.h>
#include <string.h>

#include "text-format.h"
#include "trainer-test-util.h"

static const char net_text[] =
  "net_param { name: 'tiny' "
  "  layer { name: 'data' type: 'DummyData' top: 'data' top: 'label' "
  "    dummy_data_param { shape { dim: 4 dim: 1 dim: 6 dim: 6 } shape { dim: 4 } "
  "      data_filler { type: 'constant' value: 0.5 } data_filler { type: 'constant' value: 1 } } } "
  "  layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1' "
  "    convolution_param { num_output: 2 kernel_size: 3 "
  "      weight_filler { type: 'gaussian' std: 0.5 } bias_filler { type: 'constant' value: 0.1 } } } "
  "  layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' top: 'conv1' } "
  "  layer { name: 'ip' type: 'InnerProduct' bottom: 'conv1' top: 'ip' "
  "    inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' } "
  "  layer { name: 'accuracy' type: 'Accuracy' bottom: 'ip' bottom: 'label' top: 'accuracy' "
  "    include { phase: TEST } } "
  "} "
  "test_iter: 1 test_interval: 5 base_lr: 0.05 momentum: 0.9 weight_decay: 0.0005 "
  "lr_policy: 'step' gamma: 0.5 stepsize: 7 "
  "max_iter: 20 display: 0 average_loss: 4 random_seed: 7 snapshot_after_train: false ";

Caffe__SolverParameter *
ct_test_train_param (const char *extra)
{
  g_autofree char *text = g_strconcat (net_text, extra, NULL);
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__solver_parameter__descriptor, text, -1,
                                         NULL, CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__SolverParameter *) msg;
}

void
ct_test_train_param_free (Caffe__SolverParameter *param)
{
  protobuf_c_message_free_unpacked (&param->base, NULL);
}

static void
on_progress (CtTrainer *trainer, CtTrainProgress *p, gpointer user_data)
{
  CtTestTrain *t = user_data;

  g_assert_true (trainer == t->trainer);
  g_clear_pointer (&t->last, ct_train_progress_unref);
  t->last = ct_train_progress_ref (p);
  t->received++;
  if (p->watch_data != NULL)
    {
      g_clear_pointer (&t->watch, ct_train_progress_unref);
      t->watch = ct_train_progress_ref (p);
    }
  g_array_append_vals (t->points, p->points->data, p->points->len);
  g_array_append_vals (t->tests, p->tests->data, p->tests->len);
  g_array_append_vals (t->ratios, p->ratios->data, p->ratios->len);
  for (guint i = 0; p->files != NULL && p->files[i] != NULL; i++)
    g_ptr_array_add (t->files, g_strdup (p->files[i]));
  if (p->snapshot != NULL)
    g_ptr_array_add (t->snapshots, ct_run_snapshot_ref (p->snapshot));
  if (p->error != NULL && t->error == NULL)
    t->error = g_error_copy (p->error);
}

void
ct_test_train_init (CtTestTrain *t, const Caffe__SolverParameter *param,
                    const CtTrainConfig *config)
{
  ct_test_train_init_from (t, param, NULL, config);
}

void
ct_test_train_init_from (CtTestTrain *t, const Caffe__SolverParameter *param,
                         const char *source_path, const CtTrainConfig *config)
{
  memset (t, 0, sizeof *t);
  t->points = g_array_new (FALSE, FALSE, sizeof (CtTrainPoint));
  t->tests = g_array_new (FALSE, FALSE, sizeof (CtTrainTestPoint));
  t->ratios = g_array_new (FALSE, FALSE, sizeof (CtTrainRatio));
  t->files = g_ptr_array_new_with_free_func (g_free);
  t->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_run_snapshot_unref);
  t->trainer = ct_trainer_new (param, source_path, config, on_progress, t);
}

void
ct_test_train_clear (CtTestTrain *t)
{
  g_clear_pointer (&t->trainer, ct_trainer_free);
  g_clear_pointer (&t->last, ct_train_progress_unref);
  g_clear_pointer (&t->watch, ct_train_progress_unref);
  g_array_unref (t->points);
  g_array_unref (t->tests);
  g_array_unref (t->ratios);
  g_ptr_array_unref (t->files);
  g_ptr_array_unref (t->snapshots);
  g_clear_error (&t->error);
}

/* One round of the main context, napping when nothing was ready; fails
 * the test past DEADLINE. */
static void
turn (gint64 deadline)
{
  g_assert_cmpint (g_get_monotonic_time (), <, deadline);
  if (!g_main_context_iteration (NULL, FALSE))
    g_usleep (200);
}

static gboolean
has_state (const CtTrainProgress *p, int state)
{
  return p->state == (CtTrainState) state;
}

static gboolean
has_iter (const CtTrainProgress *p, int iter)
{
  return p->iter >= iter;
}

static CtTrainProgress *
wait_for (CtTestTrain *t, gboolean (*reached) (const CtTrainProgress *, int), int arg)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (t->last == NULL || !reached (t->last, arg))
    {
      /* Training that stopped on an error will not reach anything else. */
      if (t->last != NULL && t->last->state == CT_TRAIN_STATE_STOPPED && t->error != NULL)
        g_error ("training stopped: %s", t->error->message);
      turn (deadline);
    }
  return t->last;
}

CtTrainProgress *
ct_test_train_until (CtTestTrain *t, CtTrainState state)
{
  return wait_for (t, has_state, (int) state);
}

CtTrainProgress *
ct_test_train_until_iter (CtTestTrain *t, int iter)
{
  return wait_for (t, has_iter, iter);
}

void
ct_test_train_wait_files (CtTestTrain *t, guint n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (t->files->len < n && t->error == NULL)
    turn (deadline);
  g_assert_no_error (t->error);
}

void
ct_test_train_spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    turn (G_MAXINT64);
}
