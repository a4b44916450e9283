/* explain-private.h: what the explain files share: building an
 * explanation term by term, reading a blob at an index, and the windows of
 * convolutions and poolings. */
#pragma once

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "explain.h"

G_BEGIN_DECLS

/* A 2-D window's geometry: kernel, stride, padding, dilation. */
typedef struct {
  gint64 kh, kw, sh, sw, ph, pw, dh, dw;
} CtExplainGeometry;

/* A convolution's (or deconvolution's) 2-D geometry; FALSE for an N-D one. */
gboolean ct_explain_conv_geometry (const Caffe__ConvolutionParameter *p, CtExplainGeometry *g);
/* A pooling's geometry over a HEIGHT × WIDTH map (global pooling: all of it). */
void ct_explain_pool_geometry (const Caffe__PoolingParameter *p, gint64 height, gint64 width,
                               CtExplainGeometry *g);

/* The element of A at INDEX (A's axes), or -1 when outside. */
gint64 ct_explain_offset (const CtExplainArray *a, const gint64 *index);
/* The same for a 4-D blob; -1 outside. */
gint64 ct_explain_offset4 (const CtExplainArray *a, gint64 n, gint64 c, gint64 h, gint64 w);
/* How many values one item of A holds (the axes after the first). */
gint64 ct_explain_item_count (const CtExplainArray *a);

/* A new explanation of the value at INDEX of BLOB (its data, or its diff
 * with DIFF); NULL with an error when the index is outside or the values
 * are missing. */
CtValueExplanation *ct_explain_begin (const CtExplainLayer *layer, const CtExplainArray *blob,
                                      const gint64 *index, guint n_axes, gboolean diff,
                                      GError **error);
/* Add INPUT × FACTOR; the labels are printf formats of the place read
 * (FACTOR_LABEL NULL: the factor is a plain number). */
void ct_explain_add_term (CtValueExplanation *e, double input, double factor,
                          const char *factor_label, const char *format, ...)
  G_GNUC_PRINTF (5, 6);
void ct_explain_set_bias (CtValueExplanation *e, double bias);
/* RESULT from the terms and bias, and the sum written out. */
void ct_explain_finish_sum (CtValueExplanation *e);
/* Fill the window on the net's input from E's window, when it traces. */
void ct_explain_trace_input (CtValueExplanation *e, const CtExplainLayer *layer);
gboolean ct_explain_fail (GError **error, int code, const char *format, ...)
  G_GNUC_PRINTF (3, 4);

/* One file per family: explain a value of top 0 (data), or a diff of
 * bottom 0 (DIFF), into E. */
gboolean ct_explain_convolution (CtValueExplanation *e, const CtExplainLayer *layer,
                                 GError **error);
gboolean ct_explain_convolution_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                      GError **error);
gboolean ct_explain_pooling (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_pooling_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                  GError **error);
gboolean ct_explain_inner_product (CtValueExplanation *e, const CtExplainLayer *layer,
                                   GError **error);
gboolean ct_explain_inner_product_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                        GError **error);
gboolean ct_explain_neuron (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_neuron_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                 GError **error);
gboolean ct_explain_softmax (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_softmax_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                  GError **error);
gboolean ct_explain_softmax_loss (CtValueExplanation *e, const CtExplainLayer *layer,
                                  GError **error);
gboolean ct_explain_softmax_loss_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                       GError **error);
gboolean ct_explain_copy (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_copy_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                               GError **error);
gboolean ct_explain_concat (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_concat_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                 GError **error);
gboolean ct_explain_lrn (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_lrn_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_eltwise (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_eltwise_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                  GError **error);
gboolean ct_explain_batch_norm (CtValueExplanation *e, const CtExplainLayer *layer,
                                GError **error);
gboolean ct_explain_batch_norm_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                     GError **error);
gboolean ct_explain_scale (CtValueExplanation *e, const CtExplainLayer *layer, GError **error);
gboolean ct_explain_scale_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                GError **error);
gboolean ct_explain_euclidean_loss (CtValueExplanation *e, const CtExplainLayer *layer,
                                    GError **error);
gboolean ct_explain_euclidean_loss_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                         GError **error);
gboolean ct_explain_sigmoid_loss (CtValueExplanation *e, const CtExplainLayer *layer,
                                  GError **error);
gboolean ct_explain_sigmoid_loss_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                       GError **error);

/* Where a flat OFFSET of A is, as an index text "[0, 3, 10, 10]". */
char *ct_explain_offset_text (const CtExplainArray *a, gint64 offset);
/* The values of the layer's blobs must be there: bottoms' data (and with
 * TOP_DIFF the tops' diffs). FALSE with an error naming the first missing. */
gboolean ct_explain_need (const CtExplainLayer *layer, gboolean top_diff, GError **error);

G_END_DECLS
