/* explain-softmax.c: Softmax (a probability as its exponential over the
 * sum of all the class's exponentials) and SoftmaxWithLoss (the loss as
 * the mean of −log p of the true classes; a score's diff as p − 1 for the
 * true class and p for the others, over the normaliser), with their
 * chain-rule steps. Axis from softmax_param (1 by default). */
#include <float.h>
#include <math.h>

#include "explain-private.h"

typedef struct {
  gint64 outer, classes, inner;
} Axes;

static Axes
axes_of (const CtExplainLayer *layer, const CtExplainArray *x)
{
  const Caffe__SoftmaxParameter *p = layer->param->softmax_param;
  guint axis = p != NULL && p->has_axis ? (p->axis < 0 ? p->axis + (int) x->n_axes : p->axis) : 1;
  Axes a = { 1, 1, 1 };

  axis = MIN (axis, x->n_axes > 0 ? x->n_axes - 1 : 0);
  for (guint i = 0; i < x->n_axes; i++)
    {
      if (i < axis)
        a.outer *= x->dims[i];
      else if (i == axis)
        a.classes = x->dims[i];
      else
        a.inner *= x->dims[i];
    }
  return a;
}

/* The probabilities of item OUTER, place INNER, into P (CLASSES values). */
static void
probabilities (const float *x, const Axes *a, gint64 outer, gint64 inner, double *p)
{
  double top = -DBL_MAX, sum = 0;

  for (gint64 k = 0; k < a->classes; k++)
    top = MAX (top, x[(outer * a->classes + k) * a->inner + inner]);
  for (gint64 k = 0; k < a->classes; k++)
    sum += p[k] = exp (x[(outer * a->classes + k) * a->inner + inner] - top);
  for (gint64 k = 0; k < a->classes; k++)
    p[k] /= sum;
}

/* Split a flat OFFSET of X into item, class and place. */
static void
place_of (const Axes *a, gint64 offset, gint64 *outer, gint64 *k, gint64 *inner)
{
  *inner = offset % a->inner;
  *k = offset / a->inner % a->classes;
  *outer = offset / a->inner / a->classes;
}

gboolean
ct_explain_softmax (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  Axes a = axes_of (layer, x);
  g_autofree double *p = g_new (double, a.classes);
  gint64 outer, k, inner, top_k = 0;
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE];

  if (x->data == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s is not computed yet"),
                            x->name);
  place_of (&a, ct_explain_offset (x, e->index), &outer, &k, &inner);
  probabilities (x->data, &a, outer, inner, p);
  for (gint64 c = 0; c < a.classes; c++)
    if (p[c] > p[top_k])
      top_k = c;
  e->result = p[k];
  e->rule = g_strdup_printf (_("%s = exp(score %d) / Σ over the %d classes of exp(score)"),
                             layer->tops[0].name, (int) k, (int) a.classes);
  e->sum = g_strdup_printf ("exp(%s) / Σ exp = %s",
                            ct_explain_number (s1, x->data[ct_explain_offset (x, e->index)]),
                            ct_explain_number (s2, p[k]));
  e->note = g_strdup_printf (_("Class %d gets %.1f%% of the probability; the most likely "
                               "class is %d (%.1f%%)."),
                             (int) k, 100 * p[k], (int) top_k, 100 * p[top_k]);
  return TRUE;
}

gboolean
ct_explain_softmax_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0], *y = &layer->tops[0];
  Axes a = axes_of (layer, x);
  gint64 outer, k, inner;
  double dot = 0, yk, dyk;
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE], s3[G_ASCII_DTOSTR_BUF_SIZE];
  char s4[G_ASCII_DTOSTR_BUF_SIZE];

  if (y->data == NULL || y->diff == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("the diff of %s is not computed yet"), y->name);
  place_of (&a, ct_explain_offset (x, e->index), &outer, &k, &inner);
  for (gint64 c = 0; c < a.classes; c++)
    {
      gint64 o = (outer * a.classes + c) * a.inner + inner;

      dot += (double) y->diff[o] * y->data[o];
    }
  yk = y->data[(outer * a.classes + k) * a.inner + inner];
  dyk = y->diff[(outer * a.classes + k) * a.inner + inner];
  e->result = yk * (dyk - dot);
  e->rule = g_strdup_printf (_("∂L/∂%s = y · (∂L/∂y − Σ_k ∂L/∂y_k · y_k)"), x->name);
  e->sum = g_strdup_printf ("%s × (%s − %s) = %s", ct_explain_number (s1, yk),
                            ct_explain_number (s2, dyk), ct_explain_number (s3, dot),
                            ct_explain_number (s4, e->result));
  e->note = g_strdup (_("Chain rule: every probability depends on every score, so a "
                        "score's diff weighs its own probability's diff against the "
                        "average diff."));
  return TRUE;
}

