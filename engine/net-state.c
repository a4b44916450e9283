/* net-state.c: which layers of a NetParameter a net keeps, by Caffe's
 * NetState rules. A layer with include rules is kept when the state meets
 * one of them; a layer with exclude rules is dropped when the state meets
 * one of them; a layer without rules is kept. A state meets a rule when
 * the phase matches (if the rule names one), the level lies within
 * [min_level, max_level] (where given), every `stage` of the rule is among
 * the state's stages and no `not_stage` is. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-private.h"
#include "engine-error.h"
#include "error-place.h"

static gboolean
state_has_stage (const Caffe__NetState *state, const char *stage)
{
  for (gsize i = 0; i < state->n_stage; i++)
    if (g_strcmp0 (state->stage[i], stage) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ct_net_state_meets_rule (const Caffe__NetState *state, const Caffe__NetStateRule *rule)
{
  Caffe__Phase phase = state->has_phase ? state->phase : CAFFE__PHASE__TEST;
  int level = state->has_level ? state->level : 0;

  if (rule->has_phase && rule->phase != phase)
    return FALSE;
  if (rule->has_min_level && level < rule->min_level)
    return FALSE;
  if (rule->has_max_level && level > rule->max_level)
    return FALSE;
  for (gsize i = 0; i < rule->n_stage; i++)
    if (!state_has_stage (state, rule->stage[i]))
      return FALSE;
  for (gsize i = 0; i < rule->n_not_stage; i++)
    if (state_has_stage (state, rule->not_stage[i]))
      return FALSE;
  return TRUE;
}

static gboolean
layer_included (const Caffe__NetState *state, const Caffe__LayerParameter *layer)
{
  /* Without include rules a layer is in unless an exclude rule is met;
   * with them it is out unless one is met. */
  gboolean included = layer->n_include == 0;

  for (gsize j = 0; included && j < layer->n_exclude; j++)
    if (ct_net_state_meets_rule (state, layer->exclude[j]))
      included = FALSE;
  for (gsize j = 0; !included && j < layer->n_include; j++)
    if (ct_net_state_meets_rule (state, layer->include[j]))
      included = TRUE;
  return included;
}

static Caffe__LayerParameter *
copy_layer (const Caffe__LayerParameter *layer)
{
  gsize size = protobuf_c_message_get_packed_size (&layer->base);
  g_autofree guint8 *bytes = g_malloc (size ? size : 1);

  protobuf_c_message_pack (&layer->base, bytes);
  return caffe__layer_parameter__unpack (NULL, size, bytes);
}

void
ct_net_spec_free (CtNetSpec *spec)
{
  if (spec == NULL)
    return;
  if (spec->param != NULL)
    protobuf_c_message_free_unpacked (&spec->param->base, NULL);
  g_clear_error (&spec->error);
  g_free (spec);
}

GPtrArray *
ct_net_filter_layers (const Caffe__NetParameter *param, const Caffe__NetState *state,
                      gboolean tolerant, GError **error)
{
  g_autoptr (GPtrArray) specs = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_net_spec_free);

  for (gsize i = 0; i < param->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = param->layer[i];
      g_autoptr (GError) local = NULL;
      CtNetSpec *spec;

      if (layer->n_include != 0 && layer->n_exclude != 0)
        {
          /* TRANSLATORS: a layer name follows in quotes */
          g_set_error (&local, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                       _("layer '%s': give either include rules or exclude rules, not both"),
                       layer->name != NULL ? layer->name : "");
          ct_error_set_place (&local, layer->name, NULL);
          if (!tolerant)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return NULL;
            }
        }
      if (!layer_included (state, layer))
        continue;

      spec = g_new0 (CtNetSpec, 1);
      spec->param = copy_layer (layer);
      spec->source_index = (int) i;
      spec->error = g_steal_pointer (&local);
      if (spec->param == NULL)
        {
          ct_net_spec_free (spec);
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                       _("layer '%s' could not be copied"),
                       layer->name != NULL ? layer->name : "");
          return NULL;
        }
      g_ptr_array_add (specs, spec);
    }
  return g_steal_pointer (&specs);
}
