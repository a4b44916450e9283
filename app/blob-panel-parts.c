/* blob-panel-parts.c: the parts of the inspector's blob panel (see
 * blob-panel.c) that its template leaves to code: the heatmap's controls'
 * lists, the statistics as text labels a screen reader reads, the
 * histogram, the classifier output's top five classes named by the
 * labels.txt beside the net, and the exports (PNG, .npy, CSV) through a
 * file chooser, errors through the panel's "error" signal. */
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "heatmap/blob-export.h"
#include "class-names.h"
#include "blob-panel-private.h"

static const char *const stat_names[N_STATS] = {
  N_("Minimum"), N_("Maximum"), N_("Mean"), N_("Standard deviation"),
  N_("L2 norm"), N_("Exact zeros"), N_("NaN values"), N_("Infinite values"),
};

static void
format_number (char *buf, gsize len, double v)
{
  ct_heatmap_format_value (buf, len, v);
}

/* The labels.txt beside the net, one class a line (NULL: none). */
static char **
class_labels (CtBlobPanel *panel)
{
  /* The net's folder, or a bundled example's installed folder. */
  g_autofree char *dir = panel->document != NULL ? ct_document_dup_base_dir (panel->document)
                                                 : NULL;
  g_autofree char *path = dir != NULL ? g_build_filename (dir, "labels.txt", NULL) : NULL;

  if (g_strcmp0 (path, panel->labels_path) == 0)
    return panel->labels;
  g_free (panel->labels_path);
  panel->labels_path = g_strdup (path);
  g_clear_pointer (&panel->labels, g_strfreev);
  /* A few hundred bytes beside the net, read once per net file; a file
   * that cannot be read names no classes (the bars show numbers). */
  if (path != NULL && g_file_test (path, G_FILE_TEST_EXISTS))
    panel->labels = ct_class_names_load (path, NULL);
  return panel->labels;
}

void
ct_blob_panel_show_stats (CtBlobPanel *panel, const CtBlobStats *stats)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < N_STATS; i++)
    {
      g_autofree char *text = NULL;

      if (stats == NULL)
        text = g_strdup ("–");
      else
        switch (i)
          {
          case STAT_MIN: format_number (buf, sizeof buf, stats->stats.min); break;
          case STAT_MAX: format_number (buf, sizeof buf, stats->stats.max); break;
          case STAT_MEAN: format_number (buf, sizeof buf, stats->stats.mean); break;
          case STAT_STD: format_number (buf, sizeof buf, stats->stats.std); break;
          case STAT_L2: format_number (buf, sizeof buf, stats->stats.l2_norm); break;
          case STAT_ZEROS:
            {
              char zeros[32], count[32];

              g_ascii_formatd (buf, sizeof buf, "%.2f", 100.0 * stats->stats.zero_share);
              g_snprintf (zeros, sizeof zeros, "%" G_GINT64_FORMAT, (gint64) stats->stats.n_zeros);
              g_snprintf (count, sizeof count, "%" G_GINT64_FORMAT, (gint64) stats->stats.count);
              /* TRANSLATORS: the share of exact zeros: "12.50 % (300 of 2400)" */
              text = g_strdup_printf (_("%s %% (%s of %s)"), buf, zeros, count);
            }
            break;
          case STAT_NAN:
            g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, (gint64) stats->stats.n_nan);
            break;
          case STAT_INF:
            g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, (gint64) stats->stats.n_inf);
            break;
          default: g_assert_not_reached ();
          }
      gtk_label_set_text (GTK_LABEL (panel->stat_values[i]), text != NULL ? text : buf);
    }
}

void
ct_blob_panel_draw_histogram (GtkDrawingArea *area, cairo_t *cr, int width, int height,
                              gpointer data)
{
  CtBlobPanel *panel = data;
  const CtBlobStats *stats = panel->shown.stats;
  gint64 top = 0;
  double bar;

  if (stats == NULL)
    return;
  for (guint i = 0; i < CT_BLOB_STATS_BINS; i++)
    top = MAX (top, stats->histogram[i]);
  if (top == 0)
    return;
  bar = (double) width / CT_BLOB_STATS_BINS;
  cairo_set_source_rgb (cr, 0.21, 0.52, 0.89);
  for (guint i = 0; i < CT_BLOB_STATS_BINS; i++)
    {
      /* A square root scale: one full bin of zeros must not hide the rest. */
      double h = (height - 1) * sqrt ((double) stats->histogram[i] / (double) top);

      if (stats->histogram[i] > 0)
        h = MAX (h, 1.0);
      cairo_rectangle (cr, i * bar + 0.5, height - h, MAX (bar - 1.0, 1.0), h);
    }
  cairo_fill (cr);
}

