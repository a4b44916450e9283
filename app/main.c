/* main.c: `cortado [FILE.prototxt [WEIGHTS.caffemodel]]`, the workbench. */
#include <locale.h>
#include <glib/gi18n-lib.h>

#include "application.h"
#include "install-dirs.h"

int
main (int argc, char *argv[])
{
  g_autoptr (CtApplication) app = NULL;

  /* Run from the build folder, the build's own catalogues are used. */
  ct_install_bind_text_domain ();

  app = ct_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