typedef struct {
  Axes a;
  const float *labels;
  gboolean has_ignore;
  int ignore;
  double norm;
} Loss;

static gboolean
loss_read (const CtExplainLayer *layer, Loss *l, GError **error)
{
  const Caffe__LossParameter *p = layer->param->loss_param;
  int mode = CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID;
  gint64 valid = 0;

  if (layer->n_bottoms < 2 || layer->bottoms[0].data == NULL || layer->bottoms[1].data == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("The scores and labels of %s are not available"),
                            layer->param->name);
  l->a = axes_of (layer, &layer->bottoms[0]);
  l->labels = layer->bottoms[1].data;
  l->has_ignore = p != NULL && p->has_ignore_label;
  l->ignore = l->has_ignore ? p->ignore_label : 0;
  if (p != NULL && p->has_normalize)
    mode = p->normalize ? CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID
                        : CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE;
  else if (p != NULL && p->has_normalization)
    mode = p->normalization;
  for (gint64 i = 0; i < l->a.outer * l->a.inner; i++)
    if (!l->has_ignore || (int) l->labels[i] != l->ignore)
      valid++;
  switch (mode)
    {
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL:
      l->norm = l->a.outer * l->a.inner;
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE:
      l->norm = l->a.outer;
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE:
      l->norm = 1;
      break;
    default:
      l->norm = valid;
    }
  l->norm = MAX (l->norm, 1);
  return TRUE;
}

gboolean
ct_explain_softmax_loss (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  Loss l;
  g_autofree double *p = NULL;
  g_autofree char *factor = NULL;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!loss_read (layer, &l, error))
    return FALSE;
  p = g_new (double, l.a.classes);
  factor = g_strdup_printf ("1/%s", ct_explain_number (buf, l.norm));
  for (gint64 n = 0; n < l.a.outer; n++)
    for (gint64 i = 0; i < l.a.inner; i++)
      {
        int label = (int) l.labels[n * l.a.inner + i];

        if ((l.has_ignore && label == l.ignore) || label < 0 || label >= l.a.classes)
          continue;
        probabilities (x->data, &l.a, n, i, p);
        ct_explain_add_term (e, -log (MAX (p[label], FLT_MIN)), 1 / l.norm, factor,
                             "−log p[%" G_GINT64_FORMAT ", %d]", n, label);
      }
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = −(1/%s) Σ over the items of log p(true class), p = "
                               "softmax(%s)"), layer->tops[0].name, buf, x->name);
  e->note = g_strdup (_("Each item adds −log of the probability the net gave its true "
                        "class: 0 when it was sure and right, large when it was sure and "
                        "wrong."));
  return TRUE;
}

gboolean
ct_explain_softmax_loss_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                              GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  const CtExplainArray *top = &layer->tops[0];
  Loss l;
  g_autofree double *p = NULL;
  gint64 outer, k, inner;
  int label;
  double weight;
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE];

  if (!loss_read (layer, &l, error))
    return FALSE;
  p = g_new (double, l.a.classes);
  place_of (&l.a, ct_explain_offset (x, e->index), &outer, &k, &inner);
  label = (int) l.labels[outer * l.a.inner + inner];
  /* the loss's own diff is its weight in the net's loss */
  weight = top->diff != NULL ? top->diff[0] : layer->loss_weight;
  probabilities (x->data, &l.a, outer, inner, p);
  g_autofree char *factor = g_strdup_printf ("%s/%s", ct_explain_number (s1, weight),
                                             ct_explain_number (s2, l.norm));
  if (l.has_ignore && label == l.ignore)
    ct_explain_add_term (e, 0, 0, factor, "ignored");
  else
    ct_explain_add_term (e, p[k] - (k == label ? 1 : 0), weight / l.norm, factor,
                         k == label ? "p[%" G_GINT64_FORMAT "] − 1" : "p[%" G_GINT64_FORMAT "]",
                         k);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = (p − 1 for the true class %d, else p) × loss "
                               "weight / %s"), x->name, label, s2);
  e->note = g_strdup (k == label
                      ? _("This is the true class: its score is pushed up (a negative "
                          "diff), the more so the less probable the net found it.")
                      : _("This is not the true class: its score is pushed down in "
                          "proportion to the probability the net gave it."));
  return TRUE;
}
