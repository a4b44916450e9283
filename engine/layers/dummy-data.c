/* dummy-data.c: DummyData, tops filled by fillers instead of read from a
 * source: one data_filler for all tops or one per top (none: constant 0),
 * shapes from `shape` (once or per top) or the legacy num/channels/height/
 * width. As in Caffe, tops with a constant filler are filled once at setup
 * and the others again at every forward, drawing from the layer's seed. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common-private.h"

static const Caffe__DummyDataParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__DummyDataParameter defaults = CAFFE__DUMMY_DATA_PARAMETER__INIT;

  return layer->param->dummy_data_param != NULL ? layer->param->dummy_data_param : &defaults;
}

/* The filler of top I; NULL means constant 0. */
static const Caffe__FillerParameter *
filler_of (const CtLayer *layer, guint i)
{
  const Caffe__DummyDataParameter *p = get_param (layer);

  if (p->n_data_filler == 0)
    return NULL;
  return p->data_filler[p->n_data_filler == 1 ? 0 : i];
}

static gboolean
is_constant (const Caffe__FillerParameter *filler)
{
  return filler == NULL || filler->type == NULL || strcmp (filler->type, "constant") == 0;
}

static gboolean
check_legacy_count (CtLayer *layer, const char *field, gsize n, guint n_tops, GError **error)
{
  if (n == 1 || n == n_tops)
    return TRUE;
  /* TRANSLATORS: %s is a field name: num, channels, height or width */
  return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                        g_dngettext (GETTEXT_PACKAGE,
                                     "give '%s' once, or once per top (%u top); it is given %u times",
                                     "give '%s' once, or once per top (%u tops); it is given %u times",
                                     n_tops),
                        field, n_tops, (guint) n);
}

static gboolean
shape_tops (CtLayer *layer, GPtrArray *top, GError **error)
{
  const Caffe__DummyDataParameter *p = get_param (layer);
  gboolean legacy = p->n_num || p->n_channels || p->n_height || p->n_width;

  if (legacy)
    {
      if (p->n_shape != 0)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("give either shape or num/channels/height/width, not both"));
      if (!check_legacy_count (layer, "num", p->n_num, top->len, error)
          || !check_legacy_count (layer, "channels", p->n_channels, top->len, error)
          || !check_legacy_count (layer, "height", p->n_height, top->len, error)
          || !check_legacy_count (layer, "width", p->n_width, top->len, error))
        return FALSE;
    }
  else if (p->n_shape != 1 && p->n_shape != top->len)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "give 'shape' once, or once per top (%u top); it is given %u "
                                       "times",
                                       "give 'shape' once, or once per top (%u tops); it is given %u "
                                       "times", top->len),
                          top->len, (guint) p->n_shape);

  for (guint i = 0; i < top->len; i++)
    {
      g_autoptr (GError) local = NULL;
      gboolean ok;

      if (legacy)
        ok = ct_blob_reshape_4d (CT_TOP (top, i), p->num[p->n_num == 1 ? 0 : i],
                                 p->channels[p->n_channels == 1 ? 0 : i],
                                 p->height[p->n_height == 1 ? 0 : i],
                                 p->width[p->n_width == 1 ? 0 : i], &local);
      else
        ok = ct_blob_reshape_from_shape (CT_TOP (top, i), p->shape[p->n_shape == 1 ? 0 : i],
                                         &local);
      if (!ok)
        return ct_layer_fail (layer, error, local->code, _("top %u: %s"), i, local->message);
    }
  return TRUE;
}

/* Fill the tops whose filler is constant (CONSTANT) or not. */
static gboolean
fill_tops (CtLayer *layer, GPtrArray *top, gboolean constant, CtRng *rng, GError **error)
{
  for (guint i = 0; i < top->len; i++)
    {
      const Caffe__FillerParameter *filler = filler_of (layer, i);

      if (is_constant (filler) != constant)
        continue;
      if (!ct_layer_fill_param (layer, filler, CT_TOP (top, i), rng, "data_filler", error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
dummy_data_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__DummyDataParameter *p = get_param (layer);
  g_autoptr (CtRng) rng = NULL;

  if (p->n_data_filler > 1 && p->n_data_filler != top->len)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "give no data_filler, one, or one per top (%u top); %u are "
                                       "given",
                                       "give no data_filler, one, or one per top (%u tops); %u are "
                                       "given", top->len),
                          top->len, (guint) p->n_data_filler);
  for (guint i = 0; i < p->n_data_filler; i++)
    if (p->data_filler[i]->type != NULL && !ct_filler_type_is_known (p->data_filler[i]->type))
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                            _("data_filler %u has the unknown type '%s'"), i,
                            p->data_filler[i]->type);
  if (!shape_tops (layer, top, error))
    return FALSE;
  /* Constant tops once and for all; the forward fills the others. */
  rng = ct_rng_new (layer->seed);
  return fill_tops (layer, top, TRUE, rng, error);
}

/* The tops keep the shapes setup gave them. */
static gboolean
dummy_data_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

static gboolean
dummy_data_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  g_autoptr (CtRng) rng = NULL;
  gboolean any_random = FALSE;

  for (guint i = 0; i < top->len; i++)
    if (!is_constant (filler_of (layer, i)))
      any_random = TRUE;
  if (!any_random)
    return TRUE;
  /* A fresh generator per forward, so that resetting the seed replays it. */
  rng = ct_rng_new (layer->seed);
  if (!fill_tops (layer, top, FALSE, rng, error))
    return FALSE;
  layer->seed = ct_rng_next_seed (rng);
  return TRUE;
}

static const CtLayerExplanation dummy_data_explanation = {
  .summary = N_("Makes its tops out of fillers instead of reading data: constants, "
                "uniform or Gaussian noise. Useful to try a net's shapes and speed "
                "without a dataset."),
  .formula = N_("top = filler (constant c, U(a, b), N(μ, σ²), …)"),
  .parameters = N_("shape: the shape of each top; data_filler: how each top is filled."),
  .gradient = N_("Its values are not learned, so nothing flows back into it."),
};

const CtLayerClass ct_dummy_data_layer_class = {
  .explanation = &dummy_data_explanation,
  .type = "DummyData",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Tops filled by fillers (constant, uniform, gaussian, ...)"),
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_AT_LEAST (1),
  .setup = dummy_data_setup,
  .reshape = dummy_data_reshape,
  .forward = dummy_data_forward,
  .new_layer_text = "dummy_data_param { data_filler { type: \"gaussian\" std: 1 }"
                    " shape { dim: 1 dim: 1 dim: 28 dim: 28 } }",
};
