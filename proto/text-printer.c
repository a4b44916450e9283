/* text-printer.c: the prototxt printer.
 *
 * Writes byte for byte what `protoc --decode` (protobuf 3.21) writes: two
 * spaces of indent per level, `name: value` and `name {` ... `}`, fields in
 * field-number order and only those that are set, enums by name, strings
 * C-escaped with octal for anything outside printable ASCII, floats in the
 * shortest of %.6g / %.9g (doubles %.15g / %.17g) that reads back exactly,
 * and unknown wire fields last, by number. Numbers are formatted in the C
 * locale whatever the process locale is.
 *
 * Text kept by a lenient parse goes back after the known field that
 * preceded it in the source, re-indented to its new depth. */
#include "text-format.h"
#include "reflect.h"
#include "text-unknown-private.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_message (GString *out, const ProtobufCMessage *msg, guint indent);

static inline void
put_indent (GString *out, guint indent)
{
  static const char spaces[] = "                                ";

  while (indent > 0)
    {
      guint n = MIN (indent, sizeof spaces - 1);

      g_string_append_len (out, spaces, n);
      indent -= n;
    }
}

/* ---- values ---------------------------------------------------------- */

static void
put_escaped (GString *out, const guint8 *s, gsize n)
{
  static const char octal[] = "01234567";
  gsize i = 0;

  while (i < n)
    {
      gsize run = i;
      guint8 c;

      while (i < n && s[i] >= 0x20 && s[i] < 0x7F && s[i] != '"' && s[i] != '\'' && s[i] != '\\')
        i++;
      if (i > run)
        g_string_append_len (out, (const char *) s + run, i - run);
      if (i >= n)
        break;

      c = s[i++];
      switch (c)
        {
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '"': g_string_append (out, "\\\""); break;
        case '\'': g_string_append (out, "\\'"); break;
        case '\\': g_string_append (out, "\\\\"); break;
        default:
          g_string_append_c (out, '\\');
          g_string_append_c (out, octal[c >> 6]);
          g_string_append_c (out, octal[(c >> 3) & 7]);
          g_string_append_c (out, octal[c & 7]);
          break;
        }
    }
}

/* Reading a float back needs strtof itself (a detour through double can
 * round differently), run in the C locale: uselocale is per thread, so this
 * never disturbs the rest of the process. */
static locale_t
c_locale (void)
{
  static gsize once = 0;
  static locale_t loc;

  if (g_once_init_enter (&once))
    {
      loc = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
      g_once_init_leave (&once, 1);
    }
  return loc;
}

static void
put_float (GString *out, float v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  locale_t saved;
  gboolean failed;
  char *end;
  float back;

  if (isnan (v))
    {
      g_string_append (out, "nan");
      return;
    }
  if (isinf (v))
    {
      g_string_append (out, v > 0 ? "inf" : "-inf");
      return;
    }

  /* The shortest of 6 or 9 significant digits that reads back as the same
   * float. A read-back that underflows (errno set) counts as failed. */
  g_ascii_formatd (buf, sizeof buf, "%.6g", v);
  saved = uselocale (c_locale ());
  errno = 0;
  back = strtof (buf, &end);
  failed = *end != '\0' || errno != 0 || back != v;
  uselocale (saved);
  if (failed)
    g_ascii_formatd (buf, sizeof buf, "%.9g", v);
  g_string_append (out, buf);
}

static void
put_double (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    {
      g_string_append (out, "nan");
      return;
    }
  if (isinf (v))
    {
      g_string_append (out, v > 0 ? "inf" : "-inf");
      return;
    }
  g_ascii_formatd (buf, sizeof buf, "%.15g", v);
  if (g_ascii_strtod (buf, NULL) != v)
    g_ascii_formatd (buf, sizeof buf, "%.17g", v);
  g_string_append (out, buf);
}

