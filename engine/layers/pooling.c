/* pooling.c: Pooling, Caffe's 2-D pooling of N x C x H x W blobs: MAX
 * (with the winners' positions as an optional second top), AVE, and
 * STOCHASTIC (a sample in proportion to the activations when training, their
 * activation-weighted average when testing); global_pooling pools each whole
 * plane. Output sizes follow Caffe: rounded up by default (round_mode), and
 * with padding one window less when the last would start in the padding.
 *
 * Also the helpers SPP shares (pooling-private.h).
 *
 * Both devices run the same code (the _on functions) with the kernels'
 * CPU or CUDA twins. The winners' indices and STOCHASTIC's draws live in
 * CtMem, so they are wherever the pass runs; the draws always come from
 * the CPU's generator (and are copied over), so that a seeded run samples
 * the same windows on either device. A net that runs forward only keeps
 * no MAX winners on the CPU (57 MB of GoogLeNet's at batch 10). */
#include <inttypes.h>
#include <math.h>
#include <glib/gi18n-lib.h>

#include "pooling-private.h"
#include "blas.h"
#include "engine-error.h"
#include "rng.h"
#include "vision-private.h"
#include "net.h"

typedef struct {
  CtLayer parent;
  CtPoolWindow window;
  gboolean global;
  gboolean floor_mode;
  CtPoolGeometry geometry;
  CtMem *index;   /* int32_t: MAX winners (without a mask top) or STOCHASTIC samples */
  CtMem *uniform; /* float: STOCHASTIC draws */
} CtPoolingLayer;

gboolean
ct_pool_window_check (const CtLayer *layer, const CtPoolWindow *w, GError **error)
{
  if (w->kernel_h <= 0 || w->kernel_w <= 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("the kernel size must be positive"));
  if (w->stride_h <= 0 || w->stride_w <= 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("the stride must be positive"));
  if (w->pad_h == 0 && w->pad_w == 0)
    return TRUE;
  if (w->method != CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX
      && w->method != CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("padding works only with MAX and AVE pooling"));
  if (w->pad_h >= w->kernel_h || w->pad_w >= w->kernel_w)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("the padding (%" PRId64 ", %" PRId64
                            ") must be smaller than the kernel (%" PRId64 ", %"
                            PRId64 ")"),
                          w->pad_h, w->pad_w, w->kernel_h, w->kernel_w);
  return TRUE;
}

/* One axis of the output-size rule, in float as Caffe computes it. */
static gint64
pooled_size (gint64 in, gint64 kernel, gint64 stride, gint64 pad, gboolean floor_mode)
{
  float ratio = (float) (in + 2 * pad - kernel) / (float) stride;
  gint64 pooled = (gint64) (floor_mode ? floorf (ratio) : ceilf (ratio)) + 1;

  if (pad > 0 && (pooled - 1) * stride >= in + pad)
    pooled--;
  return pooled;
}

gboolean
ct_pool_window_output (const CtLayer *layer, const CtPoolWindow *w, gboolean floor_mode,
                       gint64 height, gint64 width, gint64 *pooled_h, gint64 *pooled_w,
                       GError **error)
{
  *pooled_h = pooled_size (height, w->kernel_h, w->stride_h, w->pad_h, floor_mode);
  *pooled_w = pooled_size (width, w->kernel_w, w->stride_w, w->pad_w, floor_mode);
  if (*pooled_h <= 0 || *pooled_w <= 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("a %" PRId64 " x %" PRId64 " kernel does not fit "
                            "the %" PRId64 " x %" PRId64 " input with padding (%"
                            PRId64 ", %" PRId64 ")"),
                          w->kernel_h, w->kernel_w, height, width, w->pad_h, w->pad_w);
  return TRUE;
}

