/* db-private.h: what a CtDb backend provides: a table of functions that
 * db.c calls, and the structs each backend extends. */
#pragma once

#include "db.h"

G_BEGIN_DECLS

typedef struct {
  /* Open PATH (already checked against MODE by db.c). */
  CtDb *(*open) (const char *path, CtDbMode mode, GError **error);
  void (*close) (CtDb *db);
  CtDbCursor *(*cursor_new) (CtDb *db, GError **error);
  void (*cursor_free) (CtDbCursor *cursor);
  gboolean (*seek_first) (CtDbCursor *cursor, GError **error);
  gboolean (*next) (CtDbCursor *cursor, GError **error);
  /* Write KEYS[i] = VALUES[i] (GBytes*) in one commit. */
  gboolean (*write) (CtDb *db, GPtrArray *keys, GPtrArray *values, GError **error);
} CtDbBackendFuncs;

struct _CtDb {
  const CtDbBackendFuncs *funcs;
  CtDbBackend backend;
  CtDbMode mode;
  char *path;
};

struct _CtDbCursor {
  CtDb *db;
  gboolean valid;
  const guint8 *key, *value; /* set by the backend while valid */
  gsize key_length, value_length;
};

extern const CtDbBackendFuncs ct_db_lmdb_funcs;
extern const CtDbBackendFuncs ct_db_leveldb_funcs;

G_END_DECLS
