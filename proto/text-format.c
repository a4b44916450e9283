/* text-format.c: the prototxt parser.
 *
 * A recursive-descent parser that fills protobuf-c messages straight from
 * their descriptors, so one parser serves every message type. It accepts
 * what protobuf's text format accepts (see text-format.h) and reports every
 * problem as "FILE:LINE:COLUMN: what", naming the field and the message
 * type. Lines and columns are 1-based; columns count bytes.
 *
 * This file reads fields and messages; scalar values are read in
 * text-scalar.c, and what lenient mode keeps as text in text-lenient.c.
 *
 * Messages are attached to their parent before their body is parsed and
 * repeated arrays are always consistent, so on any error freeing the root
 * frees everything parsed so far. Repeated arrays grow geometrically. */
#include "text-format.h"
#include "text-parser-private.h"
#include "text-unknown-private.h"
#include "proto-error.h"
#include "reflect.h"

#include <string.h>
#include <glib/gi18n-lib.h>

/* ---- errors ---------------------------------------------------------- */

gboolean
ct_parser_fail (CtParser *p,
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
  ct_proto_error_set_position (&p->error, line, column);
  return FALSE;
}

char *
ct_parser_describe (const CtToken *t)
{
  const gsize max = 40;

  if (t->kind == CT_TOKEN_END)
    return g_strdup (_("end of file"));
  if (t->length > max)
    return g_strdup_printf ("'%.*s...'", (int) max, t->start);
  return g_strdup_printf ("'%.*s'", (int) t->length, t->start);
}

/* ---- tokens ---------------------------------------------------------- */

gboolean
ct_parser_advance (CtParser *p)
{
  p->prev_end = (gsize) (p->tok.start - p->lexer.text) + p->tok.length;
  ct_lexer_next (&p->lexer, &p->tok);
  if (p->tok.kind == CT_TOKEN_ERROR)
    return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX, "%s",
                           p->lexer.error);
  return TRUE;
}

int
ct_text_compare_name (const char *s, gsize len, const char *name)
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
      int c = ct_text_compare_name (name, len, f->name);

      if (c == 0)
        return f;
      if (c < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  return NULL;
}

/* ---- message storage ------------------------------------------------- */

/* A zeroed slot at the end of repeated field F. The capacity is implied by
 * the count (4, then the next power of two), so arrays grow geometrically
 * without a side table; every array here starts empty from message_init.
 * (ct_proto_field_append grows by one: it must also serve arrays that
 * protobuf-c unpacked, whose capacity is exactly their count.) */
