/* net.h: CtNet, a whole net built from a NetParameter, as Caffe's Net
 * builds and runs one.
 *
 * Building follows Caffe step by step: the layers whose include/exclude
 * rules the NetState (phase, level, stages) meets are kept; Split layers are
 * inserted where a blob feeds several layers, with Caffe's names
 * (`<blob>_<layer>_<i>_split_<j>`); each layer is created from the
 * catalogue, wired to its bottoms and tops (a top named like the bottom at
 * the same index is computed in place) and set up in order, which infers
 * every shape; then come which layers and blobs need backward (propagate_down,
 * lr_mult, loss weights, force_backward), parameters shared by ParamSpec
 * name, and finally every blob's memory is allocated, so that forward and
 * backward never meet an allocation failure. Every mistake a prototxt can
 * make is a GError naming the layer (and blob); nothing aborts.
 *
 * Layer i's random seed is the i-th draw of a generator seeded with the
 * net's seed, so one seed gives one net.
 *
 * Observers are told before and after each layer's forward and backward
 * (the workbench's step-through and heatmaps hang on them), and each layer's
 * forward and backward time is accumulated.
 *
 * A net runs on the CPU until ct_net_set_use_gpu() moves it. An error in a
 * pass names the layer: "layer 'conv1' (Convolution): out of GPU memory
 * allocating 123456789 bytes (out of memory)".
 *
 * For the editor, ct_net_infer_shapes() builds as far as it can without
 * stopping at the first error and without keeping any blob memory: every
 * layer gets either its tops' shapes or the reason it has none. */
#pragma once

#include <glib.h>

#include "blob.h"
#include "caffe.pb-c.h"
#include "layer.h"

G_BEGIN_DECLS

typedef struct _CtNet CtNet;

/* How a net keeps its blobs' memory (net-memory.c).
 * KEEP_ALL: every blob keeps its data and diff, as Caffe does: after a
 * pass every value can still be read, and any range of layers run.
 * TRAINING: a blob's data lives from the layer that first writes it to the
 * last pass (forward or backward) that reads it, its diff from the
 * backward pass that writes it to the last that reads it, and blobs whose
 * lives do not overlap share memory.
 * FORWARD: the same for a net that only ever runs forward (`cortado-cli
 * test`, deploy nets): no diffs at all, activations reused as soon as
 * their last reader has run; backward passes are refused (unless no layer
 * needs one). A net planned for TRAINING in which no layer needs a
 * backward pass is planned as FORWARD.
 * With a plan, after a whole pass only the net's inputs, outputs and
 * loss tops and the parameters still hold their values: an observer that
 * wants a blob copies it when its layer has run; and only whole passes
 * may be run. On the CPU, a planned net also lets a layer run the passes
 * of the in-place layers after it with its own (CtLayerClass.absorb:
 * BatchNorm its Scale and ReLU, a unit Eltwise sum its ReLU), with the
 * same bits; the layers taken then show no time of their own, and an
 * observer sees their top already as the last of them left it. */
typedef enum {
  CT_NET_MEMORY_KEEP_ALL = 0,
  CT_NET_MEMORY_TRAINING,
  CT_NET_MEMORY_FORWARD,
} CtNetMemoryPlan;

/* What a net is built for, beyond its NetParameter. */
typedef struct {
  Caffe__Phase phase;
  int level;
  /* NULL-terminated, may be NULL: added to the stages the NetParameter's
   * own state lists, as Caffe adds them. */
  const char *const *stages;
  guint64 seed;
  /* Names the source in errors about unknown text ("lenet.prototxt");
   * NULL: the net's name. */
  const char *source_name;
  /* How the blobs' memory is planned (CtNetMemoryPlan). */
  int memory_plan;
  /* Build the layers for their shapes only (no parameter values), plan
   * and allocate nothing: a net for ct_net_get_memory, which cannot run. */
  gboolean plan_only;
} CtNetConfig;

/* Build a net from PARAM (not modified; legacy V0/V1 content is upgraded
 * on a copy). PARAM must not hold unknown fields kept by a lenient parse:
 * they are refused, naming the first. */
CtNet *ct_net_new (const Caffe__NetParameter *param, Caffe__Phase phase, int level,
                   const char *const *stages, guint64 seed, GError **error);
