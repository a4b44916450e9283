/* classifier.c: finding the scores and labels of a net. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "classifier.h"
#include "layer.h"

int
ct_net_last_writer (CtNet *net, guint blob)
{
  for (int i = (int) ct_net_n_layers (net) - 1; i >= 0; i--)
    {
      guint n_tops = 0;
      const guint *tops = ct_net_get_top_ids (net, (guint) i, &n_tops);

      for (guint t = 0; t < n_tops; t++)
        if (tops[t] == blob)
          return i;
    }
  return -1;
}

/* A Split layer's tops are copies of its bottom: answer the bottom. */
static guint
trace_split (CtNet *net, guint blob)
{
  int writer = ct_net_last_writer (net, blob);

  while (writer >= 0 && strcmp (ct_layer_get_type (ct_net_get_layer (net, (guint) writer)),
                                "Split") == 0)
    {
      guint n_bottoms = 0;
      const guint *bottoms = ct_net_get_bottom_ids (net, (guint) writer, &n_bottoms);

      blob = bottoms[0];
      writer = ct_net_last_writer (net, blob);
    }
  return blob;
}

static int
find_layer (CtNet *net, const char *type)
{
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    if (strcmp (ct_layer_get_type (ct_net_get_layer (net, i)), type) == 0)
      return (int) i;
  return -1;
}

/* The label blob of the Accuracy or SoftmaxWithLoss layer that reads SCORE
 * (after tracing splits), with its class axis and ignore label. */
static void
find_labels (CtNet *net, CtClassifier *c)
{
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      CtLayer *layer = ct_net_get_layer (net, i);
      const char *type = ct_layer_get_type (layer);
      guint n_bottoms = 0;
      const guint *bottoms = ct_net_get_bottom_ids (net, i, &n_bottoms);

      if (n_bottoms < 2 || trace_split (net, bottoms[0]) != c->score_blob)
        continue;
      if (strcmp (type, "Accuracy") == 0)
        {
          const Caffe__AccuracyParameter *p = layer->param->accuracy_param;

          c->label_blob = (int) trace_split (net, bottoms[1]);
          if (p != NULL)
            {
              c->axis = p->axis;
              c->has_ignore_label = p->has_ignore_label;
              c->ignore_label = p->ignore_label;
            }
          return;
        }
      if (strcmp (type, "SoftmaxWithLoss") == 0)
        {
          const Caffe__LossParameter *lp = layer->param->loss_param;
          const Caffe__SoftmaxParameter *sp = layer->param->softmax_param;

          c->label_blob = (int) trace_split (net, bottoms[1]);
          if (sp != NULL)
            c->axis = sp->axis;
          if (lp != NULL)
            {
              c->has_ignore_label = lp->has_ignore_label;
              c->ignore_label = lp->ignore_label;
            }
          return;
        }
    }
}

static gboolean
finish (CtNet *net, guint score, CtClassifier *c, GError **error)
{
  CtBlob *blob;
  int writer;
  int axis;

  c->score_blob = trace_split (net, score);
  writer = ct_net_last_writer (net, c->score_blob);
  if (writer < 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER,
                   _("blob '%s' is an input of the net, not class scores"),
                   ct_net_get_blob_name (net, c->score_blob));
      return FALSE;
    }
  c->score_layer = (guint) writer;
  c->probabilities =
    strcmp (ct_layer_get_type (ct_net_get_layer (net, (guint) writer)), "Softmax") == 0;
  c->axis = 1;
  c->label_blob = -1;
  find_labels (net, c);
  blob = ct_net_get_blob (net, c->score_blob);
  axis = ct_blob_canonical_axis_index (blob, c->axis, error);
  if (axis < 0)
    {
      g_prefix_error (error, _("blob '%s': "), ct_net_get_blob_name (net, c->score_blob));
      return FALSE;
    }
  c->axis = axis;
  return TRUE;
}

gboolean
ct_classifier_find (CtNet *net, const char *score_name, CtClassifier *c, GError **error)
{
  int layer;

  memset (c, 0, sizeof *c);
  if (score_name != NULL)
    {
      int blob = ct_net_blob_index (net, score_name);

      if (blob < 0)
        {
          g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER,
                       _("the net has no blob named '%s'"), score_name);
          return FALSE;
        }
      return finish (net, (guint) blob, c, error);
    }
  layer = find_layer (net, "Accuracy");
  if (layer < 0)
    layer = find_layer (net, "SoftmaxWithLoss");
  if (layer >= 0)
    {
      guint n_bottoms = 0;
      const guint *bottoms = ct_net_get_bottom_ids (net, (guint) layer, &n_bottoms);

      return finish (net, bottoms[0], c, error);
    }
  for (guint i = 0; i < ct_net_n_outputs (net); i++)
    {
      guint blob = ct_net_output_index (net, i);
      int writer = ct_net_last_writer (net, blob);

      if (writer >= 0 && strcmp (ct_layer_get_type (ct_net_get_layer (net, (guint) writer)),
                                 "Softmax") == 0)
        return finish (net, blob, c, error);
    }
  g_set_error_literal (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER,
                       _("the net has no class scores: no Accuracy, SoftmaxWithLoss or "
                         "Softmax layer (name the scores' blob)"));
  return FALSE;
}

guint
ct_classifier_n_classes (CtNet *net, const CtClassifier *c)
{
  CtBlob *blob = ct_net_get_blob (net, c->score_blob);

  return (guint) ct_blob_get_shape (blob)[c->axis];
}

gint64
ct_classifier_outer (CtNet *net, const CtClassifier *c)
{
  return ct_blob_count_range (ct_net_get_blob (net, c->score_blob), 0, c->axis, NULL);
}

gint64
ct_classifier_inner (CtNet *net, const CtClassifier *c)
{
  return ct_blob_count_from (ct_net_get_blob (net, c->score_blob), c->axis + 1, NULL);
}

void
ct_softmax_strided (const float *scores, guint k, gint64 stride, float *probs)
{
  float max = scores[0];
  double sum = 0.0;

  for (guint j = 1; j < k; j++)
    max = MAX (max, scores[j * stride]);
  for (guint j = 0; j < k; j++)
    {
      probs[j] = expf (scores[j * stride] - max);
      sum += probs[j];
    }
  for (guint j = 0; j < k; j++)
    probs[j] = (float) (probs[j] / sum);
}
