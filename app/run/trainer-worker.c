/* trainer-worker.c: the trainer's worker thread. It owns the solver,
 * runs one iteration at a time, takes commands between iterations (and
 * inside a pass when paused at a breakpoint, from the train net's
 * observer), and posts progress to the main context. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "lr-policy.h"
#include "devices.h"
#include "run-device.h"
#include "trainer-private.h"

/* Posting */

static void
post (CtTrainWorker *w, CtRunSnapshot *snapshot, GError *error)
{
  CtTrainProgress *p = ct_train_progress_new ();
  const Caffe__SolverParameter *param = w->param;

  p->state = w->state;
  p->iter = w->solver != NULL ? ct_solver_get_iter (w->solver) : 0;
  p->max_iter = param->max_iter;
  p->iters_per_s = w->iters_per_s;
  p->elapsed_s = w->elapsed_s;
  if (w->run_mark_us != 0)
    p->elapsed_s += (double) (g_get_monotonic_time () - w->run_mark_us) / 1e6;
  if (w->iters_per_s > 0 && param->max_iter > p->iter)
    p->eta_s = (param->max_iter - p->iter) / w->iters_per_s;
  else if (param->max_iter <= p->iter)
    p->eta_s = 0;
  p->loss = w->loss;
  p->smoothed_loss = w->smoothed_loss;
  p->learning_rate = w->learning_rate;
  g_array_append_vals (p->points, w->points->data, w->points->len);
  g_array_set_size (w->points, 0);
  g_array_append_vals (p->tests, w->tests->data, w->tests->len);
  g_array_set_size (w->tests, 0);
  g_array_append_vals (p->ratios, w->ratios->data, w->ratios->len);
  g_array_set_size (w->ratios, 0);
  g_ptr_array_add (w->test_names, NULL);
  p->test_names = g_strdupv ((char **) w->test_names->pdata);
  g_ptr_array_remove_index (w->test_names, w->test_names->len - 1);
  if (w->ratio_layers != NULL)
    {
      g_ptr_array_add (w->ratio_layers, NULL);
      p->ratio_layers = g_strdupv ((char **) w->ratio_layers->pdata);
      g_ptr_array_remove_index (w->ratio_layers, w->ratio_layers->len - 1);
    }
  if (w->files->len > 0)
    {
      g_ptr_array_add (w->files, NULL);
      p->files = (char **) g_ptr_array_free (g_steal_pointer (&w->files), FALSE);
      w->files = g_ptr_array_new_with_free_func (g_free);
    }
  if (w->watch != NULL)
    {
      CtTrainProgress *c = w->watch;

      p->watch_name = g_steal_pointer (&c->watch_name);
      p->watch_iter = c->watch_iter;
      p->watch_n_axes = c->watch_n_axes;
      p->watch_dims = g_steal_pointer (&c->watch_dims);
      p->watch_data = g_steal_pointer (&c->watch_data);
      p->watch_stats = g_steal_pointer (&c->watch_stats);
      g_clear_pointer (&w->watch, ct_train_progress_unref);
    }
  p->snapshot = snapshot;
  p->error = error;
  ct_mailbox_post (w->mailbox, p);
  w->posted_us = g_get_monotonic_time ();
}

static void
set_state (CtTrainWorker *w, CtTrainState state)
{
  gboolean was_running = w->state == CT_TRAIN_STATE_RUNNING;

  if (was_running && state != CT_TRAIN_STATE_RUNNING && w->run_mark_us != 0)
    {
      w->elapsed_s += (double) (g_get_monotonic_time () - w->run_mark_us) / 1e6;
      w->run_mark_us = 0;
    }
  if (!was_running && state == CT_TRAIN_STATE_RUNNING)
    w->run_mark_us = g_get_monotonic_time ();
  w->state = state;
}

/* Solver observers */

static guint
test_name_index (CtTrainWorker *w, const char *name)
{
  for (guint i = 0; i < w->test_names->len; i++)
    if (g_strcmp0 (w->test_names->pdata[i], name) == 0)
      return i;
  g_ptr_array_add (w->test_names, g_strdup (name));
  return w->test_names->len - 1;
}

static void
on_iteration (CtSolver *solver, const CtSolverIteration *info, gpointer user_data)
{
  CtTrainWorker *w = user_data;
  CtTrainPoint point = { info->iter, info->loss, info->smoothed_loss, info->learning_rate };

  (void) solver;
  g_array_append_val (w->points, point);
  w->loss = info->loss;
  w->smoothed_loss = info->smoothed_loss;
  w->learning_rate = info->learning_rate;
  w->iters_per_s = info->iters_per_s;
}

