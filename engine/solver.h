/* solver.h: CtSolver, which trains a net as Caffe's solvers do.
 *
 * A solver is made from a SolverParameter: the train net (net, net_param,
 * train_net or train_net_param, built in phase TRAIN with train_state), the
 * test nets (test_net, test_net_param, or more copies of the generic net in
 * phase TEST, one per test_iter entry, each with its test_state), the update
 * rule by `type` (SGD, Nesterov, AdaGrad, RMSProp, AdaDelta, Adam), the
 * learning-rate policy, weight decay (L2 or L1, times each parameter's
 * decay_mult), lr_mult, clip_gradients, iter_size and average_loss.
 *
 * One iteration: clear the parameter diffs; test when test_interval says so;
 * run iter_size forward/backward passes (diffs accumulate); clip, scale by
 * 1/iter_size, regularise and turn each diff into a step with the update
 * rule; data -= step; iter += 1; snapshot when `snapshot` says so or when
 * asked. Test nets share the train net's parameters (Caffe's
 * ShareTrainedLayersWith), so testing costs no copy.
 *
 * Progress is reported to observers (the workbench's dashboard and
 * cortado-cli's log both listen) from the thread that runs the solver. A
 * stop or snapshot request can be made from any thread or from a signal
 * handler; it is acted on between iterations (and between test batches).
 *
 * With a random_seed (>= 0), everything that draws random numbers is seeded
 * from it, so a run repeats bit for bit; resuming from a snapshot taken at
 * iteration k reaches the same weights as the uninterrupted run, as long as
 * the data layers read the same batches (the solverstate, as Caffe's, does
 * not hold a data layer's read position or a layer's random state). */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "net.h"
#include "snapshot.h"

G_BEGIN_DECLS

typedef struct _CtSolver CtSolver;

#define CT_SOLVER_ERROR (ct_solver_error_quark ())
GQuark ct_solver_error_quark (void);

typedef enum {
  CT_SOLVER_ERROR_PARAM,     /* a SolverParameter field is wrong or missing */
  CT_SOLVER_ERROR_NET,       /* a net file cannot be read, or a net cannot be built */
  CT_SOLVER_ERROR_STATE,     /* a solverstate that does not fit the net */
  CT_SOLVER_ERROR_SNAPSHOT,  /* a snapshot could not be written */
} CtSolverError;

/* Read a solver prototxt: parse it (strictly), upgrade a legacy
 * `solver_type`, and give snapshot_prefix Caffe's default (the file's path
 * without its extension; a prefix naming a folder gets the file's name
 * appended). Errors name PATH:LINE:COLUMN and the field. */
Caffe__SolverParameter *ct_solver_param_load_file (const char *path, GError **error);

/* The checks of a solver's numbers that need no net (every float finite),
 * as ct_solver_new makes them; errors name SOURCE_PATH:LINE:COLUMN. */
gboolean ct_solver_param_check_numbers (const Caffe__SolverParameter *param,
                                        const char *source_path, GError **error);

/* Whether a NaN or an infinity stops training with an error naming the
 * first layer that made one (ct_net_check_finite), instead of training on
 * (as Caffe does, and ct_solver_new's default). Checked after each
 * forward and backward pass (the loss), and over the whole net before each
 * snapshot (the last one included), so that no snapshot holds them. */
void ct_solver_set_stop_on_not_finite (CtSolver *solver, gboolean stop);

/* Build a solver from PARAM (copied). SOURCE_PATH (may be NULL) is the
 * solver file PARAM came from: errors name it (with the line of the field
 * when it can be found), and relative net paths that do not exist from the
 * working directory are also tried from its folder. Weights listed in
 * PARAM's `weights` are loaded (comma-separated lists too). */
CtSolver *ct_solver_new (const Caffe__SolverParameter *param, const char *source_path,
                         GError **error);
/* The same; with PLAN_MEMORY the train net is built with
 * CT_NET_MEMORY_TRAINING and the test nets with CT_NET_MEMORY_FORWARD (see
 * net.h): what the nets' blobs hold between passes is then only their
 * inputs, outputs and losses. `cortado-cli train` plans; a caller that
 * reads other blobs after a pass does not. */
