/* model-compare-window.c: CtModelCompareWindow. The two caffemodels are
 * read and compared on a worker thread (analysis/model-diff.h); the
 * window lists every parameter blob, the most changed first, with its
 * relative change as a bar and in numbers, then the blobs whose shapes
 * differ and the layers only one model has. Below, the legend of the
 * colours the workbench's graph gives each layer, and the blob picked:
 * its two versions and their difference as heatmaps (widgets/), and the
 * values that changed most (analysis/weight-compare.h). */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "heatmap-view.h"
#include "model-compare-window.h"
#include "model-diff.h"
#include "weight-compare.h"

#define N_TOP_CHANGES 5

struct _CtModelCompareWindow {
  GtkWindow parent_instance;

  CtModelDiff *diff;
  Caffe__NetParameter *a, *b;
  GPtrArray *layers;        /* CtLayerChange*, once compared */
  GPtrArray *blob_names;    /* "layer\nindex" of each item of the drop-down */
  GtkWidget *status, *grid, *legend, *clear_button, *blob_dropdown;
  GtkWidget *views[3], *changes;
};

enum {
  SIGNAL_COMPARED,
  SIGNAL_CLEAR_MARKS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct {
  CtModelDiff *diff;
  Caffe__NetParameter *a, *b;
} Result;

static void
result_free (gpointer data)
{
  Result *r = data;

  g_clear_pointer (&r->diff, ct_model_diff_free);
  if (r->a != NULL)
    protobuf_c_message_free_unpacked (&r->a->base, NULL);
  if (r->b != NULL)
    protobuf_c_message_free_unpacked (&r->b->base, NULL);
  g_free (r);
}

G_DEFINE_FINAL_TYPE (CtModelCompareWindow, ct_model_compare_window, GTK_TYPE_WINDOW)

typedef struct {
  char *a, *b;
} Pair;

static void
pair_free (gpointer data)
{
  Pair *p = data;

  g_free (p->a);
  g_free (p->b);
  g_free (p);
}

static void
compare_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Pair *p = data;
  GError *error = NULL;
  Result *r = g_new0 (Result, 1);

  /* the models stay with the window: picking a blob shows its values */
  r->a = ct_model_read (p->a, &error);
  if (r->a != NULL)
    r->b = ct_model_read (p->b, &error);
  if (r->b != NULL)
    r->diff = ct_model_diff_compute (r->a, r->b, &error);
  if (r->diff == NULL)
    {
      result_free (r);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, r, result_free);
}

static GtkWidget *
cell (const char *text, float xalign)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  return label;
}

static char *
number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.4g", v));
}

/* One row: layer, blob, shape, a bar of ‖Δw‖/‖w‖ (empty at 10⁻⁶, full at
 * 1), the ratio and the largest change of one value. */
static void
add_row (CtModelCompareWindow *self, const CtModelDiffBlob *d, int row)
{
  g_autofree char *blob = g_strdup_printf ("%u", d->blob_index);
  g_autofree char *ratio = number (d->relative);
  g_autofree char *largest = number (d->max_abs_delta);
  g_auto (GStrv) dims = g_strsplit (d->shape_a, " ", -1);
  g_autofree char *shape = g_strjoinv (" × ", dims);
  g_autofree char *name = g_strdup_printf (_("%s, blob %u: relative change %s"), d->layer,
                                           d->blob_index, ratio);
  GtkWidget *bar = gtk_level_bar_new_for_interval (0.0, 1.0);

  /* on the graph's scale (logarithmic), so that a bar and a layer's colour agree */
  gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), ct_change_scale_position (d->relative));
  gtk_widget_set_size_request (bar, 160, -1);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (bar), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
  gtk_grid_attach (GTK_GRID (self->grid), cell (d->layer, 0.0f), 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), cell (blob, 1.0f), 1, row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), cell (shape, 0.0f), 2, row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), bar, 3, row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), cell (ratio, 1.0f), 4, row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), cell (largest, 1.0f), 5, row, 1, 1);
}

