/* net-params.c: a net's parameters, as Caffe's AppendParam and
 * ShareWeights keep them.
 *
 * Every layer's parameter blobs become "net params" in net order. A blob
 * whose ParamSpec has no name, or a name not seen before, owns itself and is
 * a learnable parameter of its own (with its lr_mult and decay_mult). A
 * blob whose name was seen before shares the first one's data and diff:
 * its shape must equal the owner's (STRICT, the default) or at least its
 * element count (PERMISSIVE), and the multipliers it gives must agree with
 * those already given for that name. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-private.h"
#include "engine-error.h"
#include "error-place.h"

static const char *
layer_name (CtNet *net, guint layer_index)
{
  return ct_layer_get_name (net->layers->pdata[layer_index]);
}

static gboolean
check_shared_shape (CtNet *net, const Caffe__ParamSpec *spec, const char *name,
                    guint owner_layer, CtBlob *owner, guint layer_index, CtBlob *blob,
                    GError **error)
{
  g_autofree char *owner_shape = ct_blob_shape_string (owner);
  g_autofree char *shape = ct_blob_shape_string (blob);
  gboolean permissive = spec != NULL && spec->has_share_mode &&
                        spec->share_mode == CAFFE__PARAM_SPEC__DIM_CHECK_MODE__PERMISSIVE;

  if (permissive)
    {
      if (ct_blob_count (owner) == ct_blob_count (blob))
        return TRUE;
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("layer '%s' cannot share param '%s' owned by layer '%s': the counts "
                     "differ (owner's shape %s, this layer's %s)"),
                   layer_name (net, layer_index), name, layer_name (net, owner_layer),
                   owner_shape, shape);
      ct_error_set_place (error, layer_name (net, layer_index), NULL);
      return FALSE;
    }
  if (ct_blob_num_axes (owner) == ct_blob_num_axes (blob) &&
      memcmp (ct_blob_get_shape (owner), ct_blob_get_shape (blob),
              ct_blob_num_axes (blob) * sizeof (gint64)) == 0)
    return TRUE;
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
               _("layer '%s' cannot share param '%s' owned by layer '%s': the shapes "
                 "differ (owner's shape %s, this layer's %s; share_mode: PERMISSIVE "
                 "only asks for equal counts)"),
               layer_name (net, layer_index), name, layer_name (net, owner_layer),
               owner_shape, shape);
  ct_error_set_place (error, layer_name (net, layer_index), NULL);
  return FALSE;
}

/* A sharer's multipliers: adopted when the owner gave none, else equal. */
static gboolean
merge_multipliers (CtNet *net, CtNetLearnable *learnable, const Caffe__ParamSpec *spec,
                   const char *name, guint layer_index, GError **error)
{
  if (spec == NULL)
    return TRUE;
  if (spec->has_lr_mult)
    {
      if (learnable->has_lr_mult && learnable->lr_mult != spec->lr_mult)
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                       _("layer '%s': shared param '%s' has a different lr_mult than "
                         "where it was first given"), layer_name (net, layer_index), name);
          ct_error_set_place (error, layer_name (net, layer_index), NULL);
          return FALSE;
        }
      learnable->has_lr_mult = TRUE;
      learnable->lr_mult = spec->lr_mult;
    }
  if (spec->has_decay_mult)
    {
      if (learnable->has_decay_mult && learnable->decay_mult != spec->decay_mult)
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                       _("layer '%s': shared param '%s' has a different decay_mult than "
                         "where it was first given"), layer_name (net, layer_index), name);
          ct_error_set_place (error, layer_name (net, layer_index), NULL);
          return FALSE;
        }
      learnable->has_decay_mult = TRUE;
      learnable->decay_mult = spec->decay_mult;
    }
  return TRUE;
}

static gboolean
append_param (CtNet *net, guint layer_index, guint param_index, GError **error)
{
  CtLayer *layer = net->layers->pdata[layer_index];
  CtNetLinks *links = net->links->pdata[layer_index];
  const Caffe__LayerParameter *p = layer->param;
  const Caffe__ParamSpec *spec = param_index < p->n_param ? p->param[param_index] : NULL;
  const char *name = spec != NULL && spec->name != NULL && spec->name[0] != '\0' ? spec->name
                                                                                 : NULL;
  CtBlob *blob = layer->blobs->pdata[param_index];
  guint param_id = net->params->len;
  CtNetParamLocation location = { layer_index, param_index };
  gpointer owner_entry = name != NULL ? g_hash_table_lookup (net->param_names, name) : NULL;
  guint learnable_id;
  int owner = -1;

  g_ptr_array_add (net->params, blob);
  g_array_append_val (net->param_locations, location);
  g_ptr_array_add (net->param_display_names,
                   name != NULL ? g_strdup (name) : g_strdup_printf ("%u", param_index));
  g_array_append_val (links->param_ids, param_id);

  if (owner_entry == NULL)
    {
      CtNetLearnable learnable = {
        .blob = blob,
        .layer_index = layer_index,
        .param_index = param_index,
        /* Absent specs and fields read as the schema's defaults, 1 and 1. */
        .lr_mult = spec != NULL ? spec->lr_mult : 1.0f,
        .decay_mult = spec != NULL ? spec->decay_mult : 1.0f,
        .has_lr_mult = spec != NULL && spec->has_lr_mult,
        .has_decay_mult = spec != NULL && spec->has_decay_mult,
      };

      if (name != NULL)
        g_hash_table_insert (net->param_names, g_strdup (name), GUINT_TO_POINTER (param_id + 1));
      learnable_id = net->learnables->len;
      g_array_append_val (net->learnables, learnable);
    }
  else
    {
      guint owner_id = GPOINTER_TO_UINT (owner_entry) - 1;
      CtNetParamLocation where = g_array_index (net->param_locations, CtNetParamLocation,
                                                owner_id);

      owner = (int) owner_id;
      learnable_id = g_array_index (net->param_learnable_ids, guint, owner_id);
      /* The entries go in before the checks, so that the tables stay
       * aligned when a tolerant build goes on after an error. */
      g_array_append_val (net->param_owners, owner);
      g_array_append_val (net->param_learnable_ids, learnable_id);
      return check_shared_shape (net, spec, name, where.layer_index,
                                 net->params->pdata[owner_id], layer_index, blob, error) &&
             merge_multipliers (net,
                                &g_array_index (net->learnables, CtNetLearnable, learnable_id),
                                spec, name, layer_index, error);
    }
  g_array_append_val (net->param_owners, owner);
  g_array_append_val (net->param_learnable_ids, learnable_id);
  return TRUE;
}

gboolean
ct_net_append_params (CtNet *net, guint layer_index, GError **error)
{
  CtLayer *layer = net->layers->pdata[layer_index];

  for (guint i = 0; i < layer->blobs->len; i++)
    if (!append_param (net, layer_index, i, error))
      return FALSE;
  return TRUE;
}

gboolean
ct_net_share_weights (CtNet *net, GError **error)
{
  for (guint i = 0; i < net->params->len; i++)
    {
      int owner = g_array_index (net->param_owners, int, i);
      CtBlob *blob = net->params->pdata[i];

      if (owner < 0)
        continue;
      if (!ct_blob_share_data (blob, net->params->pdata[owner], error) ||
          !ct_blob_share_diff (blob, net->params->pdata[owner], error))
        return FALSE;
    }
  return TRUE;
}
