/* upgrade.c: legacy Caffe nets and solvers brought to the current format,
 * in the order and with the rules Caffe applies when it loads them:
 *
 *   V0 (`layers { layer {...} }`): padding layers folded into the conv or
 *      pool they feed, the flat V0 fields spread over the V1 *_param blocks;
 *   V1 data layers: scale/mean_file/crop_size/mirror -> transform_param;
 *   V1 (`layers { type: ENUM }`) -> V2 (`layer { type: "String" }`), with
 *      blobs_lr/weight_decay/param/blob_share_mode -> ParamSpec;
 *   net-level input + input_dim/input_shape -> an Input layer in front;
 *   BatchNorm layers with three param specs -> lr_mult and decay_mult 0;
 *   solvers: solver_type enum -> type string.
 *
 * Messages are edited in place. Parts of old messages (blobs, *_param
 * blocks, string arrays) are moved, not copied, into the new ones, which
 * are allocated with malloc like everything protobuf-c frees, so the
 * result is released with protobuf_c_message_free_unpacked as usual.
 * Where Caffe would abort (CHECK/LOG(FATAL)), we return a GError; where
 * it logs and carries on, we add a note and carry on too. */
#include "upgrade.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "proto-error.h"
#include "text-format.h"
#include "text-unknown-private.h"

#define MEMBER(msg, offset, type) (*(type *) ((char *) (msg) + (offset)))

/* ------------------------------------------------------------------------
 * Generic helpers over descriptors
 * --------------------------------------------------------------------- */

static ProtobufCMessage *
msg_new (const ProtobufCMessageDescriptor *desc)
{
  ProtobufCMessage *msg = g_malloc0 (desc->sizeof_message);

  protobuf_c_message_init (desc, msg);
  return msg;
}

