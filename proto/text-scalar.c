/* text-scalar.c: scalar values in prototxt, read as protobuf's text format
 * reads them: integers in decimal, hex or octal with range checks per type,
 * floats in the C locale (with an f suffix, inf and nan), bools in the six
 * spellings protobuf accepts, enums by name or number, and adjacent string
 * literals joined. An unknown enum value fails, or in lenient mode is handed
 * back for the caller to keep as text. */
#include "text-parser-private.h"
#include "proto-error.h"
#include "reflect.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

static const ProtobufCEnumValue *
find_enum_value (const ProtobufCEnumDescriptor *desc, const char *name, gsize len)
{
  guint lo = 0, hi = desc->n_value_names;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int c = ct_text_compare_name (name, len, desc->values_by_name[mid].name);

      if (c == 0)
        return &desc->values[desc->values_by_name[mid].index];
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  return NULL;
}

/* ---- scalar values --------------------------------------------------- */

static gboolean
fail_expected (CtParser *p,
               const ProtobufCMessageDescriptor *desc,
               const ProtobufCFieldDescriptor *f,
               const char *what)
{
  g_autofree char *found = ct_parser_describe (&p->tok);

  return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                         _("expected %s for %s field '%s' in %s, found %s"),
                         what, ct_proto_type_name (f->type), f->name, desc->short_name, found);
}

static gboolean
fail_range (CtParser *p,
            const CtToken *first,
            const ProtobufCMessageDescriptor *desc,
            const ProtobufCFieldDescriptor *f)
{
  gsize end = (gsize) (p->tok.start - p->lexer.text) + p->tok.length;
  gsize start = (gsize) (first->start - p->lexer.text);

  return ct_parser_fail (p, first->line, first->column, CT_PROTO_ERROR_RANGE,
                         _("value '%.*s' is out of range for %s field '%s' in %s"),
                         (int) (end - start), first->start, ct_proto_type_name (f->type),
                         f->name, desc->short_name);
}

static gboolean
is_signed_type (ProtobufCType type)
{
  return type == PROTOBUF_C_TYPE_INT32 || type == PROTOBUF_C_TYPE_SINT32
         || type == PROTOBUF_C_TYPE_SFIXED32 || type == PROTOBUF_C_TYPE_INT64
         || type == PROTOBUF_C_TYPE_SINT64 || type == PROTOBUF_C_TYPE_SFIXED64;
}

static gboolean
is_64bit_type (ProtobufCType type)
{
  return ct_proto_type_size (type) == 8;
}

static CtParsed
parse_integer (CtParser *p,
               const ProtobufCMessageDescriptor *desc,
               const ProtobufCFieldDescriptor *f,
               CtValue *out)
{
  CtToken first = p->tok;
  gboolean negative = FALSE;
  guint64 magnitude, limit;

  if (ct_parser_is_symbol (p, '-'))
    {
      if (!is_signed_type (f->type))
        {
          ct_parser_fail (p, first.line, first.column, CT_PROTO_ERROR_RANGE,
                          _("negative value for %s field '%s' in %s"),
                          ct_proto_type_name (f->type), f->name, desc->short_name);
          return CT_PARSED_FAIL;
        }
      negative = TRUE;
      if (!ct_parser_advance (p))
        return CT_PARSED_FAIL;
    }
  if (p->tok.kind != CT_TOKEN_INT)
    {
      fail_expected (p, desc, f, _("an integer"));
      return CT_PARSED_FAIL;
    }

  if (is_signed_type (f->type))
    limit = is_64bit_type (f->type) ? (guint64) G_MAXINT64 : (guint64) G_MAXINT32;
  else
    limit = is_64bit_type (f->type) ? G_MAXUINT64 : G_MAXUINT32;
  if (negative)
    limit++;

  if (!ct_lexer_parse_uint (&p->tok, &magnitude) || magnitude > limit)
    {
      fail_range (p, &first, desc, f);
      return CT_PARSED_FAIL;
    }

  if (is_64bit_type (f->type))
    out->u64 = negative ? (guint64) 0 - magnitude : magnitude;
  else
    out->u32 = negative ? (guint32) 0 - (guint32) magnitude : (guint32) magnitude;
  return ct_parser_advance (p) ? CT_PARSED_OK : CT_PARSED_FAIL;
}

/* Parse the LEN bytes at S as a C-locale double; f suffix allowed. */
static gboolean
ascii_to_double (const char *s, gsize len, double *out)
{
  char buf[64];
  g_autofree char *big = NULL;
  char *copy = buf;

  if (len > 0 && (s[len - 1] == 'f' || s[len - 1] == 'F'))
    len--;
  if (len >= sizeof buf)
    copy = big = g_malloc (len + 1);
  memcpy (copy, s, len);
  copy[len] = '\0';

  errno = 0;
  *out = g_ascii_strtod (copy, NULL);
  return !(errno == ERANGE && isinf (*out));
}

