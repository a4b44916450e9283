/* text-format.c: the prototxt parser.
 *
 * A recursive-descent parser that fills protobuf-c messages straight from
 * their descriptors, so one parser serves every message type. It accepts
 * what protobuf's text format accepts (see text-format.h) and reports every
 * problem as "FILE:LINE:COLUMN: what", naming the field and the message
 * type. Lines and columns are 1-based; columns count bytes.
 *
 * Messages are attached to their parent before their body is parsed and
 * repeated arrays are always consistent, so on any error freeing the root
 * frees everything parsed so far. Repeated arrays grow geometrically. */
#include "text-format.h"
#include "text-lexer-private.h"
#include "text-unknown-private.h"
#include "proto-error.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

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
  PARSED_OK,
  PARSED_FAIL,
  PARSED_UNKNOWN_ENUM, /* lenient: the value is kept as text instead */
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

/* ---- errors ---------------------------------------------------------- */

static gboolean G_GNUC_PRINTF (5, 6)
fail (CtParser *p,
      guint line,
      guint column,
      CtProtoError code,
      const char *format,
      ...)
{
  g_autofree char *what = NULL;
  va_list args;

  if (p->error != NULL)
    return FALSE;
  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&p->error, CT_PROTO_ERROR, code, "%s:%u:%u: %s",
               p->filename, line, column, what);
  return FALSE;
}

/* A token as messages quote it: 'abc', or "end of file". */
static char *
describe (const CtToken *t)
{
  const gsize max = 40;

  if (t->kind == CT_TOKEN_END)
    return g_strdup (_("end of file"));
  if (t->length > max)
    return g_strdup_printf ("'%.*s...'", (int) max, t->start);
  return g_strdup_printf ("'%.*s'", (int) t->length, t->start);
}

static const char *
type_name (ProtobufCType type)
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

/* ---- tokens ---------------------------------------------------------- */

static gboolean
advance (CtParser *p)
{
  p->prev_end = (gsize) (p->tok.start - p->lexer.text) + p->tok.length;
  ct_lexer_next (&p->lexer, &p->tok);
  if (p->tok.kind == CT_TOKEN_ERROR)
    return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX, "%s", p->lexer.error);
  return TRUE;
}

static inline gboolean
is_symbol (const CtParser *p, char c)
{
  return p->tok.kind == CT_TOKEN_SYMBOL && p->tok.symbol == c;
}

static inline gboolean
is_open (const CtParser *p)
{
  return is_symbol (p, '{') || is_symbol (p, '<');
}

/* Compare the LEN bytes at S with the NUL-terminated NAME, as strcmp would. */
static int
compare_name (const char *s, gsize len, const char *name)
{
  int c = strncmp (s, name, len);

  if (c != 0)
    return c;
  return name[len] == '\0' ? 0 : -1;
}

static const ProtobufCFieldDescriptor *
find_field (const ProtobufCMessageDescriptor *desc, const char *name, gsize len)
{
  guint lo = 0, hi = desc->n_fields;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const ProtobufCFieldDescriptor *f = &desc->fields[desc->fields_sorted_by_name[mid]];
      int c = compare_name (name, len, f->name);

      if (c == 0)
        return f;
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  return NULL;
}

static const ProtobufCEnumValue *
find_enum_value (const ProtobufCEnumDescriptor *desc, const char *name, gsize len)
{
  guint lo = 0, hi = desc->n_value_names;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int c = compare_name (name, len, desc->values_by_name[mid].name);

      if (c == 0)
        return &desc->values[desc->values_by_name[mid].index];
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  return NULL;
}

/* ---- message storage ------------------------------------------------- */

static gsize
value_size (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      return sizeof (guint64);
    case PROTOBUF_C_TYPE_DOUBLE:
      return sizeof (double);
    case PROTOBUF_C_TYPE_FLOAT:
      return sizeof (float);
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof (protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
      return sizeof (char *);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof (ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof (ProtobufCMessage *);
    default:
      return sizeof (guint32);
    }
}

static ProtobufCMessage *
new_message (const ProtobufCMessageDescriptor *desc)
{
  ProtobufCMessage *msg = g_malloc0 (desc->sizeof_message);

  desc->message_init (msg);
  return msg;
}

/* A zeroed slot at the end of repeated field F. The capacity is implied by
 * the count (4, then the next power of two), so arrays grow geometrically
 * without a side table; every array here starts empty from message_init. */
static void *
append_slot (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  gsize *n = (gsize *) ((char *) msg + f->quantifier_offset);
  char **items = (char **) ((char *) msg + f->offset);
  gsize size = value_size (f->type);
  void *slot;

  if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0))
    *items = g_realloc (*items, (*n == 0 ? 4 : *n * 2) * size);
  slot = *items + *n * size;
  memset (slot, 0, size);
  (*n)++;
  return slot;
}

