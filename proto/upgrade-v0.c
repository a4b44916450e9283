/* upgrade-v0.c: V0 nets (`layers { layer { ... } }`) brought to V1, as
 * Caffe's UpgradeV0Net does: padding layers folded into the conv or pool
 * layer they feed, each layer's type string turned into V1's enum, and the
 * flat V0 fields (num_output, kernelsize, meanfile ...) spread over V1's
 * *_param blocks by the table below. Net fields V0 did not have are
 * dropped with a note, as Caffe drops them. */
#include "upgrade-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "proto-error.h"
#include "reflect.h"

/* Where each flat V0 field goes in a V1 layer, by V0 layer type
 * (NULL: whatever the type). A V0 field set on a type not listed for it
 * is dropped with a note, as Caffe drops it with a logged error. */
static const struct {
  const char *field;
  const char *type;
  const char *param;
  const char *target;
} v0_rules[] = {
  { "num_output", "conv", "convolution_param", "num_output" },
  { "num_output", "innerproduct", "inner_product_param", "num_output" },
  { "biasterm", "conv", "convolution_param", "bias_term" },
  { "biasterm", "innerproduct", "inner_product_param", "bias_term" },
  { "weight_filler", "conv", "convolution_param", "weight_filler" },
  { "weight_filler", "innerproduct", "inner_product_param", "weight_filler" },
  { "bias_filler", "conv", "convolution_param", "bias_filler" },
  { "bias_filler", "innerproduct", "inner_product_param", "bias_filler" },
  { "pad", "conv", "convolution_param", "pad" },
  { "pad", "pool", "pooling_param", "pad" },
  { "kernelsize", "conv", "convolution_param", "kernel_size" },
  { "kernelsize", "pool", "pooling_param", "kernel_size" },
  { "group", "conv", "convolution_param", "group" },
  { "stride", "conv", "convolution_param", "stride" },
  { "stride", "pool", "pooling_param", "stride" },
  { "pool", "pool", "pooling_param", "pool" },
  { "dropout_ratio", "dropout", "dropout_param", "dropout_ratio" },
  { "local_size", "lrn", "lrn_param", "local_size" },
  { "alpha", "lrn", "lrn_param", "alpha" },
  { "beta", "lrn", "lrn_param", "beta" },
  { "k", "lrn", "lrn_param", "k" },
  { "source", "data", "data_param", "source" },
  { "source", "hdf5_data", "hdf5_data_param", "source" },
  { "source", "images", "image_data_param", "source" },
  { "source", "window_data", "window_data_param", "source" },
  { "source", "infogain_loss", "infogain_loss_param", "source" },
  { "scale", NULL, "transform_param", "scale" },
  { "meanfile", NULL, "transform_param", "mean_file" },
  { "batchsize", "data", "data_param", "batch_size" },
  { "batchsize", "hdf5_data", "hdf5_data_param", "batch_size" },
  { "batchsize", "images", "image_data_param", "batch_size" },
  { "batchsize", "window_data", "window_data_param", "batch_size" },
  { "cropsize", NULL, "transform_param", "crop_size" },
  { "mirror", NULL, "transform_param", "mirror" },
  { "rand_skip", "data", "data_param", "rand_skip" },
  { "rand_skip", "images", "image_data_param", "rand_skip" },
  { "shuffle_images", "images", "image_data_param", "shuffle" },
  { "new_height", "images", "image_data_param", "new_height" },
  { "new_width", "images", "image_data_param", "new_width" },
  { "concat_dim", "concat", "concat_param", "concat_dim" },
  { "det_fg_threshold", "window_data", "window_data_param", "fg_threshold" },
  { "det_bg_threshold", "window_data", "window_data_param", "bg_threshold" },
  { "det_fg_fraction", "window_data", "window_data_param", "fg_fraction" },
  { "det_context_pad", "window_data", "window_data_param", "context_pad" },
  { "det_crop_mode", "window_data", "window_data_param", "crop_mode" },
  { "hdf5_output_param", "hdf5_output", "hdf5_output_param", NULL },
};