static void
put_scalar (GString *out, const ProtobufCFieldDescriptor *f, const void *value)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      g_string_append_printf (out, "%" G_GINT32_FORMAT, *(const gint32 *) value);
      break;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      g_string_append_printf (out, "%" G_GUINT32_FORMAT, *(const guint32 *) value);
      break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, *(const gint64 *) value);
      break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      g_string_append_printf (out, "%" G_GUINT64_FORMAT, *(const guint64 *) value);
      break;
    case PROTOBUF_C_TYPE_FLOAT:
      put_float (out, *(const float *) value);
      break;
    case PROTOBUF_C_TYPE_DOUBLE:
      put_double (out, *(const double *) value);
      break;
    case PROTOBUF_C_TYPE_BOOL:
      g_string_append (out, *(const protobuf_c_boolean *) value ? "true" : "false");
      break;
    case PROTOBUF_C_TYPE_ENUM:
      {
        gint32 number = *(const gint32 *) value;
        const ProtobufCEnumValue *ev =
          protobuf_c_enum_descriptor_get_value (f->descriptor, number);

        if (ev != NULL)
          g_string_append (out, ev->name);
        else
          g_string_append_printf (out, "%" G_GINT32_FORMAT, number);
      }
      break;
    case PROTOBUF_C_TYPE_STRING:
      {
        const char *s = *(char * const *) value;

        g_string_append_c (out, '"');
        if (s != NULL)
          put_escaped (out, (const guint8 *) s, strlen (s));
        g_string_append_c (out, '"');
      }
      break;
    case PROTOBUF_C_TYPE_BYTES:
      {
        const ProtobufCBinaryData *b = value;

        g_string_append_c (out, '"');
        if (b->data != NULL)
          put_escaped (out, b->data, b->len);
        g_string_append_c (out, '"');
      }
      break;
    default:
      break;
    }
}

/* ---- fields ---------------------------------------------------------- */

static void
print_element (GString *out, const ProtobufCFieldDescriptor *f, const void *value, guint indent)
{
  put_indent (out, indent);
  g_string_append (out, f->name);
  if (f->type == PROTOBUF_C_TYPE_MESSAGE)
    {
      const ProtobufCMessage *sub = *(const ProtobufCMessage * const *) value;

      g_string_append (out, " {\n");
      if (sub != NULL)
        print_message (out, sub, indent + 2);
      put_indent (out, indent);
      g_string_append (out, "}\n");
    }
  else
    {
      g_string_append (out, ": ");
      put_scalar (out, f, value);
      g_string_append_c (out, '\n');
    }
}

/* ---- kept unknown text ----------------------------------------------- */

typedef struct {
  CtKeptText kept;
  guint position;   /* 0: before every field; i + 1: after field i */
  guint sequence;   /* source order among kept texts with the same anchor */
} CtPlacedText;

/* Write TEXT at INDENT: its first line as is, later lines with their
 * original indentation (up to the name line's) replaced by INDENT. */
static void
print_kept (GString *out, const CtKeptText *kept, guint indent)
{
  const char *p = kept->text;
  const char *end = kept->text + kept->text_len;
  gboolean first = TRUE;

  for (;;)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      const char *line_end = nl != NULL ? nl : end;

      if (!first)
        for (guint i = 0; i < kept->indent && p < line_end && (*p == ' ' || *p == '\t'); i++)
          p++;
      if (line_end > p)
        {
          put_indent (out, indent);
          g_string_append_len (out, p, line_end - p);
        }
      g_string_append_c (out, '\n');
      first = FALSE;
      if (nl == NULL)
        break;
      p = nl + 1;
    }
}

static gint
compare_placed (gconstpointer a, gconstpointer b)
{
  const CtPlacedText *x = a, *y = b;

  if (x->position != y->position)
    return x->position < y->position ? -1 : 1;
  if (x->kept.anchor_count != y->kept.anchor_count)
    return x->kept.anchor_count < y->kept.anchor_count ? -1 : 1;
  return x->sequence < y->sequence ? -1 : (x->sequence > y->sequence);
}

/* MSG's kept texts in the order they print. NULL when there are none. */
static GArray *
placed_texts (const ProtobufCMessage *msg)
{
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  GArray *placed = NULL;

  for (guint i = 0; i < msg->n_unknown_fields; i++)
    {
      CtPlacedText t = { .sequence = i };
      const ProtobufCFieldDescriptor *f;

      if (!ct_kept_text_decode (&msg->unknown_fields[i], &t.kept))
        continue;
      if (t.kept.anchor_id == 0)
        t.position = 0;
      else if ((f = protobuf_c_message_descriptor_get_field (desc, t.kept.anchor_id)) != NULL)
        t.position = (guint) (f - desc->fields) + 1;
      else
        t.position = desc->n_fields + 1;
      if (placed == NULL)
        placed = g_array_new (FALSE, FALSE, sizeof (CtPlacedText));
      g_array_append_val (placed, t);
    }
  if (placed != NULL)
    g_array_sort (placed, compare_placed);
  return placed;
}

