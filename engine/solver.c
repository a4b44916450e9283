/* solver.c: CtSolver's life and its training loop (Caffe's Solver::Step
 * and Solve), with the observers that watch it and the requests that stop
 * or snapshot it. The update rules, nets, tests and snapshots live in
 * engine/solvers/. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "lr-policy.h"
#include "solvers/solver-private.h"
#include "upgrade.h"

/* A deep copy, through the wire format. */
static Caffe__SolverParameter *
copy_param (const Caffe__SolverParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (&param->base, bytes);
  return caffe__solver_parameter__unpack (NULL, size, bytes);
}

static void
log_line_free (CtSolverLogLine *line)
{
  g_free (line->file);
  g_free (line->message);
  g_free (line);
}

static void
observer_clear (gpointer data)
{
  CtSolverObserver *o = data;

  if (o->destroy != NULL)
    o->destroy (o->user_data);
}

static CtSolver *
solver_alloc (const Caffe__SolverParameter *param, const char *source_path)
{
  CtSolver *solver = g_new0 (CtSolver, 1);

  solver->param = copy_param (param);
  solver->source_path = g_strdup (source_path);
  solver->test_nets = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_net_free);
  solver->history = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  solver->losses = g_array_new (FALSE, FALSE, sizeof (float));
  solver->display_timer = g_timer_new ();
  solver->observers = g_array_new (FALSE, TRUE, sizeof (CtSolverObserver));
  g_array_set_clear_func (solver->observers, observer_clear);
  solver->next_observer_id = 1;
  solver->build_log = g_ptr_array_new_with_free_func ((GDestroyNotify) log_line_free);
  return solver;
}

CtSolver *
ct_solver_new (const Caffe__SolverParameter *param, const char *source_path, GError **error)
{
  return ct_solver_new_with_memory_plan (param, source_path, FALSE, error);
}

CtSolver *
ct_solver_new_with_memory_plan (const Caffe__SolverParameter *param, const char *source_path,
                                gboolean plan_memory, GError **error)
{
  g_autoptr (CtSolver) solver = NULL;

  g_return_val_if_fail (param != NULL, NULL);

  solver = solver_alloc (param, source_path);
  solver->plan_memory = plan_memory;
  if (solver->param == NULL)
    {
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                   _("the solver parameters could not be copied"));
      return NULL;
    }
  if (ct_solver_needs_upgrade (solver->param) &&
      !ct_upgrade_solver (solver->param, source_path != NULL ? source_path : "solver", NULL,
                          error))
    return NULL;
  if (!ct_solver_check_param (solver, error) || !ct_solver_build_nets (solver, error))
    return NULL;
  solver->built = TRUE;
  return g_steal_pointer (&solver);
}

void
ct_solver_free (CtSolver *solver)
{
  if (solver == NULL)
    return;
  g_array_unref (solver->observers);
  g_ptr_array_unref (solver->build_log);
  g_ptr_array_unref (solver->history);
  g_ptr_array_unref (solver->test_nets);
  g_clear_pointer (&solver->net, ct_net_free);
  g_array_unref (solver->losses);
  g_timer_destroy (solver->display_timer);
  if (solver->param != NULL)
    protobuf_c_message_free_unpacked (&solver->param->base, NULL);
  g_free (solver->source_path);
  g_free (solver);
}

const Caffe__SolverParameter *
ct_solver_get_param (const CtSolver *solver)
{
  return solver->param;
}

const char *
ct_solver_get_type_name (const CtSolver *solver)
{
  return solver->type->name;
}

CtNet *
ct_solver_get_net (const CtSolver *solver)
{
  return solver->net;
}

guint
ct_solver_n_test_nets (const CtSolver *solver)
{
  return solver->test_nets->len;
}

CtNet *
ct_solver_get_test_net (const CtSolver *solver, guint test_net_id)
{
  g_return_val_if_fail (test_net_id < solver->test_nets->len, NULL);
  return solver->test_nets->pdata[test_net_id];
}

int
ct_solver_get_iter (const CtSolver *solver)
{
  return solver->iter;
}

float
ct_solver_get_learning_rate (const CtSolver *solver)
{
  int step = solver->current_step;

  return ct_lr_policy_rate (solver->param, solver->iter, &step, NULL);
}

