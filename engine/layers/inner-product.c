/* inner-product.c: InnerProduct, the fully connected layer. The bottom is
 * seen as M rows of K values (K = the count from `axis` on), the top as M
 * rows of num_output values: top = bottom * W^T + bias, one sgemm as in
 * Caffe. W is stored num_output x K, or K x num_output with `transpose`.
 * The passes are written once for both devices (cuBLAS's GEMM on the
 * GPU). */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "common-private.h"
#include "net.h"

typedef struct {
  CtLayer parent;
  gint64 m, k, n;
  gboolean bias_term;
  gboolean transpose;
} CtInnerProductLayer;

static const Caffe__InnerProductParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__InnerProductParameter defaults = CAFFE__INNER_PRODUCT_PARAMETER__INIT;

  return layer->param->inner_product_param != NULL ? layer->param->inner_product_param
                                                   : &defaults;
}

/* Blobs given by the net (shared or loaded) must fit what setup expects. */
static gboolean
check_given_blobs (CtInnerProductLayer *self, GError **error)
{
  CtLayer *layer = &self->parent;
  guint want = self->bias_term ? 2 : 1;

  if (layer->blobs->len != want)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE, "has %u parameter blob, expected %u",
                                       "has %u parameter blobs, expected %u", layer->blobs->len),
                          layer->blobs->len, want);
  if (ct_blob_count (g_ptr_array_index (layer->blobs, 0)) != self->n * self->k)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "weights have %" PRId64 " value, expected %" PRId64 " x %" PRId64,
                                       "weights have %" PRId64 " values, expected %"
                                       PRId64 " x %" PRId64,
                                       ct_blob_count (g_ptr_array_index (layer->blobs, 0))),
                          ct_blob_count (g_ptr_array_index (layer->blobs, 0)), self->n, self->k);
  if (self->bias_term && ct_blob_count (g_ptr_array_index (layer->blobs, 1)) != self->n)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE, "bias has %" PRId64 " value, expected %" PRId64,
                                       "bias has %" PRId64 " values, expected %" PRId64,
                                       ct_blob_count (g_ptr_array_index (layer->blobs, 1))),
                          ct_blob_count (g_ptr_array_index (layer->blobs, 1)), self->n);
  return TRUE;
}

static gboolean
inner_product_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtInnerProductLayer *self = (CtInnerProductLayer *) layer;
  const Caffe__InnerProductParameter *p = get_param (layer);
  g_autoptr (CtRng) rng = NULL;
  int axis;
  CtBlob *blob;

  if (!ct_common_not_in_place (layer, bottom, top, error))
    return FALSE;
  if (p->num_output == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("num_output must be positive"));
  axis = ct_common_axis (layer, CT_BOTTOM (bottom, 0), p->axis, error);
  if (axis < 0)
    return FALSE;
  self->n = p->num_output;
  self->k = ct_blob_count_from (CT_BOTTOM (bottom, 0), axis, NULL);
  self->bias_term = p->bias_term;
  self->transpose = p->transpose;

  if (layer->blobs->len > 0)
    return check_given_blobs (self, error);

  rng = ct_rng_new (layer->seed);
  {
    gint64 dims[2] = { self->n, self->k };

    if (self->transpose)
      {
        dims[0] = self->k;
        dims[1] = self->n;
      }
    blob = ct_common_add_param (layer, dims, 2, error);
    if (blob == NULL || !ct_layer_fill_param (layer, p->weight_filler, blob, rng, "weight_filler", error))
      return FALSE;
  }
  if (self->bias_term)
    {
      blob = ct_common_add_param (layer, &self->n, 1, error);
      if (blob == NULL || !ct_layer_fill_param (layer, p->bias_filler, blob, rng, "bias_filler", error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
inner_product_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtInnerProductLayer *self = (CtInnerProductLayer *) layer;
  CtBlob *in = CT_BOTTOM (bottom, 0);
  gint64 dims[CT_BLOB_MAX_AXES];
  int axis = ct_common_axis (layer, in, get_param (layer)->axis, error);
  gint64 k;

  if (axis < 0)
    return FALSE;
  k = ct_blob_count_from (in, axis, NULL);
  if (k != self->k)
    {
      g_autofree char *shape = ct_blob_shape_string (in);
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            g_dngettext (GETTEXT_PACKAGE,
                                         "input size incompatible with the weights: bottom %s has %"
                                         PRId64 " value per row from axis %d, the weights take %"
                                         PRId64,
                                         "input size incompatible with the weights: bottom %s has %"
                                         PRId64 " values per row from axis %d, the weights take %"
                                         PRId64, k),
                            shape, k, axis, self->k);
    }
  self->m = ct_blob_count_range (in, 0, axis, NULL);
  memcpy (dims, ct_blob_get_shape (in), axis * sizeof (gint64));
  dims[axis] = self->n;
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, axis + 1, error);
}