static void *
append_slot (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  size_t *n = ct_proto_field_quantifier (msg, f);
  char **items = ct_proto_field_member (msg, f);
  gsize size = ct_proto_type_size (f->type);
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
  ct_proto_field_set_present (msg, f, TRUE);
  return ct_proto_field_member (msg, f);
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

  if (!ct_parser_is_open (p))
    {
      g_autofree char *found = ct_parser_describe (&p->tok);
      return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                             _("field '%s' in %s is a message (%s): expected '{', found %s"),
                             f->name, desc->short_name, sub_desc->short_name, found);
    }
  if (p->depth >= CT_TEXT_MAX_DEPTH)
    return ct_parser_fail (p, name->line, name->column, CT_PROTO_ERROR_RANGE,
                           _("messages nested more than %d levels deep at field '%s' in %s"),
                           CT_TEXT_MAX_DEPTH, f->name, desc->short_name);
  if (!ct_parser_advance (p))
    return FALSE;

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    slot = append_slot (frame->msg, f);
  else
    slot = single_slot (frame->msg, f);
  *slot = ct_proto_message_new (sub_desc);

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

  if (!ct_parser_advance (p))
    return FALSE;
  if (ct_parser_is_symbol (p, ']'))
    return ct_parser_advance (p);
  for (;;)
    {
      if (!parse_message_value (p, frame, f, name))
        return FALSE;
      if (ct_parser_is_symbol (p, ']'))
        return ct_parser_advance (p);
      if (!ct_parser_is_symbol (p, ','))
        {
          g_autofree char *found = ct_parser_describe (&p->tok);
          return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                 _("expected ',' or ']' in the list of field '%s' in %s (opened at %u:%u), found %s"),
                                 f->name, frame->msg->descriptor->short_name,
                                 open.line, open.column, found);
        }
      if (!ct_parser_advance (p))
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
  memcpy (slot, value, ct_proto_type_size (f->type));
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
  gsize n_before = ct_proto_field_count (frame->msg, f);
  CtToken open = p->tok;
  CtToken bad = { 0 }, first_bad = { 0 };
  gboolean have_bad = FALSE;

  if (!ct_parser_advance (p))
    return FALSE;
  if (!ct_parser_is_symbol (p, ']'))
    for (;;)
      {
        CtValue value;

        switch (ct_parser_parse_scalar (p, desc, f, &value, &bad))
          {
          case CT_PARSED_FAIL:
            return FALSE;
          case CT_PARSED_UNKNOWN_ENUM:
            if (!have_bad)
              first_bad = bad;
            have_bad = TRUE;
            break;
          case CT_PARSED_OK:
            store_value (frame->msg, f, &value);
            break;
          default:
            g_return_val_if_reached (FALSE);
          }
        if (ct_parser_is_symbol (p, ']'))
          break;
        if (!ct_parser_is_symbol (p, ','))
          {
            g_autofree char *found = ct_parser_describe (&p->tok);
            if (p->tok.kind == CT_TOKEN_END)
              return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                     _("expected ']' to close the list of field '%s' in %s (opened at %u:%u) but reached end of file"),
                                     f->name, desc->short_name, open.line, open.column);
            return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                   _("expected ',' or ']' in the list of field '%s' in %s (opened at %u:%u), found %s"),
                                   f->name, desc->short_name, open.line, open.column, found);
          }
        if (!ct_parser_advance (p))
          return FALSE;
      }
  if (!ct_parser_advance (p))
    return FALSE;

  if (have_bad)
    {
      /* Enum values are plain ints: dropping them frees nothing. */
      *(size_t *) ct_proto_field_quantifier (frame->msg, f) = n_before;
      ct_parser_keep_text (p, frame, CT_KEPT_TAG_ENUM_VALUE, name, &first_bad,
                           (gsize) (first_bad.start - p->lexer.text) + first_bad.length);
      return TRUE;
    }
  frame->anchor.id = f->id;
  frame->anchor.count = (guint32) ct_proto_field_count (frame->msg, f);
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
  chosen = *(const guint32 *) ct_proto_field_quantifier (frame->msg, f);
  if (chosen == 0 || chosen == f->id)
    return TRUE;
  other = protobuf_c_message_descriptor_get_field (desc, chosen);
  return ct_parser_fail (p, name->line, name->column, CT_PROTO_ERROR_INVALID,
                         _("field '%s' in %s is given along with field '%s' of the same oneof"),
                         f->name, desc->short_name, other ? other->name : "?");
}

/* Field F of DESC, not repeated, given again at NAME. */
static gboolean
fail_repeated (CtParser *p, const ProtobufCMessageDescriptor *desc,
               const ProtobufCFieldDescriptor *f, const CtToken *name)
{
  return ct_parser_fail (p, name->line, name->column, CT_PROTO_ERROR_INVALID,
                         _("non-repeated field '%s' in %s is specified multiple times"),
                         f->name, desc->short_name);
}

