/* text-parser-private.h: the prototxt parser's state and the parts of it
 * that text-format.c (fields and messages), text-scalar.c (values) and
 * text-lenient.c (text kept in lenient mode) share. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

#include "proto-error.h"
#include "text-format.h"
#include "text-lexer-private.h"
#include "text-unknown-private.h"

G_BEGIN_DECLS

/* Messages nested deeper than this are refused with an error rather than
 * risking the stack, as protobuf's own parser limits recursion to 100. */
#define CT_TEXT_MAX_DEPTH 100

typedef struct {
  CtLexer lexer;
  CtToken tok;        /* the lookahead token */
  gsize prev_end;     /* offset just past the last token consumed */
  const char *filename;
  CtTextFlags flags;
  guint depth;
  GString *scratch;
  GError *error;
} CtParser;

typedef union {
  gint32 i32;
  guint32 u32;
  gint64 i64;
  guint64 u64;
  float f;
  double d;
  protobuf_c_boolean b;
  char *s;
  ProtobufCBinaryData bytes;
} CtValue;

typedef enum {
  CT_PARSED_OK,
  CT_PARSED_FAIL,
  CT_PARSED_UNKNOWN_ENUM, /* lenient: the value is kept as text instead */
} CtParsed;

/* Where kept text goes back: after COUNT values of field ID. */
typedef struct {
  guint32 id;
  guint32 count;
} CtAnchor;

/* What the parser knows while it fills one message. */
typedef struct {
  ProtobufCMessage *msg;
  guint8 *seen;      /* per field: already given (for non-repeated fields) */
  GArray *kept;      /* ProtobufCMessageUnknownField, attached at the end */
  CtAnchor anchor;
} CtFrame;

/* Record the first error as "FILE:LINE:COLUMN: message"; returns FALSE. */
gboolean ct_parser_fail (CtParser *p,
                         guint line,
                         guint column,
                         CtProtoError code,
                         const char *format,
                         ...) G_GNUC_PRINTF (5, 6);

/* A token as messages quote it: 'abc', or "end of file". */
char *ct_parser_describe (const CtToken *t);

/* Consume the lookahead token and read the next; FALSE on a lexer error. */
gboolean ct_parser_advance (CtParser *p);

/* Whether the lookahead is the symbol C; whether it opens a message. */
static inline gboolean
ct_parser_is_symbol (const CtParser *p, char c)
{
  return p->tok.kind == CT_TOKEN_SYMBOL && p->tok.symbol == c;
}

static inline gboolean
ct_parser_is_open (const CtParser *p)
{
  return ct_parser_is_symbol (p, '{') || ct_parser_is_symbol (p, '<');
}

/* Compare the LEN bytes at S with the NUL-terminated NAME, as strcmp would. */
int ct_text_compare_name (const char *s, gsize len, const char *name);

/* Read one value of scalar field F (of message type DESC) into OUT. In
 * lenient mode an unknown enum value gives CT_PARSED_UNKNOWN_ENUM and its
 * tokens in BAD_VALUE. */
CtParsed ct_parser_parse_scalar (CtParser *p,
                                 const ProtobufCMessageDescriptor *desc,
                                 const ProtobufCFieldDescriptor *f,
                                 CtValue *out,
                                 CtToken *bad_value);

/* Keep the text from field name NAME to the last token consumed in FRAME's
 * message, tagged TAG (CT_KEPT_TAG_*), with VALUE (ending at VALUE_END) the
 * part an error would point at (NULL: the name). */
void ct_parser_keep_text (CtParser *p,
                          CtFrame *frame,
                          guint32 tag,
                          const CtToken *name,
                          const CtToken *value,
                          gsize value_end);

/* Skip the value of unknown field NAME (the lookahead is just past it). */
gboolean ct_parser_skip_field_value (CtParser *p, const CtToken *name);

G_END_DECLS
