/* layer.c: what every layer type shares: construction from a LayerParameter,
 * the blob-count checks, setup as Caffe orders it (counts, the type's setup,
 * reshape, loss weights), forward with the loss it contributes, backward,
 * and the CPU fallback for types without GPU code. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "error-place.h"
#include "blas.h"
#include "filler.h"

static Caffe__LayerParameter *
copy_layer_param (const Caffe__LayerParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (size ? size : 1);

  protobuf_c_message_pack (&param->base, bytes);
  return caffe__layer_parameter__unpack (NULL, size, bytes);
}

CtLayer *
ct_layer_new (const CtLayerClass *klass, const Caffe__LayerParameter *param, Caffe__Phase phase)
{
  CtLayer *layer;

  g_return_val_if_fail (klass != NULL && param != NULL, NULL);
  g_return_val_if_fail (klass->instance_size >= sizeof (CtLayer), NULL);

  layer = g_malloc0 (klass->instance_size);
  layer->klass = klass;
  layer->param = copy_layer_param (param);
  layer->phase = param->has_phase ? param->phase : phase;
  layer->blobs = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  layer->param_propagate_down = g_array_new (FALSE, TRUE, sizeof (gboolean));
  layer->loss_weights = g_array_new (FALSE, TRUE, sizeof (float));
  return layer;
}

void
ct_layer_free (CtLayer *layer)
{
  if (layer == NULL)
    return;
  if (layer->klass->finalize != NULL)
    layer->klass->finalize (layer);
  g_ptr_array_unref (layer->blobs);
  g_array_unref (layer->param_propagate_down);
  g_array_unref (layer->loss_weights);
  if (layer->param != NULL)
    protobuf_c_message_free_unpacked (&layer->param->base, NULL);
  g_free (layer);
}

const char *
ct_layer_get_name (const CtLayer *layer)
{
  return layer->param->name != NULL ? layer->param->name : "";
}

const char *
ct_layer_get_type (const CtLayer *layer)
{
  return layer->klass->type;
}

gboolean
ct_layer_fail (const CtLayer *layer, GError **error, int code, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* TRANSLATORS: layer name, layer type, then what is wrong with it */
  g_set_error (error, CT_ENGINE_ERROR, code, _("layer '%s' (%s): %s"),
               ct_layer_get_name (layer), layer->klass->type, message);
  ct_error_set_place (error, ct_layer_get_name (layer), NULL);
  return FALSE;
}

static gboolean
check_count (const CtLayer *layer, gboolean tops, guint have, CtCountRule rule,
             GError **error)
{
  if (rule.exact == 0 && rule.min == 0 && rule.max == 0)
    return TRUE;
  if (rule.exact >= 0 && have != (guint) rule.exact)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          tops ? g_dngettext (GETTEXT_PACKAGE, "takes %d top blob, got %u",
                                              "takes %d top blobs, got %u", rule.exact)
                               : g_dngettext (GETTEXT_PACKAGE, "takes %d bottom blob, got %u",
                                              "takes %d bottom blobs, got %u", rule.exact),
                          rule.exact, have);
  if (rule.min >= 0 && have < (guint) rule.min)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          tops ? g_dngettext (GETTEXT_PACKAGE, "takes at least %d top blob, got %u",
                                              "takes at least %d top blobs, got %u", rule.min)
                               : g_dngettext (GETTEXT_PACKAGE, "takes at least %d bottom blob, got %u",
                                              "takes at least %d bottom blobs, got %u", rule.min),
                          rule.min, have);
  if (rule.max >= 0 && have > (guint) rule.max)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          tops ? g_dngettext (GETTEXT_PACKAGE, "takes at most %d top blob, got %u",
                                              "takes at most %d top blobs, got %u", rule.max)
                               : g_dngettext (GETTEXT_PACKAGE, "takes at most %d bottom blob, got %u",
                                              "takes at most %d bottom blobs, got %u", rule.max),
                          rule.max, have);
  return TRUE;
}

static gboolean
check_blob_counts (const CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const CtLayerClass *k = layer->klass;

  if (!check_count (layer, FALSE, bottom->len, k->bottoms, error))
    return FALSE;
  if (!check_count (layer, TRUE, top->len, k->tops, error))
    return FALSE;
  if (k->equal_bottom_top_counts && bottom->len != top->len)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("needs as many top blobs as bottom blobs, got %u and %u"),
                          top->len, bottom->len);
  return TRUE;
}

/* As Caffe: the weights come from loss_weight (one per top, or none); a
 * loss layer without any weighs its first top 1. A weighted top's diff
 * holds its weight, so that backward starts from it. */
