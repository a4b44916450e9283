/* trainer.h: CtTrainer, a solver trained on a worker thread for the
 * window, with its progress handed over to the window's main context.
 * No GTK: tests drive it without a display.
 *
 * A separate object from CtRunner (and not a mode of it) because the two
 * own different things: the runner owns one net and moves a position
 * through it by single layers; the trainer owns a CtSolver (train and
 * test nets) and moves whole iterations. They share the step-through
 * snapshot (CtRunSnapshot), which the trainer builds at a breakpoint so
 * that the window's blob panel shows live training data as it shows a
 * step-through.
 *
 * Threads. ct_trainer_new() captures the caller's thread-default
 * GMainContext and starts one worker thread, which alone builds, owns and
 * runs the solver. Every ct_trainer_* call only queues a command
 * (GAsyncQueue) and returns at once. While training, the worker looks at
 * its queue between iterations (and, paused at a breakpoint, inside the
 * pass). After each iteration it posts a CtTrainProgress (at most every
 * 10 ms while only points are new); posts coalesce into the one not yet
 * taken by the main context (a single idle source is pending at any
 * time, so training never floods the main loop), and the point lists
 * (losses, tests, update ratios) are appended, not replaced: the window
 * gets every point even when hand-overs coalesce. An error is never
 * coalesced away.
 *
 * Pausing. ct_trainer_pause() pauses between iterations: the solver sits
 * at an iteration boundary (ct_solver_get_iter() updates done, nothing of
 * the next one begun). A breakpoint (ct_trainer_set_breakpoint) on a
 * layer pauses inside the pass of the train net: before that layer's
 * forward runs, the worker stops inside the engine's forward pass (in the
 * net observer, so the net's state is the live one: the batch read, the
 * layers below run) and hands over a progress whose SNAPSHOT is a
 * step-through snapshot at that position (pass FORWARD, next layer the
 * breakpoint). Then:
 *  - step forward lets that one layer run and stops again before the next
 *    one (past the last layer: before the first layer's backward);
 *  - step backward lets the net run on to the next layer's backward (the
 *    rest of forward first when in forward) and stops before it;
 *  - resume lets the pass finish: the iteration completes as it would
 *    have without the pause (its update applied, the iteration counted,
 *    its loss point handed over) and training goes on; the breakpoint
 *    fires again at the next iteration;
 *  - stop lets the pass finish without further pauses, applies that
 *    iteration's update (the engine cannot abandon an iteration half way
 *    without leaving the diffs half made) and stops after it.
 * The iteration paused inside is not counted until it completes. Test
 * nets never stop at a breakpoint.
 *
 * Non-finite values. After each iteration, when the loss or an update
 * ratio is not finite, the train net is searched in forward order for the
 * first layer whose top's data is NaN or infinite, then in backward order
 * for the first whose bottom's diff is; training stops with the engine's
 * CT_ENGINE_ERROR_NOT_FINITE naming the layer, the blob and data or diff,
 * with the layer and blob as data (ct_error_get_layer, error-place.h); a
 * loss that is not finite while every blob is gives
 * CT_TRAIN_ERROR_NOT_FINITE.
 *
 * Restart builds the solver anew from the same parameter, seed (a
 * parameter without random_seed gets one drawn once, at ct_trainer_new),
 * weights or solverstate: it repeats the run bit for bit.
 * ct_trainer_restart_with() does the same with other settings (a class
 * changes base_lr and compares): the solver is built from the new
 * parameter with the first run's seed (unless the new one names its own),
 * weights or solverstate, so the initial weights and the data order are
 * the first run's and only the changed settings differ. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "runner.h"

G_BEGIN_DECLS

#define CT_TRAIN_ERROR (ct_train_error_quark ())
GQuark ct_train_error_quark (void);

typedef enum {
  CT_TRAIN_ERROR_NOT_FINITE, /* a value went NaN or infinite */
  CT_TRAIN_ERROR_NO_LAYER,   /* a breakpoint names a layer the train net lacks */
  CT_TRAIN_ERROR_NO_BLOB,    /* a watch names a blob the train net lacks */
} CtTrainError;

typedef enum {
  CT_TRAIN_STATE_IDLE,      /* not started, or restarted and not yet running */
  CT_TRAIN_STATE_RUNNING,
  CT_TRAIN_STATE_PAUSED,    /* between iterations */
  CT_TRAIN_STATE_BREAK,     /* inside a pass, at a breakpoint or step */
  CT_TRAIN_STATE_FINISHED,  /* max_iter reached */
  CT_TRAIN_STATE_STOPPED,   /* stopped by ct_trainer_stop or an error */
} CtTrainState;

/* How training starts, besides the solver. */
typedef struct {
  /* A .solverstate to resume from (its caffemodel with it), or NULL. */
  const char *resume;
  /* Comma-separated caffemodels to start from (after the solver's own
   * `weights`), or NULL. Ignored with RESUME. */
  const char *weights;
  /* Update ratios every this many iterations; 0: none. */
  guint ratio_every;
  /* Train on the GPU (CUDA device GPU_DEVICE), nets, update and history. */
  gboolean use_gpu;
  int gpu_device;
} CtTrainConfig;

