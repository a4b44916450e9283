/* runner-private.h: what the runner's files share: the snapshot's layout
 * (filled by the worker), the commands queued to the worker, and the
 * worker's own state, which only the worker thread touches. */
#pragma once

#include <glib.h>

#include "mailbox.h"
#include "net.h"
#include "runner.h"

G_BEGIN_DECLS

struct _CtRunSnapshot {
  guint64 serial;
  CtRunPass pass;
  int next_layer;
  GArray *stepped;         /* int */
  gboolean invalidated;
  char **reinitialised;
  float loss;
  GError *error;
  double compute_us;
  double overhead_us;
  guint64 steps_done;      /* step commands finished or dropped when posted */
  int epoch;               /* the runner's epoch when its command was queued */
  GPtrArray *layers;       /* CtRunLayer* */
  GPtrArray *blobs;        /* CtRunBlob* */
  GHashTable *blob_index;  /* name -> index + 1, over BLOBS */
  Caffe__Phase phase;      /* of the net the layers are from */
};

/* An empty snapshot (no layers, no blobs), to fill before it is shared. */
CtRunSnapshot *ct_run_snapshot_new (void);
CtRunLayer *ct_run_layer_new (void);
CtRunBlob *ct_run_blob_new (void);
/* Where a runner's big copies get their buffers (run-snapshot.c): those
 * of copies let go of, kept for the next copies of their size. Copies may
 * be let go of in any thread. */
typedef struct _CtRunSpares CtRunSpares;

CtRunSpares *ct_run_spares_new (void);
/* Frees the buffers kept. */
void ct_run_spares_clear (CtRunSpares *spares);
/* Frees the buffers kept and keeps none from now on (copies still held
 * free theirs when let go); drops the caller's reference. */
void ct_run_spares_close (CtRunSpares *spares);
/* Makes buffers of SIZE bytes (big ones only), their pages mapped, until
 * N are kept, as far as the bound on the bytes kept allows. */
void ct_run_spares_prefill (CtRunSpares *spares, gsize size, guint n);
/* How many buffers of SIZE bytes are kept. */
guint ct_run_spares_n_kept (CtRunSpares *spares, gsize size);

/* A copy of the COUNT floats at VALUES, in a buffer from SPARES when big
 * (SPARES may be NULL); with STATS, their statistics too (*STATS, new),
 * computed in the same pass over VALUES as the copy. */
GBytes *ct_run_copy_floats (CtRunSpares *spares, const float *values, gint64 count,
                            CtBlobStats **stats);
/* A version owning copies of DATA and DIFF (may be NULL), with their
 * statistics: DATA_STATS and DIFF_STATS when known (referenced), else
 * computed (a copy's first pass over its values reads them for the
 * statistics too). Big copies take their buffers from SPARES (may be
 * NULL). */
CtRunVersion *ct_run_version_new (CtRunSpares *spares, const char *label, int layer_index,
                                  const gint64 *dims, guint n_axes, const float *data,
                                  CtBlobStats *data_stats, const float *diff,
                                  CtBlobStats *diff_stats);
/* The same, with DATA_COPY and DIFF_COPY (may be NULL) copies of DATA and
 * DIFF already made (ct_run_copy_floats; referenced), taken instead of
 * new ones. */
CtRunVersion *ct_run_version_new_full (CtRunSpares *spares, const char *label, int layer_index,
                                       const gint64 *dims, guint n_axes, const float *data,
                                       GBytes *data_copy, CtBlobStats *data_stats,
                                       const float *diff, GBytes *diff_copy,
                                       CtBlobStats *diff_stats);
/* SOURCE's data with DIFF (copied, may be NULL) as its diff, and
 * DIFF_STATS as above. */
CtRunVersion *ct_run_version_with_diff (CtRunSpares *spares, CtRunVersion *source,
                                        const float *diff, CtBlobStats *diff_stats);
CtRunVersion *ct_run_version_with_diff_full (CtRunSpares *spares, CtRunVersion *source,
                                             const float *diff, GBytes *diff_copy,
                                             CtBlobStats *diff_stats);
gsize ct_run_version_bytes (const CtRunVersion *version);

typedef enum {
  CT_RUN_CMD_FORWARD,
  CT_RUN_CMD_BACKWARD,
  CT_RUN_CMD_RUN_PASS,
  CT_RUN_CMD_RESET,
  CT_RUN_CMD_STOP,
  CT_RUN_CMD_WATCH,
  CT_RUN_CMD_WATCH_PARAMS,
  CT_RUN_CMD_INPUT,
  CT_RUN_CMD_BUDGET,
  CT_RUN_CMD_REBUILD,
  CT_RUN_CMD_CONFIG,
  CT_RUN_CMD_QUIT,
} CtRunCommandKind;

/* Values for an input blob; with ITEMS, for the first DIMS[0] samples of
 * a blob a data layer makes (ct_runner_set_items). */
typedef struct {
  gboolean items;
  guint n_axes;
  gint64 *dims;
  gint64 count;
  float *values;
} CtRunInput;

