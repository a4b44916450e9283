/* explain-lrn.c: local response normalisation. A value is its input times
 * s^−β, where s = k + α/n · Σ x² over the n neighbouring channels
 * (ACROSS_CHANNELS), or 1 + α · (the mean of x² over an n × n window)
 * (WITHIN_CHANNEL). A diff has two paths: the direct one through s^−β,
 * and one through every neighbour's s that this input's square entered. */
#include <math.h>

#include "explain-private.h"

typedef struct {
  gint64 size, pre;
  double alpha, beta, k;
  gboolean within;
  gint64 channels, height, width;
} Lrn;

static gboolean
lrn_read (const CtExplainLayer *layer, Lrn *l, GError **error)
{
  const Caffe__LRNParameter *p = layer->param->lrn_param;
  const CtExplainArray *x;

  if (!ct_explain_need (layer, FALSE, error))
    return FALSE;
  x = &layer->bottoms[0];
  if (x->n_axes != 4)
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                            _("%s is not a 4-axis blob"), x->name);
  /* the defaults of caffe.proto's LRNParameter */
  l->size = p != NULL && p->has_local_size ? p->local_size : 5;
  l->alpha = p != NULL && p->has_alpha ? p->alpha : 1;
  l->beta = p != NULL && p->has_beta ? p->beta : 0.75;
  l->k = p != NULL && p->has_k ? p->k : 1;
  l->within = p != NULL && p->norm_region == CAFFE__LRNPARAMETER__NORM_REGION__WITHIN_CHANNEL;
  l->pre = (l->size - 1) / 2;
  l->channels = x->dims[1];
  l->height = x->dims[2];
  l->width = x->dims[3];
  return TRUE;
}

/* How many places a within-channel window at (H, W) averages over: the
 * padded window, as Caffe's average pooling counts it. */
static double
pool_size (const Lrn *l, gint64 h, gint64 w)
{
  gint64 hs = h - l->pre, ws = w - l->pre;
  gint64 he = MIN (hs + l->size, l->height + l->pre), we = MIN (ws + l->size, l->width + l->pre);

  return (double) ((he - hs) * (we - ws));
}

/* The sum of squares s depends on at (N, C, H, W), and s itself. */
static double
scale_at (const Lrn *l, const float *x, gint64 n, gint64 c, gint64 h, gint64 w, double *squares)
{
  double sum = 0;

  if (!l->within)
    {
      for (gint64 j = MAX (0, c - l->pre); j <= MIN (l->channels - 1, c + l->pre); j++)
        {
          double v = x[((n * l->channels + j) * l->height + h) * l->width + w];

          sum += v * v;
        }
      *squares = sum;
      return l->k + l->alpha / l->size * sum;
    }
  for (gint64 i = MAX (0, h - l->pre); i <= MIN (l->height - 1, h + l->pre); i++)
    for (gint64 j = MAX (0, w - l->pre); j <= MIN (l->width - 1, w + l->pre); j++)
      {
        double v = x[((n * l->channels + c) * l->height + i) * l->width + j];

        sum += v * v;
      }
  *squares = sum;
  return 1 + l->alpha * sum / pool_size (l, h, w);
}

