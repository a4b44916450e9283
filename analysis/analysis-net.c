/* analysis-net.c: loading a net for analysis and running the part of it
 * between an input and the scores. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "analysis-net.h"
#include "proto-file.h"
#include "snapshot.h"

CtNet *
ct_analysis_net_new (const Caffe__NetParameter *param, const char *source_name,
                     const char *weights, Caffe__Phase phase, gboolean force_backward,
                     GError **error)
{
  CtNetConfig config = { .phase = phase, .seed = 1701, .source_name = source_name };
  Caffe__NetParameter copy = *param;
  g_autoptr (CtNet) net = NULL;

  /* a shallow copy: only the flag differs, the layers are borrowed */
  if (force_backward)
    {
      copy.has_force_backward = TRUE;
      copy.force_backward = TRUE;
    }
  net = ct_net_new_with_config (&copy, &config, error);
  if (net == NULL)
    {
      g_prefix_error (error, "%s: ", source_name);
      return NULL;
    }
  if (weights != NULL && !ct_snapshot_load_weights_list (net, weights, error))
    return NULL;
  return g_steal_pointer (&net);
}

CtNet *
ct_analysis_load_net (const char *model, const char *weights, Caffe__Phase phase,
                      gboolean force_backward, GError **error)
{
  Caffe__NetParameter *param = ct_net_load_text_file (model, CT_TEXT_STRICT, NULL, error);
  CtNet *net;

  if (param == NULL)
    return NULL;
  net = ct_analysis_net_new (param, model, weights, phase, force_backward, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return net;
}

static int
default_input (CtNet *net)
{
  if (ct_net_n_inputs (net) > 0)
    return (int) ct_net_input_index (net, 0);
  return ct_net_blob_index (net, "data");
}

gboolean
ct_analysis_path_init (CtAnalysisPath *path, CtNet *net, const CtClassifier *classifier,
                       const char *input_name, GError **error)
{
  int input = input_name != NULL ? ct_net_blob_index (net, input_name) : default_input (net);
  CtBlob *blob;
  const gint64 *dims;

  memset (path, 0, sizeof *path);
  if (input < 0)
    {
      if (input_name != NULL)
        g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                     _("the net has no blob named '%s'"), input_name);
      else
        g_set_error_literal (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                             _("the net has no input and no blob named 'data' (name the "
                               "input blob)"));
      return FALSE;
    }
  blob = ct_net_get_blob (net, (guint) input);
  if (ct_blob_num_axes (blob) != 4)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);

      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("input blob '%s' is %s, not images (N × C × H × W)"),
                   ct_net_get_blob_name (net, (guint) input), shape);
      return FALSE;
    }
  path->input_blob = (guint) input;
  path->first_layer = (guint) (ct_net_last_writer (net, (guint) input) + 1);
  path->score_layer = classifier->score_layer;
  if (path->first_layer > path->score_layer)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("input blob '%s' is made after the scores '%s'"),
                   ct_net_get_blob_name (net, (guint) input),
                   ct_net_get_blob_name (net, classifier->score_blob));
      return FALSE;
    }
  dims = ct_blob_get_shape (blob);
  path->channels = (guint) dims[1];
  path->height = (guint) dims[2];
  path->width = (guint) dims[3];
  return TRUE;
}

float *
ct_analysis_path_batch (const CtAnalysisPath *path, CtNet *net, guint batch, GError **error)
{
  CtBlob *blob = ct_net_get_blob (net, path->input_blob);

  if (!ct_blob_reshape_4d (blob, batch, path->channels, path->height, path->width, error))
    return NULL;
  return ct_blob_mutable_cpu_data (blob, error);
}

gboolean
ct_analysis_path_forward (const CtAnalysisPath *path, CtNet *net, GError **error)
{
  return ct_net_forward_from_to (net, path->first_layer, path->score_layer, NULL, error);
}

const float *
ct_analysis_path_scores (const CtAnalysisPath *path, CtNet *net, const CtClassifier *classifier,
                         guint *n_classes, GError **error)
{
  if (ct_classifier_inner (net, classifier) != 1)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_UNSUPPORTED,
                   _("blob '%s' holds a score per position, not one per image"),
                   ct_net_get_blob_name (net, classifier->score_blob));
      return NULL;
    }
  *n_classes = ct_classifier_n_classes (net, classifier);
  return ct_blob_cpu_data (ct_net_get_blob (net, classifier->score_blob), error);
}

gboolean
ct_analysis_path_backward_from_class (const CtAnalysisPath *path, CtNet *net,
                                      const CtClassifier *classifier, guint klass, guint end,
                                      GError **error)
{
  CtBlob *scores = ct_net_get_blob (net, classifier->score_blob);
  guint k = ct_classifier_n_classes (net, classifier);
  float *diff;

  if (klass >= k)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("class %u is not one of the %u classes"), klass, k);
      return FALSE;
    }
  diff = ct_blob_mutable_cpu_diff (scores, error);
  if (diff == NULL)
    return FALSE;
  memset (diff, 0, sizeof (float) * (gsize) ct_blob_count (scores));
  diff[klass] = 1.0f;
  return ct_net_backward_from_to (net, path->score_layer, end, error);
}

gboolean
ct_analysis_path_explain_class (const CtAnalysisPath *path, CtNet *net,
                                const CtClassifier *classifier, const float *image, guint klass,
                                guint end, float *score, GError **error)
{
  gsize n = (gsize) path->channels * path->height * path->width;
  float *input = ct_analysis_path_batch (path, net, 1, error);
  const float *scores;
  guint k = 0;

  if (input == NULL)
    return FALSE;
  memcpy (input, image, n * sizeof (float));
  if (!ct_analysis_path_forward (path, net, error))
    return FALSE;
  scores = ct_analysis_path_scores (path, net, classifier, &k, error);
  if (scores == NULL)
    return FALSE;
  if (score != NULL && klass < k)
    *score = scores[klass];
  return ct_analysis_path_backward_from_class (path, net, classifier, klass, end, error);
}
