/* recurrent-private.h: what RNN and LSTM share. Both are computed, as in
 * Caffe, by an inner net that unrolls the recurrence over the T timesteps
 * of the input (x: T x N x ..., cont: T x N sequence-continuation flags,
 * an optional static input x_static: N x ...). The type-specific part is
 * the unrolled net's text and the names of its recurrent and output blobs;
 * recurrent-base.c does the rest: building the inner net, exposing its
 * parameters as the layer's, wiring bottoms and tops to its blobs, and
 * carrying the hidden state from one forward to the next. */
#pragma once

#include "layer.h"
#include "net.h"

G_BEGIN_DECLS

typedef struct _CtRecurrentLayer CtRecurrentLayer;

typedef struct {
  /* Recurrent state blobs: inputs at t = 0 ("h_0", "c_0") and outputs at
   * t = T, in matching order. */
  guint n_recur;
  const char *const *recur_inputs;
  /* The output name for input I, which may depend on T ("h_5"). */
  char *(*recur_output_name) (const CtRecurrentLayer *self, guint i);
  /* The sequence output blob ("o", "h"). */
  const char *output;
  /* Append the unrolled layers (after the Input layer of x, cont and
   * x_static, and before the pseudo-losses) to TEXT as prototxt. */
  void (*write_unrolled) (const CtRecurrentLayer *self, GString *text);
} CtRecurrentOps;

struct _CtRecurrentLayer {
  CtLayer parent;
  const CtRecurrentOps *ops;
  gint64 T, N;
  guint num_output;
  gboolean expose_hidden;
  gboolean static_input;
  CtNet *unrolled;
  guint last_layer;          /* the last unrolled layer run (pseudo-losses excluded) */
  CtBlob *x_input;           /* borrowed from the unrolled net */
  CtBlob *cont_input;
  CtBlob *x_static_input;
  GPtrArray *recur_input_blobs;  /* CtBlob*, borrowed */
  GPtrArray *recur_output_blobs;
  CtBlob *output_blob;
  GPtrArray *inner_owners;   /* the unrolled net's own parameters, borrowed */
};

/* The class members RNN and LSTM share; the class's type_data is its
 * CtRecurrentOps. */
gboolean ct_recurrent_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error);
gboolean ct_recurrent_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                               GError **error);
gboolean ct_recurrent_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                               gboolean gpu, GError **error);
gboolean ct_recurrent_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                                GPtrArray *bottom, gboolean gpu, GError **error);
gboolean ct_recurrent_allow_force_backward (const CtLayer *layer, guint bottom_index);
void ct_recurrent_finalize (CtLayer *layer);

/* Helpers for write_unrolled: the layer name prefix ("lstm1_", or "" for
 * an unnamed layer), escaped for a prototxt string, and a filler as a
 * prototxt block (nothing when unset). */
char *ct_recurrent_prefix (const CtRecurrentLayer *self);
void ct_recurrent_append_filler (GString *text, const char *field,
                                 const Caffe__FillerParameter *filler);

/* The Concat layer that joins the T timesteps' NAME_1 … NAME_T along axis
 * 0 into NAME. */
void ct_recurrent_append_concat (GString *text, const char *prefix, const char *name,
                                 gint64 T);

G_END_DECLS
