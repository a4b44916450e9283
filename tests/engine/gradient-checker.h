/* gradient-checker.h: finite-difference checks of a layer's backward, as
 * Caffe's GradientChecker does them (step 1e-2, threshold 1e-3, seed 1701,
 * optional kink): each computed gradient of a bottom or parameter blob is
 * compared with (f(x + h) - f(x - h)) / 2h of an objective over the tops. */
#pragma once

#include "layer.h"
#include "layer-test-util.h"

typedef struct {
  float stepsize;   /* h */
  float threshold;  /* allowed difference, relative to max(|computed|, |estimated|, 1) */
  guint64 seed;     /* layer->seed before every forward, so random layers repeat */
  float kink;       /* points within kink_range of kink are not checked ... */
  float kink_range; /* ... (ReLU at 0, AbsVal at 0); < 0: check everything */
} CtGradientChecker;

#define CT_GRADIENT_CHECKER_DEFAULT { 1e-2f, 1e-3f, 1701, 0.0f, -1.0f }

/* Set LAYER up on BOTTOM/TOP, then check every bottom (CHECK_BOTTOM < 0) or
 * only bottom CHECK_BOTTOM, plus the parameter blobs, for the objective
 * "one element of one top", over every element of every top. */
void ct_check_gradient_exhaustive (const CtGradientChecker *checker, CtLayer *layer,
                                   GPtrArray *bottom, GPtrArray *top, int check_bottom);

/* For element-wise layers (top i depends on bottom i only): one pass per
 * element instead of one per element pair. */
void ct_check_gradient_eltwise (const CtGradientChecker *checker, CtLayer *layer,
                                GPtrArray *bottom, GPtrArray *top);

/* One objective: TOP_ID < 0 means 1/2 sum of squares of all tops;
 * otherwise element TOP_DATA_ID of top TOP_ID. The layer is set up already. */
void ct_check_gradient_single (const CtGradientChecker *checker, CtLayer *layer,
                               GPtrArray *bottom, GPtrArray *top, int check_bottom,
                               int top_id, gint64 top_data_id, gboolean element_wise);