CtNet *ct_net_new_with_config (const Caffe__NetParameter *param, const CtNetConfig *config,
                               GError **error);
void ct_net_free (CtNet *net);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtNet, ct_net_free)

const char *ct_net_get_name (const CtNet *net);
Caffe__Phase ct_net_get_phase (const CtNet *net);

/* The NetParameter the layers were built from: filtered, with Split layers
 * inserted and every layer's phase set. Borrowed. */
const Caffe__NetParameter *ct_net_get_param (const CtNet *net);

/* Layers, in net order (Split layers included). */
guint ct_net_n_layers (const CtNet *net);
CtLayer *ct_net_get_layer (const CtNet *net, guint layer_index);
/* The index of the layer named NAME (the last of that name), or -1. */
int ct_net_layer_index (const CtNet *net, const char *name);
CtLayer *ct_net_layer_by_name (const CtNet *net, const char *name);

/* Blobs, in Caffe's blob order: tops in the order layers create them. */
guint ct_net_n_blobs (const CtNet *net);
CtBlob *ct_net_get_blob (const CtNet *net, guint blob_index);
const char *ct_net_get_blob_name (const CtNet *net, guint blob_index);
int ct_net_blob_index (const CtNet *net, const char *name);
CtBlob *ct_net_blob_by_name (const CtNet *net, const char *name);

/* A layer's bottoms and tops (borrowed arrays of CtBlob*), and their indices
 * among the net's blobs (N_OUT gets the count). */
GPtrArray *ct_net_get_bottoms (const CtNet *net, guint layer_index);
GPtrArray *ct_net_get_tops (const CtNet *net, guint layer_index);
const guint *ct_net_get_bottom_ids (const CtNet *net, guint layer_index, guint *n_out);
const guint *ct_net_get_top_ids (const CtNet *net, guint layer_index, guint *n_out);

/* Which layers run backward, which bottoms they fill with a gradient, and
 * which blobs carry one. */
gboolean ct_net_layer_need_backward (const CtNet *net, guint layer_index);
gboolean ct_net_bottom_need_backward (const CtNet *net, guint layer_index, guint bottom_index);
gboolean ct_net_blob_need_backward (const CtNet *net, guint blob_index);
/* The loss weight of a blob (0 unless some layer's top weighs it). */
float ct_net_blob_loss_weight (const CtNet *net, guint blob_index);

/* The net's inputs (the tops of Input layers) and outputs (blobs no layer
 * consumes, sorted by name as Caffe lists them), as blob indices. */
guint ct_net_n_inputs (const CtNet *net);
guint ct_net_input_index (const CtNet *net, guint i);
guint ct_net_n_outputs (const CtNet *net);
guint ct_net_output_index (const CtNet *net, guint i);

/* Parameters: every layer's parameter blobs in net order ("net params"),
 * and the learnable ones: one per owner, a shared blob counting once. */
typedef struct {
  CtBlob *blob;          /* borrowed from the owning layer */
  guint layer_index;     /* the owning layer and its parameter index */
  guint param_index;
  float lr_mult;
  float decay_mult;
  gboolean has_lr_mult;  /* whether some ParamSpec gave them */
  gboolean has_decay_mult;
} CtNetLearnable;

guint ct_net_n_params (const CtNet *net);
CtBlob *ct_net_get_param_blob (const CtNet *net, guint param_id);
/* The layer and parameter index of net param PARAM_ID. */
void ct_net_get_param_location (const CtNet *net, guint param_id, guint *layer_index,
                                guint *param_index);
/* The ParamSpec name, or the index as text ("0") when unnamed. */
const char *ct_net_get_param_display_name (const CtNet *net, guint param_id);
/* The net param that owns PARAM_ID's data, or -1 when it owns itself. */
int ct_net_get_param_owner (const CtNet *net, guint param_id);
/* Which learnable parameter net param PARAM_ID is (or shares). */
guint ct_net_get_param_learnable_id (const CtNet *net, guint param_id);

guint ct_net_n_learnable (const CtNet *net);
const CtNetLearnable *ct_net_get_learnable (const CtNet *net, guint learnable_id);

