/* trainer.c: CtTrainer's public side: the commands queued to the worker,
 * CtTrainProgress, and how progress merges into the one the main context
 * has not taken yet (mailbox.h delivers it). */
#include "trainer-private.h"

G_DEFINE_QUARK (ct-train-error-quark, ct_train_error)

struct _CtTrainer {
  CtMailbox *mailbox;
  GAsyncQueue *queue;
  GThread *thread;
  CtTrainProgressFunc func;
  gpointer user_data;
};

/* Progress */

static void
progress_clear (gpointer data)
{
  CtTrainProgress *p = data;

  g_array_unref (p->points);
  g_array_unref (p->tests);
  g_array_unref (p->ratios);
  g_strfreev (p->test_names);
  g_strfreev (p->ratio_layers);
  g_free (p->watch_name);
  g_free (p->watch_dims);
  g_clear_pointer (&p->watch_data, g_bytes_unref);
  ct_blob_stats_unref (p->watch_stats);
  g_clear_pointer (&p->snapshot, ct_run_snapshot_unref);
  g_strfreev (p->files);
  g_clear_error (&p->error);
}

CtTrainProgress *
ct_train_progress_new (void)
{
  CtTrainProgress *p = g_atomic_rc_box_new0 (CtTrainProgress);

  p->points = g_array_new (FALSE, FALSE, sizeof (CtTrainPoint));
  p->tests = g_array_new (FALSE, FALSE, sizeof (CtTrainTestPoint));
  p->ratios = g_array_new (FALSE, FALSE, sizeof (CtTrainRatio));
  p->eta_s = -1.0;
  return p;
}

CtTrainProgress *
ct_train_progress_ref (CtTrainProgress *progress)
{
  return g_atomic_rc_box_acquire (progress);
}

void
ct_train_progress_unref (CtTrainProgress *progress)
{
  if (progress != NULL)
    g_atomic_rc_box_release_full (progress, progress_clear);
}

/* Merging */

static char **
strv_concat (char **a, char **b)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  if (a != NULL)
    g_strv_builder_addv (builder, (const char **) a);
  if (b != NULL)
    g_strv_builder_addv (builder, (const char **) b);
  return g_strv_builder_end (builder);
}

/* NEXT replaces OLD in the mailbox: OLD's points come first, its error
 * and files are kept, and its watch copy when NEXT has none. */
static void
merge (gpointer next_data, gpointer old_data)
{
  CtTrainProgress *next = next_data, *old = old_data;

  g_array_prepend_vals (next->points, old->points->data, old->points->len);
  g_array_prepend_vals (next->tests, old->tests->data, old->tests->len);
  g_array_prepend_vals (next->ratios, old->ratios->data, old->ratios->len);
  if (next->error == NULL)
    next->error = g_steal_pointer (&old->error);
  if (old->files != NULL)
    {
      char **files = strv_concat (old->files, next->files);

      g_strfreev (next->files);
      next->files = files;
    }
  if (next->watch_data == NULL && old->watch_data != NULL)
    {
      next->watch_name = g_steal_pointer (&old->watch_name);
      next->watch_iter = old->watch_iter;
      next->watch_n_axes = old->watch_n_axes;
      next->watch_dims = g_steal_pointer (&old->watch_dims);
      next->watch_data = g_steal_pointer (&old->watch_data);
      next->watch_stats = g_steal_pointer (&old->watch_stats);
    }
}

static void
deliver (gpointer item, gpointer user_data)
{
  CtTrainer *trainer = user_data;

  if (trainer->func != NULL)
    trainer->func (trainer, item, trainer->user_data);
}

/* Commands */

void
ct_train_command_free (CtTrainCommand *command)
{
  g_free (command->text);
  if (command->param != NULL)
    caffe__solver_parameter__free_unpacked (command->param, NULL);
  g_free (command);
}

static void
push (CtTrainer *trainer, CtTrainCommandKind kind, const char *text, guint every)
{
  CtTrainCommand *command = g_new0 (CtTrainCommand, 1);

  command->kind = kind;
  command->text = g_strdup (text);
  command->every = every;
  g_async_queue_push (trainer->queue, command);
}

