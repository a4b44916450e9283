/* base-conv.c: the geometry of a ConvolutionParameter, and the machinery
 * Convolution and Deconvolution share (see base-conv-private.h): setup with
 * Caffe's checks and parameter shapes, reshape, the per-image matrix
 * products over the im2col buffer, group by group, and Convolution's
 * whole-batch products, which share the images between the kernels'
 * threads. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "blas.h"
#include "engine-error.h"
#include "filler.h"
#include "common.h"
#include "im2col.h"
#include "parallel.h"
#include "rng.h"
#include "vision-private.h"

/* One repeated field (kernel_size, stride, pad, dilation) given once, once
 * per spatial axis, or (with a default) not at all. */
static gboolean
read_repeated (const CtLayer *layer, const char *field, const uint32_t *values, gsize n_values,
               int n, gboolean has_default, int64_t fallback, int64_t *out, GError **error)
{
  if (!(n_values == 1 || n_values == (gsize) n || (has_default && n_values == 0)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("%s must be given once, or once per spatial axis "
                            "(given %u times for %d spatial axes)"),
                          field, (guint) n_values, n);
  for (int i = 0; i < n; i++)
    out[i] = n_values == 0 ? fallback : values[n_values == 1 ? 0 : i];
  return TRUE;
}

/* The 2-D FIELD_h / FIELD_w pair, which excludes the repeated FIELD. */
static gboolean
check_hw_form (const CtLayer *layer, const char *field, gsize n_repeated, int n,
               GError **error)
{
  if (n != 2)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("%s_h and %s_w can only be used for 2-D convolution "
                            "(the input has %d spatial axes)"), field, field, n);
  if (n_repeated != 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("give either %s or %s_h and %s_w, not both"), field, field, field);
  return TRUE;
}

static gboolean
check_positive (const CtLayer *layer, const char *field, const int64_t *values, int n,
                GError **error)
{
  for (int i = 0; i < n; i++)
    if (values[i] <= 0)
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                            _("%s must be positive (spatial axis %d has %" PRId64 ")"),
                            field, i, (gint64) values[i]);
  return TRUE;
}

gboolean
ct_conv_geometry_read (const CtLayer *layer, const Caffe__ConvolutionParameter *p,
                       CtBlob *bottom, CtConvGeometry *g, GError **error)
{
  g_autoptr (GError) local = NULL;
  int axis = ct_blob_canonical_axis_index (bottom, p->axis, &local);
  int n;

  if (axis < 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, _("convolution_param.axis: %s"),
                          local->message);
  memset (g, 0, sizeof *g);
  g->channel_axis = axis;
  g->num_spatial_axes = n = (int) ct_blob_num_axes (bottom) - axis - 1;
  g->force_nd_im2col = p->force_nd_im2col;

  if (p->has_kernel_h || p->has_kernel_w)
    {
      if (!check_hw_form (layer, "kernel", p->n_kernel_size, n, error))
        return FALSE;
      g->kernel[0] = p->kernel_h;
      g->kernel[1] = p->kernel_w;
    }
  else if (!read_repeated (layer, "kernel_size", p->kernel_size, p->n_kernel_size, n,
                           n == 0, 0, g->kernel, error))
    return FALSE;
  if (!check_positive (layer, "kernel_size", g->kernel, n, error))
    return FALSE;

  if (p->has_stride_h || p->has_stride_w)
    {
      if (!check_hw_form (layer, "stride", p->n_stride, n, error))
        return FALSE;
      g->stride[0] = p->has_stride_h ? p->stride_h : 0;
      g->stride[1] = p->has_stride_w ? p->stride_w : 0;
    }
  else if (!read_repeated (layer, "stride", p->stride, p->n_stride, n, TRUE, 1, g->stride, error))
    return FALSE;
  if (!check_positive (layer, "stride", g->stride, n, error))
    return FALSE;

  if (p->has_pad_h || p->has_pad_w)
    {
      if (!check_hw_form (layer, "pad", p->n_pad, n, error))
        return FALSE;
      g->pad[0] = p->pad_h;
      g->pad[1] = p->pad_w;
    }
  else if (!read_repeated (layer, "pad", p->pad, p->n_pad, n, TRUE, 0, g->pad, error))
    return FALSE;

  if (!read_repeated (layer, "dilation", p->dilation, p->n_dilation, n, TRUE, 1, g->dilation,
                      error))
    return FALSE;
  return check_positive (layer, "dilation", g->dilation, n, error);
}

gint64
ct_conv_geometry_extent (const CtConvGeometry *g, int i)
{
  return g->dilation[i] * (g->kernel[i] - 1) + 1;
}