static void
note (GPtrArray *notes, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
note (GPtrArray *notes, const char *format, ...)
{
  va_list args;

  if (notes == NULL)
    return;
  va_start (args, format);
  g_ptr_array_add (notes, g_strdup_vprintf (format, args));
  va_end (args);
}

static const char *
source_name (const char *filename)
{
  return filename != NULL ? filename : "<net>";
}

static gsize
element_size (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof (protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof (void *);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof (ProtobufCBinaryData);
    default:
      return 4;
    }
}

/* Whether FIELD holds a value in MSG, as the text printer decides it. */
static gboolean
field_is_set (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *field)
{
  if (field->label == PROTOBUF_C_LABEL_REPEATED)
    return MEMBER (msg, field->quantifier_offset, size_t) > 0;
  switch (field->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      {
        const char *s = MEMBER (msg, field->offset, const char *);
        return s != NULL && s != field->default_value;
      }
    case PROTOBUF_C_TYPE_MESSAGE:
      return MEMBER (msg, field->offset, const ProtobufCMessage *) != NULL;
    default:
      return field->quantifier_offset != 0 &&
             MEMBER (msg, field->quantifier_offset, protobuf_c_boolean);
    }
}

static const ProtobufCFieldDescriptor *
field_by_name (const ProtobufCMessageDescriptor *desc, const char *name)
{
  const ProtobufCFieldDescriptor *field =
    protobuf_c_message_descriptor_get_field_by_name (desc, name);

  /* Only reached with names from this file's tables, all in caffe.proto. */
  g_assert (field != NULL);
  return field;
}

/* MSG's sub-message NAME, created empty if absent. */
static ProtobufCMessage *
ensure_sub (ProtobufCMessage *msg, const char *name)
{
  const ProtobufCFieldDescriptor *field = field_by_name (msg->descriptor, name);
  ProtobufCMessage **sub = &MEMBER (msg, field->offset, ProtobufCMessage *);

  if (*sub == NULL)
    *sub = msg_new (field->descriptor);
  return *sub;
}

/* Moves the string out of *SRC (a field whose default is DEFAULT_VALUE),
 * duplicating it if it is the static default. */
static char *
take_string (char **src, const void *default_value)
{
  char *s = *src;

  if (s == NULL)
    return NULL;
  if (s == default_value)
    return g_strdup (s);
  *src = NULL;
  return s;
}

/* Stores the value of SRC_FIELD in SRC into DST_FIELD of DST: set for a
 * singular field, appended for a repeated one. Messages and strings are
 * moved. Both fields are singular on the source side and of the same
 * kind (32-bit integer, float, bool, enum, string or message). */
static void
move_value (ProtobufCMessage *dst,
            const ProtobufCFieldDescriptor *dst_field,
            ProtobufCMessage *src,
            const ProtobufCFieldDescriptor *src_field)
{
  gsize size = element_size (dst_field->type);
  void *slot;

  if (dst_field->label == PROTOBUF_C_LABEL_REPEATED)
    {
      size_t *n = &MEMBER (dst, dst_field->quantifier_offset, size_t);
      char **array = &MEMBER (dst, dst_field->offset, char *);

      *array = g_realloc (*array, (*n + 1) * size);
      slot = *array + *n * size;
      (*n)++;
    }
  else
    {
      slot = (char *) dst + dst_field->offset;
      if (dst_field->type == PROTOBUF_C_TYPE_STRING)
        {
          char *old = *(char **) slot;
          if (old != NULL && old != dst_field->default_value)
            g_free (old);
        }
      else if (dst_field->type == PROTOBUF_C_TYPE_MESSAGE)
        protobuf_c_message_free_unpacked (*(ProtobufCMessage **) slot, NULL);
      if (dst_field->quantifier_offset != 0)
        MEMBER (dst, dst_field->quantifier_offset, protobuf_c_boolean) = TRUE;
    }

  switch (src_field->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      *(char **) slot = take_string (&MEMBER (src, src_field->offset, char *),
                                     src_field->default_value);
      break;
    case PROTOBUF_C_TYPE_MESSAGE:
      *(ProtobufCMessage **) slot = MEMBER (src, src_field->offset, ProtobufCMessage *);
      MEMBER (src, src_field->offset, ProtobufCMessage *) = NULL;
      break;
    default:
      /* 32-bit scalars of either signedness, floats, bools and enums share
       * a representation; int32 -> uint32 converts as Caffe's setters do. */
      memcpy (slot, (char *) src + src_field->offset, size);
      break;
    }
}

/* Kept prototxt text remembers the known field it followed (its anchor),
 * by number. Moving it to a message of another type (V1 -> V2 layer) must
 * re-anchor it on the field of the same name there, or at the start when
 * the new type has none, so that it prints where it stood. */
static void
reanchor (ProtobufCMessageUnknownField *field,
          const ProtobufCMessageDescriptor *from,
          const ProtobufCMessageDescriptor *to)
{
  const ProtobufCFieldDescriptor *anchor, *twin = NULL;
  ProtobufCMessageUnknownField recoded;
  CtKeptText kept;

  if (from == to || !ct_kept_text_decode (field, &kept) || kept.anchor_id == 0)
    return;
  anchor = protobuf_c_message_descriptor_get_field (from, kept.anchor_id);
  if (anchor != NULL)
    twin = protobuf_c_message_descriptor_get_field_by_name (to, anchor->name);
  kept.anchor_id = twin != NULL ? twin->id : 0;
  if (twin == NULL)
    kept.anchor_count = 0;
  /* KEPT points into FIELD's data: encode (which copies) before freeing */
  ct_kept_text_encode (&kept, &recoded);
  g_free (field->data);
  *field = recoded;
}

/* Moves the unknown fields (kept prototxt text) of SRC to the end of DST's. */
static void
move_unknown_fields (ProtobufCMessage *dst, ProtobufCMessage *src)
{
  gsize n = dst->n_unknown_fields;

  if (src->n_unknown_fields == 0)
    return;
  dst->unknown_fields = g_realloc (dst->unknown_fields,
                                   (n + src->n_unknown_fields) *
                                   sizeof (ProtobufCMessageUnknownField));
  memcpy (dst->unknown_fields + n, src->unknown_fields,
          src->n_unknown_fields * sizeof (ProtobufCMessageUnknownField));
  dst->n_unknown_fields += src->n_unknown_fields;
  g_clear_pointer (&src->unknown_fields, g_free);
  src->n_unknown_fields = 0;
  for (gsize i = n; i < dst->n_unknown_fields; i++)
    reanchor (&dst->unknown_fields[i], src->descriptor, dst->descriptor);
}

/* Kept text whose field name the new message type knows (a V1 file's
 * `propagate_down` in `layers { }`, or its unknown enum value in `type`,
 * which V2 holds as a string) would be read as that field when the upgraded
 * text is parsed again. Such text is parsed now, as the field it names,
 * and merged into MSG; text that does not parse as that field is dropped
 * with a note. Returns MSG or its merged replacement. */
static ProtobufCMessage *
resolve_kept_collisions (ProtobufCMessage *msg, const char *label, GPtrArray *notes)
{
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  g_autoptr(GByteArray) extra = g_byte_array_new ();
  gsize kept_n = 0;

  for (gsize i = 0; i < msg->n_unknown_fields; i++)
    {
      ProtobufCMessageUnknownField *field = &msg->unknown_fields[i];
      g_autofree char *name = NULL;
      g_autofree char *text = NULL;
      g_autoptr(GError) error = NULL;
      const ProtobufCFieldDescriptor *twin;
      ProtobufCMessage *fragment;
      CtKeptText kept;

      if (!ct_kept_text_decode (field, &kept) ||
          (name = g_strndup (kept.name, kept.name_len),
           (twin = protobuf_c_message_descriptor_get_field_by_name (desc, name)) == NULL))
        {
          msg->unknown_fields[kept_n++] = *field;
          continue;
        }

      if (kept.tag == CT_KEPT_TAG_ENUM_VALUE && twin->type == PROTOBUF_C_TYPE_STRING)
        {
          g_autofree char *value = g_strndup (kept.value, kept.value_len);
          g_autofree char *escaped = g_strescape (value, NULL);
          text = g_strdup_printf ("%s: \"%s\"", name, escaped);
        }
      else
        text = g_strndup (kept.text, kept.text_len);

      fragment = ct_text_parse (desc, text, -1, label, CT_TEXT_STRICT, &error);
      if (fragment != NULL)
        {
          gsize size = protobuf_c_message_get_packed_size (fragment);

          g_byte_array_set_size (extra, extra->len + size);
          protobuf_c_message_pack (fragment, extra->data + extra->len - size);
          protobuf_c_message_free_unpacked (fragment, NULL);
          note (notes, _("kept text '%s' of layer '%s' became its field '%s'"), text, label, name);
        }
      else if (kept.tag == CT_KEPT_TAG_ENUM_VALUE && twin->type == PROTOBUF_C_TYPE_ENUM)
        {
          /* still an unknown value of an enum field: keep it as it is */
          msg->unknown_fields[kept_n++] = *field;
          continue;
        }
      else
        note (notes, _("dropped kept text '%s' of layer '%s': it is not a valid '%s' there"),
              text, label, name);
      g_free (field->data);
    }
  msg->n_unknown_fields = kept_n;

  if (extra->len > 0)
    {
      /* protobuf's merge rules: appended repeated values, last singular wins */
      gsize size = protobuf_c_message_get_packed_size (msg);
      g_autofree guint8 *bytes = g_malloc (size + extra->len);
      ProtobufCMessage *merged;

      protobuf_c_message_pack (msg, bytes);
      memcpy (bytes + size, extra->data, extra->len);
      merged = protobuf_c_message_unpack (desc, NULL, size + extra->len, bytes);
      if (merged != NULL)
        {
          protobuf_c_message_free_unpacked (msg, NULL);
          msg = merged;
        }
    }
  return msg;
}

/* Moves a repeated field's array from SRC to DST (the same element type). */
#define MOVE_ARRAY(dst, dst_n, src, src_n) \
  G_STMT_START { \
    (dst) = (src); (dst_n) = (src_n); (src) = NULL; (src_n) = 0; \
  } G_STMT_END

static char *
shape_to_string (const int64_t *dims, gsize n)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? "×" : "", dims[i]);
  if (n == 0)
    g_string_append (s, _("scalar"));
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------------
 * V0 -> V1
 * --------------------------------------------------------------------- */

