/* saliency.c: the gradient of a class score with respect to the input. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "saliency.h"

float *
ct_saliency_gradient (CtNet *net, const CtClassifier *classifier, const CtAnalysisPath *path,
                      const float *image, guint klass, float *score, GError **error)
{
  gsize n = (gsize) path->channels * path->height * path->width;
  const float *diff;

  if (!ct_net_blob_need_backward (net, path->input_blob))
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_UNSUPPORTED,
                   _("no gradient reaches blob '%s' (build the net with force_backward)"),
                   ct_net_get_blob_name (net, path->input_blob));
      return NULL;
    }
  if (!ct_analysis_path_explain_class (path, net, classifier, image, klass, path->first_layer,
                                       score, error))
    return NULL;
  diff = ct_blob_cpu_diff (ct_net_get_blob (net, path->input_blob), error);
  return diff == NULL ? NULL : g_memdup2 (diff, n * sizeof (float));
}

float *
ct_saliency_map (const float *gradient, guint channels, guint height, guint width)
{
  gsize plane = (gsize) height * width;
  float *map = g_new0 (float, plane);

  for (guint c = 0; c < channels; c++)
    for (gsize i = 0; i < plane; i++)
      map[i] = MAX (map[i], fabsf (gradient[c * plane + i]));
  return map;
}
