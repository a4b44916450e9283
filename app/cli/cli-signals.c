/* cli-signals.c: SIGINT and SIGHUP for `cortado-cli train`, taken by a
 * thread of their own with sigwait, never by a handler.
 *
 * A handler runs on the stack of whichever thread the signal interrupts,
 * and oneDNN's JIT matrix-product kernels (Debian 12 ships oneDNN 2.6)
 * point the stack pointer into a heap buffer while they run: a signal
 * arriving then writes its frame over the heap, and a later free() aborts
 * (oneDNN fixed this in 3.11). So the two signals are blocked in every
 * thread (the solvers', the data prefetchers', MPI's, which all start
 * later and inherit the mask), and the watcher thread alone waits for
 * them and passes each on to the solver as a request, which the solver
 * carries out between iterations. Before a solver is watched, a signal
 * whose effect is to stop ends the process at once (there is nothing to
 * save yet) and a snapshot waits for the first iteration; after training,
 * signals are dropped. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "cli-signals-private.h"

static pthread_t watcher;
static gboolean watching;
static CtSolver *target;       /* guarded by lock, as WATCHED */
static gboolean watched;       /* a solver was watched: training began */
static gboolean snapshot_asked; /* a snapshot asked for before that */
static CtSolverAction int_action, hup_action;
static gboolean stopping;
static sigset_t old_mask;
static struct sigaction old_int, old_hup;
static GMutex lock;

static void
signal_set (sigset_t *set)
{
  sigemptyset (set);
  sigaddset (set, SIGINT);
  sigaddset (set, SIGHUP);
}

/* What the signal does with no solver: what it would have done before
 * cortado-cli blocked it (ending the process, unless it was ignored). */
static void
default_action (int signum)
{
  const struct sigaction *old = signum == SIGINT ? &old_int : &old_hup;
  sigset_t one;

  if (old->sa_handler == SIG_IGN)
    return;
  sigemptyset (&one);
  sigaddset (&one, signum);
  signal (signum, SIG_DFL);
  raise (signum);
  pthread_sigmask (SIG_UNBLOCK, &one, NULL);
}

static void *
watch (void *data)
{
  sigset_t set;

  /* the name tells it apart in /proc, where it alone shows the signals
   * unblocked (sigwait unblocks them while it waits) */
  pthread_setname_np (pthread_self (), "ct-signals");
  signal_set (&set);
  for (;;)
    {
      int signum = 0;
      CtSolverAction action;

      if (sigwait (&set, &signum) != 0)
        continue;
      g_mutex_lock (&lock);
      if (stopping)
        {
          g_mutex_unlock (&lock);
          return NULL;
        }
      action = signum == SIGINT ? int_action : hup_action;
      if (target == NULL && !watched && action == CT_SOLVER_ACTION_STOP)
        {
          g_mutex_unlock (&lock);
          default_action (signum);
          continue;
        }
      if (target == NULL && !watched && action == CT_SOLVER_ACTION_SNAPSHOT)
        snapshot_asked = TRUE;
      if (target != NULL && action != CT_SOLVER_ACTION_NONE)
        ct_solver_request (target, action);
      g_mutex_unlock (&lock);
    }
}

gboolean
ct_cli_signals_start (CtSolverAction on_int, CtSolverAction on_hup)
{
  struct sigaction sa;
  sigset_t set;

  g_return_val_if_fail (!watching, FALSE);
  int_action = on_int;
  hup_action = on_hup;
  stopping = FALSE;
  watched = FALSE;
  snapshot_asked = FALSE;
  signal_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, &old_mask);
  /* An ignored signal never reaches sigwait, and a shell starts background
   * jobs with SIGINT ignored (nohup ignores SIGHUP): the effects hold
   * there too, as Caffe's handlers do. Blocked everywhere, the default
   * action never runs. */
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, &old_int);
  sigaction (SIGHUP, &sa, &old_hup);
  if (pthread_create (&watcher, NULL, watch, NULL) != 0)
    {
      sigaction (SIGINT, &old_int, NULL);
      sigaction (SIGHUP, &old_hup, NULL);
      pthread_sigmask (SIG_SETMASK, &old_mask, NULL);
      return FALSE;
    }
  watching = TRUE;
  return TRUE;
}

void
ct_cli_signals_watch (CtSolver *solver)
{
  g_mutex_lock (&lock);
  target = solver;
  watched = watched || solver != NULL;
  if (solver != NULL && snapshot_asked)
    ct_solver_request (solver, CT_SOLVER_ACTION_SNAPSHOT);
  snapshot_asked = FALSE;
  g_mutex_unlock (&lock);
}

void
ct_cli_signals_stop (void)
{
  if (!watching)
    return;
  g_mutex_lock (&lock);
  target = NULL;
  stopping = TRUE;
  g_mutex_unlock (&lock);
  /* wake the watcher: it sees STOPPING and ends */
  pthread_kill (watcher, SIGHUP);
  pthread_join (watcher, NULL);
  watching = FALSE;
  /* an ignored signal that is pending is dropped here */
  sigaction (SIGINT, &old_int, NULL);
  sigaction (SIGHUP, &old_hup, NULL);
  /* Once training began, the signals stay blocked: one that came while the
   * solver was freed, or comes now, must not kill a run that ended well
   * (the process exits soon, dropping it). Before, the mask is as it was. */
  if (!watched)
    {
      sigset_t set;
      struct timespec now = { 0, 0 };

      signal_set (&set);
      while (sigtimedwait (&set, NULL, &now) > 0)
        ;
      pthread_sigmask (SIG_SETMASK, &old_mask, NULL);
    }
}
