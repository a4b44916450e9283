/* test-files.c: test-files.h. */
#include <glib/gstdio.h>

#include "test-files.h"

char *
ct_test_tmpdir_make (const char *template_)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp (template_, &error);

  g_assert_no_error (error);
  return dir;
}

void
ct_test_remove_tree (const char *path)
{
  g_autoptr (GDir) dir = NULL;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR) || g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      ct_test_remove_tree (child);
    }
  g_rmdir (path);
}