gboolean
ct_conv_geometry_is_1x1 (const CtConvGeometry *g)
{
  for (int i = 0; i < g->num_spatial_axes; i++)
    if (g->kernel[i] != 1 || g->stride[i] != 1 || g->pad[i] != 0)
      return FALSE;
  return TRUE;
}

gboolean
ct_conv_geometry_output (const CtLayer *layer, const CtConvGeometry *g, int i, gint64 in,
                         gint64 *out, GError **error)
{
  gint64 extent = ct_conv_geometry_extent (g, i);

  if (in + 2 * g->pad[i] < extent)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the kernel (extent %" PRId64 " with dilation) is larger "
                            "than the padded input (%" PRId64 " + 2 x %" PRId64
                            ") on spatial axis %d"),
                          extent, in, (gint64) g->pad[i], i);
  *out = (in + 2 * g->pad[i] - extent) / g->stride[i] + 1;
  return TRUE;
}

static gboolean
use_2d_kernel (const CtConvGeometry *g)
{
  return !g->force_nd_im2col && g->num_spatial_axes == 2;
}

/* The (channels, dims…) shapes of the N-D kernels. */
static void
nd_shapes (const CtConvGeometry *g, gint64 channels, const int64_t *im_dims,
           const int64_t *col_dims, int64_t *im_shape, int64_t *col_shape)
{
  int64_t kernel_size = 1;

  for (int i = 0; i < g->num_spatial_axes; i++)
    {
      kernel_size *= g->kernel[i];
      im_shape[i + 1] = im_dims[i];
      col_shape[i + 1] = col_dims[i];
    }
  im_shape[0] = channels;
  col_shape[0] = channels * kernel_size;
}

gboolean
ct_conv_geometry_im2col (const CtLayer *layer, const CtConvGeometry *g, gint64 channels,
                         const int64_t *im_dims, const int64_t *col_dims, const float *im,
                         float *col, GError **error)
{
  int64_t im_shape[CT_BLOB_MAX_AXES + 1], col_shape[CT_BLOB_MAX_AXES + 1];
  CtStatus status;

  if (use_2d_kernel (g))
    status = ct_cpu_im2col (im, channels, im_dims[0], im_dims[1], g->kernel[0], g->kernel[1],
                            g->pad[0], g->pad[1], g->stride[0], g->stride[1],
                            g->dilation[0], g->dilation[1], col);
  else
    {
      nd_shapes (g, channels, im_dims, col_dims, im_shape, col_shape);
      status = ct_cpu_im2col_nd (im, g->num_spatial_axes, im_shape, col_shape, g->kernel,
                                 g->pad, g->stride, g->dilation, col);
    }
  return ct_vision_check (layer, status, _("im2col"), error);
}

gboolean
ct_conv_geometry_col2im (const CtLayer *layer, const CtConvGeometry *g, gint64 channels,
                         const int64_t *im_dims, const int64_t *col_dims, const float *col,
                         float *im, GError **error)
{
  int64_t im_shape[CT_BLOB_MAX_AXES + 1], col_shape[CT_BLOB_MAX_AXES + 1];
  CtStatus status;

  if (use_2d_kernel (g))
    status = ct_cpu_col2im (col, channels, im_dims[0], im_dims[1], g->kernel[0], g->kernel[1],
                            g->pad[0], g->pad[1], g->stride[0], g->stride[1],
                            g->dilation[0], g->dilation[1], im);
  else
    {
      nd_shapes (g, channels, im_dims, col_dims, im_shape, col_shape);
      status = ct_cpu_col2im_nd (col, g->num_spatial_axes, im_shape, col_shape, g->kernel,
                                 g->pad, g->stride, g->dilation, im);
    }
  return ct_vision_check (layer, status, _("col2im"), error);
}

/* "2 3 4 5", for messages about shapes. */
static char *
dims_string (const gint64 *dims, guint n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, i ? " %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, dims[i]);
  return g_string_free (s, FALSE);
}

/* Parameter blobs the net provides (shared or loaded) must have Caffe's shapes. */
static gboolean
check_param_shape (const CtLayer *layer, guint index, const gint64 *dims, guint n,
                   GError **error)
{
  CtBlob *blob = g_ptr_array_index (layer->blobs, index);
  g_autofree char *expected = NULL, *actual = NULL;

  if (ct_blob_num_axes (blob) == n
      && memcmp (ct_blob_get_shape (blob), dims, n * sizeof (gint64)) == 0)
    return TRUE;
  expected = dims_string (dims, n);
  actual = dims_string (ct_blob_get_shape (blob), ct_blob_num_axes (blob));
  return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                        index == 0 ? _("the weights have shape %s; expected %s")
                                   : _("the bias has shape %s; expected %s"),
                        actual, expected);
}