static gboolean
inner_product_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                       gboolean gpu, GError **error)
{
  CtInnerProductLayer *self = (CtInnerProductLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  const float *weight = ct_blob_data_on (g_ptr_array_index (layer->blobs, 0), gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);

  if (in == NULL || weight == NULL || out == NULL)
    return FALSE;
  if (!ct_common_check (layer, (gpu ? ct_cuda_gemm : ct_cpu_gemm) (
                                 CT_NO_TRANS, self->transpose ? CT_NO_TRANS : CT_TRANS,
                                 self->m, self->n, self->k, 1.0f, in, weight, 0.0f, out),
                        error))
    return FALSE;
  if (self->bias_term)
    {
      const float *bias = ct_blob_data_on (g_ptr_array_index (layer->blobs, 1), gpu, error);

      if (bias == NULL)
        return FALSE;
      return ct_common_check (layer, (gpu ? ct_cuda_bias_forward : ct_cpu_bias_forward) (
                                       self->m, self->n, 1, out, bias, out),
                              error);
    }
  return TRUE;
}

static gboolean
inner_product_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                        GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtInnerProductLayer *self = (CtInnerProductLayer *) layer;
  CtBlob *weights = g_ptr_array_index (layer->blobs, 0);
  const float *top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);

  if (top_diff == NULL || in == NULL)
    return FALSE;

  if (ct_layer_param_propagate_down (layer, 0))
    {
      float *weight_diff = ct_blob_mutable_diff_on (weights, gpu, error);
      CtStatus status;

      if (weight_diff == NULL)
        return FALSE;
      /* dW += top_diff^T * bottom (N x K), or bottom^T * top_diff (K x N). */
      if (self->transpose)
        status = (gpu ? ct_cuda_gemm : ct_cpu_gemm) (CT_TRANS, CT_NO_TRANS, self->k, self->n,
                                                     self->m, 1.0f, in, top_diff, 1.0f,
                                                     weight_diff);
      else
        status = (gpu ? ct_cuda_gemm : ct_cpu_gemm) (CT_TRANS, CT_NO_TRANS, self->n, self->k,
                                                     self->m, 1.0f, top_diff, in, 1.0f,
                                                     weight_diff);
      if (!ct_common_check (layer, status, error))
        return FALSE;
    }
  if (self->bias_term && ct_layer_param_propagate_down (layer, 1))
    {
      float *bias_diff = ct_blob_mutable_diff_on (g_ptr_array_index (layer->blobs, 1), gpu,
                                                  error);

      if (bias_diff == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_bias_backward : ct_cpu_bias_backward) (
                                     self->m, self->n, 1, top_diff, TRUE, bias_diff),
                            error))
        return FALSE;
    }
  if (propagate_down[0])
    {
      const float *weight = ct_blob_data_on (weights, gpu, error);
      float *in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error);

      if (weight == NULL || in_diff == NULL)
        return FALSE;
      return ct_common_check (layer, (gpu ? ct_cuda_gemm : ct_cpu_gemm) (
                                       CT_NO_TRANS, self->transpose ? CT_TRANS : CT_NO_TRANS,
                                       self->m, self->k, self->n, 1.0f, top_diff, weight, 0.0f,
                                       in_diff),
                              error);
    }
  return TRUE;
}

/* A multiply-add per weight for each row of the batch, and the bias. */
static double
inner_product_flops (const CtNetShapeLayer *l)
{
  const Caffe__InnerProductParameter *p = l->param->inner_product_param;
  double n_out = p != NULL && p->num_output > 0 ? p->num_output : 1.0;
  double weights = l->params->len > 0 ? (double) ct_net_shape_blob_count (l->params->pdata[0]) : 0.0;

  return 2.0 * (ct_layer_shapes_first_count (l->tops) / n_out) * weights + ct_layer_shapes_bias (l);
}

static const CtLayerExplanation inner_product_explanation = {
  .summary = N_("Fully connected: every output is a weighted sum of all the inputs plus a "
                "bias. The weights of one output form a template of the whole input; the "
                "output is large when the input looks like it. Classifiers end with one "
                "of these, one output per class."),
  .formula = N_("y[n, j] = b[j] + Σ_i W[j, i] · x[n, i]"),
  .parameters = N_("num_output: how many outputs; bias_term: whether b is added; axis: the "
                   "first axis flattened into the inputs; transpose: W stored as inputs × "
                   "outputs."),
  .gradient = N_("The weight diff ∂L/∂W[j, i] is the output diff times the input, summed "
                 "over the batch; the bias diff is the output diff summed; each input's "
                 "diff is Σ_j W[j, i] · ∂L/∂y[j]."),
};

const CtLayerClass ct_inner_product_layer_class = {
  .explanation = &inner_product_explanation,
  .type = "InnerProduct",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Fully connected: each output is a weighted sum of all inputs plus a bias"),
  .instance_size = sizeof (CtInnerProductLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = inner_product_setup,
  .reshape = inner_product_reshape,
  .forward = inner_product_forward,
  .backward = inner_product_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "inner_product_param { num_output: 10"
                    " weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } }",
  .flops = inner_product_flops,
  .name_prefix = "fc",
  .backward_reads_data = ct_layer_backward_reads_bottoms,
};
