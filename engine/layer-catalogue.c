/* layer-catalogue.c: the table of built-in layer types, family by family.
 * Adding a layer type is one file in layers/ (its CtLayerClass holds every
 * fact about the type) and one line here. tests/engine/test-layer.c checks
 * that every parameter message of Caffe's LayerParameter belongs to a type
 * of this table, so that a forgotten line fails a test. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer-catalogue.h"
#include "engine-error.h"
#include "layers/layer-classes.h"

static const CtLayerClass *const data_layers[] = {
  &ct_input_layer_class,
  &ct_dummy_data_layer_class,
  &ct_data_layer_class,
  &ct_image_data_layer_class,
  &ct_hdf5_data_layer_class,
  &ct_hdf5_output_layer_class,
  &ct_memory_data_layer_class,
  NULL
};

static const CtLayerClass *const common_layers[] = {
  &ct_inner_product_layer_class,
  &ct_bias_layer_class,
  &ct_scale_layer_class,
  &ct_concat_layer_class,
  &ct_slice_layer_class,
  &ct_split_layer_class,
  &ct_eltwise_layer_class,
  &ct_flatten_layer_class,
  &ct_reshape_layer_class,
  &ct_tile_layer_class,
  &ct_reduction_layer_class,
  &ct_argmax_layer_class,
  &ct_embed_layer_class,
  &ct_filter_layer_class,
  &ct_batch_reindex_layer_class,
  &ct_silence_layer_class,
  &ct_parameter_layer_class,
  NULL
};

static const CtLayerClass *const utility_layers[] = {
  &ct_python_layer_class,
  NULL
};

static const CtLayerClass *const softmax_layers[] = {
  &ct_softmax_layer_class,
  NULL
};

static const CtLayerClass *const loss_layers[] = {
  &ct_softmax_with_loss_layer_class,
  &ct_euclidean_loss_layer_class,
  &ct_sigmoid_cross_entropy_loss_layer_class,
  &ct_hinge_loss_layer_class,
  &ct_infogain_loss_layer_class,
  &ct_multinomial_logistic_loss_layer_class,
  &ct_contrastive_loss_layer_class,
  &ct_accuracy_layer_class,
  NULL
};

static const CtLayerClass *const recurrent_layers[] = {
  &ct_lstm_unit_layer_class,
  NULL
};

static const CtLayerClass *const rnn_layers[] = {
  &ct_rnn_layer_class,
  &ct_lstm_layer_class,
  NULL
};

static const CtLayerClass *const neuron_layers[] = {
  &ct_relu_layer_class,
  &ct_prelu_layer_class,
  &ct_elu_layer_class,
  &ct_sigmoid_layer_class,
  &ct_tanh_layer_class,
  &ct_absval_layer_class,
  &ct_power_layer_class,
  &ct_exp_layer_class,
  &ct_log_layer_class,
  &ct_bnll_layer_class,
  &ct_threshold_layer_class,
  &ct_dropout_layer_class,
  &ct_swish_layer_class,
  &ct_clip_layer_class,
  NULL
};

static const CtLayerClass *const normalization_layers[] = {
  &ct_batch_norm_layer_class,
  &ct_mvn_layer_class,
  NULL
};

static const CtLayerClass *const vision_layers[] = {
  &ct_convolution_layer_class,
  &ct_deconvolution_layer_class,
  &ct_pooling_layer_class,
  &ct_spp_layer_class,
  &ct_im2col_layer_class,
  &ct_crop_layer_class,
  &ct_lrn_layer_class,
  NULL
};

static const CtLayerClass *const *const families[] = {
  data_layers,
  vision_layers,
  common_layers,
  utility_layers,
  softmax_layers,
  loss_layers,
  recurrent_layers,
  rnn_layers,
  neuron_layers,
  normalization_layers,
};

static GMutex registry_lock;
static GPtrArray *registered; /* custom classes, borrowed */

