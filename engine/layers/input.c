/* input.c: Input, the net's entry point for data the caller provides. Its
 * tops take the shapes of input_param (one shape for all tops, or one per
 * top) and the caller fills them; forward and backward do nothing. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"

static gboolean
input_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__InputParameter *p = layer->param->input_param;
  guint n_shapes = p != NULL ? (guint) p->n_shape : 0;

  if (n_shapes != 0 && n_shapes != 1 && n_shapes != top->len)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "input_param has %u shapes for %u top; give one shape, "
                                       "or one per top",
                                       "input_param has %u shapes for %u tops; give one shape, "
                                       "or one per top", top->len),
                          n_shapes, top->len);
  for (guint i = 0; i < top->len && n_shapes > 0; i++)
    {
      const Caffe__BlobShape *shape = p->shape[n_shapes == 1 ? 0 : i];
      g_autoptr (GError) local = NULL;

      if (!ct_blob_reshape_from_shape (CT_TOP (top, i), shape, &local))
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, _("top %u: %s"),
                              i, local->message);
    }
  return TRUE;
}

/* The caller reshapes the tops; nothing follows from bottoms. */
static gboolean
input_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

static gboolean
input_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  return TRUE;
}

static const CtLayerExplanation input_explanation = {
  .summary = N_("Holds the values the caller puts in: an image chosen in the window, a "
                "drawing, a batch from a program. It computes nothing; the net starts "
                "here."),
  .formula = N_("top = the values given"),
  .parameters = N_("input_param.shape: the shape of each top, N × C × H × W for images."),
  .gradient = N_("An input has no parameters to learn; with force_backward its diff says "
                 "how the loss would change if each input value changed, the basis of "
                 "saliency maps."),
};

const CtLayerClass ct_input_layer_class = {
  .explanation = &input_explanation,
  .type = "Input",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Tops filled by the caller, with the shapes of input_param"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_AT_LEAST (1),
  .setup = input_setup,
  .reshape = input_reshape,
  .forward = input_forward,
  .new_layer_text = "input_param { shape { dim: 1 dim: 1 dim: 28 dim: 28 } }",
  .name_prefix = "input",
};