static void
on_test_done (CtSolver *solver, const CtSolverTestResult *result, gpointer user_data)
{
  CtTrainWorker *w = user_data;

  (void) solver;
  for (guint i = 0; i < result->n_scores; i++)
    {
      CtTrainTestPoint point = { result->iter, result->test_net_id,
                                 test_name_index (w, result->scores[i].name),
                                 result->scores[i].value };

      g_array_append_val (w->tests, point);
    }
}

static void
on_snapshot (CtSolver *solver, int iter, const char *model_path, const char *state_path,
             gpointer user_data)
{
  CtTrainWorker *w = user_data;

  (void) solver;
  (void) iter;
  g_ptr_array_add (w->files, g_strdup (model_path));
  g_ptr_array_add (w->files, g_strdup (state_path));
}

/* Building */

static void handle_in_pass (CtTrainWorker *w, CtNet *net, CtRunPass pass, int layer);

static void
on_net_event (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  CtTrainWorker *w = user_data;

  if (!w->in_iteration || w->stop_after || w->quit)
    return;
  if (event == CT_NET_EVENT_BEFORE_FORWARD)
    {
      if (w->stepping == CT_TRAIN_STEP_FORWARD ||
          (w->stepping == CT_TRAIN_STEP_NONE && (int) layer_index == w->break_layer))
        handle_in_pass (w, net, CT_RUN_PASS_FORWARD, (int) layer_index);
    }
  else if (event == CT_NET_EVENT_BEFORE_BACKWARD)
    {
      if (w->stepping != CT_TRAIN_STEP_NONE && ct_net_layer_need_backward (net, layer_index))
        handle_in_pass (w, net, CT_RUN_PASS_BACKWARD, (int) layer_index);
    }
}

static gboolean
resolve_breakpoint (CtTrainWorker *w, GError **error)
{
  w->break_layer = -1;
  if (w->breakpoint == NULL || w->solver == NULL)
    return TRUE;
  w->break_layer = ct_net_layer_index (ct_solver_get_net (w->solver), w->breakpoint);
  if (w->break_layer < 0)
    {
      g_set_error (error, CT_TRAIN_ERROR, CT_TRAIN_ERROR_NO_LAYER,
                   _("the train net has no layer '%s' to pause at"), w->breakpoint);
      g_clear_pointer (&w->breakpoint, g_free);
      return FALSE;
    }
  return TRUE;
}

static void
list_ratio_layers (CtTrainWorker *w)
{
  CtNet *net = ct_solver_get_net (w->solver);

  g_clear_pointer (&w->ratio_layers, g_ptr_array_unref);
  g_clear_pointer (&w->ratio_layer_index, g_array_unref);
  w->ratio_layers = g_ptr_array_new_with_free_func (g_free);
  w->ratio_layer_index = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < ct_net_n_params (net); i++)
    {
      guint layer, index;

      if (ct_net_get_param_owner (net, i) >= 0)
        continue;
      ct_net_get_param_location (net, i, &layer, &index);
      if (w->ratio_layer_index->len > 0 &&
          g_array_index (w->ratio_layer_index, guint, w->ratio_layer_index->len - 1) == layer)
        continue;
      g_array_append_val (w->ratio_layer_index, layer);
      g_ptr_array_add (w->ratio_layers,
                       g_strdup (ct_layer_get_name (ct_net_get_layer (net, layer))));
    }
}

static gboolean
build (CtTrainWorker *w, GError **error)
{
  static const CtSolverObserverFuncs funcs = {
    .iteration = on_iteration,
    .test_done = on_test_done,
    .snapshot = on_snapshot,
  };
  g_autoptr (CtSolver) solver = ct_solver_new (w->param, w->source_path, error);
  GError *local = NULL;

  if (solver == NULL)
    return FALSE;
  w->current_step = 0;
  if (w->resume != NULL)
    {
      g_autoptr (CtSolverState) state = ct_solver_state_read (w->resume, error);

      if (state == NULL || !ct_solver_restore (solver, w->resume, error))
        return FALSE;
      w->current_step = state->current_step;
    }
  else if (w->weights != NULL && !ct_solver_load_weights (solver, w->weights, error))
    return FALSE;
  if (w->use_gpu && (!ct_engine_gpu_select (w->gpu_device, error)
                     || !ct_solver_set_use_gpu (solver, TRUE, error)))
    return FALSE;
  ct_solver_add_observer (solver, &funcs, w, NULL);
  ct_net_add_observer (ct_solver_get_net (solver), on_net_event, w, NULL);
  g_clear_pointer (&w->solver, ct_solver_free);
  w->solver = g_steal_pointer (&solver);
  w->elapsed_s = 0;
  w->iters_per_s = 0;
  w->watch_cost_us = w->watch_train_us = 0;
  w->watch_held = FALSE;
  w->loss = w->smoothed_loss = 0;
  w->learning_rate = ct_solver_get_learning_rate (w->solver);
  list_ratio_layers (w);
  /* A breakpoint on a layer this net lacks is dropped, not fatal. */
  if (!resolve_breakpoint (w, &local))
    post (w, NULL, g_steal_pointer (&local));
  return TRUE;
}

