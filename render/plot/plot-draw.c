/* plot-draw.c: drawing a CtPlot with cairo and Pango: per panel a legend
 * strip (title, a swatch and label per series, earlier runs faded), the
 * grid and tick labels of its axes, the series clipped to the plotting
 * area (raw points when few are in view, decimated columns otherwise),
 * and a note when a log axis leaves values out; below the last panel the
 * x axis' labels. Also the hover marks. */
#include "plot-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>

/* Earlier runs are drawn at this opacity. */
#define FADED_ALPHA 0.35

void
ct_plot_color_rgb (CtPlotColor color, double *r, double *g, double *b)
{
  static const guint32 palette[CT_PLOT_N_COLORS] = {
    0x0072b2, 0xe69f00, 0x009e73, 0xd55e00, 0xcc79a7, 0x56b4e9, 0x808080,
  };
  guint32 c = palette[CLAMP (color, 0, CT_PLOT_N_COLORS - 1)];

  *r = (c >> 16 & 0xff) / 255.0;
  *g = (c >> 8 & 0xff) / 255.0;
  *b = (c & 0xff) / 255.0;
}

static void
set_series_source (cairo_t *cr, const CtPlotSeries *s)
{
  double r, g, b, alpha = s->faded ? FADED_ALPHA : 1.0;

  ct_plot_color_rgb (s->color, &r, &g, &b);
  if (s->style == CT_PLOT_LINE_THIN)
    alpha *= 0.45;
  cairo_set_source_rgba (cr, r, g, b, alpha);
}

static void
set_text_source (CtPlot *plot, cairo_t *cr, double alpha)
{
  cairo_set_source_rgba (cr, plot->text_r, plot->text_g, plot->text_b, alpha);
}

/* TEXT at (X, Y); ALIGN -1 puts its left edge there, 0 its centre, 1 its
 * right edge. Returns its width. */
static int
show_text (CtPlot *plot, cairo_t *cr, PangoLayout *layout, const char *text,
           double x, double y, int align, double alpha)
{
  int w, h;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - (align + 1) * w / 2.0, y);
  set_text_source (plot, cr, alpha);
  pango_cairo_show_layout (cr, layout);
  return w;
}

/* The series' line: each visible point in view (with one beyond each
 * edge, so the line reaches it) when there are few, else the decimated
 * columns. */
