/* plot.c: CtPlot's model (panels, series, points), its ranges with
 * autoscale, the value <-> pixel transforms, zoom and pan, and the hover
 * readout (see plot.h). Drawing is in plot-draw.c, exports in
 * plot-export.c. */
#include "plot-private.h"
#include "robust.h"

#include <glib/gi18n-lib.h>
#include <math.h>

G_DEFINE_QUARK (ct-plot-error-quark, ct_plot_error)

static void
panel_free (gpointer data)
{
  CtPlotPanel *p = data;

  g_free (p->title);
  g_free (p);
}

static void
series_free (gpointer data)
{
  CtPlotSeries *s = data;

  g_free (s->name);
  g_free (s->run_label);
  g_array_unref (s->xs);
  g_array_unref (s->ys);
  ct_plot_columns_clear (&s->columns);
  g_free (s);
}

CtPlot *
ct_plot_new (void)
{
  CtPlot *plot = g_new0 (CtPlot, 1);

  plot->panels = g_ptr_array_new_with_free_func (panel_free);
  plot->series = g_ptr_array_new_with_free_func (series_free);
  plot->x_label = g_strdup (_("Iteration"));
  plot->generation = 1;
  return plot;
}

void
ct_plot_free (CtPlot *plot)
{
  if (plot == NULL)
    return;
  g_ptr_array_unref (plot->panels);
  g_ptr_array_unref (plot->series);
  g_free (plot->x_label);
  g_free (plot);
}

int
ct_plot_add_panel (CtPlot *plot, const char *title, double weight)
{
  CtPlotPanel *p = g_new0 (CtPlotPanel, 1);

  p->title = g_strdup (title);
  p->weight = weight > 0 ? weight : 1.0;
  g_ptr_array_add (plot->panels, p);
  return (int) plot->panels->len - 1;
}

int
ct_plot_get_n_panels (const CtPlot *plot)
{
  return (int) plot->panels->len;
}

void
ct_plot_set_x_label (CtPlot *plot, const char *label)
{
  g_free (plot->x_label);
  plot->x_label = g_strdup (label != NULL ? label : "");
}

const char *
ct_plot_get_x_label (const CtPlot *plot)
{
  return plot->x_label;
}

static CtPlotPanel *
get_panel (const CtPlot *plot, int panel)
{
  g_return_val_if_fail (panel >= 0 && (guint) panel < plot->panels->len, NULL);
  return g_ptr_array_index (plot->panels, panel);
}

CtPlotSeries *
ct_plot_get_series (const CtPlot *plot, int series)
{
  g_return_val_if_fail (series >= 0 && (guint) series < plot->series->len, NULL);
  return g_ptr_array_index (plot->series, series);
}

int
ct_plot_add_series (CtPlot *plot,
                    int panel,
                    CtPlotAxisSide side,
                    const char *name,
                    CtPlotColor color,
                    CtPlotStyle style,
                    const char *run_label)
{
  CtPlotSeries *s;

  g_return_val_if_fail (get_panel (plot, panel) != NULL, -1);
  s = g_new0 (CtPlotSeries, 1);
  s->name = g_strdup (name != NULL ? name : "");
  s->run_label = g_strdup (run_label);
  s->panel = panel;
  s->side = side == CT_PLOT_AXIS_RIGHT ? CT_PLOT_AXIS_RIGHT : CT_PLOT_AXIS_LEFT;
  s->color = CLAMP (color, 0, CT_PLOT_N_COLORS - 1);
  s->style = style;
  s->visible = TRUE;
  s->xs = g_array_new (FALSE, FALSE, sizeof (double));
  s->ys = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (plot->series, s);
  plot->generation++;
  return (int) plot->series->len - 1;
}

int
ct_plot_get_n_series (const CtPlot *plot)
{
  return (int) plot->series->len;
}

const char *
ct_plot_series_get_name (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL ? s->name : NULL;
}

