/* weight-compare.h: a comparison of two sets of weights (model-diff.h)
 * looked at more closely: per layer, the relative change of all its
 * parameter blobs together, placed on the colour scale the graph shows it
 * with; per blob, the two versions and their difference ready to be drawn
 * (filters as tiles, a weight matrix as a matrix), and the values that
 * changed most, with where they sit. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "heatmap/colormap.h"
#include "model-diff.h"

G_BEGIN_DECLS

typedef struct {
  char *layer;
  double norm_a;      /* ‖w‖ over the layer's blobs of the same shape */
  double norm_delta;  /* ‖Δw‖ over them */
  double relative;    /* ‖Δw‖ / ‖w‖ (‖Δw‖ when ‖w‖ is 0) */
} CtLayerChange;

/* One CtLayerChange per layer with blobs of the same shape in both
 * models, in the first model's order. */
GPtrArray *ct_weight_compare_layers (const CtModelDiff *diff);

/* The colour scale of relative changes: logarithmic from
 * CT_CHANGE_SCALE_LO (and below) to CT_CHANGE_SCALE_HI (and above), on
 * viridis (dark: little change, yellow: much). Fixed, not fitted to the
 * data, so that two comparisons read alike: one SGD step of a trained
 * LeNet changes its layers by about 1e-5, training from 500 to 10,000
 * iterations by about 1. */
#define CT_CHANGE_SCALE_LO 1e-6
#define CT_CHANGE_SCALE_HI 1.0
double ct_change_scale_position (double relative);
CtRgb ct_change_scale_color (double relative);

/* Blob INDEX of LAYER in A and B, as floats with the shape to draw them
 * in: a 4-D (O, I, kh, kw) filter bank as one sample of O × I tiles, a
 * matrix as itself, anything else flattened to a row. */
typedef struct {
  float *a, *b, *delta;   /* COUNT values each; delta = b − a */
  gint64 count;
  gint64 shape[4];        /* the blob's own shape */
  guint n_axes;
  gint64 dims[4];         /* the shape to draw it in */
  guint n_dims;
} CtWeightPair;

void ct_weight_pair_free (CtWeightPair *pair);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtWeightPair, ct_weight_pair_free)

/* Errors name the layer and blob (missing, or of different shapes). */
CtWeightPair *ct_weight_pair_new (const Caffe__NetParameter *a, const Caffe__NetParameter *b,
                                  const char *layer, guint index, GError **error);

typedef struct {
  gint64 index;   /* flat index in the blob */
  float a, b;
} CtWeightChange;

/* The K values of PAIR whose |b − a| is largest, largest first, as a
 * GArray of CtWeightChange (fewer when fewer changed; unchanged values are
 * never listed). */
GArray *ct_weight_pair_top_changes (const CtWeightPair *pair, guint k);

/* Where flat INDEX sits in the blob's shape: "(3, 0, 2, 4)". */
char *ct_weight_pair_index_text (const CtWeightPair *pair, gint64 index);

G_END_DECLS