/* The device the net runs on, as Caffe's Caffe::set_mode: on the GPU each
 * layer runs its GPU passes (gpu_forward / gpu_backward), and a type without them runs
 * its CPU code on the same blobs (CtMem copies what each side reads, so
 * the results are the same, only slower; `cortado-cli layers` lists which
 * types have GPU code). Switching may happen between any two passes, in
 * either direction: values stay where they are and follow lazily.
 * Switching to the GPU fails with a CT_ENGINE_ERROR_NO_DEVICE error (with
 * the CUDA runtime's reason) when no GPU can be used, and otherwise gives
 * every blob and parameter its GPU copy at once, so that running out of
 * GPU memory is reported here, naming the blob and the bytes asked for,
 * rather than halfway through a pass. On failure the net stays on the
 * CPU. */
gboolean ct_net_set_use_gpu (CtNet *net, gboolean use_gpu, GError **error);
gboolean ct_net_get_use_gpu (const CtNet *net);

/* Running. Forward reshapes each layer before running it (so a new input
 * shape flows through, as in Caffe) and returns the loss in LOSS (may be
 * NULL): the sum of loss weight times value over weighted tops. Layers
 * START..END inclusive, START <= END. */
gboolean ct_net_forward (CtNet *net, float *loss, GError **error);
gboolean ct_net_forward_from_to (CtNet *net, guint start, guint end, float *loss,
                                 GError **error);
/* Backward from the last layer down to the first, or from START down to
 * END inclusive (START >= END), running only layers that need it. Parameter
 * diffs accumulate: clear them between iterations. */
gboolean ct_net_backward (CtNet *net, GError **error);
gboolean ct_net_backward_from_to (CtNet *net, guint start, guint end, GError **error);
/* Shape every layer again, after an input blob's shape changed, and
 * allocate what the new shapes need. */
gboolean ct_net_reshape (CtNet *net, GError **error);
/* Zero every parameter diff. */
gboolean ct_net_clear_param_diffs (CtNet *net, GError **error);
/* Zero learnable parameter LEARNABLE_ID's diff (and so that of every
 * parameter sharing it). */
gboolean ct_net_clear_learnable_diff (CtNet *net, guint learnable_id, GError **error);

/* Observers. */
typedef enum {
  CT_NET_EVENT_BEFORE_FORWARD,
  CT_NET_EVENT_AFTER_FORWARD,
  CT_NET_EVENT_BEFORE_BACKWARD,
  CT_NET_EVENT_AFTER_BACKWARD,
} CtNetEvent;

/* Called before and after every layer of a pass (in backward also for
 * layers that skip it, as Caffe does), with the layer's index. */
typedef void (*CtNetObserverFunc) (CtNet *net, CtNetEvent event, guint layer_index,
                                   gpointer user_data);

/* Returns an id (never 0) for ct_net_remove_observer. DESTROY (may be NULL)
 * frees USER_DATA when the observer is removed or the net freed. */
guint ct_net_add_observer (CtNet *net, CtNetObserverFunc func, gpointer user_data,
                           GDestroyNotify destroy);
void ct_net_remove_observer (CtNet *net, guint observer_id);

/* Time spent in each layer's forward and backward since the net was built
 * or the timings were reset. */
typedef struct {
  double forward_us;
  double backward_us;
  guint64 forward_calls;
  guint64 backward_calls;
} CtNetLayerTiming;

const CtNetLayerTiming *ct_net_get_layer_timing (const CtNet *net, guint layer_index);
void ct_net_reset_timing (CtNet *net);
/* On the GPU, kernels run after their launch returns, so a layer's time is
 * only the time to queue its work unless SYNC is set: then each layer
 * waits for the device before and after it runs (`cortado-cli time
 * --gpu`). Off by default, since waiting costs a little per layer. */
void ct_net_set_timing_sync (CtNet *net, gboolean sync);

/* Weights. Copy the parameter blobs of MODEL's layers into the layers of
 * the same name (V1 `layers` are upgraded on a copy first; model layers the
 * net lacks are ignored, as Caffe ignores them). A blob count or shape that
 * differs is an error naming the layer, the blob index and both shapes. */
gboolean ct_net_copy_trained_layers_from (CtNet *net, const Caffe__NetParameter *model,
                                          GError **error);
