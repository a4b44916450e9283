/* plot.h: line plots of (x, y) series, without GTK.
 *
 * A CtPlot is a stack of panels that share one x axis. Each panel has a
 * left y axis and, when a series asks for it, a right one. Training needs
 * this shape: loss (about 0.01 to 3) and accuracy (0 to 1) read badly on
 * one axis, and the learning rate (1e-5 to 0.1) reads on neither, so the
 * usual set-up is two stacked panels, "Loss" with the training and test
 * losses on the left and the learning rate on the right (log), and
 * "Accuracy" below, all aligned on the iteration. Stacked panels keep
 * every curve readable and let a zoom in x apply to all of them at once.
 *
 * Series hold points appended live (x must not decrease) in arrays that
 * grow by doubling. Each axis autoscales until it is zoomed or panned
 * (an autoscaled y fits the points in view when x is zoomed, so zooming
 * into the late iterations shows the small late losses), and may be
 * logarithmic (points <= 0 are then left out, and the panel
 * says how many). Drawing decimates: when a series has more points in
 * view than the panel has pixel columns, each column draws as one
 * vertical stroke from its minimum to its maximum, joined from the last
 * value of one column to the first of the next, so a one-point spike
 * never vanishes. The columns are cached per series and view, and points
 * appended to an unchanged view extend them without a rebuild; the
 * autoscaled x axis ends on a whole tick step so that it seldom changes as
 * points arrive.
 *
 * An autoscaled linear axis leaves out values far from the bulk of the
 * others (a diverged run, see robust.h) and marks them at the panel's edge.
 *
 * Earlier runs stay on the plot: a series can be faded and carry a run
 * label (what set the run apart: "base_lr 0.01"); the legend shows it,
 * ellipsizing what does not fit the panel's width. The plot knows nothing
 * of nets: names, colours and panels come from the caller. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "smooth.h"
#include "ticks.h"

G_BEGIN_DECLS

#define CT_PLOT_ERROR (ct_plot_error_quark ())
GQuark ct_plot_error_quark (void);

typedef enum {
  CT_PLOT_ERROR_WRITE,
} CtPlotError;

typedef struct _CtPlot CtPlot;

/* Colour roles: a palette that colour-blind readers can tell apart
 * (Okabe and Ito). */
typedef enum {
  CT_PLOT_COLOR_BLUE,
  CT_PLOT_COLOR_ORANGE,
  CT_PLOT_COLOR_GREEN,
  CT_PLOT_COLOR_VERMILLION,
  CT_PLOT_COLOR_PURPLE,
  CT_PLOT_COLOR_SKY,
  CT_PLOT_COLOR_GREY,
  CT_PLOT_N_COLORS
} CtPlotColor;

typedef enum {
  CT_PLOT_LINE,       /* a line of normal width */
  CT_PLOT_LINE_THIN,  /* thin and light: raw values under a smoothed line */
  CT_PLOT_LINE_MARKS, /* a line with a dot on each point: sparse values */
} CtPlotStyle;

typedef enum {
  CT_PLOT_AXIS_LEFT,
  CT_PLOT_AXIS_RIGHT,
} CtPlotAxisSide;

/* Where a panel's plotting area lies in a WIDTH x HEIGHT drawing. */
typedef struct {
  double x, y, width, height;
} CtPlotRect;

/* The nearest point of one series to an x, for the hover readout. */
typedef struct {
  int series;
  gsize index;
  double x, y;
} CtPlotHit;

CtPlot *ct_plot_new (void);
void ct_plot_free (CtPlot *plot);

/* A panel below the others, with a title and a share of the height
 * (WEIGHT > 0, relative to the other panels). Returns its index. */
int ct_plot_add_panel (CtPlot *plot, const char *title, double weight);
int ct_plot_get_n_panels (const CtPlot *plot);
void ct_plot_set_x_label (CtPlot *plot, const char *label);
const char *ct_plot_get_x_label (const CtPlot *plot);