void ct_run_input_free (CtRunInput *input);

typedef struct {
  CtRunCommandKind kind;
  int epoch;                    /* the runner's epoch when queued */
  GBytes *param;                /* REBUILD, CONFIG: the net, packed */
  CtRunConfig config;           /* CONFIG; WEIGHTS points into WEIGHTS_COPY */
  char *weights_copy;
  char **names;                 /* WATCH, WATCH_PARAMS */
  gboolean quiet;               /* WATCH, WATCH_PARAMS: no snapshot of its own */
  char *name;                   /* INPUT */
  CtRunInput *input;            /* INPUT */
  gsize budget;                 /* BUDGET */
} CtRunCommand;

void ct_run_command_free (CtRunCommand *command);

/* What the worker tracks of each net blob in the current pass. */
typedef struct {
  gboolean has_data, has_diff;
  gboolean data_dirty, diff_dirty;   /* written since the statistics */
  CtBlobStats *data_stats, *diff_stats;
  gboolean watched;
  /* The layers that wrote the blob in this pass, in order: version i is
   * the blob as layer writers[i]'s top. */
  GArray *writers;                   /* int */
  /* Kept versions (watched blobs), by version number; NULL: not kept. */
  GPtrArray *versions;
  /* The version the live diff is the gradient of (writers->len - 1 until
   * an in-place layer's backward has run). */
  int diff_version;
  gboolean history_cut;
  GPtrArray *shown;                  /* the versions last handed over, or NULL: stale */
  /* The current version as last handed over, while the blob's data is
   * still what it holds (dropped when a layer writes the blob): a new
   * diff then shares its data instead of copying it again. */
  CtRunVersion *current;
} CtRunBlobTrack;

typedef struct _CtRunParamData CtRunParamData;

typedef struct {
  CtMailbox *mailbox;
  GAsyncQueue *queue;
  const int *epoch;                  /* the runner's, read atomically */
  const int *pace_ms;                /* the runner's, read atomically */

  GBytes *param;                     /* the net, packed (a private copy) */
  CtRunConfig config;
  char *weights;
  CtNet *net;
  CtNet *old_net;                    /* weights to keep for the next build */
  gboolean invalidated;
  char **reinitialised;

  CtRunPass pass;
  int next_layer;
  GArray *layer_state;               /* CtRunLayerState */
  GArray *cleared;                   /* gboolean per learnable: diff zeroed in this backward pass */
  CtRunBlobTrack *blobs;             /* one per net blob */
  guint n_blobs;
  float pass_loss, loss;

  GHashTable *watch;                 /* name set */
  GHashTable *watch_params;          /* layer name set */
  GPtrArray *params;                 /* per layer: its CtRunParam* (a GPtrArray), or NULL: stale */
  GPtrArray *param_data;             /* per layer: CtRunParamData*, its data's statistics, or NULL */
  GHashTable *inputs;                /* name -> CtRunInput* */
  CtRunSpares *spares;               /* the buffers of the copies let go of */
  gsize budget, history_bytes;

  GArray *stepped;                   /* int */
  GError *error;
  guint64 serial;
  guint64 steps_done;                /* step commands finished or dropped */
  int command_epoch;                 /* of the command being handled */
  double compute_us;                 /* in layers since the last snapshot */
  gint64 mark_us;                    /* when the last snapshot was posted */
} CtRunWorker;

gpointer ct_run_worker_main (gpointer data);

/* runner-history.c: the observers that track blobs and keep versions. */
void ct_run_history_attach (CtRunWorker *worker);
void ct_run_history_clear_pass (CtRunWorker *worker);
void ct_run_history_begin_backward (CtRunWorker *worker);
void ct_run_history_drop_unwatched (CtRunWorker *worker);
/* Spare buffers ahead for the copies a pass makes of the watched blobs. */
void ct_run_history_prefill (CtRunWorker *worker);
void ct_run_history_free_tracks (CtRunWorker *worker);
/* runner-params.c: the layers' parameters as snapshots show them. */
void ct_run_params_attach (CtRunWorker *worker);
void ct_run_params_free (CtRunWorker *worker);
void ct_run_params_stale_all (CtRunWorker *worker);
/* LAYER_INDEX's backward wrote its parameter diffs (and those of the
 * layers that share them). */
void ct_run_params_after_backward (CtRunWorker *worker, guint layer_index);
/* The parameters of NET's layer LAYER_INDEX as snapshots show them
 * (CtRunParam*): statistics of their data, and of their diffs
 * WITH_DIFF; full copies with COPY. */
GPtrArray *ct_run_params_build (CtNet *net, guint layer_index, gboolean with_diff,
                                gboolean copy);
/* LAYER_INDEX's parameters now (a new reference). */
GPtrArray *ct_run_params_get (CtRunWorker *worker, guint layer_index);

/* A new snapshot of where the worker is (the worker's error is moved in). */
CtRunSnapshot *ct_run_history_snapshot (CtRunWorker *worker);

G_END_DECLS
