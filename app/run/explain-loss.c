/* explain-loss.c: the losses besides SoftmaxWithLoss. EuclideanLoss is
 * Σ (a − b)² / 2N over the N items, and the diff of a (of b) is ±(a − b)
 * times the loss weight / N. SigmoidCrossEntropyLoss adds, per score x and
 * target t, −t · log σ(x) − (1 − t) · log(1 − σ(x)) (computed as
 * max(x, 0) − x · t + log(1 + e^−|x|)) over its normaliser, and a score's
 * diff is (σ(x) − t) times the loss weight over the normaliser. */
#include <math.h>

#include "explain-private.h"

static gboolean
two_inputs (const CtExplainLayer *layer, GError **error)
{
  if (layer->n_bottoms < 2 || !ct_explain_need (layer, FALSE, error))
    return layer->n_bottoms < 2 ? ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                                                   _("The inputs of %s are not available"),
                                                   layer->param->name)
                                : FALSE;
  return TRUE;
}

/* The loss's own diff is its weight in the net's loss. */
static double
weight_of (const CtExplainLayer *layer)
{
  const CtExplainArray *top = &layer->tops[0];

  return top->diff != NULL ? top->diff[0] : layer->loss_weight;
}

static gint64
count_of (const CtExplainArray *a)
{
  return a->n_axes > 0 ? a->dims[0] * ct_explain_item_count (a) : 1;
}

gboolean
ct_explain_euclidean_loss (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *a, *b;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double n;

  if (!two_inputs (layer, error))
    return FALSE;
  a = &layer->bottoms[0];
  b = &layer->bottoms[1];
  n = MAX (a->n_axes > 0 ? a->dims[0] : 1, 1);
  g_autofree char *factor = g_strdup_printf ("1/%s", ct_explain_number (buf, 2 * n));
  for (gint64 i = 0; i < count_of (a); i++)
    {
      double d = (double) a->data[i] - b->data[i];
      g_autofree char *at = ct_explain_offset_text (a, i);

      ct_explain_add_term (e, d * d, 1 / (2 * n), factor, "(%s − %s)²%s", a->name, b->name, at);
    }
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = Σ (%s − %s)² / 2N, N = %d items"), e->blob, a->name,
                             b->name, (int) n);
  e->note = g_strdup (_("Each value adds the square of its distance from the target: large "
                        "misses count much more than small ones."));
  return TRUE;
}

gboolean
ct_explain_euclidean_loss_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                                GError **error)
{
  const CtExplainArray *a, *b;
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE];
  gint64 o;
  double n, sign = e->blob_index == 0 ? 1 : -1, weight = weight_of (layer);

  if (!two_inputs (layer, error))
    return FALSE;
  a = &layer->bottoms[0];
  b = &layer->bottoms[1];
  n = MAX (a->n_axes > 0 ? a->dims[0] : 1, 1);
  o = ct_explain_offset (a, e->index);
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  g_autofree char *factor = g_strdup_printf ("%s%s/%s", sign < 0 ? "−" : "",
                                             ct_explain_number (s1, weight),
                                             ct_explain_number (s2, n));
  ct_explain_add_term (e, (double) a->data[o] - b->data[o], sign * weight / n, factor,
                       "(%s − %s)%s", a->name, b->name, at);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = %s(%s − %s) × loss weight / N"), e->blob,
                             sign < 0 ? "−" : "", a->name, b->name);
  e->note = g_strdup (_("Chain rule: the gradient is the miss itself, so a value is pulled "
                        "toward its target in proportion to how far off it is."));
  return TRUE;
}

typedef struct {
  gboolean has_ignore;
  int ignore;
  double norm;
} Sigmoid;

static gboolean
sigmoid_read (const CtExplainLayer *layer, Sigmoid *s, GError **error)
{
  const Caffe__LossParameter *p = layer->param->loss_param;
  const CtExplainArray *x, *t;
  int mode = CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE;
  gint64 valid = 0, outer, count;

  if (!two_inputs (layer, error))
    return FALSE;
  x = &layer->bottoms[0];
  t = &layer->bottoms[1];
  s->has_ignore = p != NULL && p->has_ignore_label;
  s->ignore = s->has_ignore ? p->ignore_label : 0;
  if (p != NULL && p->has_normalization)
    mode = p->normalization;
  else if (p != NULL && p->has_normalize)
    mode = p->normalize ? CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID
                        : CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__BATCH_SIZE;
  count = count_of (x);
  outer = x->n_axes > 0 ? x->dims[0] : 1;
  for (gint64 i = 0; i < count; i++)
    valid += !s->has_ignore || (int) t->data[i] != s->ignore;
  switch (mode)
    {
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__FULL:
      s->norm = count;
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__VALID:
      s->norm = valid;
      break;
    case CAFFE__LOSS_PARAMETER__NORMALIZATION_MODE__NONE:
      s->norm = 1;
      break;
    default:
      s->norm = outer;
    }
  s->norm = MAX (s->norm, 1);
  return TRUE;
}

static gboolean
ignored (const Sigmoid *s, float target)
{
  return s->has_ignore && (int) target == s->ignore;
}

gboolean
ct_explain_sigmoid_loss (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x, *t;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  Sigmoid s;

  if (!sigmoid_read (layer, &s, error))
    return FALSE;
  x = &layer->bottoms[0];
  t = &layer->bottoms[1];
  g_autofree char *factor = g_strdup_printf ("1/%s", ct_explain_number (buf, s.norm));
  for (gint64 i = 0; i < count_of (x); i++)
    {
      double v = x->data[i], target = t->data[i];
      g_autofree char *at = NULL;

      if (ignored (&s, t->data[i]))
        continue;
      at = ct_explain_offset_text (x, i);
      ct_explain_add_term (e, MAX (v, 0) - v * target + log1p (exp (-fabs (v))), 1 / s.norm,
                           factor, "ℓ%s", at);
    }
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = (1/%s) Σ ℓ, ℓ = −t · log σ(x) − (1 − t) · log(1 − σ(x)), "
                               "x = %s, t = %s"), e->blob, buf, x->name, t->name);
  e->note = g_strdup (_("Each score is read as a probability σ(x) that its target is 1: a "
                        "term is near 0 when that probability matches the target, large when "
                        "the net was sure and wrong."));
  return TRUE;
}

gboolean
ct_explain_sigmoid_loss_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                              GError **error)
{
  const CtExplainArray *x, *t;
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE];
  double weight = weight_of (layer), v, target;
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  gint64 o;
  Sigmoid s;

  if (!sigmoid_read (layer, &s, error))
    return FALSE;
  x = &layer->bottoms[0];
  t = &layer->bottoms[1];
  o = ct_explain_offset (x, e->index);
  v = x->data[o];
  target = t->data[o];
  g_autofree char *factor = g_strdup_printf ("%s/%s", ct_explain_number (s1, weight),
                                             ct_explain_number (s2, s.norm));
  if (ignored (&s, t->data[o]))
    ct_explain_add_term (e, 0, 0, factor, "ignored");
  else
    ct_explain_add_term (e, 1 / (1 + exp (-v)) - target, weight / s.norm, factor,
                         "σ(%s%s) − %s%s", x->name, at, t->name, at);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = (σ(x) − t) × loss weight / %s"), e->blob, s2);
  e->note = g_strdup (_("Chain rule: the score is pushed toward its target by how far the "
                        "probability σ(x) is from it."));
  return TRUE;
}
