/* ticks.c: 1-2-5 linear ticks, decade ticks, and their labels (see
 * ticks.h). */
#include "ticks.h"

#include <math.h>
#include <string.h>

double
ct_plot_nice_step (double span, int max_ticks)
{
  static const double mult[] = { 1, 2, 5, 10 };
  double raw, base;

  if (!(span > 0) || !isfinite (span))
    return 1.0;
  max_ticks = MAX (max_ticks, 2);
  /* With k steps there are up to k + 1 ticks: aim at max_ticks - 1. */
  raw = span / (max_ticks - 1);
  base = pow (10.0, floor (log10 (raw)));
  for (guint i = 0; i < G_N_ELEMENTS (mult); i++)
    if (mult[i] * base >= raw * (1 - 1e-9))
      return mult[i] * base;
  return 10 * base;
}

void
ct_plot_ticks_linear (double lo, double hi, int max_ticks, CtPlotTicks *ticks)
{
  double step, first;

  max_ticks = CLAMP (max_ticks, 2, CT_PLOT_MAX_TICKS);
  ticks->n = 0;
  ticks->decades = FALSE;
  step = ct_plot_nice_step (hi - lo, max_ticks);
  ticks->step = step;
  if (!(hi > lo) || !isfinite (lo) || !isfinite (hi))
    return;
  first = ceil (lo / step - 1e-9) * step;
  for (int i = 0; ticks->n < CT_PLOT_MAX_TICKS; i++)
    {
      double v = first + i * step;

      if (v > hi + step * 1e-9)
        break;
      /* -0 and rounding dust (3e-17 for 0) print as 0. */
      if (fabs (v) < step * 1e-9)
        v = 0;
      ticks->values[ticks->n++] = v;
    }
}

void
ct_plot_ticks_log (double lo, double hi, int max_ticks, CtPlotTicks *ticks)
{
  int first, last, every;

  max_ticks = CLAMP (max_ticks, 2, CT_PLOT_MAX_TICKS);
  ticks->n = 0;
  if (!(lo > 0) || !(hi > lo) || !isfinite (hi))
    {
      ticks->decades = FALSE;
      ticks->step = 0;
      return;
    }
  first = (int) ceil (log10 (lo) - 1e-9);
  last = (int) floor (log10 (hi) + 1e-9);
  /* Fewer than two powers of ten inside: linear ticks read better. */
  if (last - first < 1)
    {
      ct_plot_ticks_linear (lo, hi, max_ticks, ticks);
      return;
    }
  ticks->decades = TRUE;
  ticks->step = 0;
  every = 1;
  while ((last - first) / every + 1 > max_ticks)
    every++;
  /* Multiples of EVERY, so that panning does not shift which decades show. */
  for (int e = (int) ceil ((double) first / every) * every; e <= last; e += every)
    if (ticks->n < CT_PLOT_MAX_TICKS)
      ticks->values[ticks->n++] = pow (10.0, e);
}

void
ct_plot_format_tick (char *buf, gsize len, double value, const CtPlotTicks *ticks)
{
  double mag = fabs (value);

  if (ticks->decades)
    {
      if (mag >= 1e-3 && mag < 1e6)
        g_ascii_formatd (buf, len, "%.3f", value);
      else
        g_ascii_formatd (buf, len, "%.0e", value);
      /* "0.010" -> "0.01", "100.000" -> "100". */
      if (mag >= 1e-3 && mag < 1e6)
        {
          char *end = buf + strlen (buf) - 1;

          while (end > buf && *end == '0')
            *end-- = '\0';
          if (*end == '.')
            *end = '\0';
        }
      return;
    }
  if (value != 0 && (mag < 1e-4 || mag >= 1e7 || ticks->step < 1e-6))
    {
      g_ascii_formatd (buf, len, "%.3g", value);
      return;
    }
  {
    int decimals = ticks->step >= 1 ? 0 : (int) ceil (-log10 (ticks->step) - 1e-9);
    char format[16];

    /* A step of 0.25 would need 2 decimals, but steps are 1, 2 or 5
     * times a power of ten: one more decimal than the power covers it. */
    decimals = CLAMP (decimals, 0, 12);
    g_snprintf (format, sizeof format, "%%.%df", decimals);
    g_ascii_formatd (buf, len, format, value);
  }
}

void
ct_plot_format_value (char *buf, gsize len, double value, gboolean precise)
{
  if (isnan (value))
    g_strlcpy (buf, "nan", len);
  else if (isinf (value))
    g_strlcpy (buf, value > 0 ? "inf" : "-inf", len);
  else
    g_ascii_formatd (buf, len, precise ? "%.10g" : "%.6g", value);
}