/* Where a non-repeated field's value goes, marking it present. */
static void *
single_slot (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  char *base = (char *) msg;

  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    *(guint32 *) (base + f->quantifier_offset) = f->id;
  else if (f->label == PROTOBUF_C_LABEL_OPTIONAL
           && f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE)
    *(protobuf_c_boolean *) (base + f->quantifier_offset) = TRUE;
  return base + f->offset;
}

static gsize
repeated_count (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  return *(const gsize *) ((const char *) msg + f->quantifier_offset);
}

/* Remember unknown text for FRAME's message, anchored after the known field
 * that preceded it. */
static void
keep_text (CtParser *p,
           CtFrame *frame,
           guint32 tag,
           const CtToken *name,
           const CtToken *value,
           gsize value_end)
{
  const char *text = p->lexer.text;
  gsize name_off = (gsize) (name->start - text);
  gsize line_start = name_off - (name->column - 1);
  gsize indent = 0;
  ProtobufCMessageUnknownField field;
  CtKeptText kept = {
    .tag = tag,
    .anchor_id = frame->anchor.id,
    .anchor_count = frame->anchor.count,
    .line = name->line,
    .column = name->column,
    .error_line = value ? value->line : name->line,
    .error_column = value ? value->column : name->column,
    .name = name->start,
    .name_len = name->length,
    .text = name->start,
    .text_len = p->prev_end - name_off,
    .value = value ? value->start : "",
    .value_len = value ? value_end - (gsize) (value->start - text) : 0,
  };

  while (line_start + indent < name_off
         && (text[line_start + indent] == ' ' || text[line_start + indent] == '\t'))
    indent++;
  kept.indent = (guint32) indent;

  ct_kept_text_encode (&kept, &field);
  if (frame->kept == NULL)
    frame->kept = g_array_new (FALSE, FALSE, sizeof (ProtobufCMessageUnknownField));
  g_array_append_val (frame->kept, field);
}

/* ---- skipping what the schema does not know (lenient mode) ------------ */

static gboolean skip_message (CtParser *p, const CtToken *name);

static gboolean
skip_scalar (CtParser *p, const CtToken *name)
{
  if (p->tok.kind == CT_TOKEN_STRING)
    {
      while (p->tok.kind == CT_TOKEN_STRING)
        if (!advance (p))
          return FALSE;
      return TRUE;
    }
  if (is_symbol (p, '-') && !advance (p))
    return FALSE;
  if (p->tok.kind == CT_TOKEN_INT || p->tok.kind == CT_TOKEN_FLOAT || p->tok.kind == CT_TOKEN_IDENT)
    return advance (p);

  {
    g_autofree char *found = describe (&p->tok);
    return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                 _("missing value for field '%.*s', found %s"),
                 (int) name->length, name->start, found);
  }
}

static gboolean
skip_list (CtParser *p, const CtToken *name)
{
  CtToken open = p->tok;

  if (!advance (p))
    return FALSE;
  if (is_symbol (p, ']'))
    return advance (p);
  for (;;)
    {
      if (!(is_open (p) ? skip_message (p, name) : skip_scalar (p, name)))
        return FALSE;
      if (is_symbol (p, ']'))
        return advance (p);
      if (!is_symbol (p, ','))
        {
          g_autofree char *found = describe (&p->tok);
          return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                       _("expected ',' or ']' in the list of field '%.*s' (opened at %u:%u), found %s"),
                       (int) name->length, name->start, open.line, open.column, found);
        }
      if (!advance (p))
        return FALSE;
    }
}

static gboolean
skip_field_value (CtParser *p, const CtToken *name)
{
  if (is_symbol (p, ':'))
    {
      if (!advance (p))
        return FALSE;
      if (is_symbol (p, '['))
        return skip_list (p, name);
      if (is_open (p))
        return skip_message (p, name);
      return skip_scalar (p, name);
    }
  if (is_open (p))
    return skip_message (p, name);

  {
    g_autofree char *found = describe (&p->tok);
    return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                 _("expected ':' or '{' after field '%.*s', found %s"),
                 (int) name->length, name->start, found);
  }
}

