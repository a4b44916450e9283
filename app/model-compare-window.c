/* model-compare-window.c: CtModelCompareWindow. The two caffemodels are
 * read and compared on a worker thread (analysis/model-diff.h); the
 * window lists every parameter blob, the most changed first, with its
 * relative change as a bar and in numbers, then the blobs whose shapes
 * differ and the layers only one model has. */
#include <glib/gi18n-lib.h>

#include "model-compare-window.h"
#include "model-diff.h"

struct _CtModelCompareWindow {
  GtkWindow parent_instance;

  CtModelDiff *diff;
  GtkWidget *status, *grid;
};

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
  CtModelDiff *diff = ct_model_diff_files (p->a, p->b, &error);

  if (diff == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, diff, (GDestroyNotify) ct_model_diff_free);
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

/* One row: layer, blob, shape, a bar of ‖Δw‖/‖w‖ (full at 1), the ratio
 * and the largest change of one value. */
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

  gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), MIN (d->relative, 1.0));
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

static void
compare_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtModelCompareWindow *self = CT_MODEL_COMPARE_WINDOW (source);
  g_autoptr (GError) error = NULL;

  self->diff = g_task_propagate_pointer (G_TASK (result), &error);
  if (self->diff == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Could not compare the models: %s"),
                                               error->message);

      gtk_label_set_text (GTK_LABEL (self->status), text);
      return;
    }
  show_diff (self);
}

static void
ct_model_compare_window_init (CtModelCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (self), 760, 520);
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
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (box), self->status);
  gtk_box_append (GTK_BOX (box), scroller);
  gtk_window_set_child (GTK_WINDOW (self), box);
}

static void
ct_model_compare_window_finalize (GObject *object)
{
  CtModelCompareWindow *self = CT_MODEL_COMPARE_WINDOW (object);

  g_clear_pointer (&self->diff, ct_model_diff_free);
  G_OBJECT_CLASS (ct_model_compare_window_parent_class)->finalize (object);
}

static void
ct_model_compare_window_class_init (CtModelCompareWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ct_model_compare_window_finalize;
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