static gboolean
set_loss_weights (CtLayer *layer, GPtrArray *top, GError **error)
{
  const Caffe__LayerParameter *p = layer->param;

  if (p->n_loss_weight != 0 && p->n_loss_weight != top->len)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE, "has %u loss_weight values for %u top blob",
                                       "has %u loss_weight values for %u top blobs", top->len),
                          (guint) p->n_loss_weight, top->len);

  g_array_set_size (layer->loss_weights, top->len);
  for (guint i = 0; i < top->len; i++)
    {
      float weight = 0.0f;

      if (p->n_loss_weight != 0)
        weight = p->loss_weight[i];
      else if (layer->klass->is_loss && i == 0)
        weight = 1.0f;
      g_array_index (layer->loss_weights, float, i) = weight;
      if (weight != 0.0f && !layer->shapes_only)
        {
          CtBlob *blob = CT_TOP (top, i);
          float *diff = ct_blob_mutable_cpu_diff (blob, error);

          if (diff == NULL)
            return FALSE;
          ct_cpu_set (ct_blob_count (blob), weight, diff);
        }
    }
  return TRUE;
}

gboolean
ct_layer_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  if (!check_blob_counts (layer, bottom, top, error))
    return FALSE;
  if (layer->klass->setup != NULL && !layer->klass->setup (layer, bottom, top, error))
    return FALSE;
  /* A type that creates parameter blobs may leave propagate-down unset: learn them all. */
  while (layer->param_propagate_down->len < layer->blobs->len)
    {
      gboolean yes = TRUE;
      g_array_append_val (layer->param_propagate_down, yes);
    }
  if (!ct_layer_reshape (layer, bottom, top, error))
    return FALSE;
  return set_loss_weights (layer, top, error);
}

gboolean
ct_layer_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return layer->klass->reshape (layer, bottom, top, error);
}

gboolean
ct_layer_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                  gboolean use_gpu, float *loss, GError **error)
{
  const CtLayerClass *k = layer->klass;
  float total = 0.0f;

  if (!k->forward (layer, bottom, top, use_gpu && k->gpu_forward, error))
    return FALSE;

  for (guint i = 0; i < top->len && i < layer->loss_weights->len; i++)
    {
      CtBlob *blob = CT_TOP (top, i);
      float part = 0.0f;

      if (g_array_index (layer->loss_weights, float, i) == 0.0f)
        continue;
      /* The diff holds the loss weight (set_loss_weights). */
      ct_cpu_dot (ct_blob_count (blob), ct_blob_cpu_data (blob, NULL),
                  ct_blob_cpu_diff (blob, NULL), &part);
      total += part;
    }
  if (loss != NULL)
    *loss = total;
  return TRUE;
}

gboolean
ct_layer_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                   GPtrArray *bottom, gboolean use_gpu, GError **error)
{
  const CtLayerClass *k = layer->klass;
  if (k->backward == NULL)
    return TRUE;
  return k->backward (layer, top, propagate_down, bottom, use_gpu && k->gpu_backward, error);
}

gboolean
ct_layer_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  if (layer->klass->allow_force_backward == NULL)
    return TRUE;
  return layer->klass->allow_force_backward (layer, bottom_index);
}

float
ct_layer_loss_weight (const CtLayer *layer, guint top_index)
{
  if (top_index >= layer->loss_weights->len)
    return 0.0f;
  return g_array_index (layer->loss_weights, float, top_index);
}

gboolean
ct_layer_param_propagate_down (const CtLayer *layer, guint param_index)
{
  if (param_index >= layer->param_propagate_down->len)
    return FALSE;
  return g_array_index (layer->param_propagate_down, gboolean, param_index);
}

void
ct_layer_set_param_propagate_down (CtLayer *layer, guint param_index, gboolean value)
{
  if (param_index >= layer->param_propagate_down->len)
    g_array_set_size (layer->param_propagate_down, param_index + 1);
  g_array_index (layer->param_propagate_down, gboolean, param_index) = value;
}

gboolean
ct_layer_fill_param (CtLayer *layer, const Caffe__FillerParameter *filler, CtBlob *blob,
                     CtRng *rng, const char *what, GError **error)
{
  g_autoptr (GError) local = NULL;
  gboolean ok = layer->shapes_only ? ct_filler_check (filler, blob, &local)
                                   : ct_filler_fill (filler, blob, rng, &local);

  if (ok)
    return TRUE;
  /* TRANSLATORS: the first %s names what is filled, such as weight_filler */
  return ct_layer_fail (layer, error, local->code, _("%s: %s"), what, local->message);
}

gboolean
ct_layer_backward_reads_data (const CtLayer *layer, gboolean is_top, guint index)
{
  if (layer->klass->backward_reads_data == NULL)
    return TRUE;
  return layer->klass->backward_reads_data (layer, is_top, index);
}

gboolean
ct_layer_backward_reads_bottoms (const CtLayer *layer, gboolean is_top, guint index)
{
  return !is_top;
}

gboolean
ct_layer_backward_reads_nothing (const CtLayer *layer, gboolean is_top, guint index)
{
  return FALSE;
}

gboolean
ct_layer_in_place (const CtLayer *layer, guint index)
{
  const Caffe__LayerParameter *p = layer->param;

  return index < p->n_bottom && index < p->n_top && strcmp (p->bottom[index], p->top[index]) == 0;
}
