/* runner.c: CtRunner's public side, which runs in the caller's thread: it
 * queues commands to the worker (runner-worker.c) and delivers the
 * worker's snapshots in the caller's main context through a mailbox
 * (mailbox.h), which holds at most one snapshot not yet delivered. */
#include <string.h>

#include "runner-private.h"

G_DEFINE_QUARK (ct-run-error-quark, ct_run_error)

struct _CtRunner {
  CtMailbox *mailbox;
  CtRunSnapshotFunc func;
  gpointer user_data;
  GAsyncQueue *queue;
  GThread *thread;
  int epoch;   /* bumped to drop queued steps and interrupt a pass */
  int pace_ms; /* see ct_runner_set_pace; read by the worker */
  /* Step commands queued, and those the snapshots delivered say are
   * finished or dropped (both counted in the caller's thread). */
  guint64 steps_queued, steps_answered;
  gboolean watch_quiet;  /* see ct_runner_set_watch_quiet */
};

/* Delivery */

/* A snapshot that replaces one not yet delivered carries on its error
 * (the window must see every error) and the layers it ran. */
static void
merge_snapshots (gpointer next_data, gpointer old_data)
{
  CtRunSnapshot *next = next_data, *old = old_data;

  if (old->error != NULL && next->error == NULL)
    next->error = g_steal_pointer (&old->error);
  /* layers of a net rebuilt since are not this run's */
  if (!next->invalidated)
    g_array_prepend_vals (next->stepped, old->stepped->data, old->stepped->len);
}

static void
deliver_snapshot (gpointer item, gpointer user_data)
{
  CtRunner *runner = user_data;
  CtRunSnapshot *snapshot = item;

  runner->steps_answered = MAX (runner->steps_answered, snapshot->steps_done);
  if (runner->func != NULL)
    runner->func (runner, item, runner->user_data);
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
queue_step (CtRunner *runner, CtRunCommandKind kind)
{
  runner->steps_queued++;
  queue (runner, command_new (runner, kind));
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

  runner->func = func;
  runner->user_data = user_data;
  runner->mailbox = ct_mailbox_new ("[cortado] run snapshot", merge_snapshots,
                                    (GDestroyNotify) ct_run_snapshot_unref,
                                    deliver_snapshot, runner);
  runner->queue = g_async_queue_new_full ((GDestroyNotify) ct_run_command_free);

  worker->mailbox = ct_mailbox_ref (runner->mailbox);
  worker->queue = g_async_queue_ref (runner->queue);
  worker->epoch = &runner->epoch;
  worker->pace_ms = &runner->pace_ms;
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
  ct_mailbox_close (runner->mailbox);
  g_atomic_int_inc (&runner->epoch);
  quit = command_new (runner, CT_RUN_CMD_QUIT);
  g_async_queue_push_front (runner->queue, quit);
  /* The worker frees its own state before it returns. */
  g_thread_join (runner->thread);
  g_async_queue_unref (runner->queue);
  ct_mailbox_unref (runner->mailbox);
  g_free (runner);
}

void
ct_runner_step_forward (CtRunner *runner)
{
  queue_step (runner, CT_RUN_CMD_FORWARD);
}

void
ct_runner_step_backward (CtRunner *runner)
{
  queue_step (runner, CT_RUN_CMD_BACKWARD);
}

void
ct_runner_run_pass (CtRunner *runner)
{
  queue_step (runner, CT_RUN_CMD_RUN_PASS);
}

void
ct_runner_set_pace (CtRunner *runner, guint ms_per_layer)
{
  g_atomic_int_set (&runner->pace_ms, (int) MIN (ms_per_layer, (guint) G_MAXINT));
}

void
ct_runner_reset (CtRunner *runner)
{
  queue_step (runner, CT_RUN_CMD_RESET);
}

int
ct_runner_get_epoch (CtRunner *runner)
{
  return g_atomic_int_get (&runner->epoch);
}

gboolean
ct_runner_is_busy (CtRunner *runner)
{
  return runner->steps_queued > runner->steps_answered;
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

  command->quiet = runner->watch_quiet;
  command->names = g_strdupv ((char **) names);
  queue (runner, command);
}

void
ct_runner_watch_params (CtRunner *runner, const char *const *layer_names)
{
  CtRunCommand *command = command_new (runner, CT_RUN_CMD_WATCH_PARAMS);

  command->quiet = runner->watch_quiet;
  command->names = g_strdupv ((char **) layer_names);
  queue (runner, command);
}

void
ct_runner_set_watch_quiet (CtRunner *runner, gboolean quiet)
{
  runner->watch_quiet = quiet;
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
ct_runner_set_items (CtRunner *runner, const char *name, guint n_items, gint64 item_count,
                     const float *values)
{
  CtRunCommand *command;
  CtRunInput *input;

  g_return_if_fail (name != NULL && n_items > 0 && item_count > 0 && values != NULL);
  g_return_if_fail (item_count <= (gint64) (G_MAXSIZE / sizeof (float)) / n_items);

  input = g_new0 (CtRunInput, 1);
  input->items = TRUE;
  input->n_axes = 2;
  input->dims = g_new (gint64, 2);
  input->dims[0] = n_items;
  input->dims[1] = item_count;
  input->count = (gint64) n_items * item_count;
  input->values = g_memdup2 (values, (gsize) input->count * sizeof (float));
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
