/* analysis-top-panel.h: CtAnalysisTopPanel, the "Top Activations" page of
 * the analysis window: for a layer and a channel chosen, the test images
 * that excite the channel most, each with the patch its strongest unit
 * sees (outlined on the image, and cropped) and the value; beside them,
 * for a convolution that reads the images itself, the channel's filter.
 * The search runs on a worker thread with progress and cancel, over the
 * images the window kept while counting (analysis/top-activations.c). */
#pragma once

#include <gtk/gtk.h>

#include "analysis-net.h"
#include "sample-store.h"
#include "top-activations.h"

G_BEGIN_DECLS

#define CT_TYPE_ANALYSIS_TOP_PANEL (ct_analysis_top_panel_get_type ())
G_DECLARE_FINAL_TYPE (CtAnalysisTopPanel, ct_analysis_top_panel, CT, ANALYSIS_TOP_PANEL, GtkBox)

GtkWidget *ct_analysis_top_panel_new (void);

/* What to search: NET, PATH and STORE are OWNER's, lent while a search
 * runs (the panel holds a reference to OWNER until it ends, and OWNER
 * lends the net to nobody else meanwhile: see "busy-changed"; while it
 * uses the net itself, it makes the panel insensitive). NET NULL:
 * nothing to search (OWNER NULL: a count is under way; else it failed);
 * results shown are dropped. */
void ct_analysis_top_panel_set_source (CtAnalysisTopPanel *self, GObject *owner, CtNet *net,
                                       const CtAnalysisPath *path, const CtSampleStore *store);

/* Start a search for CHANNEL of LAYER (as the controls would); FALSE when
 * there is nothing to search, a search runs or the panel is insensitive. */
gboolean ct_analysis_top_panel_search (CtAnalysisTopPanel *self, const char *layer,
                                       guint channel);
gboolean ct_analysis_top_panel_is_busy (CtAnalysisTopPanel *self);
void ct_analysis_top_panel_cancel (CtAnalysisTopPanel *self);

/* The last search's result (NULL: none yet), and whether a filter is shown. */
const CtTopActivations *ct_analysis_top_panel_get_result (CtAnalysisTopPanel *self);
gboolean ct_analysis_top_panel_has_filter (CtAnalysisTopPanel *self);

/* Signals: "busy-changed" (gboolean busy), when a search starts or ends;
 * "image-activated" (guint64 index), when an image is clicked: its place
 * in the store. */

G_END_DECLS
