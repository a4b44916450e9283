/* field-path.c: one field of a protobuf-c message, reached by a dotted path,
 * read and written through its descriptor (see field-path.h).
 *
 * Memory follows protobuf-c's unpacking rules so that
 * protobuf_c_message_free_unpacked() frees whatever we put in: arrays and
 * strings come from malloc (g_malloc on glibc), an unset optional string
 * points at its default, an unset message is NULL. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "field-path.h"
#include "reflect.h"

G_DEFINE_QUARK (ct-field-path-error-quark, ct_field_path_error)

typedef struct {
  char *name;
  gssize index; /* -1: none given */
} Segment;

static void
segment_clear (gpointer data)
{
  g_free (((Segment *) data)->name);
}

/* "a.b[2].c" -> segments; every name non-empty, indices decimal. */
static GArray *
parse_path (const char *path, GError **error)
{
  g_autoptr (GArray) segments = g_array_new (FALSE, TRUE, sizeof (Segment));
  const char *p = path;

  g_array_set_clear_func (segments, segment_clear);
  while (TRUE)
    {
      Segment seg = { NULL, -1 };
      const char *start = p;

      while (*p && *p != '.' && *p != '[')
        p++;
      if (p == start)
        goto bad;
      seg.name = g_strndup (start, p - start);
      if (*p == '[')
        {
          char *end = NULL;
          guint64 index;

          p++;
          if (!g_ascii_isdigit (*p))
            {
              g_free (seg.name);
              goto bad;
            }
          index = g_ascii_strtoull (p, &end, 10);
          if (*end != ']' || index > G_MAXINT32)
            {
              g_free (seg.name);
              goto bad;
            }
          seg.index = (gssize) index;
          p = end + 1;
        }
      g_array_append_val (segments, seg);
      if (*p == '\0')
        return g_steal_pointer (&segments);
      if (*p != '.')
        goto bad;
      p++;
    }

bad:
  g_set_error (error, CT_FIELD_PATH_ERROR, 0, _("'%s' is not a field path"), path);
  return NULL;
}

/* Parsing scalars. */

static gboolean
fail_value (const ProtobufCFieldDescriptor *f, const char *text, const char *why,
            GError **error)
{
  g_set_error (error, CT_FIELD_PATH_ERROR, 1, _("'%s' is not a valid value for %s: %s"), text,
               f->name, why);
  return FALSE;
}

static gboolean
parse_signed (const ProtobufCFieldDescriptor *f, const char *text, gint64 min, gint64 max,
              gint64 *out, GError **error)
{
  const char *s = text;
  gboolean negative = FALSE;
  char *end = NULL;
  guint64 magnitude;

  while (g_ascii_isspace (*s))
    s++;
  if (*s == '-' || *s == '+')
    negative = *s++ == '-';
  if (!g_ascii_isdigit (*s))
    return fail_value (f, text, _("expected an integer"), error);
  errno = 0;
  magnitude = g_ascii_strtoull (s, &end, 0);
  while (g_ascii_isspace (*end))
    end++;
  if (*end != '\0')
    return fail_value (f, text, _("expected an integer"), error);
  if (errno == ERANGE || (!negative && magnitude > (guint64) max)
      || (negative && magnitude > (guint64) (-(min + 1)) + 1))
    return fail_value (f, text, _("out of range"), error);
  *out = negative ? (gint64) (0 - magnitude) : (gint64) magnitude;
  return TRUE;
}

static gboolean
parse_unsigned (const ProtobufCFieldDescriptor *f, const char *text, guint64 max,
                guint64 *out, GError **error)
{
  const char *s = text;
  char *end = NULL;

  while (g_ascii_isspace (*s))
    s++;
  if (*s == '+')
    s++;
  if (!g_ascii_isdigit (*s))
    return fail_value (f, text, _("expected a non-negative integer"), error);
  errno = 0;
  *out = g_ascii_strtoull (s, &end, 0);
  while (g_ascii_isspace (*end))
    end++;
  if (*end != '\0')
    return fail_value (f, text, _("expected a non-negative integer"), error);
  if (errno == ERANGE || *out > max)
    return fail_value (f, text, _("out of range"), error);
  return TRUE;
}

