/* explain-neuron.c: element-wise neurons (ReLU, Sigmoid, TanH): an output
 * from the input at the same place, and the diff as the top's diff times
 * the neuron's slope there. */
#include <math.h>
#include <string.h>

#include "explain-private.h"

typedef enum { RELU, SIGMOID, TANH } Kind;

static Kind
kind_of (const CtExplainLayer *layer)
{
  if (strcmp (layer->param->type, "Sigmoid") == 0)
    return SIGMOID;
  if (strcmp (layer->param->type, "TanH") == 0)
    return TANH;
  return RELU;
}

static float
slope_of (const CtExplainLayer *layer)
{
  const Caffe__ReLUParameter *p = layer->param->relu_param;

  return p != NULL && p->has_negative_slope ? p->negative_slope : 0;
}

static gboolean
same_place (CtValueExplanation *e, const CtExplainLayer *layer, gint64 *offset,
            GError **error)
{
  if (layer->n_bottoms < 1 || layer->n_tops < 1)
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED, _("%s has no input"),
                            layer->param->name);
  *offset = ct_explain_offset (&layer->bottoms[0], e->index);
  if (*offset < 0 || layer->bottoms[0].data == NULL || layer->tops[0].data == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("%s is not computed yet"), layer->bottoms[0].name);
  return TRUE;
}

gboolean
ct_explain_neuron (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  gint64 o;
  double v;

  if (!same_place (e, layer, &o, error))
    return FALSE;
  v = x->data[o];
  switch (kind_of (layer))
    {
    case RELU:
      {
        double factor = v > 0 ? 1 : slope_of (layer);

        ct_explain_add_term (e, v, factor, factor == 1 ? NULL : "negative_slope", "%s%s",
                             x->name, at);
        ct_explain_finish_sum (e);
        e->rule = g_strdup_printf (_("%s = max(0, x) + negative_slope · min(0, x), x = %s%s"),
                                   layer->tops[0].name, x->name, at);
        e->note = g_strdup (v > 0 ? _("The input is positive: ReLU passes it unchanged.")
                                  : _("The input is not positive: ReLU cuts it to 0 "
                                      "(times negative_slope)."));
        g_free (e->sum);
        e->sum = g_strdup_printf ("max(0, %s)%s = %s", ct_explain_number (a, v),
                                  factor == 1 || factor == 0 ? "" : " · negative_slope",
                                  ct_explain_number (b, e->result));
        break;
      }
    case SIGMOID:
      e->result = 1 / (1 + exp (-v));
      e->rule = g_strdup_printf ("%s = 1 / (1 + exp(−%s%s))", layer->tops[0].name, x->name, at);
      e->sum = g_strdup_printf ("1 / (1 + exp(−(%s))) = %s", ct_explain_number (a, v),
                                ct_explain_number (b, e->result));
      e->note = g_strdup (_("The sigmoid squashes the input into (0, 1)."));
      break;
    case TANH:
      e->result = tanh (v);
      e->rule = g_strdup_printf ("%s = tanh(%s%s)", layer->tops[0].name, x->name, at);
      e->sum = g_strdup_printf ("tanh(%s) = %s", ct_explain_number (a, v),
                                ct_explain_number (b, e->result));
      e->note = g_strdup (_("The hyperbolic tangent squashes the input into (−1, 1)."));
      break;
    }
  e->has_window = x->n_axes == 4;
  if (e->has_window)
    e->window = (CtExplainBox) { e->index[0], e->index[1], e->index[1] + 1, e->index[2],
                                 e->index[2] + 1, e->index[3], e->index[3] + 1 };
  return TRUE;
}

gboolean
ct_explain_neuron_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0], *y = &layer->tops[0];
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  gint64 o;
  double slope, out;

  if (!same_place (e, layer, &o, error))
    return FALSE;
  if (y->diff == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("the diff of %s is not computed yet"), y->name);
  out = y->data[o];
  switch (kind_of (layer))
    {
    case RELU:
      slope = x->data[o] > 0 ? 1 : slope_of (layer);
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s × (1 where the input was positive, "
                                   "else negative_slope)"), x->name, y->name);
      e->note = g_strdup (x->data[o] > 0
                          ? _("Chain rule: the input was positive, so ReLU's slope is 1 and "
                              "the diff passes unchanged.")
                          : _("Chain rule: the input was not positive, so ReLU's slope is 0 "
                              "(or negative_slope) and the diff is cut."));
      break;
    case SIGMOID:
      slope = out * (1 - out);
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s × y · (1 − y)"), x->name, y->name);
      e->note = g_strdup (_("Chain rule: the sigmoid's slope y · (1 − y) is at most 1/4, "
                            "so every sigmoid shrinks the gradient."));
      break;
    case TANH:
    default:
      slope = 1 - out * out;
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s × (1 − y²)"), x->name, y->name);
      e->note = g_strdup (_("Chain rule: tanh's slope 1 − y² is small where it saturates."));
      break;
    }
  ct_explain_add_term (e, y->diff[o], slope, "slope", "∂L/∂%s%s", y->name, at);
  ct_explain_finish_sum (e);
  return TRUE;
}
