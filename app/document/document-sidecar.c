/* document-sidecar.c: what the document keeps outside the prototxt.
 *
 * The sidecar NET.prototxt.cortado is a key file with one group per node
 * ("[node conv1]": x, y, expanded), so that a layout survives reopening
 * without a single byte of layout in the prototxt that Caffe reads, and one
 * per data layer whose shape is remembered ("[data mnist]", see
 * document-data-shapes.c).
 *
 * Drafts: while the text has unsaved changes it is written, a moment after
 * each change, to the user cache folder (cortado/drafts, or
 * $CORTADO_DRAFTS_DIR): ID.prototxt with the text and ID.draft, a key file
 * naming the file it belongs to. Saving or discarding deletes them, so the
 * drafts found at start-up are what a crash left behind. */
#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include <glib/gi18n-lib.h>

#include "document-private.h"

#define SIDECAR_SUFFIX ".cortado"
#define DRAFT_DELAY_MS 2000

/* Sidecar. */

static char *
sidecar_path (CtDocument *self)
{
  g_autofree char *path = self->file != NULL ? g_file_get_path (self->file) : NULL;

  return path != NULL ? g_strconcat (path, SIDECAR_SUFFIX, NULL) : NULL;
}

static char *
node_group (const char *id)
{
  return g_strconcat ("node ", id, NULL);
}

void
ct_document_load_sidecar (CtDocument *self)
{
  g_autofree char *path = sidecar_path (self);

  g_key_file_unref (self->sidecar);
  self->sidecar = g_key_file_new ();
  self->sidecar_dirty = FALSE;
  if (path != NULL && g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autoptr (GError) error = NULL;
      if (!g_key_file_load_from_file (self->sidecar, path, G_KEY_FILE_NONE, &error))
        g_debug ("ignoring sidecar %s: %s", path, error->message);
    }
}

gboolean
ct_document_get_node_position (CtDocument *self, const char *id, double *x, double *y)
{
  g_autofree char *group = node_group (id);
  g_autoptr (GError) error = NULL;
  double px, py;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  px = g_key_file_get_double (self->sidecar, group, "x", &error);
  if (error != NULL)
    return FALSE;
  py = g_key_file_get_double (self->sidecar, group, "y", &error);
  if (error != NULL)
    return FALSE;
  if (x != NULL)
    *x = px;
  if (y != NULL)
    *y = py;
  return TRUE;
}

void
ct_document_set_node_position (CtDocument *self, const char *id, double x, double y)
{
  g_autofree char *group = node_group (id);

  g_return_if_fail (CT_IS_DOCUMENT (self));
  g_key_file_set_double (self->sidecar, group, "x", x);
  g_key_file_set_double (self->sidecar, group, "y", y);
  self->sidecar_dirty = TRUE;
}

gboolean
ct_document_get_node_expanded (CtDocument *self, const char *id)
{
  g_autofree char *group = node_group (id);

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  return g_key_file_get_boolean (self->sidecar, group, "expanded", NULL);
}

void
ct_document_set_node_expanded (CtDocument *self, const char *id, gboolean expanded)
{
  g_autofree char *group = node_group (id);

  g_return_if_fail (CT_IS_DOCUMENT (self));
  if (ct_document_get_node_expanded (self, id) == expanded)
    return;
  g_key_file_set_boolean (self->sidecar, group, "expanded", expanded);
  self->sidecar_dirty = TRUE;
}

/* Move the keys of group FROM to group TO (replacing it). */
static void
rename_group (CtDocument *self, const char *from, const char *to)
{
  g_auto (GStrv) keys = g_key_file_get_keys (self->sidecar, from, NULL, NULL);

  if (keys == NULL)
    return;
  g_key_file_remove_group (self->sidecar, to, NULL);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autofree char *value = g_key_file_get_value (self->sidecar, from, keys[i], NULL);
      if (value != NULL)
        g_key_file_set_value (self->sidecar, to, keys[i], value);
    }
  g_key_file_remove_group (self->sidecar, from, NULL);
  self->sidecar_dirty = TRUE;
}

void
ct_document_rename_node (CtDocument *self, const char *old_id, const char *new_id)
{
  g_autofree char *from = node_group (old_id);
  g_autofree char *to = node_group (new_id);
  /* A data layer's shapes follow it too (document-data-shapes.c). */
  g_autofree char *data_from = g_strconcat ("data ", old_id, NULL);
  g_autofree char *data_to = g_strconcat ("data ", new_id, NULL);

  rename_group (self, from, to);
  rename_group (self, data_from, data_to);
}

gboolean
ct_document_save_sidecar (CtDocument *self, GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  path = sidecar_path (self);
  if (!self->sidecar_dirty || path == NULL)
    return TRUE;
  g_key_file_set_comment (self->sidecar, NULL, NULL,
                          " Cortado's layout of the net beside this file: node positions, "
                          "folds and data shapes", NULL);
  data = g_key_file_to_data (self->sidecar, &length, NULL);
  if (!g_file_set_contents (path, data, (gssize) length, error))
    return FALSE;
  self->sidecar_dirty = FALSE;
  return TRUE;
}

/* Drafts. */

static char *
drafts_dir (void)
{
  const char *dir = g_getenv ("CORTADO_DRAFTS_DIR");

  if (dir != NULL && *dir != '\0')
    return g_strdup (dir);
  return g_build_filename (g_get_user_cache_dir (), "cortado", "drafts", NULL);
}

static const char *
draft_id (CtDocument *self)
{
  if (self->draft_id == NULL)
    {
      if (self->file != NULL)
        {
          g_autofree char *uri = g_file_get_uri (self->file);
          g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA1, uri, -1);
          self->draft_id = g_strdup_printf ("file-%.16s", sum);
        }
      else
        {
          g_autofree char *uuid = g_uuid_string_random ();
          self->draft_id = g_strconcat ("untitled-", uuid, NULL);
        }
    }
  return self->draft_id;
}

