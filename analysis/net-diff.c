/* net-diff.c: comparing two nets field by field, over the descriptors. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "caffe.pb-c.h"
#include "net-diff.h"
#include "proto-file.h"
#include "reflect.h"
#include "text-format.h"

#define NONE "(none)"

static void
entry_free (gpointer p)
{
  CtNetDiffEntry *e = p;

  g_free (e->layer_a);
  g_free (e->layer_b);
  g_free (e->type);
  g_free (e->field);
  g_free (e->value_a);
  g_free (e->value_b);
  g_free (e);
}

static CtNetDiffEntry *
add_entry (GPtrArray *out, CtNetDiffKind kind, const char *layer_a, const char *layer_b)
{
  CtNetDiffEntry *e = g_new0 (CtNetDiffEntry, 1);

  e->kind = kind;
  e->layer_a = g_strdup (layer_a);
  e->layer_b = g_strdup (layer_b);
  g_ptr_array_add (out, e);
  return e;
}

/* A message on one line: its text with the line breaks folded. */
static char *
message_text (const ProtobufCMessage *msg)
{
  g_autofree char *text = ct_text_print (msg);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *s = g_string_new ("{");

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_strstrip (lines[i])[0] != '\0')
      g_string_append_printf (s, " %s", lines[i]);
  g_string_append (s, " }");
  return g_string_free (s, FALSE);
}

static char *
value_text (const ProtobufCFieldDescriptor *f, const void *v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      return g_strdup_printf ("%d", *(const gint32 *) v);
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      return g_strdup_printf ("%u", *(const guint32 *) v);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, *(const gint64 *) v);
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, *(const guint64 *) v);
    case PROTOBUF_C_TYPE_FLOAT:
      return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.9g", *(const float *) v));
    case PROTOBUF_C_TYPE_DOUBLE:
      return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", *(const double *) v));
    case PROTOBUF_C_TYPE_BOOL:
      return g_strdup (*(const protobuf_c_boolean *) v ? "true" : "false");
    case PROTOBUF_C_TYPE_ENUM:
      {
        const ProtobufCEnumValue *ev =
          protobuf_c_enum_descriptor_get_value (f->descriptor, *(const int *) v);

        return ev != NULL ? g_strdup (ev->name) : g_strdup_printf ("%d", *(const int *) v);
      }
    case PROTOBUF_C_TYPE_STRING:
      {
        const char *s = *(char *const *) v;
        g_autofree char *escaped = g_strescape (s != NULL ? s : "", NULL);

        return s == NULL ? g_strdup (NONE) : g_strdup_printf ("\"%s\"", escaped);
      }
    case PROTOBUF_C_TYPE_BYTES:
      {
        const ProtobufCBinaryData *b = v;
        g_autofree char *raw = g_strndup ((const char *) b->data, b->len);
        g_autofree char *escaped = g_strescape (raw != NULL ? raw : "", NULL);

        return g_strdup_printf ("\"%s\"", escaped);
      }
    case PROTOBUF_C_TYPE_MESSAGE:
      {
        const ProtobufCMessage *m = *(ProtobufCMessage *const *) v;

        return m == NULL ? g_strdup (NONE) : message_text (m);
      }
    }
  return g_strdup ("?");
}

/* A repeated field's values as "[a, b]", or one value. */
static char *
field_text (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
  gsize n = ct_proto_field_count (msg, f);
  GString *s;

  if (f->label != PROTOBUF_C_LABEL_REPEATED)
    return value_text (f, ct_proto_field_element (msg, f, 0));
  if (n == 0)
    return g_strdup (NONE);
  s = g_string_new (n > 1 ? "[" : "");
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *v = value_text (f, ct_proto_field_element (msg, f, i));

      g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", v);
    }
  if (n > 1)
    g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void compare_messages (const ProtobufCMessage *a, const ProtobufCMessage *b,
                              const char *prefix, const char *layer, gboolean skip_layers,
                              GPtrArray *out);

static void
add_change (GPtrArray *out, const char *layer, const char *path, char *va, char *vb)
{
  CtNetDiffEntry *e = add_entry (out, CT_NET_DIFF_CHANGED, layer, layer);

  e->field = g_strdup (path);
  e->value_a = va;
  e->value_b = vb;
}

static void
compare_field (const ProtobufCMessage *a, const ProtobufCMessage *b,
               const ProtobufCFieldDescriptor *f, const char *path, const char *layer,
               GPtrArray *out)
{
  gsize na = ct_proto_field_count (a, f), nb = ct_proto_field_count (b, f);
  g_autofree char *va = NULL;
  g_autofree char *vb = NULL;

  if (f->type == PROTOBUF_C_TYPE_MESSAGE && f->label != PROTOBUF_C_LABEL_REPEATED)
    {
      const ProtobufCMessage *ma = *(ProtobufCMessage *const *) ct_proto_field_member (a, f);
      const ProtobufCMessage *mb = *(ProtobufCMessage *const *) ct_proto_field_member (b, f);

      if (ma != NULL && mb != NULL)
        {
          compare_messages (ma, mb, path, layer, FALSE, out);
          return;
        }
      if (ma == NULL && mb == NULL)
        return;
    }
  else if (f->type == PROTOBUF_C_TYPE_MESSAGE && na == nb)
    {
      for (gsize i = 0; i < na; i++)
        {
          g_autofree char *item = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", path, i);

          compare_messages (*(ProtobufCMessage *const *) ct_proto_field_element (a, f, i),
                            *(ProtobufCMessage *const *) ct_proto_field_element (b, f, i),
                            item, layer, FALSE, out);
        }
      return;
    }
  va = field_text (a, f);
  vb = field_text (b, f);
  if (strcmp (va, vb) != 0)
    add_change (out, layer, path, g_steal_pointer (&va), g_steal_pointer (&vb));
}