const char *
ct_plot_series_get_run_label (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL ? s->run_label : NULL;
}

void
ct_plot_series_set_faded (CtPlot *plot, int series, gboolean faded)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  if (s != NULL)
    s->faded = faded;
}

gboolean
ct_plot_series_get_faded (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL && s->faded;
}

void
ct_plot_series_set_run_label (CtPlot *plot, int series, const char *run_label)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  if (s == NULL)
    return;
  g_free (s->run_label);
  s->run_label = g_strdup (run_label);
}

void
ct_plot_series_set_visible (CtPlot *plot, int series, gboolean visible)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  if (s != NULL)
    s->visible = visible;
  plot->generation++;
}

gboolean
ct_plot_series_get_visible (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL && s->visible;
}

void
ct_plot_fade_all (CtPlot *plot, const char *run_label)
{
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);

      if (s->faded)
        continue;
      s->faded = TRUE;
      g_free (s->run_label);
      s->run_label = g_strdup (run_label);
    }
}

gboolean
ct_plot_append (CtPlot *plot, int series, double x, double y)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  g_return_val_if_fail (s != NULL, FALSE);
  if (!isfinite (x) || (s->xs->len > 0 && x < g_array_index (s->xs, double, s->xs->len - 1)))
    return FALSE;
  plot->generation++;
  /* GArray doubles its allocation as it grows: amortised O(1). */
  g_array_append_val (s->xs, x);
  g_array_append_val (s->ys, y);
  if (isfinite (y))
    {
      s->y_min = s->has_y ? MIN (s->y_min, y) : y;
      s->y_max = s->has_y ? MAX (s->y_max, y) : y;
      s->has_y = TRUE;
      if (y > 0)
        {
          s->pos_min = s->has_pos ? MIN (s->pos_min, y) : y;
          s->pos_max = s->has_pos ? MAX (s->pos_max, y) : y;
          s->has_pos = TRUE;
        }
    }
  if (y <= 0)
    s->n_nonpos++;
  return TRUE;
}

void
ct_plot_series_clear (CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  g_return_if_fail (s != NULL);
  plot->generation++;
  g_array_set_size (s->xs, 0);
  g_array_set_size (s->ys, 0);
  s->has_y = s->has_pos = FALSE;
  s->n_nonpos = 0;
  ct_plot_columns_clear (&s->columns);
}

gsize
ct_plot_series_get_n_points (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL ? s->xs->len : 0;
}

const double *
ct_plot_series_get_xs (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL ? (const double *) (void *) s->xs->data : NULL;
}

const double *
ct_plot_series_get_ys (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL ? (const double *) (void *) s->ys->data : NULL;
}

gboolean
ct_plot_series_get_last (const CtPlot *plot, int series, double *x, double *y)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  if (s == NULL || s->xs->len == 0)
    return FALSE;
  *x = g_array_index (s->xs, double, s->xs->len - 1);
  *y = g_array_index (s->ys, double, s->ys->len - 1);
  return TRUE;
}

gsize
ct_plot_series_get_n_nonpositive (const CtPlot *plot, int series)
{
  CtPlotSeries *s = ct_plot_get_series (plot, series);

  return s != NULL ? s->n_nonpos : 0;
}

/* Axes and ranges */

void
ct_plot_set_log (CtPlot *plot, int panel, CtPlotAxisSide side, gboolean log)
{
  CtPlotPanel *p = get_panel (plot, panel);

  g_return_if_fail (p != NULL);
  if (p->axes[side].log == !!log)
    return;
  p->axes[side].log = !!log;
  plot->generation++;
  /* A fixed linear range means nothing on a log axis, and back. */
  p->axes[side].fixed = FALSE;
}

gboolean
ct_plot_get_log (const CtPlot *plot, int panel, CtPlotAxisSide side)
{
  CtPlotPanel *p = get_panel (plot, panel);

  return p != NULL && p->axes[side].log;
}

