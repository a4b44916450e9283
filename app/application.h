/* application.h: CtApplication, the workbench's AdwApplication: one window
 * per document, files opened from the command line or the desktop, and the
 * app-wide actions (new window, about, quit). */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CT_TYPE_APPLICATION (ct_application_get_type ())
G_DECLARE_FINAL_TYPE (CtApplication, ct_application, CT, APPLICATION, AdwApplication)

CtApplication *ct_application_new (void);

/* Register the GResource bundle and the types the .ui files name; GUI tests
 * call it before building a window without an application run. */
void ct_application_ensure_resources (void);

G_END_DECLS