gboolean ct_net_copy_trained_layers_from_file (CtNet *net, const char *path, GError **error);

/* The net as Caffe's Net::ToProto writes it: the name, and each layer's
 * LayerParameter with its parameter blobs (and their diffs with
 * WRITE_DIFF). Free with protobuf_c_message_free_unpacked. */
Caffe__NetParameter *ct_net_to_proto (CtNet *net, gboolean write_diff, GError **error);
/* Write that as a .caffemodel (atomically) that Caffe loads. */
gboolean ct_net_write_caffemodel (CtNet *net, const char *path, gboolean write_diff,
                                  GError **error);

/* Shape inference without running anything. */
typedef enum {
  CT_NET_LAYER_OK,      /* set up: every top has a shape */
  CT_NET_LAYER_FAILED,  /* this layer is wrong: ERROR says why */
  CT_NET_LAYER_SKIPPED, /* a bottom has no shape because a layer above failed */
} CtNetLayerStatus;

typedef struct {
  char *name;      /* the blob's name */
  gboolean known;  /* whether DIMS holds its shape */
  guint n_axes;
  gint64 *dims;    /* n_axes dimensions; NULL when unknown */
  gboolean in_place; /* for tops: the same blob as the bottom at that index */
} CtNetShapeBlob;

/* The number of elements of S (0 when its shape is unknown). */
gint64 ct_net_shape_blob_count (const CtNetShapeBlob *s);

struct _CtNetShapeLayer {
  char *name;
  char *type;
  /* The layer's index in the NetParameter given (before filtering), or -1
   * for an inserted Split layer. */
  int source_index;
  CtNetLayerStatus status;
  GError *error;           /* FAILED and SKIPPED: why */
  GPtrArray *bottoms;      /* CtNetShapeBlob*, shapes as the layer saw them */
  GPtrArray *tops;         /* CtNetShapeBlob* */
  GPtrArray *params;       /* CtNetShapeBlob*, named by index ("0", "1") */
  const Caffe__LayerParameter *param; /* as built (bottoms renamed for splits) */
};

typedef struct {
  Caffe__NetParameter *param;  /* the filtered, split net; owns the layers' params */
  GPtrArray *layers;           /* CtNetShapeLayer*, in net order */
  GError *error;               /* a problem outside any layer, or NULL */
  guint n_failed;              /* layers FAILED */
  guint n_skipped;             /* layers SKIPPED */
} CtNetShapes;

/* Build PARAM as far as possible under CONFIG. Never fails: errors are in
 * the result. Only shapes are computed and no blob memory is kept: the
 * net's blobs are never allocated, and each layer's parameter blobs (which
 * its setup creates, filled with constants instead of random draws) are
 * released as soon as their shapes are read, so at most one layer's
 * parameters exist at a time. A PARAM parsed leniently may hold unknown
 * fields: each fails its own layer. */
CtNetShapes *ct_net_infer_shapes (const Caffe__NetParameter *param, const CtNetConfig *config);
void ct_net_shapes_free (CtNetShapes *shapes);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtNetShapes, ct_net_shapes_free)

/* The bytes the net's blobs and parameters take: PLANNED as built (with
 * the memory plan, if asked for) and UNPLANNED with every blob's data and
 * diff in memory of its own, as Caffe keeps them. Layers' own buffers
 * (convolution workspaces, LRN's scale) are not counted. */
void ct_net_get_memory (const CtNet *net, gsize *planned, gsize *unplanned);

/* FALSE with ERROR (CT_ENGINE_ERROR_NOT_FINITE) naming the first layer
 * whose top data, bottom diff or parameters hold a NaN or an infinity,
 * in the order a pass makes them; TRUE when every value is finite. */
gboolean ct_net_check_finite (CtNet *net, GError **error);

/* Whether every bottom of PARAM's layers is made by a layer above it (any
 * layer, whatever its phase and stage rules), as building the net
 * requires; otherwise FALSE with ERROR naming the layer and the blob (and
 * the layer below that makes it: a loop), and *FAILED_LAYER its index in
 * PARAM. Builds nothing: PARAM's data sources need not exist. */
gboolean ct_net_check_connections (const Caffe__NetParameter *param, int *failed_layer,
                                   GError **error);

G_END_DECLS