static void
show_diff (CtModelCompareWindow *self)
{
  g_autoptr (GPtrArray) sorted = ct_model_diff_by_change (self->diff);
  const char *heads[] = { N_("Layer"), N_("Blob"), N_("Shape"), N_("Change"),
                          N_("‖Δw‖ / ‖w‖"), N_("Largest |Δw|") };
  int row = 1;

  for (guint i = 0; i < G_N_ELEMENTS (heads); i++)
    {
      GtkWidget *head = cell (_(heads[i]), i == 1 || i >= 4 ? 1.0f : 0.0f);

      gtk_widget_add_css_class (head, "heading");
      gtk_grid_attach (GTK_GRID (self->grid), head, (int) i, 0, 1, 1);
    }
  for (guint i = 0; i < sorted->len; i++)
    {
      const CtModelDiffBlob *d = sorted->pdata[i];

      if (d->same_shape)
        add_row (self, d, row++);
    }
  for (guint i = 0; i < sorted->len; i++)
    {
      const CtModelDiffBlob *d = sorted->pdata[i];
      g_autofree char *text = NULL;

      if (d->same_shape)
        continue;
      text = g_strdup_printf (_("%s, blob %u: shape %s, now %s"), d->layer, d->blob_index,
                              d->shape_a, d->shape_b);
      gtk_grid_attach (GTK_GRID (self->grid), cell (text, 0.0f), 0, row++, 6, 1);
    }
  for (guint i = 0; i < self->diff->only_a->len; i++)
    {
      g_autofree char *text = g_strdup_printf (_("Only in the first: %s"),
                                               (char *) self->diff->only_a->pdata[i]);

      gtk_grid_attach (GTK_GRID (self->grid), cell (text, 0.0f), 0, row++, 6, 1);
    }
  for (guint i = 0; i < self->diff->only_b->len; i++)
    {
      g_autofree char *text = g_strdup_printf (_("Only in the second: %s"),
                                               (char *) self->diff->only_b->pdata[i]);

      gtk_grid_attach (GTK_GRID (self->grid), cell (text, 0.0f), 0, row++, 6, 1);
    }
  gtk_label_set_text (GTK_LABEL (self->status),
                      ct_model_diff_is_equal (self->diff)
                        ? _("The two models hold the same weights, bit for bit.")
                        : _("The blobs that changed most come first."));
}


/* The blob picked: A, B and B − A side by side, and its largest changes. */

static char *
value_text (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.4g", v));
}

static void
show_view (GtkWidget *view, const float *values, const CtWeightPair *pair, const char *name,
           double range)
{
  CtHeatmapView *heatmap = CT_HEATMAP_VIEW (view);
  g_autoptr (GError) error = NULL;

  ct_heatmap_view_set_zoom_channel (heatmap, -1);
  ct_heatmap_view_set_blob_name (heatmap, name);
  ct_heatmap_view_set_colormap (heatmap, CT_COLORMAP_DIVERGING);
  /* one range for both versions, so that equal colours mean equal values */
  ct_heatmap_view_set_scale_mode (heatmap, CT_SCALE_FIXED);
  ct_heatmap_view_set_fixed_range (heatmap, -range, range);
  if (!ct_heatmap_view_set_values (heatmap, values, pair->dims, pair->n_dims, &error))
    {
      g_warning ("%s", error->message);
      return;
    }
  ct_heatmap_view_set_kind (heatmap, pair->n_dims == 4   ? CT_HEATMAP_GRID
                                     : pair->n_dims == 2 ? CT_HEATMAP_MATRIX
                                                         : CT_HEATMAP_BARS);
}

static double
largest_abs (const float *values, gint64 count)
{
  double m = 0.0;

  for (gint64 i = 0; i < count; i++)
    if (isfinite (values[i]))
      m = MAX (m, fabs (values[i]));
  return m > 0.0 ? m : 1.0;
}

