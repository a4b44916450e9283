/* plot-view.h: CtPlotView, live line plots (GTK 4).
 *
 * The widget draws series of (x, y) points in stacked panels; it knows
 * nothing of nets or solvers (see plot/plot.h for the model: panels, left
 * and right axes, earlier runs faded and labelled). Points may arrive far
 * faster than frames: appending only marks the plot changed, and a tick
 * callback redraws at most once per frame.
 *
 * Reading: the pointer shows a vertical line with the nearest point of
 * each series marked and the readout in a box beside it; the readout is
 * also the `hover-text` property. The wheel zooms around the pointer, a pinch zooms, a
 * drag pans, a drag with Ctrl (or with the secondary button) zooms into
 * the rectangle, a double click autoscales again. Keys: + and - zoom x
 * around the middle, Left and Right pan x, Up and Down pan the first
 * panel's y, Home autoscales, L toggles the log scale. The
 * `log-scale` property sets every panel's left axis to log. The
 * accessible description lists each series with its last value.
 *
 * Drawing lives in the GTK-free CtPlot; the widget caches the render node
 * and drops it on any change, and draws the hover marks on top. */
#pragma once

#include <gtk/gtk.h>

#include "plot/plot.h"

G_BEGIN_DECLS

#define CT_TYPE_PLOT_VIEW (ct_plot_view_get_type ())
G_DECLARE_FINAL_TYPE (CtPlotView, ct_plot_view, CT, PLOT_VIEW, GtkWidget)

GtkWidget *ct_plot_view_new (void);

/* The model (borrowed). After changing it directly, call
 * ct_plot_view_changed(). */
CtPlot *ct_plot_view_get_plot (CtPlotView *self);
void ct_plot_view_changed (CtPlotView *self);

/* The same as on CtPlot, with a redraw. */
int ct_plot_view_add_panel (CtPlotView *self, const char *title, double weight);
int ct_plot_view_add_series (CtPlotView *self,
                             int panel,
                             CtPlotAxisSide side,
                             const char *name,
                             CtPlotColor color,
                             CtPlotStyle style,
                             const char *run_label);
/* Append a point; the redraw waits for the next frame, and many appends
 * before it cost one redraw. FALSE as ct_plot_append. */
gboolean ct_plot_view_append_point (CtPlotView *self, int series, double x, double y);
/* The current series become an earlier run, faded, labelled RUN_LABEL. */
void ct_plot_view_fade_all (CtPlotView *self, const char *run_label);

/* The accessible label (the plot's title). */
void ct_plot_view_set_title (CtPlotView *self, const char *title);

void ct_plot_view_set_log_scale (CtPlotView *self, gboolean log);
gboolean ct_plot_view_get_log_scale (CtPlotView *self);

/* The readout for the pointer's place, or NULL. */
const char *ct_plot_view_get_hover_text (CtPlotView *self);
/* What the readout says at (X, Y) in the widget (and sets it, as pointer
 * motion there would). */
char *ct_plot_view_hover_at (CtPlotView *self, double x, double y);

/* View changes, as the keys do: zoom by FACTOR around the centre, pan by
 * fractions of the plotting area, autoscale. */
void ct_plot_view_zoom (CtPlotView *self, double factor);
void ct_plot_view_pan (CtPlotView *self, double fx, double fy);
void ct_plot_view_reset_zoom (CtPlotView *self);

/* Exports. WIDTH or HEIGHT 0: the widget's size. */
gboolean ct_plot_view_save_csv (CtPlotView *self, const char *path, GError **error);
gboolean ct_plot_view_save_png (CtPlotView *self, const char *path, int width, int height,
                                GError **error);

/* How many times the plot was drawn (the cached node rebuilt), for tests. */
guint ct_plot_view_get_draw_count (CtPlotView *self);

G_END_DECLS
