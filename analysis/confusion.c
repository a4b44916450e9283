/* confusion.c: counting a classifier's answers. */
#include <inttypes.h>
#include <math.h>
#include <glib/gi18n-lib.h>

#include "confusion.h"

CtConfusion *
ct_confusion_new (guint n_classes)
{
  CtConfusion *c = g_new0 (CtConfusion, 1);

  c->n_classes = n_classes;
  c->counts = g_new0 (guint64, (gsize) n_classes * n_classes);
  c->samples = g_array_new (FALSE, FALSE, sizeof (CtConfusionSample));
  return c;
}

void
ct_confusion_free (CtConfusion *c)
{
  if (c == NULL)
    return;
  g_free (c->counts);
  g_array_unref (c->samples);
  g_free (c);
}

gboolean
ct_confusion_add (CtConfusion *c, const float *scores, gint64 stride, gboolean probabilities,
                  float label, GError **error)
{
  g_autofree float *probs = g_new (float, c->n_classes);
  CtConfusionSample s = { .index = c->next_index++ };
  guint best = 0;

  if (!(label >= 0.0f && label < (float) c->n_classes && label == floorf (label)))
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_LABEL,
                   _("sample %" PRIu64 ": label %g is not one of the %u classes"),
                   s.index, (double) label, c->n_classes);
      return FALSE;
    }
  for (guint k = 1; k < c->n_classes; k++)
    if (scores[k * stride] > scores[best * stride])
      best = k;
  if (probabilities)
    for (guint k = 0; k < c->n_classes; k++)
      probs[k] = scores[k * stride];
  else
    ct_softmax_strided (scores, c->n_classes, stride, probs);
  s.label = (guint) label;
  s.predicted = best;
  s.confidence = probs[best];
  s.label_probability = probs[s.label];
  c->counts[(gsize) s.label * c->n_classes + s.predicted]++;
  g_array_append_val (c->samples, s);
  return TRUE;
}

gboolean
ct_confusion_add_batch (CtConfusion *c, CtNet *net, const CtClassifier *classifier,
                        GError **error)
{
  CtBlob *scores_blob = ct_net_get_blob (net, classifier->score_blob);
  gint64 outer = ct_classifier_outer (net, classifier);
  gint64 inner = ct_classifier_inner (net, classifier);
  guint k = ct_classifier_n_classes (net, classifier);
  const float *scores;
  const float *labels;
  CtBlob *label_blob;

  if (classifier->label_blob < 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER,
                   _("the net has no labels for blob '%s' (no Accuracy or SoftmaxWithLoss "
                     "layer reads it)"), ct_net_get_blob_name (net, classifier->score_blob));
      return FALSE;
    }
  if (k != c->n_classes)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("blob '%s' has %u classes, not %u"),
                   ct_net_get_blob_name (net, classifier->score_blob), k, c->n_classes);
      return FALSE;
    }
  label_blob = ct_net_get_blob (net, (guint) classifier->label_blob);
  if (ct_blob_count (label_blob) != outer * inner)
    {
      g_autofree char *a = ct_blob_shape_string (scores_blob);
      g_autofree char *b = ct_blob_shape_string (label_blob);

      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_LABEL,
                   _("blob '%s' (%s) does not hold one label per sample of '%s' (%s)"),
                   ct_net_get_blob_name (net, (guint) classifier->label_blob), b,
                   ct_net_get_blob_name (net, classifier->score_blob), a);
      return FALSE;
    }
  scores = ct_blob_cpu_data (scores_blob, error);
  labels = scores == NULL ? NULL : ct_blob_cpu_data (label_blob, error);
  if (labels == NULL)
    return FALSE;
  for (gint64 i = 0; i < outer; i++)
    for (gint64 j = 0; j < inner; j++)
      {
        float label = labels[i * inner + j];

        if (classifier->has_ignore_label && label == (float) classifier->ignore_label)
          {
            c->ignored++;
            c->next_index++;
            continue;
          }
        if (!ct_confusion_add (c, scores + i * k * inner + j, inner, classifier->probabilities,
                               label, error))
          {
            g_prefix_error (error, _("blob '%s': "),
                            ct_net_get_blob_name (net, (guint) classifier->label_blob));
            return FALSE;
          }
      }
  return TRUE;
}

