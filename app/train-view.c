/* train-view.c: CtTrainView (its widgets in train-view.ui), the Training
 * view beside the solver panel: the
 * live plots (training loss raw and smoothed, the learning rate on a log
 * axis at the right, test accuracy and loss at each test_interval), with
 * the earlier runs of the same net kept faded and labelled by the solver
 * settings that differed (window-train.c works them out); the update
 * ratio lr·‖Δw‖/‖w‖ of each layer as a bar in the gradient-health colours;
 * and the blob followed, as a heatmap with its statistics. The controller
 * (window-train.c) hands every progress here; the view keeps what it needs
 * to draw them (the series of each run, the smoothed loss, the ratios). */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "graph/graph-render.h"
#include "heatmap-view.h"
#include "legend.h"
#include "run-diff.h"
#include "train-view.h"

struct _CtTrainView {
  GtkBox parent_instance;

  guint runs;                  /* runs shown on the plot, the current one included */
  gboolean run_has_points;
  int s_loss, s_smooth, s_lr;  /* the current run's series, or -1 */
  /* Caffe's smoothed loss, the mean of the last AVERAGE_LOSS losses, made
   * here: the trainer steps one iteration at a time, and each step starts
   * the solver's own window afresh. */
  guint average_loss;
  GArray *recent_losses;       /* float, a ring of up to AVERAGE_LOSS */
  guint recent_next;
  double recent_sum;
  GHashTable *test_series;     /* "net:output" -> series index + 1 */
  GHashTable *test_values;     /* output name -> last value (double *) */
  GHashTable *ratios;          /* layer name -> last ratio (double *) */
  GHashTable *ratio_labels;    /* layer name -> its row's number (GtkLabel) */
  GPtrArray *earlier;          /* EarlierRun, oldest first */

  /* Template children. */
  GtkLabel *status_label;
  CtPlotView *plot;
  GtkWidget *runs_scroller;    /* how the earlier runs differ, below the plot */
  GtkWidget *runs_box;
  GtkWidget *ratio_box;        /* the update ratios, one row per layer */
  GtkLabel *watch_label;
  CtHeatmapView *watch_heatmap;
};

G_DEFINE_FINAL_TYPE (CtTrainView, ct_train_view, GTK_TYPE_BOX)

static void clear_ratios (CtTrainView *t);

/* Plots */

static void
add_run_series (CtTrainView *t)
{
  CtPlotView *plot = t->plot;

  t->s_loss = ct_plot_view_add_series (plot, 0, CT_PLOT_AXIS_LEFT, _("Loss"),
                                       CT_PLOT_COLOR_BLUE, CT_PLOT_LINE_THIN, NULL);
  t->s_smooth = ct_plot_view_add_series (plot, 0, CT_PLOT_AXIS_LEFT, _("Smoothed"),
                                         CT_PLOT_COLOR_BLUE, CT_PLOT_LINE, NULL);
  t->s_lr = ct_plot_view_add_series (plot, 0, CT_PLOT_AXIS_RIGHT, _("Learning rate"),
                                     CT_PLOT_COLOR_GREY, CT_PLOT_LINE, NULL);
  ct_plot_set_log (ct_plot_view_get_plot (plot), 0, CT_PLOT_AXIS_RIGHT, TRUE);
  g_hash_table_remove_all (t->test_series);
  g_hash_table_remove_all (t->test_values);
  t->run_has_points = FALSE;
}

void
ct_train_view_set_average_loss (CtTrainView *t, guint average_loss)
{
  t->average_loss = average_loss;
}

/* An earlier run: its legend label and its settings (NULL when unknown:
 * a training log followed). */
typedef struct {
  char *label;
  Caffe__SolverParameter *param;
} EarlierRun;

static void
earlier_run_free (gpointer data)
{
  EarlierRun *run = data;

  g_free (run->label);
  if (run->param != NULL)
    protobuf_c_message_free_unpacked (&run->param->base, NULL);
  g_free (run);
}

static Caffe__SolverParameter *
copy_solver (const Caffe__SolverParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (&param->base, bytes);
  return caffe__solver_parameter__unpack (NULL, size, bytes);
}