static gboolean
make_param (CtLayer *layer, const gint64 *dims, guint n, const Caffe__FillerParameter *filler,
            CtRng *rng, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (CtBlob) blob = ct_blob_new_with_shape (dims, n, &local);

  if (blob == NULL)
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  if (!ct_layer_fill_param (layer, filler, blob, rng,
                            layer->blobs->len == 0 ? "weight_filler" : "bias_filler", error))
    return FALSE;
  g_ptr_array_add (layer->blobs, g_steal_pointer (&blob));
  return TRUE;
}

static gboolean
setup_params (CtBaseConv *conv, const Caffe__ConvolutionParameter *p, GError **error)
{
  CtLayer *layer = &conv->parent;
  const CtConvGeometry *g = &conv->geometry;
  gint64 weight_dims[CT_BLOB_MAX_AXES + 2];
  gint64 bias_dims[1] = { conv->num_output };
  guint n_weight_dims = 2 + (guint) g->num_spatial_axes;
  guint expected_blobs = conv->bias_term ? 2 : 1;

  weight_dims[0] = conv->conv_out_channels;
  weight_dims[1] = conv->conv_in_channels / conv->group;
  for (int i = 0; i < g->num_spatial_axes; i++)
    weight_dims[2 + i] = g->kernel[i];

  if (layer->blobs->len > 0)
    {
      /* Shared or loaded by the net: check them, as Caffe does, and keep them. */
      if (layer->blobs->len != expected_blobs)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("has %u parameter blobs; expected %u"),
                              layer->blobs->len, expected_blobs);
      if (!check_param_shape (layer, 0, weight_dims, n_weight_dims, error))
        return FALSE;
      return !conv->bias_term || check_param_shape (layer, 1, bias_dims, 1, error);
    }
  else
    {
      g_autoptr (CtRng) rng = ct_rng_new (layer->seed);

      if (!make_param (layer, weight_dims, n_weight_dims, p->weight_filler, rng, error))
        return FALSE;
      return !conv->bias_term || make_param (layer, bias_dims, 1, p->bias_filler, rng, error);
    }
}

gboolean
ct_base_conv_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean reverse,
                    GError **error)
{
  static const Caffe__ConvolutionParameter defaults = CAFFE__CONVOLUTION_PARAMETER__INIT;
  CtBaseConv *conv = (CtBaseConv *) layer;
  const Caffe__ConvolutionParameter *p = layer->param->convolution_param != NULL
                                         ? layer->param->convolution_param : &defaults;
  CtBlob *input = CT_BOTTOM (bottom, 0);

  if (!ct_vision_refuse_in_place (layer, bottom, top, error))
    return FALSE;
  if (!ct_conv_geometry_read (layer, p, input, &conv->geometry, error))
    return FALSE;
  conv->reverse = reverse;
  conv->is_1x1 = ct_conv_geometry_is_1x1 (&conv->geometry);
  conv->channels = ct_blob_get_shape (input)[conv->geometry.channel_axis];
  conv->num_output = p->num_output;
  conv->group = p->group;
  conv->bias_term = p->bias_term;

  if (conv->num_output == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("num_output must be positive"));
  if (conv->group == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, _("group must be positive"));
  if (conv->channels % conv->group != 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the input's %" PRId64 " channels do not divide into %"
                            PRId64 " groups"), conv->channels, conv->group);
  if (conv->num_output % conv->group != 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("num_output (%" PRId64 ") must be a multiple of group (%"
                            PRId64 ")"), conv->num_output, conv->group);

  conv->conv_out_channels = reverse ? conv->channels : conv->num_output;
  conv->conv_in_channels = reverse ? conv->num_output : conv->channels;
  if (!setup_params (conv, p, error))
    return FALSE;

  conv->kernel_dim = ct_blob_count_from (g_ptr_array_index (layer->blobs, 0), 1, NULL);
  conv->weight_offset = conv->conv_out_channels * conv->kernel_dim / conv->group;
  if (conv->col_buffer == NULL)
    conv->col_buffer = ct_blob_new ();
  if (conv->bias_multiplier == NULL)
    conv->bias_multiplier = ct_blob_new ();
  return TRUE;
}

/* The top's spatial size on axis I: a convolution's output, or for a
 * deconvolution the input size whose convolution gives IN. */
static gboolean
top_dim (CtBaseConv *conv, int i, gint64 in, gint64 *out, GError **error)
{
  const CtConvGeometry *g = &conv->geometry;

  if (!conv->reverse)
    return ct_conv_geometry_output (&conv->parent, g, i, in, out, error);
  *out = g->stride[i] * (in - 1) + ct_conv_geometry_extent (g, i) - 2 * g->pad[i];
  if (*out <= 0)
    return ct_layer_fail (&conv->parent, error, CT_ENGINE_ERROR_SHAPE,
                          _("the output would have size %" PRId64 " on spatial axis %d "
                            "(pad too large for the kernel and stride)"), *out, i);
  return TRUE;
}

