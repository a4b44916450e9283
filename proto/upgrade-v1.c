/* upgrade-v1.c: V1 nets (`layers { type: CONVOLUTION }`) brought to V2
 * (`layer { type: "Convolution" }`), as Caffe's UpgradeV1Net does. First
 * the data layers' scale/mean_file/crop_size/mirror move into
 * transform_param (Caffe's UpgradeNetDataTransformation, run on V1 layers);
 * then each layer becomes a LayerParameter: enum type -> type string,
 * blobs_lr/weight_decay/param/blob_share_mode -> one ParamSpec each, the
 * *_param blocks moved across. */
#include "upgrade-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "proto-error.h"
#include "reflect.h"

/* ---- V1 data layers: transformation fields -> transform_param ---------- */

static const struct {
  const char *v1_type;
  const char *param;
} transform_sources[] = {
  { "DATA", "data_param" },
  { "IMAGE_DATA", "image_data_param" },
  { "WINDOW_DATA", "window_data_param" },
};

static const struct {
  const char *from;
  const char *to;
} transform_fields[] = {
  { "scale", "scale" },
  { "mean_file", "mean_file" },
  { "crop_size", "crop_size" },
  { "mirror", "mirror" },
};

static const char *
v1_type_name (const Caffe__V1LayerParameter *layer)
{
  const ProtobufCEnumValue *value =
    protobuf_c_enum_descriptor_get_value (&caffe__v1_layer_parameter__layer_type__descriptor,
                                          layer->type);
  return value != NULL ? value->name : "?";
}

void
ct_upgrade_data_transformation (Caffe__NetParameter *net, GPtrArray *notes)
{
  for (gsize i = 0; i < net->n_layers; i++)
    {
      Caffe__V1LayerParameter *layer = net->layers[i];

      if (!layer->has_type)
        continue;
      for (gsize s = 0; s < G_N_ELEMENTS (transform_sources); s++)
        {
          const ProtobufCFieldDescriptor *param_field;
          ProtobufCMessage *param;

          if (strcmp (v1_type_name (layer), transform_sources[s].v1_type) != 0)
            continue;
          param_field = ct_upgrade_field_by_name (layer->base.descriptor,
                                                  transform_sources[s].param);
          param = *(ProtobufCMessage **) ct_proto_field_member (&layer->base, param_field);
          if (param == NULL)
            continue;

          for (gsize f = 0; f < G_N_ELEMENTS (transform_fields); f++)
            {
              const ProtobufCFieldDescriptor *from =
                ct_upgrade_field_by_name (param->descriptor, transform_fields[f].from);
              const ProtobufCFieldDescriptor *to;
              ProtobufCMessage *transform;

              if (!ct_proto_field_is_set (param, from))
                continue;
              transform = ct_upgrade_ensure_sub (&layer->base, "transform_param");
              to = ct_upgrade_field_by_name (transform->descriptor, transform_fields[f].to);
              ct_upgrade_move_value (transform, to, param, from);
              ct_proto_field_set_present (param, from, FALSE);
              ct_upgrade_note (notes, _("moved %s.%s of layer '%s' into transform_param"),
                               transform_sources[s].param, from->name,
                               layer->name != NULL ? layer->name : "");
            }
        }
    }
}

/* ---- V1 -> V2 --------------------------------------------------------- */

static const char *
v1_to_v2_type (const Caffe__V1LayerParameter *layer)
{
  return ct_upgrade_v2_type_of_v1 (v1_type_name (layer));
}

static Caffe__ParamSpec *
param_spec_at (Caffe__LayerParameter *layer, gsize i)
{
  if (i >= layer->n_param)
    {
      layer->param = g_renew (Caffe__ParamSpec *, layer->param, i + 1);
      while (layer->n_param <= i)
        layer->param[layer->n_param++] =
          (Caffe__ParamSpec *) ct_proto_message_new (&caffe__param_spec__descriptor);
    }
  return layer->param[i];
}

/* Every *_param block of V1 has a twin of the same name in LayerParameter. */
static void
move_param_blocks (Caffe__LayerParameter *v2, Caffe__V1LayerParameter *v1)
{
  const ProtobufCMessageDescriptor *desc = v1->base.descriptor;

  for (guint f = 0; f < desc->n_fields; f++)
    {
      const ProtobufCFieldDescriptor *field = &desc->fields[f];
      const ProtobufCFieldDescriptor *twin;

      if (field->type != PROTOBUF_C_TYPE_MESSAGE || !g_str_has_suffix (field->name, "_param") ||
          !ct_proto_field_is_set (&v1->base, field))
        continue;
      twin = protobuf_c_message_descriptor_get_field_by_name (v2->base.descriptor, field->name);
      g_assert (twin != NULL && twin->descriptor == field->descriptor);
      ct_upgrade_move_value (&v2->base, twin, &v1->base, field);
    }
}

