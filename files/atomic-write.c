/* atomic-write.c: saving a file all or nothing (atomic-write.h).
 *
 * The bytes go to an unnamed file in the target's folder (O_TMPFILE),
 * which is made durable, linked under a temporary name and renamed over the
 * target. A process killed while it writes (a snapshot of a large net takes
 * a while) leaves nothing behind; one killed between the link and the
 * rename, two system calls, leaves NAME.XXXXXX (six hexadecimal digits),
 * which the next save of NAME removes; GLib's g_file_set_contents_full,
 * which takes over where the file system has no unnamed files, names its
 * temporaries with any six letters and digits, as a user might name a
 * file (model.caffemodel.backup): those are never removed. */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "atomic-write.h"

/* NAME.XXXXXX: six characters that IS_DIGIT takes. */
static gboolean
is_temporary_name (const char *file_name, const char *name, gboolean (*is_digit) (gchar c))
{
  gsize n = strlen (name);

  if (strlen (file_name) != n + 7 || strncmp (file_name, name, n) != 0 || file_name[n] != '.')
    return FALSE;
  for (gsize i = n + 1; i < n + 7; i++)
    if (!is_digit (file_name[i]))
      return FALSE;
  return TRUE;
}

static gboolean
is_alnum (gchar c)
{
  return g_ascii_isalnum (c);
}

static gboolean
is_upper_hex (gchar c)
{
  return g_ascii_isdigit (c) || (c >= 'A' && c <= 'F');
}

gboolean
ct_file_is_stale_temporary (const char *file_name, const char *name)
{
  return is_temporary_name (file_name, name, is_alnum);
}

/* Temporaries older than this are not another save's, still running. */
#define STALE_SECONDS 60

static void
remove_stale_temporaries (const char *target)
{
  g_autofree char *dir_name = g_path_get_dirname (target);
  g_autofree char *name = g_path_get_basename (target);
  g_autoptr (GDir) dir = g_dir_open (dir_name, 0, NULL);
  const char *entry;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;

  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      GStatBuf st;

      if (!is_temporary_name (entry, name, is_upper_hex))
        continue;
      path = g_build_filename (dir_name, entry, NULL);
      if (g_lstat (path, &st) == 0 && S_ISREG (st.st_mode) && now - st.st_mtime > STALE_SECONDS)
        g_unlink (path);
    }
}

static gboolean
write_all (int fd, const guint8 *data, gsize length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* The unnamed way. FALSE with *UNSUPPORTED when the file system has no
 * unnamed files; FALSE with ERRNO set on another failure. */
static gboolean
write_unnamed (const char *target, const void *data, gsize length, int mode,
               gboolean *unsupported)
{
#ifdef O_TMPFILE
  g_autofree char *dir_name = g_path_get_dirname (target);
  g_autofree char *proc = NULL, *temporary = NULL;
  int fd = open (dir_name, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode), dir_fd, saved;
  gboolean ok;

  *unsupported = fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL);
  if (fd < 0)
    return FALSE;
  /* MODE passes through the umask, as with g_file_set_contents_full */
  ok = write_all (fd, data, length) && fsync (fd) == 0;
  for (int attempt = 0; ok && attempt < 100; attempt++)
    {
      g_autofree char *suffix = g_strdup_printf ("%06X", g_random_int_range (0, 0xffffff));

      g_free (temporary);
      temporary = g_strconcat (target, ".", suffix, NULL);
      proc = g_strdup_printf ("/proc/self/fd/%d", fd);
      if (linkat (AT_FDCWD, proc, AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) == 0)
        break;
      g_clear_pointer (&proc, g_free);
      ok = errno == EEXIST;
    }
  ok = ok && proc != NULL;
  saved = errno;
  close (fd);
  if (ok && rename (temporary, target) != 0)
    {
      saved = errno;
      g_unlink (temporary);
      ok = FALSE;
    }
  if (ok && (dir_fd = open (dir_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
    {
      /* the rename itself survives a power cut */
      fsync (dir_fd);
      close (dir_fd);
    }
  errno = saved;
  return ok;
#else
  *unsupported = TRUE;
  return FALSE;
#endif
}

gboolean
ct_file_write_atomic (const char *path,
                      const void *data,
                      gsize length,
                      GError **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *target = NULL;
  gboolean unsupported = FALSE;
  int mode = 0666;
  GStatBuf st;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL || length == 0, FALSE);

  /* Replace what a symlink points to rather than the link itself, and keep
   * an existing file's permissions. */
  target = realpath (path, NULL);
  if (target == NULL)
    target = g_strdup (path);
  if (g_stat (target, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                       _("%s: could not save: it is a folder"), path);
          return FALSE;
        }
      mode = st.st_mode & 07777;
    }

  if (write_unnamed (target, data, length, mode, &unsupported))
    {
      remove_stale_temporaries (target);
      return TRUE;
    }
  if (!unsupported)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("%s: could not save: %s"), path, g_strerror (saved));
      return FALSE;
    }
  if (!g_file_set_contents_full (target, data, (gssize) length,
                                 G_FILE_SET_CONTENTS_CONSISTENT |
                                 G_FILE_SET_CONTENTS_DURABLE,
                                 mode, &local_error))
    {
      g_set_error (error, G_FILE_ERROR,
                   local_error->domain == G_FILE_ERROR ? local_error->code : G_FILE_ERROR_FAILED,
                   _("%s: could not save: %s"), path, local_error->message);
      return FALSE;
    }
  remove_stale_temporaries (target);
  return TRUE;
}