static void
draw_series (CtPlot *plot, cairo_t *cr, CtPlotSeries *s, const CtPlotRect *r,
             double x_lo, double x_hi, double t_lo, double t_hi, gboolean log)
{
  const double *xs = (const double *) (void *) s->xs->data;
  const double *ys = (const double *) (void *) s->ys->data;
  gsize n = s->xs->len;
  gsize i0 = ct_plot_lower_bound (xs, n, x_lo);
  gsize i1 = ct_plot_lower_bound (xs, n, x_hi);
  double sx = r->width / (x_hi - x_lo), sy = r->height / (t_hi - t_lo);
  double base_y = r->y + r->height;
  int n_cols = MAX ((int) ceil (r->width), 1);
  gboolean pen_down = FALSE;

#define PX(v) (r->x + ((v) - x_lo) * sx)
#define PY(v) (base_y - ((v) - t_lo) * sy)

  set_series_source (cr, s);
  cairo_set_line_width (cr, s->style == CT_PLOT_LINE_THIN ? 1.0 : 1.8);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  if (i1 - i0 <= (gsize) n_cols)
    {
      gsize from = i0 > 0 ? i0 - 1 : 0, to = MIN (i1 + 1, n);

      for (gsize i = from; i < to; i++)
        {
          double t = log ? (ys[i] > 0 ? log10 (ys[i]) : NAN) : ys[i];

          /* A gap where a value cannot be drawn. */
          if (!isfinite (t))
            {
              pen_down = FALSE;
              continue;
            }
          if (pen_down)
            cairo_line_to (cr, PX (xs[i]), PY (t));
          else
            cairo_move_to (cr, PX (xs[i]), PY (t));
          pen_down = TRUE;
        }
      cairo_stroke (cr);
      if (s->style == CT_PLOT_LINE_MARKS && i1 - i0 <= (gsize) n_cols / 4)
        for (gsize i = i0; i < i1; i++)
          {
            double t = log ? (ys[i] > 0 ? log10 (ys[i]) : NAN) : ys[i];

            if (!isfinite (t))
              continue;
            cairo_new_sub_path (cr);
            cairo_arc (cr, PX (xs[i]), PY (t), 2.5, 0, 2 * G_PI);
            cairo_fill (cr);
          }
      return;
    }

  if (ct_plot_columns_update (&s->columns, xs, ys, n, x_lo, x_hi, n_cols, log))
    plot->column_builds++;
  else
    plot->column_extends++;
  /* Each column is a bar from its minimum to its maximum, stretched to
   * reach the previous column's last value so that the line stays joined.
   * Whole-pixel boxes filled in one go: cairo fills them far faster than
   * it strokes a path that doubles back on itself thousands of times. */
  {
    CtPlotColumns *cols = &s->columns;
    double half = s->style == CT_PLOT_LINE_THIN ? 0.5 : 0.9;
    double bar_w = s->style == CT_PLOT_LINE_THIN ? 1.0 : 2.0;
    double prev_last = NAN;
    int prev_col = -2;
    gboolean gaps = FALSE;

    for (int c = 0; c < n_cols; c++)
      {
        double lo, hi, last;

        if (isnan (cols->first[c]))
          continue;
        lo = PY (log ? log10 (cols->min[c]) : cols->min[c]);
        hi = PY (log ? log10 (cols->max[c]) : cols->max[c]);
        last = PY (log ? log10 (cols->last[c]) : cols->last[c]);
        if (prev_col == c - 1)
          {
            lo = MAX (lo, prev_last);
            hi = MIN (hi, prev_last);
          }
        else if (prev_col >= 0)
          gaps = TRUE;
        cairo_rectangle (cr, r->x + c, hi - half, bar_w, lo - hi + 2 * half);
        prev_last = last;
        prev_col = c;
      }
    cairo_fill (cr);
    /* Columns with no point between two that have some: a straight line
     * across, as the raw points would draw. */
    if (gaps)
      {
        prev_col = -2;
        for (int c = 0; c < n_cols; c++)
          {
            if (isnan (cols->first[c]))
              continue;
            if (prev_col >= 0 && prev_col < c - 1)
              {
                cairo_move_to (cr, r->x + prev_col + 0.5, prev_last);
                cairo_line_to (cr, r->x + c + 0.5,
                               PY (log ? log10 (cols->first[c]) : cols->first[c]));
              }
            prev_last = PY (log ? log10 (cols->last[c]) : cols->last[c]);
            prev_col = c;
          }
        cairo_stroke (cr);
      }
  }
#undef PX
#undef PY
}

/* Points beyond an axis' outlier-resistant range (robust.h): a small
 * triangle at the edge they went off, pointing their way, at most one
 * per 6 px, so that a clipped spike still shows where it happened. */
static void
draw_clip_marks (CtPlot *plot, cairo_t *cr, CtPlotSeries *s, int panel, const CtPlotRect *r,
                 double x_lo, double x_hi)
{
  const double *xs = (const double *) (void *) s->xs->data;
  const double *ys = (const double *) (void *) s->ys->data;
  double lo, hi, last_up = -G_MAXDOUBLE, last_down = -G_MAXDOUBLE;

  if (!ct_plot_get_y_clipped (plot, panel, s->side)
      || !ct_plot_get_y_range (plot, panel, s->side, &lo, &hi))
    return;
  set_series_source (cr, s);
  for (gsize k = ct_plot_lower_bound (xs, s->xs->len, x_lo);
       k < s->xs->len && xs[k] <= x_hi; k++)
    {
      double px = r->x + (xs[k] - x_lo) / (x_hi - x_lo) * r->width;
      gboolean up = ys[k] > hi;

      if (!isfinite (ys[k]) || (ys[k] >= lo && ys[k] <= hi)
          || px - (up ? last_up : last_down) < 6)
        continue;
      if (up)
        {
          last_up = px;
          cairo_move_to (cr, px, r->y + 1);
          cairo_line_to (cr, px - 4, r->y + 7);
          cairo_line_to (cr, px + 4, r->y + 7);
        }
      else
        {
          last_down = px;
          cairo_move_to (cr, px, r->y + r->height - 1);
          cairo_line_to (cr, px - 4, r->y + r->height - 7);
          cairo_line_to (cr, px + 4, r->y + r->height - 7);
        }
      cairo_close_path (cr);
      cairo_fill (cr);
    }
}

