/* runner.h: CtRunner, a net stepped through on a worker thread, and
 * CtRunSnapshot, the immutable copy of what the window shows that the
 * worker hands over after each step. No GTK: tests drive it without a
 * display, and the window only ever reads snapshots, never the net.
 *
 * Threads. ct_runner_new() captures the thread-default GMainContext of the
 * caller (the window's) and starts one worker thread, which alone builds,
 * owns and runs the CtNet. Every ct_runner_* call only queues a command
 * (GAsyncQueue) and returns at once; the worker takes them in order. After
 * each command that changes what is shown, it builds a snapshot and hands
 * it to the caller's context through an idle source, where the
 * CtRunSnapshotFunc runs. Hand-overs coalesce: when the main loop has not
 * yet taken the previous snapshot, the new one replaces it (a fast worker
 * cannot flood the main loop); an error is never coalesced away (the
 * replacing snapshot carries it), nor are the layers it says were run
 * (unless the replacing snapshot is of a rebuilt net: those layers were
 * another net's).
 * ct_runner_stop(), ct_runner_rebuild() and ct_runner_free() drop the
 * steps still queued and interrupt a running pass after its current
 * layer.
 *
 * Positions. A run goes forward through layers 0 .. n-1, then backward
 * through n-1 .. 0 (Caffe's order, Split layers included). The position is
 * the pass and the next layer that pass runs:
 *   NONE                 before the first step (or after an edit): the
 *                        first step builds the net ("initialises the run");
 *   FORWARD,  next 0..n  layers below NEXT are done; NEXT == n: forward done;
 *   BACKWARD, next n-1..-1  layers above NEXT are done; -1: backward done.
 * - Forward one layer runs layer NEXT. When the forward pass is complete,
 *   or a backward pass has begun, it starts a new forward pass at layer 0
 *   (the next iteration: data layers read their next batch).
 * - Backward one layer runs backward from NEXT down to the next layer that
 *   needs backward (layers that need none compute nothing and are passed in
 *   the same step; when none below computes, the step ends the pass).
 *   Before the forward pass is complete, it first runs the rest of forward
 *   (gradients need the whole forward pass). Once the
 *   backward pass is complete it is refused (CT_RUN_ERROR_PASS_COMPLETE):
 *   step forward to start a new pass. Parameter diffs start each backward
 *   pass from zero (each is cleared just before the first layer using it
 *   runs backward), so a step-through gives exactly what one
 *   ct_net_forward + ct_net_backward of a fresh net gives.
 * - Run the rest finishes the current pass; at a complete forward pass it
 *   runs the whole backward pass; at a complete backward pass, a whole new
 *   forward pass.
 * - Reset goes back to FORWARD, next 0, keeping the net and its weights.
 *
 * In-place history. A watched blob that in-place layers overwrite (conv1,
 * then ReLU relu1 in place) keeps its versions: before an in-place layer
 * runs forward, the worker copies the blob ("conv1 after conv1"), and the
 * snapshot's entry lists every version of the pass, the current one last
 * ("after relu1"). In backward each version gets the gradient with respect
 * to it: the diff copied before the in-place layer's backward belongs to
 * that layer's output. The copies of past versions are bounded by the
 * history budget (ct_runner_set_history_budget, CT_RUN_HISTORY_BUDGET =
 * 256 MiB by default; a past version counts its data, and its diff once
 * backward froze it): a version that would go past it is not kept, and
 * the blob's entry says its history was cut. The current versions of the
 * watched blobs are not counted: they are what the window shows.
 *
 * Errors. Nothing a user gives aborts: a net that does not build, a
 * caffemodel missing or not matching, a layer failing come back as the
 * snapshot's error (the engine's or the proto's domain, or CT_RUN_ERROR),
 * naming the layer; a layer's failure carries it as data too
 * (ct_error_get_layer, error-place.h). The position stays where it was.
 *
 * Copies. Every blob's shape and statistics (of its data once computed in
 * this pass, of its diff once backward filled it) are in every snapshot;
 * full float copies only of the blobs watched (ct_runner_watch), so that
 * what is copied stays bounded by what is shown. Likewise every layer's
 * parameter blobs have statistics of their data, and full copies and the
 * gradients' statistics only for the layers watched with
 * ct_runner_watch_params. Statistics are recomputed only for
 * blobs a step wrote (once for blobs sharing memory, such as a Split's
 * tops); unchanged ones, and unchanged copies, are shared between
 * snapshots. The runner never changes weights, so the statistics (and
 * copies) of the parameters' data are computed once per built net; a
 * version kept before an in-place layer, or given a new diff, shares the
 * data copy last handed over; big copies reuse the buffers of copies the
 * window let go of, and those of a pass's first copies are made (their
 * pages mapped) when the run is built or a blob watched, at most 256 MiB;
 * a watched blob written by a step is copied in the same pass over its
 * values as its statistics' first. A step's cost beyond its layers is
 * then the statistics of what it wrote (and copies where watched):
 * tests/bench/bench-step measures it. */
