/* robust.h: a y range that one diverged run cannot flatten, GTK-free.
 *
 * Training plots keep earlier runs beside the current one, and a run
 * whose loss blew up (a learning rate ten times too large) climbs to ~90
 * where the others lie between 0.1 and 2.5: fitted to every value, the
 * axis leaves them a few pixels high. A user expects the curves being
 * compared to fill the panel and the blow-up to be shown going off the
 * top, as TensorBoard's "ignore outliers in chart scaling" does. So the
 * values far from the bulk are left out of the range: farther from the
 * median than 20 median absolute deviations, which a diverged run's
 * points are however many there are (a percentile would keep them once
 * they are more than a few percent of the points). A curve's first
 * values always count (a loss starts high and falls, an accuracy starts
 * low and rises: both ends are the curve, not outliers), with the same
 * distance again beyond them. The points left out are clipped and marked
 * at the panel's edge. A log scale (the plot's menu) is the other
 * reading, with every value shown; it is left to the user, as it changes
 * how every curve reads. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* VALUES (N finite values, reordered in place) and FIRSTS (the first
 * finite value of each curve, N_FIRSTS of them): TRUE when some values
 * lie far outside the bulk, with the range of the others in *LO, *HI;
 * else FALSE, and the full range is right. */
gboolean ct_plot_robust_range (double *values, gsize n, const double *firsts, gsize n_firsts,
                               double *lo, double *hi);

G_END_DECLS