/* A private copy, through the wire format. */
static Caffe__SolverParameter *
copy_param (const Caffe__SolverParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *packed = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (&param->base, packed);
  return caffe__solver_parameter__unpack (NULL, size, packed);
}

CtTrainer *
ct_trainer_new (const Caffe__SolverParameter *param, const char *source_path,
                const CtTrainConfig *config, CtTrainProgressFunc func, gpointer user_data)
{
  CtTrainer *trainer = g_new0 (CtTrainer, 1);
  CtTrainWorker *w = g_new0 (CtTrainWorker, 1);

  trainer->func = func;
  trainer->user_data = user_data;
  trainer->mailbox = ct_mailbox_new ("[cortado] train progress", merge,
                                     (GDestroyNotify) ct_train_progress_unref, deliver,
                                     trainer);
  trainer->queue = g_async_queue_new_full ((GDestroyNotify) ct_train_command_free);

  w->mailbox = ct_mailbox_ref (trainer->mailbox);
  w->queue = g_async_queue_ref (trainer->queue);
  w->param = copy_param (param);
  /* Restart must repeat the run: a solver without a seed gets one now. */
  if (w->param->random_seed < 0)
    w->param->random_seed = g_random_int_range (0, G_MAXINT32);
  w->source_path = g_strdup (source_path);
  if (config != NULL)
    {
      w->resume = g_strdup (config->resume);
      w->weights = g_strdup (config->weights);
      w->ratio_every = config->ratio_every;
      w->use_gpu = config->use_gpu;
      w->gpu_device = config->gpu_device;
    }
  w->break_layer = -1;
  trainer->thread = g_thread_new ("cortado-trainer", ct_train_worker_main, w);
  return trainer;
}

void
ct_trainer_free (CtTrainer *trainer)
{
  if (trainer == NULL)
    return;
  push (trainer, CT_TRAIN_CMD_QUIT, NULL, 0);
  ct_mailbox_close (trainer->mailbox);
  g_thread_join (trainer->thread);
  g_async_queue_unref (trainer->queue);
  ct_mailbox_unref (trainer->mailbox);
  g_free (trainer);
}

void ct_trainer_start (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_START, NULL, 0); }
void ct_trainer_pause (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_PAUSE, NULL, 0); }
void ct_trainer_resume (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_RESUME, NULL, 0); }
void ct_trainer_stop (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_STOP, NULL, 0); }
void ct_trainer_restart (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_RESTART, NULL, 0); }

void
ct_trainer_restart_with (CtTrainer *trainer, const Caffe__SolverParameter *param)
{
  CtTrainCommand *command = g_new0 (CtTrainCommand, 1);

  command->kind = CT_TRAIN_CMD_RESTART;
  command->param = copy_param (param);
  g_async_queue_push (trainer->queue, command);
}

void
ct_trainer_snapshot_now (CtTrainer *trainer)
{
  push (trainer, CT_TRAIN_CMD_SNAPSHOT, NULL, 0);
}

void
ct_trainer_export (CtTrainer *trainer, const char *folder)
{
  push (trainer, CT_TRAIN_CMD_EXPORT, folder, 0);
}

void
ct_trainer_set_breakpoint (CtTrainer *trainer, const char *layer)
{
  push (trainer, CT_TRAIN_CMD_BREAKPOINT, layer, 0);
}

void
ct_trainer_step_forward (CtTrainer *trainer)
{
  push (trainer, CT_TRAIN_CMD_STEP_FORWARD, NULL, 0);
}

void
ct_trainer_step_backward (CtTrainer *trainer)
{
  push (trainer, CT_TRAIN_CMD_STEP_BACKWARD, NULL, 0);
}

void
ct_trainer_watch (CtTrainer *trainer, const char *name, guint every)
{
  push (trainer, CT_TRAIN_CMD_WATCH, name, every);
}

void
ct_trainer_set_ratio_every (CtTrainer *trainer, guint every)
{
  push (trainer, CT_TRAIN_CMD_RATIO_EVERY, NULL, every);
}
