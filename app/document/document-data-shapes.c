/* document-data-shapes.c: shapes for data layers that cannot read their
 * source.
 *
 * A net copied without its databases (an example whose LMDB folders were
 * never made, a net mailed to a student) fails in its Data layer, and
 * without the data's shape no other layer has one. So the check falls back
 * on a shape for such a layer's tops: the one the user gave in the
 * inspector, or else the last one a check saw while the source could be
 * read. Both live in the sidecar, by layer name ("[data mnist]": given=,
 * seen=), as text such as "64x1x28x28;64"; the batch size written in the
 * layer replaces the first axis, so TRAIN and TEST layers of one name share
 * them. The inference itself is stand-in-shapes.c's, shared with the
 * graph: the rest of the net keeps its shapes, parameter count and FLOPs,
 * and the data layer its error. */
#include <string.h>

#include "document-private.h"
#include "stand-in-shapes.h"

static char *
data_group (const char *layer)
{
  return g_strconcat ("data ", layer, NULL);
}

/* SHAPES as the sidecar keeps them; SEPARATOR joins the sizes. */
static char *
format_shapes (GPtrArray *tops, const char *separator)
{
  GString *out = g_string_new (NULL);

  for (guint t = 0; t < tops->len; t++)
    {
      const CtNetShapeBlob *blob = tops->pdata[t];

      if (t > 0)
        g_string_append (out, ";");
      for (guint i = 0; i < blob->n_axes; i++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? separator : "",
                                blob->dims[i]);
    }
  return g_string_free (out, FALSE);
}

gboolean
ct_document_set_data_shape (CtDocument *self, const char *layer, const char *text,
                            GError **error)
{
  g_autofree char *group = NULL;
  g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autoptr (GPtrArray) shapes = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (layer != NULL, FALSE);
  group = data_group (layer);
  if (*trimmed == '\0')
    {
      if (g_key_file_remove_key (self->sidecar, group, "given", NULL))
        self->sidecar_dirty = TRUE;
    }
  else
    {
      g_autoptr (GString) stored = g_string_new (NULL);

      if ((shapes = ct_stand_in_parse (trimmed, error)) == NULL)
        return FALSE;
      for (guint t = 0; t < shapes->len; t++)
        {
          GArray *dims = shapes->pdata[t];

          for (guint i = 0; i < dims->len; i++)
            g_string_append_printf (stored, "%s%" G_GINT64_FORMAT, i > 0 ? "x" : t > 0 ? ";" : "",
                                    g_array_index (dims, gint64, i));
        }
      g_key_file_set_string (self->sidecar, group, "given", stored->str);
      self->sidecar_dirty = TRUE;
    }
  if (self->net != NULL)
    {
      /* The graph derives its shapes anew; the check follows. */
      ct_document_emit_changed (self, CT_DOCUMENT_CHANGE_NET);
      ct_document_schedule_check (self);
    }
  return TRUE;
}

char *
ct_document_dup_data_shape (CtDocument *self, const char *layer)
{
  g_autofree char *group = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GString) shown = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  group = data_group (layer);
  text = g_key_file_get_string (self->sidecar, group, "given", NULL);
  if (text == NULL)
    text = g_key_file_get_string (self->sidecar, group, "seen", NULL);
  if (text == NULL)
    return NULL;
  /* As the inspector writes shapes. */
  shown = g_string_new (text);
  g_string_replace (shown, "x", "×", 0);
  g_string_replace (shown, ";", "; ", 0);
  return g_string_free (g_steal_pointer (&shown), FALSE);
}

GHashTable *
ct_document_dup_stand_in_shapes (CtDocument *self)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) groups = g_key_file_get_groups (self->sidecar, NULL);

  for (guint i = 0; groups[i] != NULL; i++)
    {
      char *text;

      if (!g_str_has_prefix (groups[i], "data "))
        continue;
      text = g_key_file_get_string (self->sidecar, groups[i], "given", NULL);
      if (text == NULL)
        text = g_key_file_get_string (self->sidecar, groups[i], "seen", NULL);
      if (text != NULL)
        g_hash_table_insert (table, g_strdup (groups[i] + strlen ("data ")), text);
    }
  return table;
}

static void
remember_layers (CtDocument *self, const CtNetShapes *shapes, GHashTable *done)
{
  for (guint i = 0; shapes != NULL && i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *layer = shapes->layers->pdata[i];
      g_autofree char *group = NULL;
      g_autofree char *text = NULL;
      g_autofree char *old = NULL;

      if (layer->status != CT_NET_LAYER_OK || !ct_stand_in_is_source (layer)
          || g_hash_table_contains (done, layer->name))
        continue;
      /* TRAIN's shape wins over TEST's of the same name. */
      g_hash_table_add (done, layer->name);
      group = data_group (layer->name);
      text = format_shapes (layer->tops, "x");
      old = g_key_file_get_string (self->sidecar, group, "seen", NULL);
      if (g_strcmp0 (old, text) == 0)
        continue;
      g_key_file_set_string (self->sidecar, group, "seen", text);
      self->sidecar_dirty = TRUE;
    }
}

void
ct_document_remember_data_shapes (CtDocument *self)
{
  g_autoptr (GHashTable) done = g_hash_table_new (g_str_hash, g_str_equal);

  remember_layers (self, self->shapes, done);
  remember_layers (self, self->test_shapes, done);
}
