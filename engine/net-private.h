/* net-private.h: CtNet's insides, shared by the files that build, run,
 * load and save nets (net.c, net-build.c, net-params.c, net-weights.c,
 * net-state.c, insert-splits.c, net-shapes.c). */
#pragma once

#include "net.h"
#include "rng.h"

G_BEGIN_DECLS

/* One entry of the list of layers to build: its parameter (a message the
 * list owns) and where it came from in the user's NetParameter. */
typedef struct {
  Caffe__LayerParameter *param;
  int source_index; /* -1 for an inserted Split layer */
  GError *error;    /* a tolerant build's complaint about this layer */
} CtNetSpec;

/* A layer's place in the net. */
typedef struct {
  GPtrArray *bottom;             /* CtBlob*, borrowed from the net */
  GPtrArray *top;
  GArray *bottom_ids;            /* guint */
  GArray *top_ids;               /* guint */
  GArray *bottom_need_backward;  /* gboolean */
  GArray *param_ids;             /* guint, net param ids */
  gboolean need_backward;
  CtNetLayerTiming timing;
} CtNetLinks;

typedef struct {
  guint id;
  CtNetObserverFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
} CtNetObserver;

typedef struct {
  guint layer_index;
  guint param_index;
} CtNetParamLocation;

struct _CtNet {
  char *name;
  Caffe__Phase phase;
  Caffe__NetParameter *param;  /* filtered, split, phases set; owned */
  gboolean force_backward;

  GPtrArray *layers;           /* CtLayer*, owned */
  GPtrArray *links;            /* CtNetLinks*, owned, one per layer */
  GHashTable *layer_index;     /* name -> index + 1 */

  GPtrArray *blobs;            /* CtBlob*, owned */
  GPtrArray *blob_names;       /* char*, owned */
  GArray *blob_need_backward;  /* gboolean */
  GArray *blob_loss_weights;   /* float */
  GHashTable *blob_index;      /* name -> index + 1 */

  GArray *inputs;              /* guint blob indices */
  GArray *outputs;             /* guint blob indices */

  GPtrArray *params;           /* CtBlob*, borrowed from the layers */
  GArray *param_locations;     /* CtNetParamLocation */
  GPtrArray *param_display_names; /* char*, owned */
  GArray *param_owners;        /* int */
  GArray *param_learnable_ids; /* guint */
  GHashTable *param_names;     /* ParamSpec name -> net param id + 1 */
  GArray *learnables;          /* CtNetLearnable */

  gboolean use_gpu;            /* layers with GPU passes run them there */
  gboolean sync_timing;        /* per-layer times wait for the device */

  CtNetMemoryPlan memory_plan; /* CtNetConfig's */
  GHashTable *lazy_mems;       /* CtMem* (referenced) left unallocated by the plan */
  gsize memory_planned;        /* bytes of blobs and parameters, planned */
  gsize memory_unplanned;      /* the same, each blob with its own memory */

  GArray *observers;           /* CtNetObserver */
  guint next_observer_id;
  guint notifying;             /* depth of observer calls under way */
  gboolean observers_removed;  /* entries blanked while notifying */
};

/* An empty net, ready for the builder. */
CtNet *ct_net_alloc (void);

/* The list of layers Caffe builds from PARAM under STATE: those whose rules
 * the state meets, as fresh copies (CtNetSpec*, freed by the array). A layer
 * with both include and exclude rules is an error; with TOLERANT it is kept
 * (if its include rules pass) with the error in its spec. */
GPtrArray *ct_net_filter_layers (const Caffe__NetParameter *param, const Caffe__NetState *state,
                                 gboolean tolerant, GError **error);
/* Caffe's StateMeetsRule. */
gboolean ct_net_state_meets_rule (const Caffe__NetState *state, const Caffe__NetStateRule *rule);

/* Insert Split layers into SPECS (CtNetSpec*) where a top feeds more than
 * one bottom (or a bottom and a loss), renaming those bottoms. A bottom no
 * layer above produces is an error naming the layer and blob; with TOLERANT
 * it is left alone (the builder reports it). */
gboolean ct_net_insert_splits (GPtrArray *specs, gboolean tolerant, GError **error);

/* The names Caffe gives split layers and their tops. */
char *ct_net_split_layer_name (const char *layer_name, const char *blob_name, guint top_index);
char *ct_net_split_blob_name (const char *layer_name, const char *blob_name, guint top_index,
                              guint split_index);

void ct_net_spec_free (CtNetSpec *spec);

/* Register LAYER_INDEX's parameter blobs as net params: ownership,
 * learnable entries and the sharing checks of Caffe's AppendParam. */
gboolean ct_net_append_params (CtNet *net, guint layer_index, GError **error);
/* Make every shared parameter use its owner's data and diff. */
gboolean ct_net_share_weights (CtNet *net, GError **error);

/* Allocate the data and diff of every blob and parameter. */
gboolean ct_net_allocate (CtNet *net, GError **error);

void ct_net_links_free (CtNetLinks *links);

/* The memory plan (net-memory.c): give blobs whose lives do not overlap
 * the same memory, and mark what is never used as not to be allocated.
 * Before ct_net_allocate. */
void ct_net_plan_memory (CtNet *net);
/* Whether the plan leaves MEM unallocated. */
gboolean ct_net_is_lazy_mem (const CtNet *net, CtMem *mem);

/* The builder (net-build.c), shared by ct_net_new and shape inference. */
typedef struct {
  CtNet *net;              /* being built */
  gboolean tolerant;       /* shape inference: go on past a layer's error */
  gboolean plan_only;      /* CtNetConfig.plan_only: layers for their shapes only */
  GPtrArray *specs;        /* CtNetSpec*, the layers to build, splits inserted */
  GHashTable *available;   /* blob names produced and not yet read */
  GArray *blob_known;      /* gboolean per blob: whether its shape is known */
  CtRng *rng;              /* hands each layer its seed */
  char *source;            /* names the source in errors about unknown text */
} CtNetBuilder;

/* Copy, upgrade, check and filter IN and insert splits, into B->specs. */
gboolean ct_net_builder_init (CtNetBuilder *b, const Caffe__NetParameter *in,
                              const CtNetConfig *config, gboolean tolerant, GError **error);
/* Create, wire and set up the next layer, SPEC (one of B->specs). */
CtNetLayerStatus ct_net_builder_add_layer (CtNetBuilder *b, CtNetSpec *spec, GError **error);
/* After the last layer: the layer index, inputs, outputs and (unless
 * tolerant) the backward decisions. The specs give their messages to the
 * net's NetParameter. */
void ct_net_builder_finish (CtNetBuilder *b);
/* Free what B holds, the net too unless stolen from it. */
void ct_net_builder_clear (CtNetBuilder *b);
/* Tolerant mode: replace LAYER_INDEX's parameter blobs by unallocated
 * blobs of the same shapes (before they are registered as net params). */
void ct_net_builder_drop_param_memory (CtNetBuilder *b, guint layer_index);

G_END_DECLS
