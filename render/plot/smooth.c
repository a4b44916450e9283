/* smooth.c: the moving average of the last N values (see smooth.h). */
#include "smooth.h"

struct _CtPlotSmoother {
  guint window;
  guint count; /* values in the ring, up to window */
  guint next;  /* where the next value goes */
  double sum;
  double *ring;
};

CtPlotSmoother *
ct_plot_smoother_new (guint window)
{
  CtPlotSmoother *s = g_new0 (CtPlotSmoother, 1);

  s->window = MAX (window, 1);
  s->ring = g_new0 (double, s->window);
  return s;
}

void
ct_plot_smoother_free (CtPlotSmoother *s)
{
  if (s == NULL)
    return;
  g_free (s->ring);
  g_free (s);
}

double
ct_plot_smoother_push (CtPlotSmoother *s, double value)
{
  if (s->count == s->window)
    s->sum -= s->ring[s->next];
  else
    s->count++;
  s->ring[s->next] = value;
  s->sum += value;
  s->next = (s->next + 1) % s->window;
  if (s->next == 0)
    {
      double exact = 0;

      for (guint i = 0; i < s->count; i++)
        exact += s->ring[i];
      s->sum = exact;
    }
  return s->sum / s->count;
}

void
ct_plot_smoother_reset (CtPlotSmoother *s)
{
  s->count = 0;
  s->next = 0;
  s->sum = 0;
}

guint
ct_plot_smoother_get_window (const CtPlotSmoother *s)
{
  return s->window;
}

void
ct_plot_smooth (const double *values, gsize n, guint window, double *out)
{
  g_autoptr(CtPlotSmoother) s = ct_plot_smoother_new (window);

  /* Each VALUES[i] is read before OUT[i] is written: OUT may be VALUES. */
  for (gsize i = 0; i < n; i++)
    out[i] = ct_plot_smoother_push (s, values[i]);
}