/* A line under the plot for an earlier run: its legend label, then how
 * its settings differ from the current run's (LINES), the whole list in
 * its tooltip too, one per line. */
static void
add_run_row (CtTrainView *t, const char *label, GPtrArray *lines)
{
  g_autoptr (GString) joined = g_string_new (NULL);
  g_autoptr (GString) tooltip = g_string_new (label);
  g_autofree char *text = NULL;
  GtkWidget *row = gtk_label_new (NULL);

  for (guint i = 0; i < lines->len; i++)
    {
      g_string_append_printf (joined, "%s%s", i > 0 ? " · " : "",
                              (const char *) lines->pdata[i]);
      g_string_append_printf (tooltip, "\n%s", (const char *) lines->pdata[i]);
    }
  if (lines->len == 0)
    g_string_append (joined, _("the same settings"));
  text = g_markup_printf_escaped ("<b>%s</b>: %s", label, joined->str);
  gtk_label_set_markup (GTK_LABEL (row), text);
  gtk_label_set_wrap (GTK_LABEL (row), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (row), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (row), 0.0f);
  gtk_label_set_selectable (GTK_LABEL (row), TRUE);
  gtk_widget_add_css_class (row, "caption");
  gtk_widget_set_tooltip_text (row, tooltip->str);
  gtk_box_append (GTK_BOX (t->runs_box), row);
}

/* Each earlier run whose settings are known, against CURRENT's (NULL:
 * none are shown). */
static void
show_run_rows (CtTrainView *t, const Caffe__SolverParameter *current)
{
  GtkWidget *heading = gtk_widget_get_first_child (t->runs_box);
  GtkWidget *row;
  gboolean any = FALSE;

  while ((row = gtk_widget_get_next_sibling (heading)) != NULL)
    gtk_box_remove (GTK_BOX (t->runs_box), row);
  for (guint i = 0; current != NULL && i < t->earlier->len; i++)
    {
      const EarlierRun *run = t->earlier->pdata[i];
      g_autoptr (GPtrArray) lines = NULL;

      if (run->param == NULL)
        continue;
      lines = ct_run_diff_lines (run->param, current);
      add_run_row (t, run->label, lines);
      any = TRUE;
    }
  gtk_widget_set_visible (t->runs_scroller, any);
}

void
ct_train_view_new_run (CtTrainView *t, const char *earlier_label,
                       const Caffe__SolverParameter *earlier,
                       const Caffe__SolverParameter *current)
{
  if (t->run_has_points)
    {
      /* TRANSLATORS: the label of an earlier training run on the plot,
       * when its settings were those of the new run */
      g_autofree char *label = earlier_label != NULL ? g_strdup (earlier_label)
                                                     : g_strdup_printf (_("run %u"), t->runs);

      EarlierRun *run = g_new0 (EarlierRun, 1);

      ct_plot_view_fade_all (t->plot, label);
      run->label = g_strdup (label);
      run->param = earlier != NULL ? copy_solver (earlier) : NULL;
      g_ptr_array_add (t->earlier, run);
      add_run_series (t);
      t->runs++;
    }
  else if (t->runs == 0)
    t->runs = 1;
  show_run_rows (t, current);
  clear_ratios (t);
  g_array_set_size (t->recent_losses, 0);
  t->recent_next = 0;
  t->recent_sum = 0;
}

static double
smoothed (CtTrainView *t, float loss)
{
  guint window = MAX (t->average_loss, 1);

  if (t->recent_losses->len < window)
    {
      g_array_append_val (t->recent_losses, loss);
      t->recent_sum += loss;
    }
  else
    {
      float *slot = &g_array_index (t->recent_losses, float, t->recent_next);

      t->recent_sum += (double) loss - *slot;
      *slot = loss;
      t->recent_next = (t->recent_next + 1) % window;
    }
  return t->recent_sum / t->recent_losses->len;
}