static gboolean
skip_message (CtParser *p, const CtToken *name)
{
  CtToken open = p->tok;
  char close = open.symbol == '{' ? '}' : '>';
  gboolean ok = TRUE;

  if (p->depth >= CT_TEXT_MAX_DEPTH)
    return fail (p, name->line, name->column, CT_PROTO_ERROR_RANGE,
                 _("messages nested more than %d levels deep at field '%.*s'"),
                 CT_TEXT_MAX_DEPTH, (int) name->length, name->start);
  if (!advance (p))
    return FALSE;

  p->depth++;
  while (ok && !is_symbol (p, close))
    {
      CtToken inner = p->tok;

      if (p->tok.kind == CT_TOKEN_END)
        ok = fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                   _("expected '%c' to close '%.*s' (opened at %u:%u) but reached end of file"),
                   close, (int) name->length, name->start, name->line, name->column);
      else if (p->tok.kind != CT_TOKEN_IDENT)
        {
          g_autofree char *found = describe (&p->tok);
          ok = fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                     _("expected a field name or '%c' to close '%.*s' (opened at %u:%u), found %s"),
                     close, (int) name->length, name->start, name->line, name->column, found);
        }
      else
        ok = advance (p) && skip_field_value (p, &inner)
             && (!(is_symbol (p, ';') || is_symbol (p, ',')) || advance (p));
    }
  p->depth--;
  return ok && advance (p);
}

/* ---- scalar values --------------------------------------------------- */

static gboolean
fail_expected (CtParser *p,
               const ProtobufCMessageDescriptor *desc,
               const ProtobufCFieldDescriptor *f,
               const char *what)
{
  g_autofree char *found = describe (&p->tok);

  return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
               _("expected %s for %s field '%s' in %s, found %s"),
               what, type_name (f->type), f->name, desc->short_name, found);
}