/* One legend entry: a short line in the series' style, then LABEL,
 * ellipsized to MAX_WIDTH pixels when it is wider (MAX_WIDTH <= 0: no
 * limit). Returns the x of the next entry. */
static double
legend_entry (CtPlot *plot, cairo_t *cr, PangoLayout *layout, const CtPlotSeries *s,
              const char *label, double x, double y, double max_width)
{
  double w;

  set_series_source (cr, s);
  cairo_set_line_width (cr, s->style == CT_PLOT_LINE_THIN ? 1.5 : 2.5);
  cairo_move_to (cr, x, y + 8);
  cairo_line_to (cr, x + 16, y + 8);
  cairo_stroke (cr);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  w = show_text (plot, cr, layout, label, x + 20, y, -1, s->faded ? 0.6 : 1.0);
  pango_layout_set_width (layout, -1);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_NONE);
  return x + 20 + w + 14;
}

static int
text_width (PangoLayout *layout, const char *text)
{
  int w, h;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  return w;
}

/* The panel's title, then an entry per series of the current run, then
 * one per earlier run (its run label, faded). The strip is one line high
 * (the panels need the height more than the legend): entries that do not
 * fit the panel's width are not cut mid-word by the clip but the first
 * of them is ellipsized and the rest counted ("2 more"); the hover
 * readout and the CSV name them all. */
static void
draw_legend (CtPlot *plot, cairo_t *cr, PangoLayout *layout, int panel, const CtPlotRect *r)
{
  CtPlotPanel *p = g_ptr_array_index (plot->panels, panel);
  double y = r->y - CT_PLOT_LEGEND_HEIGHT + 3, x = r->x, right = r->x + r->width;
  g_autoptr(PangoFontDescription) bold = pango_font_description_from_string ("Sans Bold 9");
  g_autoptr(PangoFontDescription) saved = pango_font_description_copy (
    pango_layout_get_font_description (layout));
  g_autoptr(GPtrArray) runs = g_ptr_array_new ();
  g_autoptr(GPtrArray) entries = g_ptr_array_new ();          /* CtPlotSeries */
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);

  cairo_save (cr);
  cairo_rectangle (cr, r->x, r->y - CT_PLOT_LEGEND_HEIGHT, r->width, CT_PLOT_LEGEND_HEIGHT);
  cairo_clip (cr);
  pango_layout_set_font_description (layout, bold);
  if (p->title != NULL && p->title[0] != '\0')
    x += show_text (plot, cr, layout, p->title, x, y, -1, 1.0) + 14;
  pango_layout_set_font_description (layout, saved);
  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);
      char *label;

      if (s->panel != panel || !s->visible)
        continue;
      /* Earlier runs: one entry per run, after the current series. */
      if (s->faded && s->run_label != NULL && s->run_label[0] != '\0')
        {
          gboolean seen = FALSE;

          for (guint k = 0; k < runs->len; k++)
            seen |= g_strcmp0 (((CtPlotSeries *) runs->pdata[k])->run_label, s->run_label) == 0;
          if (!seen)
            g_ptr_array_add (runs, s);
          continue;
        }
      label = ct_plot_series_label (s);
      if (s->side == CT_PLOT_AXIS_RIGHT)
        {
          /* Translators: a legend entry for a series on the right y axis. */
          char *right_label = g_strdup_printf (_("%s (right axis)"), label);

          g_free (label);
          label = right_label;
        }
      g_ptr_array_add (entries, s);
      g_ptr_array_add (labels, label);
    }
  for (guint k = 0; k < runs->len; k++)
    {
      CtPlotSeries *s = runs->pdata[k];

      g_ptr_array_add (entries, s);
      /* Translators: a legend entry for an earlier run drawn faded, "base_lr 0.01 (earlier)". */
      g_ptr_array_add (labels, g_strdup_printf (_("%s (earlier)"), s->run_label));
    }
  for (guint k = 0; k < entries->len; k++)
    {
      const char *label = labels->pdata[k];
      guint left = entries->len - k - 1;
      g_autofree char *more = NULL;
      double room;

      if (x + 20 + text_width (layout, label) <= right)
        {
          x = legend_entry (plot, cr, layout, entries->pdata[k], label, x, y, 0);
          continue;
        }
      /* Translators: at the end of a plot's legend, the entries it has no
       * room for; %u is how many */
      more = left > 0 ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more", "%u more",
                                                      left), left)
                      : NULL;
      room = right - x - 20 - (more != NULL ? text_width (layout, more) + 10 : 0);
      if (room >= 24)
        x = legend_entry (plot, cr, layout, entries->pdata[k], label, x, y, room) - 4;
      else if (more == NULL)
        break;
      else
        {
          g_free (more);
          left++;
          more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more", "%u more", left), left);
        }
      if (more != NULL)
        show_text (plot, cr, layout, more, MIN (x, right - text_width (layout, more)), y, -1, 0.7);
      break;
    }
  cairo_restore (cr);
}