#pragma once

#include <glib.h>

#include "blob-stats.h"
#include "caffe.pb-c.h"

G_BEGIN_DECLS

#define CT_RUN_ERROR (ct_run_error_quark ())
GQuark ct_run_error_quark (void);

typedef enum {
  CT_RUN_ERROR_PASS_COMPLETE, /* a backward step after the backward pass is complete */
  CT_RUN_ERROR_NO_BLOB,       /* set_input names a blob the net does not have */
  CT_RUN_ERROR_ITEM_SIZE,     /* chosen images do not fit the samples of the input */
} CtRunError;

/* The default bound on the bytes kept for past versions of watched blobs. */
#define CT_RUN_HISTORY_BUDGET ((gsize) 256 << 20)

typedef enum {
  CT_RUN_FILL_NONE,      /* inputs not given are zeros */
  CT_RUN_FILL_CAFFE_REF, /* `cortado-cli forward --fill caffe-ref`: see engine/net-dump.h */
} CtRunFill;

/* How a run is built, besides the net. */
typedef struct {
  Caffe__Phase phase;
  /* > 0: the first axis of Input and DummyData shapes and the batch_size
   * of data layers is lowered to this (never raised), on the runner's copy
   * of the net. 0: as written. */
  guint batch_size;
  /* Seed of the fillers and of random layers (Dropout). */
  guint64 seed;
  /* A .caffemodel to load after the fillers, or NULL. */
  const char *weights;
  CtRunFill fill;
  /* Run on the GPU (CUDA device GPU_DEVICE) instead of the CPU: the net
   * moves there once built, and a build fails with the reason when no GPU
   * can be used. */
  gboolean use_gpu;
  int gpu_device;
  /* Run the layers on one thread fewer than the CPU pool has (at least
   * one), leaving a core to the caller's main loop: a window sets it so
   * that it keeps drawing while the worker computes. Results do not
   * change (see ct_cpu_set_thread_limit). */
  gboolean leave_a_core;
} CtRunConfig;

typedef enum {
  CT_RUN_PASS_NONE,
  CT_RUN_PASS_FORWARD,
  CT_RUN_PASS_BACKWARD,
} CtRunPass;

/* What the snapshot says of a layer, in net order. */
typedef enum {
  CT_RUN_LAYER_PENDING,          /* not run in this pass */
  CT_RUN_LAYER_FORWARD_DONE,
  CT_RUN_LAYER_BACKWARD_DONE,    /* computed its backward */
  CT_RUN_LAYER_BACKWARD_SKIPPED, /* passed in backward: needs none */
} CtRunLayerState;

/* A parameter blob of a layer (weights, bias). */
typedef struct {
  char *name;               /* the ParamSpec name, or the index as text ("0") */
  guint n_axes;
  gint64 *dims;
  gint64 count;
  CtBlobStats *data_stats;
  /* Once the layer's backward ran in this pass (the gradient of this
   * pass only: diffs are cleared when backward begins), for layers
   * watched with ct_runner_watch_params; else NULL. */
  CtBlobStats *diff_stats;
  /* Layers watched with ct_runner_watch_params only, else NULL: COUNT
   * floats. DIFF with DIFF_STATS. */
  GBytes *data;
  GBytes *diff;
} CtRunParam;

typedef struct {
  char *name;
  char *type;
  CtRunLayerState state;
  gboolean need_backward;
  guint n_bottoms, n_tops;
  guint *bottoms;   /* indices into the snapshot's blobs */
  guint *tops;
  GPtrArray *params; /* CtRunParam*, one per parameter blob; shared, read only */
} CtRunLayer;

/* One version of a watched blob: its values as some layer's top. Immutable
 * and shared (atomic reference count). */
