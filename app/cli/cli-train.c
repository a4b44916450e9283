/* cli-train.c: `cortado-cli train --solver=S`, Caffe's `caffe train`: the
 * same flags (--weights to fine-tune, --snapshot to resume, --gpu, --stage,
 * --level, --sigint_effect, --sighup_effect; gflags' single-dash spellings
 * too) and the same glog lines on stderr, so that scripts written for
 * Caffe (parse_log, plot_training_log) read Cortado's logs. On a terminal a
 * progress line (iteration, loss, lr, speed, time left) sits below the log.
 *
 * --gpu=N trains on GPU N (Caffe's "all" or a list: the first of them,
 * with a warning, since Cortado computes on one GPU); without the flag a
 * solver whose solver_mode is GPU trains on its device_id, as in Caffe.
 *
 * --iterations N, Cortado's own, overrides max_iter. SIGINT snapshots and
 * stops, SIGHUP snapshots and goes on, unless the effect flags say
 * otherwise; both are carried out between iterations. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "cli-private.h"
#include "devices.h"
#include "solver.h"
#include "text-format.h"

typedef struct {
  char *solver;
  char *weights;
  char *snapshot;
  char *gpu;
  int iterations;
  char **stages;
  int level;
  char *sigint_effect;
  char *sighup_effect;
} TrainOptions;

static void
options_clear (TrainOptions *o)
{
  g_free (o->solver);
  g_free (o->weights);
  g_free (o->snapshot);
  g_free (o->gpu);
  g_strfreev (o->stages);
  g_free (o->sigint_effect);
  g_free (o->sighup_effect);
}

/* ---- signals ---- */

static CtSolver *volatile signal_solver;
static volatile sig_atomic_t sigint_action;
static volatile sig_atomic_t sighup_action;

static void
on_signal (int signum)
{
  CtSolver *solver = signal_solver;
  sig_atomic_t action = signum == SIGINT ? sigint_action : sighup_action;

  /* one atomic store: safe in a signal handler */
  if (solver != NULL && action != CT_SOLVER_ACTION_NONE)
    ct_solver_request (solver, (CtSolverAction) action);
}

static gboolean
parse_effect (const char *text, CtSolverAction fallback, volatile sig_atomic_t *action)
{
  if (text == NULL)
    *action = fallback;
  else if (strcmp (text, "stop") == 0)
    *action = CT_SOLVER_ACTION_STOP;
  else if (strcmp (text, "snapshot") == 0)
    *action = CT_SOLVER_ACTION_SNAPSHOT;
  else if (strcmp (text, "none") == 0)
    *action = CT_SOLVER_ACTION_NONE;
  else
    return FALSE;
  return TRUE;
}

static void
install_signals (CtSolver *solver, struct sigaction *old_int, struct sigaction *old_hup)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  signal_solver = solver;
  sigaction (SIGINT, &sa, old_int);
  sigaction (SIGHUP, &sa, old_hup);
}

static void
restore_signals (const struct sigaction *old_int, const struct sigaction *old_hup)
{
  sigaction (SIGINT, old_int, NULL);
  sigaction (SIGHUP, old_hup, NULL);
  signal_solver = NULL;
}

/* ---- observers ---- */

typedef struct {
  int max_iter;
  gint64 started_us;
  int started_iter;
} Progress;

static void
on_log (CtSolver *solver, CtSolverLogLevel level, const char *file, int line,
        const char *message, gpointer user_data)
{
  ct_cli_glog (level == CT_SOLVER_LOG_WARNING ? 'W' : 'I', file, line, message);
}

static char *
format_duration (double seconds)
{
  gint64 s = (gint64) (seconds + 0.5);

  if (s >= 3600)
    return g_strdup_printf ("%" G_GINT64_FORMAT "h%02dm", s / 3600, (int) (s / 60 % 60));
  if (s >= 60)
    return g_strdup_printf ("%dm%02ds", (int) (s / 60), (int) (s % 60));
  return g_strdup_printf ("%ds", (int) s);
}