/* An earlier run's label at the end of its line, so that which faded
 * curve is which can be read off the plot itself. */
static void
draw_run_label (CtPlot *plot, cairo_t *cr, PangoLayout *layout, CtPlotSeries *s,
                int panel, const CtPlotRect *r, double width, double height)
{
  const double *xs = (const double *) (void *) s->xs->data;
  const double *ys = (const double *) (void *) s->ys->data;
  double x_lo, x_hi, px, py;
  gsize k;
  int w, h;

  if (!s->faded || s->style == CT_PLOT_LINE_THIN || s->run_label == NULL
      || s->xs->len == 0 || !ct_plot_get_x_range (plot, &x_lo, &x_hi))
    return;
  /* The last point in view. */
  k = ct_plot_lower_bound (xs, s->xs->len, x_hi);
  if (k == s->xs->len || xs[k] > x_hi)
    k = k > 0 ? k - 1 : 0;
  if (xs[k] < x_lo || !isfinite (ys[k]))
    return;
  px = ct_plot_x_to_px (plot, width, height, xs[k]);
  py = ct_plot_y_to_px (plot, width, height, panel, s->side, ys[k]);
  if (!isfinite (py) || py < r->y || py > r->y + r->height)
    return;
  pango_layout_set_text (layout, s->run_label, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  /* Left of the point when it would run off the area. */
  px = px + 4 + w > r->x + r->width ? px - 4 - w : px + 4;
  cairo_move_to (cr, px, MAX (py - h - 2, r->y));
  set_text_source (plot, cr, 0.7);
  pango_cairo_show_layout (cr, layout);
}

/* Ticks and grid of one y axis; GRID draws the horizontal lines. */
static void
draw_y_axis (CtPlot *plot, cairo_t *cr, PangoLayout *layout, int panel, CtPlotAxisSide side,
             const CtPlotRect *r, gboolean grid)
{
  CtPlotTicks ticks;
  double lo, hi, t_lo, t_hi;
  gboolean log = ct_plot_get_log (plot, panel, side);

  if (!ct_plot_get_y_range (plot, panel, side, &lo, &hi)
      || !ct_plot_axis_span (plot, panel, side, &t_lo, &t_hi))
    return;
  if (log)
    ct_plot_ticks_log (lo, hi, MAX ((int) (r->height / 22), 2), &ticks);
  else
    ct_plot_ticks_linear (lo, hi, MAX ((int) (r->height / 22), 2), &ticks);
  for (int i = 0; i < ticks.n; i++)
    {
      double t = log ? log10 (ticks.values[i]) : ticks.values[i];
      double y = floor (r->y + r->height - (t - t_lo) / (t_hi - t_lo) * r->height) + 0.5;
      char label[G_ASCII_DTOSTR_BUF_SIZE];
      int w, h;

      if (grid)
        {
          set_text_source (plot, cr, 0.12);
          cairo_move_to (cr, r->x, y);
          cairo_line_to (cr, r->x + r->width, y);
          cairo_stroke (cr);
        }
      ct_plot_format_tick (label, sizeof label, ticks.values[i], &ticks);
      pango_layout_set_text (layout, label, -1);
      pango_layout_get_pixel_size (layout, &w, &h);
      if (side == CT_PLOT_AXIS_LEFT)
        show_text (plot, cr, layout, label, r->x - 6, y - h / 2.0, 1, 0.8);
      else
        show_text (plot, cr, layout, label, r->x + r->width + 6, y - h / 2.0, -1, 0.8);
    }
}

/* "3 values ≤ 0 not shown on the log scale", low in the panel. */
static void
draw_log_note (CtPlot *plot, cairo_t *cr, PangoLayout *layout, int panel, const CtPlotRect *r)
{
  gsize hidden = 0;

  for (guint i = 0; i < plot->series->len; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, i);

      if (s->visible && s->panel == panel && ct_plot_get_log (plot, panel, s->side))
        hidden += s->n_nonpos;
    }
  if (hidden > 0)
    {
      guint count = (guint) MIN (hidden, G_MAXUINT);
      g_autofree char *note = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%u value ≤ 0 not shown on the log scale",
                                                            "%u values ≤ 0 not shown on the log scale",
                                                            count),
                                               count);

      show_text (plot, cr, layout, note, r->x + 6, r->y + r->height - 18, -1, 0.9);
    }
}