static gboolean
check_bottoms (CtBaseConv *conv, GPtrArray *bottom, GError **error)
{
  CtLayer *layer = &conv->parent;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const CtConvGeometry *g = &conv->geometry;
  guint n_axes = ct_blob_num_axes (input);

  if (n_axes != (guint) (g->channel_axis + 1 + g->num_spatial_axes))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the input has %u axes; it had %d when the layer was set up, "
                            "and that may not change"),
                          n_axes, g->channel_axis + 1 + g->num_spatial_axes);
  if (ct_blob_get_shape (input)[g->channel_axis] != conv->channels)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the input has %" PRId64 " channels; the weights were "
                            "made for %" PRId64),
                          ct_blob_get_shape (input)[g->channel_axis], conv->channels);
  for (guint i = 1; i < bottom->len; i++)
    {
      CtBlob *other = CT_BOTTOM (bottom, i);

      if (ct_blob_num_axes (other) != n_axes
          || memcmp (ct_blob_get_shape (other), ct_blob_get_shape (input),
                     n_axes * sizeof (gint64)) != 0)
        {
          g_autofree char *a = ct_blob_shape_string (other);
          g_autofree char *b = ct_blob_shape_string (input);

          return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                _("bottom %u has shape %s and bottom 0 %s; all bottoms must "
                                  "have the same shape"), i, a, b);
        }
    }
  return TRUE;
}

gboolean
ct_base_conv_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtBaseConv *conv = (CtBaseConv *) layer;
  const CtConvGeometry *g = &conv->geometry;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const gint64 *in_shape = ct_blob_get_shape (input);
  const int first_spatial = g->channel_axis + 1;
  gint64 top_shape[CT_BLOB_MAX_AXES], col_shape[CT_BLOB_MAX_AXES + 1];
  g_autoptr (GError) local = NULL;

  if (!check_bottoms (conv, bottom, error))
    return FALSE;

  memcpy (top_shape, in_shape, (gsize) g->channel_axis * sizeof (gint64));
  top_shape[g->channel_axis] = conv->num_output;
  for (int i = 0; i < g->num_spatial_axes; i++)
    if (!top_dim (conv, i, in_shape[first_spatial + i], &top_shape[first_spatial + i], error))
      return FALSE;
  for (guint t = 0; t < top->len; t++)
    if (!ct_blob_reshape (CT_TOP (top, t), top_shape, first_spatial + g->num_spatial_axes,
                          &local))
      return ct_layer_fail (layer, error, local->code, "%s", local->message);

  conv->num = ct_blob_count_range (input, 0, g->channel_axis, NULL);
  conv->bottom_dim = ct_blob_count_from (input, g->channel_axis, NULL);
  conv->top_dim = ct_blob_count_from (CT_TOP (top, 0), g->channel_axis, NULL);
  conv->out_spatial_dim = ct_blob_count_from (CT_TOP (top, 0), first_spatial, NULL);

  /* The convolution computed: bottom to top, or top to bottom when reversed. */
  conv->conv_out_spatial_dim = 1;
  for (int i = 0; i < g->num_spatial_axes; i++)
    {
      gint64 in = in_shape[first_spatial + i], out = top_shape[first_spatial + i];

      conv->conv_input_dims[i] = conv->reverse ? out : in;
      conv->conv_output_dims[i] = conv->reverse ? in : out;
      conv->conv_out_spatial_dim *= conv->conv_output_dims[i];
    }
  conv->col_offset = conv->kernel_dim * conv->conv_out_spatial_dim;
  conv->output_offset = conv->conv_out_channels * conv->conv_out_spatial_dim / conv->group;

  col_shape[0] = conv->kernel_dim * conv->group;
  for (int i = 0; i < g->num_spatial_axes; i++)
    col_shape[i + 1] = conv->conv_output_dims[i];
  if (!ct_blob_reshape (conv->col_buffer, col_shape, 1 + g->num_spatial_axes, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);

  if (conv->bias_term)
    {
      gint64 n = conv->out_spatial_dim;
      float *ones;

      if (!ct_blob_reshape (conv->bias_multiplier, &n, 1, &local)
          || (ones = ct_blob_mutable_cpu_data (conv->bias_multiplier, &local)) == NULL)
        return ct_layer_fail (layer, error, local->code, "%s", local->message);
      return ct_vision_check (layer, ct_cpu_set (n, 1.0f, ones), _("filling the bias ones"),
                              error);
    }
  return TRUE;
}

void
ct_base_conv_finalize (CtLayer *layer)
{
  CtBaseConv *conv = (CtBaseConv *) layer;

  g_clear_pointer (&conv->col_buffer, ct_blob_free);
  g_clear_pointer (&conv->bias_multiplier, ct_blob_free);
}