static void
on_iteration (CtSolver *solver, const CtSolverIteration *info, gpointer user_data)
{
  Progress *p = user_data;
  char loss[G_ASCII_DTOSTR_BUF_SIZE], lr[G_ASCII_DTOSTR_BUF_SIZE], speed[G_ASCII_DTOSTR_BUF_SIZE];
  int done = info->iter + 1 - p->started_iter;
  double elapsed = (double) (g_get_monotonic_time () - p->started_us) / 1e6;
  double rate = elapsed > 0 ? done / elapsed : 0.0;
  g_autofree char *eta = format_duration (rate > 0 ? (p->max_iter - info->iter - 1) / rate : 0);
  g_autofree char *text = NULL;

  g_ascii_formatd (loss, sizeof loss, "%.4g", info->smoothed_loss);
  ct_cli_format_number (lr, info->learning_rate);
  g_ascii_formatd (speed, sizeof speed, "%.1f", rate);
  /* TRANSLATORS: the progress line of `cortado-cli train`; ETA is the time left */
  text = g_strdup_printf (_("Iteration %d/%d  loss %s  lr %s  %s it/s  ETA %s"), info->iter + 1,
                          p->max_iter, loss, lr, speed, eta);
  ct_cli_progress_show (text, info->iter + 1 == p->max_iter);
}

/* ---- the parameter, adjusted by the flags as Caffe adjusts it ---- */

static void
add_train_state (Caffe__SolverParameter *param, int level, char **stages)
{
  Caffe__NetState *state = param->train_state;
  gsize n = g_strv_length (stages);

  if (state == NULL)
    {
      state = param->train_state = g_new0 (Caffe__NetState, 1);
      caffe__net_state__init (state);
    }
  state->has_level = TRUE;
  state->level = level;
  state->stage = g_renew (char *, state->stage, state->n_stage + n + 1);
  for (gsize i = 0; i < n; i++)
    state->stage[state->n_stage++] = g_strdup (stages[i]);
}

static void
set_weights (Caffe__SolverParameter *param, const char *weights)
{
  for (gsize i = 0; i < param->n_weights; i++)
    free (param->weights[i]);
  param->n_weights = 0;
  if (weights == NULL)
    return;
  param->weights = g_renew (char *, param->weights, 1);
  param->weights[0] = g_strdup (weights);
  param->n_weights = 1;
}

static Caffe__SolverParameter *
load_param (const TrainOptions *o, GError **error)
{
  Caffe__SolverParameter *param = ct_solver_param_load_file (o->solver, error);
  g_auto (GStrv) stages = NULL;

  if (param == NULL)
    return NULL;
  stages = ct_cli_split_stages (o->stages);
  add_train_state (param, o->level, stages);
  if (o->iterations >= 0)
    {
      param->has_max_iter = TRUE;
      param->max_iter = o->iterations;
    }
  if (o->snapshot != NULL)
    set_weights (param, NULL);
  else if (o->weights != NULL)
    set_weights (param, o->weights);
  return param;
}

/* The --gpu value to train with: the flag, or else, as Caffe's tool does,
 * the solver's solver_mode: GPU with its device_id (0 by default). A
 * solver that asks for the GPU where none can be used trains on the CPU
 * with a warning (the flag, by contrast, is an error). Returns a new
 * string, or NULL for the CPU. */
static char *
gpu_to_use (const TrainOptions *o, const Caffe__SolverParameter *param)
{
  if (o->gpu != NULL)
    return g_strdup (o->gpu);
  if (!param->has_solver_mode || param->solver_mode != CAFFE__SOLVER_PARAMETER__SOLVER_MODE__GPU)
    return NULL;
  if (!CT_HAVE_CUDA)
    CT_CLI_LOG_WARNING ("%s: solver_mode is GPU, but Cortado was built without CUDA: "
                        "training on the CPU", o->solver);
  else if (ct_engine_gpu_count (NULL) == 0)
    CT_CLI_LOG_WARNING ("%s: solver_mode is GPU, but no GPU can be used (%s): "
                        "training on the CPU", o->solver, ct_engine_gpu_last_error ());
  else
    return g_strdup_printf ("%d", param->has_device_id ? param->device_id : 0);
  return NULL;
}

