/* base-conv.c: the geometry of a ConvolutionParameter, and what
 * Convolution and Deconvolution share (see base-conv-private.h): setup with
 * Caffe's checks and parameter shapes, reshape into the kernels' shape, the
 * kernels' workspace (host memory for the CPU, device memory for the GPU),
 * and forward and backward, written once for both devices, which wire the
 * blobs to the convolution kernels (kernels/conv.h) and compute nothing
 * themselves. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "base-conv-private.h"
#include "device.h"
#include "engine-error.h"
#include "filler.h"
#include "im2col.h"
#include "mem.h"
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
                          g_dngettext (GETTEXT_PACKAGE,
                                       "%s must be given once, or once per spatial axis "
                                       "(given %u times for %d spatial axis)",
                                       "%s must be given once, or once per spatial axis "
                                       "(given %u times for %d spatial axes)", n),
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
                          g_dngettext (GETTEXT_PACKAGE,
                                       "%s_h and %s_w can only be used for 2-D convolution "
                                       "(the input has %d spatial axis)",
                                       "%s_h and %s_w can only be used for 2-D convolution "
                                       "(the input has %d spatial axes)", n),
                          field, field, n);
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

/* im2col from the image SRC into the column buffer DST when TO_COL, else
 * col2im from the column buffer SRC into the image DST. */
static gboolean
columns (const CtLayer *layer, const CtConvGeometry *g, gboolean to_col, gint64 channels,
         const int64_t *im_dims, const int64_t *col_dims, const float *src, float *dst,
         gboolean gpu, GError **error)
{
  int64_t im_shape[CT_BLOB_MAX_AXES + 1], col_shape[CT_BLOB_MAX_AXES + 1];
  CtStatus status;

  if (use_2d_kernel (g))
    {
      if (to_col)
        status = (gpu ? ct_cuda_im2col : ct_cpu_im2col) (src, channels, im_dims[0], im_dims[1],
                                                         g->kernel[0], g->kernel[1],
                                                         g->pad[0], g->pad[1],
                                                         g->stride[0], g->stride[1],
                                                         g->dilation[0], g->dilation[1], dst);
      else
        status = (gpu ? ct_cuda_col2im : ct_cpu_col2im) (src, channels, im_dims[0], im_dims[1],
                                                         g->kernel[0], g->kernel[1],
                                                         g->pad[0], g->pad[1],
                                                         g->stride[0], g->stride[1],
                                                         g->dilation[0], g->dilation[1], dst);
    }
  else
    {
      nd_shapes (g, channels, im_dims, col_dims, im_shape, col_shape);
      if (to_col)
        status = (gpu ? ct_cuda_im2col_nd : ct_cpu_im2col_nd) (src, g->num_spatial_axes,
                                                               im_shape, col_shape, g->kernel,
                                                               g->pad, g->stride, g->dilation,
                                                               dst);
      else
        status = (gpu ? ct_cuda_col2im_nd : ct_cpu_col2im_nd) (src, g->num_spatial_axes,
                                                               im_shape, col_shape, g->kernel,
                                                               g->pad, g->stride, g->dilation,
                                                               dst);
    }
  return ct_vision_check (layer, status, to_col ? _("im2col") : _("col2im"), error);
}

gboolean
ct_conv_geometry_im2col (const CtLayer *layer, const CtConvGeometry *g, gint64 channels,
                         const int64_t *im_dims, const int64_t *col_dims, const float *im,
                         float *col, gboolean gpu, GError **error)
{
  return columns (layer, g, TRUE, channels, im_dims, col_dims, im, col, gpu, error);
}

