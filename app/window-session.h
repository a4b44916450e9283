/* window-session.h: saving the window's session in one file and opening
 * one (see window-session.c and app/session/session.h). */
#pragma once

#include "session.h"
#include "window.h"

G_BEGIN_DECLS

/* What SELF shows, as a session (owned). */
CtSession *ct_window_session_collect (CtWindow *self);
gboolean ct_window_session_save (CtWindow *self, GFile *file, GError **error);
/* Open the session FILE in SELF (errors become a toast). */
gboolean ct_window_session_open (CtWindow *self, GFile *file);

/* win.session-save-as: asks for a file, then saves. */
void ct_window_session_save_as_activated (GSimpleAction *action, GVariant *param, gpointer data);

/* A reopened session's run is still being stepped to where it stood (or
 * its inspector's view put back). */
gboolean ct_window_session_is_restoring (CtWindow *self);

G_END_DECLS