static gboolean
fail_range (CtParser *p,
            const CtToken *first,
            const ProtobufCMessageDescriptor *desc,
            const ProtobufCFieldDescriptor *f)
{
  gsize end = (gsize) (p->tok.start - p->lexer.text) + p->tok.length;
  gsize start = (gsize) (first->start - p->lexer.text);

  return fail (p, first->line, first->column, CT_PROTO_ERROR_RANGE,
               _("value '%.*s' is out of range for %s field '%s' in %s"),
               (int) (end - start), first->start, type_name (f->type), f->name, desc->short_name);
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
  return value_size (type) == 8;
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

  if (is_symbol (p, '-'))
    {
      if (!is_signed_type (f->type))
        {
          fail (p, first.line, first.column, CT_PROTO_ERROR_RANGE,
                _("negative value for %s field '%s' in %s"),
                type_name (f->type), f->name, desc->short_name);
          return PARSED_FAIL;
        }
      negative = TRUE;
      if (!advance (p))
        return PARSED_FAIL;
    }
  if (p->tok.kind != CT_TOKEN_INT)
    {
      fail_expected (p, desc, f, _("an integer"));
      return PARSED_FAIL;
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
      return PARSED_FAIL;
    }

  if (is_64bit_type (f->type))
    out->u64 = negative ? (guint64) 0 - magnitude : magnitude;
  else
    out->u32 = negative ? (guint32) 0 - (guint32) magnitude : (guint32) magnitude;
  return advance (p) ? PARSED_OK : PARSED_FAIL;
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

  if (is_symbol (p, '-'))
    {
      negative = TRUE;
      if (!advance (p))
        return PARSED_FAIL;
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
            return PARSED_FAIL;
          }
        if (ct_lexer_parse_uint (&p->tok, &u))
          v = (double) u;
        else if (!ascii_to_double (p->tok.start, p->tok.length, &v))
          {
            fail_range (p, &first, desc, f);
            return PARSED_FAIL;
          }
      }
      break;
    case CT_TOKEN_FLOAT:
      if (!ascii_to_double (p->tok.start, p->tok.length, &v))
        {
          fail_range (p, &first, desc, f);
          return PARSED_FAIL;
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
          return PARSED_FAIL;
        }
      break;
    default:
      fail_expected (p, desc, f, _("a number"));
      return PARSED_FAIL;
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
      return PARSED_FAIL;
    }
  return advance (p) ? PARSED_OK : PARSED_FAIL;
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
        if (compare_name (t->start, t->length, words[i].word) == 0)
          {
            out->b = words[i].value;
            ok = TRUE;
          }
    }

  if (!ok)
    {
      g_autofree char *found = describe (t);
      fail (p, t->line, t->column, CT_PROTO_ERROR_TYPE,
            _("invalid value %s for bool field '%s' in %s (expected true or false)"),
            found, f->name, desc->short_name);
      return PARSED_FAIL;
    }
  return advance (p) ? PARSED_OK : PARSED_FAIL;
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
  else if (p->tok.kind == CT_TOKEN_INT || is_symbol (p, '-'))
    {
      gboolean negative = is_symbol (p, '-');
      guint64 magnitude;

      if (negative && !advance (p))
        return PARSED_FAIL;
      if (p->tok.kind != CT_TOKEN_INT)
        {
          fail_expected (p, desc, f, _("an enum value name or number"));
          return PARSED_FAIL;
        }
      if (ct_lexer_parse_uint (&p->tok, &magnitude)
          && magnitude <= (guint64) G_MAXINT32 + (negative ? 1 : 0))
        ev = protobuf_c_enum_descriptor_get_value (edesc,
                                                   negative ? (int) -(gint64) magnitude : (int) magnitude);
    }
  else
    {
      fail_expected (p, desc, f, _("an enum value name or number"));
      return PARSED_FAIL;
    }

  if (ev == NULL)
    {
      gsize end = (gsize) (p->tok.start - p->lexer.text) + p->tok.length;

      if (p->flags & CT_TEXT_LENIENT)
        {
          *bad_value = first;
          bad_value->length = end - (gsize) (first.start - p->lexer.text);
          return advance (p) ? PARSED_UNKNOWN_ENUM : PARSED_FAIL;
        }
      fail (p, first.line, first.column, CT_PROTO_ERROR_UNKNOWN_FIELD,
            _("invalid value '%.*s' for enum field '%s' in %s"),
            (int) (end - (gsize) (first.start - p->lexer.text)), first.start,
            f->name, desc->short_name);
      return PARSED_FAIL;
    }
  out->i32 = ev->value;
  return advance (p) ? PARSED_OK : PARSED_FAIL;
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
      return PARSED_FAIL;
    }

  /* Adjacent literals concatenate: "a" 'b' is "ab". */
  g_string_truncate (p->scratch, 0);
  while (p->tok.kind == CT_TOKEN_STRING)
    {
      ct_lexer_append_string (&p->tok, p->scratch);
      if (!advance (p))
        return PARSED_FAIL;
    }

  if (f->type == PROTOBUF_C_TYPE_BYTES)
    {
      out->bytes.len = p->scratch->len;
      out->bytes.data = p->scratch->len > 0 ? g_memdup2 (p->scratch->str, p->scratch->len) : NULL;
      return PARSED_OK;
    }
  if (memchr (p->scratch->str, '\0', p->scratch->len) != NULL)
    {
      /* protobuf-c keeps strings NUL-terminated; bytes fields can hold NULs. */
      fail (p, first.line, first.column, CT_PROTO_ERROR_TYPE,
            _("string field '%s' in %s cannot contain a NUL character"),
            f->name, desc->short_name);
      return PARSED_FAIL;
    }
  out->s = g_strndup (p->scratch->str, p->scratch->len);
  return PARSED_OK;
}

static CtParsed
parse_scalar (CtParser *p,
              const ProtobufCMessageDescriptor *desc,
              const ProtobufCFieldDescriptor *f,
              CtValue *out,
              CtToken *bad_value)
{
  if (is_open (p))
    {
      fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
            _("field '%s' in %s holds a %s, not a message"),
            f->name, desc->short_name, type_name (f->type));
      return PARSED_FAIL;
    }
  if (p->tok.kind == CT_TOKEN_END || (p->tok.kind == CT_TOKEN_SYMBOL && !is_symbol (p, '-')))
    {
      g_autofree char *found = describe (&p->tok);
      fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
            _("missing value for %s field '%s' in %s, found %s"),
            type_name (f->type), f->name, desc->short_name, found);
      return PARSED_FAIL;
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
      g_return_val_if_reached (PARSED_FAIL);
    default:
      return parse_integer (p, desc, f, out);
    }
}