static const char *
v0_layer_label (const Caffe__V1LayerParameter *connection, guint index, char *buf, gsize size)
{
  if (connection->layer != NULL && connection->layer->name != NULL)
    return connection->layer->name;
  g_snprintf (buf, size, "#%u", index + 1);
  return buf;
}

/* Spreads one set V0 field over V1's *_param blocks. */
static gboolean
upgrade_v0_field (Caffe__V0LayerParameter *v0,
                  const ProtobufCFieldDescriptor *field,
                  Caffe__V1LayerParameter *v1,
                  const char *layer_name,
                  const char *filename,
                  GPtrArray *notes,
                  GError **error)
{
  const char *type = v0->type != NULL ? v0->type : "";
  gboolean known_field = FALSE;

  for (gsize i = 0; i < G_N_ELEMENTS (v0_rules); i++)
    {
      ProtobufCMessage *param;
      const ProtobufCFieldDescriptor *target;
      int value;

      if (strcmp (v0_rules[i].field, field->name) != 0)
        continue;
      known_field = TRUE;
      if (v0_rules[i].type != NULL && strcmp (v0_rules[i].type, type) != 0)
        continue;

      if (v0_rules[i].target == NULL)
        {
          /* a whole message: hdf5_output_param moves as it is */
          const ProtobufCFieldDescriptor *dst =
            ct_upgrade_field_by_name (v1->base.descriptor, v0_rules[i].param);
          ct_upgrade_move_value (&v1->base, dst, &v0->base, field);
          return TRUE;
        }

      param = ct_upgrade_ensure_sub (&v1->base, v0_rules[i].param);
      target = ct_upgrade_field_by_name (param->descriptor, v0_rules[i].target);
      value = *(const int *) ct_proto_field_member (&v0->base, field);
      if (target->type == PROTOBUF_C_TYPE_ENUM &&
          protobuf_c_enum_descriptor_get_value (target->descriptor, value) == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: V0 layer '%s' has %s %d, which %s does not know"),
                       ct_upgrade_source_name (filename), layer_name, field->name,
                       value, param->descriptor->short_name);
          return FALSE;
        }
      ct_upgrade_move_value (param, target, &v0->base, field);
      return TRUE;
    }

  if (known_field)
    ct_upgrade_note (notes, _("dropped '%s' of V0 layer '%s': a '%s' layer does not take it"),
                     field->name, layer_name, type);
  else
    ct_upgrade_note (notes, _("dropped '%s' of V0 layer '%s': the V1 format has no place for it"),
                     field->name, layer_name);
  return TRUE;
}