GPtrArray *
ct_solver_get_history (const CtSolver *solver)
{
  return solver->history;
}

CtBlob *
ct_solver_history_blob (CtSolver *solver, guint set, guint learnable_id)
{
  return solver->history->pdata[set * ct_net_n_learnable (solver->net) + learnable_id];
}

float *
ct_solver_history_on (CtSolver *solver, guint set, guint learnable_id, gboolean gpu,
                      GError **error)
{
  return ct_blob_mutable_data_on (ct_solver_history_blob (solver, set, learnable_id), gpu,
                                  error);
}

gboolean
ct_solver_set_use_gpu (CtSolver *solver, gboolean use_gpu, GError **error)
{
  /* test nets first: they share the train net's weights, and a failure
   * leaves every net where it was */
  for (guint i = 0; i < solver->test_nets->len; i++)
    if (!ct_net_set_use_gpu (solver->test_nets->pdata[i], use_gpu, error))
      goto fail;
  if (ct_net_set_use_gpu (solver->net, use_gpu, error))
    return TRUE;
fail:
  for (guint i = 0; i < solver->test_nets->len; i++)
    ct_net_set_use_gpu (solver->test_nets->pdata[i], FALSE, NULL);
  return FALSE;
}

gboolean
ct_solver_get_use_gpu (const CtSolver *solver)
{
  return ct_net_get_use_gpu (solver->net);
}

gboolean
ct_solver_stopped_early (const CtSolver *solver)
{
  return solver->stopped_early;
}

void
ct_solver_request (CtSolver *solver, CtSolverAction action)
{
  g_atomic_int_set (&solver->request, (gint) action);
}

CtSolverAction
ct_solver_take_request (CtSolver *solver)
{
  return (CtSolverAction) g_atomic_int_exchange (&solver->request, CT_SOLVER_ACTION_NONE);
}

/* ---- training with other solvers ---- */

void
ct_solver_set_sync (CtSolver *solver, const CtSolverSyncFuncs *funcs, gpointer user_data,
                    gboolean root)
{
  solver->sync = *funcs;
  solver->sync_data = user_data;
  solver->not_root = !root;
}

gboolean
ct_solver_is_root (const CtSolver *solver)
{
  return !solver->not_root;
}

/* The action all solvers take between iterations. */
static gboolean
agree (CtSolver *solver, CtSolverAction *action, GError **error)
{
  *action = ct_solver_take_request (solver);
  return solver->sync.agree == NULL ||
         solver->sync.agree (solver, action, solver->sync_data, error);
}

/* ---- observers and the log ---- */

guint
ct_solver_add_observer (CtSolver *solver, const CtSolverObserverFuncs *funcs,
                        gpointer user_data, GDestroyNotify destroy)
{
  CtSolverObserver o = {
    .id = solver->next_observer_id++,
    .funcs = *funcs,
    .user_data = user_data,
    .destroy = destroy,
  };

  g_array_append_val (solver->observers, o);
  /* what happened while the nets were built, which no one could watch */
  for (guint i = 0; funcs->log != NULL && i < solver->build_log->len; i++)
    {
      CtSolverLogLine *line = solver->build_log->pdata[i];

      if (solver->not_root && line->level == CT_SOLVER_LOG_INFO)
        continue;

      funcs->log (solver, line->level, line->file, line->line, line->message, user_data);
    }
  return o.id;
}

void
ct_solver_remove_observer (CtSolver *solver, guint observer_id)
{
  for (guint i = 0; i < solver->observers->len; i++)
    if (g_array_index (solver->observers, CtSolverObserver, i).id == observer_id)
      {
        g_array_remove_index (solver->observers, i);
        return;
      }
}

#define FOR_EACH_OBSERVER(solver, o) \
  for (guint _i = 0; _i < (solver)->observers->len; _i++) \
    for (CtSolverObserver *o = &g_array_index ((solver)->observers, CtSolverObserver, _i); \
         o != NULL; o = NULL)

const char *
ct_solver_format_number (char *buf, double value)
{
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%g", value);
}