static void
show_changes (CtModelCompareWindow *self, const CtWeightPair *pair)
{
  g_autoptr (GArray) top = ct_weight_pair_top_changes (pair, N_TOP_CHANGES);
  g_autoptr (GString) text = g_string_new (NULL);

  g_string_append (text, top->len > 0 ? _("Largest changes:") : _("No value changed."));
  for (guint i = 0; i < top->len; i++)
    {
      const CtWeightChange *c = &g_array_index (top, CtWeightChange, i);
      g_autofree char *at = ct_weight_pair_index_text (pair, c->index);
      g_autofree char *va = value_text (c->a);
      g_autofree char *vb = value_text (c->b);
      g_autofree char *vd = value_text ((double) c->b - c->a);

      /* TRANSLATORS: a value's place in the blob, its value before and
       * after, and the change */
      g_string_append_printf (text, _("\n%s: %s → %s (Δ %s)"), at, va, vb, vd);
    }
  gtk_label_set_text (GTK_LABEL (self->changes), text->str);
}

static void
show_blob (CtModelCompareWindow *self)
{
  guint item = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->blob_dropdown));
  g_auto (GStrv) parts = NULL;
  g_autoptr (CtWeightPair) pair = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name_a = NULL, *name_b = NULL, *name_d = NULL;
  double range;

  if (self->a == NULL || item == GTK_INVALID_LIST_POSITION || item >= self->blob_names->len)
    return;
  parts = g_strsplit (self->blob_names->pdata[item], "\n", 2);
  pair = ct_weight_pair_new (self->a, self->b, parts[0],
                             (guint) g_ascii_strtoull (parts[1], NULL, 10), &error);
  if (pair == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->changes), error->message);
      return;
    }
  range = MAX (largest_abs (pair->a, pair->count), largest_abs (pair->b, pair->count));
  /* TRANSLATORS: the heatmaps of a blob in the first model, the second,
   * and their difference; %s is the layer */
  name_a = g_strdup_printf (_("%s, first"), parts[0]);
  name_b = g_strdup_printf (_("%s, second"), parts[0]);
  name_d = g_strdup_printf (_("%s, second − first"), parts[0]);
  show_view (self->views[0], pair->a, pair, name_a, range);
  show_view (self->views[1], pair->b, pair, name_b, range);
  show_view (self->views[2], pair->delta, pair, name_d,
             largest_abs (pair->delta, pair->count));
  show_changes (self, pair);
}

static void
fill_blob_dropdown (CtModelCompareWindow *self)
{
  g_autoptr (GtkStringList) items = gtk_string_list_new (NULL);

  g_ptr_array_set_size (self->blob_names, 0);
  for (guint i = 0; i < self->diff->blobs->len; i++)
    {
      const CtModelDiffBlob *d = self->diff->blobs->pdata[i];
      g_autofree char *item = NULL;

      if (!d->same_shape)
        continue;
      /* TRANSLATORS: an item of the list of blobs: layer, blob number */
      item = g_strdup_printf (_("%s, blob %u"), d->layer, d->blob_index);
      gtk_string_list_append (items, item);
      g_ptr_array_add (self->blob_names, g_strdup_printf ("%s\n%u", d->layer, d->blob_index));
    }
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->blob_dropdown), G_LIST_MODEL (items));
  gtk_widget_set_sensitive (self->blob_dropdown, self->blob_names->len > 0);
  show_blob (self);
}

static void
blob_picked (GObject *dropdown, GParamSpec *pspec, CtModelCompareWindow *self)
{
  show_blob (self);
}

/* The legend: the colour scale of the graph, 10⁻⁶ to 1 on a log scale. */
static void
draw_legend (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  static const char *ticks[] = { "10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹", "1" };
  const double bar = 14.0;
  GdkRGBA fg;

  for (int x = 0; x < width; x++)
    {
      double t = (double) x / MAX (width - 1, 1);
      double rel = CT_CHANGE_SCALE_LO * pow (CT_CHANGE_SCALE_HI / CT_CHANGE_SCALE_LO, t);
      CtRgb c = ct_change_scale_color (rel);

      cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
      cairo_rectangle (cr, x, 0, 1, bar);
      cairo_fill (cr);
    }
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gdk_cairo_set_source_rgba (cr, &fg);
  for (guint i = 0; i < G_N_ELEMENTS (ticks); i++)
    {
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (area),
                                                                      ticks[i]);
      double x = (width - 1) * (double) i / (G_N_ELEMENTS (ticks) - 1);
      int tw, th;

      pango_layout_get_pixel_size (layout, &tw, &th);
      cairo_rectangle (cr, x - 0.5, bar, 1, 4);
      cairo_fill (cr);
      cairo_move_to (cr, CLAMP (x - tw / 2.0, 0, width - tw), bar + 4);
      pango_cairo_show_layout (cr, layout);
    }
}

