/* binary-io.c: reading and writing binary protobuf files (.caffemodel,
 * .solverstate, .binaryproto).
 *
 * protobuf-c's unpacker only says yes or no, so before calling it we walk
 * the wire format ourselves against the same descriptors, with the same
 * rules, and stop at the first thing it would reject: a cut-off file, a
 * wire type that does not fit its field, an overlong varint. The user then
 * learns the byte offset and the field instead of "could not read". Files
 * are mapped rather than read so that a 1 GiB model costs no extra copy,
 * and writes go through a temporary file renamed over the target. */
#include "binary-io.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "atomic-write.h"
#include "proto-error.h"
#include "text-format.h"

/* Deeper nesting than this cannot come from a real schema; it guards the
 * walker's recursion against crafted input. */
#define WALK_MAX_DEPTH 100

typedef struct {
  const guint8 *data;
  gsize length;     /* bytes in the whole buffer */
  const char *name; /* names the source in messages */
  GError **error;
} Walk;

typedef enum {
  VARINT_OK,
  VARINT_TRUNCATED, /* the data ended inside the varint */
  VARINT_OVERLONG,  /* more than 10 bytes (or 5 for tags and lengths) */
} VarintStatus;

/* Reads a varint of at most MAX_BYTES bytes from [*pos, end). */
static VarintStatus
read_varint (const guint8 *data,
             gsize *pos,
             gsize end,
             guint max_bytes,
             guint64 *value)
{
  guint64 v = 0;
  guint shift = 0;

  for (guint i = 0; i < max_bytes; i++)
    {
      guint8 b;

      if (*pos + i >= end)
        return VARINT_TRUNCATED;
      b = data[*pos + i];
      if (shift < 64)
        v |= ((guint64) (b & 0x7f)) << shift;
      shift += 7;
      if ((b & 0x80) == 0)
        {
          *pos += i + 1;
          *value = v;
          return VARINT_OK;
        }
    }
  return VARINT_OVERLONG;
}

static const char *
wire_type_name (guint wire_type)
{
  switch (wire_type)
    {
    case PROTOBUF_C_WIRE_TYPE_VARINT: return "varint";
    case PROTOBUF_C_WIRE_TYPE_64BIT: return "64-bit";
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED: return "length-delimited";
    case 3: return "start-group";
    case 4: return "end-group";
    case PROTOBUF_C_WIRE_TYPE_32BIT: return "32-bit";
    default: return "invalid";
    }
}

/* The single-value wire type protobuf-c expects for a field type. */
static guint
expected_wire_type (ProtobufCType type)
{
  switch (type)
    {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
      return PROTOBUF_C_WIRE_TYPE_32BIT;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return PROTOBUF_C_WIRE_TYPE_64BIT;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
      return PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
    default:
      return PROTOBUF_C_WIRE_TYPE_VARINT;
    }
}

static gboolean
is_packable (ProtobufCType type)
{
  return type != PROTOBUF_C_TYPE_STRING &&
         type != PROTOBUF_C_TYPE_BYTES &&
         type != PROTOBUF_C_TYPE_MESSAGE;
}

/* "field 'blobs'" or "unknown field 12": what the user is told was being read. */
static char *
describe_field (const ProtobufCFieldDescriptor *field, guint64 number)
{
  if (field != NULL)
    return g_strdup_printf (_("field '%s'"), field->name);
  return g_strdup_printf (_("unknown field %lu"), (unsigned long) number);
}

static gboolean
fail_truncated (Walk *w,
                gsize at,
                const ProtobufCMessageDescriptor *desc,
                const ProtobufCFieldDescriptor *field,
                guint64 number)
{
  g_autofree char *what = NULL;

  if (field == NULL && number == 0)
    what = g_strdup (_("a field tag"));
  else
    what = describe_field (field, number);

  /* Running out of data is truncation; running past the length that an
   * enclosing field declared, with data left after it, is corruption. */
  if (at >= w->length)
    /* TRANSLATORS: the second %s is e.g. "field 'blobs'", the third a message type */
    g_set_error (w->error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                 _("%s: truncated at byte %lu while reading %s of %s"),
                 w->name, (unsigned long) at, what, desc->short_name);
  else
    g_set_error (w->error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                 _("%s: corrupt data at byte %lu: %s of %s runs past the end "
                   "of its enclosing message"),
                 w->name, (unsigned long) at, what, desc->short_name);
  return FALSE;
}

/* Whether the first bytes look like prototxt, to give a better hint. */
static gboolean
looks_like_text (const guint8 *data, gsize length)
{
  gsize n = MIN (length, 64);

  if (n == 0)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isprint (data[i]) && !g_ascii_isspace (data[i]))
      return FALSE;
  return TRUE;
}