/* The series of test output NAME of test net NET, found by KEY (taken). */
static int
named_test_series (CtTrainView *t, char *key, guint net, const char *name)
{
  gpointer found = g_hash_table_lookup (t->test_series, key);
  g_autofree char *title = NULL;
  gboolean accuracy;
  int series;

  if (found != NULL)
    {
      g_free (key);
      return GPOINTER_TO_INT (found) - 1;
    }
  accuracy = strstr (name, "accuracy") != NULL || strstr (name, "acc") != NULL;
  if (g_str_equal (name, "accuracy"))
    title = g_strdup (_("Test accuracy"));
  else if (g_str_equal (name, "loss"))
    title = g_strdup (_("Test loss"));
  else
    /* TRANSLATORS: a test output's series on the plot; %s is its blob name */
    title = g_strdup_printf (_("Test %s"), name);
  if (net > 0)
    {
      /* TRANSLATORS: a series of a second test net; %s is the series, %u the net */
      g_autofree char *more = g_strdup_printf (_("%s (test net %u)"), title, net + 1);
      g_free (title);
      title = g_steal_pointer (&more);
    }
  series = ct_plot_view_add_series (t->plot, accuracy ? 1 : 0, CT_PLOT_AXIS_LEFT, title,
                                    accuracy ? CT_PLOT_COLOR_GREEN : CT_PLOT_COLOR_ORANGE,
                                    CT_PLOT_LINE_MARKS, NULL);
  g_hash_table_insert (t->test_series, key, GINT_TO_POINTER (series + 1));
  return series;
}

static int
test_series (CtTrainView *t, const CtTrainProgress *p, const CtTrainTestPoint *point)
{
  const char *name = "";

  for (guint i = 0; p->test_names != NULL && p->test_names[i] != NULL; i++)
    if (i == point->output)
      name = p->test_names[i];
  return named_test_series (t, g_strdup_printf ("%u:%u", point->test_net_id, point->output),
                            point->test_net_id, name);
}

/* A training log */

static void
show_log_series (CtTrainView *t, int series, const GArray *points)
{
  CtPlot *plot = ct_plot_view_get_plot (t->plot);

  ct_plot_series_clear (plot, series);
  for (guint i = 0; i < points->len; i++)
    {
      const CtTrainLogPoint *point = &g_array_index (points, CtTrainLogPoint, i);

      ct_plot_view_append_point (t->plot, series, point->iter, point->value);
      t->run_has_points = TRUE;
    }
}

void
ct_train_view_show_log (CtTrainView *t, const CtTrainLog *log)
{
  /* the log's loss is the one Caffe displays, already smoothed over its
   * solver's average_loss: it is the smoothed series */
  show_log_series (t, t->s_smooth, ct_train_log_get_loss (log));
  show_log_series (t, t->s_lr, ct_train_log_get_lr (log));
  for (guint i = 0; i < ct_train_log_get_n_tests (log); i++)
    {
      int net;
      const char *name = ct_train_log_get_test_output (log, i, &net);
      const GArray *points = ct_train_log_get_test (log, i);
      char *key = g_strdup_printf ("log:%s", ct_train_log_get_test_name (log, i));
      int series = named_test_series (t, key, net, name);

      show_log_series (t, series, points);
      if (net == 0 && points->len > 0)
        {
          double *value = g_new (double, 1);

          *value = g_array_index (points, CtTrainLogPoint, points->len - 1).value;
          g_hash_table_insert (t->test_values, g_strdup (name), value);
        }
    }
  ct_plot_view_changed (t->plot);
}

/* Update ratios */

static void
draw_ratio (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  double ratio = *(double *) data;
  /* a log scale from 1e-7 to 1: Karpathy's rule of thumb puts a healthy
   * update near 1e-3, in the middle third */
  double pos = isfinite (ratio) && ratio > 0 ? (log10 (ratio) + 7.0) / 7.0 : 1.0;
  CtGraphColor color;

  /* the strip's colours read the same as on the graph's edges: the ratio
   * scaled so that 1e-3 falls among the healthy gradients */
  ct_graph_health_color (isfinite (ratio) ? ratio * 100.0 : ratio, &color);
  pos = CLAMP (pos, 0.02, 1.0);
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.2);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, color.r, color.g, color.b);
  cairo_rectangle (cr, 0, 0, width * pos, height);
  cairo_fill (cr);
}