gboolean
ct_plot_panel_has_side (const CtPlot *plot, int panel, CtPlotAxisSide side)
{
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);

      if (s->panel == panel && s->side == side)
        return TRUE;
    }
  return FALSE;
}

gboolean
ct_plot_get_x_range (CtPlot *plot, double *lo, double *hi)
{
  gboolean any = FALSE;
  double x_min = 0, x_max = 0, step;

  if (plot->x_fixed)
    {
      *lo = plot->x_lo;
      *hi = plot->x_hi;
      return TRUE;
    }
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);

      if (!s->visible || s->xs->len == 0)
        continue;
      x_min = any ? MIN (x_min, g_array_index (s->xs, double, 0)) : g_array_index (s->xs, double, 0);
      x_max = any ? MAX (x_max, g_array_index (s->xs, double, s->xs->len - 1))
                  : g_array_index (s->xs, double, s->xs->len - 1);
      any = TRUE;
    }
  if (!any)
    return FALSE;
  /* Whole tick steps at both ends: the axis stays put while points
   * arrive, so the decimated columns can be extended, not rebuilt. */
  step = ct_plot_nice_step (x_max > x_min ? x_max - x_min : MAX (fabs (x_max), 1.0), 8);
  *lo = floor (x_min / step) * step;
  *hi = ceil (x_max / step) * step;
  /* A single x: a step on either side. */
  if (*hi <= *lo)
    {
      *lo -= step;
      *hi += step;
    }
  return TRUE;
}

static void
compute_visible_y_range (CtPlot *plot, CtPlotAxis *a, int panel, CtPlotAxisSide side)
{
  a->cache_any = FALSE;
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);
      const double *xs = (const double *) (void *) s->xs->data;
      const double *ys = (const double *) (void *) s->ys->data;

      if (!s->visible || s->panel != panel || s->side != side)
        continue;
      for (gsize k = ct_plot_lower_bound (xs, s->xs->len, plot->x_lo);
           k < s->xs->len && xs[k] <= plot->x_hi; k++)
        {
          double y = ys[k];

          if (!isfinite (y) || (a->log && y <= 0))
            continue;
          a->cache_min = a->cache_any ? MIN (a->cache_min, y) : y;
          a->cache_max = a->cache_any ? MAX (a->cache_max, y) : y;
          a->cache_any = TRUE;
        }
    }
  a->cache_generation = plot->generation;
  a->cache_x_lo = plot->x_lo;
  a->cache_x_hi = plot->x_hi;
}

/* The y range of the points inside the fixed x range, on axis SIDE of
 * PANEL; cached until the points, the visibility or the x range change. */
static gboolean
visible_y_range (CtPlot *plot, int panel, CtPlotAxisSide side, double *y_min, double *y_max)
{
  CtPlotAxis *a = &((CtPlotPanel *) g_ptr_array_index (plot->panels, panel))->axes[side];

  if (a->cache_generation != plot->generation || a->cache_x_lo != plot->x_lo
      || a->cache_x_hi != plot->x_hi)
    compute_visible_y_range (plot, a, panel, side);
  *y_min = a->cache_min;
  *y_max = a->cache_max;
  return a->cache_any;
}

/* The finite values of the visible series on a linear axis (in the x
 * range when IN_VIEW), at most 8192 of them taken at a stride, and the
 * range robust.h gives them; cached like the visible range. */
