/* explain-convolution.c: a convolution's output as its input window times
 * its filter plus the bias, and the diff of an input as the sum, over the
 * outputs whose windows cover it, of their diffs times the filter weights
 * that met it. 2-D convolutions on axis 1, any stride, padding, dilation
 * and group. */
#include "explain-private.h"

typedef struct {
  const CtExplainArray *x, *y, *w;
  const CtExplainArray *b; /* NULL without bias */
  CtExplainGeometry g;
  gint64 group_out, group_in; /* channels per group, top and bottom */
} Conv;

static gboolean
conv_read (const CtExplainLayer *layer, Conv *c, GError **error)
{
  const Caffe__ConvolutionParameter *p = layer->param->convolution_param;
  gint64 group;

  if (layer->n_bottoms < 1 || layer->n_tops < 1 || layer->n_params < 1
      || layer->bottoms[0].n_axes != 4 || layer->tops[0].n_axes != 4
      || layer->params[0].n_axes != 4 || !ct_explain_conv_geometry (p, &c->g)
      || (p != NULL && p->has_axis && p->axis != 1))
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                            _("Only 2-D convolutions of 4-D blobs are explained"));
  if (layer->params[0].data == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("The filters of %s are not available"), layer->param->name);
  c->x = &layer->bottoms[0];
  c->y = &layer->tops[0];
  c->w = &layer->params[0];
  c->b = layer->n_params > 1 && layer->params[1].data != NULL ? &layer->params[1] : NULL;
  group = p != NULL && p->group > 0 ? p->group : 1;
  c->group_out = c->y->dims[1] / group;
  c->group_in = c->x->dims[1] / group;
  return TRUE;
}

gboolean
ct_explain_convolution (CtValueExplanation *e, const CtExplainLayer *layer, GError **error)
{
  Conv c;
  gint64 n = e->index[0], oc = e->index[1], i = e->index[2], j = e->index[3];
  gint64 first;

  if (!conv_read (layer, &c, error))
    return FALSE;
  first = oc / c.group_out * c.group_in;
  for (gint64 k = 0; k < c.group_in; k++)
    for (gint64 u = 0; u < c.g.kh; u++)
      for (gint64 v = 0; v < c.g.kw; v++)
        {
          gint64 h = i * c.g.sh - c.g.ph + u * c.g.dh;
          gint64 w = j * c.g.sw - c.g.pw + v * c.g.dw;
          gint64 xo = ct_explain_offset4 (c.x, n, first + k, h, w);
          gint64 wo = ct_explain_offset4 (c.w, oc, k, u, v);
          g_autofree char *wl = NULL;

          if (xo < 0 || wo < 0)
            continue; /* padding: a zero */
          wl = g_strdup_printf ("W[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                                G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", oc, k, u, v);
          ct_explain_add_term (e, c.x->data[xo], c.w->data[wo], wl,
                               "%s[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                               G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                               c.x->name, n, first + k, h, w);
        }
  if (c.b != NULL)
    ct_explain_set_bias (e, c.b->data[oc]);
  ct_explain_finish_sum (e);
  e->filter = oc;
  e->has_window = TRUE;
  e->bottom_index = 0;
  e->window = (CtExplainBox) {
    n, first, first + c.group_in,
    MAX (i * c.g.sh - c.g.ph, 0), MIN (i * c.g.sh - c.g.ph + (c.g.kh - 1) * c.g.dh + 1, c.x->dims[2]),
    MAX (j * c.g.sw - c.g.pw, 0), MIN (j * c.g.sw - c.g.pw + (c.g.kw - 1) * c.g.dw + 1, c.x->dims[3]),
  };
  ct_explain_trace_input (e, layer);
  e->rule = g_strdup_printf (_("%s = the %s window × filter %d of %s (%d × %d × %d) + bias"),
                             c.y->name, c.x->name, (int) oc, layer->param->name,
                             (int) c.group_in, (int) c.g.kh, (int) c.g.kw);
  e->note = g_strdup (_("Each input in the window is multiplied by the filter weight over "
                        "it, and the products are added to the bias: the value is large "
                        "where the window looks like the filter."));
  return TRUE;
}

gboolean
ct_explain_convolution_diff (CtValueExplanation *e, const CtExplainLayer *layer,
                             GError **error)
{
  Conv c;
  gint64 n = e->index[0], k = e->index[1], h = e->index[2], w = e->index[3];
  gint64 g0;

  if (!conv_read (layer, &c, error))
    return FALSE;
  if (c.y->diff == NULL)
    return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                            _("the diff of %s is not computed yet"), c.y->name);
  g0 = k / c.group_in;
  /* the outputs (oc, i, j) whose window puts weight (u, v) on (h, w) */
  for (gint64 oc = g0 * c.group_out; oc < (g0 + 1) * c.group_out; oc++)
    for (gint64 u = 0; u < c.g.kh; u++)
      for (gint64 v = 0; v < c.g.kw; v++)
        {
          gint64 hi = h + c.g.ph - u * c.g.dh, wj = w + c.g.pw - v * c.g.dw;
          gint64 yo, wo;
          g_autofree char *wl = NULL;

          if (hi < 0 || wj < 0 || hi % c.g.sh != 0 || wj % c.g.sw != 0)
            continue;
          yo = ct_explain_offset4 (c.y, n, oc, hi / c.g.sh, wj / c.g.sw);
          wo = ct_explain_offset4 (c.w, oc, k - g0 * c.group_in, u, v);
          if (yo < 0 || wo < 0)
            continue;
          wl = g_strdup_printf ("W[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                                G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                                oc, k - g0 * c.group_in, u, v);
          ct_explain_add_term (e, c.y->diff[yo], c.w->data[wo], wl,
                               "∂L/∂%s[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                               G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]",
                               c.y->name, n, oc, hi / c.g.sh, wj / c.g.sw);
        }
  ct_explain_finish_sum (e);
  e->rule = g_strdup_printf (_("∂L/∂%s = Σ over the outputs of %s whose window covers it: "
                               "∂L/∂%s × the filter weight over it"),
                             c.x->name, layer->param->name, c.y->name);
  e->note = g_strdup (_("Chain rule: this input was read by every output whose window "
                        "covers it, each time multiplied by one filter weight; its diff adds "
                        "up those outputs' diffs times those weights."));
  return TRUE;
}
