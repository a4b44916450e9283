/* smooth.h: the moving average that Caffe prints as the smoothed loss
 * (SolverParameter.average_loss), GTK-free.
 *
 * The mean of the last N values pushed (of all of them while fewer than N
 * have come). A ring of the last N values with a running sum makes a push
 * O(1); the sum is recomputed from the ring each time the ring wraps, so
 * rounding errors never pile up over a long run. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CtPlotSmoother CtPlotSmoother;

/* WINDOW >= 1 values (a smaller one counts as 1). */
CtPlotSmoother *ct_plot_smoother_new (guint window);
void ct_plot_smoother_free (CtPlotSmoother *smoother);
/* Push VALUE; returns the mean of the last WINDOW values. */
double ct_plot_smoother_push (CtPlotSmoother *smoother, double value);
void ct_plot_smoother_reset (CtPlotSmoother *smoother);
guint ct_plot_smoother_get_window (const CtPlotSmoother *smoother);

/* The same over an array: OUT[i] is the mean of VALUES[i-WINDOW+1 .. i]
 * (from 0 for the first ones). OUT may be VALUES. */
void ct_plot_smooth (const double *values, gsize n, guint window, double *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtPlotSmoother, ct_plot_smoother_free)

G_END_DECLS