/* One V0 layer connection (bottoms/tops outside, the rest in `layer`) -> V1. */
static Caffe__V1LayerParameter *
upgrade_v0_layer (Caffe__V1LayerParameter *connection,
                  guint index,
                  const char *filename,
                  GPtrArray *notes,
                  GError **error)
{
  Caffe__V1LayerParameter *v1 =
    (Caffe__V1LayerParameter *) ct_proto_message_new (&caffe__v1_layer_parameter__descriptor);
  Caffe__V0LayerParameter *v0 = connection->layer;
  const ProtobufCMessageDescriptor *v0_desc = &caffe__v0_layer_parameter__descriptor;
  char buf[32];
  g_autofree char *label = g_strdup (v0_layer_label (connection, index, buf, sizeof buf));

  CT_UPGRADE_MOVE_ARRAY (v1->bottom, v1->n_bottom, connection->bottom, connection->n_bottom);
  CT_UPGRADE_MOVE_ARRAY (v1->top, v1->n_top, connection->top, connection->n_top);
  ct_upgrade_move_unknown_fields (&v1->base, &connection->base);
  ct_upgrade_move_unknown_fields (&v1->base, &v0->base);
  v1->name = ct_upgrade_take_string (&v0->name, NULL);

  if (v0->type != NULL)
    {
      const char *v1_name = ct_upgrade_v1_type_of_v0 (v0->type);
      const ProtobufCEnumValue *value = NULL;

      if (v1_name != NULL)
        value = protobuf_c_enum_descriptor_get_value_by_name (
                  &caffe__v1_layer_parameter__layer_type__descriptor, v1_name);
      if (value == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: V0 layer '%s' has type '%s', which is not a V0 layer type"),
                       ct_upgrade_source_name (filename), label, v0->type);
          protobuf_c_message_free_unpacked (&v1->base, NULL);
          return NULL;
        }
      v1->has_type = TRUE;
      v1->type = value->value;
      ct_upgrade_note (notes, _("upgraded V0 layer '%s' (%s) to V1 %s"),
                       label, v0->type, value->name);
    }

  CT_UPGRADE_MOVE_ARRAY (v1->blobs, v1->n_blobs, v0->blobs, v0->n_blobs);
  CT_UPGRADE_MOVE_ARRAY (v1->blobs_lr, v1->n_blobs_lr, v0->blobs_lr, v0->n_blobs_lr);
  CT_UPGRADE_MOVE_ARRAY (v1->weight_decay, v1->n_weight_decay,
                         v0->weight_decay, v0->n_weight_decay);

  for (guint f = 0; f < v0_desc->n_fields; f++)
    {
      const ProtobufCFieldDescriptor *field = &v0_desc->fields[f];

      if (field->label == PROTOBUF_C_LABEL_REPEATED ||
          strcmp (field->name, "name") == 0 || strcmp (field->name, "type") == 0 ||
          !ct_proto_field_is_set (&v0->base, field))
        continue;
      if (!upgrade_v0_field (v0, field, v1, label, filename, notes, error))
        {
          protobuf_c_message_free_unpacked (&v1->base, NULL);
          return NULL;
        }
    }
  return (Caffe__V1LayerParameter *) ct_upgrade_resolve_kept_collisions (&v1->base, label, notes);
}

static gint
blob_source (GHashTable *last_top, const char *blob)
{
  gpointer value;

  if (!g_hash_table_lookup_extended (last_top, blob, NULL, &value))
    return G_MININT;
  return GPOINTER_TO_INT (value);
}

static gboolean
is_padding (const Caffe__V1LayerParameter *connection)
{
  return connection->layer != NULL && g_strcmp0 (connection->layer->type, "padding") == 0;
}

/* Caffe's padding-layer fold: a padding layer disappears and its pad goes
 * to the conv or pool layer that reads its output, which then reads the
 * padding layer's input instead. Returns the surviving connections, in
 * order (borrowed from NET->layers). */
static GPtrArray *
fold_padding_layers (Caffe__NetParameter *net,
                     const char *filename,
                     GPtrArray *notes,
                     GError **error)
{
  g_autoptr(GHashTable) last_top = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  char buf[32], buf2[32];

  for (gsize i = 0; i < net->n_input; i++)
    g_hash_table_insert (last_top, net->input[i], GINT_TO_POINTER (-1));

  for (guint i = 0; i < net->n_layers; i++)
    {
      Caffe__V1LayerParameter *connection = net->layers[i];
      const char *label = v0_layer_label (connection, i, buf, sizeof buf);
      const char *type = connection->layer->type != NULL ? connection->layer->type : "";

      if (!is_padding (connection))
        g_ptr_array_add (kept, connection);

      for (gsize j = 0; j < connection->n_bottom; j++)
        {
          gint source = blob_source (last_top, connection->bottom[j]);
          Caffe__V1LayerParameter *pad;

          if (source == G_MININT)
            {
              g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                           _("%s: V0 layer '%s' reads blob '%s', which no earlier layer "
                             "writes and the net does not declare as an input"),
                           ct_upgrade_source_name (filename), label, connection->bottom[j]);
              return NULL;
            }
          if (source < 0 || !is_padding (net->layers[source]))
            continue;

          pad = net->layers[source];
          if (strcmp (type, "conv") != 0 && strcmp (type, "pool") != 0)
            {
              g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                           _("%s: padding layer '%s' feeds V0 layer '%s' of type '%s'; "
                             "a padding layer may only feed a conv or pool layer"),
                           ct_upgrade_source_name (filename),
                           v0_layer_label (pad, source, buf2, sizeof buf2), label, type);
              return NULL;
            }
          if (connection->n_bottom != 1 || pad->n_bottom != 1 || pad->n_top != 1)
            {
              g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                           _("%s: padding layer '%s' and the layer '%s' it feeds must each "
                             "have exactly one input (and the padding layer one output)"),
                           ct_upgrade_source_name (filename),
                           v0_layer_label (pad, source, buf2, sizeof buf2), label);
              return NULL;
            }
          connection->layer->has_pad = TRUE;
          connection->layer->pad = pad->layer->pad;
          g_free (connection->bottom[j]);
          connection->bottom[j] = g_strdup (pad->bottom[0]);
          ct_upgrade_note (notes, _("folded padding layer '%s' (pad %u) into layer '%s'"),
                           v0_layer_label (pad, source, buf2, sizeof buf2), pad->layer->pad, label);
        }
      for (gsize j = 0; j < connection->n_top; j++)
        g_hash_table_insert (last_top, connection->top[j], GINT_TO_POINTER (i));
    }
  return g_steal_pointer (&kept);
}