static float *
col_buffer (CtBaseConv *conv, GError **error)
{
  g_autoptr (GError) local = NULL;
  float *data = ct_blob_mutable_cpu_data (conv->col_buffer, &local);

  if (data == NULL)
    ct_layer_fail (&conv->parent, error, local->code, "%s", local->message);
  return data;
}

gboolean
ct_base_conv_forward_gemm (CtBaseConv *conv, const float *input, const float *weights,
                           float *output, gboolean skip_im2col, GError **error)
{
  CtLayer *layer = &conv->parent;
  const float *col = input;

  if (!conv->is_1x1)
    {
      float *buffer = col_buffer (conv, error);

      if (buffer == NULL)
        return FALSE;
      if (!skip_im2col
          && !ct_conv_geometry_im2col (layer, &conv->geometry, conv->conv_in_channels,
                                       conv->conv_input_dims, conv->conv_output_dims,
                                       input, buffer, error))
        return FALSE;
      col = buffer;
    }
  for (gint64 g = 0; g < conv->group; g++)
    if (!ct_vision_check (layer,
                          ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS,
                                       conv->conv_out_channels / conv->group,
                                       conv->conv_out_spatial_dim, conv->kernel_dim,
                                       1.0f, weights + conv->weight_offset * g,
                                       col + conv->col_offset * g,
                                       0.0f, output + conv->output_offset * g),
                          _("convolution product"), error))
      return FALSE;
  return TRUE;
}

gboolean
ct_base_conv_forward_bias (CtBaseConv *conv, float *output, const float *bias, GError **error)
{
  const float *ones = ct_blob_cpu_data (conv->bias_multiplier, NULL);

  return ct_vision_check (&conv->parent,
                          ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, conv->num_output,
                                       conv->out_spatial_dim, 1, 1.0f, bias, ones, 1.0f, output),
                          _("adding the bias"), error);
}

gboolean
ct_base_conv_backward_gemm (CtBaseConv *conv, const float *output, const float *weights,
                            float *input, GError **error)
{
  CtLayer *layer = &conv->parent;
  float *col = input;

  if (!conv->is_1x1 && (col = col_buffer (conv, error)) == NULL)
    return FALSE;
  for (gint64 g = 0; g < conv->group; g++)
    if (!ct_vision_check (layer,
                          ct_cpu_gemm (CT_TRANS, CT_NO_TRANS, conv->kernel_dim,
                                       conv->conv_out_spatial_dim,
                                       conv->conv_out_channels / conv->group,
                                       1.0f, weights + conv->weight_offset * g,
                                       output + conv->output_offset * g,
                                       0.0f, col + conv->col_offset * g),
                          _("convolution product"), error))
      return FALSE;
  if (conv->is_1x1)
    return TRUE;
  return ct_conv_geometry_col2im (layer, &conv->geometry, conv->conv_in_channels,
                                  conv->conv_input_dims, conv->conv_output_dims, col, input,
                                  error);
}

gboolean
ct_base_conv_weight_gemm (CtBaseConv *conv, const float *input, const float *output,
                          float *weight_diff, GError **error)
{
  CtLayer *layer = &conv->parent;
  const float *col = input;

  if (!conv->is_1x1)
    {
      float *buffer = col_buffer (conv, error);

      if (buffer == NULL
          || !ct_conv_geometry_im2col (layer, &conv->geometry, conv->conv_in_channels,
                                       conv->conv_input_dims, conv->conv_output_dims,
                                       input, buffer, error))
        return FALSE;
      col = buffer;
    }
  for (gint64 g = 0; g < conv->group; g++)
    if (!ct_vision_check (layer,
                          ct_cpu_gemm (CT_NO_TRANS, CT_TRANS,
                                       conv->conv_out_channels / conv->group, conv->kernel_dim,
                                       conv->conv_out_spatial_dim,
                                       1.0f, output + conv->output_offset * g,
                                       col + conv->col_offset * g,
                                       1.0f, weight_diff + conv->weight_offset * g),
                          _("weight gradient product"), error))
      return FALSE;
  return TRUE;
}

gboolean
ct_base_conv_backward_bias (CtBaseConv *conv, float *bias_diff, const float *input,
                            GError **error)
{
  const float *ones = ct_blob_cpu_data (conv->bias_multiplier, NULL);

  return ct_vision_check (&conv->parent,
                          ct_cpu_gemv (CT_NO_TRANS, conv->num_output, conv->out_spatial_dim,
                                       1.0f, input, ones, 1.0f, bias_diff),
                          _("bias gradient"), error);
}

/* Whole-batch products, in parallel */

/* The floats a sub-batch's column matrix and output rows may take (256
 * KiB): small enough to stay in a core's L2 cache between im2col and the
 * product (larger sub-batches measured slower on LeNet and CIFAR-10), so
 * that only images with very few output positions are multiplied several
 * at a time. */