/* Unknown fields kept directly in MSG (not in messages inside it): "name"
 * to text. */
static GHashTable *
own_unknown (const ProtobufCMessage *msg)
{
  GHashTable *own = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) all = ct_text_list_unknown (msg);
  const char *type = msg->descriptor->short_name;

  for (guint i = 0; i < all->len; i++)
    {
      const CtTextUnknown *u = all->pdata[i];
      g_autofree char *key = NULL;
      g_autofree char *text = NULL;
      g_auto (GStrv) words = NULL;

      /* kept text inside known sub-messages is compared there */
      if (strcmp (u->message_type, type) != 0 || u->value != NULL)
        continue;
      key = g_strdup_printf ("?%s", u->field_name);
      words = g_strsplit_set (u->text, " \t\r\n", -1);
      text = g_strjoinv (" ", words);
      if (g_hash_table_contains (own, key))
        {
          char *joined = g_strconcat (g_hash_table_lookup (own, key), "; ", text, NULL);

          g_hash_table_replace (own, g_steal_pointer (&key), joined);
        }
      else
        g_hash_table_insert (own, g_steal_pointer (&key), g_steal_pointer (&text));
    }
  return own;
}

static void
compare_unknown (const ProtobufCMessage *a, const ProtobufCMessage *b, const char *prefix,
                 const char *layer, GPtrArray *out)
{
  g_autoptr (GHashTable) ua = own_unknown (a);
  g_autoptr (GHashTable) ub = own_unknown (b);
  g_autoptr (GList) keys = NULL;
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, ua);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    keys = g_list_prepend (keys, key);
  g_hash_table_iter_init (&iter, ub);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (ua, key))
      keys = g_list_prepend (keys, key);
  keys = g_list_sort (keys, (GCompareFunc) strcmp);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      const char *va = g_hash_table_lookup (ua, l->data);
      const char *vb = g_hash_table_lookup (ub, l->data);
      g_autofree char *path = prefix != NULL ? g_strdup_printf ("%s.%s", prefix,
                                                                (char *) l->data)
                                             : g_strdup (l->data);

      if (g_strcmp0 (va, vb) != 0)
        add_change (out, layer, path, g_strdup (va != NULL ? va : NONE),
                    g_strdup (vb != NULL ? vb : NONE));
    }
}

static void
compare_messages (const ProtobufCMessage *a, const ProtobufCMessage *b, const char *prefix,
                  const char *layer, gboolean skip_layers, GPtrArray *out)
{
  const ProtobufCMessageDescriptor *desc = a->descriptor;

  for (guint i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &desc->fields[i];
      g_autofree char *path = NULL;

      if (skip_layers && (strcmp (f->name, "layer") == 0 || strcmp (f->name, "layers") == 0))
        continue;
      path = prefix != NULL ? g_strdup_printf ("%s.%s", prefix, f->name) : g_strdup (f->name);
      compare_field (a, b, f, path, layer, out);
    }
  compare_unknown (a, b, prefix, layer, out);
}

/* Layers are matched by name; a name used more than once (a Data layer
 * per phase, as Caffe's examples have) matches occurrence by occurrence. */
static guint
occurrence (const Caffe__NetParameter *net, gsize index)
{
  guint k = 0;

  for (gsize i = 0; i < index; i++)
    if (g_strcmp0 (net->layer[i]->name, net->layer[index]->name) == 0)
      k++;
  return k;
}

static const Caffe__LayerParameter *
find_layer (const Caffe__NetParameter *net, const char *name, guint nth)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0 && nth-- == 0)
      return net->layer[i];
  return NULL;
}

/* The layer of B that layer INDEX of A matches, or NULL. */
static const Caffe__LayerParameter *
counterpart (const Caffe__NetParameter *a, gsize index, const Caffe__NetParameter *b)
{
  return find_layer (b, a->layer[index]->name, occurrence (a, index));
}

/* Whether A and B differ in nothing but their names. */
static gboolean
same_but_name (const Caffe__LayerParameter *a, const Caffe__LayerParameter *b)
{
  g_autoptr (GPtrArray) changes = g_ptr_array_new_with_free_func (entry_free);

  compare_messages (&a->base, &b->base, NULL, NULL, FALSE, changes);
  return changes->len == 1 && strcmp (((CtNetDiffEntry *) changes->pdata[0])->field, "name") == 0;
}