static gboolean
parse_real (const ProtobufCFieldDescriptor *f, const char *text, gboolean single,
            double *out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  gsize len = strlen (copy);
  char *end = NULL;

  /* The text format allows a float suffix. */
  if (len > 1 && (copy[len - 1] == 'f' || copy[len - 1] == 'F')
      && g_ascii_isdigit (copy[len - 2]))
    copy[len - 1] = '\0';
  if (*copy == '\0')
    return fail_value (f, text, _("expected a number"), error);
  *out = g_ascii_strtod (copy, &end);
  if (*end != '\0')
    return fail_value (f, text, _("expected a number"), error);
  if (single && isfinite (*out) && fabs (*out) > FLT_MAX)
    return fail_value (f, text, _("too large for a float"), error);
  return TRUE;
}

static gboolean
parse_enum (const ProtobufCFieldDescriptor *f, const char *text, int *out, GError **error)
{
  const ProtobufCEnumDescriptor *ed = f->descriptor;
  g_autofree char *copy = g_strstrip (g_strdup (text));
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name (ed, copy);
  gint64 number;

  if (v != NULL)
    {
      *out = v->value;
      return TRUE;
    }
  if ((g_ascii_isdigit (*copy) || *copy == '-')
      && parse_signed (f, copy, G_MININT32, G_MAXINT32, &number, NULL)
      && protobuf_c_enum_descriptor_get_value (ed, (int) number) != NULL)
    {
      *out = (int) number;
      return TRUE;
    }
  {
    g_autofree char *why = g_strdup_printf (_("not a value of %s"), ed->short_name);
    return fail_value (f, text, why, error);
  }
}

static gboolean
parse_bool (const ProtobufCFieldDescriptor *f, const char *text, protobuf_c_boolean *out,
            GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));

  if (g_str_equal (copy, "true") || g_str_equal (copy, "True") || g_str_equal (copy, "t")
      || g_str_equal (copy, "1"))
    *out = TRUE;
  else if (g_str_equal (copy, "false") || g_str_equal (copy, "False")
           || g_str_equal (copy, "f") || g_str_equal (copy, "0"))
    *out = FALSE;
  else
    return fail_value (f, text, _("expected true or false"), error);
  return TRUE;
}

/* Parse TEXT for F into the element storage at OUT (ct_proto_type_size bytes). */
static gboolean
parse_element (const ProtobufCFieldDescriptor *f, const char *text, void *out, GError **error)
{
  gint64 i;
  guint64 u;
  double d;

  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      if (!parse_signed (f, text, G_MININT32, G_MAXINT32, &i, error))
        return FALSE;
      *(gint32 *) out = (gint32) i;
      return TRUE;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      if (!parse_signed (f, text, G_MININT64, G_MAXINT64, &i, error))
        return FALSE;
      *(gint64 *) out = i;
      return TRUE;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      if (!parse_unsigned (f, text, G_MAXUINT32, &u, error))
        return FALSE;
      *(guint32 *) out = (guint32) u;
      return TRUE;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      if (!parse_unsigned (f, text, G_MAXUINT64, &u, error))
        return FALSE;
      *(guint64 *) out = u;
      return TRUE;
    case PROTOBUF_C_TYPE_FLOAT:
      if (!parse_real (f, text, TRUE, &d, error))
        return FALSE;
      *(float *) out = (float) d;
      return TRUE;
    case PROTOBUF_C_TYPE_DOUBLE:
      if (!parse_real (f, text, FALSE, &d, error))
        return FALSE;
      *(double *) out = d;
      return TRUE;
    case PROTOBUF_C_TYPE_BOOL:
      return parse_bool (f, text, out, error);
    case PROTOBUF_C_TYPE_ENUM:
      return parse_enum (f, text, out, error);
    case PROTOBUF_C_TYPE_STRING:
      *(char **) out = g_strdup (text);
      return TRUE;
    case PROTOBUF_C_TYPE_BYTES:
      {
        ProtobufCBinaryData *b = out;
        b->len = strlen (text);
        b->data = (guint8 *) g_strdup (text);
        return TRUE;
      }
    case PROTOBUF_C_TYPE_MESSAGE:
      if (*text != '\0')
        return fail_value (f, text, _("a message is created empty"), error);
      *(ProtobufCMessage **) out = ct_proto_message_new (f->descriptor);
      return TRUE;
    default:
      return fail_value (f, text, _("unsupported field type"), error);
    }
}