/* ---- fields and messages --------------------------------------------- */

static gboolean parse_fields (CtParser *p,
                              ProtobufCMessage *msg,
                              char close,
                              const CtToken *open,
                              const char *open_name);

static gboolean
parse_message_value (CtParser *p,
                     CtFrame *frame,
                     const ProtobufCFieldDescriptor *f,
                     const CtToken *name)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  const ProtobufCMessageDescriptor *sub_desc = f->descriptor;
  ProtobufCMessage **slot;
  CtToken open = p->tok;
  gboolean ok;

  if (!is_open (p))
    {
      g_autofree char *found = describe (&p->tok);
      return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                   _("field '%s' in %s is a message (%s): expected '{', found %s"),
                   f->name, desc->short_name, sub_desc->short_name, found);
    }
  if (p->depth >= CT_TEXT_MAX_DEPTH)
    return fail (p, name->line, name->column, CT_PROTO_ERROR_RANGE,
                 _("messages nested more than %d levels deep at field '%s' in %s"),
                 CT_TEXT_MAX_DEPTH, f->name, desc->short_name);
  if (!advance (p))
    return FALSE;

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    slot = append_slot (frame->msg, f);
  else
    slot = single_slot (frame->msg, f);
  *slot = new_message (sub_desc);

  p->depth++;
  ok = parse_fields (p, *slot, open.symbol == '{' ? '}' : '>', name, f->name);
  p->depth--;
  return ok;
}

static gboolean
parse_message_list (CtParser *p,
                    CtFrame *frame,
                    const ProtobufCFieldDescriptor *f,
                    const CtToken *name)
{
  CtToken open = p->tok;

  if (!advance (p))
    return FALSE;
  if (is_symbol (p, ']'))
    return advance (p);
  for (;;)
    {
      if (!parse_message_value (p, frame, f, name))
        return FALSE;
      if (is_symbol (p, ']'))
        return advance (p);
      if (!is_symbol (p, ','))
        {
          g_autofree char *found = describe (&p->tok);
          return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                       _("expected ',' or ']' in the list of field '%s' in %s (opened at %u:%u), found %s"),
                       f->name, frame->msg->descriptor->short_name, open.line, open.column, found);
        }
      if (!advance (p))
        return FALSE;
    }
}

static void
store_value (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f, const CtValue *value)
{
  void *slot;

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    slot = append_slot (msg, f);
  else
    slot = single_slot (msg, f);
  /* Every union member starts at offset 0, so the bytes are the value. */
  memcpy (slot, value, value_size (f->type));
}

/* `name: [a, b, ...]` for a repeated scalar field. In lenient mode a list
 * holding an unknown enum value is kept whole as text. */
static gboolean
parse_scalar_list (CtParser *p,
                   CtFrame *frame,
                   const ProtobufCFieldDescriptor *f,
                   const CtToken *name)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  gsize n_before = repeated_count (frame->msg, f);
  CtToken open = p->tok;
  CtToken bad = { 0 }, first_bad = { 0 };
  gboolean have_bad = FALSE;

  if (!advance (p))
    return FALSE;
  if (!is_symbol (p, ']'))
    for (;;)
      {
        CtValue value;

        switch (parse_scalar (p, desc, f, &value, &bad))
          {
          case PARSED_FAIL:
            return FALSE;
          case PARSED_UNKNOWN_ENUM:
            if (!have_bad)
              first_bad = bad;
            have_bad = TRUE;
            break;
          case PARSED_OK:
            store_value (frame->msg, f, &value);
            break;
          default:
            g_return_val_if_reached (FALSE);
          }
        if (is_symbol (p, ']'))
          break;
        if (!is_symbol (p, ','))
          {
            g_autofree char *found = describe (&p->tok);
            if (p->tok.kind == CT_TOKEN_END)
              return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                           _("expected ']' to close the list of field '%s' in %s (opened at %u:%u) but reached end of file"),
                           f->name, desc->short_name, open.line, open.column);
            return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                         _("expected ',' or ']' in the list of field '%s' in %s (opened at %u:%u), found %s"),
                         f->name, desc->short_name, open.line, open.column, found);
          }
        if (!advance (p))
          return FALSE;
      }
  if (!advance (p))
    return FALSE;

  if (have_bad)
    {
      /* Enum values are plain ints: dropping them frees nothing. */
      *(gsize *) ((char *) frame->msg + f->quantifier_offset) = n_before;
      keep_text (p, frame, CT_KEPT_TAG_ENUM_VALUE, name, &first_bad,
                 (gsize) (first_bad.start - p->lexer.text) + first_bad.length);
      return TRUE;
    }
  frame->anchor.id = f->id;
  frame->anchor.count = (guint32) repeated_count (frame->msg, f);
  return TRUE;
}