void
ct_blob_panel_update_histogram (CtBlobPanel *panel)
{
  const CtBlobStats *stats = panel->shown.stats;
  g_autofree char *description = NULL;

  if (stats != NULL)
    {
      char lo[G_ASCII_DTOSTR_BUF_SIZE], hi[G_ASCII_DTOSTR_BUF_SIZE];

      format_number (lo, sizeof lo, stats->stats.min);
      format_number (hi, sizeof hi, stats->stats.max);
      /* TRANSLATORS: accessible description of the histogram drawing */
      description = g_strdup_printf (_("Histogram of %d bins from %s to %s"),
                                     CT_BLOB_STATS_BINS, lo, hi);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (panel->histogram),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description != NULL ? description : "", -1);
  gtk_widget_queue_draw (panel->histogram);
}

/* The class probabilities of one sample's K values: the values themselves
 * when they already are (a Softmax layer's output), else their softmax
 * (a classifier's scores, such as LeNet's ip2). NaNs count as 0. */
static void
class_probabilities (const float *values, guint k, double *probabilities)
{
  double sum = 0, max = -INFINITY, total = 0;
  gboolean are = TRUE;

  for (guint i = 0; i < k; i++)
    if (!isnan (values[i]))
      {
        are &= values[i] >= 0 && values[i] <= 1;
        sum += values[i];
        max = MAX (max, values[i]);
      }
  are &= fabs (sum - 1) < 1e-3;
  for (guint i = 0; i < k; i++)
    {
      probabilities[i] = isnan (values[i]) ? 0 : are ? values[i] : exp (values[i] - max);
      total += probabilities[i];
    }
  for (guint i = 0; i < k && total > 0; i++)
    probabilities[i] /= total;
}

/* The true class of SAMPLE of the classifier output BLOB: the label that
 * an Accuracy or SoftmaxWithLoss layer compares it with, when the run
 * copied it (the window watches it with the classifier); else -1. */
static int
true_class (CtRunSnapshot *snapshot, const char *blob, int sample, guint k)
{
  for (guint i = 0; snapshot != NULL && i < ct_run_snapshot_n_layers (snapshot); i++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i);
      const CtRunBlob *label;
      const CtRunVersion *version;
      float value;

      if ((g_strcmp0 (layer->type, "Accuracy") != 0
           && g_strcmp0 (layer->type, "SoftmaxWithLoss") != 0)
          || layer->n_bottoms < 2
          || g_strcmp0 (ct_run_snapshot_get_blob (snapshot, layer->bottoms[0])->name, blob) != 0)
        continue;
      label = ct_run_snapshot_get_blob (snapshot, layer->bottoms[1]);
      if (label->versions == NULL || label->versions->len == 0 || label->count <= sample)
        continue;
      version = g_ptr_array_index (label->versions, label->versions->len - 1);
      value = ((const float *) g_bytes_get_data (version->data, NULL))[sample];
      if (value >= 0 && value < k && value == floorf (value))
        return (int) value;
    }
  return -1;
}

/* The top five classes of the heatmap's sample, for an (N, K) output whose
 * K matches the labels beside the net, with their probabilities, and the
 * true class when the run has the labels. */