static gboolean
train (const TrainOptions *o, GError **error)
{
  Caffe__SolverParameter *param = load_param (o, error);
  g_autoptr (CtSolver) solver = NULL;
  g_autofree char *text = NULL;
  g_autofree char *gpu = NULL;
  gboolean use_gpu = FALSE;
  CtSolverObserverFuncs funcs = { .log = on_log, .iteration = on_iteration };
  Progress progress = { 0 };
  struct sigaction old_int, old_hup;
  gboolean ok;

  if (param == NULL)
    return FALSE;
  gpu = gpu_to_use (o, param);
  if (!ct_cli_select_gpu (gpu, TRUE, &use_gpu, error))
    {
      protobuf_c_message_free_unpacked (&param->base, NULL);
      return FALSE;
    }
  text = ct_text_print (&param->base);
  CT_CLI_LOG_INFO ("Initializing solver from parameters: \n%s", text);
  if (o->weights != NULL)
    CT_CLI_LOG_INFO ("Finetuning from %s", o->weights);
  solver = ct_solver_new_with_memory_plan (param, o->solver, TRUE, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (solver == NULL || (use_gpu && !ct_solver_set_use_gpu (solver, TRUE, error)))
    return FALSE;
  progress.max_iter = ct_solver_get_param (solver)->max_iter;
  /* As the window does: a NaN or an infinity stops training, naming the
   * layer that made it, before a snapshot could save it. */
  ct_solver_set_stop_on_not_finite (solver, TRUE);
  ct_solver_add_observer (solver, &funcs, &progress, NULL);
  install_signals (solver, &old_int, &old_hup);
  ok = TRUE;
  if (o->snapshot != NULL)
    {
      /* as `caffe train`: restore first, then solve from there */
      CT_CLI_LOG_INFO ("Resuming from %s", o->snapshot);
      ok = ct_solver_restore (solver, o->snapshot, error);
    }
  if (ok)
    {
      CT_CLI_LOG_INFO ("Starting Optimization");
      progress.started_us = g_get_monotonic_time ();
      progress.started_iter = ct_solver_get_iter (solver);
      ok = ct_solver_solve (solver, NULL, error);
    }
  restore_signals (&old_int, &old_hup);
  ct_cli_progress_clear ();
  return ok;
}

int
ct_cli_train (int argc, char **argv)
{
  TrainOptions o = { .iterations = -1 };
  const GOptionEntry entries[] = {
    { "solver", 0, 0, G_OPTION_ARG_FILENAME, &o.solver,
      N_("The solver definition (a SolverParameter prototxt)"), N_("FILE") },
    { "weights", 0, 0, G_OPTION_ARG_FILENAME, &o.weights,
      N_("Pre-trained weights to fine-tune from (.caffemodel, or .h5; several separated by "
         "commas)"), N_("FILE") },
    { "snapshot", 0, 0, G_OPTION_ARG_FILENAME, &o.snapshot,
      N_("A .solverstate to resume training from"), N_("FILE") },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &o.gpu,
      N_("Train on these GPUs (ids separated by commas, or 'all')"), N_("IDS") },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &o.iterations,
      N_("Train to this iteration instead of the solver's max_iter"), N_("N") },
    { "stage", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.stages,
      N_("A stage of the train net's state (repeat, or separate by commas)"), N_("STAGE") },
    { "level", 0, 0, G_OPTION_ARG_INT, &o.level, N_("The train net's state level (default 0)"),
      N_("N") },
    { "sigint_effect", 0, 0, G_OPTION_ARG_STRING, &o.sigint_effect,
      N_("What SIGINT (Ctrl-C) does: stop (the default, after a snapshot), snapshot or none"),
      N_("EFFECT") },
    { "sighup_effect", 0, 0, G_OPTION_ARG_STRING, &o.sighup_effect,
      N_("What SIGHUP does: snapshot (the default), stop or none"), N_("EFFECT") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  int status = CT_CLI_EXIT_OK;

  ct_cli_accept_single_dash (argc, argv, entries);
  context = ct_cli_context_new ("train", NULL,
                                _("Train a net with a solver, as 'caffe train' does, writing "
                                  "Caffe's log lines to standard error."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("train", _("unexpected argument '%s'"), argv[1]);
  else if (o.solver == NULL)
    status = ct_cli_usage_error ("train", _("no solver given (--solver FILE)"));
  else if (o.snapshot != NULL && o.weights != NULL)
    status = ct_cli_usage_error ("train", _("give --snapshot to resume training or --weights "
                                            "to fine-tune, not both"));
  else if (!parse_effect (o.sigint_effect, CT_SOLVER_ACTION_STOP, &sigint_action))
    status = ct_cli_usage_error ("train", _("--sigint_effect takes stop, snapshot or none, "
                                            "not '%s'"), o.sigint_effect);
  else if (!parse_effect (o.sighup_effect, CT_SOLVER_ACTION_SNAPSHOT, &sighup_action))
    status = ct_cli_usage_error ("train", _("--sighup_effect takes snapshot, stop or none, "
                                            "not '%s'"), o.sighup_effect);
  else if (!ct_cli_check_gpu (o.gpu, &error) || !train (&o, &error))
    {
      ct_cli_progress_clear ();
      g_printerr ("cortado-cli train: %s\n", error->message);
      status = CT_CLI_EXIT_INPUT;
    }
  options_clear (&o);
  return status;
}
