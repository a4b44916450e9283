/* main.c: `cortado [FILE.prototxt [WEIGHTS.caffemodel]]`, the workbench. */
#include <locale.h>
#include <glib/gi18n-lib.h>

#include "application.h"

int
main (int argc, char *argv[])
{
  g_autoptr (CtApplication) app = NULL;
  const char *override = g_getenv ("CORTADO_LOCALEDIR");
  g_autofree char *localedir = ct_application_dup_locale_dir ();

  /* Run from the build folder, the build's own catalogues are used (see
   * ct_application_dup_locale_dir); CORTADO_LOCALEDIR still wins. */
  bindtextdomain (GETTEXT_PACKAGE, override != NULL && *override ? override : localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = ct_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
