/* columns.h: decimation of one series for drawing, GTK-free.
 *
 * The x range in view is cut into as many columns as the panel has pixels
 * across; each column keeps the minimum, maximum, first and last y of the
 * series' points that fall in it. Drawn as a vertical stroke from minimum
 * to maximum per column, joined last-to-first between columns, this looks
 * like the full line at that width, and no spike can vanish between two
 * samples. The columns are kept with the view they were built for; when
 * only points were appended since, the new points are added to them
 * (the common case while training: a point per iteration). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gboolean valid;
  double x_lo, x_hi; /* the view they were built for */
  int n_cols;
  gboolean log;      /* y <= 0 left out */
  gsize upto;        /* points [0, upto) are in */
  double *min, *max, *first, *last; /* per column; NaN when empty */
} CtPlotColumns;

/* Bring COLUMNS up to date for points XS/YS (N of them, x not decreasing)
 * in the view [X_LO, X_HI] cut into N_COLS columns. Returns TRUE when it
 * had to rebuild (the view changed) rather than extend. */
gboolean ct_plot_columns_update (CtPlotColumns *columns,
                                 const double *xs,
                                 const double *ys,
                                 gsize n,
                                 double x_lo,
                                 double x_hi,
                                 int n_cols,
                                 gboolean log);
void ct_plot_columns_clear (CtPlotColumns *columns);

/* The first index whose x is >= X (N when none), by bisection. */
gsize ct_plot_lower_bound (const double *xs, gsize n, double x);

G_END_DECLS