/* The rows stay while a run goes on (a new layer rebuilds them) and only
 * their numbers change: the bars draw the values in T->ratios, which are
 * updated in place and freed only with the rows. */
static void
clear_ratios (CtTrainView *t)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (t->ratio_box)) != NULL)
    gtk_grid_remove (GTK_GRID (t->ratio_box), child);
  g_hash_table_remove_all (t->ratio_labels);
  g_hash_table_remove_all (t->ratios);
}

static void
add_ratio_row (CtTrainView *t, const char *layer, double *value)
{
  GtkWidget *name = gtk_label_new (layer);
  GtkWidget *bar = gtk_drawing_area_new ();
  GtkWidget *number = gtk_label_new (NULL);
  int row = (int) g_hash_table_size (t->ratio_labels);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_widget_set_size_request (bar, 120, 10);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_widget_set_hexpand (bar, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (bar), draw_ratio, value, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (bar), GTK_ACCESSIBLE_PROPERTY_LABEL, layer, -1);
  gtk_widget_set_tooltip_text (bar, ct_legend_text (CT_LEGEND_HEALTH));
  gtk_widget_add_css_class (number, "numeric");
  gtk_widget_add_css_class (number, "caption");
  gtk_label_set_xalign (GTK_LABEL (number), 1);
  g_object_set_data (G_OBJECT (number), "ct-bar", bar);
  gtk_grid_attach (GTK_GRID (t->ratio_box), name, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (t->ratio_box), bar, 1, row, 1, 1);
  gtk_grid_attach (GTK_GRID (t->ratio_box), number, 2, row, 1, 1);
  g_hash_table_insert (t->ratio_labels, g_strdup (layer), number);
}

static void
set_ratio (CtTrainView *t, const char *layer, double ratio)
{
  double *value = g_hash_table_lookup (t->ratios, layer);
  GtkWidget *number;
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  if (value == NULL)
    {
      value = g_new (double, 1);
      g_hash_table_insert (t->ratios, g_strdup (layer), value);
      add_ratio_row (t, layer, value);
    }
  *value = ratio;
  number = g_hash_table_lookup (t->ratio_labels, layer);
  g_ascii_formatd (text, sizeof text, "%.2e", ratio);
  gtk_label_set_text (GTK_LABEL (number), text);
  gtk_widget_queue_draw (g_object_get_data (G_OBJECT (number), "ct-bar"));
}

/* The followed blob */

static void
show_watch (CtTrainView *t, const CtTrainProgress *p)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  char mean[G_ASCII_DTOSTR_BUF_SIZE], std[G_ASCII_DTOSTR_BUF_SIZE];
  char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];
  const CtStats *stats = p->watch_stats != NULL ? &p->watch_stats->stats : NULL;

  if (!ct_heatmap_view_set_data (t->watch_heatmap, p->watch_data, p->watch_dims, p->watch_n_axes,
                                 &error))
    {
      gtk_label_set_text (t->watch_label, error->message);
      return;
    }
  ct_heatmap_view_set_blob_name (t->watch_heatmap, p->watch_name);
  gtk_widget_set_visible (GTK_WIDGET (t->watch_heatmap), TRUE);
  if (stats == NULL)
    return;
  g_ascii_formatd (mean, sizeof mean, "%.4g", stats->mean);
  g_ascii_formatd (std, sizeof std, "%.4g", stats->std);
  g_ascii_formatd (lo, sizeof lo, "%.4g", stats->min);
  g_ascii_formatd (hi, sizeof hi, "%.4g", stats->max);
  /* TRANSLATORS: the followed blob: name, iteration, then its statistics */
  text = g_strdup_printf (_("%s at iteration %d: mean %s, std %s, min %s, max %s"),
                          p->watch_name, p->watch_iter, mean, std, lo, hi);
  gtk_label_set_text (t->watch_label, text);
}

/* Progress */

