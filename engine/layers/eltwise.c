/* eltwise.c: Eltwise, element by element over bottoms of one shape: PROD,
 * SUM with a coefficient per bottom, or MAX (which remembers the winning
 * bottom for the backward). PROD's gradient is, as in Caffe, the product of
 * the other bottoms with stable_prod_grad, or top / bottom without it. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "neuron.h"
#include "common-device-private.h"
#include "common-private.h"
#include "net.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  Caffe__EltwiseParameter__EltwiseOp op;
  float *coeffs;        /* one per bottom */
  gboolean stable_prod_grad;
  CtMem *mask;          /* MAX: the winning bottom (int32_t) of each element */
} CtEltwiseLayer;

static const Caffe__EltwiseParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__EltwiseParameter defaults = CAFFE__ELTWISE_PARAMETER__INIT;

  return layer->param->eltwise_param != NULL ? layer->param->eltwise_param : &defaults;
}

static gboolean
eltwise_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEltwiseLayer *self = (CtEltwiseLayer *) layer;
  const Caffe__EltwiseParameter *p = get_param (layer);

  self->op = p->operation;
  if (self->op != CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD
      && self->op != CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM
      && self->op != CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("unknown operation %d"), (int) self->op);
  if (p->n_coeff != 0 && p->n_coeff != bottom->len)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "has %u coeff value for %u bottoms; give one per bottom",
                                       "has %u coeff values for %u bottoms; give one per bottom",
                                       p->n_coeff),
                          (guint) p->n_coeff, bottom->len);
  /* Caffe refuses coefficients for PROD only; MAX ignores them. */
  if (p->n_coeff != 0 && self->op == CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("takes coeff values only with operation SUM"));
  if (!ct_common_not_in_place (layer, bottom, top, error))
    return FALSE;

  g_free (self->coeffs);
  self->coeffs = g_new (float, bottom->len);
  for (guint i = 0; i < bottom->len; i++)
    self->coeffs[i] = p->n_coeff != 0 ? p->coeff[i] : 1.0f;
  self->stable_prod_grad = p->stable_prod_grad;
  return TRUE;
}

static gboolean
eltwise_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEltwiseLayer *self = (CtEltwiseLayer *) layer;
  CtBlob *first = CT_BOTTOM (bottom, 0);

  for (guint i = 1; i < bottom->len; i++)
    if (!ct_common_same_shape (first, CT_BOTTOM (bottom, i)))
      {
        g_autofree char *shape = ct_blob_shape_string (CT_BOTTOM (bottom, i));
        g_autofree char *first_shape = ct_blob_shape_string (first);
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("bottom %u has shape %s, bottom 0 has shape %s; they must "
                                "be equal"), i, shape, first_shape);
      }
  if (self->op == CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX)
    ct_common_grow_mem (&self->mask, (gsize) ct_blob_count (first) * sizeof (int32_t));
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, ct_blob_get_shape (first),
                                ct_blob_num_axes (first), error);
}

/* A SUM whose coefficients are all 1 (ResNet's shortcuts), into a top
 * that is none of the bottoms, is one pass of its own. */
static gboolean
unit_sum (const CtEltwiseLayer *self, GPtrArray *bottom, GPtrArray *top)
{
  for (guint i = 0; i < bottom->len; i++)
    if (self->coeffs[i] != 1.0f || CT_BOTTOM (bottom, i) == CT_TOP (top, 0))
      return FALSE;
  return TRUE;
}

/* The ReLU's backward pass and this one's in one pass on the CPU: the
 * ReLU's gradient, from its output, goes to each bottom that wants it. */
static gboolean
relu_sum_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                   GPtrArray *bottom, GError **error)
{
  gint64 count = ct_blob_count (CT_TOP (top, 0));
  const float *y = ct_blob_data_on (CT_TOP (top, 0), FALSE, error);
  const float *dy = ct_blob_diff_on (CT_TOP (top, 0), FALSE, error);
  g_autofree float **dx = g_new (float *, bottom->len);
  int n = 0;

  if (y == NULL || dy == NULL)
    return FALSE;
  for (guint i = 0; i < bottom->len; i++)
    if (propagate_down[i]
        && (dx[n++] = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, i), FALSE, error)) == NULL)
      return FALSE;
  return n == 0 || ct_common_check (layer, ct_cpu_relu_backward_fanout (
                                               count, ct_relu_layer_slope (layer->absorbed[0]), y, dy, n,
                                               dx), error);
}

