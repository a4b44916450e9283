/* upgrade-move.c: how the legacy upgrade carries parts of an old message
 * into a new one of another type (see upgrade-private.h): values moved
 * field to field, strings and sub-messages handed over rather than copied,
 * and the kept prototxt text of a lenient parse re-anchored on the new
 * type's fields, or parsed as the field it names when the new type knows
 * it. Also the notes and names every step uses. */
#include "upgrade-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "reflect.h"
#include "text-format.h"
#include "text-unknown-private.h"

void
ct_upgrade_note (GPtrArray *notes, const char *format, ...)
{
  va_list args;

  if (notes == NULL)
    return;
  va_start (args, format);
  g_ptr_array_add (notes, g_strdup_vprintf (format, args));
  va_end (args);
}

const char *
ct_upgrade_source_name (const char *filename)
{
  return filename != NULL ? filename : "<net>";
}

const ProtobufCFieldDescriptor *
ct_upgrade_field_by_name (const ProtobufCMessageDescriptor *desc, const char *name)
{
  const ProtobufCFieldDescriptor *field =
    protobuf_c_message_descriptor_get_field_by_name (desc, name);

  /* Only reached with names from the upgrade's tables, all in caffe.proto. */
  g_assert (field != NULL);
  return field;
}

ProtobufCMessage *
ct_upgrade_ensure_sub (ProtobufCMessage *msg, const char *name)
{
  const ProtobufCFieldDescriptor *field = ct_upgrade_field_by_name (msg->descriptor, name);
  ProtobufCMessage **sub = ct_proto_field_member (msg, field);

  if (*sub == NULL)
    *sub = ct_proto_message_new (field->descriptor);
  return *sub;
}

char *
ct_upgrade_take_string (char **src, const void *default_value)
{
  char *s = *src;

  if (s == NULL)
    return NULL;
  if (s == default_value)
    return g_strdup (s);
  *src = NULL;
  return s;
}

void
ct_upgrade_move_value (ProtobufCMessage *dst,
                       const ProtobufCFieldDescriptor *dst_field,
                       ProtobufCMessage *src,
                       const ProtobufCFieldDescriptor *src_field)
{
  void *from = ct_proto_field_member (src, src_field);
  void *slot;

  if (dst_field->label == PROTOBUF_C_LABEL_REPEATED)
    slot = ct_proto_field_append (dst, dst_field);
  else
    {
      slot = ct_proto_field_member (dst, dst_field);
      ct_proto_value_clear (dst_field, slot);
      ct_proto_field_set_present (dst, dst_field, TRUE);
    }

  switch (src_field->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      *(char **) slot = ct_upgrade_take_string (from, src_field->default_value);
      break;
    case PROTOBUF_C_TYPE_MESSAGE:
      *(ProtobufCMessage **) slot = g_steal_pointer ((ProtobufCMessage **) from);
      break;
    default:
      /* 32-bit scalars of either signedness, floats, bools and enums share
       * a representation; int32 -> uint32 converts as Caffe's setters do. */
      memcpy (slot, from, ct_proto_type_size (dst_field->type));
      break;
    }
}

void
ct_upgrade_free_messages (gpointer messages, gsize n)
{
  ProtobufCMessage **array = messages;

  for (gsize i = 0; i < n; i++)
    if (array[i] != NULL)
      protobuf_c_message_free_unpacked (array[i], NULL);
  g_free (array);
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

void
ct_upgrade_move_unknown_fields (ProtobufCMessage *dst, ProtobufCMessage *src)
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
ProtobufCMessage *
ct_upgrade_resolve_kept_collisions (ProtobufCMessage *msg,
                                    const char *label,
                                    GPtrArray *notes)
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
          ct_upgrade_note (notes, _("kept text '%s' of layer '%s' became its field '%s'"),
                           text, label, name);
        }
      else if (kept.tag == CT_KEPT_TAG_ENUM_VALUE && twin->type == PROTOBUF_C_TYPE_ENUM)
        {
          /* still an unknown value of an enum field: keep it as it is */
          msg->unknown_fields[kept_n++] = *field;
          continue;
        }
      else
        ct_upgrade_note (notes,
                         _("dropped kept text '%s' of layer '%s': it is not a valid '%s' there"),
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
