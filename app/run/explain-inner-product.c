/* explain-inner-product.c: an inner product's output as the weighted sum
 * of all its inputs plus the bias (the largest contributions written out),
 * and an input's diff as the outputs' diffs weighted by the weights that
 * connect it to them. */
#include "explain-private.h"

typedef struct {
  const CtExplainArray *x, *y, *w, *b;
  gint64 inputs, outputs;
  gboolean transpose;
} Product;

static gboolean
product_read (const CtExplainLayer *layer, Product *p, GError **error)
{
  const Caffe__InnerProductParameter *param = layer->param->inner_product_param;

  if (layer->n_bottoms < 1 || layer->n_tops < 1 || layer->n_params < 1
      || (param != NULL && param->has_axis && param->axis != 1))
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                            _("Only inner products over axis 1 are explained"));
  if (layer->params[0].data == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("The weights of %s are not available"), layer->param->name);
  p->x = &layer->bottoms[0];
  p->y = &layer->tops[0];
  p->w = &layer->params[0];
  p->b = layer->n_params > 1 && layer->params[1].data != NULL ? &layer->params[1] : NULL;
  p->inputs = ct_explain_item_count (p->x);
  p->outputs = ct_explain_item_count (p->y);
  p->transpose = param != NULL && param->transpose;
  return TRUE;
}

static double
weight (const Product *p, gint64 out, gint64 in)
{
  return p->w->data[p->transpose ? in * p->outputs + out : out * p->inputs + in];
}

gboolean
ct_explain_inner_product (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  Product p;
  gint64 n = e->index[0], j = e->index[1];

  if (!product_read (layer, &p, error))
    return FALSE;
  for (gint64 i = 0; i < p.inputs; i++)
    {
      g_autofree char *wl = g_strdup_printf ("W[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                                             j, i);

      ct_explain_add_term (e, p.x->data[n * p.inputs + i], weight (&p, j, i), wl,
                           "%s[%" G_GINT64_FORMAT "][%" G_GINT64_FORMAT "]", p.x->name, n, i);
    }
  if (p.b != NULL)
    ct_explain_set_bias (e, p.b->data[j]);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = Σ over the %d inputs of %s: input × weight of row %d, "
                               "+ bias"), p.y->name, (int) p.inputs, p.x->name, (int) j);
  e->note = g_strdup (_("The largest products are written first: they are the inputs that "
                        "pushed this output up (positive) or down (negative) the most."));
  return TRUE;
}

gboolean
ct_explain_inner_product_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                               GError **error)
{
  Product p;
  gint64 n = e->index[0], i = 0;

  if (!product_read (layer, &p, error))
    return FALSE;
  if (p.y->diff == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("the diff of %s is not computed yet"), p.y->name);
  /* the input's place within its item, whatever the bottom's shape */
  for (guint a = 1; a < e->n_axes; a++)
    i = i * p.x->dims[a] + e->index[a];
  for (gint64 j = 0; j < p.outputs; j++)
    {
      g_autofree char *wl = g_strdup_printf ("W[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                                             j, i);

      ct_explain_add_term (e, p.y->diff[n * p.outputs + j], weight (&p, j, i), wl,
                           "∂L/∂%s[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                           p.y->name, n, j);
    }
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = Σ over the outputs j of %s: ∂L/∂%s[j] × W[j, %d]"),
                             p.x->name, layer->param->name,
                             p.y->name, (int) i);
  e->note = g_strdup (_("Chain rule: this input feeds every output through one weight, so "
                        "its diff is the outputs' diffs weighted by those weights."));
  return TRUE;
}