static gboolean
robust_y_range (CtPlot *plot, CtPlotAxis *a, int panel, CtPlotAxisSide side, gboolean in_view,
                double *lo, double *hi)
{
  g_autoptr (GArray) values = NULL;
  g_autoptr (GArray) firsts = g_array_new (FALSE, FALSE, sizeof (double));
  gsize total = 0, stride;

  if (a->robust_cached && a->robust_generation == plot->generation
      && a->robust_in_view == in_view
      && (!in_view || (a->robust_x_lo == plot->x_lo && a->robust_x_hi == plot->x_hi)))
    goto done;
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);

      if (s->visible && s->panel == panel && s->side == side)
        total += s->ys->len;
    }
  stride = MAX (total / 8192, 1);
  values = g_array_sized_new (FALSE, FALSE, sizeof (double), MIN (total, 8192 + 64));
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);
      const double *xs = (const double *) (void *) s->xs->data;
      const double *ys = (const double *) (void *) s->ys->data;

      if (!s->visible || s->panel != panel || s->side != side)
        continue;
      for (gsize k = 0; k < s->ys->len; k++)
        if (isfinite (ys[k]))
          {
            g_array_append_val (firsts, ys[k]);
            break;
          }
      for (gsize k = in_view ? ct_plot_lower_bound (xs, s->xs->len, plot->x_lo) : 0;
           k < s->xs->len && (!in_view || xs[k] <= plot->x_hi); k += stride)
        if (isfinite (ys[k]))
          g_array_append_val (values, ys[k]);
    }
  a->robust_clipped = ct_plot_robust_range ((double *) (void *) values->data, values->len,
                                            (const double *) (void *) firsts->data, firsts->len,
                                            &a->robust_lo, &a->robust_hi);
  a->robust_cached = TRUE;
  a->robust_generation = plot->generation;
  a->robust_in_view = in_view;
  a->robust_x_lo = plot->x_lo;
  a->robust_x_hi = plot->x_hi;
done:
  *lo = a->robust_lo;
  *hi = a->robust_hi;
  return a->robust_clipped;
}

gboolean
ct_plot_get_y_clipped (CtPlot *plot, int panel, CtPlotAxisSide side)
{
  CtPlotPanel *p = get_panel (plot, panel);
  double lo, hi;

  g_return_val_if_fail (p != NULL, FALSE);
  if (p->axes[side].fixed || p->axes[side].log)
    return FALSE;
  return ct_plot_get_y_range (plot, panel, side, &lo, &hi) && p->axes[side].robust_clipped;
}

gboolean
ct_plot_get_y_range (CtPlot *plot, int panel, CtPlotAxisSide side, double *lo, double *hi)
{
  CtPlotPanel *p = get_panel (plot, panel);
  CtPlotAxis *a;
  gboolean any, in_view;
  double y_min = 0, y_max = 0;

  g_return_val_if_fail (p != NULL, FALSE);
  a = &p->axes[side];
  if (a->fixed)
    {
      *lo = a->lo;
      *hi = a->hi;
      return TRUE;
    }
  in_view = plot->x_fixed && visible_y_range (plot, panel, side, &y_min, &y_max);
  any = in_view;
  /* All the points: the x range is autoscaled, or none is in view. */
  for (guint i = 0; i < plot->series->len && !in_view; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);
      double s_min = a->log ? s->pos_min : s->y_min;
      double s_max = a->log ? s->pos_max : s->y_max;

      if (!s->visible || s->panel != panel || s->side != side
          || !(a->log ? s->has_pos : s->has_y))
        continue;
      y_min = any ? MIN (y_min, s_min) : s_min;
      y_max = any ? MAX (y_max, s_max) : s_max;
      any = TRUE;
    }
  if (!any)
    return FALSE;
  if (a->log)
    {
      double t_lo = log10 (y_min), t_hi = log10 (y_max);
      double pad = t_hi > t_lo ? (t_hi - t_lo) * 0.05 : 0.3;

      *lo = pow (10, t_lo - pad);
      *hi = pow (10, t_hi + pad);
    }
  else
    {
      double pad, r_lo, r_hi;

      /* a diverged run's spike would flatten the others (robust.h) */
      if (robust_y_range (plot, a, panel, side, in_view, &r_lo, &r_hi))
        {
          y_min = r_lo;
          y_max = r_hi;
        }
      pad = y_max > y_min ? (y_max - y_min) * 0.05 : MAX (fabs (y_max) * 0.1, 0.5);

      *lo = y_min - pad;
      *hi = y_max + pad;
    }
  return TRUE;
}

