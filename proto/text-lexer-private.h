/* text-lexer-private.h: the tokenizer under the prototxt parser.
 *
 * Splits text into identifiers, numbers, strings and one-character symbols,
 * skipping whitespace and `#` comments, and reports each token's byte span,
 * line and column. Lines and columns are 1-based and columns count BYTES,
 * not characters or tab stops, so that a position always names one exact
 * byte of the file whatever its encoding. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CT_TOKEN_END,     /* end of input */
  CT_TOKEN_IDENT,   /* [A-Za-z_][A-Za-z0-9_]* */
  CT_TOKEN_INT,     /* decimal, 0x hex or 0 octal, without sign */
  CT_TOKEN_FLOAT,   /* has a '.', an exponent or an f suffix */
  CT_TOKEN_STRING,  /* one quoted literal, escapes checked but not decoded */
  CT_TOKEN_SYMBOL,  /* one of { } < > [ ] : , ; - */
  CT_TOKEN_ERROR,   /* lexer->error says what; line and column where */
} CtTokenKind;

typedef struct {
  CtTokenKind kind;
  char symbol;        /* for CT_TOKEN_SYMBOL */
  const char *start;  /* into the input; not NUL-terminated */
  gsize length;
  guint line;
  guint column;
} CtToken;

typedef struct {
  const char *text;
  gsize length;
  gsize pos;
  gsize line_start;   /* offset of the first byte of the current line */
  guint line;
  char *error;        /* translated message of the last CT_TOKEN_ERROR */
} CtLexer;

void ct_lexer_init (CtLexer *lexer, const char *text, gsize length);
void ct_lexer_clear (CtLexer *lexer);

/* Fill TOKEN with the next token. After CT_TOKEN_ERROR, lexer->error holds
 * the message and the lexer should not be asked again. */
void ct_lexer_next (CtLexer *lexer, CtToken *token);

/* Append the bytes a CT_TOKEN_STRING stands for (escapes decoded). */
void ct_lexer_append_string (const CtToken *token, GString *out);

/* Value of a CT_TOKEN_INT. FALSE when it does not fit in 64 bits. */
gboolean ct_lexer_parse_uint (const CtToken *token, guint64 *value);

G_END_DECLS