static CtParsed
parse_floating (CtParser *p,
                const ProtobufCMessageDescriptor *desc,
                const ProtobufCFieldDescriptor *f,
                CtValue *out)
{
  CtToken first = p->tok;
  gboolean negative = FALSE;
  double v;

  if (ct_parser_is_symbol (p, '-'))
    {
      negative = TRUE;
      if (!ct_parser_advance (p))
        return CT_PARSED_FAIL;
    }

  switch (p->tok.kind)
    {
    case CT_TOKEN_INT:
      {
        guint64 u;

        /* As protobuf has it: decimal only, and integers too large for 64
         * bits are still fine as doubles. */
        if (p->tok.length > 1 && p->tok.start[0] == '0')
          {
            fail_expected (p, desc, f, _("a decimal number"));
            return CT_PARSED_FAIL;
          }
        if (ct_lexer_parse_uint (&p->tok, &u))
          v = (double) u;
        else if (!ascii_to_double (p->tok.start, p->tok.length, &v))
          {
            fail_range (p, &first, desc, f);
            return CT_PARSED_FAIL;
          }
      }
      break;
    case CT_TOKEN_FLOAT:
      if (!ascii_to_double (p->tok.start, p->tok.length, &v))
        {
          fail_range (p, &first, desc, f);
          return CT_PARSED_FAIL;
        }
      break;
    case CT_TOKEN_IDENT:
      if ((p->tok.length == 3 && g_ascii_strncasecmp (p->tok.start, "inf", 3) == 0)
          || (p->tok.length == 8 && g_ascii_strncasecmp (p->tok.start, "infinity", 8) == 0))
        v = INFINITY;
      else if (p->tok.length == 3 && g_ascii_strncasecmp (p->tok.start, "nan", 3) == 0)
        v = NAN;
      else
        {
          fail_expected (p, desc, f, _("a number"));
          return CT_PARSED_FAIL;
        }
      break;
    default:
      fail_expected (p, desc, f, _("a number"));
      return CT_PARSED_FAIL;
    }

  if (negative)
    v = -v;

  if (f->type == PROTOBUF_C_TYPE_DOUBLE)
    out->d = v;
  else if (isnan (v) || isinf (v) || fabs (v) <= FLT_MAX)
    out->f = (float) v;
  else if (fabs (v) < (double) FLT_MAX + 0x1p103)
    /* Rounds to the largest float, as C's conversion (and protobuf) does:
     * "3.40282347e+38", the printed FLT_MAX, must read back. */
    out->f = copysignf (FLT_MAX, (float) (v > 0 ? 1 : -1));
  else
    {
      /* A finite number no float (or double, above) can hold is a typo,
       * not a wish for inf: protobuf silently stores inf, we say so. */
      fail_range (p, &first, desc, f);
      return CT_PARSED_FAIL;
    }
  return ct_parser_advance (p) ? CT_PARSED_OK : CT_PARSED_FAIL;
}

static CtParsed
parse_bool (CtParser *p,
            const ProtobufCMessageDescriptor *desc,
            const ProtobufCFieldDescriptor *f,
            CtValue *out)
{
  const CtToken *t = &p->tok;
  guint64 u;
  gboolean ok = FALSE;

  if (t->kind == CT_TOKEN_INT && ct_lexer_parse_uint (t, &u) && u <= 1)
    {
      out->b = u == 1;
      ok = TRUE;
    }
  else if (t->kind == CT_TOKEN_IDENT)
    {
      /* The spellings protobuf accepts, and no others. */
      static const struct { const char *word; gboolean value; } words[] = {
        { "true", TRUE }, { "True", TRUE }, { "t", TRUE },
        { "false", FALSE }, { "False", FALSE }, { "f", FALSE },
      };

      for (guint i = 0; i < G_N_ELEMENTS (words) && !ok; i++)
        if (ct_text_compare_name (t->start, t->length, words[i].word) == 0)
          {
            out->b = words[i].value;
            ok = TRUE;
          }
    }

  if (!ok)
    {
      g_autofree char *found = ct_parser_describe (t);
      ct_parser_fail (p, t->line, t->column, CT_PROTO_ERROR_TYPE,
                      _("invalid value %s for bool field '%s' in %s (expected true or false)"),
                      found, f->name, desc->short_name);
      return CT_PARSED_FAIL;
    }
  return ct_parser_advance (p) ? CT_PARSED_OK : CT_PARSED_FAIL;
}