void
ct_blob_panel_update_top (CtBlobPanel *panel)
{
  char **labels = class_labels (panel);
  const Shown *shown = &panel->shown;
  int sample = ct_heatmap_view_get_sample (CT_HEATMAP_VIEW (panel->heatmap));
  g_autoptr (GString) text = NULL;
  const float *values;
  g_autofree double *probabilities = NULL;
  guint k, order[5], n_order = 0;
  int truth;

  if (labels == NULL || shown->values == NULL || shown->n_axes != 2 || panel->diff
      || shown->dims[1] != (gint64) g_strv_length (labels) || sample >= shown->dims[0])
    {
      gtk_widget_set_visible (panel->top_label, FALSE);
      return;
    }
  k = (guint) shown->dims[1];
  values = (const float *) g_bytes_get_data (shown->values, NULL) + (gsize) sample * k;
  probabilities = g_new (double, k);
  class_probabilities (values, k, probabilities);
  for (guint i = 0; i < k; i++)
    {
      guint at = n_order;

      if (isnan (values[i]))
        continue;
      while (at > 0 && values[order[at - 1]] < values[i])
        at--;
      if (at >= 5)
        continue;
      n_order = MIN (n_order + 1, 5u);
      memmove (order + at + 1, order + at, (n_order - 1 - at) * sizeof order[0]);
      order[at] = i;
    }
  text = g_string_new (NULL);
  /* TRANSLATORS: heading of the classifier output's best classes */
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "Top %u class of sample %d:",
                                          "Top %u classes of sample %d:", n_order),
                          n_order, sample);
  for (guint i = 0; i < n_order; i++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      format_number (buf, sizeof buf, values[order[i]]);
      /* TRANSLATORS: a class in the classifier's top five: rank, name,
       * probability in percent, the layer's own value */
      g_string_append_printf (text, _("\n%u. %s  %.1f %% (%s)"), i + 1, labels[order[i]],
                              100 * probabilities[order[i]], buf);
    }
  truth = true_class (panel->snapshot, shown->name, sample, k);
  if (truth >= 0 && n_order > 0)
    {
      g_string_append_c (text, '\n');
      /* TRANSLATORS: %s is the sample's true class */
      g_string_append_printf (text, truth == (int) order[0] ? _("True class: %s, predicted right")
                                                            : _("True class: %s, predicted wrong"),
                              labels[truth]);
    }
  gtk_label_set_text (GTK_LABEL (panel->top_label), text->str);
  gtk_widget_set_visible (panel->top_label, TRUE);
}

static void
colormap_selected (GtkDropDown *dropdown, GParamSpec *pspec, CtBlobPanel *panel)
{
  if (panel->updating)
    return;
  panel->user_colormap = TRUE;
  ct_heatmap_view_set_colormap (CT_HEATMAP_VIEW (panel->heatmap),
                                gtk_drop_down_get_selected (dropdown));
}

static void
scale_selected (GtkDropDown *dropdown, GParamSpec *pspec, CtBlobPanel *panel)
{
  ct_heatmap_view_set_scale_mode (CT_HEATMAP_VIEW (panel->heatmap),
                                  gtk_drop_down_get_selected (dropdown));
}

/* Bars of one sample, or the matrix of every sample: the panel keeps the
 * choice for the (N, K) blobs that follow. */
static void
kind_toggled (GtkToggleButton *button, CtBlobPanel *panel)
{
  CtHeatmapKind kind;

  if (panel->updating || !gtk_toggle_button_get_active (button))
    return;
  panel->bars = GTK_WIDGET (button) == panel->bars_button;
  kind = panel->bars ? CT_HEATMAP_BARS : CT_HEATMAP_MATRIX;
  ct_heatmap_view_set_kind (CT_HEATMAP_VIEW (panel->heatmap), kind);
  ct_heatmap_view_set_kind (CT_HEATMAP_VIEW (panel->diff_heatmap), kind);
}

void
ct_blob_panel_pointer_moved (CtHeatmapView *view, GParamSpec *pspec, CtBlobPanel *panel)
{
  const char *text = ct_heatmap_view_get_pointer_text (view);

  gtk_label_set_text (GTK_LABEL (panel->pointer_label), text != NULL ? text : "");
}

void
ct_blob_panel_sample_changed (CtHeatmapView *view, GParamSpec *pspec, CtBlobPanel *panel)
{
  ct_blob_panel_update_top (panel);
}

