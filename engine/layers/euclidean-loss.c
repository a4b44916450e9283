/* euclidean-loss.c: EuclideanLoss, half the mean over the batch of the
 * squared distance between two bottoms of the same size per item:
 * sum (a - b)^2 / (2 N). Unlike the other losses, both bottoms take a
 * gradient (the second with the opposite sign), as in Caffe. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "engine-error.h"
#include "loss-common-private.h"

typedef struct {
  CtLayer parent;
  CtBlob *diff; /* a - b, kept for backward */
} CtEuclideanLossLayer;

static gboolean
euclidean_loss_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEuclideanLossLayer *self = (CtEuclideanLossLayer *) layer;

  if (self->diff == NULL)
    self->diff = ct_blob_new ();
  return TRUE;
}

static gboolean
euclidean_loss_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEuclideanLossLayer *self = (CtEuclideanLossLayer *) layer;
  CtBlob *a = CT_BOTTOM (bottom, 0), *b = CT_BOTTOM (bottom, 1);

  if (!ct_loss_reshape (layer, bottom, top, error))
    return FALSE;
  if (ct_blob_count_from (a, 1, NULL) != ct_blob_count_from (b, 1, NULL))
    {
      g_autofree char *as = ct_blob_shape_string (a);
      g_autofree char *bs = ct_blob_shape_string (b);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("inputs must have the same dimension per item, got %s and %s"),
                            as, bs);
    }
  return ct_blob_reshape_like (self->diff, a, error);
}

static gboolean
euclidean_loss_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                        GError **error)
{
  CtEuclideanLossLayer *self = (CtEuclideanLossLayer *) layer;
  CtBlob *a = CT_BOTTOM (bottom, 0);
  gint64 count = ct_blob_count (a);
  const float *x, *y;
  float *d, *out, dot = 0.0f;

  if ((x = ct_blob_data_on (a, gpu, error)) == NULL
      || (y = ct_blob_data_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL
      || (d = ct_blob_mutable_data_on (self->diff, gpu, error)) == NULL
      || (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error)) == NULL)
    return FALSE;
  /* The dot lands on the host on either device (cuBLAS waits for it). */
  if (!ct_loss_check_status (layer, (gpu ? ct_cuda_sub : ct_cpu_sub) (count, x, y, d), error)
      || !ct_loss_check_status (layer, (gpu ? ct_cuda_dot : ct_cpu_dot) (count, d, d, &dot),
                                error))
    return FALSE;
  out[0] = dot / (float) ct_blob_get_shape (a)[0] / 2.0f;
  return TRUE;
}

static gboolean
euclidean_loss_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                         GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtEuclideanLossLayer *self = (CtEuclideanLossLayer *) layer;
  const float *d, *top_diff;

  if ((top_diff = ct_blob_cpu_diff (CT_TOP (top, 0), error)) == NULL
      || (d = ct_blob_data_on (self->diff, gpu, error)) == NULL)
    return FALSE;
  for (guint i = 0; i < 2; i++)
    {
      CtBlob *blob = CT_BOTTOM (bottom, i);
      float sign = i == 0 ? 1.0f : -1.0f;
      float alpha = sign * top_diff[0] / (float) ct_blob_get_shape (blob)[0];
      float *dx;

      if (!propagate_down[i])
        continue;
      if ((dx = ct_blob_mutable_diff_on (blob, gpu, error)) == NULL)
        return FALSE;
      if (!ct_loss_check_status (layer, (gpu ? ct_cuda_scale : ct_cpu_scale) (
                                          ct_blob_count (blob), alpha, d, dx),
                                 error))
        return FALSE;
    }
  return TRUE;
}

static void
euclidean_loss_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtEuclideanLossLayer *) layer)->diff, ct_blob_free);
}

static const CtLayerExplanation euclidean_loss_explanation = {
  .summary = N_("Half the mean squared distance between two bottoms: the loss of a "
                "regression."),
  .formula = N_("L = (1 / 2N) Σ_n ‖x₁[n] − x₂[n]‖²"),
  .parameters = N_("loss_weight."),
  .gradient = N_("The first bottom's diff is (x₁ − x₂) / N, the second's its negative: "
                 "each prediction is pulled towards its target in proportion to the error."),
};

const CtLayerClass ct_euclidean_loss_layer_class = {
  .explanation = &euclidean_loss_explanation,
  .type = "EuclideanLoss",
  .family = CT_LAYER_FAMILY_LOSS,
  .description = N_("Half the mean squared distance between two bottoms"),
  .instance_size = sizeof (CtEuclideanLossLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (1),
  .auto_top_blobs = TRUE,
  .is_loss = TRUE,
  .setup = euclidean_loss_setup,
  .reshape = euclidean_loss_reshape,
  .forward = euclidean_loss_forward,
  .backward = euclidean_loss_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = euclidean_loss_finalize,
  .flops_per_bottom = 3,
};