gboolean
ct_explain_lrn (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  const gint64 *i = e->index;
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE], s3[G_ASCII_DTOSTR_BUF_SIZE];
  double squares, s;
  Lrn l;

  if (!lrn_read (layer, &l, error))
    return FALSE;
  s = scale_at (&l, x->data, i[0], i[1], i[2], i[3], &squares);
  ct_explain_add_term (e, x->data[ct_explain_offset (x, e->index)], pow (s, -l.beta), "s^−β",
                       "%s%s", x->name, at);
  ct_explain_finish_sum (e);
  if (l.within)
    e->rule = g_strdup_printf (_("%s = x / s^β, s = 1 + α · (mean of x² over the %d × %d "
                                 "window around %s)"), e->blob, (int) l.size, (int) l.size, at);
  else
    e->rule = g_strdup_printf (_("%s = x / s^β, s = k + α/%d · Σ x² over channels %d to %d"),
                               e->blob, (int) l.size, (int) MAX (0, i[1] - l.pre),
                               (int) MIN (l.channels - 1, i[1] + l.pre));
  e->note = g_strdup_printf (_("The squares of the neighbours add up to %s, so s = %s and the "
                               "input is multiplied by s^−β = %s: strong neighbours damp "
                               "this value."),
                             ct_explain_number (s1, squares), ct_explain_number (s2, s),
                             ct_explain_number (s3, pow (s, -l.beta)));
  e->has_window = TRUE;
  e->window = l.within
    ? (CtExplainBox) { i[0], i[1], i[1] + 1, MAX (0, i[2] - l.pre),
                       MIN (l.height, i[2] + l.pre + 1), MAX (0, i[3] - l.pre),
                       MIN (l.width, i[3] + l.pre + 1) }
    : (CtExplainBox) { i[0], MAX (0, i[1] - l.pre), MIN (l.channels, i[1] + l.pre + 1), i[2],
                       i[2] + 1, i[3], i[3] + 1 };
  ct_explain_trace_input (e, layer);
  return TRUE;
}

gboolean
ct_explain_lrn_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0], *y = &layer->tops[0];
  const gint64 *i = e->index;
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  g_autofree char *factor_label = NULL;
  gint64 o = ct_explain_offset (x, e->index);
  double squares, s, xi;
  Lrn l;

  if (!lrn_read (layer, &l, error) || !ct_explain_need (layer, TRUE, error))
    return FALSE;
  xi = x->data[o];
  s = scale_at (&l, x->data, i[0], i[1], i[2], i[3], &squares);
  ct_explain_add_term (e, y->diff[o], pow (s, -l.beta), "s^−β", "∂L/∂%s%s", y->name, at);
  factor_label = g_strdup_printf ("−2αβ·%s%s", x->name, at);
  if (!l.within)
    {
      /* every channel whose window holds this one: the same window, mirrored */
      for (gint64 c = MAX (0, i[1] - l.pre); c <= MIN (l.channels - 1, i[1] + l.pre); c++)
        {
          gint64 oc = ct_explain_offset4 (y, i[0], c, i[2], i[3]);
          double sc = scale_at (&l, x->data, i[0], c, i[2], i[3], &squares);

          ct_explain_add_term (e, y->diff[oc] * y->data[oc] / sc, -2 * l.alpha * l.beta / l.size * xi,
                               factor_label, "(∂L/∂y · y / s)[%" G_GINT64_FORMAT ", %"
                               G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]/%d",
                               i[0], c, i[2], i[3], (int) l.size);
        }
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂y · s^−β − (2αβ/n) · x · Σ over the "
                                   "neighbouring channels of ∂L/∂y · y / s"), x->name);
    }
  else
    {
      for (gint64 h = MAX (0, i[2] - l.pre); h <= MIN (l.height - 1, i[2] + l.pre); h++)
        for (gint64 w = MAX (0, i[3] - l.pre); w <= MIN (l.width - 1, i[3] + l.pre); w++)
          {
            gint64 oj = ct_explain_offset4 (y, i[0], i[1], h, w);
            double sj = scale_at (&l, x->data, i[0], i[1], h, w, &squares);

            ct_explain_add_term (e, y->diff[oj] * y->data[oj] / sj / pool_size (&l, h, w),
                                 -2 * l.alpha * l.beta * xi, factor_label,
                                 "(∂L/∂y · y / s)[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                 ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]/%d",
                                 i[0], i[1], h, w, (int) pool_size (&l, h, w));
          }
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂y · s^−β − 2αβ · x · Σ over the windows "
                                   "that hold it of ∂L/∂y · y / s / window size"), x->name);
    }
  ct_explain_finish_sum (e);
  e->note = g_strdup (_("Chain rule: the input reaches the loss directly, scaled by s^−β, and "
                        "through the damping of every neighbour whose sum of squares it is "
                        "part of."));
  return TRUE;
}
