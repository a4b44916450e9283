/* text-unknown.c: unknown text kept by lenient parsing.
 *
 * Encodes and decodes the records the parser attaches to messages (see
 * text-unknown-private.h), and implements the public functions that list,
 * detect, check and strip them across a whole message tree. */
#include "text-format.h"
#include "text-unknown-private.h"
#include "proto-error.h"

#include <string.h>
#include <glib/gi18n-lib.h>

/* Marks a payload as ours, and its layout version. */
static const char kept_magic[4] = { 'C', 'T', 'k', '1' };

#define N_HEADER_WORDS 8

static void
put_u32 (guint8 **p, guint32 v)
{
  guint32 le = GUINT32_TO_LE (v);

  memcpy (*p, &le, 4);
  *p += 4;
}

static void
put_bytes (guint8 **p, const char *s, gsize n)
{
  put_u32 (p, (guint32) n);
  if (n > 0)
    memcpy (*p, s, n);
  *p += n;
}

void
ct_kept_text_encode (const CtKeptText *kept, ProtobufCMessageUnknownField *out)
{
  gsize payload = sizeof kept_magic + 4 * N_HEADER_WORDS
                  + 4 + kept->name_len + 4 + kept->text_len + 4 + kept->value_len;
  guint8 prefix[10];
  gsize prefix_len = 0;
  guint8 *data, *p;
  guint64 v = payload;

  do
    {
      prefix[prefix_len++] = (guint8) ((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
      v >>= 7;
    }
  while (v != 0);

  data = g_malloc (prefix_len + payload);
  memcpy (data, prefix, prefix_len);
  p = data + prefix_len;
  memcpy (p, kept_magic, sizeof kept_magic);
  p += sizeof kept_magic;
  put_u32 (&p, kept->anchor_id);
  put_u32 (&p, kept->anchor_count);
  put_u32 (&p, kept->line);
  put_u32 (&p, kept->column);
  put_u32 (&p, kept->error_line);
  put_u32 (&p, kept->error_column);
  put_u32 (&p, kept->indent);
  put_u32 (&p, 0); /* reserved */
  put_bytes (&p, kept->name, kept->name_len);
  put_bytes (&p, kept->text, kept->text_len);
  put_bytes (&p, kept->value, kept->value_len);

  out->tag = kept->tag;
  out->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
  out->len = prefix_len + payload;
  out->data = data;
}

void
ct_unknown_fields_append (ProtobufCMessage *msg,
                          const ProtobufCMessageUnknownField *fields,
                          guint n)
{
  if (n == 0)
    return;
  msg->unknown_fields = g_renew (ProtobufCMessageUnknownField, msg->unknown_fields,
                                 msg->n_unknown_fields + n);
  memcpy (msg->unknown_fields + msg->n_unknown_fields, fields, n * sizeof *fields);
  msg->n_unknown_fields += n;
}

static gboolean
get_u32 (const guint8 **p, const guint8 *end, guint32 *v)
{
  guint32 le;

  if (end - *p < 4)
    return FALSE;
  memcpy (&le, *p, 4);
  *v = GUINT32_FROM_LE (le);
  *p += 4;
  return TRUE;
}

static gboolean
get_bytes (const guint8 **p, const guint8 *end, const char **s, gsize *n)
{
  guint32 len;

  if (!get_u32 (p, end, &len) || (gsize) (end - *p) < len)
    return FALSE;
  *s = (const char *) *p;
  *n = len;
  *p += len;
  return TRUE;
}

gboolean
ct_kept_text_decode (const ProtobufCMessageUnknownField *field, CtKeptText *kept)
{
  const guint8 *p = field->data;
  const guint8 *end = field->data + field->len;
  guint64 payload = 0;
  guint32 words[N_HEADER_WORDS];
  guint shift = 0;

  if ((field->tag != CT_KEPT_TAG_FIELD && field->tag != CT_KEPT_TAG_ENUM_VALUE)
      || field->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED || field->data == NULL)
    return FALSE;

  /* Anything else in the reserved range came from a binary file, not from
   * us: check the length prefix and the magic before trusting the layout. */
  for (;;)
    {
      if (p >= end || shift > 63)
        return FALSE;
      payload |= (guint64) (*p & 0x7F) << shift;
      shift += 7;
      if ((*p++ & 0x80) == 0)
        break;
    }
  if (payload != (guint64) (end - p) || end - p < (gssize) sizeof kept_magic
      || memcmp (p, kept_magic, sizeof kept_magic) != 0)
    return FALSE;
  p += sizeof kept_magic;

  for (guint i = 0; i < N_HEADER_WORDS; i++)
    if (!get_u32 (&p, end, &words[i]))
      return FALSE;

  kept->tag = field->tag;
  kept->anchor_id = words[0];
  kept->anchor_count = words[1];
  kept->line = words[2];
  kept->column = words[3];
  kept->error_line = words[4];
  kept->error_column = words[5];
  kept->indent = words[6];
  return get_bytes (&p, end, &kept->name, &kept->name_len)
         && get_bytes (&p, end, &kept->text, &kept->text_len)
         && get_bytes (&p, end, &kept->value, &kept->value_len)
         && p == end;
}

void
ct_text_unknown_free (CtTextUnknown *unknown)
{
  if (unknown == NULL)
    return;
  g_free (unknown->message_type);
  g_free (unknown->field_name);
  g_free (unknown->text);
  g_free (unknown->value);
  g_free (unknown);
}

typedef void (*MessageVisitor) (ProtobufCMessage *msg, gpointer user_data);

/* Call VISIT on MSG and every message inside it, parents first. */
static void
walk_messages (ProtobufCMessage *msg, MessageVisitor visit, gpointer user_data)
{
  const ProtobufCMessageDescriptor *desc = msg->descriptor;

  visit (msg, user_data);
  for (guint i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &desc->fields[i];
      char *base = (char *) msg;

      if (f->type != PROTOBUF_C_TYPE_MESSAGE)
        continue;
      if (f->label == PROTOBUF_C_LABEL_REPEATED)
        {
          gsize n = *(gsize *) (base + f->quantifier_offset);
          ProtobufCMessage **items = *(ProtobufCMessage ***) (base + f->offset);

          for (gsize k = 0; k < n; k++)
            if (items[k] != NULL)
              walk_messages (items[k], visit, user_data);
        }
      else
        {
          ProtobufCMessage *sub = *(ProtobufCMessage **) (base + f->offset);

          if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
              && *(guint32 *) (base + f->quantifier_offset) != f->id)
            continue;
          if (sub != NULL)
            walk_messages (sub, visit, user_data);
        }
    }
}

static void
collect_unknown (ProtobufCMessage *msg, gpointer user_data)
{
  GPtrArray *list = user_data;

  for (guint i = 0; i < msg->n_unknown_fields; i++)
    {
      CtKeptText kept;
      CtTextUnknown *u;

      if (!ct_kept_text_decode (&msg->unknown_fields[i], &kept))
        continue;
      u = g_new0 (CtTextUnknown, 1);
      u->message_type = g_strdup (msg->descriptor->short_name);
      u->field_name = g_strndup (kept.name, kept.name_len);
      u->line = kept.line;
      u->column = kept.column;
      u->text = g_strndup (kept.text, kept.text_len);
      if (kept.tag == CT_KEPT_TAG_ENUM_VALUE)
        u->value = g_strndup (kept.value, kept.value_len);
      u->error_line = kept.error_line;
      u->error_column = kept.error_column;
      g_ptr_array_add (list, u);
    }
}

static gint
compare_position (gconstpointer a, gconstpointer b)
{
  const CtTextUnknown *x = *(CtTextUnknown * const *) a;
  const CtTextUnknown *y = *(CtTextUnknown * const *) b;

  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->column != y->column)
    return x->column < y->column ? -1 : 1;
  return 0;
}