gboolean
ct_blob_panel_export (CtBlobPanel *panel, GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  const Shown *shown = &panel->shown;
  const float *values;

  g_return_val_if_fail (CT_IS_BLOB_PANEL (panel), FALSE);
  if (shown->values == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("There are no values to export"));
      return FALSE;
    }
  if (path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("Exports go to local files only"));
      return FALSE;
    }
  values = g_bytes_get_data (shown->values, NULL);
  if (g_str_has_suffix (path, ".npy"))
    return ct_blob_save_npy (path, values, shown->dims, shown->n_axes, error);
  if (g_str_has_suffix (path, ".csv"))
    return ct_blob_save_csv (path, values, shown->dims, shown->n_axes, error);
  if (g_str_has_suffix (path, ".png"))
    {
      /* Side by side, the heatmap of what the toggle picks. */
      GtkWidget *view = panel->side_by_side && panel->diff ? panel->diff_heatmap : panel->heatmap;
      int width = MAX (gtk_widget_get_width (view), 640);
      int height = MAX (gtk_widget_get_height (view), 480);

      return ct_heatmap_save_png (ct_heatmap_view_get_heatmap (CT_HEATMAP_VIEW (view)),
                                  path, width, height, error);
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                       _("Export as .png, .npy or .csv"));
  return FALSE;
}

static void
export_chosen (GtkNativeDialog *chooser, int response, CtBlobPanel *panel)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;

      if (file != NULL && !ct_blob_panel_export (panel, file, &error))
        {
          g_autofree char *message = g_strdup_printf (_("Could not export: %s"), error->message);
          ct_blob_panel_report_error (panel, message);
        }
    }
  g_object_unref (chooser);
  g_object_unref (panel);
}

void
ct_blob_panel_export_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtBlobPanel *panel = data;
  const char *extension = g_variant_get_string (param, NULL);
  const Shown *shown = &panel->shown;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (panel));
  GtkFileChooserNative *chooser;
  g_autofree char *name = NULL;

  if (shown->values == NULL)
    return;
  chooser = gtk_file_chooser_native_new (_("Export Blob"),
                                         GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  name = g_strdup_printf ("%s%s.%s", shown->name, panel->diff ? "-diff" : "", extension);
  g_strdelimit (name, "/\\", '_');
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  g_signal_connect (chooser, "response", G_CALLBACK (export_chosen), g_object_ref (panel));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* The template leaves the lists of colour maps and scales, the statistics'
 * rows and the signals to this: a list given to a dropdown before its
 * signal is connected selects its first item quietly. */
void
ct_blob_panel_fill_parts (CtBlobPanel *panel)
{
  GtkStringList *maps = gtk_string_list_new (NULL);
  GtkStringList *scales = gtk_string_list_new (NULL);

  for (int i = 0; i < CT_COLORMAP_N; i++)
    gtk_string_list_append (maps, ct_colormap_get_label (i));
  /* Fixed ranges are for callers, not a choice in the panel. */
  for (int i = 0; i < CT_SCALE_FIXED; i++)
    gtk_string_list_append (scales, ct_scale_mode_get_label (i));
  gtk_drop_down_set_model (GTK_DROP_DOWN (panel->colormap_dropdown), G_LIST_MODEL (maps));
  gtk_drop_down_set_model (GTK_DROP_DOWN (panel->scale_dropdown), G_LIST_MODEL (scales));
  g_object_unref (maps);
  g_object_unref (scales);
  g_object_bind_property (panel->heatmap, "sample", panel->sample_spin, "value",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_signal_connect (panel->colormap_dropdown, "notify::selected",
                    G_CALLBACK (colormap_selected), panel);
  g_signal_connect (panel->scale_dropdown, "notify::selected", G_CALLBACK (scale_selected), panel);
  g_signal_connect (panel->matrix_button, "toggled", G_CALLBACK (kind_toggled), panel);
  g_signal_connect (panel->bars_button, "toggled", G_CALLBACK (kind_toggled), panel);

  for (guint i = 0; i < N_STATS; i++)
    {
      GtkWidget *name = gtk_label_new (_(stat_names[i]));
      GtkWidget *value = gtk_label_new ("–");
      g_autofree char *id = g_strdup_printf ("blob-stat-%u", i);

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_widget_add_css_class (name, "dim-label");
      gtk_label_set_xalign (GTK_LABEL (value), 0);
      gtk_label_set_selectable (GTK_LABEL (value), TRUE);
      gtk_widget_add_css_class (value, "numeric");
      gtk_widget_set_name (value, id);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (value),
                                      GTK_ACCESSIBLE_RELATION_LABELLED_BY, name, NULL, -1);
      gtk_grid_attach (GTK_GRID (panel->stats_grid), name, 0, (int) i, 1, 1);
      gtk_grid_attach (GTK_GRID (panel->stats_grid), value, 1, (int) i, 1, 1);
      panel->stat_values[i] = value;
    }
}
