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
  const float *scores;
  const float *diff;
  float *input;
  guint k = 0;

  if (!ct_net_blob_need_backward (net, path->input_blob))
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_UNSUPPORTED,
                   _("no gradient reaches blob '%s' (build the net with force_backward)"),
                   ct_net_get_blob_name (net, path->input_blob));
      return NULL;
    }
  input = ct_analysis_path_batch (path, net, 1, error);
  if (input == NULL)
    return NULL;
  memcpy (input, image, n * sizeof (float));
  if (!ct_analysis_path_forward (path, net, error))
    return NULL;
  scores = ct_analysis_path_scores (path, net, classifier, &k, error);
  if (scores == NULL)
    return NULL;
  if (score != NULL && klass < k)
    *score = scores[klass];
  if (!ct_analysis_path_backward_from_class (path, net, classifier, klass, path->first_layer,
                                             error))
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