static gboolean
eltwise_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                 GError **error)
{
  CtEltwiseLayer *self = (CtEltwiseLayer *) layer;
  gint64 count = ct_blob_count (CT_TOP (top, 0));
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);
  g_autofree const float **in = g_new (const float *, bottom->len);
  int32_t *mask;

  if (out == NULL)
    return FALSE;
  for (guint i = 0; i < bottom->len; i++)
    if ((in[i] = ct_blob_data_on (CT_BOTTOM (bottom, i), gpu, error)) == NULL)
      return FALSE;

  switch (self->op)
    {
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD:
      if (!ct_common_check (layer, (gpu ? ct_cuda_mul : ct_cpu_mul) (count, in[0], in[1], out),
                            error))
        return FALSE;
      for (guint i = 2; i < bottom->len; i++)
        if (!ct_common_check (layer, (gpu ? ct_cuda_mul : ct_cpu_mul) (count, out, in[i], out),
                              error))
          return FALSE;
      return TRUE;
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM:
      /* eltwise_absorb took the ReLU for unit sums only */
      if (layer->n_absorbed > 0 && !gpu)
        return ct_common_check (layer, ct_cpu_eltwise_sum_relu (count, (int) bottom->len, in,
                                                                out,
                                                                ct_relu_layer_slope (layer->absorbed[0])),
                                error);
      if (unit_sum (self, bottom, top))
        return ct_common_check (layer, (gpu ? ct_cuda_eltwise_sum : ct_cpu_eltwise_sum) (
                                           count, (int) bottom->len, in, out), error);
      if (!ct_common_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (count, 0.0f, out), error))
        return FALSE;
      for (guint i = 0; i < bottom->len; i++)
        if (!ct_common_check (layer, (gpu ? ct_cuda_axpy : ct_cpu_axpy) (count, self->coeffs[i],
                                                                         in[i], out), error))
          return FALSE;
      return TRUE;
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX:
      mask = ct_common_mutable_mem_on (self->mask, gpu, error);
      if (mask == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_eltwise_max_first : ct_cpu_eltwise_max_first) (
                                       count, in[0], in[1], out, mask), error))
        return FALSE;
      for (guint i = 2; i < bottom->len; i++)
        if (!ct_common_check (layer,
                              (gpu ? ct_cuda_eltwise_max_next : ct_cpu_eltwise_max_next) (
                                  count, in[i], (int32_t) i, out, mask), error))
          return FALSE;
      return TRUE;
    case _CAFFE__ELTWISE_PARAMETER__ELTWISE_OP_IS_INT_SIZE:
    default:
      return ct_common_check (layer, CT_STATUS_INVALID, error);
    }
}

/* PROD's gradient for bottom I into IN_DIFF. */
static gboolean
prod_backward (CtEltwiseLayer *self, GPtrArray *bottom, guint i, const float *out,
               const float *top_diff, float *in_diff, gboolean gpu, GError **error)
{
  CtLayer *layer = &self->parent;
  gint64 count = ct_blob_count (CT_BOTTOM (bottom, i));
  gboolean started = FALSE;

  if (!self->stable_prod_grad)
    {
      const float *in = ct_blob_data_on (CT_BOTTOM (bottom, i), gpu, error);

      if (in == NULL
          || !ct_common_check (layer, (gpu ? ct_cuda_div : ct_cpu_div) (count, out, in, in_diff),
                               error))
        return FALSE;
      return ct_common_check (layer, (gpu ? ct_cuda_mul : ct_cpu_mul) (count, in_diff, top_diff,
                                                                       in_diff), error);
    }
  for (guint j = 0; j < bottom->len; j++)
    {
      const float *other;

      if (j == i)
        continue;
      other = ct_blob_data_on (CT_BOTTOM (bottom, j), gpu, error);
      if (other == NULL)
        return FALSE;
      if (!ct_common_check (layer, started
                                   ? (gpu ? ct_cuda_mul : ct_cpu_mul) (count, in_diff, other,
                                                                       in_diff)
                                   : (gpu ? ct_cuda_copy : ct_cpu_copy) (count, other, in_diff),
                            error))
        return FALSE;
      started = TRUE;
    }
  return ct_common_check (layer, (gpu ? ct_cuda_mul : ct_cpu_mul) (count, in_diff, top_diff,
                                                                   in_diff), error);
}

