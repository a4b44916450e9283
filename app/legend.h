/* legend.h: a small "How to read this" button whose popover explains the
 * colours of what is next to it: the heatmaps' colour maps, or the
 * gradient-health strips and update ratios. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum {
  CT_LEGEND_HEATMAP, /* the colour maps of the blob panel's heatmaps */
  CT_LEGEND_HEALTH,  /* the gradient-health strips and update ratios */
} CtLegendKind;

GtkWidget *ct_legend_button_new (CtLegendKind kind);
/* The text the legend of KIND gives (translated), for tooltips. */
const char *ct_legend_text (CtLegendKind kind);

G_END_DECLS
