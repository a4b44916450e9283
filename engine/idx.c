/* idx.c: IDX files through zlib's gzread, which reads plain files as they
 * are and gzip-compressed ones decompressed. See idx.h. */
#include <errno.h>
#include <zlib.h>
#include <glib/gi18n-lib.h>

#include "idx.h"

struct _CtIdxFile {
  gzFile gz;
  char *path;
  CtIdxKind kind;
  guint32 count, rows, cols;
  guint32 next; /* the index of the next item */
};

static gboolean
read_exact (gzFile gz, void *buf, gsize length)
{
  return length <= G_MAXINT && gzread (gz, buf, (unsigned) length) == (int) length;
}

static gboolean
read_be32 (gzFile gz, guint32 *value)
{
  guint8 b[4];

  if (!read_exact (gz, b, 4))
    return FALSE;
  *value = ((guint32) b[0] << 24) | ((guint32) b[1] << 16) | ((guint32) b[2] << 8) | b[3];
  return TRUE;
}

CtIdxFile *
ct_idx_open (const char *path, CtIdxKind kind, GError **error)
{
  g_autoptr (CtIdxFile) file = g_new0 (CtIdxFile, 1);
  guint32 found;

  file->path = g_strdup (path);
  file->kind = kind;
  file->rows = file->cols = 1;
  file->gz = gzopen (path, "rb");
  if (file->gz == NULL)
    {
      int saved = errno;
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND, "%s: %s", path,
                   g_strerror (saved));
      return NULL;
    }
  if (!read_be32 (file->gz, &found) || found != (guint32) kind
      || !read_be32 (file->gz, &file->count))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   kind == CT_IDX_IMAGES
                   ? _("%s: not an IDX images file (the magic number should be %u)")
                   : _("%s: not an IDX labels file (the magic number should be %u)"),
                   path, (guint) kind);
      return NULL;
    }
  if (kind == CT_IDX_IMAGES
      && (!read_be32 (file->gz, &file->rows) || !read_be32 (file->gz, &file->cols)
          || file->rows == 0 || file->cols == 0 || file->rows > 65536 || file->cols > 65536))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("%s: the image size in the header is missing or not sensible"), path);
      return NULL;
    }
  return g_steal_pointer (&file);
}

void
ct_idx_close (CtIdxFile *file)
{
  if (file == NULL)
    return;
  if (file->gz != NULL)
    gzclose (file->gz);
  g_free (file->path);
  g_free (file);
}

guint32
ct_idx_count (const CtIdxFile *file)
{
  return file->count;
}

guint32
ct_idx_rows (const CtIdxFile *file)
{
  return file->rows;
}

guint32
ct_idx_cols (const CtIdxFile *file)
{
  return file->cols;
}

gboolean
ct_idx_read_next (CtIdxFile *file, guint8 *buf, GError **error)
{
  if (file->next >= file->count || !read_exact (file->gz, buf, (gsize) file->rows * file->cols))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   file->kind == CT_IDX_IMAGES ? _("%s: the file ends in image %u of %u")
                                               : _("%s: the file ends at label %u of %u"),
                   file->path, file->next, file->count);
      return FALSE;
    }
  file->next++;
  return TRUE;
}
