/* vision-test-util.h: layer builders and checks the Vision layer tests share. */
#pragma once

#include "blas.h"
#include "engine-error.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"

Caffe__LayerParameter *ct_test_param_from_text (const char *text);

CtLayer *ct_test_layer_from_param (const Caffe__LayerParameter *param, Caffe__Phase phase);

CtLayer *ct_test_layer_from_text (const char *text, Caffe__Phase phase);

CtBlob *ct_test_from_values (const float *values, guint n, ...);

void ct_test_assert_close (const float *ours, const float *expected, gint64 n, double tolerance);

/* A gradient check of the layer TEXT over BOTTOM (owned), with Caffe's
 * step and threshold for the type. */
void ct_test_check_gradient (const char *text, Caffe__Phase phase, GPtrArray *bottom,
                             guint n_tops, int check_bottom, float step, float threshold);

/* Setup must fail, naming the layer and saying WORD. */
void ct_test_assert_setup_fails (const char *text, GPtrArray *bottom, guint n_tops,
                                 const char *word);