CtPoolGeometry
ct_pool_window_geometry (const CtPoolWindow *w, gint64 planes, gint64 height, gint64 width,
                         gint64 pooled_h, gint64 pooled_w)
{
  CtPoolGeometry g = {
    .planes = planes,
    .height = height,
    .width = width,
    .pooled_height = pooled_h,
    .pooled_width = pooled_w,
    .kernel_h = w->kernel_h,
    .kernel_w = w->kernel_w,
    .stride_h = w->stride_h,
    .stride_w = w->stride_w,
    .pad_h = w->pad_h,
    .pad_w = w->pad_w,
  };

  return g;
}

gboolean
ct_pool_forward (const CtLayer *layer, const CtPoolWindow *w, gboolean sample, gboolean gpu,
                 const CtPoolGeometry *g, const float *bottom, const float *uniform,
                 float *top, int32_t *index, float *top_mask, GError **error)
{
  CtStatus status;

  switch (w->method)
    {
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX:
      status = (gpu ? ct_cuda_max_pool_forward : ct_cpu_max_pool_forward)
               (g, bottom, top, top_mask != NULL ? NULL : index, top_mask);
      break;
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE:
      status = (gpu ? ct_cuda_ave_pool_forward : ct_cpu_ave_pool_forward) (g, bottom, top);
      break;
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC:
      if (sample)
        status = (gpu ? ct_cuda_stochastic_pool_forward_train
                      : ct_cpu_stochastic_pool_forward_train) (g, bottom, uniform, top, index);
      else
        status = (gpu ? ct_cuda_stochastic_pool_forward_test
                      : ct_cpu_stochastic_pool_forward_test) (g, bottom, top);
      break;
    default:
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                            _("unknown pooling method %d"), (int) w->method);
    }
  return ct_vision_check (layer, status, _("pooling"), error);
}

gboolean
ct_pool_backward (const CtLayer *layer, const CtPoolWindow *w, gboolean sample, gboolean gpu,
                  const CtPoolGeometry *g, const float *bottom, const float *top,
                  const float *top_diff, const int32_t *index, const float *top_mask,
                  float *bottom_diff, gboolean overwrite, GError **error)
{
  CtStatus status;
  const int32_t *mask = top_mask != NULL ? NULL : index;

  /* On the CPU, MAX and AVE clear each plane as they reach it. */
  if (!gpu && overwrite && w->method == CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX)
    return ct_vision_check (layer, ct_cpu_max_pool_backward_set (g, top_diff, mask, top_mask,
                                                                 bottom_diff),
                            _("pooling"), error);
  if (!gpu && overwrite && w->method == CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE)
    return ct_vision_check (layer, ct_cpu_ave_pool_backward_set (g, top_diff, bottom_diff),
                            _("pooling"), error);
  if (overwrite
      && !ct_vision_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (g->planes * g->height
                                                                    * g->width, 0.0f,
                                                                    bottom_diff),
                           _("clearing the bottom diff"), error))
    return FALSE;

  switch (w->method)
    {
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX:
      status = (gpu ? ct_cuda_max_pool_backward : ct_cpu_max_pool_backward)
               (g, top_diff, mask, top_mask, bottom_diff);
      break;
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE:
      status = (gpu ? ct_cuda_ave_pool_backward : ct_cpu_ave_pool_backward)
               (g, top_diff, bottom_diff);
      break;
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC:
      if (sample)
        status = (gpu ? ct_cuda_stochastic_pool_backward_train
                      : ct_cpu_stochastic_pool_backward_train) (g, top_diff, index,
                                                                bottom_diff);
      else
        status = (gpu ? ct_cuda_stochastic_pool_backward_test
                      : ct_cpu_stochastic_pool_backward_test) (g, bottom, top, top_diff,
                                                               bottom_diff);
      break;
    default:
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                            _("unknown pooling method %d"), (int) w->method);
    }
  return ct_vision_check (layer, status, _("pooling"), error);
}

gboolean
ct_pool_grow_mem (const CtLayer *layer, CtMem **mem, gint64 n, gsize element_size,
                  GError **error)
{
  if (*mem != NULL && (gsize) n <= ct_mem_get_size (*mem) / element_size)
    return TRUE;
  if (n < 0 || (guint64) n > G_MAXSIZE / element_size)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                          _("cannot allocate a buffer of %" PRId64 " elements"), n);
  /* Nothing is allocated until a device asks for it. */
  g_clear_pointer (mem, ct_mem_unref);
  *mem = ct_mem_new ((gsize) n * element_size);
  return TRUE;
}

