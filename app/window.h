/* window.h: CtWindow, one document in a window: the palette of layer types
 * on the left, the graph (or the prototxt source) in the middle, the
 * inspector on the right, a status line with the net's summary below. */
#pragma once

#include <adwaita.h>

#include "application.h"
#include "document.h"

G_BEGIN_DECLS

#define CT_TYPE_WINDOW (ct_window_get_type ())
G_DECLARE_FINAL_TYPE (CtWindow, ct_window, CT, WINDOW, AdwApplicationWindow)

CtWindow *ct_window_new (CtApplication *app);
/* The keys of the window's actions (win.*), set on APP. */
void ct_window_set_accels (GtkApplication *app);

CtDocument *ct_window_get_document (CtWindow *self);
/* The document's file, or NULL while untitled. */
GFile *ct_window_get_file (CtWindow *self);
/* Whether the window shows an empty, untouched, untitled document. */
gboolean ct_window_is_blank (CtWindow *self);

/* Whether the net has changes that are not saved (text typed a moment
 * ago counts). */
gboolean ct_window_has_unsaved_changes (CtWindow *self);
/* Close without asking: after saving (a file chooser first for an untitled
 * net; the window stays open if that is cancelled), or dropping the
 * changes. What quitting does once the user has answered for all windows. */
void ct_window_save_and_close (CtWindow *self);
void ct_window_discard_and_close (CtWindow *self);

/* Open FILE here (errors become a toast and leave the window as it was). */
gboolean ct_window_load_file (CtWindow *self, GFile *file);
/* Start an untitled net from a bundled example ("lenet-fashion"). */
gboolean ct_window_load_example (CtWindow *self, const char *example);
/* The weights that go with the net (used when running it). */
void ct_window_set_weights (CtWindow *self, GFile *file);
GFile *ct_window_get_weights (CtWindow *self);

void ct_window_show_toast (CtWindow *self, const char *message);
void ct_window_show_error (CtWindow *self, const char *message);
/* Takes away the error toasts shown or queued (a run or training starts
 * again). */
void ct_window_dismiss_error (CtWindow *self);
/* How many seconds an error toast of MESSAGE stays: long enough to read. */
guint ct_window_error_timeout (const char *message);
/* The error toasts shown or waiting their turn (at most one is shown). */
guint ct_window_n_errors (CtWindow *self);
/* The message of the error toast shown, or NULL. */
const char *ct_window_get_error_shown (CtWindow *self);
/* Offer to bring back DRAFTS (key file paths) left by an earlier session. */
void ct_window_offer_drafts (CtWindow *self, GPtrArray *drafts);

/* Selection, by graph node id (layer names). */
void ct_window_select (CtWindow *self, const char *const *ids);
char **ct_window_dup_selected (CtWindow *self);
/* The layer index of a node id, or -1. */
int ct_window_layer_for_id (CtWindow *self, const char *id);

/* What the palette's drop on the canvas does: add a layer of TYPE at graph
 * point X, Y, inserted into edge EDGE (-1: none); dropped on a node, the
 * new layer reads that node's first top. Returns the new layer's id
 * (owned), or NULL after a toast. */
char *ct_window_drop_layer (CtWindow *self, const char *type, double x, double y, int edge);

/* Write the graph as shown to FILE, as SVG, PNG or PDF by its extension
 * (what win.export-graph does once a file is chosen). */
gboolean ct_window_export_graph (CtWindow *self, GFile *file, GError **error);

/* The parts, for tests. */
GtkWidget *ct_window_get_graph_view (CtWindow *self);
GtkWidget *ct_window_get_palette (CtWindow *self);
GtkWidget *ct_window_get_property_form (CtWindow *self);
GtkWidget *ct_window_get_source_view (CtWindow *self);

G_END_DECLS
