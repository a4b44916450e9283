/* reduction.c: Reduction, every axis from `axis` on reduced to one number
 * by SUM, ASUM (sum of absolute values), SUMSQ (sum of squares) or MEAN,
 * times `coeff`. The top keeps the axes before `axis` (none by default: a
 * scalar). */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  CtReduceOp op;
  gint64 num, dim;
  float coeff; /* for MEAN, divided by dim */
} CtReductionLayer;

static const Caffe__ReductionParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ReductionParameter defaults = CAFFE__REDUCTION_PARAMETER__INIT;

  return layer->param->reduction_param != NULL ? layer->param->reduction_param : &defaults;
}

static gboolean
reduction_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtReductionLayer *self = (CtReductionLayer *) layer;

  switch (get_param (layer)->operation)
    {
    case CAFFE__REDUCTION_PARAMETER__REDUCTION_OP__SUM:
      self->op = CT_REDUCE_SUM;
      break;
    case CAFFE__REDUCTION_PARAMETER__REDUCTION_OP__ASUM:
      self->op = CT_REDUCE_ASUM;
      break;
    case CAFFE__REDUCTION_PARAMETER__REDUCTION_OP__SUMSQ:
      self->op = CT_REDUCE_SUMSQ;
      break;
    case CAFFE__REDUCTION_PARAMETER__REDUCTION_OP__MEAN:
      self->op = CT_REDUCE_MEAN;
      break;
    case _CAFFE__REDUCTION_PARAMETER__REDUCTION_OP_IS_INT_SIZE:
    default:
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO, _("unknown operation %d"),
                            (int) get_param (layer)->operation);
    }
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
reduction_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtReductionLayer *self = (CtReductionLayer *) layer;
  CtBlob *in = CT_BOTTOM (bottom, 0);
  int axis = ct_common_axis (layer, in, get_param (layer)->axis, error);

  if (axis < 0)
    return FALSE;
  self->num = ct_blob_count_range (in, 0, axis, NULL);
  self->dim = ct_blob_count_from (in, axis, NULL);
  self->coeff = get_param (layer)->coeff;
  if (self->op == CT_REDUCE_MEAN)
    self->coeff /= (float) self->dim;
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, ct_blob_get_shape (in), axis, error);
}

static gboolean
reduction_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                   GError **error)
{
  CtReductionLayer *self = (CtReductionLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);

  if (in == NULL || out == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_reduce_forward : ct_cpu_reduce_forward) (
                                     self->op, self->num, self->dim, self->coeff, in, out), error);
}

static gboolean
reduction_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                    GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtReductionLayer *self = (CtReductionLayer *) layer;
  const float *in, *top_diff;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error);
  if (in == NULL || top_diff == NULL || in_diff == NULL)
    return FALSE;
  return ct_common_check (layer, (gpu ? ct_cuda_reduce_backward : ct_cpu_reduce_backward) (
                                     self->op, self->num, self->dim, self->coeff, in, top_diff,
                                     in_diff),
                          error);
}

static const CtLayerExplanation reduction_explanation = {
  .summary = N_("Reduces the trailing axes to one number per item: a sum, a sum of "
                "absolute values, a sum of squares or a mean, times a coefficient."),
  .formula = N_("SUM: y = c · Σ x;  ASUM: c · Σ |x|;  SUMSQ: c · Σ x²;  MEAN: c · Σ x "
                "/ count"),
  .parameters = N_("operation; axis: the first axis reduced; coeff c."),
  .gradient = N_("Each input's diff is the output diff times the derivative of its term: "
                 "c, c·sign(x), 2c·x or c / count."),
};

const CtLayerClass ct_reduction_layer_class = {
  .explanation = &reduction_explanation,
  .type = "Reduction",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Sums, absolute sums, sums of squares or means over the trailing axes"),
  .instance_size = sizeof (CtReductionLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = reduction_setup,
  .reshape = reduction_reshape,
  .forward = reduction_forward,
  .backward = reduction_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
};