gboolean
ct_conv_geometry_col2im (const CtLayer *layer, const CtConvGeometry *g, gint64 channels,
                         const int64_t *im_dims, const int64_t *col_dims, const float *col,
                         float *im, gboolean gpu, GError **error)
{
  return columns (layer, g, FALSE, channels, im_dims, col_dims, col, im, gpu, error);
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

  weight_dims[0] = conv->shape.out_channels;
  weight_dims[1] = conv->shape.in_channels / conv->group;
  for (int i = 0; i < g->num_spatial_axes; i++)
    weight_dims[2 + i] = g->kernel[i];

  if (layer->blobs->len > 0)
    {
      /* Shared or loaded by the net: check them, as Caffe does, and keep them. */
      if (layer->blobs->len != expected_blobs)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "has %u parameter blob; expected %u",
                                           "has %u parameter blobs; expected %u",
                                           layer->blobs->len),
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
                          g_dngettext (GETTEXT_PACKAGE,
                                       "the input's %" PRId64 " channel does not divide "
                                       "into %" PRId64 " groups",
                                       "the input's %" PRId64 " channels do not divide "
                                       "into %" PRId64 " groups", (gulong) conv->channels),
                          conv->channels, conv->group);
  if (conv->num_output % conv->group != 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("num_output (%" PRId64 ") must be a multiple of group (%"
                            PRId64 ")"), conv->num_output, conv->group);

  memset (&conv->shape, 0, sizeof conv->shape);
  conv->shape.out_channels = reverse ? conv->channels : conv->num_output;
  conv->shape.in_channels = reverse ? conv->num_output : conv->channels;
  conv->shape.group = conv->group;
  conv->shape.num_spatial_axes = conv->geometry.num_spatial_axes;
  for (int i = 0; i < conv->geometry.num_spatial_axes; i++)
    {
      conv->shape.kernel[i] = conv->geometry.kernel[i];
      conv->shape.pad[i] = conv->geometry.pad[i];
      conv->shape.stride[i] = conv->geometry.stride[i];
      conv->shape.dilation[i] = conv->geometry.dilation[i];
    }
  return setup_params (conv, p, error);
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
                          g_dngettext (GETTEXT_PACKAGE,
                                       "the input has %u axis; it had %d when the layer was "
                                       "set up, and that may not change",
                                       "the input has %u axes; it had %d when the layer was "
                                       "set up, and that may not change", n_axes),
                          n_axes, g->channel_axis + 1 + g->num_spatial_axes);
  if (ct_blob_get_shape (input)[g->channel_axis] != conv->channels)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "the input has %" PRId64 " channel; the weights were "
                                       "made for %" PRId64,
                                       "the input has %" PRId64 " channels; the weights were "
                                       "made for %" PRId64,
                                       (gulong) ct_blob_get_shape (input)[g->channel_axis]),
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
  gint64 top_shape[CT_BLOB_MAX_AXES];
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

  conv->shape.num = ct_blob_count_range (input, 0, g->channel_axis, NULL);
  conv->top_spatial_dim = ct_blob_count_from (CT_TOP (top, 0), first_spatial, NULL);

  /* The convolution computed: bottom to top, or top to bottom when reversed. */
  for (int i = 0; i < g->num_spatial_axes; i++)
    {
      gint64 in = in_shape[first_spatial + i], out = top_shape[first_spatial + i];

      conv->shape.in_dims[i] = conv->reverse ? out : in;
      conv->shape.out_dims[i] = conv->reverse ? in : out;
    }
  return TRUE;
}

/* The kernels' workspace, kept per calling thread and grown when a layer
 * needs more: layers run one at a time on a thread, so one buffer serves
 * every convolution of a net, where per-layer buffers would add up over a
 * deep net. The GPU's is device memory (a CtMem's device copy), on the
 * device it was made for. */
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

static GPrivate workspace_key = G_PRIVATE_INIT (workspace_free);

typedef struct {
  CtMem *mem;
  gsize capacity; /* floats */
  int device;
} GpuWorkspace;

static void
gpu_workspace_free (gpointer data)
{
  GpuWorkspace *w = data;

  g_clear_pointer (&w->mem, ct_mem_unref);
  g_free (w);
}

static GPrivate gpu_workspace_key = G_PRIVATE_INIT (gpu_workspace_free);