void
ct_solver_log (CtSolver *solver, CtSolverLogLevel level, const char *file, int line,
               const char *format, ...)
{
  g_autofree char *message = NULL;
  const char *base = strrchr (file, '/');
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  base = base != NULL ? base + 1 : file;
  if (solver->not_root && solver->built && level == CT_SOLVER_LOG_INFO)
    return;    /* Caffe's LOG_IF (INFO, root_solver) */
  if (!solver->built)
    {
      CtSolverLogLine *entry = g_new0 (CtSolverLogLine, 1);

      entry->level = level;
      entry->file = g_strdup (base);
      entry->line = line;
      entry->message = g_strdup (message);
      g_ptr_array_add (solver->build_log, entry);
    }
  FOR_EACH_OBSERVER (solver, o)
    if (o->funcs.log != NULL)
      o->funcs.log (solver, level, base, line, message, o->user_data);
}

gboolean
ct_solver_feed (CtSolver *solver, CtNet *net, int test_net_id, int pass, GError **error)
{
  FOR_EACH_OBSERVER (solver, o)
    if (o->funcs.feed != NULL &&
        !o->funcs.feed (solver, net, test_net_id, solver->iter, pass, o->user_data, error))
      return FALSE;
  return TRUE;
}

void
ct_solver_notify_iteration (CtSolver *solver, const CtSolverIteration *info)
{
  FOR_EACH_OBSERVER (solver, o)
    if (o->funcs.iteration != NULL)
      o->funcs.iteration (solver, info, o->user_data);
}

void
ct_solver_notify_test_started (CtSolver *solver, guint test_net_id)
{
  FOR_EACH_OBSERVER (solver, o)
    if (o->funcs.test_started != NULL)
      o->funcs.test_started (solver, solver->iter, test_net_id, o->user_data);
}

void
ct_solver_notify_test_done (CtSolver *solver, const CtSolverTestResult *result)
{
  FOR_EACH_OBSERVER (solver, o)
    if (o->funcs.test_done != NULL)
      o->funcs.test_done (solver, result, o->user_data);
}

void
ct_solver_notify_snapshot (CtSolver *solver, const char *model_path, const char *state_path)
{
  FOR_EACH_OBSERVER (solver, o)
    if (o->funcs.snapshot != NULL)
      o->funcs.snapshot (solver, solver->iter, model_path, state_path, o->user_data);
}

/* ---- the loop ---- */

/* Caffe's UpdateSmoothedLoss: the mean of the last average_loss losses. */
static void
update_smoothed_loss (CtSolver *solver, float loss, int start_iter)
{
  guint window = (guint) solver->param->average_loss;

  if (solver->losses->len < window)
    {
      guint size;

      g_array_append_val (solver->losses, loss);
      size = solver->losses->len;
      solver->smoothed_loss = (solver->smoothed_loss * (float) (size - 1) + loss) / (float) size;
    }
  else
    {
      guint idx = (guint) (solver->iter - start_iter) % window;
      float *slot = &g_array_index (solver->losses, float, idx);

      solver->smoothed_loss += (loss - *slot) / (float) window;
      *slot = loss;
    }
}

/* Caffe's display lines: the smoothed loss with the speed, then each
 * element of each output blob of the train net. */
static void
log_display (CtSolver *solver, const CtSolverIteration *info)
{
  CtNet *net = solver->net;
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];
  guint score = 0;

  CT_SOLVER_LOG (solver, "Iteration %d (%s iter/s, %ss/%d iters), loss = %s", info->iter,
                 ct_solver_format_number (a, info->display_iters_per_s),
                 ct_solver_format_number (b, info->display_seconds), solver->param->display,
                 ct_solver_format_number (c, info->smoothed_loss));
  for (guint j = 0; j < ct_net_n_outputs (net); j++)
    {
      guint index = ct_net_output_index (net, j);
      CtBlob *blob = ct_net_get_blob (net, index);
      const float *values = ct_blob_cpu_data (blob, NULL);
      float weight = ct_net_blob_loss_weight (net, index);
      const char *name = ct_net_get_blob_name (net, index);

      for (gint64 k = 0; values != NULL && k < ct_blob_count (blob); k++, score++)
        if (weight != 0.0f)
          CT_SOLVER_LOG (solver, "    Train net output #%u: %s = %s (* %s = %s loss)", score,
                         name, ct_solver_format_number (a, values[k]),
                         ct_solver_format_number (b, weight),
                         ct_solver_format_number (c, weight * values[k]));
        else
          CT_SOLVER_LOG (solver, "    Train net output #%u: %s = %s", score, name,
                         ct_solver_format_number (a, values[k]));
    }
}

