/* explain-batch-norm.c: BatchNorm, y = (x − μ) / σ per channel with
 * σ = sqrt(var + eps): μ and var are the batch's own (over the items and
 * positions of the channel) when training, the stored running averages
 * when use_global_stats (the default in TEST). A diff is the top's diff
 * over σ, less (with the batch's statistics) what the mean and the
 * variance pass back. */
#include <math.h>

#include "explain-private.h"

typedef struct {
  gboolean global;
  double eps;
  gint64 outer, channels, inner;
  gint64 channel;  /* of the value explained */
  double mean, var, std;
} Norm;

static gboolean
norm_read (CtValueExplanation *e, const CtExplainLayer *layer, Norm *m, GError **error)
{
  const Caffe__BatchNormParameter *p = layer->param->batch_norm_param;
  const CtExplainArray *x;

  if (!ct_explain_need (layer, FALSE, error))
    return FALSE;
  x = &layer->bottoms[0];
  if (x->n_axes < 2)
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED, _("%s has no channel axis"),
                            x->name);
  m->global = p != NULL && p->has_use_global_stats ? p->use_global_stats
                                                   : layer->phase == CAFFE__PHASE__TEST;
  m->eps = p != NULL && p->has_eps ? p->eps : 1e-5;
  m->outer = x->dims[0];
  m->channels = x->dims[1];
  m->inner = 1;
  for (guint a = 2; a < x->n_axes; a++)
    m->inner *= x->dims[a];
  m->channel = e->index[1];
  m->mean = m->var = 0;
  if (m->global)
    {
      double factor;

      if (layer->n_params < 3 || layer->params[0].data == NULL || layer->params[1].data == NULL
          || layer->params[2].data == NULL)
        return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                                _("The stored statistics of %s are not available"),
                                layer->param->name);
      factor = layer->params[2].data[0] == 0 ? 0 : 1 / (double) layer->params[2].data[0];
      m->mean = layer->params[0].data[m->channel] * factor;
      m->var = layer->params[1].data[m->channel] * factor;
    }
  else
    {
      double count = (double) (m->outer * m->inner);

      for (gint64 n = 0; n < m->outer; n++)
        for (gint64 i = 0; i < m->inner; i++)
          m->mean += x->data[(n * m->channels + m->channel) * m->inner + i];
      m->mean /= MAX (count, 1);
      for (gint64 n = 0; n < m->outer; n++)
        for (gint64 i = 0; i < m->inner; i++)
          {
            double d = x->data[(n * m->channels + m->channel) * m->inner + i] - m->mean;

            m->var += d * d;
          }
      m->var /= MAX (count, 1);
    }
  m->std = sqrt (m->var + m->eps);
  return TRUE;
}

gboolean
ct_explain_batch_norm (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  char s1[G_ASCII_DTOSTR_BUF_SIZE], s2[G_ASCII_DTOSTR_BUF_SIZE], s3[G_ASCII_DTOSTR_BUF_SIZE];
  Norm m;

  if (!norm_read (e, layer, &m, error))
    return FALSE;
  ct_explain_add_term (e, x->data[ct_explain_offset (x, e->index)], 1 / m.std, "1/σ", "%s%s",
                       x->name, at);
  ct_explain_set_bias (e, -m.mean / m.std);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = (x − μ) / σ, σ = sqrt(var + eps), over channel %d"),
                             e->blob, (int) m.channel);
  e->note = g_strdup_printf (m.global
                             ? _("The stored running averages give μ = %s and var = %s "
                                 "(σ = %s): the value says how far the input is from the "
                                 "channel's usual mean, in standard deviations.")
                             : _("This batch's channel has mean μ = %s and variance %s "
                                 "(σ = %s): the value says how far the input is from the "
                                 "batch's mean, in standard deviations."),
                             ct_explain_number (s1, m.mean), ct_explain_number (s2, m.var),
                             ct_explain_number (s3, m.std));
  e->has_window = x->n_axes == 4;
  if (e->has_window)
    {
      e->window = (CtExplainBox) { e->index[0], e->index[1], e->index[1] + 1, e->index[2],
                                   e->index[2] + 1, e->index[3], e->index[3] + 1 };
      ct_explain_trace_input (e, layer);
    }
  return TRUE;
}

gboolean
ct_explain_batch_norm_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                            GError **error)
{
  const CtExplainArray *y = &layer->tops[0];
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  gint64 o = ct_explain_offset (y, e->index);
  double mean_dy = 0, mean_dy_y = 0, count;
  Norm m;

  if (!norm_read (e, layer, &m, error) || !ct_explain_need (layer, TRUE, error))
    return FALSE;
  ct_explain_add_term (e, y->diff[o], 1 / m.std, "1/σ", "∂L/∂%s%s", y->name, at);
  if (m.global)
    {
      ct_explain_finish_sum (e);
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s / σ"), e->blob, y->name);
      e->note = g_strdup (_("Chain rule: with stored statistics μ and σ are constants, so "
                            "the diff is only divided by σ."));
      return TRUE;
    }
  count = MAX ((double) (m.outer * m.inner), 1);
  for (gint64 n = 0; n < m.outer; n++)
    for (gint64 i = 0; i < m.inner; i++)
      {
        gint64 k = (n * m.channels + m.channel) * m.inner + i;

        mean_dy += y->diff[k];
        mean_dy_y += (double) y->diff[k] * y->data[k];
      }
  mean_dy /= count;
  mean_dy_y /= count;
  ct_explain_add_term (e, mean_dy, -1 / m.std, "−1/σ", _("mean of ∂L/∂%s over channel %d"),
                       y->name, (int) m.channel);
  ct_explain_add_term (e, y->data[o], -mean_dy_y / m.std, "−mean(∂L/∂y · y)/σ", "%s%s",
                       y->name, at);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = (∂L/∂y − mean(∂L/∂y) − y · mean(∂L/∂y · y)) / σ, "
                               "means over channel %d"), e->blob, (int) m.channel);
  e->note = g_strdup (_("Chain rule: every input of the channel moves its mean and variance, "
                        "so the diff loses the part shared by the whole channel."));
  return TRUE;
}
