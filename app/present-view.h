/* present-view.h: CtPresentView, presentation mode's large view of the
 * stepped layer (see present-view.c). The window hands it every snapshot
 * of its run and the layer that ran last; the view shows that layer's
 * output (its input's gradient after a backward step) as large as the
 * screen allows, with its name, shape and the step position in big type. */
#pragma once

#include <gtk/gtk.h>

#include "runner.h"

G_BEGIN_DECLS

#define CT_TYPE_PRESENT_VIEW (ct_present_view_get_type ())
G_DECLARE_FINAL_TYPE (CtPresentView, ct_present_view, CT, PRESENT_VIEW, GtkBox)

GtkWidget *ct_present_view_new (void);

/* Show SNAPSHOT's layer CURRENT (NULL snapshot or layer: nothing run yet). */
void ct_present_view_show (CtPresentView *self, CtRunSnapshot *snapshot, const char *current);

/* The blob shown ("pool1"), its shape ("64 × 20 × 12 × 12") and the step
 * ("Forward · layer 3 of 9"), as the big labels read; NULL when empty. For
 * tests and for the accessible description. */
const char *ct_present_view_get_blob (CtPresentView *self);
const char *ct_present_view_get_step_text (CtPresentView *self);

/* The heatmap (borrowed): its channel zoom shows one channel alone. */
GtkWidget *ct_present_view_get_heatmap (CtPresentView *self);

G_END_DECLS