static char *
draft_file (CtDocument *self, const char *suffix)
{
  g_autofree char *dir = drafts_dir ();
  g_autofree char *name = g_strconcat (draft_id (self), suffix, NULL);

  return g_build_filename (dir, name, NULL);
}

void
ct_document_write_draft (CtDocument *self)
{
  g_autofree char *dir = drafts_dir ();
  g_autofree char *text_path = NULL;
  g_autofree char *key_path = NULL;
  g_autoptr (GKeyFile) key = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;

  g_return_if_fail (CT_IS_DOCUMENT (self));
  g_clear_handle_id (&self->draft_source, g_source_remove);
  if (!ct_document_get_modified (self))
    return;
  text_path = draft_file (self, ".prototxt");
  key_path = draft_file (self, ".draft");
  if (self->file != NULL)
    {
      g_autofree char *uri = g_file_get_uri (self->file);
      g_key_file_set_string (key, "Draft", "uri", uri);
    }
  g_key_file_set_string (key, "Draft", "title", ct_document_get_title (self));
  g_key_file_set_int64 (key, "Draft", "time", g_get_real_time () / G_USEC_PER_SEC);
  data = g_key_file_to_data (key, NULL, NULL);
  /* A draft that cannot be written must not get in the user's way. */
  if (g_mkdir_with_parents (dir, 0700) != 0
      || !g_file_set_contents (text_path, self->text, -1, &error)
      || !g_file_set_contents (key_path, data, -1, &error))
    g_debug ("cannot write draft %s: %s", text_path,
             error != NULL ? error->message : g_strerror (errno));
}

static gboolean
draft_timeout (gpointer data)
{
  CtDocument *self = data;

  self->draft_source = 0;
  ct_document_write_draft (self);
  return G_SOURCE_REMOVE;
}

void
ct_document_schedule_draft (CtDocument *self)
{
  if (!ct_document_get_modified (self))
    {
      ct_document_discard_draft (self);
      return;
    }
  if (self->draft_source == 0)
    self->draft_source = g_timeout_add (DRAFT_DELAY_MS, draft_timeout, self);
}

void
ct_document_discard_draft (CtDocument *self)
{
  g_autofree char *text_path = NULL;
  g_autofree char *key_path = NULL;

  g_return_if_fail (CT_IS_DOCUMENT (self));
  g_clear_handle_id (&self->draft_source, g_source_remove);
  if (self->draft_id == NULL && self->file == NULL)
    return; /* an untitled document that never wrote one */
  text_path = draft_file (self, ".prototxt");
  key_path = draft_file (self, ".draft");
  g_unlink (text_path);
  g_unlink (key_path);
  self->has_draft = FALSE;
}

void
ct_document_clear_drafts (CtDocument *self)
{
  g_clear_handle_id (&self->draft_source, g_source_remove);
  g_clear_pointer (&self->draft_id, g_free);
  self->has_draft = FALSE;
}

void
ct_document_find_draft (CtDocument *self)
{
  g_autofree char *text_path = NULL;
  g_autofree char *text = NULL;

  self->has_draft = FALSE;
  if (self->file == NULL)
    return;
  text_path = draft_file (self, ".prototxt");
  if (g_file_get_contents (text_path, &text, NULL, NULL) && g_utf8_validate (text, -1, NULL))
    self->has_draft = g_strcmp0 (text, self->text) != 0;
}

gboolean
ct_document_has_draft (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  return self->has_draft;
}

gboolean
ct_document_restore_draft (CtDocument *self, GError **error)
{
  g_autofree char *text_path = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  text_path = draft_file (self, ".prototxt");
  if (!g_file_get_contents (text_path, &text, NULL, error))
    return FALSE;
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The draft is not text"));
      return FALSE;
    }
  self->has_draft = FALSE;
  ct_document_replace_text (self, text, NULL, 0);
  return TRUE;
}

GPtrArray *
ct_document_list_drafts (void)
{
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = drafts_dir ();
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_suffix (name, ".draft"))
      g_ptr_array_add (found, g_build_filename (dir, name, NULL));
  return found;
}

CtDocument *
ct_document_new_from_draft (const char *key_file_path, GError **error)
{
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GKeyFile) key = g_key_file_new ();
  g_autofree char *uri = NULL;
  g_autofree char *title = NULL;
  g_autofree char *text_path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *base = NULL;

  if (!g_key_file_load_from_file (key, key_file_path, G_KEY_FILE_NONE, error))
    return NULL;
  base = g_strndup (key_file_path, strlen (key_file_path) - strlen (".draft"));
  text_path = g_strconcat (base, ".prototxt", NULL);
  if (!g_file_get_contents (text_path, &text, NULL, error))
    return NULL;
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("The draft is not text"));
      return NULL;
    }
  uri = g_key_file_get_string (key, "Draft", "uri", NULL);
  title = g_key_file_get_string (key, "Draft", "title", NULL);
  if (uri != NULL)
    {
      g_autoptr (GFile) file = g_file_new_for_uri (uri);
      if (!ct_document_load (doc, file, NULL))
        ct_document_load_text (doc, "", title);
    }
  else
    {
      g_autofree char *name = g_path_get_basename (base);
      ct_document_load_text (doc, "", title);
      /* Keep writing to the same draft rather than leaving a copy behind. */
      g_free (doc->draft_id);
      doc->draft_id = g_steal_pointer (&name);
    }
  ct_document_replace_text (doc, text, NULL, 0);
  return g_steal_pointer (&doc);
}
