/* text-lexer.c: the tokenizer of the prototxt text format.
 *
 * Follows the token rules of protobuf's text format: `#` comments to end of
 * line, identifiers, integers in decimal / 0x hex / 0 octal, floats with a
 * '.', an exponent or an `f` suffix, single or double quoted strings with C
 * escapes (plus \u and \U), and single-character symbols. A '-' is its own
 * token, as protobuf has it, so the parser decides where a sign may go.
 * Everything that is not a token is reported with its position: NUL bytes,
 * control characters, stray bytes, unterminated strings, bad escapes. */
#include "text-lexer-private.h"

#include <string.h>
#include <glib/gi18n-lib.h>

void
ct_lexer_init (CtLexer *lexer,
               const char *text,
               gsize length)
{
  memset (lexer, 0, sizeof *lexer);
  lexer->text = text;
  lexer->length = length;
  lexer->line = 1;
}

void
ct_lexer_clear (CtLexer *lexer)
{
  g_clear_pointer (&lexer->error, g_free);
}

static inline gboolean
is_letter (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static inline gboolean
is_octal (char c)
{
  return c >= '0' && c <= '7';
}

static inline gboolean
is_space (char c)
{
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline char
peek (const CtLexer *lexer, gsize ahead)
{
  gsize at = lexer->pos + ahead;
  return at < lexer->length ? lexer->text[at] : '\0';
}

static inline gboolean
at_end (const CtLexer *lexer, gsize ahead)
{
  return lexer->pos + ahead >= lexer->length;
}

static guint
column_of (const CtLexer *lexer, gsize offset)
{
  return (guint) (offset - lexer->line_start) + 1;
}

static void G_GNUC_PRINTF (4, 5)
set_error (CtLexer *lexer,
           CtToken *token,
           gsize offset,
           const char *format,
           ...)
{
  va_list args;

  va_start (args, format);
  g_free (lexer->error);
  lexer->error = g_strdup_vprintf (format, args);
  va_end (args);

  token->kind = CT_TOKEN_ERROR;
  token->start = lexer->text + offset;
  token->length = 0;
  token->line = lexer->line;
  token->column = column_of (lexer, offset);
}

/* Skip whitespace and comments. FALSE (with TOKEN set to an error) when a
 * NUL byte or a control character is found on the way. */
static gboolean
skip_blank (CtLexer *lexer, CtToken *token)
{
  while (lexer->pos < lexer->length)
    {
      char c = lexer->text[lexer->pos];

      if (c == '\n')
        {
          lexer->pos++;
          lexer->line++;
          lexer->line_start = lexer->pos;
        }
      else if (is_space (c))
        lexer->pos++;
      else if (c == '#')
        {
          while (lexer->pos < lexer->length && lexer->text[lexer->pos] != '\n')
            {
              if (lexer->text[lexer->pos] == '\0')
                {
                  set_error (lexer, token, lexer->pos, _("NUL byte in input"));
                  return FALSE;
                }
              lexer->pos++;
            }
        }
      else if (c == '\0')
        {
          set_error (lexer, token, lexer->pos, _("NUL byte in input"));
          return FALSE;
        }
      else
        return TRUE;
    }
  return TRUE;
}

static void
lex_number (CtLexer *lexer, CtToken *token)
{
  gsize start = lexer->pos;
  gboolean is_float = FALSE;

  if (peek (lexer, 0) == '0' && (peek (lexer, 1) == 'x' || peek (lexer, 1) == 'X'))
    {
      lexer->pos += 2;
      if (!g_ascii_isxdigit (peek (lexer, 0)) || at_end (lexer, 0))
        {
          set_error (lexer, token, start, _("'0x' must be followed by hex digits"));
          return;
        }
      while (!at_end (lexer, 0) && g_ascii_isxdigit (peek (lexer, 0)))
        lexer->pos++;
    }
  else if (peek (lexer, 0) == '0' && g_ascii_isdigit (peek (lexer, 1)) && !at_end (lexer, 1))
    {
      lexer->pos++;
      while (!at_end (lexer, 0) && is_octal (peek (lexer, 0)))
        lexer->pos++;
      if (!at_end (lexer, 0) && g_ascii_isdigit (peek (lexer, 0)))
        {
          set_error (lexer, token, start, _("numbers starting with 0 must be octal"));
          return;
        }
    }
  else
    {
      while (!at_end (lexer, 0) && g_ascii_isdigit (peek (lexer, 0)))
        lexer->pos++;
      if (!at_end (lexer, 0) && peek (lexer, 0) == '.')
        {
          is_float = TRUE;
          lexer->pos++;
          while (!at_end (lexer, 0) && g_ascii_isdigit (peek (lexer, 0)))
            lexer->pos++;
        }
      if (!at_end (lexer, 0) && (peek (lexer, 0) == 'e' || peek (lexer, 0) == 'E'))
        {
          is_float = TRUE;
          lexer->pos++;
          if (!at_end (lexer, 0) && (peek (lexer, 0) == '-' || peek (lexer, 0) == '+'))
            lexer->pos++;
          if (at_end (lexer, 0) || !g_ascii_isdigit (peek (lexer, 0)))
            {
              set_error (lexer, token, start, _("exponent 'e' must be followed by digits"));
              return;
            }
          while (!at_end (lexer, 0) && g_ascii_isdigit (peek (lexer, 0)))
            lexer->pos++;
        }
      if (!at_end (lexer, 0) && (peek (lexer, 0) == 'f' || peek (lexer, 0) == 'F'))
        {
          is_float = TRUE;
          lexer->pos++;
        }
    }

  if (!at_end (lexer, 0) && (is_letter (peek (lexer, 0)) || g_ascii_isdigit (peek (lexer, 0))))
    {
      set_error (lexer, token, start, _("need space between number and identifier"));
      return;
    }
  if (!at_end (lexer, 0) && peek (lexer, 0) == '.')
    {
      set_error (lexer, token, start,
                 is_float ? _("number has more than one decimal point or exponent")
                          : _("hex and octal numbers must be integers"));
      return;
    }

  token->kind = is_float ? CT_TOKEN_FLOAT : CT_TOKEN_INT;
  token->length = lexer->pos - start;
}

/* How many hex digits follow at OFFSET, up to MAX. */
static guint
count_hex (const CtLexer *lexer, gsize offset, guint max)
{
  guint n = 0;

  while (n < max && offset + n < lexer->length && g_ascii_isxdigit (lexer->text[offset + n]))
    n++;
  return n;
}

static guint32
hex_value (const char *p, guint n)
{
  guint32 v = 0;

  for (guint i = 0; i < n; i++)
    v = v * 16 + (guint32) g_ascii_xdigit_value (p[i]);
  return v;
}

/* Check the escape whose backslash is at lexer->pos and step over it. */
static gboolean
lex_escape (CtLexer *lexer, CtToken *token)
{
  gsize at = lexer->pos;
  char e = peek (lexer, 1);

  if (at_end (lexer, 1))
    {
      set_error (lexer, token, at, _("unterminated string: reached end of file"));
      return FALSE;
    }
  if (strchr ("abfnrtv\\?'\"", e) != NULL && e != '\0')
    {
      lexer->pos += 2;
      return TRUE;
    }
  if (is_octal (e))
    {
      lexer->pos += 2;
      return TRUE;
    }
  if (e == 'x' || e == 'X')
    {
      if (count_hex (lexer, at + 2, 2) == 0)
        {
          set_error (lexer, token, at, _("expected hex digits after '\\x' in string"));
          return FALSE;
        }
      lexer->pos += 2;
      return TRUE;
    }
  if (e == 'u' || e == 'U')
    {
      guint want = e == 'u' ? 4 : 8;

      if (count_hex (lexer, at + 2, want) != want
          || (e == 'U' && hex_value (lexer->text + at + 2, 8) > 0x10FFFF))
        {
          if (e == 'u')
            set_error (lexer, token, at, _("expected four hex digits after '\\u' in string"));
          else
            set_error (lexer, token, at, _("expected eight hex digits up to 10ffff after '\\U' in string"));
          return FALSE;
        }
      lexer->pos += 2 + want;
      return TRUE;
    }

  if (g_ascii_isprint (e))
    set_error (lexer, token, at, _("invalid escape sequence '\\%c' in string"), e);
  else
    set_error (lexer, token, at, _("invalid escape sequence in string"));
  return FALSE;
}

static void
lex_string (CtLexer *lexer, CtToken *token)
{
  gsize start = lexer->pos;
  char quote = lexer->text[start];

  lexer->pos++;
  for (;;)
    {
      char c;

      if (at_end (lexer, 0))
        {
          set_error (lexer, token, start, _("unterminated string: reached end of file"));
          return;
        }
      c = lexer->text[lexer->pos];
      if (c == quote)
        {
          lexer->pos++;
          break;
        }
      if (c == '\n')
        {
          set_error (lexer, token, start, _("unterminated string: strings cannot span lines"));
          return;
        }
      if (c == '\0')
        {
          set_error (lexer, token, lexer->pos, _("NUL byte in input"));
          return;
        }
      if (c == '\\')
        {
          if (!lex_escape (lexer, token))
            return;
        }
      else
        lexer->pos++;
    }

  token->kind = CT_TOKEN_STRING;
  token->length = lexer->pos - start;
}

void
ct_lexer_next (CtLexer *lexer, CtToken *token)
{
  char c;

  if (!skip_blank (lexer, token))
    return;

  token->start = lexer->text + lexer->pos;
  token->length = 0;
  token->line = lexer->line;
  token->column = column_of (lexer, lexer->pos);
  token->symbol = '\0';

  if (lexer->pos >= lexer->length)
    {
      token->kind = CT_TOKEN_END;
      return;
    }

  c = lexer->text[lexer->pos];
  if (is_letter (c))
    {
      gsize start = lexer->pos;

      while (lexer->pos < lexer->length
             && (is_letter (lexer->text[lexer->pos]) || g_ascii_isdigit (lexer->text[lexer->pos])))
        lexer->pos++;
      token->kind = CT_TOKEN_IDENT;
      token->length = lexer->pos - start;
    }
  else if (g_ascii_isdigit (c) || (c == '.' && g_ascii_isdigit (peek (lexer, 1)) && !at_end (lexer, 1)))
    lex_number (lexer, token);
  else if (c == '"' || c == '\'')
    lex_string (lexer, token);
  else if (strchr ("{}<>[]:,;-", c) != NULL)
    {
      lexer->pos++;
      token->kind = CT_TOKEN_SYMBOL;
      token->symbol = c;
      token->length = 1;
    }
  else if (g_ascii_isprint (c))
    set_error (lexer, token, lexer->pos, _("unexpected character '%c'"), c);
  else if ((guchar) c < 0x20 || c == 0x7f)
    set_error (lexer, token, lexer->pos, _("invalid control character 0x%02x"), (guint) (guchar) c);
  else
    set_error (lexer, token, lexer->pos, _("unexpected byte 0x%02x outside a string"), (guint) (guchar) c);
}

static void
append_utf8 (GString *out, guint32 cp)
{
  /* Surrogates included: a lone \uD800 is written as its three-byte form,
   * as protobuf does, rather than rejected. */
  if (cp < 0x80)
    g_string_append_c (out, (char) cp);
  else if (cp < 0x800)
    {
      g_string_append_c (out, (char) (0xC0 | (cp >> 6)));
      g_string_append_c (out, (char) (0x80 | (cp & 0x3F)));
    }
  else if (cp < 0x10000)
    {
      g_string_append_c (out, (char) (0xE0 | (cp >> 12)));
      g_string_append_c (out, (char) (0x80 | ((cp >> 6) & 0x3F)));
      g_string_append_c (out, (char) (0x80 | (cp & 0x3F)));
    }
  else
    {
      g_string_append_c (out, (char) (0xF0 | (cp >> 18)));
      g_string_append_c (out, (char) (0x80 | ((cp >> 12) & 0x3F)));
      g_string_append_c (out, (char) (0x80 | ((cp >> 6) & 0x3F)));
      g_string_append_c (out, (char) (0x80 | (cp & 0x3F)));
    }
}

static gsize
hex_run (const char *p, const char *end, gsize max)
{
  gsize n = 0;

  while (n < max && p + n < end && g_ascii_isxdigit (p[n]))
    n++;
  return n;
}

void
ct_lexer_append_string (const CtToken *token, GString *out)
{
  const char *p = token->start + 1;
  const char *end = token->start + token->length - 1;  /* the closing quote */

  while (p < end)
    {
      const char *run = p;

      while (p < end && *p != '\\')
        p++;
      if (p > run)
        g_string_append_len (out, run, p - run);
      if (p >= end)
        break;

      /* The lexer has checked every escape, so only the decoding is left. */
      p++;
      switch (*p)
        {
        case 'a': g_string_append_c (out, '\a'); p++; break;
        case 'b': g_string_append_c (out, '\b'); p++; break;
        case 'f': g_string_append_c (out, '\f'); p++; break;
        case 'n': g_string_append_c (out, '\n'); p++; break;
        case 'r': g_string_append_c (out, '\r'); p++; break;
        case 't': g_string_append_c (out, '\t'); p++; break;
        case 'v': g_string_append_c (out, '\v'); p++; break;
        case 'x':
        case 'X':
          {
            gsize n = hex_run (p + 1, end, 2);
            g_string_append_c (out, (char) hex_value (p + 1, (guint) n));
            p += 1 + n;
          }
          break;
        case 'u':
        case 'U':
          {
            guint want = *p == 'u' ? 4 : 8;
            guint32 cp = hex_value (p + 1, want);

            p += 1 + want;
            /* A surrogate pair written as two \u escapes is one character. */
            if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u'
                && hex_run (p + 2, end, 4) == 4)
              {
                guint32 low = hex_value (p + 2, 4);

                if (low >= 0xDC00 && low <= 0xDFFF)
                  {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                  }
              }
            append_utf8 (out, cp);
          }
          break;
        default:
          if (is_octal (*p))
            {
              guint code = 0;

              for (guint i = 0; i < 3 && p < end && is_octal (*p); i++, p++)
                code = code * 8 + (guint) (*p - '0');
              g_string_append_c (out, (char) (code & 0xFF));
            }
          else
            {
              /* \\ \? \' \" stand for themselves. */
              g_string_append_c (out, *p);
              p++;
            }
          break;
        }
    }
}

gboolean
ct_lexer_parse_uint (const CtToken *token, guint64 *value)
{
  const char *p = token->start;
  const char *end = token->start + token->length;
  guint base = 10;
  guint64 v = 0;

  if (token->length > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    {
      base = 16;
      p += 2;
    }
  else if (token->length > 1 && p[0] == '0')
    {
      base = 8;
      p++;
    }

  for (; p < end; p++)
    {
      guint digit = (guint) g_ascii_xdigit_value (*p);

      if (v > (G_MAXUINT64 - digit) / base)
        return FALSE;
      v = v * base + digit;
    }
  *value = v;
  return TRUE;
}
