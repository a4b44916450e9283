/* spp.c: SPP, spatial pyramid pooling as Caffe computes it. Level l pools
 * the whole image into about 2^l x 2^l bins: kernel ceil (H / 2^l), stride
 * the kernel, and padding half the shortfall, with Pooling's size rule (so
 * a level can come out with fewer bins). With pyramid_height 1 the top is
 * the single pooling's N x C x h x w; otherwise every level is flattened
 * and the levels are concatenated: N x sum (C x h_l x w_l).
 *
 * Caffe builds the pyramid from split, pooling, flatten and concat layers
 * whose parameters carry no phase, so STOCHASTIC levels always sample, even
 * in TEST; this layer does the same.
 *
 * The GPU runs the same passes with the pooling kernels' CUDA twins, the
 * draws coming from the CPU's generator as Pooling's do. */
#include <glib/gi18n-lib.h>

#include "pooling-private.h"
#include "blas.h"
#include "engine-error.h"
#include "vision-private.h"

typedef struct {
  CtPoolWindow window;
  CtPoolGeometry geometry; /* planes: the channels of one image */
  gint64 offset;           /* where the level starts in each image's top row */
} SppLevel;

typedef struct {
  CtLayer parent;
  Caffe__PoolingParameter__PoolMethod method;
  guint height;            /* pyramid levels */
  SppLevel *levels;
  gint64 num, in_dim, top_dim;
  CtMem *index;   /* int32_t per output: MAX winners, STOCHASTIC samples */
  CtMem *uniform; /* float per output: STOCHASTIC draws */
} CtSppLayer;

/* Level L's window for an H x W input (Caffe's GetPoolingParam). */
static CtPoolWindow
level_window (Caffe__PoolingParameter__PoolMethod method, guint level, gint64 height,
              gint64 width)
{
  gint64 bins = (gint64) 1 << level;
  CtPoolWindow w = { .method = method };

  w.kernel_h = (height + bins - 1) / bins;
  w.kernel_w = (width + bins - 1) / bins;
  w.pad_h = (w.kernel_h * bins - height + 1) / 2;
  w.pad_w = (w.kernel_w * bins - width + 1) / 2;
  w.stride_h = w.kernel_h;
  w.stride_w = w.kernel_w;
  return w;
}

static gboolean
spp_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  static const Caffe__SPPParameter defaults = CAFFE__SPPPARAMETER__INIT;
  CtSppLayer *self = (CtSppLayer *) layer;
  const Caffe__SPPParameter *p = layer->param->spp_param != NULL ? layer->param->spp_param
                                                                  : &defaults;

  if (!ct_vision_refuse_in_place (layer, bottom, top, error))
    return FALSE;
  if (p->pyramid_height < 1 || p->pyramid_height > 31)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("pyramid_height must be between 1 and 31 (it is %u)"),
                          p->pyramid_height);
  switch (p->pool)
    {
    case CAFFE__SPPPARAMETER__POOL_METHOD__MAX:
      self->method = CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX;
      break;
    case CAFFE__SPPPARAMETER__POOL_METHOD__AVE:
      self->method = CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE;
      break;
    case CAFFE__SPPPARAMETER__POOL_METHOD__STOCHASTIC:
      self->method = CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC;
      break;
    default:
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                            _("unknown pooling method %d"), (int) p->pool);
    }
  self->height = p->pyramid_height;
  g_free (self->levels);
  self->levels = g_new0 (SppLevel, self->height);
  return TRUE;
}

