/* db-leveldb.c: the LevelDB backend of CtDb, on libleveldb's C API. Readers
 * do not fill the block cache (a training pass reads each record once per
 * epoch, as Caffe configures it); writers use one WriteBatch per commit. */
#include <leveldb/c.h>
#include <glib/gi18n-lib.h>

#include "db-private.h"

typedef struct {
  CtDb parent;
  leveldb_t *db;
  leveldb_options_t *options;
} LeveldbDb;

typedef struct {
  CtDbCursor parent;
  leveldb_readoptions_t *read_options;
  leveldb_iterator_t *iter;
} LeveldbCursor;

/* Turn LevelDB's error string (freed here) into ERROR. */
static gboolean
fail (GError **error, const char *path, char *message)
{
  g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_IO, _("%s: LevelDB: %s"), path,
               message != NULL ? message : _("unknown error"));
  leveldb_free (message);
  return FALSE;
}

static CtDb *
leveldb_open_db (const char *path, CtDbMode mode, GError **error)
{
  LeveldbDb *db = g_new0 (LeveldbDb, 1);
  char *message = NULL;

  db->options = leveldb_options_create ();
  leveldb_options_set_create_if_missing (db->options, mode != CT_DB_READ);
  leveldb_options_set_error_if_exists (db->options, mode == CT_DB_NEW);
  leveldb_options_set_max_open_files (db->options, 100);
  if (mode != CT_DB_READ)
    leveldb_options_set_write_buffer_size (db->options, (size_t) 64 << 20);
  db->db = leveldb_open (db->options, path, &message);
  if (message != NULL || db->db == NULL)
    {
      fail (error, path, message);
      leveldb_options_destroy (db->options);
      g_free (db);
      return NULL;
    }
  return &db->parent;
}

static void
leveldb_close_db (CtDb *db)
{
  LeveldbDb *l = (LeveldbDb *) db;

  leveldb_close (l->db);
  leveldb_options_destroy (l->options);
  g_free (l);
}

static CtDbCursor *
leveldb_cursor_new (CtDb *db, GError **error)
{
  LeveldbCursor *c = g_new0 (LeveldbCursor, 1);

  c->read_options = leveldb_readoptions_create ();
  leveldb_readoptions_set_fill_cache (c->read_options, 0);
  leveldb_readoptions_set_verify_checksums (c->read_options, 1);
  c->iter = leveldb_create_iterator (((LeveldbDb *) db)->db, c->read_options);
  return &c->parent;
}

static void
leveldb_cursor_free (CtDbCursor *cursor)
{
  LeveldbCursor *c = (LeveldbCursor *) cursor;

  leveldb_iter_destroy (c->iter);
  leveldb_readoptions_destroy (c->read_options);
  g_free (c);
}

static gboolean
update (CtDbCursor *cursor, GError **error)
{
  LeveldbCursor *c = (LeveldbCursor *) cursor;
  char *message = NULL;

  cursor->valid = leveldb_iter_valid (c->iter) != 0;
  if (cursor->valid)
    {
      size_t klen, vlen;

      cursor->key = (const guint8 *) leveldb_iter_key (c->iter, &klen);
      cursor->value = (const guint8 *) leveldb_iter_value (c->iter, &vlen);
      cursor->key_length = klen;
      cursor->value_length = vlen;
      return TRUE;
    }
  leveldb_iter_get_error (c->iter, &message);
  if (message != NULL)
    return fail (error, cursor->db->path, message);
  return TRUE;
}

static gboolean
leveldb_seek_first (CtDbCursor *cursor, GError **error)
{
  leveldb_iter_seek_to_first (((LeveldbCursor *) cursor)->iter);
  return update (cursor, error);
}

static gboolean
leveldb_next (CtDbCursor *cursor, GError **error)
{
  leveldb_iter_next (((LeveldbCursor *) cursor)->iter);
  return update (cursor, error);
}

static gboolean
leveldb_write_db (CtDb *db, GPtrArray *keys, GPtrArray *values, GError **error)
{
  leveldb_writebatch_t *batch = leveldb_writebatch_create ();
  leveldb_writeoptions_t *options = leveldb_writeoptions_create ();
  char *message = NULL;

  for (guint i = 0; i < keys->len; i++)
    {
      gsize klen, vlen;
      const char *key = g_bytes_get_data (keys->pdata[i], &klen);
      const char *value = g_bytes_get_data (values->pdata[i], &vlen);

      leveldb_writebatch_put (batch, key, klen, value, vlen);
    }
  leveldb_write (((LeveldbDb *) db)->db, options, batch, &message);
  leveldb_writeoptions_destroy (options);
  leveldb_writebatch_destroy (batch);
  if (message != NULL)
    return fail (error, db->path, message);
  return TRUE;
}

const CtDbBackendFuncs ct_db_leveldb_funcs = {
  .open = leveldb_open_db,
  .close = leveldb_close_db,
  .cursor_new = leveldb_cursor_new,
  .cursor_free = leveldb_cursor_free,
  .seek_first = leveldb_seek_first,
  .next = leveldb_next,
  .write = leveldb_write_db,
};
