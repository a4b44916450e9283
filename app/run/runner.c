/* runner.c: CtRunner's public side, which runs in the caller's thread: it
 * queues commands to the worker (runner-worker.c) and delivers the
 * worker's snapshots in the caller's main context through the mailbox.
 *
 * The mailbox holds at most one snapshot not yet delivered. The worker
 * posts into it under its lock and attaches one idle source per delivery;
 * an idle source (rather than g_main_context_invoke, which runs the
 * function at once in the calling thread when that thread can acquire the
 * context) guarantees that the callback always runs in the thread that
 * iterates the runner's context, never in the worker. */
#include <string.h>

#include "runner-private.h"

G_DEFINE_QUARK (ct-run-error-quark, ct_run_error)

struct _CtRunner {
  CtRunMailbox *mailbox;
  GAsyncQueue *queue;
  GThread *thread;
  int epoch;   /* bumped to drop queued steps and interrupt a pass */
};

/* Mailbox */

static CtRunMailbox *
mailbox_new (void)
{
  CtRunMailbox *mailbox = g_atomic_rc_box_new0 (CtRunMailbox);

  g_mutex_init (&mailbox->lock);
  mailbox->context = g_main_context_ref_thread_default ();
  return mailbox;
}

static void
mailbox_clear (gpointer data)
{
  CtRunMailbox *mailbox = data;

  ct_run_snapshot_unref (mailbox->pending);
  g_main_context_unref (mailbox->context);
  g_mutex_clear (&mailbox->lock);
}

CtRunMailbox *
ct_run_mailbox_ref (CtRunMailbox *mailbox)
{
  return g_atomic_rc_box_acquire (mailbox);
}

void
ct_run_mailbox_unref (CtRunMailbox *mailbox)
{
  g_atomic_rc_box_release_full (mailbox, mailbox_clear);
}

static gboolean
mailbox_deliver (gpointer data)
{
  CtRunMailbox *mailbox = data;
  g_autoptr (CtRunSnapshot) snapshot = NULL;
  gboolean closed;

  g_mutex_lock (&mailbox->lock);
  snapshot = g_steal_pointer (&mailbox->pending);
  mailbox->scheduled = FALSE;
  closed = mailbox->closed;
  g_mutex_unlock (&mailbox->lock);
  /* CLOSED is only set by ct_runner_free, in this same context's thread,
   * so the runner cannot go away while the callback runs. */
  if (!closed && snapshot != NULL && mailbox->func != NULL)
    mailbox->func (mailbox->runner, snapshot, mailbox->user_data);
  return G_SOURCE_REMOVE;
}

void
ct_run_mailbox_post (CtRunMailbox *mailbox, CtRunSnapshot *snapshot)
{
  CtRunSnapshot *replaced = NULL;
  gboolean schedule;

  g_mutex_lock (&mailbox->lock);
  if (mailbox->closed)
    {
      g_mutex_unlock (&mailbox->lock);
      ct_run_snapshot_unref (snapshot);
      return;
    }
  replaced = mailbox->pending;
  /* The window must see every error: a snapshot that replaces one with an
   * error not yet shown carries that error on (it is not shared yet). */
  if (replaced != NULL && replaced->error != NULL && snapshot->error == NULL)
    snapshot->error = g_steal_pointer (&replaced->error);
  /* Likewise the layers run: all since the window last took a snapshot. */
  if (replaced != NULL)
    g_array_prepend_vals (snapshot->stepped, replaced->stepped->data, replaced->stepped->len);
  mailbox->pending = snapshot;
  schedule = !mailbox->scheduled;
  mailbox->scheduled = TRUE;
  g_mutex_unlock (&mailbox->lock);
  ct_run_snapshot_unref (replaced);

  if (schedule)
    {
      g_autoptr (GSource) source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, mailbox_deliver, ct_run_mailbox_ref (mailbox),
                             (GDestroyNotify) ct_run_mailbox_unref);
      g_source_set_static_name (source, "[cortado] run snapshot");
      g_source_attach (source, mailbox->context);
    }
}

/* Commands */

void
ct_run_input_free (CtRunInput *input)
{
  g_free (input->dims);
  g_free (input->values);
  g_free (input);
}

void
ct_run_command_free (CtRunCommand *command)
{
  g_clear_pointer (&command->param, g_bytes_unref);
  g_free (command->weights_copy);
  g_strfreev (command->names);
  g_free (command->name);
  g_clear_pointer (&command->input, ct_run_input_free);
  g_free (command);
}

/* The runner's own copy of the net: packed, so that it is immutable and
 * the worker unpacks a fresh message for every build. */
static GBytes *
pack_param (const Caffe__NetParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  guint8 *bytes = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (&param->base, bytes);
  return g_bytes_new_take (bytes, size);
}

static CtRunCommand *
command_new (CtRunner *runner, CtRunCommandKind kind)
{
  CtRunCommand *command = g_new0 (CtRunCommand, 1);

  command->kind = kind;
  command->epoch = g_atomic_int_get (&runner->epoch);
  return command;
}

static void
queue (CtRunner *runner, CtRunCommand *command)
{
  g_async_queue_push (runner->queue, command);
}

static void
set_config (CtRunCommand *command, const CtRunConfig *config)
{
  command->config = *config;
  command->weights_copy = g_strdup (config->weights);
  command->config.weights = command->weights_copy;
}