gpointer
ct_pool_mem_on (const CtLayer *layer, CtMem *mem, gboolean gpu, gboolean mutable_,
                GError **error)
{
  g_autoptr (GError) local = NULL;
  gpointer p;

  if (gpu)
    p = mutable_ ? ct_mem_mutable_gpu_data (mem, &local)
                 : (gpointer) ct_mem_gpu_data (mem, &local);
  else
    p = mutable_ ? ct_mem_mutable_cpu_data (mem, &local)
                 : (gpointer) ct_mem_cpu_data (mem, &local);
  if (p == NULL)
    ct_layer_fail (layer, error, local != NULL ? local->code : CT_ENGINE_ERROR_OUT_OF_MEMORY,
                   "%s", local != NULL ? local->message : _("no memory for a buffer"));
  return p;
}

const float *
ct_pool_draw_uniform (CtLayer *layer, CtMem *mem, gint64 n, gboolean gpu, GError **error)
{
  g_autoptr (CtRng) rng = NULL;
  float *draws = ct_pool_mem_on (layer, mem, FALSE, TRUE, error);

  if (draws == NULL)
    return NULL;
  rng = ct_rng_new (layer->seed);
  ct_rng_uniform (rng, n, 0.0f, 1.0f, draws);
  layer->seed = ct_rng_next_seed (rng);
  return gpu ? ct_pool_mem_on (layer, mem, TRUE, FALSE, error) : draws;
}

/* Caffe's rules for the kernel_size / kernel_h+kernel_w, pad / pad_h+pad_w
 * and stride / stride_h+stride_w alternatives. */
static gboolean
check_forms (const CtLayer *layer, const Caffe__PoolingParameter *p, GError **error)
{
  gboolean both_kernel_hw = p->has_kernel_h && p->has_kernel_w;

  if (p->global_pooling)
    {
      if (p->has_kernel_size || p->has_kernel_h || p->has_kernel_w)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                              _("with global_pooling the kernel size cannot be given"));
    }
  else if (p->has_kernel_size && both_kernel_hw)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("give the kernel as kernel_size or as kernel_h and kernel_w, "
                            "not both"));
  else if (!p->has_kernel_size && !both_kernel_hw)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("the kernel size is missing: give kernel_size, or both kernel_h "
                            "and kernel_w"));

  if (!((!p->has_pad && p->has_pad_h && p->has_pad_w) || (!p->has_pad_h && !p->has_pad_w)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("give pad, or both pad_h and pad_w"));
  if (!((!p->has_stride && p->has_stride_h && p->has_stride_w)
        || (!p->has_stride_h && !p->has_stride_w)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("give stride, or both stride_h and stride_w"));
  return TRUE;
}

static gboolean
check_4_axes (const CtLayer *layer, CtBlob *input, GError **error)
{
  if (ct_blob_num_axes (input) != 4)
    {
      g_autofree char *shape = ct_blob_shape_string (input);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the input must have 4 axes (num, channels, height, width); "
                              "it has shape %s"), shape);
    }
  return TRUE;
}