static gboolean
parse_known_field (CtParser *p, CtFrame *frame, const ProtobufCFieldDescriptor *f)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  gboolean repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
  guint index = (guint) (f - desc->fields);
  CtToken name = p->tok;

  /* A scalar is checked once its value is read: one that stays text (an
   * unknown enum value, lenient) sets nothing, wherever it stands. */
  if (f->type == PROTOBUF_C_TYPE_MESSAGE && !repeated && frame->seen[index])
    return fail_repeated (p, desc, f, &name);
  if (!check_oneof (p, frame, f, &name) || !ct_parser_advance (p))
    return FALSE;

  if (f->type == PROTOBUF_C_TYPE_MESSAGE)
    {
      if (ct_parser_is_symbol (p, ':') && !ct_parser_advance (p))
        return FALSE;
      if (ct_parser_is_symbol (p, '[') && repeated)
        {
          if (!parse_message_list (p, frame, f, &name))
            return FALSE;
        }
      else if (!parse_message_value (p, frame, f, &name))
        return FALSE;
    }
  else
    {
      if (!ct_parser_is_symbol (p, ':'))
        {
          g_autofree char *found = ct_parser_describe (&p->tok);

          if (ct_parser_is_open (p))
            return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                                   _("field '%s' in %s holds a %s, not a message"),
                                   f->name, desc->short_name, ct_proto_type_name (f->type));
          return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                 _("expected ':' after field '%s' in %s, found %s"),
                                 f->name, desc->short_name, found);
        }
      if (!ct_parser_advance (p))
        return FALSE;

      if (ct_parser_is_symbol (p, '['))
        {
          if (!repeated)
            return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_TYPE,
                                   _("field '%s' in %s is not repeated: a [ ] list is not allowed"),
                                   f->name, desc->short_name);
          return parse_scalar_list (p, frame, f, &name);
        }
      else
        {
          CtValue value;
          CtToken bad;

          switch (ct_parser_parse_scalar (p, desc, f, &value, &bad))
            {
            case CT_PARSED_FAIL:
              return FALSE;
            case CT_PARSED_UNKNOWN_ENUM:
              ct_parser_keep_text (p, frame, CT_KEPT_TAG_ENUM_VALUE, &name, &bad,
                                   (gsize) (bad.start - p->lexer.text) + bad.length);
              return TRUE;
            case CT_PARSED_OK:
              if (!repeated && frame->seen[index])
                {
                  ct_proto_value_clear (f, &value);   /* a string's copy */
                  return fail_repeated (p, desc, f, &name);
                }
              store_value (frame->msg, f, &value);
              break;
            default:
              g_return_val_if_reached (FALSE);
            }
        }
    }

  frame->seen[index] = TRUE;
  frame->anchor.id = f->id;
  frame->anchor.count = repeated ? (guint32) ct_proto_field_count (frame->msg, f) : 1;
  return TRUE;
}

static gboolean
parse_unknown_field (CtParser *p, CtFrame *frame)
{
  CtToken name = p->tok;

  if (!(p->flags & CT_TEXT_LENIENT))
    return ct_parser_fail (p, name.line, name.column, CT_PROTO_ERROR_UNKNOWN_FIELD,
                           _("unknown field '%.*s' in %s"),
                           (int) name.length, name.start, frame->msg->descriptor->short_name);

  if (!ct_parser_advance (p) || !ct_parser_skip_field_value (p, &name))
    return FALSE;
  ct_parser_keep_text (p, frame, CT_KEPT_TAG_FIELD, &name, NULL, 0);
  return TRUE;
}

static gboolean
parse_one_field (CtParser *p, CtFrame *frame, char close, const CtToken *open, const char *open_name)
{
  const ProtobufCMessageDescriptor *desc = frame->msg->descriptor;
  const ProtobufCFieldDescriptor *f;

  if (p->tok.kind != CT_TOKEN_IDENT)
    {
      g_autofree char *found = ct_parser_describe (&p->tok);

      if (ct_parser_is_symbol (p, '}') || ct_parser_is_symbol (p, '>'))
        {
          if (close == '\0')
            return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                   _("unexpected '%c' in %s: no message is open"),
                                   p->tok.symbol, desc->short_name);
          return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                 _("expected '%c' to close '%s' (opened at %u:%u) but found '%c'"),
                                 close, open_name, open->line, open->column, p->tok.symbol);
        }
      if (ct_parser_is_symbol (p, '['))
        return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                               _("extension and Any fields ('[...]') are not supported in %s"),
                               desc->short_name);
      return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
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
            ok = ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                 _("expected '%c' to close '%s' (opened at %u:%u) but reached end of file"),
                                 close, open_name, open->line, open->column);
          break;
        }
      if (close != '\0' && ct_parser_is_symbol (p, close))
        {
          ok = ct_parser_advance (p);
          break;
        }
      if (!parse_one_field (p, &frame, close, open, open_name))
        {
          ok = FALSE;
          break;
        }
      if ((ct_parser_is_symbol (p, ';') || ct_parser_is_symbol (p, ',')) && !ct_parser_advance (p))
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

  msg = ct_proto_message_new (desc);
  ok = ct_parser_advance (&p) && parse_fields (&p, msg, '\0', NULL, NULL);

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