#define SUB_BATCH_FLOATS ((gint64) 1 << 16)

/* Scratch kept per thread and grown when a layer needs more: one buffer
 * serves every convolution the thread runs (layers run one at a time),
 * where per-layer buffers would add up over a deep net. COL holds a
 * thread's sub-batch; PARTIALS the calling thread's per-chunk parameter
 * gradients. */
typedef struct {
  float *data;
  gsize capacity; /* floats */
} Workspace;

static void
workspace_free (gpointer data)
{
  Workspace *w = data;

  g_free (w->data);
  g_free (w);
}

static GPrivate col_key = G_PRIVATE_INIT (workspace_free);
static GPrivate partials_key = G_PRIVATE_INIT (workspace_free);

/* N floats of KEY's scratch for this thread, or NULL when memory is short. */
static float *
workspace_get (GPrivate *key, gsize n)
{
  Workspace *w = g_private_get (key);

  if (w == NULL)
    {
      w = g_new0 (Workspace, 1);
      g_private_set (key, w);
    }
  if (w->capacity < n)
    {
      g_clear_pointer (&w->data, g_free);
      w->capacity = 0;
      if (n > G_MAXSIZE / sizeof (float)
          || (w->data = g_try_malloc (n * sizeof (float))) == NULL)
        return NULL;
      w->capacity = n;
    }
  return w->data;
}

/* Rows of the column matrix: every group's kernel_dim. */
static gint64
col_rows (const CtBaseConv *conv)
{
  return conv->kernel_dim * conv->group;
}

/* Images per sub-batch: as many as SUB_BATCH_FLOATS allows, at least one. */
static gint64
sub_batch_images (const CtBaseConv *conv)
{
  gint64 per_image = (col_rows (conv) + conv->conv_out_channels) * conv->conv_out_spatial_dim;

  return MAX (1, SUB_BATCH_FLOATS / MAX (per_image, 1));
}

gboolean
ct_base_conv_can_batch (CtBaseConv *conv)
{
  return !conv->reverse && conv->num >= 1 && conv->conv_out_spatial_dim > 0
         && (conv->is_1x1 || use_2d_kernel (&conv->geometry));
}

typedef struct {
  CtBaseConv *conv;
  const float *input, *weights, *bias, *output_diff;
  float *output, *weight_diff, *bias_diff, *input_diff;
  float *partials;   /* per chunk after the first: weight then bias gradient */
  gint64 sub_batch;  /* images per sub-batch */
  CtStatus status[CT_PARALLEL_MAX_CHUNKS];
} ConvJob;

/* The column matrix of NB images from INPUT into COL, the images side by
 * side (rows NB * P floats long). (With one image and a 1x1 kernel the
 * callers use the image itself instead.) */
static CtStatus
sub_batch_im2col (const CtBaseConv *conv, const float *input, gint64 nb, float *col)
{
  const CtConvGeometry *g = &conv->geometry;
  const gint64 p = conv->conv_out_spatial_dim;
  CtStatus status = CT_STATUS_OK;

  if (conv->is_1x1)
    return ct_cpu_batch_pack (nb, col_rows (conv), p, input, col, NULL);
  for (gint64 i = 0; i < nb && status == CT_STATUS_OK; i++)
    status = ct_cpu_im2col_ld (input + i * conv->bottom_dim, conv->conv_in_channels,
                               conv->conv_input_dims[0], conv->conv_input_dims[1],
                               g->kernel[0], g->kernel[1], g->pad[0], g->pad[1],
                               g->stride[0], g->stride[1], g->dilation[0], g->dilation[1],
                               col + i * p, nb * p);
  return status;
}

/* INPUT_DIFF of NB images from the column matrix's gradient COL. */
static CtStatus
sub_batch_col2im (const CtBaseConv *conv, const float *col, gint64 nb, float *input_diff)
{
  const CtConvGeometry *g = &conv->geometry;
  const gint64 p = conv->conv_out_spatial_dim;
  CtStatus status = CT_STATUS_OK;

  if (conv->is_1x1)
    return ct_cpu_batch_unpack (nb, col_rows (conv), p, col, NULL, input_diff);
  for (gint64 i = 0; i < nb && status == CT_STATUS_OK; i++)
    status = ct_cpu_col2im_ld (col + i * p, nb * p, conv->conv_in_channels,
                               conv->conv_input_dims[0], conv->conv_input_dims[1],
                               g->kernel[0], g->kernel[1], g->pad[0], g->pad[1],
                               g->stride[0], g->stride[1], g->dilation[0], g->dilation[1],
                               input_diff + i * conv->bottom_dim);
  return status;
}