gboolean
ct_field_check_value (const ProtobufCFieldDescriptor *f, const char *text, GError **error)
{
  guint8 storage[sizeof (ProtobufCBinaryData) + 8] = { 0 };

  if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES)
    return TRUE;
  if (f->type == PROTOBUF_C_TYPE_MESSAGE)
    return *text == '\0' || fail_value (f, text, _("a message is created empty"), error);
  return parse_element (f, text, storage, error);
}

/* Printing scalars. */

static char *
real_to_text (double v, int max_digits)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  /* The shortest form that reads back to the same value. */
  for (int digits = 1; digits <= max_digits; digits++)
    {
      char format[8];

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, v);
      if (max_digits <= 9 ? (float) g_ascii_strtod (buf, NULL) == (float) v
                          : g_ascii_strtod (buf, NULL) == v)
        break;
    }
  return g_strdup (buf);
}

static char *
element_to_text (const ProtobufCFieldDescriptor *f, const void *ptr)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      return g_strdup_printf ("%" G_GINT32_FORMAT, *(const gint32 *) ptr);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, *(const gint64 *) ptr);
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      return g_strdup_printf ("%" G_GUINT32_FORMAT, *(const guint32 *) ptr);
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, *(const guint64 *) ptr);
    case PROTOBUF_C_TYPE_FLOAT:
      return real_to_text (*(const float *) ptr, 9);
    case PROTOBUF_C_TYPE_DOUBLE:
      return real_to_text (*(const double *) ptr, 17);
    case PROTOBUF_C_TYPE_BOOL:
      return g_strdup (*(const protobuf_c_boolean *) ptr ? "true" : "false");
    case PROTOBUF_C_TYPE_ENUM:
      {
        int value = *(const int *) ptr;
        const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value (f->descriptor, value);
        return v != NULL ? g_strdup (v->name) : g_strdup_printf ("%d", value);
      }
    case PROTOBUF_C_TYPE_STRING:
      return g_strdup (*(char *const *) ptr != NULL ? *(char *const *) ptr : "");
    case PROTOBUF_C_TYPE_BYTES:
      {
        const ProtobufCBinaryData *b = ptr;
        g_autofree char *raw = g_strndup ((const char *) b->data, b->len);
        return g_strescape (raw, NULL);
      }
    case PROTOBUF_C_TYPE_MESSAGE:
    default:
      return g_strdup ("");
    }
}

char *
ct_field_value_to_text (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f,
                        gsize index)
{
  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    g_return_val_if_fail (index < ct_proto_field_count (msg, f), NULL);
  else
    index = 0;
  return element_to_text (f, ct_proto_field_element (msg, f, index));
}

char *
ct_field_default_to_text (const ProtobufCMessageDescriptor *desc,
                          const ProtobufCFieldDescriptor *f)
{
  ProtobufCMessage *fresh;
  char *text;

  if (f->label == PROTOBUF_C_LABEL_REPEATED || f->type == PROTOBUF_C_TYPE_MESSAGE)
    return g_strdup ("");
  fresh = ct_proto_message_new (desc);
  text = element_to_text (f, ct_proto_field_member (fresh, f));
  protobuf_c_message_free_unpacked (fresh, NULL);
  return text;
}

/* Walking. */

/* Follow every segment but the last from ROOT. Sets *OUT to the message
 * holding the last field, or NULL when a message on the way is absent and
 * CREATE is FALSE. */