static float *
no_workspace (CtBaseConv *conv, GError **error)
{
  ct_layer_fail (&conv->parent, error, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                 _("no memory for the convolution's column buffer"));
  return NULL;
}

static float *
cpu_workspace_get (CtBaseConv *conv, unsigned passes, GError **error)
{
  Workspace *w = g_private_get (&workspace_key);
  gsize n = ct_cpu_conv_workspace_floats_for (&conv->shape, passes);

  if (w == NULL)
    {
      w = g_new0 (Workspace, 1);
      g_private_set (&workspace_key, w);
    }
  if (w->capacity < MAX (n, 1))
    {
      g_clear_pointer (&w->data, g_free);
      w->capacity = 0;
      if (n > G_MAXSIZE / sizeof (float)
          || (w->data = g_try_malloc (MAX (n, 1) * sizeof (float))) == NULL)
        return no_workspace (conv, error);
      w->capacity = MAX (n, 1);
    }
  return w->data;
}

static float *
gpu_workspace_get (CtBaseConv *conv, GError **error)
{
  GpuWorkspace *w = g_private_get (&gpu_workspace_key);
  gsize n = MAX (ct_cuda_conv_workspace_floats (&conv->shape), 1);
  int device = ct_cuda_get_device ();

  if (w == NULL)
    {
      w = g_new0 (GpuWorkspace, 1);
      w->device = -1;
      g_private_set (&gpu_workspace_key, w);
    }
  if (w->mem == NULL || w->capacity < n || w->device != device)
    {
      g_clear_pointer (&w->mem, ct_mem_unref);
      w->capacity = 0;
      if (n > G_MAXSIZE / sizeof (float))
        return no_workspace (conv, error);
      w->mem = ct_mem_new (n * sizeof (float));
      if (ct_mem_mutable_gpu_data (w->mem, error) == NULL)
        {
          g_clear_pointer (&w->mem, ct_mem_unref);
          return NULL;
        }
      w->capacity = n;
      w->device = device;
    }
  return ct_mem_mutable_gpu_data (w->mem, error);
}

/* The kernels' calls (CtConvPass bits) the layer's FORWARD or backward
 * pass makes: Deconvolution's forward pass is a convolution's backward
 * call, and its backward pass makes both. */
static unsigned
kernel_calls (const CtBaseConv *conv, gboolean forward)
{
  if (!conv->reverse)
    return forward ? CT_CONV_PASS_FORWARD : CT_CONV_PASS_BACKWARD;
  return forward ? CT_CONV_PASS_BACKWARD : CT_CONV_PASS_FORWARD | CT_CONV_PASS_BACKWARD;
}

/* The workspace for the kernels' calls in PASSES (CtConvPass bits): a
 * net that never runs backward keeps only what forward passes need. */
static float *
workspace_get (CtBaseConv *conv, unsigned passes, gboolean gpu, GError **error)
{
  return gpu ? gpu_workspace_get (conv, error) : cpu_workspace_get (conv, passes, error);
}

/* Parameter blob INDEX's data, and its diff when DIFF is not NULL and the
 * gradient is wanted (else *DIFF is NULL). */
static const float *
param (CtLayer *layer, guint index, float **diff, gboolean gpu, GError **error)
{
  CtBlob *blob = g_ptr_array_index (layer->blobs, index);

  if (diff != NULL)
    {
      *diff = NULL;
      if (ct_layer_param_propagate_down (layer, index)
          && (*diff = ct_blob_mutable_diff_on (blob, gpu, error)) == NULL)
        return NULL;
    }
  return ct_blob_data_on (blob, gpu, error);
}