void
ct_plot_set_x_range (CtPlot *plot, double lo, double hi)
{
  g_return_if_fail (lo < hi);
  plot->x_fixed = TRUE;
  plot->x_lo = lo;
  plot->x_hi = hi;
}

void
ct_plot_set_y_range (CtPlot *plot, int panel, CtPlotAxisSide side, double lo, double hi)
{
  CtPlotPanel *p = get_panel (plot, panel);

  g_return_if_fail (p != NULL && lo < hi);
  g_return_if_fail (!p->axes[side].log || lo > 0);
  p->axes[side].fixed = TRUE;
  p->axes[side].lo = lo;
  p->axes[side].hi = hi;
}

gboolean
ct_plot_is_zoomed (const CtPlot *plot)
{
  if (plot->x_fixed)
    return TRUE;
  for (guint i = 0; i < plot->panels->len; i++)
    {
      CtPlotPanel *p = g_ptr_array_index (plot->panels, i);

      if (p->axes[0].fixed || p->axes[1].fixed)
        return TRUE;
    }
  return FALSE;
}

void
ct_plot_reset_view (CtPlot *plot)
{
  plot->x_fixed = FALSE;
  for (guint i = 0; i < plot->panels->len; i++)
    {
      CtPlotPanel *p = g_ptr_array_index (plot->panels, i);

      p->axes[0].fixed = p->axes[1].fixed = FALSE;
    }
}

double
ct_plot_axis_t (const CtPlot *plot, int panel, CtPlotAxisSide side, double y)
{
  CtPlotPanel *p = g_ptr_array_index (plot->panels, panel);

  if (!p->axes[side].log)
    return y;
  return y > 0 ? log10 (y) : NAN;
}

gboolean
ct_plot_axis_span (CtPlot *plot, int panel, CtPlotAxisSide side, double *t_lo, double *t_hi)
{
  double lo, hi;

  if (!ct_plot_get_y_range (plot, panel, side, &lo, &hi))
    return FALSE;
  *t_lo = ct_plot_axis_t (plot, panel, side, lo);
  *t_hi = ct_plot_axis_t (plot, panel, side, hi);
  return isfinite (*t_lo) && isfinite (*t_hi) && *t_hi > *t_lo;
}

/* Layout */

static gboolean
has_right_axis (const CtPlot *plot)
{
  for (guint i = 0; i < plot->series->len; i++)
    if (((CtPlotSeries *) g_ptr_array_index (plot->series, i))->side == CT_PLOT_AXIS_RIGHT)
      return TRUE;
  return FALSE;
}

void
ct_plot_get_panel_rect (CtPlot *plot, double width, double height, int panel, CtPlotRect *rect)
{
  double right = has_right_axis (plot) ? CT_PLOT_MARGIN_RIGHT_AXIS : CT_PLOT_MARGIN_RIGHT;
  double total = 0, before = 0, avail;
  guint n = plot->panels->len;

  for (guint i = 0; i < n; i++)
    {
      CtPlotPanel *p = g_ptr_array_index (plot->panels, i);

      total += p->weight;
      if ((int) i < panel)
        before += p->weight;
    }
  rect->x = CT_PLOT_MARGIN_LEFT;
  rect->width = MAX (width - CT_PLOT_MARGIN_LEFT - right, 1);
  if (n == 0 || panel < 0 || (guint) panel >= n)
    {
      rect->y = CT_PLOT_MARGIN_TOP;
      rect->height = 1;
      return;
    }
  /* Each panel: its legend strip, then its plotting area. */
  avail = height - CT_PLOT_MARGIN_TOP - CT_PLOT_MARGIN_BOTTOM
          - n * CT_PLOT_LEGEND_HEIGHT - (n - 1) * CT_PLOT_PANEL_GAP;
  avail = MAX (avail, n);
  rect->y = CT_PLOT_MARGIN_TOP + avail * before / total
            + (panel + 1) * CT_PLOT_LEGEND_HEIGHT + panel * CT_PLOT_PANEL_GAP;
  rect->height = MAX (avail * ((CtPlotPanel *) g_ptr_array_index (plot->panels, panel))->weight
                      / total, 1);
}