static const CtLayerClass *
lookup_builtin (const char *type)
{
  for (gsize f = 0; f < G_N_ELEMENTS (families); f++)
    for (const CtLayerClass *const *k = families[f]; *k != NULL; k++)
      if (strcmp ((*k)->type, type) == 0)
        return *k;
  return NULL;
}

const CtLayerClass *
ct_layer_catalogue_lookup (const char *type)
{
  const CtLayerClass *klass;

  if (type == NULL)
    return NULL;
  klass = lookup_builtin (type);
  if (klass != NULL)
    return klass;

  g_mutex_lock (&registry_lock);
  for (guint i = 0; registered != NULL && i < registered->len; i++)
    {
      const CtLayerClass *k = g_ptr_array_index (registered, i);
      if (strcmp (k->type, type) == 0)
        klass = k;
    }
  g_mutex_unlock (&registry_lock);
  return klass;
}

GPtrArray *
ct_layer_catalogue_list (void)
{
  GPtrArray *list = g_ptr_array_new ();

  for (gsize f = 0; f < G_N_ELEMENTS (families); f++)
    for (const CtLayerClass *const *k = families[f]; *k != NULL; k++)
      g_ptr_array_add (list, (gpointer) *k);

  g_mutex_lock (&registry_lock);
  for (guint i = 0; registered != NULL && i < registered->len; i++)
    g_ptr_array_add (list, g_ptr_array_index (registered, i));
  g_mutex_unlock (&registry_lock);
  return list;
}

gboolean
ct_layer_catalogue_register (const CtLayerClass *klass, GError **error)
{
  gboolean ok = FALSE;

  g_return_val_if_fail (klass != NULL && klass->type != NULL, FALSE);

  if (klass->reshape == NULL || klass->forward == NULL ||
      klass->instance_size < sizeof (CtLayer))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                   _("layer type '%s' cannot be registered: it needs reshape, "
                     "forward and an instance size"), klass->type);
      return FALSE;
    }
  if (ct_layer_catalogue_lookup (klass->type) != NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                   _("layer type '%s' is already known"), klass->type);
      return FALSE;
    }

  g_mutex_lock (&registry_lock);
  if (registered == NULL)
    registered = g_ptr_array_new ();
  g_ptr_array_add (registered, (gpointer) klass);
  ok = TRUE;
  g_mutex_unlock (&registry_lock);
  return ok;
}

const char *
ct_layer_family_name (CtLayerFamily family)
{
  switch (family)
    {
    case CT_LAYER_FAMILY_DATA: return _("Data");
    case CT_LAYER_FAMILY_VISION: return _("Vision");
    case CT_LAYER_FAMILY_NEURON: return _("Neuron");
    case CT_LAYER_FAMILY_NORMALIZATION: return _("Normalization");
    case CT_LAYER_FAMILY_COMMON: return _("Common");
    case CT_LAYER_FAMILY_LOSS: return _("Loss");
    case CT_LAYER_FAMILY_RECURRENT: return _("Recurrent");
    case CT_LAYER_FAMILY_UTILITY: return _("Utility");
    case CT_LAYER_N_FAMILIES:
    default:
      return _("Other");
    }
}

const char *
ct_layer_class_describe (const CtLayerClass *klass)
{
  return klass->description != NULL ? _(klass->description) : "";
}

gboolean
ct_layer_class_explain (const CtLayerClass *klass, CtLayerExplanation *out)
{
  const CtLayerExplanation *e = klass != NULL ? klass->explanation : NULL;

  *out = (CtLayerExplanation) { 0 };
  if (e == NULL)
    return FALSE;
  out->summary = e->summary != NULL ? _(e->summary) : "";
  out->formula = e->formula != NULL ? _(e->formula) : "";
  out->parameters = e->parameters != NULL ? _(e->parameters) : "";
  out->gradient = e->gradient != NULL ? _(e->gradient) : "";
  return TRUE;
}
