/* explain-pooling.c: a pooling's output as the input that won its window
 * (MAX) or the window's mean (AVE), with Caffe's windows (the last may
 * reach into the padding); and the diff of an input as the diffs of the
 * outputs it won (MAX) or a share of those whose windows cover it (AVE). */
#include <float.h>

#include "explain-private.h"

typedef struct {
  const CtExplainArray *x, *y;
  CtExplainGeometry g;
  gboolean max;
} Pool;

/* Output (i, j)'s window in the bottom, clipped, and (AVE) the size Caffe
 * divides by, padding included. */
static gint64
window (const Pool *p, gint64 i, gint64 j, gint64 *h0, gint64 *h1, gint64 *w0, gint64 *w1)
{
  gint64 height = p->x->dims[2], width = p->x->dims[3];
  gint64 size;

  *h0 = i * p->g.sh - p->g.ph;
  *w0 = j * p->g.sw - p->g.pw;
  *h1 = MIN (*h0 + p->g.kh, height + p->g.ph);
  *w1 = MIN (*w0 + p->g.kw, width + p->g.pw);
  size = (*h1 - *h0) * (*w1 - *w0);
  *h0 = MAX (*h0, 0);
  *w0 = MAX (*w0, 0);
  *h1 = MIN (*h1, height);
  *w1 = MIN (*w1, width);
  return size;
}

static gboolean
pool_read (const CtExplainLayer *layer, Pool *p, GError **error)
{
  const Caffe__PoolingParameter *param = layer->param->pooling_param;

  if (layer->n_bottoms < 1 || layer->n_tops < 1 || layer->bottoms[0].n_axes != 4
      || layer->tops[0].n_axes != 4)
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                            _("Only poolings of 4-D blobs are explained"));
  if (param != NULL && param->pool == CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC)
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                            _("Stochastic pooling is not explained yet"));
  p->x = &layer->bottoms[0];
  p->y = &layer->tops[0];
  ct_explain_pool_geometry (param, p->x->dims[2], p->x->dims[3], &p->g);
  p->max = param == NULL || param->pool == CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX;
  return TRUE;
}

/* The place that wins the window: the first largest, as Caffe picks it. */
static gint64
winner (const Pool *p, gint64 n, gint64 c, gint64 h0, gint64 h1, gint64 w0, gint64 w1)
{
  gint64 best = -1;
  float top = -FLT_MAX;

  for (gint64 h = h0; h < h1; h++)
    for (gint64 w = w0; w < w1; w++)
      {
        gint64 o = ct_explain_offset4 (p->x, n, c, h, w);

        if (p->x->data[o] > top)
          {
            top = p->x->data[o];
            best = o;
          }
      }
  return best;
}

gboolean
ct_explain_pooling (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  Pool p;
  gint64 n = e->index[0], c = e->index[1], h0, h1, w0, w1, size, best;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!pool_read (layer, &p, error))
    return FALSE;
  size = window (&p, e->index[2], e->index[3], &h0, &h1, &w0, &w1);
  best = p.max ? winner (&p, n, c, h0, h1, w0, w1) : -1;
  for (gint64 h = h0; h < h1; h++)
    for (gint64 w = w0; w < w1; w++)
      {
        gint64 o = ct_explain_offset4 (p.x, n, c, h, w);
        double factor = p.max ? (o == best ? 1 : 0) : 1.0 / size;

        ct_explain_add_term (e, p.x->data[o], factor, NULL,
                             "%s[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                             G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                             p.x->name, n, c, h, w);
      }
  ct_explain_finish_sum (e);
  if (p.max)
    {
      /* the sum's "a × 0 + b × 1" says less than max(a, b) */
      GString *s = g_string_new ("max(");

      for (guint t = 0; t < e->terms->len; t++)
        g_string_append_printf (s, "%s%s", t > 0 ? ", " : "",
                                ct_explain_number (buf, g_array_index (e->terms,
                                                                       CtExplainTerm,
                                                                       t).input));
      g_string_append_printf (s, ") = %s", ct_explain_number (buf, e->result));
      g_free (e->sum);
      e->sum = g_string_free (s, FALSE);
    }
  e->has_window = TRUE;
  e->window = (CtExplainBox) { n, c, c + 1, h0, h1, w0, w1 };
  ct_explain_trace_input (e, layer);
  if (p.max)
    {
      g_autofree char *at = NULL;

      for (guint t = 0; t < e->terms->len; t++)
        if (g_array_index (e->terms, CtExplainTerm, t).factor == 1)
          at = g_strdup (g_array_index (e->terms, CtExplainTerm, t).label);
      e->rule = g_strdup_printf (_("%s = the largest value of its %d × %d window in %s: %s won"),
                                 p.y->name, (int) (h1 - h0), (int) (w1 - w0), p.x->name,
                                 at != NULL ? at : "");
      e->note = g_strdup (_("Max pooling keeps the strongest response of each window and "
                            "drops the others."));
    }
  else
    {
      e->rule = g_strdup_printf (_("%s = the mean of its window in %s (divided by %d)"),
                                 p.y->name, p.x->name, (int) size);
      e->note = g_strdup (_("Average pooling smooths each window into its mean."));
    }
  return TRUE;
}

gboolean
ct_explain_pooling_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  Pool p;
  gint64 n = e->index[0], c = e->index[1], h = e->index[2], w = e->index[3];
  gint64 self;

  if (!pool_read (layer, &p, error))
    return FALSE;
  if (p.y->diff == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("the diff of %s is not computed yet"), p.y->name);
  self = ct_explain_offset4 (p.x, n, c, h, w);
  for (gint64 i = 0; i < p.y->dims[2]; i++)
    for (gint64 j = 0; j < p.y->dims[3]; j++)
      {
        gint64 h0, h1, w0, w1, size = window (&p, i, j, &h0, &h1, &w0, &w1);
        gint64 yo = ct_explain_offset4 (p.y, n, c, i, j);

        if (h < h0 || h >= h1 || w < w0 || w >= w1)
          continue;
        if (p.max && winner (&p, n, c, h0, h1, w0, w1) != self)
          continue;
        ct_explain_add_term (e, p.y->diff[yo], p.max ? 1.0 : 1.0 / size, NULL,
                             "∂L/∂%s[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                             G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                             p.y->name, n, c, i, j);
      }
  ct_explain_finish_sum (e);
  if (p.max)
    {
      e->rule = g_strdup_printf (_("∂L/∂%s = Σ ∂L/∂%s over the windows this input won"),
                                 p.x->name, p.y->name);
      e->note = g_strdup (e->terms->len == 0
                          ? _("This input won no window, so no gradient reaches it: 0.")
                          : _("Chain rule: a max passes its gradient to the input that won "
                              "and to no other."));
    }
  else
    {
      e->rule = g_strdup_printf (_("∂L/∂%s = Σ ∂L/∂%s / window size over the windows "
                                   "covering this input"), p.x->name, p.y->name);
      e->note = g_strdup (_("Chain rule: a mean passes an equal share of its gradient to "
                            "each input of its window."));
    }
  return TRUE;
}