static void
compare_nets (const Caffe__NetParameter *a, const Caffe__NetParameter *b, GPtrArray *out)
{
  g_autofree gboolean *renamed_b = g_new0 (gboolean, b->n_layer + 1);

  compare_messages (&a->base, &b->base, NULL, NULL, TRUE, out);
  for (gsize i = 0; i < a->n_layer; i++)
    {
      const Caffe__LayerParameter *la = a->layer[i];
      const Caffe__LayerParameter *lb = counterpart (a, i, b);
      gboolean renamed = FALSE;

      if (lb != NULL)
        {
          compare_messages (&la->base, &lb->base, NULL, la->name, FALSE, out);
          continue;
        }
      for (gsize j = 0; j < b->n_layer && !renamed; j++)
        if (!renamed_b[j] && counterpart (b, j, a) == NULL && same_but_name (la, b->layer[j]))
          {
            CtNetDiffEntry *e = add_entry (out, CT_NET_DIFF_RENAMED, la->name, b->layer[j]->name);

            e->type = g_strdup (la->type);
            renamed_b[j] = renamed = TRUE;
          }
      if (!renamed)
        add_entry (out, CT_NET_DIFF_REMOVED, la->name, NULL)->type = g_strdup (la->type);
    }
  for (gsize j = 0; j < b->n_layer; j++)
    if (!renamed_b[j] && counterpart (b, j, a) == NULL)
      add_entry (out, CT_NET_DIFF_ADDED, NULL, b->layer[j]->name)->type =
        g_strdup (b->layer[j]->type);
}

GPtrArray *
ct_net_diff_compute (const ProtobufCMessage *a, const ProtobufCMessage *b)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (entry_free);

  g_return_val_if_fail (a->descriptor == b->descriptor, out);
  if (a->descriptor == &caffe__net_parameter__descriptor)
    compare_nets ((const Caffe__NetParameter *) a, (const Caffe__NetParameter *) b, out);
  else
    compare_messages (a, b, NULL, NULL, FALSE, out);
  return out;
}

GPtrArray *
ct_net_diff_files (const char *path_a, const char *path_b, GError **error)
{
  CtProtoKind kind_a, kind_b;
  ProtobufCMessage *a, *b;
  GPtrArray *out = NULL;

  a = ct_proto_load_text_file (path_a, CT_TEXT_LENIENT, &kind_a, NULL, error);
  if (a == NULL)
    return NULL;
  b = ct_proto_load_text_file (path_b, CT_TEXT_LENIENT, &kind_b, NULL, error);
  if (b != NULL && kind_a != kind_b)
    g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                 _("%s and %s hold different kinds of file (a net and a solver)"), path_a,
                 path_b);
  else if (b != NULL)
    out = ct_net_diff_compute (a, b);
  protobuf_c_message_free_unpacked (a, NULL);
  if (b != NULL)
    protobuf_c_message_free_unpacked (b, NULL);
  return out;
}

static void
ct_proto_message_free (gpointer msg)
{
  protobuf_c_message_free_unpacked (msg, NULL);
}

static ProtobufCMessage *
parse_net_text (const char *text, const char *name, GError **error)
{
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1, name,
                                         CT_TEXT_LENIENT, error);

  if (msg != NULL && !ct_proto_upgrade (msg, CT_PROTO_KIND_NET, name, NULL, error))
    g_clear_pointer (&msg, ct_proto_message_free);
  return msg;
}

GPtrArray *
ct_net_diff_texts (const char *text_a, const char *name_a, const char *text_b,
                   const char *name_b, GError **error)
{
  ProtobufCMessage *a = parse_net_text (text_a, name_a, error);
  ProtobufCMessage *b = a != NULL ? parse_net_text (text_b, name_b, error) : NULL;
  GPtrArray *out = NULL;

  if (b != NULL)
    out = ct_net_diff_compute (a, b);
  if (a != NULL)
    protobuf_c_message_free_unpacked (a, NULL);
  if (b != NULL)
    protobuf_c_message_free_unpacked (b, NULL);
  return out;
}

char *
ct_net_diff_to_text (GPtrArray *entries)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      const CtNetDiffEntry *e = entries->pdata[i];

      switch (e->kind)
        {
        case CT_NET_DIFF_ADDED:
          g_string_append_printf (s, "+ layer '%s' (%s)\n", e->layer_b, e->type);
          break;
        case CT_NET_DIFF_REMOVED:
          g_string_append_printf (s, "- layer '%s' (%s)\n", e->layer_a, e->type);
          break;
        case CT_NET_DIFF_RENAMED:
          g_string_append_printf (s, "~ layer '%s' renamed to '%s'\n", e->layer_a, e->layer_b);
          break;
        case CT_NET_DIFF_CHANGED:
          g_string_append_printf (s, "~ %s: %s: %s -> %s\n",
                                  e->layer_a != NULL ? e->layer_a : "net", e->field, e->value_a,
                                  e->value_b);
          break;
        }
    }
  return g_string_free (s, FALSE);
}
