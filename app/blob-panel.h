/* blob-panel.h: CtBlobPanel, the inspector's "looking inside" panel: what
 * a run snapshot holds of the selected layer or blob (see blob-panel.c).
 * The window gives it the selection and the document it follows, the
 * graph that maps node ids to layers, and each snapshot of its run; the
 * panel reports failed exports through its "error" signal. */
#pragma once

#include <gtk/gtk.h>

#include "document.h"
#include "explain.h"
#include "net-graph.h"
#include "runner.h"
#include "selection.h"

G_BEGIN_DECLS

#define CT_TYPE_BLOB_PANEL (ct_blob_panel_get_type ())
G_DECLARE_FINAL_TYPE (CtBlobPanel, ct_blob_panel, CT, BLOB_PANEL, GtkBox)

/* The inspector's width from which data and diff are shown side by side. */
#define CT_BLOB_SIDE_BY_SIDE_WIDTH 620

CtBlobPanel *ct_blob_panel_new (void);

/* The "selection" and "document" properties: what the panel follows. */
void ct_blob_panel_set_selection (CtBlobPanel *self, CtSelection *selection);
void ct_blob_panel_set_document (CtBlobPanel *self, CtDocument *document);
/* The graph the window shows (borrowed: the window sets it again before it
 * frees the one it replaces; NULL: none). */
void ct_blob_panel_set_graph (CtBlobPanel *self, const CtNetGraph *graph);
/* The "wide" property: room for data and diff side by side. */
void ct_blob_panel_set_wide (CtBlobPanel *self, gboolean wide);
/* Each snapshot of the window's run; NULL: no run. */
void ct_blob_panel_show_snapshot (CtBlobPanel *self, CtRunSnapshot *snapshot);
/* Save what the panel shows to FILE: .png (the heatmap), .npy or .csv. */
gboolean ct_blob_panel_export (CtBlobPanel *self, GFile *file, GError **error);

/* Explain the value at FLAT (a flat index) of the item shown, its data or
 * DIFF, as a click on it does (blob-panel-explain.c), without opening the
 * popover; the explanation is then ct_blob_panel_get_explanation's. */
gboolean ct_blob_panel_explain_at (CtBlobPanel *self, gboolean diff, gsize flat,
                                   GError **error);
/* The explanation shown last (borrowed), or NULL; the section showing it
 * (under the heatmap, visible once a value was clicked). */
const CtValueExplanation *ct_blob_panel_get_explanation (CtBlobPanel *self);

/* What the panel shows, as a session keeps it: the item (its label in the
 * panel's menu, e.g. the layer's output blob), data or diff, the heatmap's
 * focused channel (-1: all), its colour map (-1: the item's own) and
 * scale. Setting it returns FALSE while the item is not in the menu (the
 * run has not reached it yet). */
typedef struct {
  char *item;
  gboolean diff;
  int channel;
  int colormap;
  int scale;
} CtBlobPanelView;

void ct_blob_panel_view_clear (CtBlobPanelView *view);
void ct_blob_panel_get_view (CtBlobPanel *self, CtBlobPanelView *view);
gboolean ct_blob_panel_set_view (CtBlobPanel *self, const CtBlobPanelView *view);
GtkWidget *ct_blob_panel_get_explain_view (CtBlobPanel *self);

G_END_DECLS