static void
clear_clicked (GtkButton *button, CtModelCompareWindow *self)
{
  g_signal_emit (self, signals[SIGNAL_CLEAR_MARKS], 0);
}

static void
compare_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtModelCompareWindow *self = CT_MODEL_COMPARE_WINDOW (source);
  g_autoptr (GError) error = NULL;
  Result *r = g_task_propagate_pointer (G_TASK (result), &error);

  if (r == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not compare the models: %s"),
                                               error->message);

      gtk_label_set_text (GTK_LABEL (self->status), text);
      return;
    }
  self->diff = g_steal_pointer (&r->diff);
  self->a = g_steal_pointer (&r->a);
  self->b = g_steal_pointer (&r->b);
  result_free (r);
  self->layers = ct_weight_compare_layers (self->diff);
  show_diff (self);
  fill_blob_dropdown (self);
  g_signal_emit (self, signals[SIGNAL_COMPARED], 0);
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_add_css_class (label, "heading");
  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  return label;
}

static GtkWidget *
build_legend (CtModelCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (_("On the graph, ‖Δw‖ / ‖w‖ per layer:"));

  self->legend = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self->legend), 320);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->legend), 34);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->legend), draw_legend, NULL, NULL);
  gtk_accessible_update_property (
    GTK_ACCESSIBLE (self->legend), GTK_ACCESSIBLE_PROPERTY_LABEL,
    _("Colour scale: from dark purple (a relative change of 10⁻⁶ or less) to yellow "
      "(1 or more)"),
    -1);
  self->clear_button = gtk_button_new_with_mnemonic (_("C_lear Colours on the Graph"));
  gtk_widget_set_tooltip_text (self->clear_button,
                               _("Take the comparison's colours off the workbench's graph"));
  g_signal_connect (self->clear_button, "clicked", G_CALLBACK (clear_clicked), self);
  gtk_widget_set_hexpand (self->clear_button, TRUE);
  gtk_widget_set_halign (self->clear_button, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), self->legend);
  gtk_box_append (GTK_BOX (box), self->clear_button);
  return box;
}

static GtkWidget *
build_blob_panel (CtModelCompareWindow *self)
{
  const char *titles[3] = { N_("First"), N_("Second"), N_("Second − first") };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *views = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new_with_mnemonic (_("_Blob:"));

  self->blob_dropdown = gtk_drop_down_new (NULL, NULL);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), self->blob_dropdown);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->blob_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Blob to show"), -1);
  gtk_widget_set_sensitive (self->blob_dropdown, FALSE);
  g_signal_connect (self->blob_dropdown, "notify::selected", G_CALLBACK (blob_picked), self);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), self->blob_dropdown);
  gtk_box_append (GTK_BOX (box), row);
  for (guint i = 0; i < 3; i++)
    {
      GtkWidget *column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);

      self->views[i] = ct_heatmap_view_new ();
      gtk_widget_set_size_request (self->views[i], 220, 220);
      gtk_widget_set_hexpand (self->views[i], TRUE);
      gtk_widget_set_vexpand (self->views[i], TRUE);
      gtk_box_append (GTK_BOX (column), heading (_(titles[i])));
      gtk_box_append (GTK_BOX (column), self->views[i]);
      gtk_widget_set_hexpand (column, TRUE);
      gtk_box_append (GTK_BOX (views), column);
    }
  self->changes = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->changes), 0.0f);
  gtk_label_set_selectable (GTK_LABEL (self->changes), TRUE);
  gtk_widget_set_valign (self->changes, GTK_ALIGN_START);
  gtk_widget_set_vexpand (views, TRUE);
  gtk_box_append (GTK_BOX (box), views);
  gtk_box_append (GTK_BOX (box), self->changes);
  return box;
}