static gboolean
check_oneof (CtParser *p, CtFrame *frame, const ProtobufCFieldDescriptor *f, const CtToken *name)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  guint32 chosen;
  const ProtobufCFieldDescriptor *other;

  if (!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
    return TRUE;
  chosen = *(guint32 *) ((char *) frame->msg + f->quantifier_offset);
  if (chosen == 0 || chosen == f->id)
    return TRUE;
  other = protobuf_c_message_descriptor_get_field (desc, chosen);
  return fail (p, name->line, name->column, CT_PROTO_ERROR_INVALID,
               _("field '%s' in %s is given along with field '%s' of the same oneof"),
               f->name, desc->short_name, other ? other->name : "?");
}

static gboolean
parse_known_field (CtParser *p, CtFrame *frame, const ProtobufCFieldDescriptor *f)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  gboolean repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
  guint index = (guint) (f - desc->fields);
  CtToken name = p->tok;

  if (!repeated && frame->seen[index])
    return fail (p, name.line, name.column, CT_PROTO_ERROR_INVALID,
                 _("non-repeated field '%s' in %s is specified multiple times"),
                 f->name, desc->short_name);
  if (!check_oneof (p, frame, f, &name) || !advance (p))
    return FALSE;

  if (f->type == PROTOBUF_C_TYPE_MESSAGE)
    {
      if (is_symbol (p, ':') && !advance (p))
        return FALSE;
      if (is_symbol (p, '[') && repeated)
        {
          if (!parse_message_list (p, frame, f, &name))
            return FALSE;
        }
      else if (!parse_message_value (p, frame, f, &name))
        return FALSE;
    }
  else
    {
      if (!is_symbol (p, ':'))
        {
          g_autofree char *found = describe (&p->tok);

          if (is_open (p))
            return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                         _("field '%s' in %s holds a %s, not a message"),
                         f->name, desc->short_name, type_name (f->type));
          return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                       _("expected ':' after field '%s' in %s, found %s"),
                       f->name, desc->short_name, found);
        }
      if (!advance (p))
        return FALSE;

      if (is_symbol (p, '['))
        {
          if (!repeated)
            return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                         _("field '%s' in %s is not repeated: a [ ] list is not allowed"),
                         f->name, desc->short_name);
          return parse_scalar_list (p, frame, f, &name);
        }
      else
        {
          CtValue value;
          CtToken bad;

          switch (parse_scalar (p, desc, f, &value, &bad))
            {
            case PARSED_FAIL:
              return FALSE;
            case PARSED_UNKNOWN_ENUM:
              keep_text (p, frame, CT_KEPT_TAG_ENUM_VALUE, &name, &bad,
                         (gsize) (bad.start - p->lexer.text) + bad.length);
              return TRUE;
            case PARSED_OK:
              store_value (frame->msg, f, &value);
              break;
            default:
              g_return_val_if_reached (FALSE);
            }
        }
    }

  frame->seen[index] = TRUE;
  frame->anchor.id = f->id;
  frame->anchor.count = repeated ? (guint32) repeated_count (frame->msg, f) : 1;
  return TRUE;
}

static gboolean
parse_unknown_field (CtParser *p, CtFrame *frame)
{
  CtToken name = p->tok;

  if (!(p->flags & CT_TEXT_LENIENT))
    return fail (p, name.line, name.column, CT_PROTO_ERROR_UNKNOWN_FIELD,
                 _("unknown field '%.*s' in %s"),
                 (int) name.length, name.start, frame->msg->descriptor->short_name);

  if (!advance (p) || !skip_field_value (p, &name))
    return FALSE;
  keep_text (p, frame, CT_KEPT_TAG_FIELD, &name, NULL, 0);
  return TRUE;
}

