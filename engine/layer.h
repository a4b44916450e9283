/* layer.h: CtLayer, one node of a net, and CtLayerClass, what a layer type
 * is: its name and family, how many bottoms and tops it takes, and its
 * setup, reshape, forward and backward functions.
 *
 * A layer's life follows Caffe's: ct_layer_new() (the type's fields zeroed,
 * parameter blobs none), ct_layer_setup() (count checks, the type's setup,
 * which creates and fills the parameter blobs, reshape, loss weights), then
 * any number of reshape / forward / backward. Everything a user can get
 * wrong (a bad parameter, a shape that does not fit) fails in setup or
 * reshape with an error that names the layer; forward and backward fail only
 * on bad data values (a label out of range) and on the device.
 *
 * Bottoms and tops are GPtrArrays of CtBlob*, borrowed from the net. Every
 * arithmetic loop lives in kernels/; a layer file wires blobs to kernels. */
#pragma once

#include <glib.h>

#include "blob.h"
#include "caffe.pb-c.h"
#include "rng.h"

G_BEGIN_DECLS

typedef struct _CtLayer CtLayer;
typedef struct _CtLayerClass CtLayerClass;
/* A layer's shapes as the net's shape inference found them (net.h). */
typedef struct _CtNetShapeLayer CtNetShapeLayer;

/* Families, as the palette groups them. */
typedef enum {
  CT_LAYER_FAMILY_DATA,
  CT_LAYER_FAMILY_VISION,
  CT_LAYER_FAMILY_NEURON,
  CT_LAYER_FAMILY_NORMALIZATION,
  CT_LAYER_FAMILY_COMMON,
  CT_LAYER_FAMILY_LOSS,
  CT_LAYER_FAMILY_RECURRENT,
  CT_LAYER_FAMILY_UTILITY,
  CT_LAYER_N_FAMILIES
} CtLayerFamily;

/* How many bottoms or tops a type takes. -1 in a member means "no rule";
 * a rule left out of a class ({0, 0, 0}) means any count. Write rules with
 * the macros below. */
typedef struct {
  int exact, min, max;
} CtCountRule;

#define CT_EXACTLY(n) { (n), -1, -1 }
#define CT_AT_LEAST(n) { -1, (n), -1 }
#define CT_AT_MOST(n) { -1, -1, (n) }
#define CT_BETWEEN(a, b) { -1, (a), (b) }
#define CT_ANY_COUNT { -1, -1, -1 }

/* What a layer type does, told to a learner: a few sentences, the formula,
 * what its parameters do and what its diff means. The texts are marked
 * N_() in the layer's file; ct_layer_class_explain (layer-catalogue.h)
 * gives them translated (a formula too: some say a word or two). A custom
 * layer fills its own. */
typedef struct {
  const char *summary;
  const char *formula;
  const char *parameters;
  const char *gradient;
} CtLayerExplanation;

typedef gboolean (*CtLayerSetupFunc) (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                                      GError **error);
/* A pass on the GPU when GPU is TRUE (only for types whose class says it
 * has one), else on the CPU. */
typedef gboolean (*CtLayerForwardFunc) (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                                        gboolean gpu, GError **error);
/* PROPAGATE_DOWN has one entry per bottom: whether its diff is wanted. */
typedef gboolean (*CtLayerBackwardFunc) (CtLayer *layer, GPtrArray *top,
                                         const gboolean *propagate_down, GPtrArray *bottom,
                                         gboolean gpu, GError **error);

struct _CtLayerClass {
  const char *type;        /* the prototxt type string, "Convolution" */
  CtLayerFamily family;
  const char *description; /* one line, marked N_() for translation */
  /* For the inspector and presentation mode; NULL: none yet. */
  const CtLayerExplanation *explanation;
  gsize instance_size;     /* sizeof the type's struct, which starts with CtLayer */

  CtCountRule bottoms;
  CtCountRule tops;
  gboolean equal_bottom_top_counts;
  /* Create missing tops up to the minimum/exact count (loss layers' loss). */
  gboolean auto_top_blobs;
  /* A loss layer: without loss_weight in the prototxt, top 0 weighs 1. */
  gboolean is_loss;

