/* reflect.h: protobuf-c reflection, the one place that reads and writes a
 * message's fields through their descriptors.
 *
 * protobuf-c lays a message out as a C struct: a field's value sits at
 * f->offset; a repeated field has its count at f->quantifier_offset and a
 * pointer to its array at f->offset; an optional scalar has a has_ flag at
 * f->quantifier_offset; a oneof member has the chosen field number there.
 * The text parser and printer, the upgrades and the field paths all walk
 * messages this way; these helpers say once how.
 *
 * Presence follows protobuf-c's packing rules, so what counts as set here
 * is what protobuf_c_message_pack() writes. Storage follows its unpacking
 * rules (malloc'd strings and arrays, an unset optional string points at its
 * default), so protobuf_c_message_free_unpacked() frees what we put in. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

G_BEGIN_DECLS

/* The bytes one value of TYPE takes in a message or a repeated array. */
gsize ct_proto_type_size (ProtobufCType type);

/* TYPE as .proto spells it ("int32", "string", "message"), for messages. */
const char *ct_proto_type_name (ProtobufCType type);

/* A new message of type DESC with every field at its default; freed with
 * protobuf_c_message_free_unpacked(). */
ProtobufCMessage *ct_proto_message_new (const ProtobufCMessageDescriptor *desc);

/* Where field F's storage is in MSG: the value itself, or for a repeated
 * field the pointer to its array. */
static inline void *
ct_proto_field_member (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  return (char *) msg + f->offset;
}

/* Where F's count (repeated), has_ flag (optional scalar) or chosen case
 * (oneof) is in MSG. Meaningless for other fields. */
static inline void *
ct_proto_field_quantifier (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  return (char *) msg + f->quantifier_offset;
}

/* How many values field F has in MSG: the count of a repeated field, else
 * 0 or 1. */
gsize ct_proto_field_count (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f);

/* Whether F holds at least one value in MSG. */
gboolean ct_proto_field_is_set (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f);

/* Value INDEX of F in MSG: INDEX below ct_proto_field_count(), or 0 for a
 * field that is not repeated (set or not). */
const void *ct_proto_field_element (const ProtobufCMessage *msg,
                                    const ProtobufCFieldDescriptor *f,
                                    gsize index);

/* Mark the non-repeated field F present (or absent) in MSG, where its
 * presence is recorded apart from its value: the has_ flag of an optional
 * scalar or bytes field, the case of a oneof. Strings and messages are
 * present when their pointer is, so nothing is recorded for them. */
void ct_proto_field_set_present (ProtobufCMessage *msg,
                                 const ProtobufCFieldDescriptor *f,
                                 gboolean present);

/* A zeroed slot at the end of repeated field F in MSG, counted. The array
 * grows by one, so this suits arrays of any origin (an unpacked message's
 * are exactly as long as their count). */
void *ct_proto_field_append (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f);

/* Free what the value of F at SLOT owns (a string, bytes, a message), not
 * SLOT itself, and leave SLOT empty. Defaults are static: never freed. */
void ct_proto_value_clear (const ProtobufCFieldDescriptor *f, void *slot);

G_END_DECLS
