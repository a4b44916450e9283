/* explain-eltwise.c: Eltwise, element by element over bottoms of one
 * shape: a SUM with a coefficient per bottom, a PROD, or a MAX (the first
 * bottom holding the largest value wins, as the engine picks it). A
 * bottom's diff is the top's diff times its coefficient (SUM), times the
 * other bottoms (PROD), or the top's diff where it won and 0 elsewhere
 * (MAX). */
#include "explain-private.h"

static int
op_of (const CtExplainLayer *layer)
{
  const Caffe__EltwiseParameter *p = layer->param->eltwise_param;

  return p != NULL && p->has_operation ? p->operation : CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__SUM;
}

static double
coeff_of (const CtExplainLayer *layer, guint b)
{
  const Caffe__EltwiseParameter *p = layer->param->eltwise_param;

  return p != NULL && p->n_coeff > b ? p->coeff[b] : 1;
}

/* Which bottom won at offset O: the engine compares bottom 0 with 1 (1
 * wins a tie), then lets a later bottom win only when strictly larger. */
static guint
winner_at (const CtExplainLayer *layer, gint64 o)
{
  guint w = layer->n_bottoms > 1 && !(layer->bottoms[0].data[o] > layer->bottoms[1].data[o]);

  for (guint b = 2; b < layer->n_bottoms; b++)
    if (layer->bottoms[b].data[o] > layer->bottoms[w].data[o])
      w = b;
  return w;
}

gboolean
ct_explain_eltwise (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  gint64 o = ct_explain_offset (&layer->tops[0], e->index);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  GString *s;
  guint w;

  if (!ct_explain_need (layer, FALSE, error))
    return FALSE;
  switch (op_of (layer))
    {
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD:
      s = g_string_new (NULL);
      e->result = 1;
      for (guint b = 0; b < layer->n_bottoms; b++)
        {
          double v = layer->bottoms[b].data[o];

          e->result *= v;
          ct_explain_number (buf, v);
          g_string_append_printf (s, b == 0 ? "%s" : buf[0] == '-' ? " × (%s)" : " × %s", buf);
        }
      g_string_append_printf (s, " = %s", ct_explain_number (buf, e->result));
      e->sum = g_string_free (s, FALSE);
      e->rule = g_strdup_printf (_("%s = the product of the %u bottoms at %s"), e->blob,
                                 layer->n_bottoms, at);
      e->note = g_strdup (_("Each input scales the others: one input near 0 silences the "
                            "output."));
      break;
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX:
      w = winner_at (layer, o);
      for (guint b = 0; b < layer->n_bottoms; b++)
        ct_explain_add_term (e, layer->bottoms[b].data[o], b == w, NULL, "%s%s",
                             layer->bottoms[b].name, at);
      ct_explain_finish_sum (e);
      s = g_string_new ("max(");
      for (guint b = 0; b < layer->n_bottoms; b++)
        g_string_append_printf (s, "%s%s", b > 0 ? ", " : "",
                                ct_explain_number (buf, layer->bottoms[b].data[o]));
      g_string_append_printf (s, ") = %s", ct_explain_number (buf, e->result));
      g_free (e->sum);
      e->sum = g_string_free (s, FALSE);
      e->rule = g_strdup_printf (_("%s = the largest of the %u bottoms at %s"), e->blob,
                                 layer->n_bottoms, at);
      e->note = g_strdup_printf (_("%s holds the largest value here and is passed on."),
                                 layer->bottoms[w].name);
      break;
    default:
      for (guint b = 0; b < layer->n_bottoms; b++)
        {
          double c = coeff_of (layer, b);
          g_autofree char *label = g_strdup_printf ("coeff[%u]", b);

          ct_explain_add_term (e, layer->bottoms[b].data[o], c, c == 1 ? NULL : label, "%s%s",
                               layer->bottoms[b].name, at);
        }
      ct_explain_finish_sum (e);
      e->rule = g_strdup_printf (_("%s = Σ over the %u bottoms of coeff × bottom at %s"),
                                 e->blob, layer->n_bottoms, at);
      e->note = g_strdup (_("The inputs are added, each times its coefficient (1 unless "
                            "coeff is given): a shortcut connection is such a sum."));
      break;
    }
  e->has_window = e->n_axes == 4;
  if (e->has_window)
    {
      e->window = (CtExplainBox) { e->index[0], e->index[1], e->index[1] + 1, e->index[2],
                                   e->index[2] + 1, e->index[3], e->index[3] + 1 };
      ct_explain_trace_input (e, layer);
    }
  return TRUE;
}

gboolean
ct_explain_eltwise_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *y = &layer->tops[0];
  const Caffe__EltwiseParameter *p = layer->param->eltwise_param;
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  gint64 o = ct_explain_offset (y, e->index);
  guint k = e->blob_index;
  double others = 1;

  if (!ct_explain_need (layer, TRUE, error))
    return FALSE;
  switch (op_of (layer))
    {
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__PROD:
      if (p == NULL || !p->has_stable_prod_grad || p->stable_prod_grad)
        for (guint b = 0; b < layer->n_bottoms; b++)
          others *= b == k ? 1 : layer->bottoms[b].data[o];
      else
        others = (double) y->data[o] / layer->bottoms[k].data[o];
      ct_explain_add_term (e, y->diff[o], others, _("the other bottoms' product"),
                           "∂L/∂%s%s", y->name, at);
      e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s × the product of the other bottoms"),
                                 e->blob, y->name);
      e->note = g_strdup (_("Chain rule: the slope of a product with respect to one factor "
                            "is the product of the others."));
      break;
    case CAFFE__ELTWISE_PARAMETER__ELTWISE_OP__MAX:
      {
        gboolean won = winner_at (layer, o) == k;

        ct_explain_add_term (e, y->diff[o], won, won ? _("won") : _("lost"), "∂L/∂%s%s",
                             y->name, at);
        e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s where this bottom won, else 0"),
                                   e->blob, y->name);
        e->note = g_strdup (won ? _("Chain rule: this input was the largest, so the whole "
                                    "gradient flows to it.")
                                : _("Chain rule: another input was larger here, so no "
                                    "gradient reaches this one."));
        break;
      }
    default:
      {
        double c = coeff_of (layer, k);
        g_autofree char *label = g_strdup_printf ("coeff[%u]", k);

        ct_explain_add_term (e, y->diff[o], c, c == 1 ? NULL : label, "∂L/∂%s%s", y->name,
                             at);
        e->rule = g_strdup_printf (_("∂L/∂%s = coeff × ∂L/∂%s"), e->blob, y->name);
        e->note = g_strdup (_("Chain rule: a sum passes its gradient to every input, times "
                              "the input's coefficient."));
        break;
      }
    }
  ct_explain_finish_sum (e);
  return TRUE;
}