/* Forward of images [N, N + NB). One image is multiplied straight into
 * the top (and, with a 1x1 kernel, straight from the bottom); several go
 * through the column and row matrices of SCRATCH. */
static CtStatus
forward_sub_batch (const ConvJob *j, gint64 n, gint64 nb, float *scratch)
{
  const CtBaseConv *conv = j->conv;
  const gint64 m = conv->conv_out_channels / conv->group, k = conv->kernel_dim;
  const gint64 ld = nb * conv->conv_out_spatial_dim;
  const float *input = j->input + n * conv->bottom_dim;
  float *output = j->output + n * conv->top_dim;
  const float *col = scratch;
  float *rows = nb == 1 ? output : scratch + col_rows (conv) * ld;
  CtStatus status = CT_STATUS_OK;

  if (nb == 1 && conv->is_1x1)
    col = input;
  else
    status = sub_batch_im2col (conv, input, nb, scratch);
  for (gint64 g = 0; g < conv->group && status == CT_STATUS_OK; g++)
    status = ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, m, ld, k, 1.0f,
                          j->weights + conv->weight_offset * g, col + g * k * ld, 0.0f,
                          rows + g * m * ld);
  if (status != CT_STATUS_OK)
    return status;
  /* The bias is added as Caffe adds it: one rounding per element. */
  if (nb == 1)
    return j->bias != NULL ? ct_cpu_bias_forward (1, conv->conv_out_channels,
                                                  conv->conv_out_spatial_dim, output, j->bias,
                                                  output)
                           : CT_STATUS_OK;
  return ct_cpu_batch_unpack (nb, conv->conv_out_channels, conv->conv_out_spatial_dim, rows,
                              j->bias, output);
}

/* Backward of images [N, N + NB): parameter gradients added to
 * WEIGHT_DIFF and BIAS_DIFF (either may be NULL), the input gradient
 * written. */
static CtStatus
backward_sub_batch (const ConvJob *j, gint64 n, gint64 nb, float *scratch, float *weight_diff,
                    float *bias_diff)
{
  const CtBaseConv *conv = j->conv;
  const gint64 m = conv->conv_out_channels / conv->group, k = conv->kernel_dim;
  const gint64 p = conv->conv_out_spatial_dim, ld = nb * p;
  const float *input = j->input + n * conv->bottom_dim;
  const float *top_diff = j->output_diff + n * conv->top_dim;
  float *input_diff = j->input_diff != NULL ? j->input_diff + n * conv->bottom_dim : NULL;
  float *col = scratch;
  const float *rows = top_diff;
  CtStatus status = CT_STATUS_OK;

  /* The top diff as one matrix (the image itself when alone); the bias
   * gradient is its row sums. */
  if (nb > 1)
    {
      float *packed = scratch + col_rows (conv) * ld;

      status = ct_cpu_batch_pack (nb, conv->conv_out_channels, p, top_diff, packed, bias_diff);
      rows = packed;
    }
  else if (bias_diff != NULL)
    status = ct_cpu_bias_backward (1, conv->conv_out_channels, p, top_diff, 1, bias_diff);

  if (status == CT_STATUS_OK && weight_diff != NULL)
    {
      const float *in_col = col;

      if (nb == 1 && conv->is_1x1)
        in_col = input;
      else
        status = sub_batch_im2col (conv, input, nb, col);
      for (gint64 g = 0; g < conv->group && status == CT_STATUS_OK; g++)
        status = ct_cpu_gemm (CT_NO_TRANS, CT_TRANS, m, k, ld, 1.0f, rows + g * m * ld,
                              in_col + g * k * ld, 1.0f, weight_diff + conv->weight_offset * g);
    }
  if (status != CT_STATUS_OK || input_diff == NULL)
    return status;

  if (nb == 1 && conv->is_1x1)
    col = input_diff;
  for (gint64 g = 0; g < conv->group && status == CT_STATUS_OK; g++)
    status = ct_cpu_gemm (CT_TRANS, CT_NO_TRANS, k, ld, m, 1.0f,
                          j->weights + conv->weight_offset * g, rows + g * m * ld, 0.0f,
                          col + g * k * ld);
  if (status != CT_STATUS_OK || (nb == 1 && conv->is_1x1))
    return status;
  return sub_batch_col2im (conv, col, nb, input_diff);
}

static gsize
scratch_floats (const ConvJob *j)
{
  const CtBaseConv *conv = j->conv;

  return (gsize) ((col_rows (conv) + conv->conv_out_channels) * j->sub_batch
                  * conv->conv_out_spatial_dim);
}

static void
forward_chunk (gint64 begin, gint64 end, int chunk, void *data)
{
  ConvJob *j = data;
  float *scratch = workspace_get (&col_key, scratch_floats (j));
  CtStatus status = scratch != NULL ? CT_STATUS_OK : CT_STATUS_OUT_OF_MEMORY;

  for (gint64 n = begin; n < end && status == CT_STATUS_OK; n += j->sub_batch)
    status = forward_sub_batch (j, n, MIN (j->sub_batch, end - n), scratch);
  j->status[chunk] = status;
}