static gboolean
parse_one_field (CtParser *p, CtFrame *frame, char close, const CtToken *open, const char *open_name)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  const ProtobufCFieldDescriptor *f;

  if (p->tok.kind != CT_TOKEN_IDENT)
    {
      g_autofree char *found = describe (&p->tok);

      if (is_symbol (p, '}') || is_symbol (p, '>'))
        {
          if (close == '\0')
            return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                         _("unexpected '%c' in %s: no message is open"),
                         p->tok.symbol, desc->short_name);
          return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                       _("expected '%c' to close '%s' (opened at %u:%u) but found '%c'"),
                       close, open_name, open->line, open->column, p->tok.symbol);
        }
      if (is_symbol (p, '['))
        return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                     _("extension and Any fields ('[...]') are not supported in %s"),
                     desc->short_name);
      return fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                   _("expected a field name in %s, found %s"), desc->short_name, found);
    }

  f = find_field (desc, p->tok.start, p->tok.length);
  if (f == NULL)
    return parse_unknown_field (p, frame);
  return parse_known_field (p, frame, f);
}

/* Fill MSG with fields until CLOSE ('}' or '>', or '\0' for end of file)
 * and consume the closing token. OPEN (the field name token) and OPEN_NAME
 * say where the message was opened, for error messages. */
static gboolean
parse_fields (CtParser *p,
              ProtobufCMessage *msg,
              char close,
              const CtToken *open,
              const char *open_name)
{
  guint8 small_seen[128];
  CtFrame frame = { .msg = msg };
  gboolean ok = TRUE;

  if (msg->descriptor->n_fields <= sizeof small_seen)
    {
      frame.seen = small_seen;
      memset (small_seen, 0, msg->descriptor->n_fields);
    }
  else
    frame.seen = g_malloc0 (msg->descriptor->n_fields);

  for (;;)
    {
      if (p->tok.kind == CT_TOKEN_END)
        {
          if (close != '\0')
            ok = fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                       _("expected '%c' to close '%s' (opened at %u:%u) but reached end of file"),
                       close, open_name, open->line, open->column);
          break;
        }
      if (close != '\0' && is_symbol (p, close))
        {
          ok = advance (p);
          break;
        }
      if (!parse_one_field (p, &frame, close, open, open_name))
        {
          ok = FALSE;
          break;
        }
      if ((is_symbol (p, ';') || is_symbol (p, ',')) && !advance (p))
        {
          ok = FALSE;
          break;
        }
    }

  /* Kept text is attached even on failure: the message owns it either way. */
  if (frame.kept != NULL)
    {
      ct_unknown_fields_append (msg, (ProtobufCMessageUnknownField *) (void *) frame.kept->data,
                                frame.kept->len);
      g_array_free (frame.kept, TRUE);
    }
  if (frame.seen != small_seen)
    g_free (frame.seen);
  return ok;
}

ProtobufCMessage *
ct_text_parse (const ProtobufCMessageDescriptor *desc,
               const char *text,
               gssize length,
               const char *filename,
               CtTextFlags flags,
               GError **error)
{
  CtParser p = { 0 };
  ProtobufCMessage *msg;
  gboolean ok;

  g_return_val_if_fail (desc != NULL, NULL);
  g_return_val_if_fail (text != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (text == NULL)
    text = "";
  if (length < 0)
    length = (gssize) strlen (text);

  ct_lexer_init (&p.lexer, text, (gsize) length);
  p.tok.start = text;
  p.filename = filename != NULL ? filename : "<input>";
  p.flags = flags;
  p.scratch = g_string_new (NULL);

  msg = new_message (desc);
  ok = advance (&p) && parse_fields (&p, msg, '\0', NULL, NULL);

  g_string_free (p.scratch, TRUE);
  ct_lexer_clear (&p.lexer);
  if (!ok)
    {
      protobuf_c_message_free_unpacked (msg, NULL);
      g_propagate_error (error, p.error);
      return NULL;
    }
  return msg;
}

ProtobufCMessage *
ct_text_parse_file (const ProtobufCMessageDescriptor *desc,
                    const char *path,
                    CtTextFlags flags,
                    GError **error)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) local = NULL;
  gsize length = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                   _("%s: cannot read file: %s"), path, local->message);
      return NULL;
    }
  if (length > (gsize) G_MAXSSIZE)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_TOO_LARGE,
                   _("%s: file is too large"), path);
      return NULL;
    }
  return ct_text_parse (desc, contents, (gssize) length, path, flags, error);
}