CtSolver *ct_solver_new_with_memory_plan (const Caffe__SolverParameter *param,
                                          const char *source_path, gboolean plan_memory,
                                          GError **error);
void ct_solver_free (CtSolver *solver);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtSolver, ct_solver_free)

/* The parameter the solver runs with (defaults applied, upgraded). */
const Caffe__SolverParameter *ct_solver_get_param (const CtSolver *solver);
/* The solver type's name as Caffe spells it ("SGD", "Adam", ...). */
const char *ct_solver_get_type_name (const CtSolver *solver);

CtNet *ct_solver_get_net (const CtSolver *solver);
guint ct_solver_n_test_nets (const CtSolver *solver);
CtNet *ct_solver_get_test_net (const CtSolver *solver, guint test_net_id);

/* Completed iterations (the number of updates made). */
int ct_solver_get_iter (const CtSolver *solver);
/* The learning rate the next update will use (advances nothing). */
float ct_solver_get_learning_rate (const CtSolver *solver);
/* The history blobs (CtBlob*, borrowed): one per learnable parameter, two
 * for AdaDelta and Adam (the second set after the first), as Caffe stores
 * them in a solverstate. */
GPtrArray *ct_solver_get_history (const CtSolver *solver);

/* The device the solver trains on, as Caffe's Caffe::set_mode before
 * Solve: the train net and every test net run there (ct_net_set_use_gpu,
 * whose errors these are), and so do the regularisation, the gradient
 * clipping and the update rule, with the solver's history kept on the same
 * device. May be changed between iterations; snapshots and restores work
 * from either device. On failure every net stays on the CPU. */
gboolean ct_solver_set_use_gpu (CtSolver *solver, gboolean use_gpu, GError **error);
gboolean ct_solver_get_use_gpu (const CtSolver *solver);

/* Load trained weights into the train net (and the test nets) from a
 * comma-separated list of caffemodels (.h5 for HDF5 ones). */
gboolean ct_solver_load_weights (CtSolver *solver, const char *list, GError **error);

/* Train from the current iteration up to max_iter (Caffe's Solve): resume
 * from RESUME_FILE first when not NULL; snapshot after training when
 * snapshot_after_train says so; test once more at the end when the last
 * iteration is a test iteration. A stop request ends it early (with the
 * snapshot after training); that is not an error. */
gboolean ct_solver_solve (CtSolver *solver, const char *resume_file, GError **error);
/* Run ITERS iterations (fewer when stopped). */
gboolean ct_solver_step (CtSolver *solver, int iters, GError **error);
/* Run every test net (or one) for its test_iter batches. */
gboolean ct_solver_test_all (CtSolver *solver, GError **error);
gboolean ct_solver_test (CtSolver *solver, guint test_net_id, GError **error);

/* Write PREFIX_iter_N.caffemodel and .solverstate (or their .h5 forms). */
gboolean ct_solver_snapshot (CtSolver *solver, GError **error);
/* Load a solverstate written by Cortado or Caffe (HDF5 when it ends in
 * ".h5"): iteration, current step, history, and the weights of the
 * caffemodel it names (found as written, or beside the solverstate). */
gboolean ct_solver_restore (CtSolver *solver, const char *state_file, GError **error);

/* Whether the last solve or step ended because a stop was requested. */
gboolean ct_solver_stopped_early (const CtSolver *solver);

/* Requests, acted on between iterations. ct_solver_request is
 * async-signal-safe (one atomic store) and may be called from any thread;
 * a later request replaces an earlier one not yet acted on. */
typedef enum {
  CT_SOLVER_ACTION_NONE,
  CT_SOLVER_ACTION_STOP,
  CT_SOLVER_ACTION_SNAPSHOT,
} CtSolverAction;

void ct_solver_request (CtSolver *solver, CtSolverAction action);

/* ---- observers ---- */