int
ct_plot_panel_at (CtPlot *plot, double width, double height, double y)
{
  for (guint i = 0; i < plot->panels->len; i++)
    {
      CtPlotRect r;

      ct_plot_get_panel_rect (plot, width, height, (int) i, &r);
      if (y >= r.y && y <= r.y + r.height)
        return (int) i;
    }
  return -1;
}

double
ct_plot_x_to_px (CtPlot *plot, double width, double height, double x)
{
  CtPlotRect r;
  double lo, hi;

  ct_plot_get_panel_rect (plot, width, height, 0, &r);
  if (!ct_plot_get_x_range (plot, &lo, &hi))
    return r.x;
  return r.x + (x - lo) / (hi - lo) * r.width;
}

double
ct_plot_px_to_x (CtPlot *plot, double width, double height, double px)
{
  CtPlotRect r;
  double lo, hi;

  ct_plot_get_panel_rect (plot, width, height, 0, &r);
  if (!ct_plot_get_x_range (plot, &lo, &hi))
    return 0;
  return lo + (px - r.x) / r.width * (hi - lo);
}

double
ct_plot_y_to_px (CtPlot *plot, double width, double height, int panel, CtPlotAxisSide side,
                 double y)
{
  CtPlotRect r;
  double t_lo, t_hi;

  ct_plot_get_panel_rect (plot, width, height, panel, &r);
  if (!ct_plot_axis_span (plot, panel, side, &t_lo, &t_hi))
    return r.y + r.height;
  return r.y + r.height - (ct_plot_axis_t (plot, panel, side, y) - t_lo) / (t_hi - t_lo) * r.height;
}

double
ct_plot_px_to_y (CtPlot *plot, double width, double height, int panel, CtPlotAxisSide side,
                 double py)
{
  CtPlotRect r;
  double t_lo, t_hi, t;

  ct_plot_get_panel_rect (plot, width, height, panel, &r);
  if (!ct_plot_axis_span (plot, panel, side, &t_lo, &t_hi))
    return 0;
  t = t_lo + (r.y + r.height - py) / r.height * (t_hi - t_lo);
  return ct_plot_get_log (plot, panel, side) ? pow (10, t) : t;
}

/* View changes */

/* Fix axis SIDE of PANEL to the drawing-space range [T_LO, T_HI]. */
static void
fix_axis (CtPlot *plot, int panel, CtPlotAxisSide side, double t_lo, double t_hi)
{
  gboolean log = ct_plot_get_log (plot, panel, side);
  double lo = log ? pow (10, t_lo) : t_lo, hi = log ? pow (10, t_hi) : t_hi;

  if (isfinite (lo) && isfinite (hi) && hi > lo && (!log || lo > 0))
    ct_plot_set_y_range (plot, panel, side, lo, hi);
}

/* Apply to both y axes of the panel under PY: the new drawing-space range
 * is T_LO + A * span .. T_LO + B * span, in fractions of the old one. */
static void
rescale_panel (CtPlot *plot, double width, double height, double py, double a, double b)
{
  int panel = ct_plot_panel_at (plot, width, height, py);

  if (panel < 0)
    return;
  for (int side = 0; side < 2; side++)
    {
      double t_lo, t_hi;

      if (!ct_plot_panel_has_side (plot, panel, side)
          || !ct_plot_axis_span (plot, panel, side, &t_lo, &t_hi))
        continue;
      fix_axis (plot, panel, side, t_lo + a * (t_hi - t_lo), t_lo + b * (t_hi - t_lo));
    }
}

