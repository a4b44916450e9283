/* document-edit.c: CtDocument's edits. Each one works on a copy of the
 * parsed net, and only when it succeeds prints the copy back as the new
 * text (one undo step), so that a refused edit changes nothing. */
#include <stdlib.h>
#include <glib/gi18n-lib.h>

#include "document-private.h"
#include "field-path.h"
#include "net-edit.h"
#include "source-map.h"
#include "text-format.h"

/* A deep copy of the document's net to edit, or NULL while the text has
 * errors: editing the graph would then throw away what is being typed. */
static Caffe__NetParameter *
working_copy (CtDocument *self, GError **error)
{
  g_autofree char *text = NULL;

  if (self->parse_error != NULL || self->net == NULL)
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 10,
                   _("The source has errors: fix them before editing the graph"));
      return NULL;
    }
  text = ct_text_print (&self->net->base);
  return (Caffe__NetParameter *) ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                                ct_document_get_title (self), CT_TEXT_LENIENT,
                                                error);
}

/* Print COPY (freeing it) as the new text, keeping the file's head comment. */
static void
commit (CtDocument *self, Caffe__NetParameter *copy, const char *group)
{
  g_autofree char *head = ct_source_leading_comment (self->text);
  g_autofree char *body = ct_text_print (&copy->base);
  g_autofree char *text = NULL;

  protobuf_c_message_free_unpacked (&copy->base, NULL);
  if (*head != '\0' && !g_str_has_suffix (head, "\n"))
    {
      g_autofree char *line = g_strconcat (head, "\n", NULL);
      text = g_strconcat (line, body, NULL);
    }
  else
    text = g_strconcat (head, body, NULL);
  ct_document_replace_text (self, text, group, 0);
}

static void
discard (Caffe__NetParameter *copy)
{
  if (copy != NULL)
    protobuf_c_message_free_unpacked (&copy->base, NULL);
}

int
ct_document_add_layer (CtDocument *self, const char *type, const char *bottom,
                       GError **error)
{
  Caffe__NetParameter *copy;
  int index;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), -1);
  copy = working_copy (self, error);
  if (copy == NULL)
    return -1;
  index = ct_net_edit_add_layer (copy, type, bottom, error);
  if (index < 0)
    {
      discard (copy);
      return -1;
    }
  commit (self, copy, NULL);
  return index;
}

int
ct_document_insert_layer (CtDocument *self, const char *type, guint from, guint from_top,
                          guint to, guint to_bottom, GError **error)
{
  Caffe__NetParameter *copy;
  int index;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), -1);
  copy = working_copy (self, error);
  if (copy == NULL)
    return -1;
  index = ct_net_edit_insert_layer (copy, type, from, from_top, to, to_bottom, error);
  if (index < 0)
    {
      discard (copy);
      return -1;
    }
  commit (self, copy, NULL);
  return index;
}

static int
compare_desc (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? 1 : x > y ? -1 : 0;
}

gboolean
ct_document_delete_layers (CtDocument *self, const guint *indices, guint n, GError **error)
{
  Caffe__NetParameter *copy;
  g_autofree guint *sorted = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  if (n == 0)
    return TRUE;
  copy = working_copy (self, error);
  if (copy == NULL)
    return FALSE;
  /* From the last, so that the indices of the others stay right. */
  sorted = g_memdup2 (indices, n * sizeof *indices);
  qsort (sorted, n, sizeof *sorted, compare_desc);
  for (guint i = 0; i < n; i++)
    {
      if (i > 0 && sorted[i] == sorted[i - 1])
        continue;
      if (!ct_net_edit_delete_layer (copy, sorted[i], error))
        {
          discard (copy);
          return FALSE;
        }
    }
  commit (self, copy, NULL);
  return TRUE;
}

gboolean
ct_document_rename_layer (CtDocument *self, guint index, const char *name, GError **error)
{
  Caffe__NetParameter *copy;
  g_autofree char *old = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  copy = working_copy (self, error);
  if (copy == NULL)
    return FALSE;
  if (index < copy->n_layer)
    old = g_strdup (copy->layer[index]->name);
  if (!ct_net_edit_rename_layer (copy, index, name, error))
    {
      discard (copy);
      return FALSE;
    }
  /* The node keeps its place in the graph under its new name. */
  if (old != NULL)
    ct_document_rename_node (self, old, copy->layer[index]->name);
  commit (self, copy, NULL);
  return TRUE;
}

gboolean
ct_document_connect (CtDocument *self, guint from, guint from_top, guint to, int to_bottom,
                     GError **error)
{
  Caffe__NetParameter *copy;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  copy = working_copy (self, error);
  if (copy == NULL)
    return FALSE;
  if (!ct_net_edit_connect (copy, from, from_top, to, to_bottom, error))
    {
      discard (copy);
      return FALSE;
    }
  commit (self, copy, NULL);
  return TRUE;
}

gboolean
ct_document_disconnect (CtDocument *self, guint to, guint to_bottom, GError **error)
{
  Caffe__NetParameter *copy;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  copy = working_copy (self, error);
  if (copy == NULL)
    return FALSE;
  if (!ct_net_edit_disconnect (copy, to, to_bottom, error))
    {
      discard (copy);
      return FALSE;
    }
  commit (self, copy, NULL);
  return TRUE;
}

/* "layer[4].name" -> 4, or -1 when PATH is not a layer's name. */
static int
renamed_layer (const char *path)
{
  guint64 index;
  char *end = NULL;

  if (!g_str_has_prefix (path, "layer["))
    return -1;
  index = g_ascii_strtoull (path + 6, &end, 10);
  if (end == path + 6 || !g_str_equal (end, "].name"))
    return -1;
  return (int) MIN (index, G_MAXINT);
}

gboolean
ct_document_set_field (CtDocument *self, const char *path, const char *value, GError **error)
{
  Caffe__NetParameter *copy;
  g_autofree char *group = NULL;
  int layer = renamed_layer (path);
  gboolean ok;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  if (layer >= 0 && value != NULL)
    return ct_document_rename_layer (self, (guint) layer, value, error);
  copy = working_copy (self, error);
  if (copy == NULL)
    return FALSE;
  ok = value != NULL ? ct_field_path_set (&copy->base, path, value, error)
                     : ct_field_path_clear (&copy->base, path, error);
  if (!ok)
    {
      discard (copy);
      return FALSE;
    }
  group = g_strconcat ("field:", path, NULL);
  commit (self, copy, group);
  return TRUE;
}

char *
ct_document_copy_layers (CtDocument *self, const guint *indices, guint n)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  if (self->net == NULL)
    return g_strdup ("");
  return ct_net_edit_copy_text (self->net, indices, n);
}

gboolean
ct_document_paste (CtDocument *self, const char *text, GArray *new_indices, GError **error)
{
  Caffe__NetParameter *copy;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  copy = working_copy (self, error);
  if (copy == NULL)
    return FALSE;
  if (!ct_net_edit_paste_text (copy, text, new_indices, error))
    {
      discard (copy);
      return FALSE;
    }
  commit (self, copy, NULL);
  return TRUE;
}

gboolean
ct_document_duplicate_layers (CtDocument *self, const guint *indices, guint n,
                              GArray *new_indices, GError **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  if (n == 0)
    return TRUE;
  text = ct_document_copy_layers (self, indices, n);
  return ct_document_paste (self, text, new_indices, error);
}
