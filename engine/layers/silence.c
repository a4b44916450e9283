/* silence.c: Silence, which takes bottoms nobody else uses so that the net
 * does not report them as outputs. It computes nothing; its backward zeroes
 * the bottoms' diffs, as Caffe's does. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common-private.h"

static gboolean
silence_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

static gboolean
silence_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  return TRUE;
}

static gboolean
silence_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                  GPtrArray *bottom, gboolean gpu, GError **error)
{
  for (guint i = 0; i < bottom->len; i++)
    {
      CtBlob *in = CT_BOTTOM (bottom, i);
      float *diff;

      if (!propagate_down[i])
        continue;
      diff = ct_blob_mutable_diff_on (in, gpu, error);
      if (diff == NULL || !ct_common_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (
                                                       ct_blob_count (in), 0.0f, diff),
                                            error))
        return FALSE;
    }
  return TRUE;
}

static const CtLayerExplanation silence_explanation = {
  .summary = N_("Takes blobs that nothing else uses, so that they are not printed as "
                "outputs of the net."),
  .formula = N_("tops = ∅ (no top)"),
  .parameters = N_("None."),
  .gradient = N_("It sends a diff of 0 back to its bottoms."),
};

const CtLayerClass ct_silence_layer_class = {
  .explanation = &silence_explanation,
  .type = "Silence",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Consumes blobs that are not used elsewhere, without output"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_AT_LEAST (1),
  .tops = CT_EXACTLY (0),
  .reshape = silence_reshape,
  .forward = silence_forward,
  .backward = silence_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
};