static gboolean
walk (ProtobufCMessage *root, GArray *segments, gboolean create, const char *path,
      ProtobufCMessage **out, const ProtobufCFieldDescriptor **field_out, GError **error)
{
  ProtobufCMessage *msg = root;

  for (guint i = 0; i < segments->len; i++)
    {
      const Segment *seg = &g_array_index (segments, Segment, i);
      const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name (msg->descriptor, seg->name);
      gboolean last = i + 1 == segments->len;

      if (f == NULL)
        {
          g_set_error (error, CT_FIELD_PATH_ERROR, 2, _("%s: %s has no field '%s'"), path,
                       msg->descriptor->short_name, seg->name);
          return FALSE;
        }
      if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        {
          g_set_error (error, CT_FIELD_PATH_ERROR, 2, _("%s: oneof fields cannot be edited"),
                       path);
          return FALSE;
        }
      if (f->label != PROTOBUF_C_LABEL_REPEATED && seg->index >= 0)
        {
          g_set_error (error, CT_FIELD_PATH_ERROR, 2,
                       _("%s: field '%s' is not repeated and takes no index"), path, seg->name);
          return FALSE;
        }
      if (last)
        {
          *out = msg;
          *field_out = f;
          return TRUE;
        }
      if (f->type != PROTOBUF_C_TYPE_MESSAGE)
        {
          g_set_error (error, CT_FIELD_PATH_ERROR, 2, _("%s: field '%s' is not a message"), path,
                       seg->name);
          return FALSE;
        }
      if (f->label == PROTOBUF_C_LABEL_REPEATED)
        {
          gsize n = ct_proto_field_count (msg, f);
          if (seg->index < 0 || (gsize) seg->index >= n)
            {
              g_set_error (error, CT_FIELD_PATH_ERROR, 2,
                           _("%s: field '%s' needs an index below %u"), path,
                           seg->name, (guint) n);
              return FALSE;
            }
          msg = (*(ProtobufCMessage ***) ct_proto_field_member (msg, f))[seg->index];
        }
      else
        {
          ProtobufCMessage **slot = ct_proto_field_member (msg, f);
          if (*slot == NULL)
            {
              if (!create)
                {
                  *out = NULL;
                  *field_out = NULL;
                  return TRUE;
                }
              *slot = ct_proto_message_new (f->descriptor);
            }
          msg = *slot;
        }
    }
  g_assert_not_reached ();
}

