/* trainer.c: CtTrainer's public side: the commands queued to the worker,
 * CtTrainProgress, and the mailbox that merges progress into the one the
 * main context has not taken yet. */
#include "trainer-private.h"

G_DEFINE_QUARK (ct-train-error-quark, ct_train_error)

struct _CtTrainer {
  CtTrainMailbox *mailbox;
  GAsyncQueue *queue;
  GThread *thread;
  CtTrainWorker *worker;
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

/* Mailbox */

static void
mailbox_clear (gpointer data)
{
  CtTrainMailbox *mailbox = data;

  g_mutex_clear (&mailbox->lock);
  ct_train_progress_unref (mailbox->pending);
  g_main_context_unref (mailbox->context);
}

CtTrainMailbox *
ct_train_mailbox_ref (CtTrainMailbox *mailbox)
{
  return g_atomic_rc_box_acquire (mailbox);
}

void
ct_train_mailbox_unref (CtTrainMailbox *mailbox)
{
  g_atomic_rc_box_release_full (mailbox, mailbox_clear);
}

static gboolean
mailbox_deliver (gpointer data)
{
  CtTrainMailbox *mailbox = data;
  g_autoptr (CtTrainProgress) progress = NULL;
  gboolean closed;

  g_mutex_lock (&mailbox->lock);
  progress = g_steal_pointer (&mailbox->pending);
  mailbox->scheduled = FALSE;
  closed = mailbox->closed;
  g_mutex_unlock (&mailbox->lock);
  /* CLOSED is set only by ct_trainer_free, in this context's thread. */
  if (!closed && progress != NULL && mailbox->func != NULL)
    mailbox->func (mailbox->trainer, progress, mailbox->user_data);
  return G_SOURCE_REMOVE;
}

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

/* NEXT replaces OLD (not handed over, not shared): it keeps OLD's points
 * before its own, OLD's error and files, and OLD's watch copy when it has
 * none. */
static void
merge (CtTrainProgress *next, CtTrainProgress *old)
{
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

void
ct_train_mailbox_post (CtTrainMailbox *mailbox, CtTrainProgress *progress)
{
  CtTrainProgress *replaced;
  gboolean schedule;

  g_mutex_lock (&mailbox->lock);
  if (mailbox->closed)
    {
      g_mutex_unlock (&mailbox->lock);
      ct_train_progress_unref (progress);
      return;
    }
  replaced = mailbox->pending;
  if (replaced != NULL)
    merge (progress, replaced);
  mailbox->pending = progress;
  schedule = !mailbox->scheduled;
  mailbox->scheduled = TRUE;
  g_mutex_unlock (&mailbox->lock);
  ct_train_progress_unref (replaced);

  if (schedule)
    {
      g_autoptr (GSource) source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, mailbox_deliver, ct_train_mailbox_ref (mailbox),
                             (GDestroyNotify) ct_train_mailbox_unref);
      g_source_set_static_name (source, "[cortado] train progress");
      g_source_attach (source, mailbox->context);
    }
}

/* Commands */

void
ct_train_command_free (CtTrainCommand *command)
{
  g_free (command->text);
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

CtTrainer *
ct_trainer_new (const Caffe__SolverParameter *param, const char *source_path,
                const CtTrainConfig *config, CtTrainProgressFunc func, gpointer user_data)
{
  CtTrainer *trainer = g_new0 (CtTrainer, 1);
  CtTrainWorker *w = g_new0 (CtTrainWorker, 1);
  CtTrainMailbox *mailbox = g_atomic_rc_box_new0 (CtTrainMailbox);
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *packed = g_malloc (MAX (size, 1));

  g_mutex_init (&mailbox->lock);
  mailbox->context = g_main_context_ref_thread_default ();
  mailbox->trainer = trainer;
  mailbox->func = func;
  mailbox->user_data = user_data;
  trainer->mailbox = mailbox;
  trainer->queue = g_async_queue_new_full ((GDestroyNotify) ct_train_command_free);

  w->mailbox = ct_train_mailbox_ref (mailbox);
  w->queue = g_async_queue_ref (trainer->queue);
  /* A private copy, through the wire format. */
  protobuf_c_message_pack (&param->base, packed);
  w->param = caffe__solver_parameter__unpack (NULL, size, packed);
  /* Restart must repeat the run: a solver without a seed gets one now. */
  if (w->param->random_seed < 0)
    w->param->random_seed = g_random_int_range (0, G_MAXINT32);
  w->source_path = g_strdup (source_path);
  if (config != NULL)
    {
      w->resume = g_strdup (config->resume);
      w->weights = g_strdup (config->weights);
      w->ratio_every = config->ratio_every;
    }
  w->break_layer = -1;
  trainer->worker = w;
  trainer->thread = g_thread_new ("cortado-trainer", ct_train_worker_main, w);
  return trainer;
}

void
ct_trainer_free (CtTrainer *trainer)
{
  if (trainer == NULL)
    return;
  push (trainer, CT_TRAIN_CMD_QUIT, NULL, 0);
  g_mutex_lock (&trainer->mailbox->lock);
  trainer->mailbox->closed = TRUE;
  g_mutex_unlock (&trainer->mailbox->lock);
  g_thread_join (trainer->thread);
  g_async_queue_unref (trainer->queue);
  ct_train_mailbox_unref (trainer->mailbox);
  g_free (trainer);
}

void ct_trainer_start (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_START, NULL, 0); }
void ct_trainer_pause (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_PAUSE, NULL, 0); }
void ct_trainer_resume (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_RESUME, NULL, 0); }
void ct_trainer_stop (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_STOP, NULL, 0); }
void ct_trainer_restart (CtTrainer *trainer) { push (trainer, CT_TRAIN_CMD_RESTART, NULL, 0); }

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