  /* Type-specific setup: read the parameters, create parameter blobs and
   * fill them. Optional. */
  CtLayerSetupFunc setup;
  /* Shape the tops (and buffers) from the bottoms. Required. */
  CtLayerSetupFunc reshape;
  CtLayerForwardFunc forward;    /* Required. */
  CtLayerBackwardFunc backward;  /* NULL: the type never propagates down */
  /* Whether the passes run on the GPU when the net does; FALSE: the net
   * runs them on the CPU, with the blobs copied as needed. */
  gboolean gpu_forward;
  gboolean gpu_backward;
  /* Whether force_backward may ask for BOTTOM_INDEX's diff (labels: no).
   * NULL: always. */
  gboolean (*allow_force_backward) (const CtLayer *layer, guint bottom_index);
  /* Free what the type's struct holds. Optional. */
  void (*finalize) (CtLayer *layer);
  /* What an implementation shared by several types needs to know about
   * this one (the element-wise neurons' kernels). Optional. */
  gconstpointer type_data;

  /* What the editor and the tools know of the type (none is needed to
   * run it). */
  /* The LayerParameter field of its parameters; NULL: the type in snake
   * case with "_param" ("InnerProduct" -> "inner_product_param"), as
   * ct_layer_class_param_field gives it. */
  const char *param_field;
  /* The name of a layer added in the editor, before its number ("conv"
   * for conv1); NULL: "loss" for a loss, else the type in small letters. */
  const char *name_prefix;
  /* LayerParameter text a layer added in the editor starts from (Caffe's
   * classic choices); NULL: no parameters. */
  const char *new_layer_text;
  /* The editor wires a new layer in place on the blob it reads. */
  gboolean usually_in_place;
  /* A source of data: no bottoms, and its tops are the data and the
   * labels. */
  gboolean is_data_source;
  /* Its source is a file or a database that a check may not find (the
   * editor then infers the shapes below it from a stand-in shape). */
  gboolean reads_files;
  /* It reads transform_param. */
  gboolean transforms_data;
  /* Where PARAM's text gives the batch size, or NULL when it has none. */
  guint32 *(*batch_size) (Caffe__LayerParameter *param);
  /* Floating-point operations of a forward pass (a multiply-add counts
   * two): FLOPS_PER_TOP per element of top 0 plus FLOPS_PER_BOTTOM per
   * element of bottom 0, or what FLOPS says when set (0: not known). */
  double flops_per_top, flops_per_bottom;
  double (*flops) (const CtNetShapeLayer *shapes);

  /* For the net's memory plan (net-memory.c). Whether the backward pass
   * reads the data of top (IS_TOP) or bottom INDEX; NULL: it may read
   * every bottom's and top's. */
  gboolean (*backward_reads_data) (const CtLayer *layer, gboolean is_top, guint index);
  /* A blob the layer keeps holding its top 0 as its forward pass left it,
   * untouched until its own backward pass, or NULL (BatchNorm's normalized
   * output): an in-place layer right after it may read that instead of
   * keeping a copy of its own (CtLayer.bottom_kept). Optional. */
  CtBlob *(*kept_top) (CtLayer *layer);
  /* How many of the N_NEXT layers NEXT, which run in place one after the
   * other on this layer's top 0 right after it, this layer's CPU passes
   * run as well (BatchNorm: a Scale and a ReLU), 0 for none; *BACKWARD:
   * whether its backward pass can run theirs too. A planned net asks
   * (CtLayer.absorbed); the window's nets run every layer itself.
   * Optional. */
  guint (*absorb) (CtLayer *layer, CtLayer *const *next, guint n_next, gboolean *backward);
};

/* KLASS's param_field, or the one its type's name gives (newly
 * allocated). */
char *ct_layer_class_param_field (const CtLayerClass *klass);
/* The same for the type named TYPE, known to the catalogue or not (a
 * type Cortado does not run may still have a field in caffe.proto). */
char *ct_layer_type_param_field (const char *type);

/* The forward FLOPs of a layer whose shapes are known (CtLayerClass says
 * how they are counted); 0 for a type Cortado does not know. */
double ct_layer_shapes_flops (const CtNetShapeLayer *shapes);

/* For the classes' flops: the elements of the first blob of BLOBS
 * (CtNetShapeBlob*, 0 when none or unknown); multiply-adds per output of a
 * layer whose first parameter has one row per output channel; the
 * additions of a bias (a second parameter blob) to top 0, else 0. */