/* V0 lower-case type strings and the V1 enum names they became. */
static const struct {
  const char *v0;
  const char *v1;
} v0_types[] = {
  { "accuracy", "ACCURACY" },
  { "bnll", "BNLL" },
  { "concat", "CONCAT" },
  { "conv", "CONVOLUTION" },
  { "data", "DATA" },
  { "dropout", "DROPOUT" },
  { "euclidean_loss", "EUCLIDEAN_LOSS" },
  { "flatten", "FLATTEN" },
  { "hdf5_data", "HDF5_DATA" },
  { "hdf5_output", "HDF5_OUTPUT" },
  { "im2col", "IM2COL" },
  { "images", "IMAGE_DATA" },
  { "infogain_loss", "INFOGAIN_LOSS" },
  { "innerproduct", "INNER_PRODUCT" },
  { "lrn", "LRN" },
  { "multinomial_logistic_loss", "MULTINOMIAL_LOGISTIC_LOSS" },
  { "pool", "POOLING" },
  { "relu", "RELU" },
  { "sigmoid", "SIGMOID" },
  { "softmax", "SOFTMAX" },
  { "softmax_loss", "SOFTMAX_LOSS" },
  { "split", "SPLIT" },
  { "tanh", "TANH" },
  { "window_data", "WINDOW_DATA" },
};

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

      if (strcmp (v0_rules[i].field, field->name) != 0)
        continue;
      known_field = TRUE;
      if (v0_rules[i].type != NULL && strcmp (v0_rules[i].type, type) != 0)
        continue;

      if (v0_rules[i].target == NULL)
        {
          /* a whole message: hdf5_output_param moves as it is */
          const ProtobufCFieldDescriptor *dst =
            field_by_name (v1->base.descriptor, v0_rules[i].param);
          move_value (&v1->base, dst, &v0->base, field);
          return TRUE;
        }

      param = ensure_sub (&v1->base, v0_rules[i].param);
      target = field_by_name (param->descriptor, v0_rules[i].target);
      if (target->type == PROTOBUF_C_TYPE_ENUM &&
          protobuf_c_enum_descriptor_get_value (target->descriptor,
                                                MEMBER (v0, field->offset, int)) == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: V0 layer '%s' has %s %d, which %s does not know"),
                       source_name (filename), layer_name, field->name,
                       MEMBER (v0, field->offset, int), param->descriptor->short_name);
          return FALSE;
        }
      move_value (param, target, &v0->base, field);
      return TRUE;
    }

  if (known_field)
    note (notes, _("dropped '%s' of V0 layer '%s': a '%s' layer does not take it"),
          field->name, layer_name, type);
  else
    note (notes, _("dropped '%s' of V0 layer '%s': the V1 format has no place for it"),
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
    (Caffe__V1LayerParameter *) msg_new (&caffe__v1_layer_parameter__descriptor);
  Caffe__V0LayerParameter *v0 = connection->layer;
  const ProtobufCMessageDescriptor *v0_desc = &caffe__v0_layer_parameter__descriptor;
  char buf[32];
  g_autofree char *label = g_strdup (v0_layer_label (connection, index, buf, sizeof buf));

  MOVE_ARRAY (v1->bottom, v1->n_bottom, connection->bottom, connection->n_bottom);
  MOVE_ARRAY (v1->top, v1->n_top, connection->top, connection->n_top);
  move_unknown_fields (&v1->base, &connection->base);
  move_unknown_fields (&v1->base, &v0->base);
  v1->name = take_string (&v0->name, NULL);

  if (v0->type != NULL)
    {
      const ProtobufCEnumValue *value = NULL;

      for (gsize i = 0; i < G_N_ELEMENTS (v0_types); i++)
        if (strcmp (v0_types[i].v0, v0->type) == 0)
          value = protobuf_c_enum_descriptor_get_value_by_name (
                    &caffe__v1_layer_parameter__layer_type__descriptor, v0_types[i].v1);
      if (value == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: V0 layer '%s' has type '%s', which is not a V0 layer type"),
                       source_name (filename), label, v0->type);
          protobuf_c_message_free_unpacked (&v1->base, NULL);
          return NULL;
        }
      v1->has_type = TRUE;
      v1->type = value->value;
      note (notes, _("upgraded V0 layer '%s' (%s) to V1 %s"), label, v0->type, value->name);
    }

  MOVE_ARRAY (v1->blobs, v1->n_blobs, v0->blobs, v0->n_blobs);
  MOVE_ARRAY (v1->blobs_lr, v1->n_blobs_lr, v0->blobs_lr, v0->n_blobs_lr);
  MOVE_ARRAY (v1->weight_decay, v1->n_weight_decay, v0->weight_decay, v0->n_weight_decay);

  for (guint f = 0; f < v0_desc->n_fields; f++)
    {
      const ProtobufCFieldDescriptor *field = &v0_desc->fields[f];

      if (field->label == PROTOBUF_C_LABEL_REPEATED ||
          strcmp (field->name, "name") == 0 || strcmp (field->name, "type") == 0 ||
          !field_is_set (&v0->base, field))
        continue;
      if (!upgrade_v0_field (v0, field, v1, label, filename, notes, error))
        {
          protobuf_c_message_free_unpacked (&v1->base, NULL);
          return NULL;
        }
    }
  return (Caffe__V1LayerParameter *) resolve_kept_collisions (&v1->base, label, notes);
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
                           source_name (filename), label, connection->bottom[j]);
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
                           source_name (filename),
                           v0_layer_label (pad, source, buf2, sizeof buf2), label, type);
              return NULL;
            }
          if (connection->n_bottom != 1 || pad->n_bottom != 1 || pad->n_top != 1)
            {
              g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                           _("%s: padding layer '%s' and the layer '%s' it feeds must each "
                             "have exactly one input (and the padding layer one output)"),
                           source_name (filename),
                           v0_layer_label (pad, source, buf2, sizeof buf2), label);
              return NULL;
            }
          connection->layer->has_pad = TRUE;
          connection->layer->pad = pad->layer->pad;
          g_free (connection->bottom[j]);
          connection->bottom[j] = g_strdup (pad->bottom[0]);
          note (notes, _("folded padding layer '%s' (pad %u) into layer '%s'"),
                v0_layer_label (pad, source, buf2, sizeof buf2), pad->layer->pad, label);
        }
      for (gsize j = 0; j < connection->n_top; j++)
        g_hash_table_insert (last_top, connection->top[j], GINT_TO_POINTER (i));
    }
  return g_steal_pointer (&kept);
}