/* When training stops running, a copy held back (see watch_due) comes
 * now, of the last iteration: a paused or finished view shows the
 * followed blob as it is. */
static void
watch_catch_up (CtTrainWorker *w)
{
  if (w->watch_held && w->watch_name != NULL && w->solver != NULL &&
      ct_solver_get_iter (w->solver) > 0)
    ct_train_inspect_watch (w, ct_solver_get_net (w->solver), ct_solver_get_iter (w->solver) - 1);
}

/* Commands between iterations */

static void
fail (CtTrainWorker *w, GError *error)
{
  set_state (w, CT_TRAIN_STATE_STOPPED);
  post (w, NULL, error);
}

static gboolean
at_end (CtTrainWorker *w)
{
  return ct_solver_get_iter (w->solver) >= w->param->max_iter;
}

static void
run_from_here (CtTrainWorker *w)
{
  set_state (w, at_end (w) ? CT_TRAIN_STATE_FINISHED : CT_TRAIN_STATE_RUNNING);
  post (w, NULL, NULL);
}

static void
handle (CtTrainWorker *w, CtTrainCommand *cmd)
{
  GError *error = NULL;

  switch (cmd->kind)
    {
    case CT_TRAIN_CMD_START:
      if (w->solver == NULL && !build (w, &error))
        {
          fail (w, error);
          break;
        }
      if (w->state != CT_TRAIN_STATE_RUNNING)
        run_from_here (w);
      break;
    case CT_TRAIN_CMD_RESTART:
      if (cmd->param != NULL)
        {
          /* the settings shown now, from the same start: the seed stays
           * unless the new settings name one */
          if (cmd->param->random_seed < 0)
            cmd->param->random_seed = w->param->random_seed;
          caffe__solver_parameter__free_unpacked (w->param, NULL);
          w->param = g_steal_pointer (&cmd->param);
        }
      if (!build (w, &error))
        fail (w, error);
      else
        run_from_here (w);
      break;
    case CT_TRAIN_CMD_PAUSE:
      if (w->state == CT_TRAIN_STATE_RUNNING)
        {
          set_state (w, CT_TRAIN_STATE_PAUSED);
          watch_catch_up (w);
          post (w, NULL, NULL);
        }
      break;
    case CT_TRAIN_CMD_RESUME:
      if (w->state == CT_TRAIN_STATE_PAUSED)
        run_from_here (w);
      break;
    case CT_TRAIN_CMD_STOP:
      if (w->state == CT_TRAIN_STATE_RUNNING || w->state == CT_TRAIN_STATE_PAUSED)
        {
          set_state (w, CT_TRAIN_STATE_STOPPED);
          watch_catch_up (w);
          post (w, NULL, NULL);
        }
      break;
    case CT_TRAIN_CMD_SNAPSHOT:
      if (w->solver != NULL)
        {
          ct_solver_snapshot (w->solver, &error);
          post (w, NULL, error);
        }
      break;
    case CT_TRAIN_CMD_EXPORT:
      if (w->solver != NULL)
        {
          ct_train_export (w, cmd->text, &error);
          post (w, NULL, error);
        }
      break;
    case CT_TRAIN_CMD_BREAKPOINT:
      g_free (w->breakpoint);
      w->breakpoint = g_strdup (cmd->text);
      if (!resolve_breakpoint (w, &error))
        post (w, NULL, error);
      break;
    case CT_TRAIN_CMD_STEP_FORWARD:
    case CT_TRAIN_CMD_STEP_BACKWARD:
      break; /* only inside a pass */
    case CT_TRAIN_CMD_WATCH:
      g_free (w->watch_name);
      w->watch_name = g_strdup (cmd->text);
      w->watch_every = MAX (cmd->every, 1);
      /* A new blob's first copy comes at once. */
      w->watch_cost_us = 0;
      w->watch_train_us = 0;
      w->watch_held = FALSE;
      break;
    case CT_TRAIN_CMD_RATIO_EVERY:
      w->ratio_every = cmd->every;
      break;
    case CT_TRAIN_CMD_QUIT:
      w->quit = TRUE;
      break;
    }
}

