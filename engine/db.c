/* db.c: CtDb's backend-independent part: checks on the path before a
 * backend is asked (so that a missing or existing database gets the same
 * clear message from both), dispatch to the backend, and write transactions
 * that keep their puts until commit. */
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "db-private.h"

struct _CtDbTxn {
  CtDb *db;
  GPtrArray *keys;   /* GBytes* */
  GPtrArray *values; /* GBytes* */
};

static const CtDbBackendFuncs *
funcs_for (CtDbBackend backend)
{
  return backend == CT_DB_LMDB ? &ct_db_lmdb_funcs : &ct_db_leveldb_funcs;
}

gboolean
ct_db_backend_from_name (const char *name, CtDbBackend *backend)
{
  if (g_ascii_strcasecmp (name, "lmdb") == 0)
    *backend = CT_DB_LMDB;
  else if (g_ascii_strcasecmp (name, "leveldb") == 0)
    *backend = CT_DB_LEVELDB;
  else
    return FALSE;
  return TRUE;
}

const char *
ct_db_backend_name (CtDbBackend backend)
{
  return backend == CT_DB_LMDB ? "LMDB" : "LevelDB";
}

CtDb *
ct_db_open (const char *path, CtDbBackend backend, CtDbMode mode, GError **error)
{
  CtDb *db;

  g_return_val_if_fail (path != NULL, NULL);

  if (backend != CT_DB_LMDB && backend != CT_DB_LEVELDB)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("%s: unknown database backend %d"), path, (int) backend);
      return NULL;
    }
  if (*path == '\0')
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND,
                   _("no database named: the source is empty"));
      return NULL;
    }
  if (mode == CT_DB_READ && !g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND,
                   g_file_test (path, G_FILE_TEST_EXISTS)
                     ? _("%s: not a %s database (not a folder)")
                     : _("%s: no %s database there (no such folder)"),
                   path, ct_db_backend_name (backend));
      return NULL;
    }
  if (mode == CT_DB_NEW && g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_EXISTS,
                   _("%s: already exists; remove it or choose another name"), path);
      return NULL;
    }
  db = funcs_for (backend)->open (path, mode, error);
  if (db == NULL)
    return NULL;
  db->funcs = funcs_for (backend);
  db->backend = backend;
  db->mode = mode;
  db->path = g_strdup (path);
  return db;
}

void
ct_db_free (CtDb *db)
{
  char *path;

  if (db == NULL)
    return;
  path = db->path;
  db->funcs->close (db);
  g_free (path);
}

const char *
ct_db_get_path (const CtDb *db)
{
  return db->path;
}

CtDbBackend
ct_db_get_backend (const CtDb *db)
{
  return db->backend;
}

CtDbCursor *
ct_db_cursor_new (CtDb *db, GError **error)
{
  CtDbCursor *cursor = db->funcs->cursor_new (db, error);

  if (cursor == NULL)
    return NULL;
  cursor->db = db;
  if (!db->funcs->seek_first (cursor, error))
    {
      db->funcs->cursor_free (cursor);
      return NULL;
    }
  return cursor;
}

void
ct_db_cursor_free (CtDbCursor *cursor)
{
  if (cursor != NULL)
    cursor->db->funcs->cursor_free (cursor);
}

gboolean
ct_db_cursor_seek_first (CtDbCursor *cursor, GError **error)
{
  return cursor->db->funcs->seek_first (cursor, error);
}

gboolean
ct_db_cursor_next (CtDbCursor *cursor, GError **error)
{
  if (!cursor->valid)
    return TRUE;
  return cursor->db->funcs->next (cursor, error);
}

gboolean
ct_db_cursor_valid (const CtDbCursor *cursor)
{
  return cursor->valid;
}

const guint8 *
ct_db_cursor_key (const CtDbCursor *cursor, gsize *length)
{
  *length = cursor->valid ? cursor->key_length : 0;
  return cursor->valid ? cursor->key : NULL;
}

const guint8 *
ct_db_cursor_value (const CtDbCursor *cursor, gsize *length)
{
  *length = cursor->valid ? cursor->value_length : 0;
  return cursor->valid ? cursor->value : NULL;
}

char *
ct_db_cursor_key_text (const CtDbCursor *cursor)
{
  g_autofree char *raw = NULL;

  if (!cursor->valid)
    return g_strdup ("");
  raw = g_strndup ((const char *) cursor->key, cursor->key_length);
  if (strlen (raw) == cursor->key_length && g_utf8_validate (raw, -1, NULL))
    return g_steal_pointer (&raw);
  /* binary keys: show every byte */
  {
    GString *text = g_string_new (NULL);

    for (gsize i = 0; i < cursor->key_length; i++)
      {
        guint8 c = cursor->key[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
          g_string_append_c (text, (char) c);
        else
          g_string_append_printf (text, "\\x%02x", c);
      }
    return g_string_free (text, FALSE);
  }
}

CtDbTxn *
ct_db_txn_new (CtDb *db)
{
  CtDbTxn *txn = g_new0 (CtDbTxn, 1);

  txn->db = db;
  txn->keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  txn->values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  return txn;
}

void
ct_db_txn_free (CtDbTxn *txn)
{
  if (txn == NULL)
    return;
  g_ptr_array_unref (txn->keys);
  g_ptr_array_unref (txn->values);
  g_free (txn);
}

void
ct_db_txn_put (CtDbTxn *txn, const void *key, gsize key_length, const void *value,
               gsize value_length)
{
  g_ptr_array_add (txn->keys, g_bytes_new (key, key_length));
  g_ptr_array_add (txn->values, g_bytes_new (value, value_length));
}

guint
ct_db_txn_n_puts (const CtDbTxn *txn)
{
  return txn->keys->len;
}

gboolean
ct_db_txn_commit (CtDbTxn *txn, GError **error)
{
  gboolean ok = TRUE;

  if (txn->db->mode == CT_DB_READ)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("%s: the database was opened read-only"), txn->db->path);
      return FALSE;
    }
  if (txn->keys->len > 0)
    ok = txn->db->funcs->write (txn->db, txn->keys, txn->values, error);
  g_ptr_array_set_size (txn->keys, 0);
  g_ptr_array_set_size (txn->values, 0);
  return ok;
}
