/* solver-private.h: CtSolver's insides, shared by engine/solver.c (the
 * training loop) and the files of engine/solvers/: the update rules (one
 * file each), the parameter checks, the nets, the update step, testing and
 * snapshots. */
#pragma once

#include "solver.h"
#include "status.h"

G_BEGIN_DECLS

/* An update rule. */
typedef struct {
  const char *name;        /* as Caffe's `type` spells it */
  guint n_history_sets;    /* history blobs per learnable parameter */
  /* Check the fields this rule reads; name the wrong one in FIELD_OUT.
   * May be NULL. */
  gboolean (*check) (const Caffe__SolverParameter *param, const char **field_out,
                     GError **error);
  /* Turn the regularised gradient DIFF (N floats, on the GPU when GPU) of
   * learnable LEARNABLE_ID into the step, with RATE the learning rate times
   * its lr_mult; the history is used on the same device. */
  gboolean (*compute_update) (CtSolver *solver, guint learnable_id, float rate,
                              float *diff, gint64 n, gboolean gpu, GError **error);
  /* The same on the CPU, from the gradient before its L2 weight decay
   * (DECAY times DATA, added first), then the step taken (DATA -= DIFF),
   * all in one pass over memory. May be NULL: compute_update, then
   * ct_blob_update. */
  gboolean (*compute_and_apply) (CtSolver *solver, guint learnable_id, float rate,
                                 float decay, float *diff, float *data, gint64 n,
                                 GError **error);
} CtSolverType;

extern const CtSolverType ct_solver_type_sgd;
extern const CtSolverType ct_solver_type_nesterov;
extern const CtSolverType ct_solver_type_adagrad;
extern const CtSolverType ct_solver_type_rmsprop;
extern const CtSolverType ct_solver_type_adadelta;
extern const CtSolverType ct_solver_type_adam;

typedef struct {
  guint id;
  CtSolverObserverFuncs funcs;
  gpointer user_data;
  GDestroyNotify destroy;
} CtSolverObserver;

typedef struct {
  CtSolverLogLevel level;
  char *file;
  int line;
  char *message;
} CtSolverLogLine;

struct _CtSolver {
  Caffe__SolverParameter *param;  /* owned copy */
  char *source_path;              /* the solver file, or NULL */
  const CtSolverType *type;

  CtNet *net;
  GPtrArray *test_nets;           /* CtNet*, owned */

  int iter;
  int current_step;
  GPtrArray *history;             /* CtBlob*, owned: n_history_sets x learnables */

  /* average_loss smoothing, as Caffe keeps it across Step and Solve */
  GArray *losses;                 /* float */
  float smoothed_loss;

  /* speed */
  GTimer *display_timer;
  int display_last_iter;
  double seconds_per_iter;        /* moving average, 0 until measured */

  gint request;                   /* CtSolverAction, atomic */
  gboolean stopped_early;
  gboolean stop_on_not_finite;    /* ct_solver_set_stop_on_not_finite */

  /* ct_solver_set_sync: the other solvers of a data-parallel run */
  CtSolverSyncFuncs sync;
  gpointer sync_data;
  gboolean not_root;              /* FALSE for a solver alone */

  GArray *observers;              /* CtSolverObserver */
  guint next_observer_id;
  gboolean built;                 /* ct_solver_new has finished */
  gboolean plan_memory;           /* ct_solver_new_with_memory_plan */
  GPtrArray *build_log;           /* CtSolverLogLine*: replayed to new observers */
};

/* Logging. Messages are Caffe's English log lines (not translated: scripts
 * read them); numbers go through ct_solver_format_number. */
void ct_solver_log (CtSolver *solver, CtSolverLogLevel level, const char *file, int line,
                    const char *format, ...) G_GNUC_PRINTF (5, 6);
#define CT_SOLVER_LOG(solver, ...) \
  ct_solver_log ((solver), CT_SOLVER_LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define CT_SOLVER_WARN(solver, ...) \
  ct_solver_log ((solver), CT_SOLVER_LOG_WARNING, __FILE__, __LINE__, __VA_ARGS__)

/* VALUE as C++'s ostream prints a float (6 significant digits, %g), in
 * any locale. BUF holds G_ASCII_DTOSTR_BUF_SIZE bytes; returns BUF. */
const char *ct_solver_format_number (char *buf, double value);

/* Observers. */
gboolean ct_solver_feed (CtSolver *solver, CtNet *net, int test_net_id, int pass,
                         GError **error);
void ct_solver_notify_iteration (CtSolver *solver, const CtSolverIteration *info);
void ct_solver_notify_test_started (CtSolver *solver, guint test_net_id);
void ct_solver_notify_test_done (CtSolver *solver, const CtSolverTestResult *result);
void ct_solver_notify_snapshot (CtSolver *solver, const char *model_path,
                                const char *state_path);

/* Take the pending request (and clear it). */
CtSolverAction ct_solver_take_request (CtSolver *solver);

/* solver-param.c: the checks of the whole SolverParameter, and errors that
 * name the solver file, the field's line and the field. */
gboolean ct_solver_check_param (CtSolver *solver, GError **error);
gboolean ct_solver_param_fail (const CtSolver *solver, const char *field, GError **error,
                               const char *format, ...) G_GNUC_PRINTF (4, 5);
const CtSolverType *ct_solver_type_lookup (const char *name);

/* solver-nets.c: the train and test nets, and weight sharing. */
gboolean ct_solver_build_nets (CtSolver *solver, GError **error);
gboolean ct_solver_share_trained_layers (CtNet *target, CtNet *source, GError **error);

/* apply-update.c: clip, normalise, regularise, compute the steps and
 * apply them, with learning rate RATE. */
gboolean ct_solver_apply_update (CtSolver *solver, float rate, GError **error);

/* solver-test.c: every test net in turn, within a step or solve (the
 * public ct_solver_test_all first forgets an earlier stop request). */
gboolean ct_solver_test_nets (CtSolver *solver, GError **error);

/* solver-snapshot.c: before training, whether snapshots can be written. */
gboolean ct_solver_check_snapshot_prefix (CtSolver *solver, GError **error);

/* The history blob of set SET (0 or 1) for learnable LEARNABLE_ID. */
CtBlob *ct_solver_history_blob (CtSolver *solver, guint set, guint learnable_id);
/* Its values, writable, on the GPU when GPU (NULL with ERROR set). */
float *ct_solver_history_on (CtSolver *solver, guint set, guint learnable_id, gboolean gpu,
                             GError **error);

/* STATUS of an update kernel as an error ("Updating the parameters: ..."). */
gboolean ct_solver_check_update (CtStatus status, GError **error);

G_END_DECLS
