/* solver-panel.h: CtSolverPanel, the solver panel of the Training view:
 * the SolverParameter that trains the window's net, in a property form,
 * opened from and saved to a solver prototxt (see solver-panel.c). It
 * reports failures through its "error" signal and saves through its
 * "saved" signal, for the window to show. */
#pragma once

#include <gtk/gtk.h>

#include "caffe.pb-c.h"
#include "property-form.h"

G_BEGIN_DECLS

#define CT_TYPE_SOLVER_PANEL (ct_solver_panel_get_type ())
G_DECLARE_FINAL_TYPE (CtSolverPanel, ct_solver_panel, CT, SOLVER_PANEL, GtkWidget)

CtSolverPanel *ct_solver_panel_new (void);

/* The net file FILE names when FILE is a solver prototxt, else NULL. */
GFile *ct_solver_panel_net_file (GFile *file);
/* The prototxt of the net FILE holds in its `net_param` (or
 * `train_net_param`) when FILE is a solver that embeds its net, else
 * NULL. Owned. */
char *ct_solver_panel_inline_net (GFile *file);
/* The solver prototxt in NET_FILE's folder whose `net` or `train_net`
 * is NET_FILE, or NULL. */
GFile *ct_solver_panel_find_beside (GFile *net_file);
gboolean ct_solver_panel_load (CtSolverPanel *self, GFile *file, GError **error);
/* TEXT (NUL-terminated) as a template solver whose relative paths start
 * in FOLDER (may be NULL; saving asks where), or the default one when TEXT
 * is NULL or does not parse. */
void ct_solver_panel_set_example (CtSolverPanel *self, const char *text, const char *folder);
gboolean ct_solver_panel_save_file (CtSolverPanel *self, GFile *file);
/* What win.solver-open, win.solver-save and win.solver-save-as do: ask
 * for a file (the first folder offered for a new one: NET_FILE's). */
void ct_solver_panel_open (CtSolverPanel *self);
void ct_solver_panel_save (CtSolverPanel *self, GFile *net_file);
void ct_solver_panel_save_as (CtSolverPanel *self, GFile *net_file);
/* A copy of the solver (free with protobuf_c_message_free_unpacked). */
Caffe__SolverParameter *ct_solver_panel_dup_param (CtSolverPanel *self);
/* The file relative paths in the solver start from, or NULL. */
const char *ct_solver_panel_get_source_path (CtSolverPanel *self);
CtPropertyForm *ct_solver_panel_get_form (CtSolverPanel *self);

G_END_DECLS