static gboolean
pooling_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__PoolingParameter defaults = CAFFE__POOLING_PARAMETER__INIT;
  CtPoolingLayer *self = (CtPoolingLayer *) layer;
  const Caffe__PoolingParameter *p = layer->param->pooling_param != NULL
                                     ? layer->param->pooling_param : &defaults;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  CtPoolWindow *w = &self->window;

  if (!ct_vision_refuse_in_place (layer, bottom, top, error) || !check_forms (layer, p, error)
      || !check_4_axes (layer, input, error))
    return FALSE;
  if (p->pool != CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX
      && p->pool != CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE
      && p->pool != CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("unknown pooling method %d"), (int) p->pool);
  if (top->len > 1 && p->pool != CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("only MAX pooling has a second top (the mask)"));

  self->global = p->global_pooling;
  self->floor_mode = p->round_mode == CAFFE__POOLING_PARAMETER__ROUND_MODE__FLOOR;
  w->method = p->pool;
  if (self->global)
    {
      w->kernel_h = ct_blob_get_shape (input)[2];
      w->kernel_w = ct_blob_get_shape (input)[3];
    }
  else
    {
      w->kernel_h = p->has_kernel_size ? p->kernel_size : p->kernel_h;
      w->kernel_w = p->has_kernel_size ? p->kernel_size : p->kernel_w;
    }
  w->pad_h = p->has_pad_h ? p->pad_h : p->pad;
  w->pad_w = p->has_pad_h ? p->pad_w : p->pad;
  w->stride_h = p->has_stride_h ? p->stride_h : p->stride;
  w->stride_w = p->has_stride_h ? p->stride_w : p->stride;

  if (self->global && (w->pad_h != 0 || w->pad_w != 0 || w->stride_h != 1 || w->stride_w != 1))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("with global_pooling, pad must be 0 and stride 1"));
  return ct_pool_window_check (layer, w, error);
}

static gboolean
pooling_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtPoolingLayer *self = (CtPoolingLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const gint64 *shape;
  gint64 pooled_h, pooled_w;
  g_autoptr (GError) local = NULL;

  if (!check_4_axes (layer, input, error))
    return FALSE;
  shape = ct_blob_get_shape (input);
  if (self->global)
    {
      /* The window follows the input, as Caffe's reshape does. */
      self->window.kernel_h = shape[2];
      self->window.kernel_w = shape[3];
    }
  if (!ct_pool_window_output (layer, &self->window, self->floor_mode, shape[2], shape[3],
                              &pooled_h, &pooled_w, error))
    return FALSE;
  self->geometry = ct_pool_window_geometry (&self->window, shape[0] * shape[1], shape[2],
                                            shape[3], pooled_h, pooled_w);

  for (guint t = 0; t < top->len; t++)
    if (!ct_blob_reshape_4d (CT_TOP (top, t), shape[0], shape[1], pooled_h, pooled_w, &local))
      return ct_layer_fail (layer, error, local->code, "%s", local->message);

  if (self->window.method != CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE
      && !ct_pool_grow_mem (layer, &self->index, ct_blob_count (CT_TOP (top, 0)),
                            sizeof (int32_t), error))
    return FALSE;
  if (self->window.method == CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC
      && !ct_pool_grow_mem (layer, &self->uniform, ct_blob_count (CT_TOP (top, 0)),
                            sizeof (float), error))
    return FALSE;
  return TRUE;
}

/* STOCHASTIC samples when training and averages when testing, as Caffe. */
static gboolean
samples (const CtPoolingLayer *self)
{
  return self->window.method == CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC
         && self->parent.phase == CAFFE__PHASE__TRAIN;
}

/* Whether the forward pass writes INDEX: STOCHASTIC's samples always,
 * MAX's winners for a backward pass that may come (the GPU's kernels
 * always want them). */
static gboolean
keeps_index (const CtPoolingLayer *self, gboolean gpu)
{
  return gpu || !self->parent.forward_only
         || self->window.method == CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC;
}

static gboolean
pooling_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                 GError **error)
{
  CtPoolingLayer *self = (CtPoolingLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out = in != NULL ? ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error) : NULL;
  float *mask = NULL;
  const float *uniform = NULL;
  int32_t *index = NULL;

  if (in == NULL || out == NULL)
    return FALSE;
  if (top->len > 1 && (mask = ct_blob_mutable_data_on (CT_TOP (top, 1), gpu, error)) == NULL)
    return FALSE;
  if (samples (self)
      && (uniform = ct_pool_draw_uniform (layer, self->uniform, ct_blob_count (CT_TOP (top, 0)),
                                          gpu, error)) == NULL)
    return FALSE;
  if (self->index != NULL && mask == NULL && keeps_index (self, gpu)
      && (index = ct_pool_mem_on (layer, self->index, gpu, TRUE, error)) == NULL)
    return FALSE;
  return ct_pool_forward (layer, &self->window, samples (self), gpu, &self->geometry, in,
                          uniform, out, index, mask, error);
}

