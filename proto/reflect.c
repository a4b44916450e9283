/* reflect.c: protobuf-c reflection shared by the text format, the upgrades
 * and the field paths (see reflect.h). */
#include "reflect.h"

#include <stdlib.h>
#include <string.h>

gsize
ct_proto_type_size (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof (protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
      return sizeof (char *);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof (ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof (ProtobufCMessage *);
    default:
      /* 32-bit integers, float and enum */
      return 4;
    }
}

const char *
ct_proto_type_name (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT32: return "int32";
    case PROTOBUF_C_TYPE_SINT32: return "sint32";
    case PROTOBUF_C_TYPE_SFIXED32: return "sfixed32";
    case PROTOBUF_C_TYPE_INT64: return "int64";
    case PROTOBUF_C_TYPE_SINT64: return "sint64";
    case PROTOBUF_C_TYPE_SFIXED64: return "sfixed64";
    case PROTOBUF_C_TYPE_UINT32: return "uint32";
    case PROTOBUF_C_TYPE_FIXED32: return "fixed32";
    case PROTOBUF_C_TYPE_UINT64: return "uint64";
    case PROTOBUF_C_TYPE_FIXED64: return "fixed64";
    case PROTOBUF_C_TYPE_FLOAT: return "float";
    case PROTOBUF_C_TYPE_DOUBLE: return "double";
    case PROTOBUF_C_TYPE_BOOL: return "bool";
    case PROTOBUF_C_TYPE_ENUM: return "enum";
    case PROTOBUF_C_TYPE_STRING: return "string";
    case PROTOBUF_C_TYPE_BYTES: return "bytes";
    case PROTOBUF_C_TYPE_MESSAGE: return "message";
    default: return "?";
    }
}

ProtobufCMessage *
ct_proto_message_new (const ProtobufCMessageDescriptor *desc)
{
  ProtobufCMessage *msg = g_malloc0 (desc->sizeof_message);

  protobuf_c_message_init (desc, msg);
  return msg;
}

/* A proto3 field without presence is set when it is not zero (an empty
 * string or bytes, +0.0 but not -0.0), as protobuf-c packs it. */
static gboolean
is_zeroish (const ProtobufCFieldDescriptor *f, const void *member)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      {
        const char *s = *(char * const *) member;
        return s == NULL || *s == '\0';
      }
    case PROTOBUF_C_TYPE_BYTES:
      return ((const ProtobufCBinaryData *) member)->len == 0;
    case PROTOBUF_C_TYPE_MESSAGE:
      return *(void * const *) member == NULL;
    case PROTOBUF_C_TYPE_FLOAT:
      {
        guint32 bits;
        memcpy (&bits, member, 4);
        return bits == 0;
      }
    case PROTOBUF_C_TYPE_DOUBLE:
      {
        guint64 bits;
        memcpy (&bits, member, 8);
        return bits == 0;
      }
    case PROTOBUF_C_TYPE_BOOL:
      return *(const protobuf_c_boolean *) member == 0;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      return *(const guint64 *) member == 0;
    default:
      return *(const guint32 *) member == 0;
    }
}

gsize
ct_proto_field_count (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  const void *member = ct_proto_field_member (msg, f);
  const void *quantifier = ct_proto_field_quantifier (msg, f);
  gboolean pointer = f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE;

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    return *(const size_t *) quantifier;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    {
      if (*(const guint32 *) quantifier != f->id)
        return 0;
      if (pointer)
        {
          const void *ptr = *(void * const *) member;
          return ptr != NULL && ptr != f->default_value;
        }
      return 1;
    }
  switch (f->label)
    {
    case PROTOBUF_C_LABEL_REQUIRED:
      return pointer ? *(void * const *) member != NULL : 1;
    case PROTOBUF_C_LABEL_OPTIONAL:
      if (pointer)
        {
          const void *ptr = *(void * const *) member;
          return ptr != NULL && ptr != f->default_value;
        }
      return *(const protobuf_c_boolean *) quantifier ? 1 : 0;
    case PROTOBUF_C_LABEL_NONE:
      return is_zeroish (f, member) ? 0 : 1;
    default:
      return 0;
    }
}

gboolean
ct_proto_field_is_set (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  return ct_proto_field_count (msg, f) > 0;
}

const void *
ct_proto_field_element (const ProtobufCMessage *msg,
                        const ProtobufCFieldDescriptor *f,
                        gsize index)
{
  const char *member = ct_proto_field_member (msg, f);

  if (f->label != PROTOBUF_C_LABEL_REPEATED)
    return member;
  return *(const char * const *) member + index * ct_proto_type_size (f->type);
}

void
ct_proto_field_set_present (ProtobufCMessage *msg,
                            const ProtobufCFieldDescriptor *f,
                            gboolean present)
{
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    *(guint32 *) ct_proto_field_quantifier (msg, f) = present ? f->id : 0;
  else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_STRING
           && f->type != PROTOBUF_C_TYPE_MESSAGE)
    *(protobuf_c_boolean *) ct_proto_field_quantifier (msg, f) = present;
}

void *
ct_proto_field_append (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  size_t *n = ct_proto_field_quantifier (msg, f);
  char **array = ct_proto_field_member (msg, f);
  gsize size = ct_proto_type_size (f->type);
  void *slot;

  *array = g_realloc (*array, (*n + 1) * size);
  slot = *array + *n * size;
  memset (slot, 0, size);
  (*n)++;
  return slot;
}

void
ct_proto_value_clear (const ProtobufCFieldDescriptor *f, void *slot)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      {
        char *s = *(char **) slot;
        if (s != NULL && s != f->default_value)
          free (s);
        *(char **) slot = NULL;
      }
      break;
    case PROTOBUF_C_TYPE_BYTES:
      {
        ProtobufCBinaryData *b = slot;
        const ProtobufCBinaryData *def = f->default_value;
        if (b->data != NULL && (def == NULL || b->data != def->data))
          free (b->data);
        b->data = NULL;
        b->len = 0;
      }
      break;
    case PROTOBUF_C_TYPE_MESSAGE:
      if (*(ProtobufCMessage **) slot != NULL)
        protobuf_c_message_free_unpacked (*(ProtobufCMessage **) slot, NULL);
      *(ProtobufCMessage **) slot = NULL;
      break;
    default:
      break;
    }
}