gboolean
ct_field_path_set (ProtobufCMessage *root, const char *path, const char *value,
                   GError **error)
{
  g_autoptr (GArray) segments = parse_path (path, error);
  const ProtobufCFieldDescriptor *f = NULL;
  ProtobufCMessage *msg = NULL;
  const Segment *last;
  guint8 element[sizeof (ProtobufCBinaryData) + 8] = { 0 };
  gsize size;

  g_return_val_if_fail (value != NULL, FALSE);
  if (segments == NULL)
    return FALSE;
  last = &g_array_index (segments, Segment, segments->len - 1);
  /* Parse before creating anything, so that a bad value changes nothing. */
  {
    const ProtobufCMessageDescriptor *desc = root->descriptor;

    for (guint i = 0; i < segments->len; i++)
      {
        const Segment *seg = &g_array_index (segments, Segment, i);
        f = protobuf_c_message_descriptor_get_field_by_name (desc, seg->name);
        if (f == NULL)
          break;
        if (i + 1 < segments->len)
          {
            if (f->type != PROTOBUF_C_TYPE_MESSAGE)
              break;
            desc = f->descriptor;
          }
      }
    if (f != NULL && !ct_field_check_value (f, value, error))
      {
        g_prefix_error (error, "%s: ", path);
        return FALSE;
      }
  }
  /* Check the index against what is there before creating anything. */
  {
    const ProtobufCFieldDescriptor *last_field = f;
    ProtobufCMessage *holder = NULL;
    const ProtobufCFieldDescriptor *found = NULL;
    gsize count;

    if (!walk (root, segments, FALSE, path, &holder, &found, error))
      return FALSE;
    count = holder != NULL ? ct_proto_field_count (holder, found) : 0;
    if (last_field != NULL && last_field->label == PROTOBUF_C_LABEL_REPEATED
        && (last->index < 0 || (gsize) last->index > count))
      {
        g_set_error (error, CT_FIELD_PATH_ERROR, 2,
                     _("%s: field '%s' needs an index up to %u"), path,
                     last_field->name, (guint) count);
        return FALSE;
      }
  }
  if (!walk (root, segments, TRUE, path, &msg, &f, error))
    return FALSE;
  size = ct_proto_type_size (f->type);
  if (!parse_element (f, value, element, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    {
      size_t *count = ct_proto_field_quantifier (msg, f);
      char **array = ct_proto_field_member (msg, f);

      if (last->index < 0 || (gsize) last->index > *count)
        {
          ct_proto_value_clear (f, element);
          g_set_error (error, CT_FIELD_PATH_ERROR, 2,
                       _("%s: field '%s' needs an index up to %u"), path,
                       f->name, (guint) *count);
          return FALSE;
        }
      if ((gsize) last->index == *count)
        memcpy (ct_proto_field_append (msg, f), element, size);
      else
        {
          ct_proto_value_clear (f, *array + last->index * size);
          memcpy (*array + last->index * size, element, size);
        }
      return TRUE;
    }

  ct_proto_value_clear (f, ct_proto_field_member (msg, f));
  memcpy (ct_proto_field_member (msg, f), element, size);
  ct_proto_field_set_present (msg, f, TRUE);
  return TRUE;
}

/* Put the default back into an optional field's storage. */
static void
reset_to_default (ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  void *member = ct_proto_field_member (msg, f);

  ct_proto_value_clear (f, member);
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      *(const char **) member = f->default_value;
      break;
    case PROTOBUF_C_TYPE_MESSAGE:
      break;
    case PROTOBUF_C_TYPE_BYTES:
      if (f->default_value != NULL)
        *(ProtobufCBinaryData *) member = *(const ProtobufCBinaryData *) f->default_value;
      break;
    default:
      {
        ProtobufCMessage *fresh = ct_proto_message_new (msg->descriptor);
        memcpy (member, ct_proto_field_member (fresh, f), ct_proto_type_size (f->type));
        protobuf_c_message_free_unpacked (fresh, NULL);
      }
      break;
    }
  ct_proto_field_set_present (msg, f, FALSE);
}

gboolean
ct_field_path_clear (ProtobufCMessage *root, const char *path, GError **error)
{
  g_autoptr (GArray) segments = parse_path (path, error);
  const ProtobufCFieldDescriptor *f = NULL;
  ProtobufCMessage *msg = NULL;
  const Segment *last;

  if (segments == NULL || !walk (root, segments, FALSE, path, &msg, &f, error))
    return FALSE;
  if (msg == NULL)
    return TRUE;
  last = &g_array_index (segments, Segment, segments->len - 1);

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    {
      size_t *count = ct_proto_field_quantifier (msg, f);
      char **array = ct_proto_field_member (msg, f);
      gsize size = ct_proto_type_size (f->type);

      if (last->index < 0)
        {
          for (gsize i = 0; i < *count; i++)
            ct_proto_value_clear (f, *array + i * size);
          g_clear_pointer (array, g_free);
          *count = 0;
          return TRUE;
        }
      if ((gsize) last->index >= *count)
        return TRUE;
      ct_proto_value_clear (f, *array + last->index * size);
      memmove (*array + last->index * size, *array + (last->index + 1) * size,
               (*count - last->index - 1) * size);
      if (--(*count) == 0)
        g_clear_pointer (array, g_free);
      return TRUE;
    }
  if (f->label == PROTOBUF_C_LABEL_REQUIRED)
    {
      g_set_error (error, CT_FIELD_PATH_ERROR, 2, _("%s: a required field cannot be cleared"),
                   path);
      return FALSE;
    }
  reset_to_default (msg, f);
  return TRUE;
}

char *
ct_field_path_get (const ProtobufCMessage *root, const char *path, GError **error)
{
  g_autoptr (GArray) segments = parse_path (path, error);
  const ProtobufCFieldDescriptor *f = NULL;
  ProtobufCMessage *msg = NULL;
  const Segment *last;
  gsize n;

  if (segments == NULL
      || !walk ((ProtobufCMessage *) root, segments, FALSE, path, &msg, &f, error))
    return NULL;
  if (msg == NULL)
    return NULL;
  last = &g_array_index (segments, Segment, segments->len - 1);
  n = ct_proto_field_count (msg, f);
  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    {
      if (last->index < 0)
        {
          g_set_error (error, CT_FIELD_PATH_ERROR, 2, _("%s: field '%s' needs an index"), path,
                       f->name);
          return NULL;
        }
      return (gsize) last->index < n ? ct_field_value_to_text (msg, f, last->index) : NULL;
    }
  return n > 0 ? ct_field_value_to_text (msg, f, 0) : NULL;
}