/* The same for x, with A and B fractions of the x range. */
static void
rescale_x (CtPlot *plot, double a, double b)
{
  double lo, hi, new_lo, new_hi;

  if (!ct_plot_get_x_range (plot, &lo, &hi))
    return;
  new_lo = lo + a * (hi - lo);
  new_hi = lo + b * (hi - lo);
  /* Far enough apart that a double still tells the pixels apart. */
  if (new_hi - new_lo > 1e-9 * MAX (fabs (new_lo), 1.0))
    ct_plot_set_x_range (plot, new_lo, new_hi);
}

void
ct_plot_zoom_at (CtPlot *plot, double width, double height, double px, double py,
                 double factor)
{
  CtPlotRect r;
  int panel = ct_plot_panel_at (plot, width, height, py);
  double fx, fy;

  g_return_if_fail (factor > 0);
  ct_plot_get_panel_rect (plot, width, height, MAX (panel, 0), &r);
  /* The value under the pointer stays under it. */
  /* y first: an autoscaled y follows the x range, and the zoom must
   * start from the y range shown. */
  if (panel >= 0)
    {
      fy = CLAMP ((r.y + r.height - py) / r.height, 0, 1);
      rescale_panel (plot, width, height, py, fy - fy / factor, fy + (1 - fy) / factor);
    }
  fx = CLAMP ((px - r.x) / r.width, 0, 1);
  rescale_x (plot, fx - fx / factor, fx + (1 - fx) / factor);
}

gboolean
ct_plot_zoom_rect (CtPlot *plot, double width, double height,
                   double x0, double y0, double x1, double y1)
{
  CtPlotRect r;
  int panel = ct_plot_panel_at (plot, width, height, y0);
  double ax, bx, ay, by;

  if (panel < 0 || fabs (x1 - x0) < 4 || fabs (y1 - y0) < 4)
    return FALSE;
  ct_plot_get_panel_rect (plot, width, height, panel, &r);
  ax = (MIN (x0, x1) - r.x) / r.width;
  bx = (MAX (x0, x1) - r.x) / r.width;
  ay = (r.y + r.height - MAX (y0, y1)) / r.height;
  by = (r.y + r.height - MIN (y0, y1)) / r.height;
  rescale_panel (plot, width, height, y0, CLAMP (ay, 0, 1), CLAMP (by, 0, 1));
  rescale_x (plot, CLAMP (ax, 0, 1), CLAMP (bx, 0, 1));
  return TRUE;
}

void
ct_plot_pan (CtPlot *plot, double width, double height, double py, double dx, double dy)
{
  CtPlotRect r;
  int panel = ct_plot_panel_at (plot, width, height, py);

  ct_plot_get_panel_rect (plot, width, height, MAX (panel, 0), &r);
  /* The data follows the pointer: a drag to the right shows earlier x. */
  if (dy != 0 && panel >= 0)
    rescale_panel (plot, width, height, py, dy / r.height, 1 + dy / r.height);
  if (dx != 0)
    rescale_x (plot, -dx / r.width, 1 - dx / r.width);
}

/* Hover */

int
ct_plot_hit (CtPlot *plot, double width, double height, double px,
             CtPlotHit *hits, int max_hits)
{
  CtPlotRect r;
  double lo, hi, x;
  int n = 0;

  ct_plot_get_panel_rect (plot, width, height, 0, &r);
  if (px < r.x || px > r.x + r.width || !ct_plot_get_x_range (plot, &lo, &hi))
    return 0;
  x = ct_plot_px_to_x (plot, width, height, px);
  for (guint i = 0; i < plot->series->len && n < max_hits; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);
      const double *xs = (const double *) (void *) s->xs->data;
      gsize len = s->xs->len, k;

      if (!s->visible || len == 0)
        continue;
      k = ct_plot_lower_bound (xs, len, x);
      /* The nearer of the points on either side of x. */
      if (k == len || (k > 0 && x - xs[k - 1] <= xs[k] - x))
        k--;
      /* Back to the first of equal x, so ties pick the earliest point. */
      while (k > 0 && xs[k - 1] == xs[k])
        k--;
      if (xs[k] < lo || xs[k] > hi)
        continue;
      hits[n].series = (int) i;
      hits[n].index = k;
      hits[n].x = xs[k];
      hits[n].y = g_array_index (s->ys, double, k);
      n++;
    }
  return n;
}

