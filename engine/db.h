/* db.h: CtDb, a small key-value database interface over the two stores
 * Caffe's Data layer reads, LMDB and LevelDB, with a cursor that walks the
 * records in key order and write transactions that batch many puts into one
 * commit (converters commit every thousand records, as Caffe's tools do).
 *
 * LMDB databases are folders (data.mdb, lock.mdb) as Caffe makes them; a
 * write transaction that fills the memory map grows it and retries, so a
 * database has no size limit fixed in advance. Every failure is a GError of
 * CT_DATA_ERROR naming the database's path. */
#pragma once

#include <glib.h>

#include "data-error.h"

G_BEGIN_DECLS

typedef enum {
  CT_DB_LEVELDB = 0, /* the numbers of DataParameter.DB */
  CT_DB_LMDB = 1,
} CtDbBackend;

typedef enum {
  CT_DB_READ,  /* an existing database, read only */
  CT_DB_WRITE, /* an existing database or a new one, read and write */
  CT_DB_NEW,   /* a new database: an error when PATH exists */
} CtDbMode;

typedef struct _CtDb CtDb;
typedef struct _CtDbCursor CtDbCursor;
typedef struct _CtDbTxn CtDbTxn;

CtDb *ct_db_open (const char *path, CtDbBackend backend, CtDbMode mode, GError **error);
void ct_db_free (CtDb *db);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtDb, ct_db_free)

const char *ct_db_get_path (const CtDb *db);
CtDbBackend ct_db_get_backend (const CtDb *db);

/* "lmdb" or "leveldb" (any case) to a backend; FALSE for other names. */
gboolean ct_db_backend_from_name (const char *name, CtDbBackend *backend);
const char *ct_db_backend_name (CtDbBackend backend);

/* A cursor on the first record (check ct_db_cursor_valid: an empty
 * database has none). It reads a snapshot of DB and may be used from
 * another thread than the one that made it, one thread at a time; free it
 * before DB. */
CtDbCursor *ct_db_cursor_new (CtDb *db, GError **error);
void ct_db_cursor_free (CtDbCursor *cursor);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtDbCursor, ct_db_cursor_free)

gboolean ct_db_cursor_seek_first (CtDbCursor *cursor, GError **error);
gboolean ct_db_cursor_next (CtDbCursor *cursor, GError **error);
gboolean ct_db_cursor_valid (const CtDbCursor *cursor);
/* The current record's key and value, borrowed until the cursor moves. */
const guint8 *ct_db_cursor_key (const CtDbCursor *cursor, gsize *length);
const guint8 *ct_db_cursor_value (const CtDbCursor *cursor, gsize *length);
/* The current key as printable text (escaped where not UTF-8 text). */
char *ct_db_cursor_key_text (const CtDbCursor *cursor);

/* A write transaction: puts are kept until commit, which writes them all
 * at once. Freeing an uncommitted transaction drops its puts. */
CtDbTxn *ct_db_txn_new (CtDb *db);
void ct_db_txn_free (CtDbTxn *txn);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtDbTxn, ct_db_txn_free)

void ct_db_txn_put (CtDbTxn *txn, const void *key, gsize key_length, const void *value,
                    gsize value_length);
guint ct_db_txn_n_puts (const CtDbTxn *txn);
/* Write every put and empty the transaction (it can be used again). */
gboolean ct_db_txn_commit (CtDbTxn *txn, GError **error);

G_END_DECLS