/* Weights then bias: the parameter gradient a chunk accumulates. */
static gint64
param_floats (const CtBaseConv *conv)
{
  return conv->conv_out_channels * conv->kernel_dim + conv->num_output;
}

static void
backward_chunk (gint64 begin, gint64 end, int chunk, void *data)
{
  ConvJob *j = data;
  const CtBaseConv *conv = j->conv;
  float *scratch = workspace_get (&col_key, scratch_floats (j));
  float *weight_diff = j->weight_diff, *bias_diff = j->bias_diff;
  CtStatus status = scratch != NULL ? CT_STATUS_OK : CT_STATUS_OUT_OF_MEMORY;

  /* Chunk 0 adds into the gradients; the others into their own partial
   * sums, added in chunk order afterwards so that results repeat. */
  if (chunk > 0 && (weight_diff != NULL || bias_diff != NULL))
    {
      float *part = j->partials + (chunk - 1) * param_floats (conv);

      memset (part, 0, (gsize) param_floats (conv) * sizeof (float));
      weight_diff = weight_diff != NULL ? part : NULL;
      bias_diff = bias_diff != NULL ? part + conv->conv_out_channels * conv->kernel_dim : NULL;
    }
  for (gint64 n = begin; n < end && status == CT_STATUS_OK; n += j->sub_batch)
    status = backward_sub_batch (j, n, MIN (j->sub_batch, end - n), scratch, weight_diff,
                                 bias_diff);
  j->status[chunk] = status;
}

/* Runs FUNC over the batch: in CHUNKS chunks of images on the pool's
 * threads, or as one chunk in this thread (where the products themselves
 * may then use the threads). */
static gboolean
run_chunks (ConvJob *j, int chunks, CtParallelFunc func, GError **error)
{
  CtStatus status = CT_STATUS_OK;

  if (chunks > 1)
    ct_cpu_parallel_for_chunks (j->conv->num, chunks, func, j);
  else
    func (0, j->conv->num, 0, j);
  for (int c = 0; c < chunks && status == CT_STATUS_OK; c++)
    status = j->status[c];
  if (status == CT_STATUS_OUT_OF_MEMORY)
    return ct_layer_fail (&j->conv->parent, error, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                          _("no memory for the convolution's column buffer"));
  return ct_vision_check (&j->conv->parent, status, _("convolution product"), error);
}

gboolean
ct_base_conv_forward_batch (CtBaseConv *conv, const float *input, const float *weights,
                            const float *bias, float *output, GError **error)
{
  ConvJob j = {
    .conv = conv, .input = input, .weights = weights, .output = output,
    .bias = conv->bias_term ? bias : NULL,
  };
  int chunks = ct_cpu_parallel_chunks (conv->num, 1);

  j.sub_batch = MIN (sub_batch_images (conv), (conv->num + chunks - 1) / chunks);
  return run_chunks (&j, chunks, forward_chunk, error);
}

gboolean
ct_base_conv_backward_batch (CtBaseConv *conv, const float *input, const float *output_diff,
                             const float *weights, float *weight_diff, float *bias_diff,
                             float *input_diff, GError **error)
{
  ConvJob j = {
    .conv = conv, .input = input, .output_diff = output_diff, .weights = weights,
    .weight_diff = weight_diff, .bias_diff = bias_diff, .input_diff = input_diff,
  };
  /* One chunk per thread: each chunk after the first keeps its own
   * parameter gradient, added at the end. */
  int chunks = (int) MIN (conv->num, ct_cpu_num_threads ());
  gint64 params = param_floats (conv);

  j.sub_batch = MIN (sub_batch_images (conv), (conv->num + chunks - 1) / chunks);
  if (chunks > 1 && (weight_diff != NULL || bias_diff != NULL)
      && (j.partials = workspace_get (&partials_key, (gsize) ((chunks - 1) * params))) == NULL)
    return ct_layer_fail (&conv->parent, error, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                          _("no memory for the convolution's gradient buffers"));
  if (!run_chunks (&j, chunks, backward_chunk, error))
    return FALSE;
  for (int c = 1; c < chunks; c++)
    {
      const float *part = j.partials + (c - 1) * params;

      if (weight_diff != NULL)
        ct_cpu_axpy (conv->conv_out_channels * conv->kernel_dim, 1.0f, part, weight_diff);
      if (bias_diff != NULL)
        ct_cpu_axpy (conv->num_output, 1.0f, part + conv->conv_out_channels * conv->kernel_dim,
                     bias_diff);
    }
  return TRUE;
}