/* A series drawn in PANEL against its SIDE axis. RUN_LABEL names the run
 * ("run 2"), or NULL. Returns its index (indices are never reused). */
int ct_plot_add_series (CtPlot *plot,
                        int panel,
                        CtPlotAxisSide side,
                        const char *name,
                        CtPlotColor color,
                        CtPlotStyle style,
                        const char *run_label);
int ct_plot_get_n_series (const CtPlot *plot);
const char *ct_plot_series_get_name (const CtPlot *plot, int series);
const char *ct_plot_series_get_run_label (const CtPlot *plot, int series);
/* An earlier run: drawn faded, its run label in the legend. */
void ct_plot_series_set_faded (CtPlot *plot, int series, gboolean faded);
gboolean ct_plot_series_get_faded (const CtPlot *plot, int series);
void ct_plot_series_set_run_label (CtPlot *plot, int series, const char *run_label);
void ct_plot_series_set_visible (CtPlot *plot, int series, gboolean visible);
gboolean ct_plot_series_get_visible (const CtPlot *plot, int series);
/* Fade every series that is not yet faded and give it RUN_LABEL: the
 * current run becomes an earlier one before a new run adds its series. */
void ct_plot_fade_all (CtPlot *plot, const char *run_label);

/* Append a point. FALSE (and nothing added) when X is smaller than the
 * series' last x or is not finite; a non-finite Y is kept (the CSV has
 * it) but not drawn. */
gboolean ct_plot_append (CtPlot *plot, int series, double x, double y);
void ct_plot_series_clear (CtPlot *plot, int series);
gsize ct_plot_series_get_n_points (const CtPlot *plot, int series);
/* The series' points as x and y arrays (borrowed; valid until the next
 * append). */
const double *ct_plot_series_get_xs (const CtPlot *plot, int series);
const double *ct_plot_series_get_ys (const CtPlot *plot, int series);
/* The last point; FALSE when there is none. */
gboolean ct_plot_series_get_last (const CtPlot *plot, int series, double *x, double *y);
/* Points of the series left out on its log axis (y <= 0). */
gsize ct_plot_series_get_n_nonpositive (const CtPlot *plot, int series);

/* Axes. Log applies to one panel's axis on one side. */
void ct_plot_set_log (CtPlot *plot, int panel, CtPlotAxisSide side, gboolean log);
gboolean ct_plot_get_log (const CtPlot *plot, int panel, CtPlotAxisSide side);
/* Whether the panel has a series on SIDE. */
gboolean ct_plot_panel_has_side (const CtPlot *plot, int panel, CtPlotAxisSide side);

/* The ranges now shown: fixed by zoom or pan, else from the data (x ends
 * on a tick step; y has a margin). For a log axis, the values themselves
 * (both > 0). FALSE when there is nothing to show. */
gboolean ct_plot_get_x_range (CtPlot *plot, double *lo, double *hi);
gboolean ct_plot_get_y_range (CtPlot *plot, int panel, CtPlotAxisSide side,
                              double *lo, double *hi);
/* Whether the autoscaled range of a linear axis leaves out values far
 * outside the bulk of the others (a diverged run's spike, see robust.h);
 * the drawing marks them at the panel's edge. */
gboolean ct_plot_get_y_clipped (CtPlot *plot, int panel, CtPlotAxisSide side);
/* Fix the ranges (turns the axis' autoscale off). LO < HI; for a log axis
 * LO > 0. */
void ct_plot_set_x_range (CtPlot *plot, double lo, double hi);
void ct_plot_set_y_range (CtPlot *plot, int panel, CtPlotAxisSide side, double lo, double hi);
/* Whether any axis is zoomed or panned. */
gboolean ct_plot_is_zoomed (const CtPlot *plot);
/* Autoscale every axis again. */
void ct_plot_reset_view (CtPlot *plot);

