/* dropout.c: Dropout. In TRAIN each forward draws a mask that keeps a unit
 * with probability 1 - dropout_ratio, and scales the kept ones by
 * 1 / (1 - dropout_ratio) so that the expected output equals the input; in
 * TEST it passes its input through. The mask is kept for backward, so it
 * runs in place.
 *
 * Caffe forks that have DropoutParameter.scale_train (false: scale at test
 * time by 1 - ratio instead of at train time) behave as scale_train below;
 * BVLC's schema, which ours follows, has no such field, so it is always
 * true here.
 *
 * On the GPU too the mask is drawn on the CPU, from the same generator in
 * the same order, and then copied over: a seeded GPU run drops exactly the
 * units a CPU run drops (one copy of n floats per TRAIN forward, small next
 * to the layers around it). */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"
#include "rng.h"

typedef struct {
  CtLayer parent;
  float ratio;
  float scale;          /* 1 / (1 - ratio) */
  gboolean scale_train;
  CtBlob *mask;         /* 0 or 1 per unit, drawn in TRAIN forward */
} CtDropoutLayer;

static gboolean
dropout_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtDropoutLayer *self = (CtDropoutLayer *) layer;
  const Caffe__DropoutParameter *p = layer->param->dropout_param;

  self->ratio = p != NULL ? p->dropout_ratio : 0.5f;
  if (!(self->ratio >= 0.0f && self->ratio < 1.0f))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("dropout_param.dropout_ratio must be at least 0 and below 1"));
  /* Computed in double and rounded once, as Caffe computes it. */
  self->scale = (float) (1.0 / (1.0 - (double) self->ratio));
  self->scale_train = TRUE;
  if (self->mask == NULL)
    self->mask = ct_blob_new ();
  return TRUE;
}

static gboolean
dropout_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtDropoutLayer *self = (CtDropoutLayer *) layer;
  g_autoptr (GError) local = NULL;

  if (!ct_neuron_reshape (layer, bottom, top, error))
    return FALSE;
  if (!ct_blob_reshape_like (self->mask, CT_BOTTOM (bottom, 0), &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

/* TEST: the identity, or a scaling by 1 - ratio without scale_train. */
static CtStatus
pass_through (CtDropoutLayer *self, gboolean gpu, gint64 n, const float *x, float *y)
{
  if (!self->scale_train)
    return (gpu ? ct_cuda_scale : ct_cpu_scale) (n, (float) (1.0 / (double) self->scale), x, y);
  if (x == y)
    return CT_STATUS_OK;
  return (gpu ? ct_cuda_copy : ct_cpu_copy) (n, x, y);
}

static gboolean
dropout_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                 GError **error)
{
  CtDropoutLayer *self = (CtDropoutLayer *) layer;
  const float *x, *mask;
  float *y, *drawn;
  gint64 n;

  if (!ct_neuron_forward_arrays_on (layer, bottom, top, gpu, &n, &x, &y, error))
    return FALSE;
  if (layer->phase != CAFFE__PHASE__TRAIN)
    return ct_neuron_check (layer, pass_through (self, gpu, n, x, y), error);

  drawn = ct_neuron_mutable_data (layer, self->mask, error);
  if (drawn == NULL && n > 0)
    return FALSE;
  {
    /* A generator per forward from the layer's seed, which then moves on:
     * resetting the seed replays the same mask. */
    g_autoptr (CtRng) rng = ct_rng_new (layer->seed);

    ct_rng_bernoulli (rng, n, 1.0f - self->ratio, drawn);
    layer->seed = ct_rng_next_seed (rng);
  }
  mask = ct_neuron_data_on (layer, self->mask, gpu, error);
  if (mask == NULL && n > 0)
    return FALSE;
  return ct_neuron_check (layer, (gpu ? ct_cuda_dropout_forward : ct_cpu_dropout_forward)
                                   (n, self->scale_train ? self->scale : 1.0f, mask, x, y),
                          error);
}

static gboolean
dropout_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                  GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtDropoutLayer *self = (CtDropoutLayer *) layer;
  const float *x, *y, *dy, *mask;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays_on (layer, top, bottom, gpu, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  if (layer->phase != CAFFE__PHASE__TRAIN)
    return ct_neuron_check (layer, pass_through (self, gpu, n, dy, dx), error);

  mask = ct_neuron_data_on (layer, self->mask, gpu, error);
  if (mask == NULL && n > 0)
    return FALSE;
  return ct_neuron_check (layer, (gpu ? ct_cuda_dropout_backward : ct_cpu_dropout_backward)
                                   (n, self->scale_train ? self->scale : 1.0f, mask, dy, dx),
                          error);
}

static void
dropout_finalize (CtLayer *layer)
{
  CtDropoutLayer *self = (CtDropoutLayer *) layer;

  g_clear_pointer (&self->mask, ct_blob_free);
}

static const CtLayerExplanation dropout_explanation = {
  .summary = N_("While training, sets each value to 0 with probability p and scales the "
                "others by 1 / (1 − p), so that no unit can rely on another; at test time "
                "it passes values unchanged."),
  .formula = N_("TRAIN: y = x · m / (1 − p), m ~ Bernoulli(1 − p);  TEST: y = x"),
  .parameters = N_("dropout_ratio p: the share dropped (0.5)."),
  .gradient = N_("The diff passes through the kept units, scaled the same way; dropped "
                 "units get 0."),
};

const CtLayerClass ct_dropout_layer_class = {
  .explanation = &dropout_explanation,
  .type = "Dropout",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Drops random units while training (ratio dropout_ratio), "
                    "passes everything through at test time"),
  .instance_size = sizeof (CtDropoutLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = dropout_setup,
  .reshape = dropout_reshape,
  .forward = dropout_forward,
  .backward = dropout_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = dropout_finalize,
  .new_layer_text = "dropout_param { dropout_ratio: 0.5 }",
  .usually_in_place = TRUE,
  .flops_per_top = 1,
  .name_prefix = "drop",
};
