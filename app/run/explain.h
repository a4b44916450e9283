/* explain.h: where one value of a blob comes from, written out with the
 * actual numbers, for a learner who clicks it (issue 22, "click a value").
 *
 * The input is plain data: the layer's LayerParameter, its bottoms', tops'
 * and parameter blobs' values as float arrays, and the layers below it (for
 * the receptive field on the net's input). The window fills it from a run
 * snapshot (explain-snapshot.c), tests and tools from a CtNet
 * (explain-net.c). No GTK.
 *
 * A value of a top (DIFF FALSE) is explained by the layer that made it: a
 * convolution's output as its window × its filter + bias, a pooling's as
 * the input that won (MAX) or the mean (AVE), an inner product's by its
 * largest contributions, ReLU, the other element-wise neurons, softmax and
 * the losses by their formula. A diff of a bottom (DIFF TRUE) is explained
 * by the layer whose backward produced it: the chain-rule step from the
 * top's diff.
 *
 * Every explanation carries the terms it adds up: RESULT is their sum (with
 * the bias), recomputed in double, and VALUE is what the blob holds, so
 * that a reader (and the tests) can see they agree. */
#pragma once

#include <gio/gio.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

#define CT_EXPLAIN_MAX_AXES 4

/* One blob's values (borrowed). DIFF may be NULL. */
typedef struct {
  const char *name;
  guint n_axes;
  const gint64 *dims;
  const float *data;
  const float *diff;
} CtExplainArray;

/* The layer a value comes from (everything borrowed). */
typedef struct {
  const Caffe__LayerParameter *param; /* name, type and the type's parameters */
  guint n_bottoms, n_tops, n_params;
  const CtExplainArray *bottoms;
  const CtExplainArray *tops;
  const CtExplainArray *params;       /* weights, bias, ... */
  float loss_weight;                  /* of top 0; 0 for layers that are no loss */
  /* The layers before this one in net order (their parameters give the
   * geometry to trace a window down to the net's input); may be empty. */
  guint n_below;
  const Caffe__LayerParameter *const *below;
  /* The phase the net ran in: BatchNorm uses its stored statistics in TEST
   * unless use_global_stats says otherwise. */
  Caffe__Phase phase;
} CtExplainLayer;

/* A half-open box on a blob: item N, channels, rows and columns. */
typedef struct {
  gint64 n;
  gint64 c_begin, c_end;
  gint64 h_begin, h_end;
  gint64 w_begin, w_end;
} CtExplainBox;

/* One term of the sum: INPUT × FACTOR = PRODUCT. */
typedef struct {
  char *label;     /* where INPUT was read: "x[0, 0, 10, 12]" */
  char *factor_label; /* where FACTOR was read ("W[3, 0, 0, 2]"), or NULL for 1 */
  double input;
  double factor;
  double product;
} CtExplainTerm;

typedef struct {
  char *layer_name;
  char *layer_type;
  char *blob;             /* the blob the value is in */
  gboolean diff;
  guint blob_index;       /* which top (or with DIFF, bottom) BLOB is */
  guint n_axes;
  gint64 index[CT_EXPLAIN_MAX_AXES];
  double value;           /* as the blob holds it */
  double result;          /* as recomputed from the terms (and the bias) */
  char *rule;             /* the formula applied, with this value's indices (translated) */
  char *note;             /* a sentence or two on what it means (translated) */
  GArray *terms;          /* CtExplainTerm, every term, in reading order */
  gboolean has_bias;
  double bias;
  char *sum;              /* the sum written out with the numbers (largest terms
                             when there are many), ending "= RESULT" */
  /* The window read in the bottom (BOTTOM_INDEX), and on the net's input
   * (INPUT_BLOB) when it could be traced there. */
  gboolean has_window;
  guint bottom_index;
  CtExplainBox window;
  gboolean has_input_window;
  char *input_blob;
  CtExplainBox input_window;
  /* The filter used (a convolution's output channel), else -1. */
  gint64 filter;
} CtValueExplanation;

void ct_value_explanation_free (CtValueExplanation *explanation);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtValueExplanation, ct_value_explanation_free)

/* Explain the value at INDEX (N_AXES entries) of top TOP_INDEX of LAYER,
 * or, with DIFF, the diff at INDEX of bottom TOP_INDEX that LAYER's
 * backward produced. NULL with an error (G_IO_ERROR_NOT_SUPPORTED for a
 * type not explained yet, G_IO_ERROR_INVALID_ARGUMENT for an index outside
 * the blob or values missing). */
CtValueExplanation *ct_explain_value (const CtExplainLayer *layer, guint top_index,
                                      const gint64 *index, guint n_axes, gboolean diff,
                                      GError **error);

/* "0.1234" in the C locale, 4 significant digits, in BUF. */
const char *ct_explain_number (char buf[G_ASCII_DTOSTR_BUF_SIZE], double value);
/* "[0, 3, 10, 10]" (newly allocated). */
char *ct_explain_index_text (const gint64 *index, guint n_axes);

/* Trace BOX, a window on blob BLOB, down through the layers of BELOW (net
 * order, BLOB made by one of them) to a blob no layer makes (the net's
 * input), as convolutions and poolings widen it and element-wise layers
 * keep it. FALSE when a layer on the way mixes every position (an inner
 * product) or is not known. */
gboolean ct_explain_trace_window (const Caffe__LayerParameter *const *below, guint n_below,
                                  const char *blob, const CtExplainBox *box,
                                  const char **input_blob, CtExplainBox *input_box);

G_END_DECLS