typedef struct {
  char *label;          /* "after relu1" (translated) */
  int layer_index;      /* the layer whose output this is */
  guint n_axes;
  gint64 *dims;
  gint64 count;
  GBytes *data;         /* count floats */
  GBytes *diff;         /* count floats, or NULL before backward reached it */
  CtBlobStats *data_stats;
  CtBlobStats *diff_stats; /* NULL with DIFF */
} CtRunVersion;

CtRunVersion *ct_run_version_ref (CtRunVersion *version);
void ct_run_version_unref (CtRunVersion *version);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtRunVersion, ct_run_version_unref)

typedef struct {
  char *name;
  guint n_axes;
  gint64 *dims;
  gint64 count;
  gboolean has_data;       /* its producer ran forward in this pass */
  gboolean has_diff;       /* backward filled its diff in this pass */
  CtBlobStats *data_stats; /* NULL unless HAS_DATA */
  CtBlobStats *diff_stats; /* NULL unless HAS_DIFF */
  double health;           /* ct_blob_stats_health when HAS_DIFF, else 0 */
  gboolean watched;
  /* Watched blobs only (else NULL): CtRunVersion*, oldest first; the last
   * is the blob as it is now. Empty while the blob holds no data. */
  GPtrArray *versions;
  gboolean history_cut;    /* a version was not kept: the budget was spent */
} CtRunBlob;

typedef struct _CtRunSnapshot CtRunSnapshot;

CtRunSnapshot *ct_run_snapshot_ref (CtRunSnapshot *snapshot);
void ct_run_snapshot_unref (CtRunSnapshot *snapshot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtRunSnapshot, ct_run_snapshot_unref)

/* Counts up with every snapshot of a runner. */
guint64 ct_run_snapshot_get_serial (const CtRunSnapshot *snapshot);
CtRunPass ct_run_snapshot_get_pass (const CtRunSnapshot *snapshot);
/* The next layer of the pass (see the positions above). */
int ct_run_snapshot_get_next_layer (const CtRunSnapshot *snapshot);
/* The layers run since the previous snapshot handed over, in the order
 * they ran (backward steps include the layers passed; snapshots that were
 * coalesced away add theirs); borrowed, LEN entries. */
const int *ct_run_snapshot_get_stepped (const CtRunSnapshot *snapshot, guint *len);
/* The net was edited (or the configuration changed) since the last run:
 * nothing of the old run is shown. */
gboolean ct_run_snapshot_get_invalidated (const CtRunSnapshot *snapshot);
/* The layers whose parameters were filled afresh when this run was built
 * from an edited net (the others kept their weights), NULL-terminated;
 * NULL when this snapshot did not build a net from an edit. */
const char *const *ct_run_snapshot_get_reinitialised (const CtRunSnapshot *snapshot);
/* The loss of the last complete forward pass (0 before one). */
float ct_run_snapshot_get_loss (const CtRunSnapshot *snapshot);
/* Why the last command failed, or NULL. Borrowed. */
const GError *ct_run_snapshot_get_error (const CtRunSnapshot *snapshot);
/* Microseconds the worker spent in layers since its previous snapshot,
 * and in everything else (copies, statistics, this snapshot itself). */
double ct_run_snapshot_get_compute_us (const CtRunSnapshot *snapshot);
double ct_run_snapshot_get_overhead_us (const CtRunSnapshot *snapshot);

/* The phase of the net the snapshot shows (TEST before the first step). */
Caffe__Phase ct_run_snapshot_get_phase (const CtRunSnapshot *snapshot);
/* Layers and blobs of the built net (none before the first step). */
guint ct_run_snapshot_n_layers (const CtRunSnapshot *snapshot);
const CtRunLayer *ct_run_snapshot_get_layer (const CtRunSnapshot *snapshot, guint i);
guint ct_run_snapshot_n_blobs (const CtRunSnapshot *snapshot);
const CtRunBlob *ct_run_snapshot_get_blob (const CtRunSnapshot *snapshot, guint i);
const CtRunBlob *ct_run_snapshot_find_blob (const CtRunSnapshot *snapshot, const char *name);

typedef struct _CtRunner CtRunner;

/* Called in the runner's main context with each snapshot (borrowed: ref it
 * to keep it). */
typedef void (*CtRunSnapshotFunc) (CtRunner *runner, CtRunSnapshot *snapshot,
                                   gpointer user_data);

