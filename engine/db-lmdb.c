/* db-lmdb.c: the LMDB backend of CtDb. A database is a folder holding
 * data.mdb and lock.mdb, as Caffe's tools write it. Readers open the
 * environment read-only without thread-local reader slots, so that a
 * cursor made on one thread can be read by a prefetch thread; a read-only
 * folder is opened without the lock file. Writers start with a small memory
 * map and double it whenever a commit finds it full.
 *
 * LMDB allows one environment per database and process: a second one
 * takes the process's own lock for a first opener's and resets the lock
 * file, and the first one's readers then see an empty database (2 solvers
 * in threads, or a TRAIN and a TEST net on one database). So readers of
 * one folder share one environment, each with its own read transaction.
 *
 * LMDB reads through a memory map: a page past the end of a data.mdb that
 * was cut short (a copy that did not finish, a full disk) would kill the
 * process with SIGBUS. So the pages the environment says it uses must all
 * be in the file, when a reader opens it and again before each move of a
 * cursor, since the file can be cut while it is open. */
#include <errno.h>
#include <stdlib.h>
#include <lmdb.h>
#include <sys/stat.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "db-private.h"

#define INITIAL_MAP_SIZE ((gsize) 16 << 20)

/* One environment shared by the readers of a folder. */
typedef struct {
  char *key;       /* the folder's canonical path */
  MDB_env *env;
  guint refs;
} SharedEnv;

typedef struct {
  CtDb parent;
  MDB_env *env;
  SharedEnv *shared;   /* NULL for a writer */
} LmdbDb;

static GMutex shared_lock;
static GHashTable *shared_envs;   /* canonical path -> SharedEnv */

typedef struct {
  CtDbCursor parent;
  MDB_txn *txn;
  MDB_cursor *cursor;
  MDB_dbi dbi;
  guint64 needed;  /* bytes of data.mdb that the transaction's pages span */
} LmdbCursor;

/* WHAT is a whole translated sentence per operation, so that no language
 * has to fit an operation's name into a sentence of its own. */
static gboolean
fail (GError **error, const char *path, const char *what, int rc)
{
  /* TRANSLATORS: database path, what LMDB could not do, LMDB's reason */
  g_set_error (error, CT_DATA_ERROR, rc == ENOENT ? CT_DATA_ERROR_NOT_FOUND
                                                  : CT_DATA_ERROR_IO,
               _("%s: %s: %s"), path, what, mdb_strerror (rc));
  return FALSE;
}

/* The bytes of data.mdb that ENV's pages span (0 when LMDB cannot say). */
static guint64
pages_span (MDB_env *env)
{
  MDB_envinfo info;
  MDB_stat stat;

  if (mdb_env_info (env, &info) != 0 || mdb_env_stat (env, &stat) != 0)
    return 0;
  return ((guint64) info.me_last_pgno + 1) * stat.ms_psize;
}

/* Whether data.mdb still holds the NEEDED bytes; an error naming the
 * database (and, for a CURSOR that holds a record, that record's key)
 * otherwise. */
static gboolean
check_span (MDB_env *env, const char *path, guint64 needed, const CtDbCursor *cursor,
            GError **error)
{
  mdb_filehandle_t fd;
  struct stat st;
  g_autofree char *have = NULL, *want = NULL, *after = NULL;

  if (needed == 0 || mdb_env_get_fd (env, &fd) != 0 || fstat (fd, &st) != 0
      || (guint64) st.st_size >= needed)
    return TRUE;
  have = g_format_size_full ((guint64) st.st_size, G_FORMAT_SIZE_LONG_FORMAT);
  want = g_format_size_full (needed, G_FORMAT_SIZE_LONG_FORMAT);
  if (cursor != NULL && cursor->valid)
    {
      after = ct_db_cursor_key_text (cursor);
      /* TRANSLATORS: database path, a record's key, two sizes in bytes */
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("%s: the database was cut short while it was read (after record '%s'): "
                     "data.mdb holds %s, its pages need %s"), path, after, have, want);
    }
  else
    /* TRANSLATORS: database path, then two sizes in bytes */
    g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                 _("%s: the database is cut short (a copy that did not finish?): data.mdb "
                   "holds %s, its pages need %s"), path, have, want);
  return FALSE;
}