static gboolean
net_needs_v0_upgrade (const Caffe__NetParameter *net)
{
  for (gsize i = 0; i < net->n_layers; i++)
    if (net->layers[i]->layer != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
upgrade_v0_net (Caffe__NetParameter *net,
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
                     source_name (filename),
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
          for (guint j = 0; j < i; j++)
            protobuf_c_message_free_unpacked (&upgraded[j]->base, NULL);
          g_free (upgraded);
          return FALSE;
        }
    }

  for (gsize i = 0; i < net->n_layers; i++)
    protobuf_c_message_free_unpacked (&net->layers[i]->base, NULL);
  g_free (net->layers);
  net->layers = upgraded;
  net->n_layers = kept->len;

  /* A V0 net carried only its name, layers, inputs and force_backward
   * over; Caffe drops whatever else the file had. */
  for (gsize i = 0; i < G_N_ELEMENTS (dropped); i++)
    {
      const ProtobufCFieldDescriptor *field =
        field_by_name (&caffe__net_parameter__descriptor, dropped[i]);

      if (field_is_set (&net->base, field))
        note (notes, _("dropped net field '%s', which V0 nets did not have"), dropped[i]);
    }
  if (net->state != NULL)
    protobuf_c_message_free_unpacked (&net->state->base, NULL);
  net->state = NULL;
  net->has_debug_info = FALSE;
  net->debug_info = FALSE;
  for (gsize i = 0; i < net->n_input_shape; i++)
    protobuf_c_message_free_unpacked (&net->input_shape[i]->base, NULL);
  g_clear_pointer (&net->input_shape, g_free);
  net->n_input_shape = 0;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * V1 data layers: transformation fields -> transform_param
 * --------------------------------------------------------------------- */

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

static void
upgrade_data_transformation (Caffe__NetParameter *net, GPtrArray *notes)
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
          param_field = field_by_name (layer->base.descriptor, transform_sources[s].param);
          param = MEMBER (layer, param_field->offset, ProtobufCMessage *);
          if (param == NULL)
            continue;

          for (gsize f = 0; f < G_N_ELEMENTS (transform_fields); f++)
            {
              const ProtobufCFieldDescriptor *from =
                field_by_name (param->descriptor, transform_fields[f].from);
              ProtobufCMessage *transform;

              if (!field_is_set (param, from))
                continue;
              transform = ensure_sub (&layer->base, "transform_param");
              move_value (transform, field_by_name (transform->descriptor, transform_fields[f].to),
                          param, from);
              if (from->quantifier_offset != 0)
                MEMBER (param, from->quantifier_offset, protobuf_c_boolean) = FALSE;
              note (notes, _("moved %s.%s of layer '%s' into transform_param"),
                    transform_sources[s].param, from->name,
                    layer->name != NULL ? layer->name : "");
            }
        }
    }
}