/* ---- unknown wire fields, as protobuf prints them --------------------- */

/* protobuf tries to read a length-delimited unknown field as a message this
 * many levels deep before printing it as a string. */
#define CT_WIRE_RECURSION_BUDGET 10

static gboolean
read_varint (const guint8 **p, const guint8 *end, guint64 *value)
{
  guint64 v = 0;

  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 b;

      if (*p >= end)
        return FALSE;
      b = *(*p)++;
      v |= (guint64) (b & 0x7F) << shift;
      if ((b & 0x80) == 0)
        {
          *value = v;
          return TRUE;
        }
    }
  return FALSE;
}

typedef struct {
  guint32 number;
  guint wire;
  guint64 value;        /* varint, fixed32, fixed64 */
  const guint8 *data;   /* length-delimited payload or group body */
  gsize len;
} CtWireField;

/* Read one field at *P. For groups, DATA..LEN is the body up to the
 * matching end tag. FALSE on anything protobuf would refuse. */
static gboolean
read_wire_field (const guint8 **p, const guint8 *end, guint depth, CtWireField *field);

static gboolean
wire_fields_valid (const guint8 *p, const guint8 *end, guint depth)
{
  while (p < end)
    {
      CtWireField field;

      if (!read_wire_field (&p, end, depth, &field))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_wire_field (const guint8 **p, const guint8 *end, guint depth, CtWireField *field)
{
  guint64 tag;

  if (!read_varint (p, end, &tag) || tag > G_MAXUINT32 || (tag >> 3) == 0)
    return FALSE;
  field->number = (guint32) (tag >> 3);
  field->wire = (guint) (tag & 7);
  switch (field->wire)
    {
    case 0:
      return read_varint (p, end, &field->value);
    case 1:
      if (end - *p < 8)
        return FALSE;
      memcpy (&field->value, *p, 8);
      field->value = GUINT64_FROM_LE (field->value);
      *p += 8;
      return TRUE;
    case 5:
      {
        guint32 v;

        if (end - *p < 4)
          return FALSE;
        memcpy (&v, *p, 4);
        field->value = GUINT32_FROM_LE (v);
        *p += 4;
        return TRUE;
      }
    case 2:
      {
        guint64 len;

        if (!read_varint (p, end, &len) || len > (guint64) G_MAXINT32 || len > (guint64) (end - *p))
          return FALSE;
        field->data = *p;
        field->len = (gsize) len;
        *p += len;
        return TRUE;
      }
    case 3:
      {
        if (depth == 0)
          return FALSE;
        field->data = *p;
        for (;;)
          {
            const guint8 *at = *p;
            guint64 inner;
            CtWireField sub;

            if (!read_varint (&at, end, &inner))
              return FALSE;
            if ((inner & 7) == 4)
              {
                if ((inner >> 3) != field->number)
                  return FALSE;
                field->len = (gsize) (*p - field->data);
                *p = at;
                return TRUE;
              }
            if (!read_wire_field (p, end, depth - 1, &sub))
              return FALSE;
          }
      }
    default:
      return FALSE;
    }
}

static void print_wire_fields (GString *out, const guint8 *p, const guint8 *end,
                               guint indent, guint budget);

static void
print_wire_field (GString *out, const CtWireField *field, guint indent, guint budget)
{
  put_indent (out, indent);
  g_string_append_printf (out, "%" G_GUINT32_FORMAT, field->number);
  switch (field->wire)
    {
    case 0:
      g_string_append_printf (out, ": %" G_GUINT64_FORMAT "\n", field->value);
      break;
    case 1:
      g_string_append_printf (out, ": 0x%016" G_GINT64_MODIFIER "x\n", field->value);
      break;
    case 5:
      g_string_append_printf (out, ": 0x%08" G_GINT64_MODIFIER "x\n", field->value);
      break;
    case 2:
      if (field->len > 0 && budget > 0
          && wire_fields_valid (field->data, field->data + field->len, budget - 1))
        {
          g_string_append (out, " {\n");
          print_wire_fields (out, field->data, field->data + field->len, indent + 2, budget - 1);
          put_indent (out, indent);
          g_string_append (out, "}\n");
        }
      else
        {
          g_string_append (out, ": \"");
          put_escaped (out, field->data, field->len);
          g_string_append (out, "\"\n");
        }
      break;
    case 3:
      g_string_append (out, " {\n");
      print_wire_fields (out, field->data, field->data + field->len, indent + 2, budget);
      put_indent (out, indent);
      g_string_append (out, "}\n");
      break;
    default:
      break;
    }
}

static void
print_wire_fields (GString *out, const guint8 *p, const guint8 *end, guint indent, guint budget)
{
  while (p < end)
    {
      CtWireField field;

      if (!read_wire_field (&p, end, budget, &field))
        return;
      print_wire_field (out, &field, indent, budget);
    }
}

/* A protobuf-c unknown field holds the bytes after the tag. */
static void
print_unknown_field (GString *out, const ProtobufCMessageUnknownField *uf, guint indent)
{
  const guint8 *p = uf->data;
  const guint8 *end = uf->data + uf->len;
  CtWireField field = { .number = uf->tag, .wire = uf->wire_type };

  switch (uf->wire_type)
    {
    case PROTOBUF_C_WIRE_TYPE_VARINT:
      if (!read_varint (&p, end, &field.value))
        return;
      break;
    case PROTOBUF_C_WIRE_TYPE_64BIT:
      if (uf->len != 8)
        return;
      memcpy (&field.value, p, 8);
      field.value = GUINT64_FROM_LE (field.value);
      break;
    case PROTOBUF_C_WIRE_TYPE_32BIT:
      {
        guint32 v;

        if (uf->len != 4)
          return;
        memcpy (&v, p, 4);
        field.value = GUINT32_FROM_LE (v);
      }
      break;
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
      {
        guint64 len;

        if (!read_varint (&p, end, &len) || len != (guint64) (end - p))
          return;
        field.data = p;
        field.len = (gsize) len;
      }
      break;
    default:
      return;
    }
  print_wire_field (out, &field, indent, CT_WIRE_RECURSION_BUDGET);
}

/* ---- messages -------------------------------------------------------- */

static void
print_message (GString *out, const ProtobufCMessage *msg, guint indent)
{
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  g_autoptr (GArray) placed = placed_texts (msg);
  guint next = 0;

#define PUT_KEPT_WHILE(cond)                                              \
  while (placed != NULL && next < placed->len)                            \
    {                                                                     \
      const CtPlacedText *t = &g_array_index (placed, CtPlacedText, next); \
      if (!(cond))                                                        \
        break;                                                            \
      print_kept (out, &t->kept, indent);                                 \
      next++;                                                             \
    }

  PUT_KEPT_WHILE (t->position == 0);

  for (guint i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &desc->fields[i];
      /* Presence as protobuf-c packs it, so that what prints is what packs. */
      gsize count = ct_proto_field_count (msg, f);

      for (gsize k = 0; k <= count; k++)
        {
          PUT_KEPT_WHILE (t->position == i + 1 && t->kept.anchor_count <= k);
          if (k < count)
            print_element (out, f, ct_proto_field_element (msg, f, k), indent);
        }
      PUT_KEPT_WHILE (t->position == i + 1);
    }
  PUT_KEPT_WHILE (TRUE);
#undef PUT_KEPT_WHILE

  for (guint i = 0; i < msg->n_unknown_fields; i++)
    {
      CtKeptText kept;

      if (!ct_kept_text_decode (&msg->unknown_fields[i], &kept))
        print_unknown_field (out, &msg->unknown_fields[i], indent);
    }
}

char *
ct_text_print (const ProtobufCMessage *msg)
{
  GString *out;

  g_return_val_if_fail (msg != NULL, g_strdup (""));

  out = g_string_sized_new (4096);
  print_message (out, msg, 0);
  return g_string_free (out, FALSE);
}