CtConfusion *
ct_confusion_run_keeping (CtNet *net, const CtClassifier *classifier, guint iterations,
                          guint input_blob, CtSampleStore *store,
                          CtAnalysisProgressFunc progress, gpointer user_data, GError **error)
{
  g_autoptr (CtConfusion) c = ct_confusion_new (ct_classifier_n_classes (net, classifier));

  for (guint i = 0; i < iterations; i++)
    {
      if (!ct_net_forward (net, NULL, error) || !ct_confusion_add_batch (c, net, classifier, error)
          || (store != NULL
              && !ct_sample_store_add (store, ct_net_get_blob (net, input_blob), error))
          || !ct_analysis_report (progress, user_data, (double) (i + 1) / iterations, error))
        return NULL;
    }
  return g_steal_pointer (&c);
}

CtConfusion *
ct_confusion_run (CtNet *net, const CtClassifier *classifier, guint iterations,
                  CtAnalysisProgressFunc progress, gpointer user_data, GError **error)
{
  return ct_confusion_run_keeping (net, classifier, iterations, 0, NULL, progress, user_data,
                                   error);
}

guint64
ct_confusion_count (const CtConfusion *c, guint label, guint predicted)
{
  return c->counts[(gsize) label * c->n_classes + predicted];
}

guint64
ct_confusion_total (const CtConfusion *c)
{
  return c->samples->len;
}

guint64
ct_confusion_correct (const CtConfusion *c)
{
  guint64 sum = 0;

  for (guint k = 0; k < c->n_classes; k++)
    sum += ct_confusion_count (c, k, k);
  return sum;
}

double
ct_confusion_accuracy (const CtConfusion *c)
{
  guint64 total = ct_confusion_total (c);

  return total == 0 ? 0.0 : (double) ct_confusion_correct (c) / (double) total;
}

static guint64
row_sum (const CtConfusion *c, guint label)
{
  guint64 sum = 0;

  for (guint k = 0; k < c->n_classes; k++)
    sum += ct_confusion_count (c, label, k);
  return sum;
}

static guint64
column_sum (const CtConfusion *c, guint predicted)
{
  guint64 sum = 0;

  for (guint k = 0; k < c->n_classes; k++)
    sum += ct_confusion_count (c, k, predicted);
  return sum;
}

static double
share (guint64 part, guint64 whole)
{
  return whole == 0 ? NAN : (double) part / (double) whole;
}

double
ct_confusion_precision (const CtConfusion *c, guint k)
{
  return share (ct_confusion_count (c, k, k), column_sum (c, k));
}

double
ct_confusion_recall (const CtConfusion *c, guint k)
{
  return share (ct_confusion_count (c, k, k), row_sum (c, k));
}

double
ct_confusion_class_accuracy (const CtConfusion *c, guint k)
{
  guint64 total = ct_confusion_total (c);
  guint64 tp = ct_confusion_count (c, k, k);
  guint64 fp = column_sum (c, k) - tp;
  guint64 fn = row_sum (c, k) - tp;

  return share (total - fp - fn, total);
}

static int
by_confidence (gconstpointer a, gconstpointer b)
{
  const CtConfusionSample *x = a, *y = b;

  if (x->confidence != y->confidence)
    return x->confidence > y->confidence ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static GArray *
select_samples (const CtConfusion *c, int label, int predicted, gboolean wrong_only)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (CtConfusionSample));

  for (guint i = 0; i < c->samples->len; i++)
    {
      const CtConfusionSample *s = &g_array_index (c->samples, CtConfusionSample, i);

      if (wrong_only ? s->label != s->predicted
                     : (s->label == (guint) label && s->predicted == (guint) predicted))
        g_array_append_val (out, *s);
    }
  g_array_sort (out, by_confidence);
  return out;
}

GArray *
ct_confusion_cell_samples (const CtConfusion *c, guint label, guint predicted)
{
  return select_samples (c, (int) label, (int) predicted, FALSE);
}

GArray *
ct_confusion_misclassified (const CtConfusion *c)
{
  return select_samples (c, -1, -1, TRUE);
}
