/* clip.c: Clip, y = max(min, min(x, max)); the gradient passes where
 * min <= x <= max. Backward reads the bottom as Caffe's does; run in
 * place, it reads the clipped top there instead, as Caffe would. */
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "neuron.h"
#include "neuron-private.h"

static gboolean
clip_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  float *params = CT_NEURON_PARAMS (layer);
  const Caffe__ClipParameter *p = layer->param->clip_param;

  /* min and max are required fields: without them there is no clipping to do. */
  if (p == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("clip_param with min and max is required"));
  params[0] = p->min;
  params[1] = p->max;
  return TRUE;
}

/* params: min, max. */
static CtStatus
clip_forward (const float *p, gboolean gpu, int64_t n, const float *x, float *y)
{
  return (gpu ? ct_cuda_clip_forward : ct_cpu_clip_forward) (n, p[0], p[1], x, y);
}

static CtStatus
clip_backward (const float *p, gboolean gpu, int64_t n, const float *x, const float *y,
               const float *dy, float *dx)
{
  return (gpu ? ct_cuda_clip_backward : ct_cpu_clip_backward) (n, p[0], p[1], x, dy, dx);
}

static const CtNeuronKernels clip_kernels = {
  .forward_with = clip_forward,
  .backward_with = clip_backward,
};

static const CtLayerExplanation clip_explanation = {
  .summary = N_("Clamps each value to the range [min, max]."),
  .formula = N_("y = min(max(x, min), max)"),
  .parameters = N_("min, max: the range."),
  .gradient = N_("The diff passes where x was inside the range and is 0 where it was "
                 "clamped."),
};

CT_DEFINE_NEURON_CLASS (clip, "Clip",
                        N_("Clamps values to the range [min, max]"),
                        CtNeuronLayer, clip_setup, clip_kernels,
                        .explanation = &clip_explanation);
