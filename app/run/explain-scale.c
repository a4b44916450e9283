/* explain-scale.c: Scale, y = x · γ (+ β with bias_term), γ and β spanning
 * the axes [axis, axis + num_axes) of x: a learned parameter, or the
 * second bottom. A diff of x is the top's diff times γ. */
#include "explain-private.h"

typedef struct {
  const CtExplainArray *gamma;
  const CtExplainArray *beta;   /* NULL without bias_term */
  gint64 place;                 /* in GAMMA (and BETA) for the value explained */
} Affine;

static gboolean
affine_read (CtValueExplanation *e, const CtExplainLayer *layer, Affine *a, GError **error)
{
  const Caffe__ScaleParameter *p = layer->param->scale_param;
  const CtExplainArray *x;
  int axis = p != NULL && p->has_axis ? p->axis : 1;
  int num_axes = p != NULL && p->has_num_axes ? p->num_axes : 1;
  gboolean bias = p != NULL && p->bias_term;
  guint next = 0;

  if (!ct_explain_need (layer, FALSE, error))
    return FALSE;
  x = &layer->bottoms[0];
  if (layer->n_bottoms > 1)
    {
      a->gamma = &layer->bottoms[1];
      num_axes = (int) a->gamma->n_axes;
    }
  else
    a->gamma = layer->n_params > next ? &layer->params[next++] : NULL;
  a->beta = bias && layer->n_params > next ? &layer->params[next] : NULL;
  if (a->gamma == NULL || a->gamma->data == NULL || (bias && (a->beta == NULL
                                                              || a->beta->data == NULL)))
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("The parameters of %s are not available"), layer->param->name);
  if (axis < 0)
    axis += (int) x->n_axes;
  if (num_axes < 0)
    num_axes = (int) x->n_axes - axis;
  a->place = 0;
  for (int i = axis; i < axis + num_axes && i < (int) x->n_axes; i++)
    a->place = a->place * x->dims[i] + e->index[i];
  return TRUE;
}

gboolean
ct_explain_scale (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  g_autofree char *label = NULL;
  Affine a;

  if (!affine_read (e, layer, &a, error))
    return FALSE;
  label = g_strdup_printf ("γ[%" G_GINT64_FORMAT "]", a.place);
  ct_explain_add_term (e, x->data[ct_explain_offset (x, e->index)], a.gamma->data[a.place],
                       label, "%s%s", x->name, at);
  if (a.beta != NULL)
    ct_explain_set_bias (e, a.beta->data[a.place]);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (a.beta != NULL ? _("%s = x · γ + β, γ and β of place %d")
                                            : _("%s = x · γ, γ of place %d"),
                             e->blob, (int) a.place);
  e->note = g_strdup (_("A learned factor (and shift) per channel: after a BatchNorm it lets "
                        "the net choose each channel's scale again."));
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
ct_explain_scale_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *y = &layer->tops[0];
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  g_autofree char *label = NULL;
  Affine a;

  if (!affine_read (e, layer, &a, error) || !ct_explain_need (layer, TRUE, error))
    return FALSE;
  label = g_strdup_printf ("γ[%" G_GINT64_FORMAT "]", a.place);
  ct_explain_add_term (e, y->diff[ct_explain_offset (y, e->index)], a.gamma->data[a.place],
                       label, "∂L/∂%s%s", y->name, at);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s × γ"), e->blob, y->name);
  e->note = g_strdup (_("Chain rule: the slope of x · γ + β with respect to x is γ."));
  return TRUE;
}
