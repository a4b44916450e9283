/* ticks.h: where an axis puts its ticks and how it prints their values,
 * GTK-free.
 *
 * Linear axes step by 1, 2 or 5 times a power of ten, the smallest such
 * step that gives no more ticks than asked. Log axes put a tick on each
 * power of ten (every k-th one when there are too many decades); a range
 * narrower than a decade falls back to linear ticks, so a zoomed log axis
 * is never left bare. Values print in the C locale whatever the user's
 * locale (a plot's text must not change with LC_NUMERIC). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most ticks any axis asks for. */
#define CT_PLOT_MAX_TICKS 64

typedef struct {
  int n;
  double values[CT_PLOT_MAX_TICKS];
  double step;      /* the linear step; for decades, 0 */
  gboolean decades; /* the ticks are powers of ten */
} CtPlotTicks;

/* The 1-2-5 step for a span SPAN cut into at most MAX_TICKS pieces. */
double ct_plot_nice_step (double span, int max_ticks);

/* Ticks inside [LO, HI] (LO < HI), at most MAX_TICKS of them (clamped to
 * 2..CT_PLOT_MAX_TICKS). */
void ct_plot_ticks_linear (double lo, double hi, int max_ticks, CtPlotTicks *ticks);
/* Ticks inside [LO, HI] with 0 < LO < HI on a log axis. */
void ct_plot_ticks_log (double lo, double hi, int max_ticks, CtPlotTicks *ticks);

/* A tick's label: enough decimals for STEP ("0.25" for step 0.05, "1500"
 * for step 500), "1e-05"-style for very small or large values and for
 * decades below 0.001 or from 1e6 on. */
void ct_plot_format_tick (char *buf, gsize len, double value, const CtPlotTicks *ticks);

/* A data value as the readout and the CSV print it: "%.6g" (readout) or
 * "%.10g" (CSV, PRECISE) in the C locale; "nan", "inf", "-inf". */
void ct_plot_format_value (char *buf, gsize len, double value, gboolean precise);

G_END_DECLS
