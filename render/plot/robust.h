/* robust.h: a y range that one diverged run cannot flatten, GTK-free.
 *
 * Training plots keep earlier runs beside the current one, and a run
 * whose loss blew up (a learning rate ten times too large) spikes to
 * ~90 where the others lie between 0.1 and 2.5: fitted to every value,
 * the axis leaves them a few pixels high. A user expects the curves
 * being compared to fill the panel and the spike to be shown as going
 * off the top, as a spreadsheet's "ignore outliers" or TensorBoard's
 * "ignore outliers in chart scaling" do: so the range comes from the
 * 2nd and 98th percentiles of the finite values shown, and only when a
 * value lies far outside them (three of their spreads beyond); the
 * points beyond are clipped and marked at the panel's edge. A log scale
 * (the plot's menu) is the other reading, for a run that diverged for
 * good; it is left to the user, as it changes how every curve reads. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* VALUES (N finite values, reordered in place): the range to show in
 * *LO, *HI when some value lies far outside the bulk of them (TRUE),
 * else FALSE and the full range is right. */
gboolean ct_plot_robust_range (double *values, gsize n, double *lo, double *hi);

G_END_DECLS