/* ------------------------------------------------------------------------
 * V1 -> V2
 * --------------------------------------------------------------------- */

/* V1 enum names and the V2 type strings they became. */
static const struct {
  const char *v1;
  const char *v2;
} v1_types[] = {
  { "NONE", "" },
  { "ABSVAL", "AbsVal" },
  { "ACCURACY", "Accuracy" },
  { "ARGMAX", "ArgMax" },
  { "BNLL", "BNLL" },
  { "CONCAT", "Concat" },
  { "CONTRASTIVE_LOSS", "ContrastiveLoss" },
  { "CONVOLUTION", "Convolution" },
  { "DECONVOLUTION", "Deconvolution" },
  { "DATA", "Data" },
  { "DROPOUT", "Dropout" },
  { "DUMMY_DATA", "DummyData" },
  { "EUCLIDEAN_LOSS", "EuclideanLoss" },
  { "ELTWISE", "Eltwise" },
  { "EXP", "Exp" },
  { "FLATTEN", "Flatten" },
  { "HDF5_DATA", "HDF5Data" },
  { "HDF5_OUTPUT", "HDF5Output" },
  { "HINGE_LOSS", "HingeLoss" },
  { "IM2COL", "Im2col" },
  { "IMAGE_DATA", "ImageData" },
  { "INFOGAIN_LOSS", "InfogainLoss" },
  { "INNER_PRODUCT", "InnerProduct" },
  { "LRN", "LRN" },
  { "MEMORY_DATA", "MemoryData" },
  { "MULTINOMIAL_LOGISTIC_LOSS", "MultinomialLogisticLoss" },
  { "MVN", "MVN" },
  { "POOLING", "Pooling" },
  { "POWER", "Power" },
  { "RELU", "ReLU" },
  { "SIGMOID", "Sigmoid" },
  { "SIGMOID_CROSS_ENTROPY_LOSS", "SigmoidCrossEntropyLoss" },
  { "SILENCE", "Silence" },
  { "SOFTMAX", "Softmax" },
  { "SOFTMAX_LOSS", "SoftmaxWithLoss" },
  { "SPLIT", "Split" },
  { "SLICE", "Slice" },
  { "TANH", "TanH" },
  { "WINDOW_DATA", "WindowData" },
  { "THRESHOLD", "Threshold" },
};

static const char *
v1_to_v2_type (const Caffe__V1LayerParameter *layer)
{
  const char *name = v1_type_name (layer);

  for (gsize i = 0; i < G_N_ELEMENTS (v1_types); i++)
    if (strcmp (v1_types[i].v1, name) == 0)
      return v1_types[i].v2;
  return NULL;
}

