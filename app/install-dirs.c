/* install-dirs.c: see install-dirs.h. */
#include <libintl.h>

#include "install-dirs.h"

/* cortado-uninstalled.ini in the build folder above the running program
 * (build/app/cortado -> build/), or NULL: an installed program has none. */
static GKeyFile *
uninstalled_key_file (void)
{
  static GKeyFile *key_file;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      g_autofree char *program = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = program != NULL ? g_path_get_dirname (program) : NULL;
      g_autofree char *path = dir != NULL ? g_build_filename (dir, "..", "cortado-uninstalled.ini",
                                                               NULL)
                                          : NULL;
      g_autoptr (GKeyFile) file = g_key_file_new ();

      if (path != NULL && g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
        key_file = g_steal_pointer (&file);
      g_once_init_leave (&once, 1);
    }
  return key_file;
}

static char *
dup_dir (const char *key, const char *installed)
{
  GKeyFile *uninstalled = uninstalled_key_file ();
  g_autofree char *dir = uninstalled != NULL
                           ? g_key_file_get_string (uninstalled, "Uninstalled", key, NULL)
                           : NULL;

  return dir != NULL && g_file_test (dir, G_FILE_TEST_IS_DIR) ? g_steal_pointer (&dir)
                                                              : g_strdup (installed);
}

char *
ct_install_dup_locale_dir (void)
{
  return dup_dir ("LocaleDir", LOCALEDIR);
}

char *
ct_install_dup_data_dir (void)
{
  return dup_dir ("DataDir", PKGDATADIR);
}

void
ct_install_bind_text_domain (void)
{
  const char *override = g_getenv ("CORTADO_LOCALEDIR");
  g_autofree char *localedir = ct_install_dup_locale_dir ();

  bindtextdomain (GETTEXT_PACKAGE, override != NULL && *override ? override : localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}