static Caffe__LayerParameter *
upgrade_v1_layer (Caffe__V1LayerParameter *v1,
                  guint index,
                  const char *filename,
                  GPtrArray *notes,
                  GError **error)
{
  g_autofree char *label = v1->name != NULL ? g_strdup (v1->name)
                                            : g_strdup_printf ("#%u", index + 1);
  Caffe__LayerParameter *v2;
  gsize n_specs;

  if (v1->layer != NULL)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: layer '%s' holds both V1 fields and a V0 'layer { }'"),
                   ct_upgrade_source_name (filename), label);
      return NULL;
    }
  if (v1->has_type && v1_to_v2_type (v1) == NULL)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: V1 layer '%s' has type %d, which is not a V1 layer type"),
                   ct_upgrade_source_name (filename), label, (int) v1->type);
      return NULL;
    }
  for (gsize i = 0; i < v1->n_blob_share_mode; i++)
    if (protobuf_c_enum_descriptor_get_value (&caffe__param_spec__dim_check_mode__descriptor,
                                              v1->blob_share_mode[i]) == NULL)
      {
        g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                     _("%s: V1 layer '%s' has blob_share_mode %d, which is neither "
                       "STRICT nor PERMISSIVE"),
                     ct_upgrade_source_name (filename), label, (int) v1->blob_share_mode[i]);
        return NULL;
      }

  v2 = (Caffe__LayerParameter *) ct_proto_message_new (&caffe__layer_parameter__descriptor);
  CT_UPGRADE_MOVE_ARRAY (v2->bottom, v2->n_bottom, v1->bottom, v1->n_bottom);
  CT_UPGRADE_MOVE_ARRAY (v2->top, v2->n_top, v1->top, v1->n_top);
  v2->name = ct_upgrade_take_string (&v1->name, NULL);
  CT_UPGRADE_MOVE_ARRAY (v2->include, v2->n_include, v1->include, v1->n_include);
  CT_UPGRADE_MOVE_ARRAY (v2->exclude, v2->n_exclude, v1->exclude, v1->n_exclude);
  if (v1->has_type)
    {
      v2->type = g_strdup (v1_to_v2_type (v1));
      ct_upgrade_note (notes, _("upgraded V1 layer '%s' (%s) to %s"), label, v1_type_name (v1),
                       *v2->type != '\0' ? v2->type : "\"\"");
    }
  CT_UPGRADE_MOVE_ARRAY (v2->blobs, v2->n_blobs, v1->blobs, v1->n_blobs);

  /* param names, share modes, blobs_lr and weight_decay, position by
   * position, become one ParamSpec each */
  n_specs = MAX (MAX (v1->n_param, v1->n_blob_share_mode),
                 MAX (v1->n_blobs_lr, v1->n_weight_decay));
  for (gsize i = 0; i < n_specs; i++)
    {
      Caffe__ParamSpec *spec = param_spec_at (v2, i);

      if (i < v1->n_param)
        spec->name = ct_upgrade_take_string (&v1->param[i], NULL);
      if (i < v1->n_blob_share_mode)
        {
          spec->has_share_mode = TRUE;
          spec->share_mode = (Caffe__ParamSpec__DimCheckMode) v1->blob_share_mode[i];
        }
      if (i < v1->n_blobs_lr)
        {
          spec->has_lr_mult = TRUE;
          spec->lr_mult = v1->blobs_lr[i];
        }
      if (i < v1->n_weight_decay)
        {
          spec->has_decay_mult = TRUE;
          spec->decay_mult = v1->weight_decay[i];
        }
    }
  if (n_specs > 0)
    ct_upgrade_note (notes, _("moved blobs_lr/weight_decay/param of layer '%s' into %lu "
                              "param { } entries"), label, (unsigned long) n_specs);

  CT_UPGRADE_MOVE_ARRAY (v2->loss_weight, v2->n_loss_weight, v1->loss_weight, v1->n_loss_weight);
  move_param_blocks (v2, v1);
  ct_upgrade_move_unknown_fields (&v2->base, &v1->base);
  return (Caffe__LayerParameter *) ct_upgrade_resolve_kept_collisions (&v2->base, label, notes);
}

gboolean
ct_upgrade_v1_net (Caffe__NetParameter *net,
                   const char *filename,
                   GPtrArray *notes,
                   GError **error)
{
  Caffe__LayerParameter **layer = g_new0 (Caffe__LayerParameter *, MAX (net->n_layers, 1));

  for (guint i = 0; i < net->n_layers; i++)
    {
      layer[i] = upgrade_v1_layer (net->layers[i], i, filename, notes, error);
      if (layer[i] == NULL)
        {
          ct_upgrade_free_messages (layer, i);
          return FALSE;
        }
    }
  ct_upgrade_free_messages (net->layers, net->n_layers);
  net->layers = NULL;
  net->layer = layer;
  net->n_layer = net->n_layers;
  net->n_layers = 0;
  return TRUE;
}