static gboolean
fail_corrupt (Walk *w, gsize at, const char *detail)
{
  if (at == 0)
    {
      if (looks_like_text (w->data, w->length))
        g_set_error (w->error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                     _("%s: not a protobuf file (%s at byte 0); it looks like text, e.g. a .prototxt"),
                     w->name, detail);
      else
        g_set_error (w->error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                     _("%s: not a protobuf file (%s at byte 0)"), w->name, detail);
    }
  else
    g_set_error (w->error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                 _("%s: corrupt data at byte %lu: %s"), w->name, (unsigned long) at, detail);
  return FALSE;
}

/* A packed run of scalars, as protobuf-c's packed parser checks it. */
static gboolean
walk_packed (Walk *w,
             const ProtobufCMessageDescriptor *desc,
             const ProtobufCFieldDescriptor *field,
             gsize start,
             gsize end)
{
  gsize len = end - start;
  g_autofree char *detail = NULL;

  switch (field->type)
    {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
      if (len % 4 == 0)
        return TRUE;
      detail = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "packed field '%s' of %s holds %lu byte, "
                                             "not a multiple of 4",
                                             "packed field '%s' of %s holds %lu bytes, "
                                             "not a multiple of 4", len),
                                field->name, desc->short_name, (unsigned long) len);
      return fail_corrupt (w, start, detail);
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      if (len % 8 == 0)
        return TRUE;
      detail = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "packed field '%s' of %s holds %lu byte, "
                                             "not a multiple of 8",
                                             "packed field '%s' of %s holds %lu bytes, "
                                             "not a multiple of 8", len),
                                field->name, desc->short_name, (unsigned long) len);
      return fail_corrupt (w, start, detail);
    default:
      /* Varint types, bools included: protobuf-c scans each packed bool as a
       * varint and refuses the run if one is cut short. */
      for (gsize pos = start; pos < end;)
        {
          gsize at = pos;
          guint64 v;

          if (read_varint (w->data, &pos, end, 10, &v) != VARINT_OK)
            {
              detail = g_strdup_printf (_("bad varint in packed field '%s' of %s"),
                                        field->name, desc->short_name);
              return fail_corrupt (w, at, detail);
            }
        }
      return TRUE;
    }
}

static gboolean walk_message (Walk *w,
                              const ProtobufCMessageDescriptor *desc,
                              gsize start,
                              gsize end,
                              gboolean cut,
                              guint depth);

/* A length-delimited payload [start, stop) of FIELD; CUT says the data ends
 * at STOP before the payload does. */
static gboolean
walk_payload (Walk *w,
              const ProtobufCMessageDescriptor *desc,
              const ProtobufCFieldDescriptor *field,
              guint64 number,
              gsize start,
              gsize stop,
              gboolean cut,
              guint depth)
{
  if (field != NULL && field->type == PROTOBUF_C_TYPE_MESSAGE)
    {
      /* Descend even into a cut-off message, so that the error names the
       * innermost field the cut went through. */
      if (!walk_message (w, field->descriptor, start, stop, cut, depth + 1))
        return FALSE;
    }
  else if (field != NULL && field->label == PROTOBUF_C_LABEL_REPEATED &&
           is_packable (field->type) && !cut)
    {
      if (!walk_packed (w, desc, field, start, stop))
        return FALSE;
    }
  if (cut)
    return fail_truncated (w, stop, desc, field, number);
  return TRUE;
}