char *
ct_plot_series_label (const CtPlotSeries *s)
{
  if (s->run_label != NULL && s->run_label[0] != '\0')
    /* Translators: a plotted series and the run it comes from, "Loss (run 1)". */
    return g_strdup_printf (_("%s (%s)"), s->name, s->run_label);
  return g_strdup (s->name);
}

char *
ct_plot_hover_text (CtPlot *plot, double width, double height, double px, double py)
{
  CtPlotHit hits[64];
  int n = ct_plot_hit (plot, width, height, px, hits, G_N_ELEMENTS (hits));
  g_autoptr(GString) text = NULL;
  char x_text[G_ASCII_DTOSTR_BUF_SIZE];

  if (n == 0 || ct_plot_panel_at (plot, width, height, py) < 0)
    return NULL;
  ct_plot_format_value (x_text, sizeof x_text, hits[0].x, FALSE);
  text = g_string_new (NULL);
  g_string_append_printf (text, "%s %s", plot->x_label, x_text);
  /* The current run first, then the earlier runs. */
  for (int k = 0; k < 2 * n; k++)
    {
      int i = k % n;
      CtPlotSeries *s = g_ptr_array_index (plot->series, hits[i].series);
      g_autofree char *label = NULL;
      char value[G_ASCII_DTOSTR_BUF_SIZE], at[G_ASCII_DTOSTR_BUF_SIZE];

      if (s->faded != (k >= n))
        continue;
      label = ct_plot_series_label (s);
      ct_plot_format_value (value, sizeof value, hits[i].y, FALSE);
      g_string_append_printf (text, "\n%s: %s", label, value);
      if (hits[i].x != hits[0].x)
        {
          ct_plot_format_value (at, sizeof at, hits[i].x, FALSE);
          /* Translators: after a value in the plot's readout: the x of
           * that point, when it is not the x of the first line. */
          g_string_append_printf (text, _(" (at %s)"), at);
        }
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

char *
ct_plot_describe (CtPlot *plot)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);
      g_autofree char *label = ct_plot_series_label (s);
      char value[G_ASCII_DTOSTR_BUF_SIZE], at[G_ASCII_DTOSTR_BUF_SIZE];
      double x, y;

      if (!s->visible)
        continue;
      if (text->len > 0)
        g_string_append (text, "; ");
      if (!ct_plot_series_get_last (plot, (int) i, &x, &y))
        {
          /* Translators: a series with no points yet, in a plot's description. */
          g_string_append_printf (text, _("%s: no points"), label);
          continue;
        }
      ct_plot_format_value (value, sizeof value, y, FALSE);
      ct_plot_format_value (at, sizeof at, x, FALSE);
      /* Translators: a series' last value and its x, "Loss: 0.25 at 1200". */
      g_string_append_printf (text, _("%s: %s at %s"), label, value, at);
    }
  if (text->len == 0)
    return g_strdup (_("No data"));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

void
ct_plot_set_text_color (CtPlot *plot, double r, double g, double b)
{
  plot->text_r = r;
  plot->text_g = g;
  plot->text_b = b;
}

guint
ct_plot_get_column_builds (const CtPlot *plot)
{
  return plot->column_builds;
}

guint
ct_plot_get_column_extends (const CtPlot *plot)
{
  return plot->column_extends;
}

void
ct_plot_invalidate (CtPlot *plot)
{
  for (guint i = 0; i < plot->series->len; i++)
    ct_plot_columns_clear (&((CtPlotSeries *) g_ptr_array_index (plot->series, i))->columns);
}