static gboolean
pooling_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                  GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtPoolingLayer *self = (CtPoolingLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const float *in, *out, *out_diff, *mask = NULL;
  const int32_t *index = NULL;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  if ((in = ct_blob_data_on (input, gpu, error)) == NULL
      || (out = ct_blob_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (out_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (in_diff = ct_blob_mutable_diff_on (input, gpu, error)) == NULL)
    return FALSE;
  if (top->len > 1 && (mask = ct_blob_data_on (CT_TOP (top, 1), gpu, error)) == NULL)
    return FALSE;
  if (self->index != NULL && mask == NULL
      && (index = ct_pool_mem_on (layer, self->index, gpu, FALSE, error)) == NULL)
    return FALSE;
  return ct_pool_backward (layer, &self->window, samples (self), gpu, &self->geometry, in, out,
                           out_diff, index, mask, in_diff, TRUE, error);
}

/* For the memory plan: MAX reads the winners it kept (or a mask top), AVE
 * nothing; STOCHASTIC's test pass reads its bottom and top. */
static gboolean
pooling_backward_reads_data (const CtLayer *layer, gboolean is_top, guint index)
{
  const CtPoolingLayer *self = (const CtPoolingLayer *) layer;

  switch (self->window.method)
    {
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX:
      return is_top && index == 1;
    case CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE:
      return FALSE;
    default:
      return TRUE;
    }
}

static void
pooling_finalize (CtLayer *layer)
{
  CtPoolingLayer *self = (CtPoolingLayer *) layer;

  g_clear_pointer (&self->index, ct_mem_unref);
  g_clear_pointer (&self->uniform, ct_mem_unref);
}

/* One operation per element of each output's window. */
static double
pooling_flops (const CtNetShapeLayer *l)
{
  const Caffe__PoolingParameter *p = l->param->pooling_param;
  const CtNetShapeBlob *b = l->bottoms->len > 0 ? l->bottoms->pdata[0] : NULL;
  double window;

  if (p != NULL && p->global_pooling)
    {
      if (b == NULL || !b->known || b->n_axes < 4)
        return 0.0;
      window = (double) b->dims[2] * (double) b->dims[3];
    }
  else if (p != NULL)
    window = (double) (p->has_kernel_h ? p->kernel_h : p->kernel_size)
             * (double) (p->has_kernel_w ? p->kernel_w : p->kernel_size);
  else
    return 0.0;
  return ct_layer_shapes_first_count (l->tops) * window;
}

static const CtLayerExplanation pooling_explanation = {
  .summary = N_("Summarises each window of a channel by one number: its largest value "
                "(MAX) or its mean (AVE). The map gets smaller and a small shift of the "
                "input changes it little."),
  .formula = N_("MAX: y[n, c, i, j] = max over the window of x;  AVE: y = (1 / window "
                "size) · Σ over the window of x"),
  .parameters = N_("pool: MAX, AVE or STOCHASTIC; kernel_size: the window; stride: the step "
                   "between windows; pad; global_pooling: one window over the whole map."),
  .gradient = N_("MAX sends each output's diff back to the one input that won its window "
                 "(the others get 0); AVE shares it equally among the window's inputs."),
};

const CtLayerClass ct_pooling_layer_class = {
  .explanation = &pooling_explanation,
  .type = "Pooling",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Max, average or stochastic pooling over spatial windows"),
  .instance_size = sizeof (CtPoolingLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_BETWEEN (1, 2),
  .setup = pooling_setup,
  .reshape = pooling_reshape,
  .forward = pooling_forward,
  .backward = pooling_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = pooling_finalize,
  .backward_reads_data = pooling_backward_reads_data,
  .new_layer_text = "pooling_param { pool: MAX kernel_size: 2 stride: 2 }",
  .flops = pooling_flops,
  .name_prefix = "pool",
};