/* A runner for PARAM (copied) as CONFIG says (copied). Nothing is built
 * until the first step. FUNC gets the snapshots. */
CtRunner *ct_runner_new (const Caffe__NetParameter *param, const CtRunConfig *config,
                         CtRunSnapshotFunc func, gpointer user_data);
/* Stops the worker after the layer it is computing (waiting for that
 * layer), drops queued commands and snapshots not yet handed over. */
void ct_runner_free (CtRunner *runner);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtRunner, ct_runner_free)

void ct_runner_step_forward (CtRunner *runner);
void ct_runner_step_backward (CtRunner *runner);
void ct_runner_run_pass (CtRunner *runner);
/* The pause after each layer of a pass that ct_runner_run_pass() runs, so
 * that a class can watch it go through the graph: MS_PER_LAYER
 * milliseconds (0, the default: none). It applies at once, to a pass
 * already running too; a stop or an edit cuts a pause short. Steps of
 * one layer never wait. */
void ct_runner_set_pace (CtRunner *runner, guint ms_per_layer);
void ct_runner_reset (CtRunner *runner);
/* Drop queued commands and interrupt a running pass after its current
 * layer; a snapshot shows where it stopped. */
void ct_runner_stop (CtRunner *runner);
/* Whether steps queued (forward, backward, run the rest, reset) have not
 * all been answered by a snapshot: the worker is computing (a pass runs)
 * or has steps waiting. Call it in the runner's main context: it changes
 * when a step is queued and when a snapshot is delivered (before the
 * CtRunSnapshotFunc runs), so a window can show its Stop control from the
 * snapshots alone, never asking the worker. */
gboolean ct_runner_is_busy (CtRunner *runner);
/* Counts up with every stop, rebuild and new configuration. A snapshot
 * carries the epoch of the command it answers: after ct_runner_rebuild or
 * ct_runner_set_config, snapshots of an older epoch (a stop's, queued
 * before) still show the old run. */
int ct_runner_get_epoch (CtRunner *runner);
int ct_run_snapshot_get_epoch (const CtRunSnapshot *snapshot);

/* The blobs to copy in full (NULL-terminated names; NULL: none). Names the
 * net lacks are ignored. */
void ct_runner_watch (CtRunner *runner, const char *const *names);
/* The layers whose parameter blobs to copy in full (NULL-terminated
 * names; NULL: none): convolution filters, weights, and their gradients
 * with statistics after backward. Statistics of every layer's parameter
 * data are in every snapshot; those of the gradients only for these. */
void ct_runner_watch_params (CtRunner *runner, const char *const *layer_names);
/* Until the next watch call, the watch changes send no snapshot of their
 * own: the caller queues a step next, whose snapshot carries the copies
 * (a window that selects the layer a step will run). */
void ct_runner_set_watch_quiet (CtRunner *runner, gboolean quiet);
/* Give input blob NAME the values VALUES (the product of DIMS floats,
 * copied) from the next forward pass on, reshaping it to DIMS. */
void ct_runner_set_input (CtRunner *runner, const char *name, const gint64 *dims,
                          guint n_axes, const float *values);
/* The chosen samples of a data layer's top NAME (a Data or ImageData
 * layer's images or labels): in every forward pass from the next on, once
 * the layer making NAME has read its batch, its first N_ITEMS samples
 * become VALUES (N_ITEMS × ITEM_COUNT floats, copied); the rest of the
 * batch stays as the layer read it, and a smaller batch takes the first
 * ones. The step fails (CT_ENGINE_ERROR_SHAPE, with the layer and blob as
 * data) when a sample of NAME does not hold ITEM_COUNT values. */
void ct_runner_set_items (CtRunner *runner, const char *name, guint n_items, gint64 item_count,
                          const float *values);
void ct_runner_set_history_budget (CtRunner *runner, gsize bytes);

/* The net was edited: the run is invalidated, and the next step builds
 * PARAM (copied); layers of the same name whose parameter blobs have the
 * same shapes keep their weights, the others are filled afresh and named
 * in that snapshot's reinitialised list. */
void ct_runner_rebuild (CtRunner *runner, const Caffe__NetParameter *param);
/* A new configuration (copied): the run is invalidated and the next step
 * builds the net anew with its weights (nothing is kept). */
void ct_runner_set_config (CtRunner *runner, const CtRunConfig *config);

G_END_DECLS
