/* plot-private.h: CtPlot's fields, shared by plot.c (model, ranges, view
 * changes, hit-testing), plot-draw.c (cairo drawing) and plot-export.c
 * (CSV and PNG). */
#pragma once

#include "columns.h"
#include "plot.h"

/* Layout, in pixels. */
#define CT_PLOT_MARGIN_LEFT 64.0
#define CT_PLOT_MARGIN_RIGHT_AXIS 64.0
#define CT_PLOT_MARGIN_RIGHT 16.0
#define CT_PLOT_MARGIN_TOP 4.0
#define CT_PLOT_MARGIN_BOTTOM 40.0
#define CT_PLOT_LEGEND_HEIGHT 22.0
#define CT_PLOT_PANEL_GAP 8.0

typedef struct {
  gboolean log;
  gboolean fixed; /* zoomed or panned: lo and hi hold */
  double lo, hi;
  /* With x zoomed, an autoscaled y fits the points in view: their range,
   * kept for the plot's generation and x range it was computed for. */
  guint cache_generation;
  double cache_x_lo, cache_x_hi;
  gboolean cache_any;
  double cache_min, cache_max;
  /* The outlier-resistant range (robust.h), for the same keys. */
  gboolean robust_cached, robust_in_view, robust_clipped;
  guint robust_generation;
  double robust_x_lo, robust_x_hi;
  double robust_lo, robust_hi;
} CtPlotAxis;

typedef struct {
  char *title;
  double weight;
  CtPlotAxis axes[2];
} CtPlotPanel;

typedef struct {
  char *name;
  char *run_label;
  int panel;
  CtPlotAxisSide side;
  CtPlotColor color;
  CtPlotStyle style;
  gboolean faded, visible;
  GArray *xs, *ys;     /* doubles */
  gboolean has_y;      /* a finite y */
  double y_min, y_max; /* over finite y */
  gboolean has_pos;    /* a y > 0 */
  double pos_min, pos_max;
  gsize n_nonpos;      /* y <= 0 */
  CtPlotColumns columns;
} CtPlotSeries;

struct _CtPlot {
  GPtrArray *panels; /* CtPlotPanel */
  GPtrArray *series; /* CtPlotSeries */
  char *x_label;
  gboolean x_fixed;
  double x_lo, x_hi;
  double text_r, text_g, text_b;
  guint column_builds, column_extends;
  guint generation; /* bumped by any change to points or visibility */
};

CtPlotSeries *ct_plot_get_series (const CtPlot *plot, int series);
/* The axis' range in its drawing space (log10 of the values for a log
 * axis). FALSE when nothing is drawn on it. */
gboolean ct_plot_axis_span (CtPlot *plot, int panel, CtPlotAxisSide side,
                            double *t_lo, double *t_hi);
/* Y in the axis' drawing space: log10 (y) on a log axis, NaN for y <= 0. */
double ct_plot_axis_t (const CtPlot *plot, int panel, CtPlotAxisSide side, double y);
/* The colour of a role (RGB 0..1). */
void ct_plot_color_rgb (CtPlotColor color, double *r, double *g, double *b);
/* "Name (run 1)" or "Name". */
char *ct_plot_series_label (const CtPlotSeries *s);