GPtrArray *
ct_text_list_unknown (const ProtobufCMessage *msg)
{
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_text_unknown_free);

  g_return_val_if_fail (msg != NULL, list);

  /* The walk only reads; the cast serves the shared visitor type. */
  walk_messages ((ProtobufCMessage *) msg, collect_unknown, list);
  g_ptr_array_sort (list, compare_position);
  return list;
}

static void
find_unknown (ProtobufCMessage *msg, gpointer user_data)
{
  gboolean *found = user_data;
  CtKeptText kept;

  for (guint i = 0; i < msg->n_unknown_fields && !*found; i++)
    if (ct_kept_text_decode (&msg->unknown_fields[i], &kept))
      *found = TRUE;
}

gboolean
ct_text_has_unknown (const ProtobufCMessage *msg)
{
  gboolean found = FALSE;

  g_return_val_if_fail (msg != NULL, FALSE);
  walk_messages ((ProtobufCMessage *) msg, find_unknown, &found);
  return found;
}

gboolean
ct_text_check_strict (const ProtobufCMessage *msg,
                      const char *filename,
                      GError **error)
{
  g_autoptr (GPtrArray) list = NULL;
  const CtTextUnknown *first;

  g_return_val_if_fail (msg != NULL, FALSE);

  list = ct_text_list_unknown (msg);
  if (list->len == 0)
    return TRUE;

  /* The first in text order is the one a strict parse would have met. */
  first = g_ptr_array_index (list, 0);
  if (first->value != NULL)
    g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD,
                 _("%s:%u:%u: invalid value '%s' for enum field '%s' in %s"),
                 filename, first->error_line, first->error_column,
                 first->value, first->field_name, first->message_type);
  else
    g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD,
                 _("%s:%u:%u: unknown field '%s' in %s"),
                 filename, first->error_line, first->error_column,
                 first->field_name, first->message_type);
  ct_proto_error_set_position (error, first->error_line, first->error_column);
  return FALSE;
}

static void
strip_unknown (ProtobufCMessage *msg, gpointer user_data)
{
  guint kept_n = 0;
  CtKeptText kept;

  for (guint i = 0; i < msg->n_unknown_fields; i++)
    {
      ProtobufCMessageUnknownField *uf = &msg->unknown_fields[i];

      if (ct_kept_text_decode (uf, &kept))
        g_free (uf->data);
      else
        msg->unknown_fields[kept_n++] = *uf;
    }
  msg->n_unknown_fields = kept_n;
  if (kept_n == 0)
    g_clear_pointer (&msg->unknown_fields, g_free);
}

void
ct_text_strip_unknown (ProtobufCMessage *msg)
{
  g_return_if_fail (msg != NULL);
  walk_messages (msg, strip_unknown, NULL);
}