static Caffe__ParamSpec *
param_spec_at (Caffe__LayerParameter *layer, gsize i)
{
  if (i >= layer->n_param)
    {
      layer->param = g_renew (Caffe__ParamSpec *, layer->param, i + 1);
      while (layer->n_param <= i)
        layer->param[layer->n_param++] =
          (Caffe__ParamSpec *) msg_new (&caffe__param_spec__descriptor);
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
          !field_is_set (&v1->base, field))
        continue;
      twin = protobuf_c_message_descriptor_get_field_by_name (v2->base.descriptor, field->name);
      g_assert (twin != NULL && twin->descriptor == field->descriptor);
      move_value (&v2->base, twin, &v1->base, field);
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
                   source_name (filename), label);
      return NULL;
    }
  if (v1->has_type && v1_to_v2_type (v1) == NULL)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: V1 layer '%s' has type %d, which is not a V1 layer type"),
                   source_name (filename), label, (int) v1->type);
      return NULL;
    }
  for (gsize i = 0; i < v1->n_blob_share_mode; i++)
    if (protobuf_c_enum_descriptor_get_value (&caffe__param_spec__dim_check_mode__descriptor,
                                              v1->blob_share_mode[i]) == NULL)
      {
        g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                     _("%s: V1 layer '%s' has blob_share_mode %d, which is neither "
                       "STRICT nor PERMISSIVE"),
                     source_name (filename), label, (int) v1->blob_share_mode[i]);
        return NULL;
      }

  v2 = (Caffe__LayerParameter *) msg_new (&caffe__layer_parameter__descriptor);
  MOVE_ARRAY (v2->bottom, v2->n_bottom, v1->bottom, v1->n_bottom);
  MOVE_ARRAY (v2->top, v2->n_top, v1->top, v1->n_top);
  v2->name = take_string (&v1->name, NULL);
  MOVE_ARRAY (v2->include, v2->n_include, v1->include, v1->n_include);
  MOVE_ARRAY (v2->exclude, v2->n_exclude, v1->exclude, v1->n_exclude);
  if (v1->has_type)
    {
      v2->type = g_strdup (v1_to_v2_type (v1));
      note (notes, _("upgraded V1 layer '%s' (%s) to %s"), label, v1_type_name (v1),
            *v2->type != '\0' ? v2->type : "\"\"");
    }
  MOVE_ARRAY (v2->blobs, v2->n_blobs, v1->blobs, v1->n_blobs);

  /* param names, share modes, blobs_lr and weight_decay, position by
   * position, become one ParamSpec each */
  n_specs = MAX (MAX (v1->n_param, v1->n_blob_share_mode),
                 MAX (v1->n_blobs_lr, v1->n_weight_decay));
  for (gsize i = 0; i < n_specs; i++)
    {
      Caffe__ParamSpec *spec = param_spec_at (v2, i);

      if (i < v1->n_param)
        spec->name = take_string (&v1->param[i], NULL);
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
    note (notes, _("moved blobs_lr/weight_decay/param of layer '%s' into %lu "
                   "param { } entries"), label, (unsigned long) n_specs);

  MOVE_ARRAY (v2->loss_weight, v2->n_loss_weight, v1->loss_weight, v1->n_loss_weight);
  move_param_blocks (v2, v1);
  move_unknown_fields (&v2->base, &v1->base);
  return (Caffe__LayerParameter *) resolve_kept_collisions (&v2->base, label, notes);
}

static gboolean
upgrade_v1_net (Caffe__NetParameter *net,
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
          for (guint j = 0; j < i; j++)
            protobuf_c_message_free_unpacked (&layer[j]->base, NULL);
          g_free (layer);
          return FALSE;
        }
    }
  for (gsize i = 0; i < net->n_layers; i++)
    protobuf_c_message_free_unpacked (&net->layers[i]->base, NULL);
  g_clear_pointer (&net->layers, g_free);
  net->layer = layer;
  net->n_layer = net->n_layers;
  net->n_layers = 0;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Net-level inputs -> Input layer
 * --------------------------------------------------------------------- */