static LmdbDb *
open_env (const char *path, CtDbMode mode, GError **error)
{
  LmdbDb *db = g_new0 (LmdbDb, 1);
  unsigned int flags = 0;
  int rc;

  if (mode != CT_DB_READ && g_mkdir_with_parents (path, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_IO,
                   _("%s: could not create the database folder: %s"), path,
                   g_strerror (saved));
      g_free (db);
      return NULL;
    }
  rc = mdb_env_create (&db->env);
  if (rc != 0)
    {
      g_free (db);
      fail (error, path, _("LMDB could not set up its environment"), rc);
      return NULL;
    }
  if (mode == CT_DB_READ)
    flags = MDB_RDONLY | MDB_NOTLS;
  else
    rc = mdb_env_set_mapsize (db->env, INITIAL_MAP_SIZE);
  if (rc == 0)
    rc = mdb_env_open (db->env, path, flags, 0664);
  /* a folder we may read but not write cannot hold our reader lock */
  if (rc == EACCES && mode == CT_DB_READ)
    rc = mdb_env_open (db->env, path, flags | MDB_NOLOCK, 0664);
  if (rc != 0)
    {
      mdb_env_close (db->env);
      g_free (db);
      if (rc == ENOENT)
        g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND,
                     _("%s: not an LMDB database (no data.mdb in the folder)"), path);
      else if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH)
        g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                     _("%s: not an LMDB database: %s"), path, mdb_strerror (rc));
      else
        fail (error, path, _("LMDB could not open the database"), rc);
      return NULL;
    }
  if (mode == CT_DB_READ && !check_span (db->env, path, pages_span (db->env), NULL, error))
    {
      mdb_env_close (db->env);
      g_free (db);
      return NULL;
    }
  return db;
}

static CtDb *
lmdb_open (const char *path, CtDbMode mode, GError **error)
{
  g_autofree char *key = NULL;
  SharedEnv *shared;
  LmdbDb *db;

  if (mode != CT_DB_READ)
    {
      db = open_env (path, mode, error);
      return db != NULL ? &db->parent : NULL;
    }
  key = realpath (path, NULL);
  if (key == NULL)
    key = g_canonicalize_filename (path, NULL);
  g_mutex_lock (&shared_lock);
  if (shared_envs == NULL)
    shared_envs = g_hash_table_new (g_str_hash, g_str_equal);
  shared = g_hash_table_lookup (shared_envs, key);
  if (shared != NULL)
    {
      db = g_new0 (LmdbDb, 1);
      db->env = shared->env;
    }
  else if ((db = open_env (path, mode, error)) != NULL)
    {
      shared = g_new0 (SharedEnv, 1);
      shared->key = g_steal_pointer (&key);
      shared->env = db->env;
      g_hash_table_insert (shared_envs, shared->key, shared);
    }
  if (db != NULL)
    {
      shared->refs++;
      db->shared = shared;
    }
  g_mutex_unlock (&shared_lock);
  return db != NULL ? &db->parent : NULL;
}

static void
lmdb_close (CtDb *db)
{
  LmdbDb *self = (LmdbDb *) db;
  SharedEnv *shared = self->shared;

  if (shared == NULL)
    mdb_env_close (self->env);
  else
    {
      g_mutex_lock (&shared_lock);
      if (--shared->refs == 0)
        {
          g_hash_table_remove (shared_envs, shared->key);
          mdb_env_close (shared->env);
          g_free (shared->key);
          g_free (shared);
        }
      g_mutex_unlock (&shared_lock);
    }
  g_free (self);
}

static void
lmdb_cursor_free (CtDbCursor *cursor)
{
  LmdbCursor *c = (LmdbCursor *) cursor;

  if (c->cursor != NULL)
    mdb_cursor_close (c->cursor);
  if (c->txn != NULL)
    mdb_txn_abort (c->txn);
  g_free (c);
}

