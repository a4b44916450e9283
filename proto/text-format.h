/* text-format.h: protobuf text format (prototxt) for any protobuf-c message.
 *
 * The parser accepts everything protobuf's text format accepts; the printer
 * writes byte for byte what `protoc --decode` writes for the same message.
 * Both work from protobuf-c descriptors, so they serve NetParameter,
 * SolverParameter and every other message alike.
 *
 * Where protobuf is silent about bad input, we are not: a finite number too
 * large for its float or double field is an error (protobuf stores inf), and
 * messages nest at most 100 deep. A string field cannot hold "\0" (protobuf-c
 * strings end at NUL); bytes fields can.
 *
 * Lenient mode keeps fields the schema does not know (a fork's
 * `prior_box_param { ... }`, `ceil_mode: true`) verbatim, attached to the
 * message they appeared in, and the printer writes them back in place: a user
 * never loses text by opening and saving a file. Strict mode (the engine's)
 * rejects them. Kept text travels inside the message as protobuf-c unknown
 * fields with reserved tag numbers (19000-19999, which no .proto may use), so
 * it is freed with the message; strip it with ct_text_strip_unknown() before
 * writing binary files. An unknown enum value in a known field ("pool: MAXX")
 * is kept the same way.
 *
 * Error positions are LINE:COLUMN, 1-based; columns count bytes, so a tab or
 * each byte of a UTF-8 character is one column. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

G_BEGIN_DECLS

typedef enum {
  CT_TEXT_STRICT  = 0,
  CT_TEXT_LENIENT = 1 << 0, /* keep unknown fields verbatim instead of failing */
} CtTextFlags;

/* One unknown field kept by a lenient parse. Lines and columns are 1-based;
 * columns count bytes, not characters. */
typedef struct {
  char *message_type; /* short type name, e.g. "LayerParameter" */
  char *field_name;   /* e.g. "prior_box_param" */
  guint line;         /* 1-based position of the field name in the source */
  guint column;
  char *text;         /* the field's verbatim text, name through value or closing brace */
  char *value;        /* a known enum field's unknown value as written
                       * ("MAXX"); NULL when the field itself is unknown */
  guint error_line;   /* where strict parsing reports it: the field name, */
  guint error_column; /* or the unknown enum value */
} CtTextUnknown;

void ct_text_unknown_free (CtTextUnknown *unknown);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtTextUnknown, ct_text_unknown_free)

/* Parse TEXT (LENGTH bytes, or NUL-terminated when LENGTH < 0) as a message of
 * type DESC. FILENAME only names the source in error messages ("<stdin>" is
 * fine). Returns a message to free with protobuf_c_message_free_unpacked
 * (msg, NULL), or NULL with ERROR set to "FILENAME:LINE:COLUMN: ..." naming
 * the message type and field. Numbers are parsed in the C locale whatever
 * the process locale is. */
ProtobufCMessage *ct_text_parse (const ProtobufCMessageDescriptor *desc,
                                 const char *text,
                                 gssize length,
                                 const char *filename,
                                 CtTextFlags flags,
                                 GError **error);

/* Read PATH and parse it as above; errors name PATH as given. */
ProtobufCMessage *ct_text_parse_file (const ProtobufCMessageDescriptor *desc,
                                      const char *path,
                                      CtTextFlags flags,
                                      GError **error);

/* The canonical text of MSG: what `protoc --decode` prints (two-space indent,
 * fields in field-number order, floats in shortest round-trip form, unknown
 * wire fields last by number), with kept unknown text written back after
 * the known field that preceded it in the source, at the depth of its
 * message (only its indentation changes). Printing, parsing and printing
 * again gives the same text. Never NULL; g_free it. */
char *ct_text_print (const ProtobufCMessage *msg);

/* Every unknown field kept anywhere inside MSG, depth first in text order.
 * Returns a GPtrArray of CtTextUnknown that frees its elements. */
GPtrArray *ct_text_list_unknown (const ProtobufCMessage *msg);

/* Whether MSG or any message inside it holds kept unknown text. */
gboolean ct_text_has_unknown (const ProtobufCMessage *msg);

/* Fail, as strict parsing would have, when MSG holds kept unknown text:
 * "FILENAME:LINE:COLUMN: unknown field 'ceil_mode' in PoolingParameter". */
gboolean ct_text_check_strict (const ProtobufCMessage *msg,
                               const char *filename,
                               GError **error);

/* Remove all kept unknown text from MSG and the messages inside it. */
void ct_text_strip_unknown (ProtobufCMessage *msg);

G_END_DECLS