static gboolean
upgrade_net_input (Caffe__NetParameter *net,
                   const char *filename,
                   GPtrArray *notes,
                   GError **error)
{
  gboolean has_shape = net->n_input_shape > 0;
  gboolean has_dim = net->n_input_dim > 0;

  if (has_shape && net->n_input_shape < net->n_input)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: the net has %lu inputs but only %lu input_shape entries"),
                   source_name (filename), (unsigned long) net->n_input,
                   (unsigned long) net->n_input_shape);
      return FALSE;
    }
  if (!has_shape && has_dim && net->n_input_dim != 4 * net->n_input)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: the net has %lu inputs, which need %lu input_dim values, "
                     "but %lu are given"),
                   source_name (filename), (unsigned long) net->n_input,
                   (unsigned long) (4 * net->n_input), (unsigned long) net->n_input_dim);
      return FALSE;
    }

  if (has_shape || has_dim)
    {
      Caffe__LayerParameter *input =
        (Caffe__LayerParameter *) msg_new (&caffe__layer_parameter__descriptor);
      Caffe__InputParameter *param =
        (Caffe__InputParameter *) msg_new (&caffe__input_parameter__descriptor);

      input->name = g_strdup ("input");
      input->type = g_strdup ("Input");
      input->input_param = param;
      param->shape = g_new0 (Caffe__BlobShape *, net->n_input);
      for (gsize i = 0; i < net->n_input; i++)
        {
          Caffe__BlobShape *shape;
          g_autofree char *dims = NULL;

          if (has_shape)
            {
              shape = g_steal_pointer (&net->input_shape[i]);
            }
          else
            {
              shape = (Caffe__BlobShape *) msg_new (&caffe__blob_shape__descriptor);
              shape->n_dim = 4;
              shape->dim = g_new (int64_t, 4);
              for (gsize d = 0; d < 4; d++)
                shape->dim[d] = net->input_dim[4 * i + d];
            }
          param->shape[param->n_shape++] = shape;
          dims = shape_to_string (shape->dim, shape->n_dim);
          note (notes, _("moved net input '%s' (%s) into an Input layer"), net->input[i], dims);
        }
      MOVE_ARRAY (input->top, input->n_top, net->input, net->n_input);

      /* the Input layer goes first, so that every layer finds its bottoms */
      net->layer = g_renew (Caffe__LayerParameter *, net->layer, net->n_layer + 1);
      memmove (net->layer + 1, net->layer, net->n_layer * sizeof *net->layer);
      net->layer[0] = input;
      net->n_layer++;
    }
  else
    {
      /* inputs without shapes: an old caffemodel, where dropping them is all */
      for (gsize i = 0; i < net->n_input; i++)
        note (notes, _("dropped net input '%s', which has no shape"), net->input[i]);
    }

  for (gsize i = 0; i < net->n_input; i++)
    g_free (net->input[i]);
  g_clear_pointer (&net->input, g_free);
  net->n_input = 0;
  for (gsize i = 0; i < net->n_input_shape; i++)
    if (net->input_shape[i] != NULL)
      protobuf_c_message_free_unpacked (&net->input_shape[i]->base, NULL);
  g_clear_pointer (&net->input_shape, g_free);
  net->n_input_shape = 0;
  g_clear_pointer (&net->input_dim, g_free);
  net->n_input_dim = 0;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * BatchNorm param specs
 * --------------------------------------------------------------------- */

static gboolean
layer_needs_batch_norm_upgrade (const Caffe__LayerParameter *layer)
{
  return g_strcmp0 (layer->type, "BatchNorm") == 0 && layer->n_param == 3;
}

/* Older BatchNorm definitions listed three param specs for the mean,
 * variance and factor blobs; Caffe now forces their lr_mult and
 * decay_mult to 0, keeping names. */
static void
upgrade_batch_norm (Caffe__NetParameter *net, GPtrArray *notes)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      Caffe__LayerParameter *layer = net->layer[i];
      gboolean changed = FALSE;

      if (!layer_needs_batch_norm_upgrade (layer))
        continue;
      for (gsize p = 0; p < layer->n_param; p++)
        {
          Caffe__ParamSpec *spec = layer->param[p];

          /* unset multipliers default to 1, so setting 0 changes them */
          if (!spec->has_lr_mult || spec->lr_mult != 0.0f ||
              !spec->has_decay_mult || spec->decay_mult != 0.0f)
            changed = TRUE;
          spec->has_lr_mult = TRUE;
          spec->lr_mult = 0.0f;
          spec->has_decay_mult = TRUE;
          spec->decay_mult = 0.0f;
        }
      if (changed)
        note (notes, _("set lr_mult and decay_mult to 0 in the 3 param { } entries of "
                       "BatchNorm layer '%s'"),
              layer->name != NULL ? layer->name : "");
    }
}

/* ------------------------------------------------------------------------
 * Public entry points
 * --------------------------------------------------------------------- */

/* Caffe flags every BatchNorm layer with three param specs, upgraded or
 * not; we only report the ones whose specs still differ from lr_mult 0,
 * decay_mult 0, so that an upgraded net no longer needs upgrading. */
static gboolean
net_needs_batch_norm_upgrade (const Caffe__NetParameter *net)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];

      if (!layer_needs_batch_norm_upgrade (layer))
        continue;
      for (gsize p = 0; p < layer->n_param; p++)
        if (!layer->param[p]->has_lr_mult || layer->param[p]->lr_mult != 0.0f ||
            !layer->param[p]->has_decay_mult || layer->param[p]->decay_mult != 0.0f)
          return TRUE;
    }
  return FALSE;
}

gboolean
ct_net_needs_upgrade (const Caffe__NetParameter *net)
{
  g_return_val_if_fail (net != NULL, FALSE);

  return net->n_layers > 0 || net->n_input > 0 || net_needs_batch_norm_upgrade (net);
}