/* The runner */

CtRunner *
ct_runner_new (const Caffe__NetParameter *param, const CtRunConfig *config,
               CtRunSnapshotFunc func, gpointer user_data)
{
  CtRunner *runner = g_new0 (CtRunner, 1);
  CtRunWorker *worker = g_new0 (CtRunWorker, 1);
  CtRunCommand *command;

  g_return_val_if_fail (param != NULL && config != NULL, NULL);

  runner->mailbox = mailbox_new ();
  runner->mailbox->runner = runner;
  runner->mailbox->func = func;
  runner->mailbox->user_data = user_data;
  runner->queue = g_async_queue_new_full ((GDestroyNotify) ct_run_command_free);

  worker->mailbox = ct_run_mailbox_ref (runner->mailbox);
  worker->queue = g_async_queue_ref (runner->queue);
  worker->epoch = &runner->epoch;
  worker->budget = CT_RUN_HISTORY_BUDGET;

  /* The first command gives the worker its net and configuration, so that
   * everything it holds comes through the queue. */
  command = command_new (runner, CT_RUN_CMD_CONFIG);
  command->param = pack_param (param);
  set_config (command, config);
  queue (runner, command);

  runner->thread = g_thread_new ("cortado-run", ct_run_worker_main, worker);
  return runner;
}

void
ct_runner_free (CtRunner *runner)
{
  CtRunCommand *quit;

  if (runner == NULL)
    return;
  g_mutex_lock (&runner->mailbox->lock);
  runner->mailbox->closed = TRUE;
  g_mutex_unlock (&runner->mailbox->lock);
  g_atomic_int_inc (&runner->epoch);
  quit = command_new (runner, CT_RUN_CMD_QUIT);
  g_async_queue_push_front (runner->queue, quit);
  /* The worker frees its own state before it returns. */
  g_thread_join (runner->thread);
  g_async_queue_unref (runner->queue);
  ct_run_mailbox_unref (runner->mailbox);
  g_free (runner);
}

void
ct_runner_step_forward (CtRunner *runner)
{
  queue (runner, command_new (runner, CT_RUN_CMD_FORWARD));
}

void
ct_runner_step_backward (CtRunner *runner)
{
  queue (runner, command_new (runner, CT_RUN_CMD_BACKWARD));
}

void
ct_runner_run_pass (CtRunner *runner)
{
  queue (runner, command_new (runner, CT_RUN_CMD_RUN_PASS));
}

void
ct_runner_reset (CtRunner *runner)
{
  queue (runner, command_new (runner, CT_RUN_CMD_RESET));
}

void
ct_runner_stop (CtRunner *runner)
{
  g_atomic_int_inc (&runner->epoch);
  queue (runner, command_new (runner, CT_RUN_CMD_STOP));
}

void
ct_runner_watch (CtRunner *runner, const char *const *names)
{
  CtRunCommand *command = command_new (runner, CT_RUN_CMD_WATCH);

  command->names = g_strdupv ((char **) names);
  queue (runner, command);
}

void
ct_runner_watch_params (CtRunner *runner, const char *const *layer_names)
{
  CtRunCommand *command = command_new (runner, CT_RUN_CMD_WATCH_PARAMS);

  command->names = g_strdupv ((char **) layer_names);
  queue (runner, command);
}

void
ct_runner_set_input (CtRunner *runner, const char *name, const gint64 *dims, guint n_axes,
                     const float *values)
{
  CtRunCommand *command;
  CtRunInput *input;
  gint64 count = 1;

  g_return_if_fail (name != NULL && (n_axes == 0 || dims != NULL));
  for (guint i = 0; i < n_axes; i++)
    {
      g_return_if_fail (dims[i] >= 0 &&
                        (dims[i] == 0 || count <= (gint64) (G_MAXSIZE / sizeof (float)) / dims[i]));
      count *= dims[i];
    }
  g_return_if_fail (count == 0 || values != NULL);

  input = g_new0 (CtRunInput, 1);
  input->n_axes = n_axes;
  input->dims = g_memdup2 (dims, n_axes * sizeof (gint64));
  input->count = count;
  input->values = g_memdup2 (values, (gsize) count * sizeof (float));
  command = command_new (runner, CT_RUN_CMD_INPUT);
  command->name = g_strdup (name);
  command->input = input;
  queue (runner, command);
}

void
ct_runner_set_history_budget (CtRunner *runner, gsize bytes)
{
  CtRunCommand *command = command_new (runner, CT_RUN_CMD_BUDGET);

  command->budget = bytes;
  queue (runner, command);
}

void
ct_runner_rebuild (CtRunner *runner, const Caffe__NetParameter *param)
{
  CtRunCommand *command;

  g_return_if_fail (param != NULL);
  g_atomic_int_inc (&runner->epoch);
  command = command_new (runner, CT_RUN_CMD_REBUILD);
  command->param = pack_param (param);
  queue (runner, command);
}

void
ct_runner_set_config (CtRunner *runner, const CtRunConfig *config)
{
  CtRunCommand *command;

  g_return_if_fail (config != NULL);
  g_atomic_int_inc (&runner->epoch);
  command = command_new (runner, CT_RUN_CMD_CONFIG);
  set_config (command, config);
  queue (runner, command);
}