/* One field at *POS of a message ending at END. */
static gboolean
walk_field (Walk *w,
            const ProtobufCMessageDescriptor *desc,
            gsize *pos,
            gsize end,
            guint depth,
            guint *n_required_seen,
            guint8 *required_seen)
{
  gsize tag_at = *pos;
  guint64 key, number;
  guint wire_type;
  const ProtobufCFieldDescriptor *field;
  g_autofree char *detail = NULL;

  /* protobuf-c reads tags of at most 5 bytes and rejects field number 0 */
  switch (read_varint (w->data, pos, end, 5, &key))
    {
    case VARINT_TRUNCATED:
      return fail_truncated (w, end, desc, NULL, 0);
    case VARINT_OVERLONG:
      return fail_corrupt (w, tag_at, _("field tag longer than 5 bytes"));
    case VARINT_OK:
      break;
    }
  wire_type = key & 7;
  number = key >> 3;
  if (wire_type == 6 || wire_type == 7)
    {
      detail = g_strdup_printf (_("bad wire type %u"), wire_type);
      return fail_corrupt (w, tag_at, detail);
    }
  if (number == 0 || number > 536870911)
    {
      detail = g_strdup_printf (_("bad field number %lu"), (unsigned long) number);
      return fail_corrupt (w, tag_at, detail);
    }
  if (wire_type == 3 || wire_type == 4)
    {
      detail = g_strdup_printf (_("unsupported group wire type %u"), wire_type);
      return fail_corrupt (w, tag_at, detail);
    }

  field = protobuf_c_message_descriptor_get_field (desc, (unsigned) number);
  if (field != NULL)
    {
      gboolean packed = field->label == PROTOBUF_C_LABEL_REPEATED &&
                        is_packable (field->type) &&
                        wire_type == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;

      if (!packed && wire_type != expected_wire_type (field->type))
        {
          detail = g_strdup_printf (_("field '%s' of %s has wire type %s, expected %s"),
                                    field->name, desc->short_name,
                                    wire_type_name (wire_type),
                                    wire_type_name (expected_wire_type (field->type)));
          return fail_corrupt (w, tag_at, detail);
        }
      if (field->label == PROTOBUF_C_LABEL_REQUIRED)
        {
          guint index = field - desc->fields;

          if (!(required_seen[index / 8] & (1u << (index % 8))))
            {
              required_seen[index / 8] |= 1u << (index % 8);
              (*n_required_seen)++;
            }
        }
    }

  switch (wire_type)
    {
    case PROTOBUF_C_WIRE_TYPE_VARINT:
      {
        gsize at = *pos;
        guint64 v;

        switch (read_varint (w->data, pos, end, 10, &v))
          {
          case VARINT_TRUNCATED:
            return fail_truncated (w, end, desc, field, number);
          case VARINT_OVERLONG:
            {
              g_autofree char *what = describe_field (field, number);
              detail = g_strdup_printf (_("varint longer than 10 bytes in %s of %s"),
                                        what, desc->short_name);
              return fail_corrupt (w, at, detail);
            }
          case VARINT_OK:
            break;
          }
        return TRUE;
      }
    case PROTOBUF_C_WIRE_TYPE_64BIT:
    case PROTOBUF_C_WIRE_TYPE_32BIT:
      {
        gsize size = wire_type == PROTOBUF_C_WIRE_TYPE_64BIT ? 8 : 4;

        if (end - *pos < size)
          return fail_truncated (w, end, desc, field, number);
        *pos += size;
        return TRUE;
      }
    default: /* length-delimited */
      {
        gsize at = *pos;
        guint64 len;

        switch (read_varint (w->data, pos, end, 5, &len))
          {
          case VARINT_TRUNCATED:
            return fail_truncated (w, end, desc, field, number);
          case VARINT_OVERLONG:
            return fail_corrupt (w, at, _("length prefix longer than 5 bytes"));
          case VARINT_OK:
            break;
          }
        if (len > INT_MAX)
          {
            detail = g_strdup_printf (_("length %lu over 2 GiB"), (unsigned long) len);
            return fail_corrupt (w, at, detail);
          }
        if (len > end - *pos)
          return walk_payload (w, desc, field, number, *pos, end, TRUE, depth);
        if (!walk_payload (w, desc, field, number, *pos, *pos + len, FALSE, depth))
          return FALSE;
        *pos += len;
        return TRUE;
      }
    }
}

/* Checks the message DESC in [start, end). With CUT, the buffer ends at END
 * in the middle of this message: the caller reports the truncation unless
 * a field inside does so first. */
static gboolean
walk_message (Walk *w,
              const ProtobufCMessageDescriptor *desc,
              gsize start,
              gsize end,
              gboolean cut,
              guint depth)
{
  g_autofree guint8 *required_seen = g_new0 (guint8, desc->n_fields / 8 + 1);
  guint n_required_seen = 0;
  guint n_required = 0;
  gsize pos = start;

  if (depth > WALK_MAX_DEPTH)
    return fail_corrupt (w, start, _("messages nested too deeply"));

  while (pos < end)
    if (!walk_field (w, desc, &pos, end, depth, &n_required_seen, required_seen))
      return FALSE;

  if (cut)
    return TRUE;

  for (guint i = 0; i < desc->n_fields; i++)
    if (desc->fields[i].label == PROTOBUF_C_LABEL_REQUIRED &&
        desc->fields[i].default_value == NULL)
      {
        n_required++;
        if (!(required_seen[i / 8] & (1u << (i % 8))))
          {
            g_set_error (w->error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                         _("%s: the %s ending at byte %lu lacks its "
                           "required field '%s'"),
                         w->name, desc->short_name, (unsigned long) end, desc->fields[i].name);
            return FALSE;
          }
      }
  return TRUE;
}