static CtDbCursor *
lmdb_cursor_new (CtDb *db, GError **error)
{
  LmdbCursor *c = g_new0 (LmdbCursor, 1);
  int rc;

  rc = mdb_txn_begin (((LmdbDb *) db)->env, NULL, MDB_RDONLY, &c->txn);
  if (rc == 0)
    rc = mdb_dbi_open (c->txn, NULL, 0, &c->dbi);
  if (rc == 0)
    rc = mdb_cursor_open (c->txn, c->dbi, &c->cursor);
  if (rc != 0)
    {
      fail (error, db->path, _("LMDB could not start a read transaction"), rc);
      lmdb_cursor_free (&c->parent);
      return NULL;
    }
  /* The pages this transaction can reach: those the environment used when
   * it began (a writer elsewhere only adds pages past them). */
  c->needed = pages_span (((LmdbDb *) db)->env);
  return &c->parent;
}

static gboolean
lmdb_move (CtDbCursor *cursor, MDB_cursor_op op, GError **error)
{
  LmdbCursor *c = (LmdbCursor *) cursor;
  MDB_val key, value;
  int rc;

  if (!check_span (((LmdbDb *) cursor->db)->env, cursor->db->path, c->needed, cursor, error))
    {
      cursor->valid = FALSE;
      return FALSE;
    }
  rc = mdb_cursor_get (c->cursor, &key, &value, op);
  if (rc != 0 && rc != MDB_NOTFOUND && cursor->valid)
    {
      g_autofree char *after = ct_db_cursor_key_text (cursor);

      cursor->valid = FALSE;
      /* TRANSLATORS: database path, a record's key, LMDB's reason */
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("%s: the record after '%s' cannot be read: %s"), cursor->db->path, after,
                   mdb_strerror (rc));
      return FALSE;
    }
  cursor->valid = rc == 0;
  if (rc == MDB_NOTFOUND)
    return TRUE;
  if (rc != 0)
    return fail (error, cursor->db->path, _("LMDB could not move its cursor"), rc);
  cursor->key = key.mv_data;
  cursor->key_length = key.mv_size;
  cursor->value = value.mv_data;
  cursor->value_length = value.mv_size;
  return TRUE;
}

static gboolean
lmdb_seek_first (CtDbCursor *cursor, GError **error)
{
  return lmdb_move (cursor, MDB_FIRST, error);
}

static gboolean
lmdb_next (CtDbCursor *cursor, GError **error)
{
  return lmdb_move (cursor, MDB_NEXT, error);
}

/* Put every pair in one transaction; MDB_MAP_FULL comes back untouched so
 * that the caller can grow the map and try again. */
static int
put_all (MDB_env *env, GPtrArray *keys, GPtrArray *values)
{
  MDB_txn *txn = NULL;
  MDB_dbi dbi;
  int rc = mdb_txn_begin (env, NULL, 0, &txn);

  if (rc != 0)
    return rc;
  rc = mdb_dbi_open (txn, NULL, 0, &dbi);
  for (guint i = 0; rc == 0 && i < keys->len; i++)
    {
      gsize klen, vlen;
      MDB_val key, value;

      key.mv_data = (void *) g_bytes_get_data (keys->pdata[i], &klen);
      key.mv_size = klen;
      value.mv_data = (void *) g_bytes_get_data (values->pdata[i], &vlen);
      value.mv_size = vlen;
      rc = mdb_put (txn, dbi, &key, &value, 0);
    }
  if (rc != 0)
    {
      mdb_txn_abort (txn);
      return rc;
    }
  return mdb_txn_commit (txn);
}

static gboolean
lmdb_write (CtDb *db, GPtrArray *keys, GPtrArray *values, GError **error)
{
  MDB_env *env = ((LmdbDb *) db)->env;

  for (;;)
    {
      MDB_envinfo info;
      int rc = put_all (env, keys, values);

      if (rc == 0)
        return TRUE;
      if (rc != MDB_MAP_FULL)
        return fail (error, db->path, _("LMDB could not write the records"), rc);
      mdb_env_info (env, &info);
      if (info.me_mapsize > G_MAXSIZE / 2)
        return fail (error, db->path, _("LMDB could not write the records"), rc);
      rc = mdb_env_set_mapsize (env, info.me_mapsize * 2);
      if (rc != 0)
        return fail (error, db->path, _("LMDB could not grow its memory map"), rc);
    }
}

const CtDbBackendFuncs ct_db_lmdb_funcs = {
  .open = lmdb_open,
  .close = lmdb_close,
  .cursor_new = lmdb_cursor_new,
  .cursor_free = lmdb_cursor_free,
  .seek_first = lmdb_seek_first,
  .next = lmdb_next,
  .write = lmdb_write,
};