/* Layout of a WIDTH x HEIGHT drawing: panel P's plotting area. */
void ct_plot_get_panel_rect (CtPlot *plot, double width, double height, int panel,
                             CtPlotRect *rect);
/* The panel whose plotting area's rows hold Y, or -1. */
int ct_plot_panel_at (CtPlot *plot, double width, double height, double y);

/* Value <-> pixel in a WIDTH x HEIGHT drawing. */
double ct_plot_x_to_px (CtPlot *plot, double width, double height, double x);
double ct_plot_px_to_x (CtPlot *plot, double width, double height, double px);
double ct_plot_y_to_px (CtPlot *plot, double width, double height, int panel,
                        CtPlotAxisSide side, double y);
double ct_plot_px_to_y (CtPlot *plot, double width, double height, int panel,
                        CtPlotAxisSide side, double py);

/* View changes in pixels of a WIDTH x HEIGHT drawing. Zoom by FACTOR (> 1
 * zooms in) around (PX, PY): x, and the y axes of the panel under PY. */
void ct_plot_zoom_at (CtPlot *plot, double width, double height,
                      double px, double py, double factor);
/* The rectangle from (X0, Y0) to (X1, Y1) fills the view: x, and the
 * y axes of the panel under Y0. Too small a rectangle (under 4 px) does
 * nothing and returns FALSE. */
gboolean ct_plot_zoom_rect (CtPlot *plot, double width, double height,
                            double x0, double y0, double x1, double y1);
/* Move the view by (DX, DY) pixels, as a drag does: x, and the y axes
 * of the panel under PY. */
void ct_plot_pan (CtPlot *plot, double width, double height, double py,
                  double dx, double dy);

/* The nearest point in x to pixel column PX of every visible series that
 * has a point in view; returns how many were written to HITS (at most
 * MAX_HITS). */
int ct_plot_hit (CtPlot *plot, double width, double height, double px,
                 CtPlotHit *hits, int max_hits);
/* The hover readout at PX: the x on a first line ("Iteration 1200"),
 * then a line per series ("Test accuracy (run 1): 0.9812"), the current
 * run's before the faded ones, with the point's own x when it differs. NULL outside the plotting area or with
 * no point in view. */
char *ct_plot_hover_text (CtPlot *plot, double width, double height, double px, double py);
/* One line per series with its last value, for an accessible
 * description: "Training loss: 0.25 at 1200; ...". */
char *ct_plot_describe (CtPlot *plot);

/* The colour of text, axes and grid (RGB 0..1). */
void ct_plot_set_text_color (CtPlot *plot, double r, double g, double b);
/* Draw into CR over (0, 0, WIDTH, HEIGHT); the background is left as is. */
void ct_plot_draw (CtPlot *plot, cairo_t *cr, double width, double height);
/* The hover marks: a vertical line at PX, a dot on each hit point, and
 * with SHOW_TEXT_BOX the readout (ct_plot_hover_text) in a box beside the
 * line. */
void ct_plot_draw_hover (CtPlot *plot, cairo_t *cr, double width, double height, double px,
                         gboolean show_text_box);

/* Decimation bookkeeping, for tests and the benchmark: full column
 * builds and incremental extensions since the plot was made. */
guint ct_plot_get_column_builds (const CtPlot *plot);
guint ct_plot_get_column_extends (const CtPlot *plot);
/* Drop every series' columns, as a change of view would. */
void ct_plot_invalidate (CtPlot *plot);

/* CSV: see plot-export.c for the format. */
char *ct_plot_csv_text (CtPlot *plot);
gboolean ct_plot_save_csv (CtPlot *plot, const char *path, GError **error);
/* The plot drawn at WIDTH x HEIGHT on white, as a PNG. */
gboolean ct_plot_save_png (CtPlot *plot, const char *path, int width, int height,
                           GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtPlot, ct_plot_free)

G_END_DECLS
