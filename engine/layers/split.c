/* split.c: Split, which the net inserts where one blob feeds several
 * layers. Every top shares the bottom's data (nothing to copy forward, as in
 * Caffe) but has a diff of its own; the backward sums the tops' diffs into
 * the bottom's. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common-private.h"

static gboolean
split_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_common_not_in_place (layer, bottom, top, error);
}

static gboolean
split_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBlob *in = CT_BOTTOM (bottom, 0);

  for (guint i = 0; i < top->len; i++)
    {
      g_autoptr (GError) local = NULL;

      if (!ct_common_reshape_top (layer, CT_TOP (top, i), i, ct_blob_get_shape (in),
                                  ct_blob_num_axes (in), error))
        return FALSE;
      if (!ct_blob_share_data (CT_TOP (top, i), in, &local))
        return ct_layer_fail (layer, error, local->code, "%s", local->message);
    }
  return TRUE;
}

static gboolean
split_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  return TRUE;
}

/* The tops' diffs added in one pass (GoogLeNet's splits feed four
 * branches: one pass instead of four), in the order of the chain of adds
 * below, so with the same roundings. */
static gboolean
split_backward_cpu (CtLayer *layer, GPtrArray *top, gint64 count, float *in_diff,
                    GError **error)
{
  g_autofree const float **diffs = g_new (const float *, top->len);

  for (guint i = 0; i < top->len; i++)
    if ((diffs[i] = ct_blob_diff_on (CT_TOP (top, i), FALSE, error)) == NULL)
      return FALSE;
  return ct_common_check (layer, ct_cpu_sum (count, (int) top->len, diffs, in_diff), error);
}

static gboolean
split_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBlob *in = CT_BOTTOM (bottom, 0);
  gint64 count = ct_blob_count (in);
  const float *first, *second;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  in_diff = ct_blob_mutable_diff_on (in, gpu, error);
  first = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  if (in_diff == NULL || first == NULL)
    return FALSE;
  if (top->len == 1)
    return ct_common_check (layer, (gpu ? ct_cuda_copy : ct_cpu_copy) (count, first, in_diff),
                            error);

  if (!gpu)
    return split_backward_cpu (layer, top, count, in_diff, error);
  second = ct_blob_diff_on (CT_TOP (top, 1), gpu, error);
  if (second == NULL
      || !ct_common_check (layer, (gpu ? ct_cuda_add : ct_cpu_add) (count, first, second,
                                                                    in_diff), error))
    return FALSE;
  for (guint i = 2; i < top->len; i++)
    {
      const float *more = ct_blob_diff_on (CT_TOP (top, i), gpu, error);

      if (more == NULL
          || !ct_common_check (layer, (gpu ? ct_cuda_axpy : ct_cpu_axpy) (count, 1.0f, more,
                                                                          in_diff), error))
        return FALSE;
    }
  return TRUE;
}

static const CtLayerExplanation split_explanation = {
  .summary = N_("Inserted by the net where one blob feeds several layers: every top is a "
                "copy of the bottom."),
  .formula = N_("y_k = x"),
  .parameters = N_("None; the net adds it by itself."),
  .gradient = N_("The bottom's diff is the sum of the tops' diffs: a value used in several "
                 "places gets the gradient of each use."),
};

const CtLayerClass ct_split_layer_class = {
  .explanation = &split_explanation,
  .type = "Split",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Feeds one blob to several layers and sums their gradients"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_AT_LEAST (1),
  .setup = split_setup,
  .reshape = split_reshape,
  .forward = split_forward,
  .backward = split_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .backward_reads_data = ct_layer_backward_reads_nothing,
};