void
ct_plot_draw (CtPlot *plot, cairo_t *cr, double width, double height)
{
  g_autoptr(PangoLayout) layout = NULL;
  g_autoptr(PangoFontDescription) font = pango_font_description_from_string ("Sans 9");
  CtPlotTicks x_ticks;
  CtPlotRect r, last;
  double x_lo, x_hi;
  gboolean have_x;

  if (plot->panels->len == 0 || width < 32 || height < 32)
    return;
  cairo_save (cr);
  layout = pango_cairo_create_layout (cr);
  pango_layout_set_font_description (layout, font);
  have_x = ct_plot_get_x_range (plot, &x_lo, &x_hi);
  ct_plot_get_panel_rect (plot, width, height, 0, &r);
  if (have_x)
    ct_plot_ticks_linear (x_lo, x_hi, MAX ((int) (r.width / 90), 2), &x_ticks);
  cairo_set_line_width (cr, 1.0);

  for (guint p = 0; p < plot->panels->len; p++)
    {
      int panel = (int) p;
      gboolean left = ct_plot_panel_has_side (plot, panel, CT_PLOT_AXIS_LEFT);

      ct_plot_get_panel_rect (plot, width, height, panel, &r);
      cairo_set_line_width (cr, 1.0);
      draw_legend (plot, cr, layout, panel, &r);
      draw_y_axis (plot, cr, layout, panel, CT_PLOT_AXIS_LEFT, &r, TRUE);
      draw_y_axis (plot, cr, layout, panel, CT_PLOT_AXIS_RIGHT, &r, !left);
      if (have_x)
        for (int i = 0; i < x_ticks.n; i++)
          {
            double x = floor (r.x + (x_ticks.values[i] - x_lo) / (x_hi - x_lo) * r.width) + 0.5;

            set_text_source (plot, cr, 0.12);
            cairo_move_to (cr, x, r.y);
            cairo_line_to (cr, x, r.y + r.height);
            cairo_stroke (cr);
          }
      set_text_source (plot, cr, 0.5);
      cairo_rectangle (cr, floor (r.x) + 0.5, floor (r.y) + 0.5, floor (r.width), floor (r.height));
      cairo_stroke (cr);

      /* The series, earlier runs first so that the current run lies on top. */
      cairo_save (cr);
      cairo_rectangle (cr, r.x, r.y, r.width, r.height);
      cairo_clip (cr);
      for (int pass = 0; pass < 2 && have_x; pass++)
        for (guint i = 0; i < plot->series->len; i++)
          {
            CtPlotSeries *s = g_ptr_array_index (plot->series, i);
            double t_lo, t_hi;

            if (s->panel != panel || !s->visible || s->xs->len == 0 || s->faded != (pass == 0)
                || !ct_plot_axis_span (plot, panel, s->side, &t_lo, &t_hi))
              continue;
            draw_series (plot, cr, s, &r, x_lo, x_hi, t_lo, t_hi,
                         ct_plot_get_log (plot, panel, s->side));
            draw_clip_marks (plot, cr, s, panel, &r, x_lo, x_hi);
          }
      /* One label per earlier run and panel: on its first solid line. */
      {
        g_autoptr(GHashTable) labelled = g_hash_table_new (g_str_hash, g_str_equal);

        for (guint i = 0; i < plot->series->len && have_x; i++)
          {
            CtPlotSeries *s = g_ptr_array_index (plot->series, i);

            if (s->panel != panel || !s->visible || !s->faded || s->run_label == NULL
                || s->style == CT_PLOT_LINE_THIN
                || g_hash_table_contains (labelled, s->run_label))
              continue;
            g_hash_table_add (labelled, s->run_label);
            draw_run_label (plot, cr, layout, s, panel, &r, width, height);
          }
      }
      cairo_restore (cr);
      draw_log_note (plot, cr, layout, panel, &r);
    }

  /* The x axis under the last panel. */
  ct_plot_get_panel_rect (plot, width, height, (int) plot->panels->len - 1, &last);
  if (have_x)
    for (int i = 0; i < x_ticks.n; i++)
      {
        char label[G_ASCII_DTOSTR_BUF_SIZE];
        double x = r.x + (x_ticks.values[i] - x_lo) / (x_hi - x_lo) * r.width;

        ct_plot_format_tick (label, sizeof label, x_ticks.values[i], &x_ticks);
        show_text (plot, cr, layout, label, x, last.y + last.height + 3, 0, 0.8);
      }
  show_text (plot, cr, layout, plot->x_label, last.x + last.width / 2, last.y + last.height + 20,
             0, 1.0);
  cairo_restore (cr);
}

