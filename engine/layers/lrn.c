/* lrn.c: LRN, Caffe's local response normalisation of N x C x H x W blobs:
 * each value divided by (k + alpha / n * sum of squares over n neighbouring
 * channels)^beta (ACROSS_CHANNELS), or by (1 + alpha / n^2 * sum of squares
 * over an n x n spatial window)^beta (WITHIN_CHANNEL, where k plays no
 * part, as in Caffe). The arithmetic is in kernels/ (cpu/lrn.c and its
 * CUDA twin cuda/lrn.cu, one code path here for both devices); this file
 * keeps the scale between forward and backward where the backward pass
 * needs it: on the GPU, and for WITHIN_CHANNEL when a backward pass may
 * come. ACROSS_CHANNELS on the CPU slides its scales again from the
 * bottom in the backward pass, with the same bits and about as fast, and keeps
 * nothing (32 MB of GoogLeNet's at batch 10). Caffe composes
 * WITHIN_CHANNEL from split, power, pooling and product layers; the kernels
 * compute the same numbers in one pass on either device. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "lrn.h"
#include "vision-private.h"
#include "net.h"

typedef struct {
  CtLayer parent;
  gint64 size;
  float alpha, beta, k;
  gboolean within;
  gint64 num, channels, height, width;
  CtBlob *scale;   /* per element: the base of the power, from forward */
  CtBlob *scratch; /* backward's working space */
  gboolean scale_kept; /* the last forward pass wrote SCALE */
} CtLrnLayer;

static gboolean
lrn_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__LRNParameter defaults = CAFFE__LRNPARAMETER__INIT;
  CtLrnLayer *self = (CtLrnLayer *) layer;
  const Caffe__LRNParameter *p = layer->param->lrn_param != NULL ? layer->param->lrn_param
                                                                  : &defaults;

  if (!ct_vision_refuse_in_place (layer, bottom, top, error))
    return FALSE;
  if (p->local_size % 2 != 1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("local_size must be odd (it is %u)"), p->local_size);
  if (p->norm_region != CAFFE__LRNPARAMETER__NORM_REGION__ACROSS_CHANNELS
      && p->norm_region != CAFFE__LRNPARAMETER__NORM_REGION__WITHIN_CHANNEL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("unknown norm_region %d"), (int) p->norm_region);
  self->size = p->local_size;
  self->alpha = p->alpha;
  self->beta = p->beta;
  self->k = p->k;
  self->within = p->norm_region == CAFFE__LRNPARAMETER__NORM_REGION__WITHIN_CHANNEL;
  if (self->scale == NULL)
    self->scale = ct_blob_new ();
  if (self->scratch == NULL)
    self->scratch = ct_blob_new ();
  return TRUE;
}

