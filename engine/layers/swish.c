/* swish.c: Swish, y = x * sigmoid(beta * x). The sigmoid is kept from
 * forward for backward, which otherwise needs only the top, so it runs in
 * place. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "neuron.h"
#include "neuron-private.h"

typedef struct {
  CtLayer parent;
  float beta;
  CtBlob *sigmoid; /* sigmoid(beta * x), shaped like the bottom */
} CtSwishLayer;

static gboolean
swish_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSwishLayer *self = (CtSwishLayer *) layer;
  const Caffe__SwishParameter *p = layer->param->swish_param;

  self->beta = p != NULL ? p->beta : 1.0f;
  if (self->sigmoid == NULL)
    self->sigmoid = ct_blob_new ();
  return TRUE;
}

static gboolean
swish_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSwishLayer *self = (CtSwishLayer *) layer;
  g_autoptr (GError) local = NULL;

  if (!ct_neuron_reshape (layer, bottom, top, error))
    return FALSE;
  if (!ct_blob_reshape_like (self->sigmoid, CT_BOTTOM (bottom, 0), &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

static gboolean
swish_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
               GError **error)
{
  CtSwishLayer *self = (CtSwishLayer *) layer;
  const float *x;
  float *y, *sig;
  gint64 n;

  if (!ct_neuron_forward_arrays_on (layer, bottom, top, gpu, &n, &x, &y, error))
    return FALSE;
  sig = ct_neuron_mutable_data_on (layer, self->sigmoid, gpu, error);
  if (sig == NULL && n > 0)
    return FALSE;
  return ct_neuron_check (layer, (gpu ? ct_cuda_swish_forward : ct_cpu_swish_forward)
                                   (n, self->beta, x, sig, y), error);
}

static gboolean
swish_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtSwishLayer *self = (CtSwishLayer *) layer;
  const float *x, *y, *dy, *sig;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays_on (layer, top, bottom, gpu, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  sig = ct_neuron_data_on (layer, self->sigmoid, gpu, error);
  if (sig == NULL && n > 0)
    return FALSE;
  return ct_neuron_check (layer, (gpu ? ct_cuda_swish_backward : ct_cpu_swish_backward)
                                   (n, self->beta, y, sig, dy, dx), error);
}

static void
swish_finalize (CtLayer *layer)
{
  CtSwishLayer *self = (CtSwishLayer *) layer;

  g_clear_pointer (&self->sigmoid, ct_blob_free);
}

static const CtLayerExplanation swish_explanation = {
  .summary = N_("Swish: the input times its own sigmoid, a smooth curve that dips "
                "slightly below 0."),
  .formula = N_("y = x · σ(β x)"),
  .parameters = N_("beta β."),
  .gradient = N_("The input diff is the output diff times β y + σ(β x) · (1 − β y)."),
};

const CtLayerClass ct_swish_layer_class = {
  .explanation = &swish_explanation,
  .type = "Swish",
  .family = CT_LAYER_FAMILY_NEURON,
  .description = N_("Swish, x sigmoid(beta x)"),
  .instance_size = sizeof (CtSwishLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = swish_setup,
  .reshape = swish_reshape,
  .forward = swish_forward,
  .backward = swish_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = swish_finalize,
  .flops_per_top = 1,
};
