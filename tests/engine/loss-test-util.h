/* loss-test-util.h: layer builders and checks the loss layer tests share. */
#pragma once

#include <glib/gstdio.h>

#include "binary-io.h"
#include "blas.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"

/* Gaussian scores times SCALE. */
CtBlob *ct_test_scores (const gint64 *dims, guint n_axes, float scale, guint64 seed);

/* Labels in [0, N_CLASSES), as floats. */
CtBlob *ct_test_labels (const gint64 *dims, guint n_axes, int n_classes, guint32 seed);

CtLayer *ct_test_make_layer (const char *type, Caffe__LayerParameter *param);

CtLayer *ct_test_plain_layer (const char *type);

/* Setup and forward; the value of top 0. */
float ct_test_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top);

void ct_test_assert_layer_error (const GError *error, const char *type);

/* Setup must fail with an error that names the layer. */
void ct_test_assert_setup_fails (CtLayer *layer, GPtrArray *bottom, GPtrArray *top);

void ct_test_assert_close (double got, double want, double rel);

Caffe__LossParameter ct_test_loss_param (int mode, int normalize, gboolean has_ignore,
                                         int ignore_label);

extern const CtGradientChecker ct_test_loss_checker;

void ct_test_check_bad_label (const char *type, Caffe__LayerParameter *param,
                              GPtrArray *bottom, guint n_tops, float bad_value,
                              gint64 bad_index, const char *value_text);