static gboolean
lrn_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtLrnLayer *self = (CtLrnLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const gint64 *shape = ct_blob_get_shape (input);
  g_autoptr (GError) local = NULL;
  gint64 scratch;

  if (ct_blob_num_axes (input) != 4)
    {
      g_autofree char *s = ct_blob_shape_string (input);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the input must have 4 axes (num, channels, height, width); "
                              "it has shape %s"), s);
    }
  self->num = shape[0];
  self->channels = shape[1];
  self->height = shape[2];
  self->width = shape[3];
  scratch = self->within ? ct_blob_count (input) : self->height * self->width;
  if (!ct_blob_reshape_like (CT_TOP (top, 0), input, &local)
      || !ct_blob_reshape_like (self->scale, input, &local)
      || !ct_blob_reshape (self->scratch, &scratch, 1, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

static gboolean
lrn_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
             GError **error)
{
  CtLrnLayer *self = (CtLrnLayer *) layer;
  const gboolean keep_scale = gpu || (self->within && !layer->forward_only);
  const float *in;
  float *out, *scale = NULL;
  CtStatus status;

  if ((in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (keep_scale && (scale = ct_blob_mutable_data_on (self->scale, gpu, error)) == NULL))
    return FALSE;
  self->scale_kept = keep_scale;
  if (self->within)
    status = (gpu ? ct_cuda_lrn_within_forward : ct_cpu_lrn_within_forward)
             (self->num * self->channels, self->height, self->width, self->size, self->alpha,
              self->beta, in, scale, out);
  else
    status = (gpu ? ct_cuda_lrn_across_forward : ct_cpu_lrn_across_forward)
             (self->num, self->channels, self->height * self->width, self->size, self->alpha,
              self->beta, self->k, in, scale, out);
  return ct_vision_check (layer, status, _("local response normalisation"), error);
}

static gboolean
lrn_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtLrnLayer *self = (CtLrnLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const float *in, *out, *out_diff, *scale;
  float *in_diff, *scratch;
  CtStatus status;

  if (!propagate_down[0])
    return TRUE;
  /* Without the scale (a forward pass on the CPU), ACROSS slides it again
   * on the CPU. */
  if (!self->within && !self->scale_kept)
    gpu = FALSE;
  if ((in = ct_blob_data_on (input, gpu, error)) == NULL
      || (out = ct_blob_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (out_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (in_diff = ct_blob_mutable_diff_on (input, gpu, error)) == NULL)
    return FALSE;
  if (!self->within && !gpu)
    return ct_vision_check (layer, ct_cpu_lrn_across_backward_again
                                     (self->num, self->channels, self->height * self->width,
                                      self->size, self->alpha, self->beta, self->k, in, out,
                                      out_diff, in_diff),
                            _("local response normalisation"), error);
  if ((scale = ct_blob_data_on (self->scale, gpu, error)) == NULL
      || (scratch = ct_blob_mutable_data_on (self->scratch, gpu, error)) == NULL)
    return FALSE;
  if (self->within)
    status = (gpu ? ct_cuda_lrn_within_backward : ct_cpu_lrn_within_backward)
             (self->num * self->channels, self->height, self->width, self->size, self->alpha,
              self->beta, in, scale, out_diff, scratch, in_diff);
  else /* on the GPU: the CPU took its pass above */
    status = ct_cuda_lrn_across_backward (self->num, self->channels, self->height * self->width,
                                          self->size, self->alpha, self->beta, in, out, scale,
                                          out_diff, scratch, in_diff);
  return ct_vision_check (layer, status, _("local response normalisation"), error);
}

static void
lrn_finalize (CtLayer *layer)
{
  CtLrnLayer *self = (CtLrnLayer *) layer;

  g_clear_pointer (&self->scale, ct_blob_free);
  g_clear_pointer (&self->scratch, ct_blob_free);
}

/* The window's squares and sums, then the scale and the power. */
static double
lrn_flops (const CtNetShapeLayer *l)
{
  const Caffe__LRNParameter *p = l->param->lrn_param;
  double size = p != NULL ? p->local_size : 5.0;
  gboolean within = p != NULL && p->norm_region == CAFFE__LRNPARAMETER__NORM_REGION__WITHIN_CHANNEL;

  return ct_layer_shapes_first_count (l->tops) * ((within ? size * size : size) + 3.0);
}

static const CtLayerExplanation lrn_explanation = {
  .summary = N_("Local response normalisation: divides each value by a measure of the "
                "activity of its neighbours (nearby channels, or a nearby region), so "
                "that strong responses damp weaker ones around them."),
  .formula = N_("y = x / (k + (α / n) · Σ over the n neighbours of x²)^β"),
  .parameters = N_("local_size n: how many neighbours; alpha α, beta β, k: the strength of "
                   "the damping; norm_region: ACROSS_CHANNELS or WITHIN_CHANNEL."),
  .gradient = N_("The diff of each input gets its own path through the division and a "
                 "share from every output whose neighbourhood it is in."),
};

const CtLayerClass ct_lrn_layer_class = {
  .explanation = &lrn_explanation,
  .type = "LRN",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Local response normalisation across or within channels"),
  .instance_size = sizeof (CtLrnLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = lrn_setup,
  .reshape = lrn_reshape,
  .forward = lrn_forward,
  .backward = lrn_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = lrn_finalize,
  .new_layer_text = "lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 }",
  .flops = lrn_flops,
};
