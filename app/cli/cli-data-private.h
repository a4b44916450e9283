/* cli-data-private.h: the cortado-cli verbs that make and summarise
 * training data (convert, compute-mean) and what they share. */
#pragma once

#include <glib.h>

#include "db.h"

G_BEGIN_DECLS

int ct_cli_convert (int argc, char **argv);
int ct_cli_compute_mean (int argc, char **argv);

/* Parse --backend's value (NULL: LMDB); FALSE on a name that is neither. */
gboolean ct_cli_parse_backend (const char *name, CtDbBackend *backend);

/* The backend of the database folder PATH, from the files in it; FALSE
 * when it holds neither kind. */
gboolean ct_cli_guess_backend (const char *path, CtDbBackend *backend);

/* Remove the database folder PATH that a failed conversion left behind
 * (only the files directly in it, then the folder). */
void ct_cli_remove_db (const char *path);

G_END_DECLS
