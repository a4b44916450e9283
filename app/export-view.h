/* export-view.h: the current view for slides: the graph, the heatmap
 * shown in the inspector, or the training plot, written at twice the
 * screen's resolution (2 × the window's scale factor), as PNG, or as SVG
 * for the graph and the plot (they are drawn with vector strokes; a
 * heatmap is an image and is written as PNG only). The graph and the plot
 * are drawn by their GTK-free cairo cores (render/graph, render/plot) on
 * cairo image or SVG surfaces; the heatmap is the inspector's widget
 * rendered at twice its size. Every file goes through the atomic writer
 * (files/atomic-write.h). The action win.export-view (Ctrl+Shift+E) asks
 * for the file, with a choice of what to export, the visible view first. */
#pragma once

#include "window.h"

G_BEGIN_DECLS

typedef enum {
  CT_EXPORT_VIEW_GRAPH,
  CT_EXPORT_VIEW_HEATMAP,
  CT_EXPORT_VIEW_PLOT,
} CtExportView;

/* Write VIEW of WINDOW to PATH (".png" or ".svg") at SCALE (0: twice the
 * window's scale factor). */
gboolean ct_export_view_save (CtWindow *window, CtExportView view, const char *path,
                              double scale, GError **error);

G_END_DECLS
