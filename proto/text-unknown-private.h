/* text-unknown-private.h: how lenient parsing keeps unknown text inside a
 * message, shared by the parser (which attaches it), the printer (which
 * writes it back) and the public list/strip/check functions.
 *
 * Each kept field is one protobuf-c unknown field with a tag from the range
 * protobuf reserves for its implementation (19000-19999, which no .proto may
 * use) and wire type LENGTH_PREFIXED. Its data is a valid length-prefixed
 * payload, so a message that still holds kept text packs to well-formed
 * protobuf, and protobuf_c_message_free_unpacked frees it. */
#pragma once

#include <protobuf-c/protobuf-c.h>
#include <glib.h>

G_BEGIN_DECLS

#define CT_KEPT_TAG_FIELD      19000u /* a field the schema does not have */
#define CT_KEPT_TAG_ENUM_VALUE 19001u /* a known enum field with an unknown value */

typedef struct {
  guint32 tag;           /* CT_KEPT_TAG_* */
  guint32 anchor_id;     /* the known field that preceded it in the source; 0: none */
  guint32 anchor_count;  /* how many of that field's values preceded it */
  guint32 line;          /* position of the field name */
  guint32 column;
  guint32 error_line;    /* position strict parsing reports (the name or the bad value) */
  guint32 error_column;
  guint32 indent;        /* bytes of indentation of the line the name is on */
  const char *name;      /* field name, NAME_LEN bytes */
  gsize name_len;
  const char *text;      /* verbatim source text, TEXT_LEN bytes */
  gsize text_len;
  const char *value;     /* the unknown enum value as written; empty for fields */
  gsize value_len;
} CtKeptText;

/* Encode KEPT (copying its strings) as an unknown field. */
void ct_kept_text_encode (const CtKeptText *kept, ProtobufCMessageUnknownField *out);

/* Append N unknown fields to MSG, which takes over their data. */
void ct_unknown_fields_append (ProtobufCMessage *msg,
                               const ProtobufCMessageUnknownField *fields,
                               guint n);

/* Whether FIELD is kept text, and if so fill KEPT with pointers into it. */
gboolean ct_kept_text_decode (const ProtobufCMessageUnknownField *field, CtKeptText *kept);

G_END_DECLS