gboolean
ct_upgrade_net_is_v0 (const Caffe__NetParameter *net)
{
  for (gsize i = 0; i < net->n_layers; i++)
    if (net->layers[i]->layer != NULL)
      return TRUE;
  return FALSE;
}

gboolean
ct_upgrade_v0_net (Caffe__NetParameter *net,
                   const char *filename,
                   GPtrArray *notes,
                   GError **error)
{
  g_autoptr(GPtrArray) kept = NULL;
  Caffe__V1LayerParameter **upgraded;
  const char *dropped[] = { "state", "debug_info", "input_shape" };

  for (guint i = 0; i < net->n_layers; i++)
    if (net->layers[i]->layer == NULL)
      {
        char buf[32];
        g_snprintf (buf, sizeof buf, "#%u", i + 1);
        g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                     _("%s: layer '%s' is in V1 form (no inner 'layer { }') in a net "
                       "whose other layers are V0; a net must use one format"),
                     ct_upgrade_source_name (filename),
                     net->layers[i]->name != NULL ? net->layers[i]->name : buf);
        return FALSE;
      }

  kept = fold_padding_layers (net, filename, notes, error);
  if (kept == NULL)
    return FALSE;

  upgraded = g_new0 (Caffe__V1LayerParameter *, MAX (kept->len, 1));
  for (guint i = 0; i < kept->len; i++)
    {
      Caffe__V1LayerParameter *connection = g_ptr_array_index (kept, i);
      guint index = 0;

      while (net->layers[index] != connection)
        index++;
      upgraded[i] = upgrade_v0_layer (connection, index, filename, notes, error);
      if (upgraded[i] == NULL)
        {
          ct_upgrade_free_messages (upgraded, i);
          return FALSE;
        }
    }

  ct_upgrade_free_messages (net->layers, net->n_layers);
  net->layers = upgraded;
  net->n_layers = kept->len;

  /* A V0 net carried only its name, layers, inputs and force_backward
   * over; Caffe drops whatever else the file had. */
  for (gsize i = 0; i < G_N_ELEMENTS (dropped); i++)
    {
      const ProtobufCFieldDescriptor *field =
        ct_upgrade_field_by_name (&caffe__net_parameter__descriptor, dropped[i]);

      if (ct_proto_field_is_set (&net->base, field))
        ct_upgrade_note (notes, _("dropped net field '%s', which V0 nets did not have"),
                         dropped[i]);
    }
  if (net->state != NULL)
    protobuf_c_message_free_unpacked (&net->state->base, NULL);
  net->state = NULL;
  net->has_debug_info = FALSE;
  net->debug_info = FALSE;
  ct_upgrade_free_messages (net->input_shape, net->n_input_shape);
  net->input_shape = NULL;
  net->n_input_shape = 0;
  return TRUE;
}