/* After each update. */
typedef struct {
  int iter;              /* the iteration just done, counted from 0 (Caffe's log number) */
  float loss;            /* this iteration's loss (mean over iter_size passes) */
  float smoothed_loss;   /* mean over the last average_loss iterations */
  float learning_rate;   /* the rate this update used */
  double iters_per_s;    /* recent speed, tests and snapshots left out */
  gboolean display;      /* whether `display` makes this a logged iteration */
  /* At display iterations, Caffe's "(X iter/s, Ys/N iters)" figures: speed
   * and seconds since the previous display, tests included. */
  double display_iters_per_s;
  double display_seconds;
} CtSolverIteration;

/* One score of a test: an element of a test net's output blob, averaged
 * over the test_iter batches. */
typedef struct {
  const char *name;      /* the output blob */
  float value;
  float loss_weight;     /* 0 for non-loss outputs */
} CtSolverScore;

typedef struct {
  int iter;
  guint test_net_id;
  guint n_scores;
  const CtSolverScore *scores;
  gboolean has_loss;     /* test_compute_loss */
  float loss;
} CtSolverTestResult;

typedef enum {
  CT_SOLVER_LOG_INFO,
  CT_SOLVER_LOG_WARNING,
} CtSolverLogLevel;

typedef struct {
  /* A log line in Caffe's words, such as "Iteration 100, lr = 0.00992565"
   * or "    Test net output #0: accuracy = 0.8185" (scripts parse them, so
   * they are not translated). FILE and LINE say where it was made. */
  void (*log) (CtSolver *solver, CtSolverLogLevel level, const char *file, int line,
               const char *message, gpointer user_data);
  void (*iteration) (CtSolver *solver, const CtSolverIteration *info, gpointer user_data);
  void (*test_started) (CtSolver *solver, int iter, guint test_net_id, gpointer user_data);
  void (*test_done) (CtSolver *solver, const CtSolverTestResult *result, gpointer user_data);
  /* After a snapshot has been written; STATE_PATH is the solverstate. */
  void (*snapshot) (CtSolver *solver, int iter, const char *model_path,
                    const char *state_path, gpointer user_data);
  /* Before each forward pass of NET (the train net, or a test net:
   * TEST_NET_ID is -1 for the train net): fill input blobs here, as Caffe's
   * MemoryData is fed. ITER is the solver's iteration (for test nets, the
   * iteration tested), PASS counts the iter_size passes or the test
   * batches from 0. Return FALSE with ERROR set to stop with an error. */
  gboolean (*feed) (CtSolver *solver, CtNet *net, int test_net_id, int iter, int pass,
                    gpointer user_data, GError **error);
} CtSolverObserverFuncs;

/* FUNCS is copied; any member may be NULL. Returns an id (never 0). DESTROY
 * (may be NULL) frees USER_DATA when the observer is removed or the solver
 * freed. Observers run on the solver's thread. */
guint ct_solver_add_observer (CtSolver *solver, const CtSolverObserverFuncs *funcs,
                              gpointer user_data, GDestroyNotify destroy);
void ct_solver_remove_observer (CtSolver *solver, guint observer_id);

/* ---- training together with other solvers ----
 *
 * Data-parallel training (engine/parallel) runs one solver per process or
 * GPU, each on its share of the data (data-shard.h). The solvers meet
 * twice an iteration through these functions, as Caffe's solver callbacks:
 * GRADIENTS_READY after the forward/backward passes and before the update
 * (it leaves in every parameter diff the mean over the solvers), and
 * AGREE between iterations (it turns each solver's pending request into
 * the action every solver takes, so that all stop or snapshot together).
 * Only the root solver tests, logs its INFO lines, and writes snapshots;
 * the others skip them (warnings are still logged). */
typedef struct {
  gboolean (*gradients_ready) (CtSolver *solver, gpointer user_data, GError **error);
  gboolean (*agree) (CtSolver *solver, CtSolverAction *action, gpointer user_data,
                     GError **error);
} CtSolverSyncFuncs;

/* FUNCS is copied (members may be NULL); USER_DATA is borrowed. Set it
 * before adding observers and before training. */
void ct_solver_set_sync (CtSolver *solver, const CtSolverSyncFuncs *funcs, gpointer user_data,
                         gboolean root);
gboolean ct_solver_is_root (const CtSolver *solver);

G_END_DECLS
