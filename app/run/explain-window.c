/* explain-window.c: the windows of convolutions and poolings (Caffe's
 * geometry, read from the layer's parameters), and a window traced down
 * through the layers below to the net's input: the receptive field. */
#include <string.h>

#include "explain-private.h"

static gint64
pick (gboolean has_hw, guint32 hw, gsize n, const guint32 *values, gsize i, gint64 fallback)
{
  if (has_hw)
    return hw;
  if (n == 0)
    return fallback;
  return values[MIN (i, n - 1)];
}

gboolean
ct_explain_conv_geometry (const Caffe__ConvolutionParameter *p, CtExplainGeometry *g)
{
  if (p == NULL || p->n_kernel_size > 2 || p->n_stride > 2 || p->n_pad > 2
      || p->n_dilation > 2)
    return FALSE;
  g->kh = pick (p->has_kernel_h, p->kernel_h, p->n_kernel_size, p->kernel_size, 0, 1);
  g->kw = pick (p->has_kernel_w, p->kernel_w, p->n_kernel_size, p->kernel_size, 1, 1);
  g->sh = pick (p->has_stride_h, p->stride_h, p->n_stride, p->stride, 0, 1);
  g->sw = pick (p->has_stride_w, p->stride_w, p->n_stride, p->stride, 1, 1);
  g->ph = pick (p->has_pad_h, p->pad_h, p->n_pad, p->pad, 0, 0);
  g->pw = pick (p->has_pad_w, p->pad_w, p->n_pad, p->pad, 1, 0);
  g->dh = pick (FALSE, 0, p->n_dilation, p->dilation, 0, 1);
  g->dw = pick (FALSE, 0, p->n_dilation, p->dilation, 1, 1);
  return g->sh > 0 && g->sw > 0 && g->kh > 0 && g->kw > 0;
}

void
ct_explain_pool_geometry (const Caffe__PoolingParameter *p, gint64 height, gint64 width,
                          CtExplainGeometry *g)
{
  *g = (CtExplainGeometry) { 1, 1, 1, 1, 0, 0, 1, 1 };
  if (p == NULL)
    return;
  if (p->global_pooling)
    {
      g->kh = height;
      g->kw = width;
      return;
    }
  g->kh = p->has_kernel_h ? p->kernel_h : p->kernel_size;
  g->kw = p->has_kernel_w ? p->kernel_w : p->kernel_size;
  g->sh = p->has_stride_h ? p->stride_h : MAX (p->stride, 1);
  g->sw = p->has_stride_w ? p->stride_w : MAX (p->stride, 1);
  g->ph = p->has_pad_h ? p->pad_h : p->pad;
  g->pw = p->has_pad_w ? p->pad_w : p->pad;
}

/* Types that compute each value from the value at the same place. */
static gboolean
keeps_places (const char *type)
{
  static const char *const types[] = {
    "ReLU", "PReLU", "ELU", "Sigmoid", "TanH", "AbsVal", "Power", "Exp", "Log", "BNLL",
    "Threshold", "Dropout", "Swish", "Clip", "Split", "BatchNorm", "Scale", "Bias", "LRN",
    "MVN",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (types[i], type) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
makes (const Caffe__LayerParameter *layer, const char *blob)
{
  for (gsize t = 0; t < layer->n_top; t++)
    if (g_strcmp0 (layer->top[t], blob) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ct_explain_trace_window (const Caffe__LayerParameter *const *below, guint n_below,
                         const char *blob, const CtExplainBox *box, const char **input_blob,
                         CtExplainBox *input_box)
{
  CtExplainBox b = *box;
  int i = (int) n_below - 1;

  while (TRUE)
    {
      const Caffe__LayerParameter *layer = NULL;
      const char *type;
      CtExplainGeometry g;

      for (; i >= 0 && layer == NULL; i--)
        if (makes (below[i], blob))
          layer = below[i];
      if (layer == NULL || layer->n_bottom == 0)
        break; /* the net's input: no layer computes it from another blob */
      type = layer->type != NULL ? layer->type : "";
      if (strcmp (type, "Convolution") == 0)
        {
          if (!ct_explain_conv_geometry (layer->convolution_param, &g))
            return FALSE;
        }
      else if (strcmp (type, "Pooling") == 0)
        {
          if (layer->pooling_param != NULL && layer->pooling_param->global_pooling)
            return FALSE; /* every place of the map: no window to outline */
          ct_explain_pool_geometry (layer->pooling_param, 0, 0, &g);
        }
      else if (keeps_places (type))
        g = (CtExplainGeometry) { 1, 1, 1, 1, 0, 0, 1, 1 };
      else
        return FALSE;
      if (strcmp (type, "Convolution") == 0 || strcmp (type, "Pooling") == 0)
        {
          /* the rows [a, b) of the top read rows a·s − p to (b − 1)·s − p +
           * (k − 1)·d of the bottom, all its channels */
          b.h_begin = MAX (b.h_begin * g.sh - g.ph, 0);
          b.h_end = (b.h_end - 1) * g.sh - g.ph + (g.kh - 1) * g.dh + 1;
          b.w_begin = MAX (b.w_begin * g.sw - g.pw, 0);
          b.w_end = (b.w_end - 1) * g.sw - g.pw + (g.kw - 1) * g.dw + 1;
          if (strcmp (type, "Convolution") == 0)
            {
              b.c_begin = 0;
              b.c_end = G_MAXINT64;
            }
        }
      blob = layer->bottom[0];
    }
  *input_blob = blob;
  *input_box = b;
  return TRUE;
}
