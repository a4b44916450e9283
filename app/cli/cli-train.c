/* cli-train.c: `cortado-cli train --solver=S`, Caffe's `caffe train`: the
 * same flags (--weights to fine-tune, --snapshot to resume, --gpu, --stage,
 * --level, --sigint_effect, --sighup_effect; gflags' single-dash spellings
 * too) and the same glog lines on stderr, so that scripts written for
 * Caffe (parse_log, plot_training_log) read Cortado's logs. On a terminal a
 * progress line (iteration, loss, lr, speed, time left) sits below the log.
 *
 * --gpu=N trains on GPU N; without the flag a solver whose solver_mode is
 * GPU trains on its device_id, as in Caffe. --gpu=0,1 (or "all") without
 * a launcher trains as Caffe does on several GPUs: one solver per GPU, each
 * in a thread of this process with the prototxt's batch, data-parallel as
 * the MPI ranks below are (the threads' communicator hands out NCCL's
 * unique id, NCCL sums the gradients). --cpu_solvers=N runs the same
 * threads with N solvers on the CPU, summing through memory, so that the
 * multi-GPU driver can be checked on a machine without GPUs.
 *
 * Started by an MPI launcher (`mpirun -np N cortado-cli train ...`), each
 * process is one rank of a data-parallel run (engine/parallel): rank R
 * reads the records i of its Data layers with i mod N == R, gradients are
 * averaged over the ranks each iteration, and rank 0 alone logs, tests and
 * snapshots. An error on any rank is printed with the rank's number and
 * ends every rank (MPI_Abort), so that none waits for it forever. With
 * --gpu, each rank takes the GPU of the list at its place among the ranks
 * of its machine, and the gradients are summed by NCCL between the GPUs
 * (MPI hands out NCCL's unique id); where NCCL cannot be opened they go
 * through host memory and MPI, with a warning.
 *
 * --iterations N, Cortado's own, overrides max_iter. SIGINT snapshots and
 * stops, SIGHUP snapshots and goes on, unless the effect flags say
 * otherwise; both are carried out between iterations (cli-signals.c takes
 * them). */
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "cli-private.h"
#include "cli-signals-private.h"
#include "comm.h"
#include "data-parallel.h"
#include "data-shard.h"
#include "devices.h"
#include "solver.h"
#include "text-format.h"

