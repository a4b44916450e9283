/* main.c: `cortado [FILE.prototxt [WEIGHTS.caffemodel]]`, the workbench. */
#include <locale.h>
#include <glib/gi18n-lib.h>

#include "application.h"

int
main (int argc, char *argv[])
{
  g_autoptr (CtApplication) app = NULL;
  const char *localedir = g_getenv ("CORTADO_LOCALEDIR");

  /* CORTADO_LOCALEDIR lets an uninstalled build find its translations. */
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL && *localedir ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = ct_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