/* iter_size forward/backward passes; the mean loss in *LOSS. */
static gboolean
forward_backward (CtSolver *solver, float *loss, GError **error)
{
  float sum = 0.0f;

  for (int pass = 0; pass < solver->param->iter_size; pass++)
    {
      float pass_loss = 0.0f;

      if (!ct_solver_feed (solver, solver->net, -1, pass, error) ||
          !ct_net_forward (solver->net, &pass_loss, error) ||
          !ct_net_backward (solver->net, error))
        return FALSE;
      sum += pass_loss;
    }
  *loss = sum / (float) solver->param->iter_size;
  return TRUE;
}

/* Caffe's "(X iter/s, Ys/N iters)" figures at display iterations: the
 * time since the previous display, tests included. */
static void
measure_display (CtSolver *solver, CtSolverIteration *info)
{
  double lapse = g_timer_elapsed (solver->display_timer, NULL);

  info->display_seconds = lapse;
  info->display_iters_per_s = (solver->iter - solver->display_last_iter) /
                              (lapse > 0.0 ? lapse : 1.0);
  g_timer_start (solver->display_timer);
  solver->display_last_iter = solver->iter;
}

/* The recent speed: a moving average over about 20 iterations, steady yet
 * quick to follow a change. */
static void
measure_speed (CtSolver *solver, CtSolverIteration *info, double iteration_seconds)
{
  if (solver->seconds_per_iter <= 0.0)
    solver->seconds_per_iter = iteration_seconds;
  else
    solver->seconds_per_iter += (iteration_seconds - solver->seconds_per_iter) / 20.0;
  info->iters_per_s = solver->seconds_per_iter > 0.0 ? 1.0 / solver->seconds_per_iter : 0.0;
}

static gboolean
should_test (const CtSolver *solver)
{
  const Caffe__SolverParameter *p = solver->param;

  return !solver->not_root && p->test_interval > 0 && solver->iter % p->test_interval == 0 &&
         (solver->iter > 0 || p->test_initialization) && solver->test_nets->len > 0;
}

/* The learning rate of this iteration, logged as Caffe logs it. */
static float
learning_rate (CtSolver *solver, gboolean display)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean stepped = FALSE;
  float rate = ct_lr_policy_rate (solver->param, solver->iter, &solver->current_step, &stepped);

  if (stepped)
    CT_SOLVER_LOG (solver, "MultiStep Status: Iteration %d, step = %d", solver->iter,
                   solver->current_step);
  if (display)
    CT_SOLVER_LOG (solver, "Iteration %d, lr = %s", solver->iter,
                   ct_solver_format_number (buf, rate));
  return rate;
}

/* One iteration, in Caffe's order: test if due, forward/backward, log,
 * update; iter += 1. Stopped during the test: iter unchanged. */
void
ct_solver_set_stop_on_not_finite (CtSolver *solver, gboolean stop)
{
  solver->stop_on_not_finite = stop;
}

/* The error of a loss that is NaN or infinite: the first layer that made
 * one, or the loss itself. */
static gboolean
not_finite (CtSolver *solver, GError **error)
{
  if (!ct_net_check_finite (solver->net, error))
    return FALSE;
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NOT_FINITE,
               _("training stopped at iteration %d: the loss is NaN or infinite"),
               solver->iter);
  return FALSE;
}