typedef struct {
  char *solver;
  char *weights;
  char *snapshot;
  char *gpu;
  int cpu_solvers;
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

static gboolean
parse_effect (const char *text, CtSolverAction fallback, CtSolverAction *action)
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

/* ---- observers ---- */

typedef struct {
  gboolean quiet;    /* a rank other than 0: no log lines, no progress line */
  int max_iter;
  gint64 started_us;
  int started_iter;
} Progress;

static void
on_log (CtSolver *solver, CtSolverLogLevel level, const char *file, int line,
        const char *message, gpointer user_data)
{
  Progress *p = user_data;

  if (p->quiet && level != CT_SOLVER_LOG_WARNING)
    return;
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

  if (p->quiet)
    return;
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
  /* --cpu_solvers is on the CPU, whatever the solver says */
  if (o->cpu_solvers > 1)
    return NULL;
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

/* Rank 0's account of the gradient exchanges, for the log. */
static void
log_exchange (const CtDataParallel *dp, const CtComm *comm)
{
  CtDataParallelStats st;
  char mb[G_ASCII_DTOSTR_BUF_SIZE], busy[G_ASCII_DTOSTR_BUF_SIZE], blocked[G_ASCII_DTOSTR_BUF_SIZE];
  double n;

  ct_data_parallel_get_stats (dp, &st);
  n = st.iterations > 0 ? (double) st.iterations : 1.0;
  g_ascii_formatd (mb, sizeof mb, "%.3f", (double) st.floats * 4.0 / 1e6);
  g_ascii_formatd (busy, sizeof busy, "%.3f", st.busy_seconds * 1e3 / n);
  g_ascii_formatd (blocked, sizeof blocked, "%.3f", st.blocked_seconds * 1e3 / n);
  CT_CLI_LOG_INFO ("Data-parallel over %u ranks (%s): %s MB of gradients in %u buckets per "
                   "iteration; %s ms per iteration in the exchange, %s ms of it waiting after "
                   "the backward pass (%" G_GUINT64_FORMAT " iterations)", comm->size,
                   comm->klass->name, mb, st.n_buckets, busy, blocked, st.iterations);
}

/* A rank's share of the work, before its solver is built: its records of
 * the Data layers and, as Caffe's solvers do, its own random seed (the
 * weights agree anyway: rank 0's are broadcast). */
static void
join_ranks (const CtComm *comm, Caffe__SolverParameter *param)
{
  ct_data_shard_set (comm->rank, comm->size);
  if (param->has_random_seed && param->random_seed >= 0)
    param->random_seed += comm->rank;
}

/* Under MPI, the GPU of a --gpu list that this rank takes: the one at its
 * place among the ranks of its machine (round robin). */
static char *
rank_gpu (char *gpu, const CtComm *comm, GError **error)
{
  g_autoptr (GArray) ids = NULL;
  int id;

  if (gpu == NULL || comm == NULL || !CT_HAVE_CUDA || ct_engine_gpu_count (NULL) == 0)
    return gpu;
  ids = ct_cli_parse_gpu_ids (gpu, ct_engine_gpu_count (NULL), error);
  if (ids == NULL)
    {
      g_free (gpu);
      return NULL;
    }
  if (ids->len == 0)
    return gpu;
  id = g_array_index (ids, int, comm->local_rank % ids->len);
  g_free (gpu);
  return g_strdup_printf ("%d", id);
}

/* The communicator that sums the gradients: NCCL for ranks on GPUs when it
 * can be opened (NULL and no error otherwise: MPI then sums, through
 * host memory). */
static CtComm *
gpu_comm (CtComm *comm, gboolean use_gpu, GError **error)
{
  GError *local = NULL;
  CtComm *nccl;

  /* one rank too: `mpirun -np 1 ... --gpu=0` runs the NCCL path whole */
  if (!use_gpu)
    return NULL;
  nccl = ct_comm_nccl_new (comm, &local);
  if (nccl != NULL)
    return nccl;
  if (g_error_matches (local, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_UNAVAILABLE))
    {
      if (comm->rank == 0)
        CT_CLI_LOG_WARNING ("%s: the gradients go through host memory (%s)",
                            local->message, comm->klass->name);
      g_error_free (local);
      return NULL;
    }
  g_propagate_error (error, local);
  return NULL;
}

/* The GPU this solver trains on, selected in this thread (CUDA's current
 * device is per thread). One process driving several GPUs said which in
 * its first lines; each solver thread then selects its own quietly. */
static gboolean
select_gpu (const char *gpu, const CtComm *comm, gboolean *use_gpu, GError **error)
{
  *use_gpu = FALSE;
  if (ct_comm_is_threads (comm))
    {
      *use_gpu = gpu != NULL && ct_engine_gpu_select ((int) g_ascii_strtoll (gpu, NULL, 10),
                                                      error);
      return gpu == NULL || *use_gpu;
    }
  if (!ct_cli_select_gpu (gpu, TRUE, use_gpu, error))
    return FALSE;
  if (!*use_gpu)
    CT_CLI_LOG_INFO ("Using the CPU: %d threads", ct_engine_cpu_threads ());
  return TRUE;
}

static gboolean
train (const TrainOptions *o, CtComm *comm, GError **error)
{
  Caffe__SolverParameter *param = load_param (o, error);
  g_autoptr (CtSolver) solver = NULL;
  g_autofree char *text = NULL;
  g_autofree char *gpu = NULL;
  gboolean use_gpu = FALSE;
  g_autoptr (CtDataParallel) dp = NULL;
  g_autoptr (CtComm) nccl = NULL;
  CtSolverObserverFuncs funcs = { .log = on_log, .iteration = on_iteration };
  Progress progress = { .quiet = comm != NULL && comm->rank != 0 };
  /* each process takes its signals; of a process's threads, rank 0 */
  gboolean takes_signals = !ct_comm_is_threads (comm) || comm->rank == 0;
  gboolean ok;

  if (param == NULL)
    return FALSE;
  gpu = rank_gpu (gpu_to_use (o, param), comm, error);
  if ((gpu == NULL && error != NULL && *error != NULL) ||
      !select_gpu (gpu, comm, &use_gpu, error))
    {
      protobuf_c_message_free_unpacked (&param->base, NULL);
      return FALSE;
    }
  if (comm != NULL)
    join_ranks (comm, param);
  text = ct_text_print (&param->base);
  if (!progress.quiet)
    CT_CLI_LOG_INFO ("Initializing solver from parameters: \n%s", text);
  if (o->weights != NULL && !progress.quiet)
    CT_CLI_LOG_INFO ("Finetuning from %s", o->weights);
  solver = ct_solver_new_with_memory_plan (param, o->solver, TRUE, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (solver == NULL || (use_gpu && !ct_solver_set_use_gpu (solver, TRUE, error)))
    return FALSE;
  /* before the observers: the others than rank 0 keep their INFO lines */
  if (comm != NULL)
    {
      GError *local = NULL;

      nccl = gpu_comm (comm, use_gpu, &local);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      dp = ct_data_parallel_new (solver, nccl != NULL ? nccl : comm,
                                 CT_DATA_PARALLEL_BUCKET_BYTES, error);
      if (dp == NULL)
        return FALSE;
    }
  progress.max_iter = ct_solver_get_param (solver)->max_iter;
  /* As the window does: a NaN or an infinity stops training, naming the
   * layer that made it, before a snapshot could save it. */
  ct_solver_set_stop_on_not_finite (solver, TRUE);
  ct_solver_add_observer (solver, &funcs, &progress, NULL);
  if (takes_signals)
    ct_cli_signals_watch (solver);
  ok = TRUE;
  if (o->snapshot != NULL)
    {
      /* as `caffe train`: restore first (every rank), then solve from there */
      if (!progress.quiet)
        CT_CLI_LOG_INFO ("Resuming from %s", o->snapshot);
      ok = ct_solver_restore (solver, o->snapshot, error);
    }
  if (ok && dp != NULL)
    {
      if (!progress.quiet)
        CT_CLI_LOG_INFO ("Training data-parallel on %u ranks: rank 0's weights go to every rank",
                         comm->size);
      ok = ct_data_parallel_broadcast_state (dp, error);
    }
  if (ok)
    {
      if (!progress.quiet)
        CT_CLI_LOG_INFO ("Starting Optimization");
      progress.started_us = g_get_monotonic_time ();
      progress.started_iter = ct_solver_get_iter (solver);
      ok = ct_solver_solve (solver, NULL, error);
    }
  if (ok && dp != NULL && !progress.quiet)
    log_exchange (dp, nccl != NULL ? nccl : comm);
  if (takes_signals)
    ct_cli_signals_watch (NULL);
  if (!progress.quiet)
    ct_cli_progress_clear ();
  return ok;
}

/* ---- several solvers in one process ---- */

typedef struct {
  const TrainOptions *o;
  CtComm *comm;
  gboolean gpus;
  GError *error;
} SolverThread;

/* Say what went wrong, on which rank, and end every rank: the others would
 * wait for this one forever. */
static void
fail (CtComm *comm, const char *message)
{
  if (comm == NULL || comm->size < 2)
    {
      g_printerr ("cortado-cli train: %s\n", message);
      return;
    }
  /* TRANSLATORS: RANK of SIZE ranks of an MPI job, then the error */
  g_printerr (_("cortado-cli train: rank %u of %u: %s\n"), comm->rank, comm->size, message);
  g_printerr (_("cortado-cli train: rank %u ends the job\n"), comm->rank);
  ct_comm_abort (comm, CT_CLI_EXIT_INPUT);
}

static gpointer
solver_thread_main (gpointer data)
{
  SolverThread *t = data;

  if (train (t->o, t->comm, &t->error))
    return NULL;
  /* Solvers on GPUs may wait inside NCCL, which no flag can wake: the
   * process ends. On the CPU the others stop at their next exchange. */
  if (t->gpus)
    fail (t->comm, t->error->message);
  ct_comm_group_break (ct_comm_threads_get_group (t->comm));
  return NULL;
}

/* The first lines of a run on several GPUs: which, as Caffe says it. */
static void
log_gpus (const GArray *ids)
{
  g_autoptr (GString) list = g_string_new (NULL);

  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (list, i ? ", %d" : "%d", g_array_index (ids, int, i));
  CT_CLI_LOG_INFO ("Using GPUs %s", list->str);
  for (guint i = 0; i < ids->len; i++)
    {
      CtGpuInfo info = { 0 };
      int id = g_array_index (ids, int, i);

      if (!ct_engine_gpu_info (id, &info, NULL))
        g_strlcpy (info.name, "?", sizeof info.name);
      CT_CLI_LOG_INFO ("GPU %d: %s", id, info.name);
    }
}

/* N solvers, one per thread, training one net data-parallel over the
 * threads' communicator: on the GPUs of the --gpu list (NCCL sums the
 * gradients between them) or, with --cpu_solvers, on the CPU. Rank 0 runs
 * in this thread. The error is the first rank's own (not the others'
 * "another solver failed"). */
static gboolean
train_in_threads (const TrainOptions *o, guint n, gboolean gpus, GError **error)
{
  g_autoptr (CtCommGroup) group = ct_comm_group_new (n);
  g_autofree SolverThread *threads = g_new0 (SolverThread, n);
  g_autofree GThread **handles = g_new0 (GThread *, n);
  GError *first = NULL;

  for (guint r = 0; r < n; r++)
    {
      threads[r].o = o;
      threads[r].comm = ct_comm_threads_new (group, r);
      threads[r].gpus = gpus;
    }
  for (guint r = 1; r < n; r++)
    handles[r] = g_thread_new ("ct-solver", solver_thread_main, &threads[r]);
  solver_thread_main (&threads[0]);
  for (guint r = 1; r < n; r++)
    g_thread_join (handles[r]);
  for (guint r = 0; r < n; r++)
    {
      GError *e = threads[r].error;

      if (e != NULL && (first == NULL || g_error_matches (first, CT_PARALLEL_ERROR,
                                                         CT_PARALLEL_ERROR_COMM)))
        {
          g_clear_error (&first);
          first = g_steal_pointer (&threads[r].error);
          if (n > 1)
            /* TRANSLATORS: solver R of N solvers in threads of one process, then the error */
            g_prefix_error (&first, _("solver %u of %u: "), r, n);
        }
      g_clear_error (&threads[r].error);
      ct_comm_free (threads[r].comm);
    }
  if (first == NULL)
    return TRUE;
  g_propagate_error (error, first);
  return FALSE;
}

/* ---- ranks ---- */

/* start_ranks's answer when no launcher started this process. */
static CtComm no_comm;

/* MPI's ranks when a launcher started the process; &no_comm when it did
 * not (or this build has no MPI); NULL with ERROR when MPI fails. */
static CtComm *
start_ranks (GError **error)
{
  GError *local = NULL;
  CtComm *comm = ct_comm_mpi_new (NULL, NULL, &local);

  if (comm != NULL)
    return comm;
  if (local == NULL && ct_comm_launched () && !ct_comm_mpi_built ())
    CT_CLI_LOG_WARNING ("started by an MPI launcher, but this cortado-cli was built without "
                        "MPI (meson -Dmpi): each process trains alone");
  if (local == NULL)
    return &no_comm;
  g_propagate_error (error, local);
  return NULL;
}

/* How many GPUs --gpu names when no launcher started the process (1 for
 * none or one); 0 with ERROR for a list CUDA cannot give. */
static guint
count_gpus (const char *gpu, GError **error)
{
  g_autoptr (GArray) ids = NULL;

  if (gpu == NULL || (strchr (gpu, ',') == NULL && strcmp (gpu, "all") != 0))
    return 1;
  if (!ct_cli_check_gpu (gpu, error) ||
      (ids = ct_cli_parse_gpu_ids (gpu, ct_engine_gpu_count (NULL), error)) == NULL)
    return 0;
  for (guint i = 0; i < ids->len; i++)
    for (guint j = 0; j < i; j++)
      if (g_array_index (ids, int, i) == g_array_index (ids, int, j))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("GPU %d is listed twice in --gpu=%s: each GPU trains one solver"),
                       g_array_index (ids, int, i), gpu);
          return 0;
        }
  if (ids->len > 1)
    log_gpus (ids);
  return MAX (ids->len, 1);
}

/* Train, as one rank of COMM (MPI), or alone, or as N solvers in threads. */
static gboolean
train_here (const TrainOptions *o, CtComm *comm, GError **error)
{
  guint n_gpus;

  if (comm != &no_comm)
    {
      CT_CLI_LOG_INFO ("MPI rank %u of %u", comm->rank, comm->size);
      return train (o, comm, error);
    }
  if (o->cpu_solvers > 1)
    {
      CT_CLI_LOG_INFO ("Using the CPU: %d solvers in threads, data-parallel", o->cpu_solvers);
      return train_in_threads (o, (guint) o->cpu_solvers, FALSE, error);
    }
  n_gpus = count_gpus (o->gpu, error);
  if (n_gpus == 0)
    return FALSE;
  if (n_gpus > 1)
    return train_in_threads (o, n_gpus, TRUE, error);
  return train (o, NULL, error);
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
      N_("Train on these GPUs (ids separated by commas, or 'all'): one solver per GPU, "
         "data-parallel"), N_("IDS") },
    { "cpu_solvers", 0, 0, G_OPTION_ARG_INT, &o.cpu_solvers,
      N_("Train N solvers on the CPU in threads, data-parallel, as --gpu does with several "
         "GPUs (to check a multi-GPU run on a machine without GPUs)"), N_("N") },
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
  CtSolverAction on_int = CT_SOLVER_ACTION_STOP, on_hup = CT_SOLVER_ACTION_SNAPSHOT;
  CtComm *comm = NULL;
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
  else if (!parse_effect (o.sigint_effect, CT_SOLVER_ACTION_STOP, &on_int))
    status = ct_cli_usage_error ("train", _("--sigint_effect takes stop, snapshot or none, "
                                            "not '%s'"), o.sigint_effect);
  else if (!parse_effect (o.sighup_effect, CT_SOLVER_ACTION_SNAPSHOT, &on_hup))
    status = ct_cli_usage_error ("train", _("--sighup_effect takes snapshot, stop or none, "
                                            "not '%s'"), o.sighup_effect);
  else if (o.cpu_solvers < 0)
    status = ct_cli_usage_error ("train", _("--cpu_solvers takes a number of solvers, not %d"),
                                 o.cpu_solvers);
  else if (o.cpu_solvers > 1 && o.gpu != NULL)
    status = ct_cli_usage_error ("train", _("give --gpu or --cpu_solvers, not both"));
  else if (o.cpu_solvers > 1 && ct_comm_launched ())
    status = ct_cli_usage_error ("train", _("--cpu_solvers runs its solvers in one process, "
                                            "not under an MPI launcher"));
  /* before any other thread starts: they all inherit the blocked signals */
  else if (!ct_cli_signals_start (on_int, on_hup))
    {
      g_printerr ("cortado-cli train: %s\n", _("could not start the thread that takes signals"));
      status = CT_CLI_EXIT_INPUT;
    }
  else
    {
      if (!ct_cli_check_gpu (o.gpu, &error) || !(comm = start_ranks (&error)) ||
          !train_here (&o, comm, &error))
        {
          ct_cli_progress_clear ();
          fail (comm == &no_comm ? NULL : comm, error->message);
          status = CT_CLI_EXIT_INPUT;
        }
      if (comm != &no_comm)
        ct_comm_free (comm);
      ct_cli_signals_stop ();
    }
  options_clear (&o);
  return status;
}
