/* install-dirs.h: where an installed or an uninstalled Cortado finds its
 * translations and data (GLib only: the workbench and cortado-cli share it).
 *
 * An installed Cortado uses LOCALEDIR and PKGDATADIR. One run from its build
 * folder (build/app/cortado, build/app/cortado-cli) uses the folders named
 * by build/cortado-uninstalled.ini, which meson writes there and never
 * installs; the file is found from the running program, never from a path
 * compiled in. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *ct_install_dup_locale_dir (void);
char *ct_install_dup_data_dir (void);

/* Bind the text domain to the locale folder above (CORTADO_LOCALEDIR, when
 * set, wins) and make it the default. Call once, after setlocale. */
void ct_install_bind_text_domain (void);

G_END_DECLS
