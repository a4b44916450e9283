/* layer-explanation.h: the inspector's "How this layer works" section:
 * what the selected layer's type explains of itself (CtLayerClass's
 * explanation: a few sentences, the formula, its parameters, its diff). */
#pragma once

#include <gtk/gtk.h>

#include "layer.h"

G_BEGIN_DECLS

/* Show KLASS's explanation in a section placed right after DESCRIPTION
 * (made on the first call); NULL, or a type without one, hides it. */
void ct_layer_explanation_follow (GtkWidget *description, const CtLayerClass *klass);
/* The section beside DESCRIPTION, or NULL before the first call. */
GtkWidget *ct_layer_explanation_get (GtkWidget *description);

G_END_DECLS
