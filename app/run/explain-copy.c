/* explain-copy.c: layers that move values without computing (Split,
 * Flatten, Reshape, Concat): a value is its input's, a Split's input diff
 * adds up the diffs of its copies, and a Concat's bottom's diff is the
 * top's diff at the place the bottom was copied to. */
#include <string.h>

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

/* Concat's axis: axis (1 by default, negative from the end) or the
 * legacy concat_dim. */
static guint
concat_axis (const CtExplainLayer *layer, guint n_axes)
{
  const Caffe__ConcatParameter *p = layer->param->concat_param;
  int axis = 1;

  if (p != NULL && p->has_concat_dim)
    axis = (int) p->concat_dim;
  else if (p != NULL && p->has_axis)
    axis = p->axis < 0 ? p->axis + (int) n_axes : p->axis;
  return (guint) CLAMP (axis, 0, (int) n_axes - 1);
}

/* The top's index for INDEX in bottom B (AT, N_AXES entries). */
static void
concat_shift (const CtExplainLayer *layer, guint axis, guint b, gint64 *at)
{
  for (guint k = 0; k < b; k++)
    at[axis] += layer->bottoms[k].dims[axis];
}

gboolean
ct_explain_concat (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  guint axis;
  gint64 at[CT_EXPLAIN_MAX_AXES];
  guint b = 0;
  g_autofree char *text = NULL;

  if (!ct_explain_need (layer, FALSE, error))
    return FALSE;
  axis = concat_axis (layer, e->n_axes);
  memcpy (at, e->index, sizeof at);
  while (b + 1 < layer->n_bottoms && at[axis] >= layer->bottoms[b].dims[axis])
    at[axis] -= layer->bottoms[b++].dims[axis];
  text = ct_explain_index_text (at, e->n_axes);
  if (layer->bottoms[b].n_axes != e->n_axes || ct_explain_offset (&layer->bottoms[b], at) < 0)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s has no value at %s"),
                            layer->bottoms[b].name, text);
  ct_explain_add_term (e, layer->bottoms[b].data[ct_explain_offset (&layer->bottoms[b], at)],
                       1, NULL, "%s%s", layer->bottoms[b].name, text);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("%s = its bottoms placed one after another along axis %u; "
                               "this place comes from %s%s"),
                             e->blob, axis, layer->bottoms[b].name, text);
  e->note = g_strdup (_("Concat joins its inputs without changing a value."));
  if (e->n_axes == 4)
    {
      e->has_window = TRUE;
      e->bottom_index = b;
      e->window = (CtExplainBox) { at[0], at[1], at[1] + 1, at[2], at[2] + 1, at[3], at[3] + 1 };
      ct_explain_trace_input (e, layer);
    }
  return TRUE;
}

gboolean
ct_explain_concat_diff (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  const CtExplainArray *y = &layer->tops[0];
  guint axis;
  gint64 at[CT_EXPLAIN_MAX_AXES];
  g_autofree char *text = NULL;
  gint64 o;

  if (!ct_explain_need (layer, TRUE, error))
    return FALSE;
  axis = concat_axis (layer, e->n_axes);
  memcpy (at, e->index, sizeof at);
  concat_shift (layer, axis, e->blob_index, at);
  o = ct_explain_offset (y, at);
  text = ct_explain_index_text (at, e->n_axes);
  if (o < 0)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s has no value at %s"),
                            y->name, text);
  ct_explain_add_term (e, y->diff[o], 1, NULL, "∂L/∂%s%s", y->name, text);
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = ∂L/∂%s at the place it was copied to, %s"),
                             e->blob, y->name, text);
  e->note = g_strdup (_("Chain rule: a copied value gets the gradient of its copy."));
  return TRUE;
}