static gboolean
spp_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtSppLayer *self = (CtSppLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const gint64 *shape = ct_blob_get_shape (input);
  gint64 offset = 0, pooled_h = 0, pooled_w = 0;
  g_autoptr (GError) local = NULL;

  if (ct_blob_num_axes (input) != 4)
    {
      g_autofree char *s = ct_blob_shape_string (input);

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("the input must have 4 axes (num, channels, height, width); "
                              "it has shape %s"), s);
    }
  if (shape[2] <= 0 || shape[3] <= 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the input's height and width must be positive"));

  for (guint l = 0; l < self->height; l++)
    {
      SppLevel *level = &self->levels[l];

      level->window = level_window (self->method, l, shape[2], shape[3]);
      if (!ct_pool_window_check (layer, &level->window, &local)
          || !ct_pool_window_output (layer, &level->window, FALSE, shape[2], shape[3],
                                     &pooled_h, &pooled_w, &local))
        {
          /* TRANSLATORS: the layer's error, then which level of the pyramid */
          g_set_error (error, local->domain, local->code, _("%s (pyramid level %u)"),
                       local->message, l);
          return FALSE;
        }
      level->geometry = ct_pool_window_geometry (&level->window, shape[1], shape[2], shape[3],
                                                 pooled_h, pooled_w);
      level->offset = offset;
      offset += shape[1] * pooled_h * pooled_w;
    }

  if (self->height == 1
      ? !ct_blob_reshape_4d (CT_TOP (top, 0), shape[0], shape[1], pooled_h, pooled_w, &local)
      : !ct_blob_reshape (CT_TOP (top, 0), (gint64[]) { shape[0], offset }, 2, &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);

  self->num = shape[0];
  self->in_dim = ct_blob_count_from (input, 1, NULL);
  self->top_dim = offset;
  if (self->method != CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE
      && !ct_pool_grow_mem (layer, &self->index, ct_blob_count (CT_TOP (top, 0)),
                            sizeof (int32_t), error))
    return FALSE;
  if (self->method == CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC
      && !ct_pool_grow_mem (layer, &self->uniform, ct_blob_count (CT_TOP (top, 0)),
                            sizeof (float), error))
    return FALSE;
  return TRUE;
}

static gboolean
sampling (const CtSppLayer *self)
{
  return self->method == CAFFE__POOLING_PARAMETER__POOL_METHOD__STOCHASTIC;
}

static gboolean
spp_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
             GError **error)
{
  CtSppLayer *self = (CtSppLayer *) layer;
  const float *in = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error);
  float *out = in != NULL ? ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error) : NULL;
  const float *uniform = NULL;
  int32_t *index = NULL;

  if (in == NULL || out == NULL)
    return FALSE;
  if (sampling (self)
      && (uniform = ct_pool_draw_uniform (layer, self->uniform, ct_blob_count (CT_TOP (top, 0)),
                                          gpu, error)) == NULL)
    return FALSE;
  if (self->index != NULL
      && (index = ct_pool_mem_on (layer, self->index, gpu, TRUE, error)) == NULL)
    return FALSE;

  /* Level buffers start at AT in each buffer; absent buffers stay NULL. */
  for (guint l = 0; l < self->height; l++)
    for (gint64 n = 0; n < self->num; n++)
      {
        const SppLevel *level = &self->levels[l];
        gint64 at = n * self->top_dim + level->offset;

        if (!ct_pool_forward (layer, &level->window, sampling (self), gpu, &level->geometry,
                              in + n * self->in_dim, uniform != NULL ? uniform + at : NULL,
                              out + at, index != NULL ? index + at : NULL, NULL, error))
          return FALSE;
      }
  return TRUE;
}

static gboolean
spp_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
              GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtSppLayer *self = (CtSppLayer *) layer;
  CtBlob *input = CT_BOTTOM (bottom, 0);
  const float *in, *out, *out_diff;
  const int32_t *index = NULL;
  float *in_diff;

  if (!propagate_down[0])
    return TRUE;
  if ((in = ct_blob_data_on (input, gpu, error)) == NULL
      || (out = ct_blob_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (out_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (in_diff = ct_blob_mutable_diff_on (input, gpu, error)) == NULL)
    return FALSE;
  if (self->index != NULL
      && (index = ct_pool_mem_on (layer, self->index, gpu, FALSE, error)) == NULL)
    return FALSE;
  if (!ct_vision_check (layer, (gpu ? ct_cuda_set : ct_cpu_set) (ct_blob_count (input), 0.0f,
                                                                 in_diff),
                        _("clearing the bottom diff"), error))
    return FALSE;

  /* Every level adds its share, as Caffe's split layer sums them. */
  for (guint l = 0; l < self->height; l++)
    for (gint64 n = 0; n < self->num; n++)
      {
        const SppLevel *level = &self->levels[l];
        gint64 at = n * self->top_dim + level->offset;

        if (!ct_pool_backward (layer, &level->window, sampling (self), gpu, &level->geometry,
                               in + n * self->in_dim, out + at, out_diff + at,
                               index != NULL ? index + at : NULL, NULL,
                               in_diff + n * self->in_dim, FALSE, error))
          return FALSE;
      }
  return TRUE;
}

static void
spp_finalize (CtLayer *layer)
{
  CtSppLayer *self = (CtSppLayer *) layer;

  g_clear_pointer (&self->levels, g_free);
  g_clear_pointer (&self->index, ct_mem_unref);
  g_clear_pointer (&self->uniform, ct_mem_unref);
}

static const CtLayerExplanation spp_explanation = {
  .summary = N_("Spatial pyramid pooling: pools the map into 1×1, 2×2, 4×4, … grids and "
                "joins the results, so that inputs of any size give a vector of one "
                "length."),
  .formula = N_("y = concat over levels l of pool(x, grid 2^l × 2^l)"),
  .parameters = N_("pyramid_height: how many levels; pool: MAX or AVE."),
  .gradient = N_("Each level's pooling sends its diff back as Pooling does, and the "
                 "levels' diffs add up."),
};

const CtLayerClass ct_spp_layer_class = {
  .explanation = &spp_explanation,
  .type = "SPP",
  .family = CT_LAYER_FAMILY_VISION,
  .description = N_("Spatial pyramid pooling into a fixed-length vector"),
  .instance_size = sizeof (CtSppLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = spp_setup,
  .reshape = spp_reshape,
  .forward = spp_forward,
  .backward = spp_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .finalize = spp_finalize,
};