gboolean
ct_base_conv_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                      GError **error)
{
  CtBaseConv *conv = (CtBaseConv *) layer;
  const float *weights, *bias = NULL;
  float *workspace;

  if ((weights = param (layer, 0, NULL, gpu, error)) == NULL
      || (conv->bias_term && (bias = param (layer, 1, NULL, gpu, error)) == NULL)
      || (workspace = workspace_get (conv, kernel_calls (conv, TRUE), gpu, error)) == NULL)
    return FALSE;

  for (guint i = 0; i < bottom->len; i++)
    {
      const float *in = ct_blob_data_on (CT_BOTTOM (bottom, i), gpu, error);
      float *out = ct_blob_mutable_data_on (CT_TOP (top, i), gpu, error);
      CtStatus status;

      if (in == NULL || out == NULL)
        return FALSE;
      if (!conv->reverse)
        status = (gpu ? ct_cuda_conv_forward : ct_cpu_conv_forward) (&conv->shape, in, weights,
                                                                     bias, out, workspace);
      else
        {
          status = (gpu ? ct_cuda_conv_backward : ct_cpu_conv_backward) (&conv->shape, NULL, in,
                                                                         weights, NULL, NULL,
                                                                         out, workspace);
          if (status == CT_STATUS_OK && bias != NULL)
            status = (gpu ? ct_cuda_conv_bias_forward
                          : ct_cpu_conv_bias_forward) (conv->shape.num, conv->num_output,
                                                       conv->top_spatial_dim, bias, out);
        }
      if (!ct_vision_check (layer, status, _("convolution product"), error))
        return FALSE;
    }
  return TRUE;
}

/* Deconvolution's backward: its top is the convolution's input and its
 * bottom the convolution's output. */
static CtStatus
reverse_backward (CtBaseConv *conv, const float *top_diff, const float *in,
                  const float *weights, float *weight_diff, float *bias_diff, float *in_diff,
                  float *workspace, gboolean gpu)
{
  CtStatus status = CT_STATUS_OK;

  if (bias_diff != NULL)
    status = (gpu ? ct_cuda_conv_bias_backward
                  : ct_cpu_conv_bias_backward) (conv->shape.num, conv->num_output,
                                                conv->top_spatial_dim, top_diff, bias_diff);
  if (status == CT_STATUS_OK && weight_diff != NULL)
    status = (gpu ? ct_cuda_conv_backward : ct_cpu_conv_backward) (&conv->shape, top_diff, in,
                                                                   NULL, weight_diff, NULL, NULL,
                                                                   workspace);
  if (status == CT_STATUS_OK && in_diff != NULL)
    status = (gpu ? ct_cuda_conv_forward : ct_cpu_conv_forward) (&conv->shape, top_diff, weights,
                                                                 NULL, in_diff, workspace);
  return status;
}

gboolean
ct_base_conv_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                       GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtBaseConv *conv = (CtBaseConv *) layer;
  const float *weights;
  float *weight_diff, *bias_diff = NULL, *workspace;

  if ((weights = param (layer, 0, &weight_diff, gpu, error)) == NULL
      || (conv->bias_term && param (layer, 1, &bias_diff, gpu, error) == NULL)
      || (workspace = workspace_get (conv, kernel_calls (conv, FALSE), gpu, error)) == NULL)
    return FALSE;

  for (guint i = 0; i < top->len; i++)
    {
      const float *top_diff = ct_blob_diff_on (CT_TOP (top, i), gpu, error);
      const float *in = NULL;
      float *in_diff = NULL;
      CtStatus status;

      if (top_diff == NULL)
        return FALSE;
      if (weight_diff != NULL
          && (in = ct_blob_data_on (CT_BOTTOM (bottom, i), gpu, error)) == NULL)
        return FALSE;
      if (propagate_down[i]
          && (in_diff = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, i), gpu, error)) == NULL)
        return FALSE;
      if (!conv->reverse)
        status = (gpu ? ct_cuda_conv_backward : ct_cpu_conv_backward) (&conv->shape, in,
                                                                       top_diff, weights,
                                                                       weight_diff, bias_diff,
                                                                       in_diff, workspace);
      else
        status = reverse_backward (conv, top_diff, in, weights, weight_diff, bias_diff, in_diff,
                                   workspace, gpu);
      if (!ct_vision_check (layer, status, _("convolution product"), error))
        return FALSE;
    }
  return TRUE;
}