/* One training iteration. */
typedef struct {
  int iter;              /* counted from 0, as Caffe logs it */
  float loss;            /* raw */
  float smoothed_loss;   /* over average_loss iterations */
  float learning_rate;
} CtTrainPoint;

/* One output of a test. */
typedef struct {
  int iter;
  guint test_net_id;
  guint output;          /* index into CtTrainProgress.test_names */
  float value;
} CtTrainTestPoint;

/* The update ratio of a layer: lr·‖Δw‖/‖w‖ over its parameter blobs, the
 * step the solver applied (the learning rate included) against the
 * weights after the update. */
typedef struct {
  int iter;
  guint layer;           /* index into CtTrainProgress.ratio_layers */
  double ratio;
} CtTrainRatio;

/* What the worker hands over. Immutable, atomically reference counted;
 * read its fields. */
typedef struct {
  CtTrainState state;
  int iter;                /* completed iterations */
  int max_iter;
  double iters_per_s;      /* recent speed */
  double elapsed_s;        /* training time since start (pauses left out) */
  double eta_s;            /* to max_iter at the recent speed; < 0: unknown */
  float loss, smoothed_loss, learning_rate; /* of the last iteration */

  /* Since the previous hand-over, oldest first. */
  GArray *points;          /* CtTrainPoint */
  GArray *tests;           /* CtTrainTestPoint */
  GArray *ratios;          /* CtTrainRatio */
  /* Names: "accuracy", "loss" of the test outputs (NULL-terminated; a
   * name per test net output in order of appearance), and the layers
   * with parameters. */
  char **test_names;
  char **ratio_layers;

  /* The followed blob, as of WATCH_ITER: only in the hand-over that
   * brings a new copy (keep it to show it); else NULL. */
  char *watch_name;
  int watch_iter;
  guint watch_n_axes;
  gint64 *watch_dims;
  GBytes *watch_data;      /* floats */
  CtBlobStats *watch_stats;

  /* At a breakpoint: the step-through view of the live pass; else NULL. */
  CtRunSnapshot *snapshot;
  /* Files written since the previous hand-over (snapshot now, export,
   * snapshots by `snapshot`), NULL-terminated or NULL. */
  char **files;
  /* Why training stopped, or why a command failed; else NULL. */
  GError *error;
} CtTrainProgress;

CtTrainProgress *ct_train_progress_ref (CtTrainProgress *progress);
void ct_train_progress_unref (CtTrainProgress *progress);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtTrainProgress, ct_train_progress_unref)

typedef struct _CtTrainer CtTrainer;

/* Called in the trainer's main context (borrowed: ref it to keep it). */
typedef void (*CtTrainProgressFunc) (CtTrainer *trainer, CtTrainProgress *progress,
                                     gpointer user_data);

/* A trainer of PARAM (copied). SOURCE_PATH (may be NULL) is the solver
 * file it came from, for relative net paths and error messages. Nothing
 * is built before ct_trainer_start (its errors come as a progress). */
CtTrainer *ct_trainer_new (const Caffe__SolverParameter *param, const char *source_path,
                           const CtTrainConfig *config, CtTrainProgressFunc func,
                           gpointer user_data);
/* Stops the worker (letting a pass paused inside finish) and drops what
 * was not handed over. */
void ct_trainer_free (CtTrainer *trainer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtTrainer, ct_trainer_free)

/* Build the solver (the first time) and train up to max_iter. */
void ct_trainer_start (CtTrainer *trainer);
void ct_trainer_pause (CtTrainer *trainer);
/* Go on from a pause or a breakpoint. */
void ct_trainer_resume (CtTrainer *trainer);
void ct_trainer_stop (CtTrainer *trainer);
/* Build the solver anew as it was first built and train from there. */
void ct_trainer_restart (CtTrainer *trainer);
/* The same with PARAM (copied) in place of the trainer's parameter; a
 * PARAM without random_seed keeps the trainer's seed. */
void ct_trainer_restart_with (CtTrainer *trainer, const Caffe__SolverParameter *param);
/* Write the solver's snapshot (caffemodel and solverstate, at
 * snapshot_prefix) after the current iteration. */
void ct_trainer_snapshot_now (CtTrainer *trainer);
/* Write NAME.prototxt (the train net), NAME_iter_N.caffemodel and
 * NAME_iter_N.solverstate (naming that caffemodel) into FOLDER (created
 * when missing), after the current iteration; NAME is the net's name. */
void ct_trainer_export (CtTrainer *trainer, const char *folder);

/* Pause before LAYER's forward (NULL: no breakpoint). */
void ct_trainer_set_breakpoint (CtTrainer *trainer, const char *layer);
/* At a breakpoint: see the top of this file. */
void ct_trainer_step_forward (CtTrainer *trainer);
void ct_trainer_step_backward (CtTrainer *trainer);

/* Update ratios every EVERY iterations from now on (0: none). */
void ct_trainer_set_ratio_every (CtTrainer *trainer, guint every);
/* Copy blob NAME of the train net into the progress every EVERY
 * iterations (NULL: none). A copy of a large blob that would cost
 * training more than 2% of its time waits for a later multiple of EVERY
 * (watch_iter says which iteration a copy is of), or until training
 * pauses, stops or finishes. */
void ct_trainer_watch (CtTrainer *trainer, const char *name, guint every);

G_END_DECLS
