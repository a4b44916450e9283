/* receptive-field.c: receptive fields along a chain of layers. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "classifier.h"
#include "layer.h"
#include "receptive-field.h"

/* The last layer before layer BEFORE whose tops include BLOB, or -1. */
static int
writer_before (CtNet *net, guint blob, int before)
{
  for (int i = before - 1; i >= 0; i--)
    {
      guint n = 0;
      const guint *tops = ct_net_get_top_ids (net, (guint) i, &n);

      for (guint t = 0; t < n; t++)
        if (tops[t] == blob)
          return i;
    }
  return -1;
}

/* A repeated size field: its first value, or the default when absent. */
static guint
first_or (const guint32 *values, gsize n, guint32 dflt)
{
  return n > 0 ? values[0] : dflt;
}

typedef struct {
  double k_h, k_w, s_h, s_w, p_h, p_w, d_h, d_w;
  gboolean whole; /* sees the whole input */
} Step;

static gboolean
layer_step (CtLayer *layer, Step *step, GError **error)
{
  const char *type = ct_layer_get_type (layer);
  static const char *const pointwise[] = {
    "ReLU", "PReLU", "ELU", "Sigmoid", "TanH", "AbsVal", "BNLL", "Power", "Exp", "Log",
    "Threshold", "Dropout", "LRN", "BatchNorm", "Scale", "Bias", "Split", "Eltwise", "Concat",
    "MVN", "Softmax", "Clip", "Swish", "Flatten", "Reshape", NULL,
  };

  *step = (Step) { 1, 1, 1, 1, 0, 0, 1, 1, FALSE };
  if (g_strv_contains (pointwise, type))
    return TRUE;
  if (strcmp (type, "Convolution") == 0)
    {
      const Caffe__ConvolutionParameter *p = layer->param->convolution_param;

      step->k_h = p->has_kernel_h ? p->kernel_h : first_or (p->kernel_size, p->n_kernel_size, 1);
      step->k_w = p->has_kernel_w ? p->kernel_w : first_or (p->kernel_size, p->n_kernel_size, 1);
      step->s_h = p->has_stride_h ? p->stride_h : first_or (p->stride, p->n_stride, 1);
      step->s_w = p->has_stride_w ? p->stride_w : first_or (p->stride, p->n_stride, 1);
      step->p_h = p->has_pad_h ? p->pad_h : first_or (p->pad, p->n_pad, 0);
      step->p_w = p->has_pad_w ? p->pad_w : first_or (p->pad, p->n_pad, 0);
      step->d_h = step->d_w = first_or (p->dilation, p->n_dilation, 1);
      return TRUE;
    }
  if (strcmp (type, "Pooling") == 0)
    {
      const Caffe__PoolingParameter *p = layer->param->pooling_param;

      if (p == NULL || p->global_pooling)
        {
          step->whole = TRUE;
          return TRUE;
        }
      step->k_h = p->has_kernel_h ? p->kernel_h : p->kernel_size;
      step->k_w = p->has_kernel_w ? p->kernel_w : p->kernel_size;
      step->s_h = p->has_stride_h ? p->stride_h : p->stride;
      step->s_w = p->has_stride_w ? p->stride_w : p->stride;
      step->p_h = p->has_pad_h ? p->pad_h : p->pad;
      step->p_w = p->has_pad_w ? p->pad_w : p->pad;
      return TRUE;
    }
  if (strcmp (type, "InnerProduct") == 0)
    {
      step->whole = TRUE;
      return TRUE;
    }
  g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_UNSUPPORTED,
               _("layer '%s' (%s): its receptive field is not known"),
               ct_layer_get_name (layer), type);
  return FALSE;
}

gboolean
ct_receptive_field (CtNet *net, guint input, guint blob, CtReceptiveField *field,
                    GError **error)
{
  g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (guint));
  const gint64 *in_dims = ct_blob_get_shape (ct_net_get_blob (net, input));
  int writer = (int) ct_net_n_layers (net);
  int input_writer = ct_net_last_writer (net, input);

  /* walk up from BLOB to INPUT, collecting the layers in between */
  while (blob != input)
    {
      guint n = 0;
      const guint *bottoms;

      writer = writer_before (net, blob, writer);
      if (writer < 0 || writer <= input_writer)
        {
          g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                       _("blob '%s' is not computed from blob '%s'"),
                       ct_net_get_blob_name (net, blob), ct_net_get_blob_name (net, input));
          return FALSE;
        }
      bottoms = ct_net_get_bottom_ids (net, (guint) writer, &n);
      if (n == 0)
        {
          g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                       _("blob '%s' is not computed from blob '%s'"),
                       ct_net_get_blob_name (net, blob), ct_net_get_blob_name (net, input));
          return FALSE;
        }
      g_array_prepend_val (chain, writer);
      blob = bottoms[0];
    }
  *field = (CtReceptiveField) { 1, 1, 1, 1, 0, 0 };
  for (guint i = 0; i < chain->len; i++)
    {
      Step s;

      if (!layer_step (ct_net_get_layer (net, g_array_index (chain, guint, i)), &s, error))
        return FALSE;
      if (s.whole)
        {
          field->size_h = (double) in_dims[2];
          field->size_w = (double) in_dims[3];
          field->centre_h = (in_dims[2] - 1) / 2.0;
          field->centre_w = (in_dims[3] - 1) / 2.0;
          field->jump_h = field->jump_w = 0;
          continue;
        }
      field->centre_h += ((s.k_h - 1) * s.d_h / 2.0 - s.p_h) * field->jump_h;
      field->centre_w += ((s.k_w - 1) * s.d_w / 2.0 - s.p_w) * field->jump_w;
      field->size_h += (s.k_h - 1) * s.d_h * field->jump_h;
      field->size_w += (s.k_w - 1) * s.d_w * field->jump_w;
      field->jump_h *= s.s_h;
      field->jump_w *= s.s_w;
    }
  return TRUE;
}

void
ct_receptive_field_box (const CtReceptiveField *f, guint y, guint x, guint height, guint width,
                        int *top, int *left, int *box_h, int *box_w)
{
  double cy = f->centre_h + y * f->jump_h, cx = f->centre_w + x * f->jump_w;
  int t = (int) lround (cy - (f->size_h - 1) / 2.0);
  int l = (int) lround (cx - (f->size_w - 1) / 2.0);
  int b = t + (int) f->size_h, r = l + (int) f->size_w;

  t = MAX (t, 0);
  l = MAX (l, 0);
  b = MIN (b, (int) height);
  r = MIN (r, (int) width);
  *top = t;
  *left = l;
  *box_h = MAX (b - t, 0);
  *box_w = MAX (r - l, 0);
}