static void
ct_model_compare_window_init (CtModelCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *scroller = gtk_scrolled_window_new ();

  self->blob_names = g_ptr_array_new_with_free_func (g_free);
  gtk_window_set_default_size (GTK_WINDOW (self), 1100, 720);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  self->status = gtk_label_new (_("Comparing…"));
  gtk_label_set_xalign (GTK_LABEL (self->status), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->status), TRUE);
  self->grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 12);
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 4);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->grid);
  gtk_widget_set_size_request (scroller, -1, 120);
  gtk_paned_set_start_child (GTK_PANED (paned), scroller);
  gtk_paned_set_end_child (GTK_PANED (paned), build_blob_panel (self));
  gtk_paned_set_position (GTK_PANED (paned), 220);
  gtk_widget_set_vexpand (paned, TRUE);
  gtk_box_append (GTK_BOX (box), self->status);
  gtk_box_append (GTK_BOX (box), build_legend (self));
  gtk_box_append (GTK_BOX (box), paned);
  gtk_window_set_child (GTK_WINDOW (self), box);
}

static void
ct_model_compare_window_finalize (GObject *object)
{
  CtModelCompareWindow *self = CT_MODEL_COMPARE_WINDOW (object);

  g_clear_pointer (&self->diff, ct_model_diff_free);
  if (self->a != NULL)
    protobuf_c_message_free_unpacked (&self->a->base, NULL);
  if (self->b != NULL)
    protobuf_c_message_free_unpacked (&self->b->base, NULL);
  g_clear_pointer (&self->layers, g_ptr_array_unref);
  g_ptr_array_unref (self->blob_names);
  G_OBJECT_CLASS (ct_model_compare_window_parent_class)->finalize (object);
}

static void
ct_model_compare_window_class_init (CtModelCompareWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ct_model_compare_window_finalize;
  signals[SIGNAL_COMPARED] =
    g_signal_new ("compared", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_CLEAR_MARKS] =
    g_signal_new ("clear-marks", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);
}

CtModelCompareWindow *
ct_model_compare_window_new (GtkWindow *parent, const char *first, const char *second)
{
  CtModelCompareWindow *self =
    g_object_new (CT_TYPE_MODEL_COMPARE_WINDOW, "transient-for", parent, NULL);
  g_autofree char *a = g_path_get_basename (first);
  g_autofree char *b = g_path_get_basename (second);
  g_autofree char *title = g_strdup_printf (_("%s against %s"), b, a);
  g_autoptr (GTask) task = g_task_new (self, NULL, compare_done, NULL);
  Pair *pair = g_new0 (Pair, 1);

  gtk_window_set_title (GTK_WINDOW (self), title);
  pair->a = g_strdup (first);
  pair->b = g_strdup (second);
  g_task_set_task_data (task, pair, pair_free);
  g_task_run_in_thread (task, compare_thread);
  return self;
}

const CtModelDiff *
ct_model_compare_window_get_diff (CtModelCompareWindow *self)
{
  return self->diff;
}

const GPtrArray *
ct_model_compare_window_get_layers (CtModelCompareWindow *self)
{
  return self->layers;
}

gboolean
ct_model_compare_window_select_layer (CtModelCompareWindow *self, const char *layer)
{
  g_autofree char *key = g_strdup_printf ("%s\n0", layer);

  for (guint i = 0; i < self->blob_names->len; i++)
    if (g_strcmp0 (self->blob_names->pdata[i], key) == 0)
      {
        gtk_drop_down_set_selected (GTK_DROP_DOWN (self->blob_dropdown), i);
        return TRUE;
      }
  return FALSE;
}

const char *
ct_model_compare_window_get_changes_text (CtModelCompareWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->changes));
}

GtkWidget *
ct_model_compare_window_get_view (CtModelCompareWindow *self, guint which)
{
  g_return_val_if_fail (which < 3, NULL);
  return self->views[which];
}