static gboolean
iterate (CtSolver *solver, int start_iter, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  CtSolverIteration info = { .iter = solver->iter };
  gint64 started;

  if (!ct_net_clear_param_diffs (solver->net, error))
    return FALSE;
  if (should_test (solver))
    {
      if (!ct_solver_test_nets (solver, error))
        return FALSE;
      if (solver->stopped_early)
        return TRUE;
    }
  started = g_get_monotonic_time ();
  info.display = p->display != 0 && solver->iter % p->display == 0;
  if (!forward_backward (solver, &info.loss, error))
    return FALSE;
  if (solver->stop_on_not_finite && !isfinite (info.loss))
    return not_finite (solver, error);
  update_smoothed_loss (solver, info.loss, start_iter);
  info.smoothed_loss = solver->smoothed_loss;
  if (info.display && !solver->not_root)
    {
      measure_display (solver, &info);
      log_display (solver, &info);
    }
  if (solver->sync.gradients_ready != NULL &&
      !solver->sync.gradients_ready (solver, solver->sync_data, error))
    return FALSE;
  info.learning_rate = learning_rate (solver, info.display);
  if (!ct_solver_apply_update (solver, info.learning_rate, error))
    return FALSE;
  measure_speed (solver, &info, (double) (g_get_monotonic_time () - started) / 1e6);
  ct_solver_notify_iteration (solver, &info);
  solver->iter++;
  return TRUE;
}

static gboolean
step (CtSolver *solver, int iters, GError **error)
{
  const int start_iter = solver->iter;
  const int stop_iter = solver->iter + iters;

  g_array_set_size (solver->losses, 0);
  solver->smoothed_loss = 0.0f;
  g_timer_start (solver->display_timer);
  solver->display_last_iter = solver->iter;
  while (solver->iter < stop_iter)
    {
      int before = solver->iter;
      CtSolverAction action;

      if (!iterate (solver, start_iter, error))
        return FALSE;
      if (solver->iter == before)
        break;    /* stopped while testing */
      if (!agree (solver, &action, error))
        return FALSE;
      if (!solver->not_root &&
          ((solver->param->snapshot > 0 && solver->iter % solver->param->snapshot == 0) ||
           action == CT_SOLVER_ACTION_SNAPSHOT) && !ct_solver_snapshot (solver, error))
        return FALSE;
      if (action == CT_SOLVER_ACTION_STOP)
        {
          solver->stopped_early = TRUE;
          break;
        }
    }
  return TRUE;
}

gboolean
ct_solver_step (CtSolver *solver, int iters, GError **error)
{
  solver->stopped_early = FALSE;
  return step (solver, iters, error);
}

/* After training: Caffe's last forward pass, logged when the final
 * iteration is a display iteration. */
static gboolean
final_display (CtSolver *solver, int start_iter, GError **error)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  float loss = 0.0f;

  if (!ct_solver_feed (solver, solver->net, -1, 0, error) ||
      !ct_net_forward (solver->net, &loss, error))
    return FALSE;
  update_smoothed_loss (solver, loss, start_iter);
  CT_SOLVER_LOG (solver, "Iteration %d, loss = %s", solver->iter,
                 ct_solver_format_number (buf, solver->smoothed_loss));
  return TRUE;
}

gboolean
ct_solver_solve (CtSolver *solver, const char *resume_file, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  int start_iter;

  CT_SOLVER_LOG (solver, "Solving %s", ct_net_get_name (solver->net));
  CT_SOLVER_LOG (solver, "Learning Rate Policy: %s", p->lr_policy);
  solver->stopped_early = FALSE;
  if (!ct_solver_check_snapshot_prefix (solver, error))
    return FALSE;
  if (resume_file != NULL)
    {
      CT_SOLVER_LOG (solver, "Restoring previous solver status from %s", resume_file);
      if (!ct_solver_restore (solver, resume_file, error))
        return FALSE;
    }
  start_iter = solver->iter;
  if (!step (solver, p->max_iter - solver->iter, error))
    return FALSE;
  if (!solver->not_root && p->snapshot_after_train && (p->snapshot <= 0 || solver->iter % p->snapshot != 0) &&
      !ct_solver_snapshot (solver, error))
    return FALSE;
  if (solver->stopped_early)
    {
      CT_SOLVER_LOG (solver, "Optimization stopped early.");
      return TRUE;
    }
  if (!solver->not_root && p->display != 0 && solver->iter % p->display == 0 &&
      !final_display (solver, start_iter, error))
    return FALSE;
  if (!solver->not_root && p->test_interval > 0 && solver->iter % p->test_interval == 0 &&
      !ct_solver_test_nets (solver, error))
    return FALSE;
  CT_SOLVER_LOG (solver, "Optimization Done.");
  return TRUE;
}
