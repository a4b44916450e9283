/* loss-common-private.h: what the loss layers share, as Caffe's LossLayer
 * base gives it: the scalar loss top and the first-axis check, the choice
 * and value of the normaliser, refusing gradients to labels, and label
 * errors that name the layer, the label and its position. */
#pragma once

#include "layer.h"
#include "status.h"

G_BEGIN_DECLS

/* LossLayer's reshape: bottoms 0 and 1 have the same first axis, and top 0
 * is a scalar (no axes, one element). */
gboolean ct_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error);

/* The normalisation mode from loss_param: `normalization` when given,
 * otherwise the legacy `normalize` (true: VALID, false: BATCH_SIZE), and
 * otherwise FALLBACK. Fails on an unknown mode. */
gboolean ct_loss_normalization (const CtLayer *layer,
                                Caffe__LossParameter__NormalizationMode fallback,
                                Caffe__LossParameter__NormalizationMode *mode,
                                GError **error);

/* The divisor for MODE: OUTER * INNER (FULL), VALID (VALID; -1: all),
 * OUTER (BATCH_SIZE) or 1 (NONE), never below 1 so that a batch whose labels
 * are all ignored gives 0 rather than NaN. */
float ct_loss_normalizer (Caffe__LossParameter__NormalizationMode mode,
                          gint64 outer, gint64 inner, gint64 valid);

/* loss_param's ignore label, if it has one. */
gboolean ct_loss_ignore_label (const CtLayer *layer, int *ignore_label);

/* allow_force_backward for loss layers: never to bottom 1, the labels. */
gboolean ct_loss_allow_force_backward (const CtLayer *layer, guint bottom_index);

/* Fails when PROPAGATE_DOWN asks for bottom INDEX, which takes no gradient
 * (labels, an infogain matrix, ...). WHAT names it for the message. */
gboolean ct_loss_refuse_gradient (const CtLayer *layer, GPtrArray *bottom,
                                  const gboolean *propagate_down, guint index,
                                  const char *what, GError **error);

/* Checks that each of the first N labels of LABELS is IGNORE_LABEL (when
 * HAS_IGNORE) or a class in [0, N_CLASSES), where the pass runs (on the GPU
 * when GPU); the error names the first bad label's value and position. */
gboolean ct_loss_check_labels (const CtLayer *layer, CtBlob *labels, gboolean gpu, gint64 n,
                               gint64 n_classes, gboolean has_ignore, int ignore_label,
                               GError **error);

/* A kernel status as a layer error ("...: kernel says why"). */
gboolean ct_loss_check_status (const CtLayer *layer, CtStatus status, GError **error);

G_END_DECLS