double ct_layer_shapes_first_count (GPtrArray *blobs);
double ct_layer_shapes_weights_per_row (const CtNetShapeLayer *shapes);
double ct_layer_shapes_bias (const CtNetShapeLayer *shapes);

struct _CtLayer {
  const CtLayerClass *klass;
  Caffe__LayerParameter *param; /* owned deep copy */
  Caffe__Phase phase;
  GPtrArray *blobs;                /* CtBlob*, the learnable parameters, owned */
  GArray *param_propagate_down;    /* gboolean per parameter blob */
  GArray *loss_weights;            /* float per top, set by ct_layer_setup */
  guint64 seed;                    /* for layers that draw random numbers */
  /* Set before setup when only shapes are wanted (the editor's shape
   * inference): parameter blobs get shapes but no memory or values, and
   * tops' diffs are not touched. */
  gboolean shapes_only;
  /* Set by a net built to run forward only (CT_NET_MEMORY_FORWARD): the
   * backward pass never runs, so nothing need be kept for it. */
  gboolean forward_only;
  /* Set by a planned net when this layer runs in place right after one
   * whose kept_top holds this layer's bottom 0 as it arrives: borrowed. */
  CtBlob *bottom_kept;
  /* Set by a planned net (CtLayerClass.absorb): the layers after this one
   * whose forward passes on the CPU this one's runs, and whether its
   * backward pass runs theirs too; on the layers taken, the one that
   * takes them. Borrowed. */
  CtLayer *absorbed[2];
  guint n_absorbed;
  gboolean absorbs_backward;
  CtLayer *absorbed_by;
};

/* A layer of KLASS for PARAM (copied) in PHASE. */
CtLayer *ct_layer_new (const CtLayerClass *klass, const Caffe__LayerParameter *param,
                       Caffe__Phase phase);
void ct_layer_free (CtLayer *layer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtLayer, ct_layer_free)

const char *ct_layer_get_name (const CtLayer *layer);
const char *ct_layer_get_type (const CtLayer *layer);

gboolean ct_layer_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error);
gboolean ct_layer_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error);

/* Forward on the CPU (or GPU when USE_GPU and the type has one), then the
 * loss: the sum over tops of loss weight times the top's data. */
gboolean ct_layer_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                           gboolean use_gpu, float *loss, GError **error);
gboolean ct_layer_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                            GPtrArray *bottom, gboolean use_gpu, GError **error);

gboolean ct_layer_allow_force_backward (const CtLayer *layer, guint bottom_index);
/* CtLayerClass.backward_reads_data, TRUE when the class does not say. */
gboolean ct_layer_backward_reads_data (const CtLayer *layer, gboolean is_top, guint index);
/* For CtLayerClass.backward_reads_data: the backward pass reads its
 * bottoms' data only (the products: the weight gradient is the bottom
 * times the top's diff), or no data at all (routing layers, and layers
 * that keep what they need). */
gboolean ct_layer_backward_reads_bottoms (const CtLayer *layer, gboolean is_top, guint index);
gboolean ct_layer_backward_reads_nothing (const CtLayer *layer, gboolean is_top, guint index);
/* Whether the layer computes top INDEX in place on bottom INDEX. */
gboolean ct_layer_in_place (const CtLayer *layer, guint index);
float ct_layer_loss_weight (const CtLayer *layer, guint top_index);
gboolean ct_layer_param_propagate_down (const CtLayer *layer, guint param_index);
void ct_layer_set_param_propagate_down (CtLayer *layer, guint param_index, gboolean value);

/* Fill parameter blob BLOB as FILLER says (NULL: constant 0), or, for a
 * shapes-only layer, only check that the filler fits. Errors name the
 * layer and WHAT ("weight_filler"). */
gboolean ct_layer_fill_param (CtLayer *layer, const Caffe__FillerParameter *filler,
                              CtBlob *blob, CtRng *rng, const char *what, GError **error);

/* Helpers for the layer files. */
#define CT_BOTTOM(array, i) ((CtBlob *) g_ptr_array_index ((array), (i)))
#define CT_TOP(array, i) ((CtBlob *) g_ptr_array_index ((array), (i)))

/* Set ERROR to "layer 'NAME' (TYPE): MESSAGE" and return FALSE. */
gboolean ct_layer_fail (const CtLayer *layer, GError **error, int code,
                        const char *format, ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS
