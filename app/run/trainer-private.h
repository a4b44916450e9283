/* trainer-private.h: what the trainer's files share: the commands queued
 * to the worker, and the worker's state, which only the worker thread
 * touches. */
#pragma once

#include <glib.h>

#include "mailbox.h"
#include "solver.h"
#include "trainer.h"

G_BEGIN_DECLS

typedef enum {
  CT_TRAIN_CMD_START,
  CT_TRAIN_CMD_PAUSE,
  CT_TRAIN_CMD_RESUME,
  CT_TRAIN_CMD_STOP,
  CT_TRAIN_CMD_RESTART,
  CT_TRAIN_CMD_SNAPSHOT,
  CT_TRAIN_CMD_EXPORT,
  CT_TRAIN_CMD_BREAKPOINT,
  CT_TRAIN_CMD_STEP_FORWARD,
  CT_TRAIN_CMD_STEP_BACKWARD,
  CT_TRAIN_CMD_WATCH,
  CT_TRAIN_CMD_RATIO_EVERY,
  CT_TRAIN_CMD_QUIT,
} CtTrainCommandKind;

typedef struct {
  CtTrainCommandKind kind;
  char *text;      /* EXPORT: the folder; BREAKPOINT, WATCH: the name (may be NULL) */
  guint every;     /* WATCH, RATIO_EVERY */
  Caffe__SolverParameter *param; /* RESTART: the settings to restart with, or NULL */
} CtTrainCommand;

void ct_train_command_free (CtTrainCommand *command);

/* An empty progress to fill before it is posted. */
CtTrainProgress *ct_train_progress_new (void);

typedef enum {
  CT_TRAIN_STEP_NONE,
  CT_TRAIN_STEP_FORWARD,
  CT_TRAIN_STEP_BACKWARD,
} CtTrainStepping;

typedef struct {
  CtMailbox *mailbox;
  GAsyncQueue *queue;

  Caffe__SolverParameter *param;     /* a private copy, random_seed set */
  char *source_path;
  char *resume;
  char *weights;
  guint ratio_every;
  gboolean use_gpu;
  int gpu_device;

  CtSolver *solver;
  CtTrainState state;
  gboolean quit;
  gboolean stop_after;               /* stop once the iteration paused inside ends */
  GQueue deferred;                   /* commands taken inside a pass, for after it */
  int current_step;                  /* the lr policy's, mirrored for export */

  char *breakpoint;
  int break_layer;                   /* -1: none */
  CtTrainStepping stepping;
  gboolean in_iteration;
  guint64 serial;

  char *watch_name;
  guint watch_every;
  /* What following costs: the worker's CPU time for the last copy, and
   * the training time since it (trainer-worker.c holds copies back to
   * keep the first a small share of the second). */
  gint64 watch_cost_us;
  gint64 watch_train_us;
  gboolean watch_held;               /* a copy was held back since the last */

  /* Layers with parameters, for the update ratios. */
  GPtrArray *ratio_layers;           /* char* */
  GArray *ratio_layer_index;         /* guint: net layer of each */

  /* Gathered for the next post. */
  GArray *points, *tests, *ratios;
  GPtrArray *test_names;             /* char*, cumulative */
  GPtrArray *files;                  /* char* */
  CtTrainProgress *watch;            /* carries the last watch copy */
  float loss, smoothed_loss, learning_rate;
  double iters_per_s;
  double elapsed_s;
  gint64 run_mark_us;                /* when RUNNING began, 0 when not running */
  gint64 posted_us;                  /* when the last progress was posted */
} CtTrainWorker;

gpointer ct_train_worker_main (gpointer data);

/* trainer-inspect.c: what the worker reads of the live net. */
/* The update ratios of W's layers after an update, into W->ratios; FALSE
 * when one is not finite. */
gboolean ct_train_inspect_ratios (CtTrainWorker *w, int iter);
/* The first layer with a non-finite value, as an error; NULL when every
 * value is finite. */
GError *ct_train_inspect_not_finite (CtNet *net);
/* A step-through snapshot of NET inside its pass, before LAYER's PASS. */
CtRunSnapshot *ct_train_inspect_snapshot (CtTrainWorker *w, CtNet *net, CtRunPass pass,
                                          int layer);
/* Copy the watched blob into W->watch, and note what that cost. */
void ct_train_inspect_watch (CtTrainWorker *w, CtNet *net, int iter);
/* Write the export files into FOLDER. */
gboolean ct_train_export (CtTrainWorker *w, const char *folder, GError **error);

G_END_DECLS