/* Commands inside a pass: the worker waits here, inside the train net's
 * observer, until told to step or go on. Commands that need an iteration
 * boundary wait for the end of the iteration. */
static void
handle_in_pass (CtTrainWorker *w, CtNet *net, CtRunPass pass, int layer)
{
  set_state (w, CT_TRAIN_STATE_BREAK);
  post (w, ct_train_inspect_snapshot (w, net, pass, layer), NULL);
  for (;;)
    {
      CtTrainCommand *cmd = g_async_queue_pop (w->queue);
      GError *error = NULL;

      switch (cmd->kind)
        {
        case CT_TRAIN_CMD_STEP_FORWARD:
          w->stepping = pass == CT_RUN_PASS_FORWARD ? CT_TRAIN_STEP_FORWARD
                                                    : CT_TRAIN_STEP_BACKWARD;
          ct_train_command_free (cmd);
          return;
        case CT_TRAIN_CMD_STEP_BACKWARD:
          w->stepping = CT_TRAIN_STEP_BACKWARD;
          ct_train_command_free (cmd);
          return;
        case CT_TRAIN_CMD_RESUME:
          w->stepping = CT_TRAIN_STEP_NONE;
          set_state (w, CT_TRAIN_STATE_RUNNING);
          ct_train_command_free (cmd);
          return;
        case CT_TRAIN_CMD_STOP:
        case CT_TRAIN_CMD_QUIT:
          w->stepping = CT_TRAIN_STEP_NONE;
          w->stop_after = TRUE;
          w->quit = w->quit || cmd->kind == CT_TRAIN_CMD_QUIT;
          ct_train_command_free (cmd);
          return;
        case CT_TRAIN_CMD_SNAPSHOT:
          /* The weights and the history change only at the update, after
           * the pass: they are the last iteration's. */
          ct_solver_snapshot (w->solver, &error);
          post (w, NULL, error);
          ct_train_command_free (cmd);
          break;
        case CT_TRAIN_CMD_EXPORT:
          ct_train_export (w, cmd->text, &error);
          post (w, NULL, error);
          ct_train_command_free (cmd);
          break;
        case CT_TRAIN_CMD_PAUSE:
          ct_train_command_free (cmd);
          break;
        default:
          g_queue_push_tail (&w->deferred, cmd);
          break;
        }
    }
}

/* Iterations */

/* A hand-over costs the worker about 5 µs (the progress built, the main
 * context woken), but the window a frame: the plot, the figures and the
 * status redrawn, about 10 ms of a core with GTK drawing in software.
 * At 100 a second the main thread took half a core from training on a
 * 2-core machine; ten a second still moves the plot smoothly. A plain
 * iteration is handed over only when the last hand-over is this old; its
 * points wait in W, none lost, and anything else (a state change, a blob
 * copy, files, an error) goes at once. */
#define POST_EVERY_US 100000

/* Following a blob costs its copy and statistics, a few nanoseconds per
 * value on the worker: for LeNet's conv1 (737,280 values) 2.5 ms against
 * an iteration of 9 ms. A copy that would cost more than this share of
 * the training time since the last one waits for a later multiple of
 * watch_every, so that following costs training about that much at most
 * (8 refreshes a second for conv1, as many as a person reads). Its cost
 * is the worker's CPU time, which a busy machine does not inflate, the
 * training's is wall time; on a loaded machine (bench-trainer), following
 * conv1 at every iteration cost 1.4% more CPU time than the solver alone
 * (3-4% with a 3% share).
 * Copies under WATCH_FREE_US are never held back: a small blob stays on
 * its exact cadence. */
#define WATCH_SHARE 0.02
#define WATCH_FREE_US 50

static gboolean
watch_due (CtTrainWorker *w, int iter)
{
  if (w->watch_name == NULL || iter % (int) w->watch_every != 0)
    return FALSE;
  if (w->watch_cost_us < WATCH_FREE_US ||
      w->watch_cost_us <= WATCH_SHARE * (double) w->watch_train_us)
    return TRUE;
  w->watch_held = TRUE;
  return FALSE;
}