gboolean
ct_upgrade_net (Caffe__NetParameter *net,
                const char *filename,
                GPtrArray *notes,
                GError **error)
{
  g_return_val_if_fail (net != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (net->n_layers > 0 && net->n_layer > 0)
    {
      const Caffe__V1LayerParameter *first = net->layers[0];
      const char *name = first->name != NULL ? first->name
                         : first->layer != NULL && first->layer->name != NULL
                         ? first->layer->name : "#1";

      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: the net has both 'layer' entries and legacy 'layers' entries "
                     "(the first is '%s'); a net must use one format"),
                   source_name (filename), name);
      return FALSE;
    }

  if (net_needs_v0_upgrade (net) && !upgrade_v0_net (net, filename, notes, error))
    return FALSE;
  upgrade_data_transformation (net, notes);
  if (net->n_layers > 0 && !upgrade_v1_net (net, filename, notes, error))
    return FALSE;
  if (net->n_input > 0 && !upgrade_net_input (net, filename, notes, error))
    return FALSE;
  upgrade_batch_norm (net, notes);
  return TRUE;
}

/* Legacy SolverType enum names and the type strings that replaced them. */
static const struct {
  const char *v1;
  const char *type;
} solver_types[] = {
  { "SGD", "SGD" },
  { "NESTEROV", "Nesterov" },
  { "ADAGRAD", "AdaGrad" },
  { "RMSPROP", "RMSProp" },
  { "ADADELTA", "AdaDelta" },
  { "ADAM", "Adam" },
};

/* The solver's embedded nets, which we upgrade like net files. */
static const char *solver_nets[] = { "net_param", "train_net_param", "test_net_param" };

static gboolean
solver_nets_need_upgrade (const Caffe__SolverParameter *solver)
{
  if (solver->net_param != NULL && ct_net_needs_upgrade (solver->net_param))
    return TRUE;
  if (solver->train_net_param != NULL && ct_net_needs_upgrade (solver->train_net_param))
    return TRUE;
  for (gsize i = 0; i < solver->n_test_net_param; i++)
    if (ct_net_needs_upgrade (solver->test_net_param[i]))
      return TRUE;
  return FALSE;
}

gboolean
ct_solver_needs_upgrade (const Caffe__SolverParameter *solver)
{
  g_return_val_if_fail (solver != NULL, FALSE);

  return solver->has_solver_type || solver_nets_need_upgrade (solver);
}

static gboolean
upgrade_embedded_net (Caffe__NetParameter *net,
                      const char *field,
                      const char *filename,
                      GPtrArray *notes,
                      GError **error)
{
  g_autoptr(GPtrArray) net_notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) local_error = NULL;

  if (!ct_net_needs_upgrade (net))
    return TRUE;
  if (!ct_upgrade_net (net, filename, net_notes, &local_error))
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s (in %s)"), local_error->message, field);
      return FALSE;
    }
  for (guint i = 0; i < net_notes->len; i++)
    note (notes, _("in %s: %s"), field, (const char *) g_ptr_array_index (net_notes, i));
  return TRUE;
}

gboolean
ct_upgrade_solver (Caffe__SolverParameter *solver,
                   const char *filename,
                   GPtrArray *notes,
                   GError **error)
{
  const ProtobufCFieldDescriptor *type_field;

  g_return_val_if_fail (solver != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  type_field = field_by_name (&caffe__solver_parameter__descriptor, "type");
  if (solver->has_solver_type)
    {
      const ProtobufCEnumValue *value =
        protobuf_c_enum_descriptor_get_value (&caffe__solver_parameter__solver_type__descriptor,
                                              solver->solver_type);
      const char *type = NULL;

      if (field_is_set (&solver->base, type_field))
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: the solver sets both the legacy 'solver_type' and 'type'; "
                         "keep only 'type'"),
                       source_name (filename));
          return FALSE;
        }
      for (gsize i = 0; value != NULL && i < G_N_ELEMENTS (solver_types); i++)
        if (strcmp (solver_types[i].v1, value->name) == 0)
          type = solver_types[i].type;
      if (type == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: solver_type %d is not a known solver type"),
                       source_name (filename), (int) solver->solver_type);
          return FALSE;
        }
      if (solver->type != NULL && solver->type != type_field->default_value)
        g_free (solver->type);
      solver->type = g_strdup (type);
      solver->has_solver_type = FALSE;
      solver->solver_type = CAFFE__SOLVER_PARAMETER__SOLVER_TYPE__SGD;
      note (notes, _("upgraded solver_type %s to type \"%s\""), value->name, type);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (solver_nets); i++)
    {
      const ProtobufCFieldDescriptor *field =
        field_by_name (&caffe__solver_parameter__descriptor, solver_nets[i]);

      if (field->label == PROTOBUF_C_LABEL_REPEATED)
        {
          for (gsize j = 0; j < solver->n_test_net_param; j++)
            {
              g_autofree char *label = g_strdup_printf ("%s #%" G_GSIZE_FORMAT,
                                                        solver_nets[i], j + 1);
              if (!upgrade_embedded_net (solver->test_net_param[j], label,
                                         filename, notes, error))
                return FALSE;
            }
        }
      else
        {
          Caffe__NetParameter *net = MEMBER (solver, field->offset, Caffe__NetParameter *);

          if (net != NULL &&
              !upgrade_embedded_net (net, solver_nets[i], filename, notes, error))
            return FALSE;
        }
    }
  return TRUE;
}