void
ct_train_view_take (CtTrainView *t, const CtTrainProgress *p)
{
  for (guint i = 0; p->points != NULL && i < p->points->len; i++)
    {
      const CtTrainPoint *point = &g_array_index (p->points, CtTrainPoint, i);

      ct_plot_view_append_point (t->plot, t->s_loss, point->iter, point->loss);
      ct_plot_view_append_point (t->plot, t->s_smooth, point->iter, smoothed (t, point->loss));
      ct_plot_view_append_point (t->plot, t->s_lr, point->iter, point->learning_rate);
      t->run_has_points = TRUE;
    }
  for (guint i = 0; p->tests != NULL && i < p->tests->len; i++)
    {
      const CtTrainTestPoint *point = &g_array_index (p->tests, CtTrainTestPoint, i);
      int series = test_series (t, p, point);

      ct_plot_view_append_point (t->plot, series, point->iter, point->value);
      t->run_has_points = TRUE;
      if (point->test_net_id == 0 && p->test_names != NULL)
        for (guint k = 0; p->test_names[k] != NULL; k++)
          if (k == point->output)
            {
              double *value = g_new (double, 1);
              *value = point->value;
              g_hash_table_insert (t->test_values, g_strdup (p->test_names[k]), value);
            }
    }
  if (p->ratios != NULL && p->ratios->len > 0)
    {
      for (guint i = 0; i < p->ratios->len; i++)
        {
          const CtTrainRatio *ratio = &g_array_index (p->ratios, CtTrainRatio, i);

          if (p->ratio_layers != NULL && ratio->layer < g_strv_length (p->ratio_layers))
            set_ratio (t, p->ratio_layers[ratio->layer], ratio->ratio);
        }
    }
  if (p->watch_data != NULL)
    show_watch (t, p);
}