static gboolean
eltwise_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                  GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtEltwiseLayer *self = (CtEltwiseLayer *) layer;
  gint64 count = ct_blob_count (CT_TOP (top, 0));
  const float *out, *top_diff;

  if (layer->absorbs_backward && !gpu)
    return relu_sum_backward (layer, top, propagate_down, bottom, error);
  out = ct_blob_data_on (CT_TOP (top, 0), gpu, error);
  top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);

  if (out == NULL || top_diff == NULL)
    return FALSE;
  for (guint i = 0; i < bottom->len; i++)
    {
      const int32_t *mask;
      float *in_diff;
      gboolean ok;

      if (!propagate_down[i])
        continue;
      in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, i), gpu, error);
      if (in_diff == NULL)
        return FALSE;
      switch (self->op)
        {
        case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD:
          ok = prod_backward (self, bottom, i, out, top_diff, in_diff, gpu, error);
          break;
        case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM:
          ok = ct_common_check (layer, self->coeffs[i] == 1.0f
                                       ? (gpu ? ct_cuda_copy : ct_cpu_copy) (count, top_diff,
                                                                            in_diff)
                                       : (gpu ? ct_cuda_scale : ct_cpu_scale) (
                                             count, self->coeffs[i], top_diff, in_diff),
                                error);
          break;
        case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX:
          mask = ct_common_mem_on (self->mask, gpu, error);
          ok = mask != NULL
               && ct_common_check (layer,
                                   (gpu ? ct_cuda_eltwise_max_backward
                                        : ct_cpu_eltwise_max_backward) (count, top_diff, mask,
                                                                        (int32_t) i, in_diff),
                                   error);
          break;
        case _CAFFE__ELTWISE_PARAMETER__ELTWISE_OP_IS_INT_SIZE:
        default:
          ok = ct_common_check (layer, CT_STATUS_INVALID, error);
          break;
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static void
eltwise_finalize (CtLayer *layer)
{
  CtEltwiseLayer *self = (CtEltwiseLayer *) layer;

  g_free (self->coeffs);
  g_clear_pointer (&self->mask, ct_mem_unref);
}

/* One operation per element for each bottom after the first. */
static double
eltwise_flops (const CtNetShapeLayer *l)
{
  return ct_layer_shapes_first_count (l->tops) * (double) MAX ((int) l->bottoms->len - 1, 1);
}

static const CtLayerExplanation eltwise_explanation = {
  .summary = N_("Combines bottoms of one shape value by value: their product, a weighted "
                "sum (residual connections), or their maximum."),
  .formula = N_("SUM: y = Σ_k c_k · x_k;  PROD: y = Π_k x_k;  MAX: y = max_k x_k"),
  .parameters = N_("operation: PROD, SUM or MAX; coeff: the weights c_k of SUM."),
  .gradient = N_("SUM sends c_k times the diff to each bottom; PROD sends the diff times "
                 "the other bottoms; MAX sends it to the bottom that was largest."),
};

/* Only PROD's gradient needs the values; MAX keeps its mask. */
/* PROD reads everything; a sum that runs the ReLU after it backward
 * reads the ReLU's output, its top. */
static gboolean
eltwise_backward_reads_data (const CtLayer *layer, gboolean is_top, guint index)
{
  return ((const CtEltwiseLayer *) layer)->op == CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD
         || (is_top && index == 0 && layer->absorbs_backward);
}

/* A SUM of coefficients 1 into a top that is none of its bottoms runs
 * the ReLU in place after it with its own passes on the CPU, in one pass
 * over the blob each way. */
static guint
eltwise_absorb (CtLayer *layer, CtLayer *const *next, guint n_next, gboolean *backward)
{
  const CtEltwiseLayer *self = (const CtEltwiseLayer *) layer;
  const Caffe__LayerParameter *p = layer->param;

  *backward = FALSE;
  if (self->op != CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM || p->n_top != 1
      || strcmp (ct_layer_get_type (next[0]), "ReLU") != 0)
    return 0;
  for (guint i = 0; i < p->n_bottom; i++)
    if (self->coeffs[i] != 1.0f || strcmp (p->bottom[i], p->top[0]) == 0)
      return 0;
  *backward = TRUE;
  return 1;
}

const CtLayerClass ct_eltwise_layer_class = {
  .explanation = &eltwise_explanation,
  .type = "Eltwise",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Element-wise product, weighted sum or maximum of bottoms of one shape"),
  .instance_size = sizeof (CtEltwiseLayer),
  .bottoms = CT_AT_LEAST (2),
  .tops = CT_EXACTLY (1),
  .setup = eltwise_setup,
  .reshape = eltwise_reshape,
  .forward = eltwise_forward,
  .backward = eltwise_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = eltwise_finalize,
  .new_layer_text = "eltwise_param { operation: SUM }",
  .flops = eltwise_flops,
  .name_prefix = "sum",
  .backward_reads_data = eltwise_backward_reads_data,
  .absorb = eltwise_absorb,
};
