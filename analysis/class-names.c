/* class-names.c: labels.txt, read once per analysis. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "class-names.h"

char **
ct_class_names_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  guint n;

  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_FILE,
                   _("%s: the class names are not UTF-8 text"), path);
      return NULL;
    }
  lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  /* a last line ended by "\n" leaves an empty string behind */
  while (n > 0 && g_strstrip (lines[n - 1])[0] == '\0')
    n--;
  if (n == 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_FILE,
                   _("%s: the file names no class"), path);
      return NULL;
    }
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (names, g_strdup (g_strchomp (lines[i])));
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

char **
ct_class_names_find_beside (const char *model_path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (model_path);
  g_autofree char *path = g_build_filename (dir, "labels.txt", NULL);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  return ct_class_names_load (path, error);
}

char *
ct_class_name (char *const *names, guint index)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (i == index)
      return g_strdup (names[i]);
  return g_strdup_printf ("%u", index);
}