static void
append_duration (GString *out, double seconds)
{
  long s = seconds > 0 ? lround (seconds) : 0;

  if (s >= 3600)
    g_string_append_printf (out, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    g_string_append_printf (out, "%ld:%02ld", s / 60, s % 60);
}

char *
ct_train_view_format_stats (const CtTrainProgress *p)
{
  GString *out = g_string_new (NULL);
  char speed[G_ASCII_DTOSTR_BUF_SIZE];
  g_autoptr (GString) eta = g_string_new (NULL);

  /* whole iterations from 100 a second: the line keeps to 24 characters */
  g_ascii_formatd (speed, sizeof speed, p->iters_per_s >= 100 ? "%.0f" : "%.1f", p->iters_per_s);
  if (p->eta_s >= 0)
    append_duration (eta, p->eta_s);
  else
    g_string_append (eta, "–");
  /* TRANSLATORS: the header bar while training, two short lines (at most
   * 24 characters each): iteration, of how many; iterations per second,
   * time left */
  g_string_printf (out, _("Iteration %d / %d\n%s it/s · ETA %s"), p->iter, p->max_iter, speed,
                   eta->str);
  return g_string_free (out, FALSE);
}

char *
ct_train_view_format_elapsed (const CtTrainProgress *p)
{
  g_autoptr (GString) elapsed = g_string_new (NULL);

  append_duration (elapsed, p->elapsed_s);
  /* TRANSLATORS: the tooltip of the training figures in the header bar */
  return g_strdup_printf (_("Training for %s"), elapsed->str);
}

/* What the controller reads and sets */

void
ct_train_view_set_status (CtTrainView *t, const char *text)
{
  gtk_label_set_text (t->status_label, text);
}

void
ct_train_view_set_watch_note (CtTrainView *t, const char *text)
{
  gtk_label_set_text (t->watch_label, text);
}

CtPlotView *
ct_train_view_get_plot (CtTrainView *t)
{
  return t->plot;
}

const double *
ct_train_view_get_ratio (CtTrainView *t, const char *layer)
{
  return g_hash_table_lookup (t->ratios, layer);
}

guint
ct_train_view_get_n_ratios (CtTrainView *t)
{
  return g_hash_table_size (t->ratios);
}

const char *
ct_train_view_get_ratio_text (CtTrainView *t, const char *layer)
{
  GtkLabel *number = g_hash_table_lookup (t->ratio_labels, layer);

  return number != NULL ? gtk_label_get_text (number) : NULL;
}

gboolean
ct_train_view_get_test_value (CtTrainView *t, const char *name, double *value)
{
  double *found = g_hash_table_lookup (t->test_values, name);

  if (found != NULL && value != NULL)
    *value = *found;
  return found != NULL;
}

void
ct_train_view_clear (CtTrainView *t)
{
  CtPlot *plot = ct_plot_view_get_plot (t->plot);

  /* a new model: the series of another net say nothing about this one */
  for (int i = 0; i < ct_plot_get_n_series (plot); i++)
    {
      ct_plot_series_clear (plot, i);
      ct_plot_series_set_visible (plot, i, FALSE);
    }
  ct_plot_reset_view (plot);
  ct_plot_view_changed (t->plot);
  add_run_series (t);
  t->runs = 0;
  g_ptr_array_set_size (t->earlier, 0);
  show_run_rows (t, NULL);
  clear_ratios (t);
  gtk_widget_set_visible (GTK_WIDGET (t->watch_heatmap), FALSE);
  gtk_label_set_text (t->watch_label, _("Select a layer to follow its output while training"));
}

/* The widget */

static void
ct_train_view_dispose (GObject *object)
{
  CtTrainView *t = CT_TRAIN_VIEW (object);

  /* the bars draw values from the table: rows first */
  if (t->ratio_box != NULL && t->ratios != NULL)
    clear_ratios (t);
  gtk_widget_dispose_template (GTK_WIDGET (t), CT_TYPE_TRAIN_VIEW);
  G_OBJECT_CLASS (ct_train_view_parent_class)->dispose (object);
}

static void
ct_train_view_finalize (GObject *object)
{
  CtTrainView *t = CT_TRAIN_VIEW (object);

  g_hash_table_unref (t->test_series);
  g_hash_table_unref (t->test_values);
  g_hash_table_unref (t->ratios);
  g_hash_table_unref (t->ratio_labels);
  g_ptr_array_unref (t->earlier);
  g_array_unref (t->recent_losses);
  G_OBJECT_CLASS (ct_train_view_parent_class)->finalize (object);
}

static void
ct_train_view_class_init (CtTrainViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_train_view_dispose;
  object_class->finalize = ct_train_view_finalize;

  g_type_ensure (CT_TYPE_PLOT_VIEW);
  g_type_ensure (CT_TYPE_HEATMAP_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/cortado/Cortado/train-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, status_label);
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, plot);
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, runs_scroller);
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, runs_box);
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, ratio_box);
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, watch_label);
  gtk_widget_class_bind_template_child (widget_class, CtTrainView, watch_heatmap);
}

static void
ct_train_view_init (CtTrainView *t)
{
  t->s_loss = t->s_smooth = t->s_lr = -1;
  t->test_series = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  t->test_values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->ratios = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->ratio_labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  t->recent_losses = g_array_new (FALSE, FALSE, sizeof (float));
  t->earlier = g_ptr_array_new_with_free_func (earlier_run_free);
  gtk_widget_init_template (GTK_WIDGET (t));
  {
    /* how to read the ratios' colours, beside their heading */
    GtkWidget *legend = ct_legend_button_new (CT_LEGEND_HEALTH);

    gtk_widget_set_halign (legend, GTK_ALIGN_START);
    gtk_widget_insert_before (legend, gtk_widget_get_parent (t->ratio_box), t->ratio_box);
  }

  ct_plot_view_set_title (t->plot, _("Training"));
  ct_plot_view_add_panel (t->plot, _("Loss"), 2.0);
  ct_plot_view_add_panel (t->plot, _("Accuracy"), 1.0);
  ct_plot_set_x_label (ct_plot_view_get_plot (t->plot), _("Iteration"));
  ct_train_view_clear (t);
}

CtTrainView *
ct_train_view_new (void)
{
  return g_object_new (CT_TYPE_TRAIN_VIEW, NULL);
}