static void
iterate (CtTrainWorker *w)
{
  GError *error = NULL;
  int iter = ct_solver_get_iter (w->solver);
  gint64 start = g_get_monotonic_time ();
  gboolean finite;

  w->in_iteration = TRUE;
  finite = ct_solver_step (w->solver, 1, &error);
  w->in_iteration = FALSE;
  w->watch_train_us += g_get_monotonic_time () - start;
  if (!finite)
    {
      fail (w, error);
      return;
    }
  /* The lr policy's step, as the solver advanced it (for export). */
  ct_lr_policy_rate (ct_solver_get_param (w->solver), iter, &w->current_step,
                     &(gboolean) { FALSE });
  finite = isfinite (w->loss);
  if (w->ratio_every > 0 && iter % (int) w->ratio_every == 0)
    finite = ct_train_inspect_ratios (w, iter) && finite;
  if (!finite)
    {
      /* A ratio of huge but finite weights can overflow its float sums:
       * only values that are themselves NaN or infinite stop training. */
      error = ct_train_inspect_not_finite (ct_solver_get_net (w->solver));
      if (error == NULL && !isfinite (w->loss))
        error = g_error_new (CT_TRAIN_ERROR, CT_TRAIN_ERROR_NOT_FINITE,
                             _("training stopped: the loss is NaN or infinite"));
      if (error != NULL)
        {
          fail (w, error);
          return;
        }
    }
  if (watch_due (w, iter))
    ct_train_inspect_watch (w, ct_solver_get_net (w->solver), iter);
  if (w->stop_after)
    {
      w->stop_after = FALSE;
      set_state (w, CT_TRAIN_STATE_STOPPED);
    }
  else if (w->stepping != CT_TRAIN_STEP_NONE)
    {
      /* Stepped past the end of the pass: pause at the boundary. */
      w->stepping = CT_TRAIN_STEP_NONE;
      set_state (w, CT_TRAIN_STATE_PAUSED);
    }
  else if (w->state == CT_TRAIN_STATE_BREAK)
    set_state (w, CT_TRAIN_STATE_RUNNING);
  if (at_end (w) && w->state == CT_TRAIN_STATE_RUNNING)
    {
      const Caffe__SolverParameter *p = ct_solver_get_param (w->solver);

      /* As Caffe's Solve ends: a test at a test iteration, a snapshot. */
      if (p->test_interval > 0 && ct_solver_get_iter (w->solver) % p->test_interval == 0 &&
          ct_solver_n_test_nets (w->solver) > 0 && !ct_solver_test_all (w->solver, &error))
        {
          fail (w, error);
          return;
        }
      if (p->snapshot_after_train &&
          (p->snapshot <= 0 || ct_solver_get_iter (w->solver) % p->snapshot != 0) &&
          !ct_solver_snapshot (w->solver, &error))
        {
          fail (w, error);
          return;
        }
      set_state (w, CT_TRAIN_STATE_FINISHED);
    }
  if (w->state != CT_TRAIN_STATE_RUNNING)
    watch_catch_up (w);
  if (w->state != CT_TRAIN_STATE_RUNNING || w->watch != NULL || w->files->len > 0 ||
      g_get_monotonic_time () - w->posted_us >= POST_EVERY_US)
    post (w, NULL, NULL);
}

gpointer
ct_train_worker_main (gpointer data)
{
  CtTrainWorker *w = data;

  w->points = g_array_new (FALSE, FALSE, sizeof (CtTrainPoint));
  w->tests = g_array_new (FALSE, FALSE, sizeof (CtTrainTestPoint));
  w->ratios = g_array_new (FALSE, FALSE, sizeof (CtTrainRatio));
  w->test_names = g_ptr_array_new_with_free_func (g_free);
  w->files = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&w->deferred);
  while (!w->quit)
    {
      CtTrainCommand *cmd = g_queue_pop_head (&w->deferred);

      if (cmd == NULL)
        cmd = w->state == CT_TRAIN_STATE_RUNNING ? g_async_queue_try_pop (w->queue)
                                                  : g_async_queue_pop (w->queue);
      if (cmd != NULL)
        {
          handle (w, cmd);
          ct_train_command_free (cmd);
          continue;
        }
      iterate (w);
    }

  g_queue_clear_full (&w->deferred, (GDestroyNotify) ct_train_command_free);
  g_clear_pointer (&w->solver, ct_solver_free);
  ct_mailbox_unref (w->mailbox);
  g_async_queue_unref (w->queue);
  caffe__solver_parameter__free_unpacked (w->param, NULL);
  g_free (w->source_path);
  g_free (w->resume);
  g_free (w->weights);
  g_free (w->breakpoint);
  g_free (w->watch_name);
  g_clear_pointer (&w->ratio_layers, g_ptr_array_unref);
  g_clear_pointer (&w->ratio_layer_index, g_array_unref);
  g_array_unref (w->points);
  g_array_unref (w->tests);
  g_array_unref (w->ratios);
  g_ptr_array_unref (w->test_names);
  g_ptr_array_unref (w->files);
  g_clear_pointer (&w->watch, ct_train_progress_unref);
  g_free (w);
  return NULL;
}