/* The readout TEXT in a box beside the line at PX, at the top of the
 * first panel: on the right of the line, or its left near the edge. */
static void
draw_readout (CtPlot *plot, cairo_t *cr, double width, double height, double px,
              const char *text)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) font = pango_font_description_from_string ("Sans 9");
  double lum = 0.3 * plot->text_r + 0.6 * plot->text_g + 0.1 * plot->text_b;
  double bg = lum < 0.5 ? 1.0 : 0.15;
  CtPlotRect r;
  double x, y;
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  ct_plot_get_panel_rect (plot, width, height, 0, &r);
  x = px + 10 + w + 12 > r.x + r.width ? px - 10 - w - 12 : px + 10;
  y = r.y + 4;
  cairo_rectangle (cr, x, y, w + 12, h + 8);
  cairo_set_source_rgba (cr, bg, bg, bg, 0.9);
  cairo_fill_preserve (cr);
  set_text_source (plot, cr, 0.4);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
  cairo_move_to (cr, x + 6, y + 4);
  set_text_source (plot, cr, 1.0);
  pango_cairo_show_layout (cr, layout);
}

void
ct_plot_draw_hover (CtPlot *plot, cairo_t *cr, double width, double height, double px,
                    gboolean show_text_box)
{
  CtPlotHit hits[64];
  int n = ct_plot_hit (plot, width, height, px, hits, G_N_ELEMENTS (hits));
  CtPlotRect first, last;

  if (n == 0)
    return;
  ct_plot_get_panel_rect (plot, width, height, 0, &first);
  ct_plot_get_panel_rect (plot, width, height, (int) plot->panels->len - 1, &last);
  cairo_save (cr);
  set_text_source (plot, cr, 0.45);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, floor (px) + 0.5, first.y);
  cairo_line_to (cr, floor (px) + 0.5, last.y + last.height);
  cairo_stroke (cr);
  for (int i = 0; i < n; i++)
    {
      CtPlotSeries *s = g_ptr_array_index (plot->series, hits[i].series);
      double x = ct_plot_x_to_px (plot, width, height, hits[i].x);
      double y = ct_plot_y_to_px (plot, width, height, s->panel, s->side, hits[i].y);
      CtPlotRect r;

      ct_plot_get_panel_rect (plot, width, height, s->panel, &r);
      if (!isfinite (y) || y < r.y || y > r.y + r.height)
        continue;
      set_series_source (cr, s);
      cairo_arc (cr, x, y, 3.5, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  if (show_text_box)
    {
      g_autofree char *text = ct_plot_hover_text (plot, width, height, px, first.y + 1);

      if (text != NULL)
        draw_readout (plot, cr, width, height, px, text);
    }
  cairo_restore (cr);
}
