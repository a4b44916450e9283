/* explain-copy.c: layers that move values without computing (Split,
 * Flatten, Reshape): a value is its input's, and a Split's input diff
 * adds up the diffs of its copies. */
#include "explain-private.h"

gboolean
ct_explain_copy (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *x = &layer->bottoms[0];
  gint64 o = ct_explain_offset (&layer->tops[0], e->index);

  if (x->data == NULL || o < 0)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s is not computed yet"),
                            x->name);
  /* the same place in memory: Flatten and Reshape keep the order */
  ct_explain_add_term (e, x->data[o], 1, NULL, "%s[%" G_GINT64_FORMAT "]", x->name, o);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = %s, copied"), e->blob, x->name);
  e->note = g_strdup (_("This layer moves values without changing them."));
  return TRUE;
}

gboolean
ct_explain_copy_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  gint64 o = ct_explain_offset (&layer->bottoms[0], e->index);

  for (guint t = 0; t < layer->n_tops; t++)
    {
      const CtExplainArray *y = &layer->tops[t];

      if (y->diff == NULL)
        return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                                _("the diff of %s is not computed yet"), y->name);
      ct_explain_add_term (e, y->diff[o], 1, NULL, "∂L/∂%s[%" G_GINT64_FORMAT "]", y->name, o);
    }
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = the sum of its copies' diffs"), layer->bottoms[0].name);
  e->note = g_strdup (_("Chain rule: a value used in several places gets the gradient of "
                        "each use."));
  return TRUE;
}
