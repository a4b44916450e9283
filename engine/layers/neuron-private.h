/* neuron-private.h: what the neuron and normalisation layer files share.
 * Every neuron takes one bottom and gives one top of the same shape, may run
 * in place (top == bottom, the same CtBlob), and calls one element-wise
 * kernel of kernels/neuron.h forward and one backward; these helpers fetch
 * the arrays those kernels take and turn a kernel status into an error that
 * names the layer. */
#pragma once

#include "layer.h"
#include "status.h"

G_BEGIN_DECLS

/* The element-wise neurons that differ only in their kernels (AbsVal,
 * BNLL, Sigmoid, TanH, ReLU, ELU, Threshold, Clip, Exp, Log, Power) share
 * one implementation: the class's type_data is one of these. Either the
 * plain kernels with their CUDA twins (FORWARD_GPU, BACKWARD_GPU), or the
 * ones that take the type's parameters, which the type's setup reads into
 * the CtNeuronLayer's PARAMS (validating them) and which pick the CPU or
 * CUDA kernel by GPU. BACKWARD reads the top when BACKWARD_READS_TOP, else
 * the bottom; a type with no backward never propagates down. */
typedef struct {
  CtStatus (*forward) (int64_t n, const float *x, float *y);
  CtStatus (*backward) (int64_t n, const float *in, const float *dy, float *dx);
  CtStatus (*forward_gpu) (int64_t n, const float *x, float *y);
  CtStatus (*backward_gpu) (int64_t n, const float *in, const float *dy, float *dx);
  gboolean backward_reads_top;

  CtStatus (*forward_with) (const float *params, gboolean gpu, int64_t n, const float *x,
                            float *y);
  CtStatus (*backward_with) (const float *params, gboolean gpu, int64_t n, const float *x,
                             const float *y, const float *dy, float *dx);
} CtNeuronKernels;

#define CT_NEURON_MAX_PARAMS 4

/* The instance of a neuron whose kernels take parameters. */
typedef struct {
  CtLayer parent;
  float params[CT_NEURON_MAX_PARAMS];
} CtNeuronLayer;

#define CT_NEURON_PARAMS(layer) (((CtNeuronLayer *) (layer))->params)

/* One definition for every such class: NAME's class, of type TYPE_NAME,
 * with INSTANCE (CtLayer, or CtNeuronLayer for kernels that take
 * parameters), SETUP (may be NULL) and KERNELS; what follows are more
 * members of the class (".usually_in_place = TRUE"). One FLOP per
 * element. */
#define CT_DEFINE_NEURON_CLASS(name, type_name, description_, instance, setup_, kernels, ...) \
  const CtLayerClass ct_##name##_layer_class = {                                      \
    .type = type_name,                                                                \
    .family = CT_LAYER_FAMILY_NEURON,                                                 \
    .description = description_,                                                     \
    .instance_size = sizeof (instance),                                               \
    .bottoms = CT_EXACTLY (1),                                                        \
    .tops = CT_EXACTLY (1),                                                           \
    .setup = setup_,                                                                  \
    .reshape = ct_neuron_reshape,                                                     \
    .forward = ct_neuron_forward,                                                     \
    .backward = ct_neuron_backward,                                                   \
    .gpu_forward = TRUE,                                                              \
    .gpu_backward = TRUE,                                                             \
    .type_data = &(kernels),                                                          \
    .flops_per_top = 1,                                                               \
    __VA_ARGS__                                                                       \
  }

/* The class passes of those neurons: forward and backward run the kernels,
 * on the GPU when GPU, else on the CPU. */
gboolean ct_neuron_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                            GError **error);
gboolean ct_neuron_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                             GPtrArray *bottom, gboolean gpu, GError **error);

/* The top takes the bottom's shape (nothing to do in place). */
gboolean ct_neuron_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error);

/* Fails, naming the layer, when top 0 is bottom 0: for types whose
 * backward needs an input that running in place would overwrite. */
gboolean ct_neuron_refuse_in_place (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                                    GError **error);

/* Bottom 0's data and top 0's (mutable) data; *COUNT their element count.
 * The _on forms take them on the GPU when GPU, the others on the CPU. */
gboolean ct_neuron_forward_arrays (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                                   gint64 *count, const float **x, float **y, GError **error);
gboolean ct_neuron_forward_arrays_on (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                                      gboolean gpu, gint64 *count, const float **x, float **y,
                                      GError **error);

/* Bottom 0's data, top 0's data and diff, and bottom 0's (mutable) diff,
 * fetched in that order so that in place the diff is read before it is
 * written. */
gboolean ct_neuron_backward_arrays (CtLayer *layer, GPtrArray *top, GPtrArray *bottom,
                                    gint64 *count, const float **x, const float **y,
                                    const float **dy, float **dx, GError **error);
gboolean ct_neuron_backward_arrays_on (CtLayer *layer, GPtrArray *top, GPtrArray *bottom,
                                       gboolean gpu, gint64 *count, const float **x,
                                       const float **y, const float **dy, float **dx,
                                       GError **error);

/* TRUE on CT_STATUS_OK; otherwise an error naming the layer. */
gboolean ct_neuron_check (const CtLayer *layer, CtStatus status, GError **error);

/* The negative_slope of a ReLU layer set up (relu.c), for the layers that
 * run a ReLU's passes with their own (CtLayerClass.absorb). */
float ct_relu_layer_slope (const CtLayer *relu);

/* A blob's array or an error naming the layer: on the CPU, or with _on,
 * on the GPU when GPU. */
const float *ct_neuron_data (const CtLayer *layer, CtBlob *blob, GError **error);
float *ct_neuron_mutable_data (const CtLayer *layer, CtBlob *blob, GError **error);
const float *ct_neuron_diff (const CtLayer *layer, CtBlob *blob, GError **error);
float *ct_neuron_mutable_diff (const CtLayer *layer, CtBlob *blob, GError **error);
const float *ct_neuron_data_on (const CtLayer *layer, CtBlob *blob, gboolean gpu,
                                GError **error);
float *ct_neuron_mutable_data_on (const CtLayer *layer, CtBlob *blob, gboolean gpu,
                                  GError **error);
const float *ct_neuron_diff_on (const CtLayer *layer, CtBlob *blob, gboolean gpu,
                                GError **error);
float *ct_neuron_mutable_diff_on (const CtLayer *layer, CtBlob *blob, gboolean gpu,
                                  GError **error);

G_END_DECLS