static gboolean
fail_too_large (const char *path, guint64 size, GError **error)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_TOO_LARGE,
               _("%s: %s GiB is larger than the 2 GiB a model file may hold"),
               path,
               g_ascii_formatd (buf, sizeof buf, "%.1f",
                                (double) size / (1024.0 * 1024.0 * 1024.0)));
  return FALSE;
}

ProtobufCMessage *
ct_binary_parse (const ProtobufCMessageDescriptor *desc,
                 const guint8 *data,
                 gsize length,
                 const char *name,
                 GError **error)
{
  Walk w = { data, length, name != NULL ? name : "<data>", error };
  ProtobufCMessage *msg;

  g_return_val_if_fail (desc != NULL, NULL);
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length > CT_BINARY_MAX_SIZE)
    {
      fail_too_large (w.name, length, error);
      return NULL;
    }

  if (!walk_message (&w, desc, 0, length, FALSE, 0))
    return NULL;

  msg = protobuf_c_message_unpack (desc, NULL, length, data);
  if (msg == NULL)
    {
      /* Only memory exhaustion or a limit of protobuf-c's (over 100 million
       * fields in one message) should get here after the walk. */
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                   g_dngettext (GETTEXT_PACKAGE, "%s: could not decode the %s (%lu byte)",
                                "%s: could not decode the %s (%lu bytes)", length),
                   w.name, desc->short_name, (unsigned long) length);
      return NULL;
    }
  return msg;
}


ProtobufCMessage *
ct_binary_read_file (const ProtobufCMessageDescriptor *desc,
                     const char *path,
                     GError **error)
{
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GError) local_error = NULL;
  GStatBuf st;

  g_return_val_if_fail (desc != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  /* Look at the size before mapping: a 3 GiB file gets a clear answer
   * without touching its pages. */
  if (g_stat (path, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                   _("%s: could not read: %s"), path, g_strerror (saved_errno));
      return NULL;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                   _("%s: could not read: it is a folder"), path);
      return NULL;
    }
  if (S_ISREG (st.st_mode) && (guint64) st.st_size > CT_BINARY_MAX_SIZE)
    {
      fail_too_large (path, st.st_size, error);
      return NULL;
    }

  mapped = g_mapped_file_new (path, FALSE, &local_error);
  if (mapped == NULL)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                   _("%s: could not read: %s"), path, local_error->message);
      return NULL;
    }
  if (g_mapped_file_get_length (mapped) == 0)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT,
                   _("%s: the file is empty (0 bytes)"), path);
      return NULL;
    }
  return ct_binary_parse (desc,
                          (const guint8 *) g_mapped_file_get_contents (mapped),
                          g_mapped_file_get_length (mapped),
                          path, error);
}

gboolean
ct_binary_write_file (const ProtobufCMessage *msg,
                      const char *path,
                      GError **error)
{
  g_autoptr(GError) local_error = NULL;
  ProtobufCMessage *stripped = NULL;
  const ProtobufCMessage *to_pack = msg;
  g_autofree guint8 *buf = NULL;
  gsize size;
  gboolean ok;

  g_return_val_if_fail (msg != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  /* Kept prototxt text means nothing to other readers: write a copy
   * without it, leaving the caller's message as it was. */
  if (ct_text_has_unknown (msg))
    {
      gsize n = protobuf_c_message_get_packed_size (msg);
      g_autofree guint8 *tmp = g_try_malloc (MAX (n, 1));

      if (tmp == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                       _("%s: could not save: out of memory"), path);
          return FALSE;
        }
      protobuf_c_message_pack (msg, tmp);
      stripped = protobuf_c_message_unpack (msg->descriptor, NULL, n, tmp);
      if (stripped == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                       _("%s: could not save: out of memory"), path);
          return FALSE;
        }
      ct_text_strip_unknown (stripped);
      to_pack = stripped;
    }

  size = protobuf_c_message_get_packed_size (to_pack);
  if (size > CT_BINARY_MAX_SIZE)
    {
      protobuf_c_message_free_unpacked (stripped, NULL);
      return fail_too_large (path, size, error);
    }
  buf = g_try_malloc (MAX (size, 1));
  if (buf == NULL)
    {
      protobuf_c_message_free_unpacked (stripped, NULL);
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                   _("%s: could not save: out of memory"), path);
      return FALSE;
    }
  protobuf_c_message_pack (to_pack, buf);
  protobuf_c_message_free_unpacked (stripped, NULL);

  /* in proto's domain, as every other failure here */
  ok = ct_file_write_atomic (path, buf, size, &local_error);
  if (!ok)
    g_set_error_literal (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO, local_error->message);
  return ok;
}