static CtParsed
parse_enum (CtParser *p,
            const ProtobufCMessageDescriptor *desc,
            const ProtobufCFieldDescriptor *f,
            CtValue *out,
            CtToken *bad_value)
{
  const ProtobufCEnumDescriptor *edesc = f->descriptor;
  const ProtobufCEnumValue *ev = NULL;
  CtToken first = p->tok;

  if (p->tok.kind == CT_TOKEN_IDENT)
    ev = find_enum_value (edesc, p->tok.start, p->tok.length);
  else if (p->tok.kind == CT_TOKEN_INT || ct_parser_is_symbol (p, '-'))
    {
      gboolean negative = ct_parser_is_symbol (p, '-');
      guint64 magnitude;

      if (negative && !ct_parser_advance (p))
        return CT_PARSED_FAIL;
      if (p->tok.kind != CT_TOKEN_INT)
        {
          fail_expected (p, desc, f, _("an enum value name or number"));
          return CT_PARSED_FAIL;
        }
      if (ct_lexer_parse_uint (&p->tok, &magnitude)
          && magnitude <= (guint64) G_MAXINT32 + (negative ? 1 : 0))
        ev = protobuf_c_enum_descriptor_get_value (edesc,
                                                   negative ? (int) -(gint64) magnitude : (int) magnitude);
    }
  else
    {
      fail_expected (p, desc, f, _("an enum value name or number"));
      return CT_PARSED_FAIL;
    }

  if (ev == NULL)
    {
      gsize end = (gsize) (p->tok.start - p->lexer.text) + p->tok.length;

      if (p->flags & CT_TEXT_LENIENT)
        {
          *bad_value = first;
          bad_value->length = end - (gsize) (first.start - p->lexer.text);
          return ct_parser_advance (p) ? CT_PARSED_UNKNOWN_ENUM : CT_PARSED_FAIL;
        }
      ct_parser_fail (p, first.line, first.column, CT_PROTO_ERROR_UNKNOWN_FIELD,
                      _("invalid value '%.*s' for enum field '%s' in %s"),
                      (int) (end - (gsize) (first.start - p->lexer.text)), first.start,
                      f->name, desc->short_name);
      return CT_PARSED_FAIL;
    }
  out->i32 = ev->value;
  return ct_parser_advance (p) ? CT_PARSED_OK : CT_PARSED_FAIL;
}

static CtParsed
parse_string (CtParser *p,
              const ProtobufCMessageDescriptor *desc,
              const ProtobufCFieldDescriptor *f,
              CtValue *out)
{
  CtToken first = p->tok;

  if (p->tok.kind != CT_TOKEN_STRING)
    {
      fail_expected (p, desc, f, _("a quoted string"));
      return CT_PARSED_FAIL;
    }

  /* Adjacent literals concatenate: "a" 'b' is "ab". */
  g_string_truncate (p->scratch, 0);
  while (p->tok.kind == CT_TOKEN_STRING)
    {
      ct_lexer_append_string (&p->tok, p->scratch);
      if (!ct_parser_advance (p))
        return CT_PARSED_FAIL;
    }

  if (f->type == PROTOBUF_C_TYPE_BYTES)
    {
      out->bytes.len = p->scratch->len;
      out->bytes.data = p->scratch->len > 0 ? g_memdup2 (p->scratch->str, p->scratch->len) : NULL;
      return CT_PARSED_OK;
    }
  if (memchr (p->scratch->str, '\0', p->scratch->len) != NULL)
    {
      /* protobuf-c keeps strings NUL-terminated; bytes fields can hold NULs. */
      ct_parser_fail (p, first.line, first.column, CT_PROTO_ERROR_TYPE,
                      _("string field '%s' in %s cannot contain a NUL character"),
                      f->name, desc->short_name);
      return CT_PARSED_FAIL;
    }
  out->s = g_strndup (p->scratch->str, p->scratch->len);
  return CT_PARSED_OK;
}

CtParsed
ct_parser_parse_scalar (CtParser *p,
                        const ProtobufCMessageDescriptor *desc,
                        const ProtobufCFieldDescriptor *f,
                        CtValue *out,
                        CtToken *bad_value)
{
  if (ct_parser_is_open (p))
    {
      ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                      _("field '%s' in %s holds a %s, not a message"),
                      f->name, desc->short_name, ct_proto_type_name (f->type));
      return CT_PARSED_FAIL;
    }
  if (p->tok.kind == CT_TOKEN_END
      || (p->tok.kind == CT_TOKEN_SYMBOL && !ct_parser_is_symbol (p, '-')))
    {
      g_autofree char *found = ct_parser_describe (&p->tok);
      ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                      _("missing value for %s field '%s' in %s, found %s"),
                      ct_proto_type_name (f->type), f->name, desc->short_name, found);
      return CT_PARSED_FAIL;
    }

  switch (f->type)
    {
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_DOUBLE:
      return parse_floating (p, desc, f, out);
    case PROTOBUF_C_TYPE_BOOL:
      return parse_bool (p, desc, f, out);
    case PROTOBUF_C_TYPE_ENUM:
      return parse_enum (p, desc, f, out, bad_value);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
      return parse_string (p, desc, f, out);
    case PROTOBUF_C_TYPE_MESSAGE:
      g_return_val_if_reached (CT_PARSED_FAIL);
    default:
      return parse_integer (p, desc, f, out);
    }
}
