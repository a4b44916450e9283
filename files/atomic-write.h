/* atomic-write.h: saving a file all or nothing. Every save of Cortado's
 * (prototxt, caffemodel, solverstate, the exports of the heatmap and the
 * plot) goes through here; errors are in G_FILE_ERROR, their messages
 * begin with the path. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Save LENGTH bytes to PATH all or nothing, through an unnamed file in the
 * same folder renamed over it; a process killed meanwhile leaves PATH as
 * it was and no temporary file. A symlink's target is replaced and an
 * existing file's permissions are kept. */
gboolean ct_file_write_atomic (const char *path,
                               const void *data,
                               gsize length,
                               GError **error);

/* Whether FILE_NAME (a base name) is named as a temporary file of NAME
 * left by a save that did not finish is: NAME followed by '.' and six
 * letters or digits (a user's NAME.backup is named so too). */
gboolean ct_file_is_stale_temporary (const char *file_name, const char *name);

G_END_DECLS
