/* parameter.c: Parameter, a learnable blob of parameter_param's shape
 * offered as the layer's top, so that other layers can use a parameter as a
 * bottom. The top shares the blob's data and diff, as in Caffe: gradients
 * that reach the top are the parameter's. Caffe fills it with no filler:
 * it starts at zero unless weights are loaded. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common-private.h"

static const Caffe__ParameterParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ParameterParameter defaults = CAFFE__PARAMETER_PARAMETER__INIT;

  return layer->param->parameter_param != NULL ? layer->param->parameter_param : &defaults;
}

static gboolean
parameter_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__BlobShape *shape = get_param (layer)->shape;
  g_autoptr (GError) local = NULL;
  g_autoptr (CtBlob) blob = NULL;

  if (layer->blobs->len > 0)
    {
      if (layer->blobs->len != 1)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("has %u parameter blobs, expected 1"), layer->blobs->len);
      return TRUE;
    }
  blob = ct_blob_new ();
  if (!ct_blob_reshape_from_shape (blob, shape, &local))
    return ct_layer_fail (layer, error, local->code, _("parameter_param: %s"), local->message);
  g_ptr_array_add (layer->blobs, g_steal_pointer (&blob));
  return TRUE;
}

static gboolean
parameter_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBlob *blob = g_ptr_array_index (layer->blobs, 0);
  CtBlob *out = CT_TOP (top, 0);
  g_autoptr (GError) local = NULL;

  if (!ct_common_reshape_top (layer, out, 0, ct_blob_get_shape (blob), ct_blob_num_axes (blob),
                              error))
    return FALSE;
  if (!ct_blob_share_data (out, blob, &local) || !ct_blob_share_diff (out, blob, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

/* Shared again at every forward, as Caffe does: the net may have replaced
 * the blob's memory since (parameters shared between layers). */
static gboolean
parameter_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  return parameter_reshape (layer, bottom, top, error);
}

static const CtLayerExplanation parameter_explanation = {
  .summary = N_("Offers a learnable blob of a given shape as its top, for nets that need "
                "a free parameter."),
  .formula = N_("y = P (learned)"),
  .parameters = N_("shape: the blob's shape."),
  .gradient = N_("The top's diff becomes P's diff, which the solver uses to update P."),
};

const CtLayerClass ct_parameter_layer_class = {
  .explanation = &parameter_explanation,
  .type = "Parameter",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("A learnable blob of a given shape, offered as a top"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_EXACTLY (1),
  .setup = parameter_setup,
  .reshape = parameter_reshape,
  .forward = parameter_forward,
  .backward = ct_common_nothing_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .new_layer_text = "parameter_param { shape { dim: 1 } }",
};
