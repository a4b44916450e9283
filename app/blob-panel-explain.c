/* blob-panel-explain.c: a click on a value of the blob panel's heatmap
 * opens, under the heatmap, a section that says where the value comes from
 * (app/run/explain.h):
 * the rule, the sum written out with the actual numbers, the window read
 * outlined on the bottom blob and on the net's input, the filter, and a
 * sentence on what it means. The explanation is computed from the run
 * snapshot the panel shows, on the main thread: it reads one window, one
 * row of weights, or one softmax, never a whole layer. */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "blob-panel-private.h"
#include "explain-snapshot.h"
#include "legend.h"

struct _CtBlobExplain {
  GtkWidget *view;          /* the section, a child of the panel */
  GtkWidget *title, *rule, *sum, *note, *error, *close;
  GtkWidget *window_label, *window_area;  /* the bottom, the window outlined */
  GtkWidget *input_label, *input_area;    /* the net's input, the field outlined */
  GtkWidget *filter_label, *filter_area;  /* the filter */
  CtExplainSnapshotLayer *input;
  CtValueExplanation *explanation;
  /* what the areas draw: one channel each, and its box */
  CtHeatmap *window_map, *input_map, *filter_map;
  CtExplainBox window_box, input_box;
};

static void
explain_clear (CtBlobExplain *x)
{
  g_clear_pointer (&x->explanation, ct_value_explanation_free);
  g_clear_pointer (&x->input, ct_explain_snapshot_layer_free);
}

/* One channel of ARRAY (item N, channel C) into MAP; FALSE when there is
 * none to show. */
static gboolean
set_channel (CtHeatmap *map, const CtExplainArray *array, const float *values, gint64 n,
             gint64 c)
{
  gint64 dims[4] = { 1, 1, 0, 0 }, plane;
  g_autoptr (GBytes) bytes = NULL;

  if (values == NULL || array->n_axes != 4 || n >= array->dims[0] || c >= array->dims[1])
    return FALSE;
  dims[2] = array->dims[2];
  dims[3] = array->dims[3];
  plane = dims[2] * dims[3];
  bytes = g_bytes_new (values + (n * array->dims[1] + c) * plane, plane * sizeof (float));
  return ct_heatmap_set_data (map, bytes, dims, 4, NULL);
}

static void
draw_map (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CtBlobExplain *x = data;
  GtkWidget *widget = GTK_WIDGET (area);
  CtHeatmap *map = widget == x->window_area ? x->window_map
                   : widget == x->input_area ? x->input_map : x->filter_map;
  const CtExplainBox *box = widget == x->window_area ? &x->window_box
                            : widget == x->input_area ? &x->input_box : NULL;
  CtHeatmapLayout layout;

  if (!ct_heatmap_has_data (map))
    return;
  ct_heatmap_draw (map, cr, width, height);
  if (box == NULL)
    return;
  ct_heatmap_get_layout (map, width, height, &layout);
  /* the window read, outlined twice (dark, then bright) to show on any
   * colour */
  for (int pass = 0; pass < 2; pass++)
    {
      gint64 w1 = MIN (box->w_end, ct_heatmap_get_shape (map)->w);
      gint64 h1 = MIN (box->h_end, ct_heatmap_get_shape (map)->h);

      cairo_set_line_width (cr, pass == 0 ? 4 : 2);
      if (pass == 0)
        cairo_set_source_rgb (cr, 0, 0, 0);
      else
        cairo_set_source_rgb (cr, 1, 0.85, 0);
      cairo_rectangle (cr, layout.x + box->w_begin * layout.cell_w,
                       layout.y + box->h_begin * layout.cell_h,
                       (w1 - box->w_begin) * layout.cell_w, (h1 - box->h_begin) * layout.cell_h);
      cairo_stroke (cr);
    }
}

static GtkWidget *
add_label (GtkWidget *box, const char *css)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 56);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  gtk_box_append (GTK_BOX (box), label);
  return label;
}

static GtkWidget *
add_area (CtBlobExplain *x, GtkWidget *box, const char *name)
{
  GtkWidget *area = gtk_drawing_area_new ();

  gtk_widget_set_size_request (area, 150, 150);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_map, x, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (area), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_box_append (GTK_BOX (box), area);
  return area;
}

static GtkWidget *
picture_column (GtkWidget *row, GtkWidget **label)
{
  GtkWidget *column = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);

  *label = gtk_label_new (NULL);
  gtk_widget_add_css_class (*label, "caption");
  gtk_label_set_wrap (GTK_LABEL (*label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (*label), 20);
  gtk_box_append (GTK_BOX (column), *label);
  gtk_box_append (GTK_BOX (row), column);
  return column;
}

static void
close_clicked (GtkButton *button, CtBlobExplain *x)
{
  gtk_widget_set_visible (x->view, FALSE);
}

static void
build (CtBlobExplain *x)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *pictures = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *close = gtk_button_new_from_icon_name ("window-close-symbolic");

  x->close = close;

  x->view = gtk_frame_new (NULL);
  gtk_widget_set_name (x->view, "blob-explain");
  gtk_accessible_update_property (GTK_ACCESSIBLE (x->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Where this value comes from"), -1);
  gtk_box_append (GTK_BOX (box), header);
  x->title = add_label (header, "heading");
  gtk_widget_set_hexpand (x->title, TRUE);
  gtk_widget_add_css_class (close, "flat");
  gtk_widget_set_valign (close, GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (close, _("Close the Explanation"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (close), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Close the Explanation"), -1);
  g_signal_connect (close, "clicked", G_CALLBACK (close_clicked), x);
  gtk_box_append (GTK_BOX (header), close);
  x->error = add_label (box, NULL);
  x->rule = add_label (box, NULL);
  x->sum = add_label (box, "monospace");
  gtk_accessible_update_property (GTK_ACCESSIBLE (x->sum), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The sum with the actual numbers"), -1);
  gtk_box_append (GTK_BOX (box), pictures);
  x->window_area = add_area (x, picture_column (pictures, &x->window_label),
                             _("The window read, on the bottom blob"));
  x->filter_area = add_area (x, picture_column (pictures, &x->filter_label), _("The filter"));
  x->input_area = add_area (x, picture_column (pictures, &x->input_label),
                            _("The receptive field, on the net's input"));
  x->note = add_label (box, "dim-label");
  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  gtk_frame_set_child (GTK_FRAME (x->view), box);
  gtk_widget_set_visible (x->view, FALSE);
  x->window_map = ct_heatmap_new ();
  x->input_map = ct_heatmap_new ();
  x->filter_map = ct_heatmap_new ();
}

/* The values of the net's input blob NAME, when the snapshot kept them. */
static const CtRunVersion *
input_version (CtRunSnapshot *snapshot, const char *name)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, name);

  if (blob == NULL || blob->versions == NULL || blob->versions->len == 0)
    return NULL;
  return g_ptr_array_index (blob->versions, 0);
}

static char *
box_text (const CtExplainBox *b)
{
  /* TRANSLATORS: a window on a blob, half-open ranges: rows 10–15, columns 10–15 */
  return g_strdup_printf (_("rows %d–%d, columns %d–%d"), (int) b->h_begin, (int) b->h_end - 1,
                          (int) b->w_begin, (int) b->w_end - 1);
}

static void
show_pictures (CtBlobPanel *panel, CtBlobExplain *x)
{
  const CtValueExplanation *e = x->explanation;
  const CtExplainLayer *layer = ct_explain_snapshot_layer_get (x->input);
  gboolean window = FALSE, filter = FALSE, input = FALSE;

  if (e->has_window && e->bottom_index < layer->n_bottoms)
    {
      const CtExplainArray *bottom = &layer->bottoms[e->bottom_index];
      g_autofree char *where = box_text (&e->window);

      window = set_channel (x->window_map, bottom, bottom->data, e->window.n, e->window.c_begin);
      x->window_box = e->window;
      /* TRANSLATORS: "data, channel 0: rows 10–14, columns 10–14" */
      g_autofree char *text = g_strdup_printf (_("%s, channel %d: %s"), bottom->name,
                                               (int) e->window.c_begin, where);
      gtk_label_set_text (GTK_LABEL (x->window_label), text);
    }
  if (e->filter >= 0 && layer->n_params > 0)
    {
      g_autofree char *text = g_strdup_printf (_("filter %d"), (int) e->filter);

      filter = set_channel (x->filter_map, &layer->params[0], layer->params[0].data, e->filter,
                            0);
      gtk_label_set_text (GTK_LABEL (x->filter_label), text);
    }
  if (e->has_input_window && e->bottom_index < layer->n_bottoms
      && g_strcmp0 (e->input_blob, layer->bottoms[e->bottom_index].name) != 0)
    {
      const CtRunVersion *v = input_version (panel->snapshot, e->input_blob);
      g_autofree char *where = box_text (&e->input_window);
      g_autofree char *text = g_strdup_printf (_("%s (the net's input): %s"), e->input_blob,
                                               where);

      if (v != NULL)
        {
          CtExplainArray a = { e->input_blob, v->n_axes, v->dims,
                               g_bytes_get_data (v->data, NULL), NULL };

          input = set_channel (x->input_map, &a, a.data, e->window.n, 0);
        }
      x->input_box = e->input_window;
      gtk_label_set_text (GTK_LABEL (x->input_label), text);
      gtk_widget_set_visible (gtk_widget_get_parent (x->input_label), TRUE);
    }
  else
    gtk_widget_set_visible (gtk_widget_get_parent (x->input_label), FALSE);
  gtk_widget_set_visible (gtk_widget_get_parent (x->window_label), window);
  gtk_widget_set_visible (gtk_widget_get_parent (x->filter_label), filter);
  gtk_widget_set_visible (x->input_area, input);
  gtk_widget_queue_draw (x->window_area);
  gtk_widget_queue_draw (x->filter_area);
  gtk_widget_queue_draw (x->input_area);
}

static void
show_error (CtBlobExplain *x, const char *title, const char *message)
{
  gtk_label_set_text (GTK_LABEL (x->title), title);
  gtk_label_set_text (GTK_LABEL (x->error), message);
  gtk_widget_set_visible (x->error, TRUE);
  for (GtkWidget *w = gtk_widget_get_next_sibling (x->error); w != NULL;
       w = gtk_widget_get_next_sibling (w))
    gtk_widget_set_visible (w, FALSE);
}

static void
show (CtBlobPanel *panel, CtBlobExplain *x)
{
  const CtValueExplanation *e = x->explanation;
  g_autofree char *at = ct_explain_index_text (e->index, e->n_axes);
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *title = NULL;

  ct_explain_number (value, e->value);
  title = e->diff ? g_strdup_printf ("∂L/∂%s%s = %s", e->blob, at, value)
                  : g_strdup_printf ("%s%s = %s", e->blob, at, value);
  gtk_label_set_text (GTK_LABEL (x->title), title);
  gtk_widget_set_visible (x->error, FALSE);
  for (GtkWidget *w = gtk_widget_get_next_sibling (x->error); w != NULL;
       w = gtk_widget_get_next_sibling (w))
    gtk_widget_set_visible (w, TRUE);
  gtk_label_set_text (GTK_LABEL (x->rule), e->rule);
  gtk_label_set_text (GTK_LABEL (x->sum), e->sum);
  gtk_label_set_text (GTK_LABEL (x->note), e->note);
  show_pictures (panel, x);
}

/* Which layer made what the panel shows at its current item, and the
 * index of the blob among that layer's tops (or, for a diff, bottoms). */
static int
maker (CtBlobPanel *panel, gboolean diff, guint *slot, GError **error)
{
  const Item *item = &g_array_index (panel->items, Item, panel->item);
  const CtRunBlob *blob;
  const CtRunVersion *version = NULL;
  int layer;

  if (item->kind == ITEM_PARAM)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("Weights are learned, not computed from other values: the "
                             "solver changes them by their diffs."));
      return -1;
    }
  blob = ct_run_snapshot_get_blob (panel->snapshot, item->blob);
  if (blob->versions != NULL && blob->versions->len > 0)
    version = g_ptr_array_index (blob->versions, MIN (panel->version, blob->versions->len - 1));
  if (diff)
    layer = ct_explain_snapshot_diff_maker (panel->snapshot, item->blob, version, slot);
  else
    {
      const CtRunLayer *l;

      layer = version != NULL ? version->layer_index : -1;
      if (layer >= 0)
        {
          l = ct_run_snapshot_get_layer (panel->snapshot, (guint) layer);
          for (guint t = 0; t < l->n_tops; t++)
            if (l->tops[t] == item->blob)
              *slot = t;
          if (l->n_bottoms == 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("%s is given to the net by %s, not computed: it is where the "
                             "pass starts."), blob->name, l->name);
              return -1;
            }
        }
    }
  if (layer < 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 diff ? _("No layer sends a diff back into %s.")
                      : _("No layer of this run made %s yet."), blob->name);
  return layer;
}

gboolean
ct_blob_panel_explain_at (CtBlobPanel *panel, gboolean diff, gsize flat, GError **error)
{
  CtBlobExplain *x = panel->explain;
  const Item *item;
  const CtRunBlob *blob;
  const CtRunVersion *version;
  const Caffe__NetParameter *net = panel->document != NULL
                                   ? ct_document_get_net (panel->document) : NULL;
  gint64 index[CT_EXPLAIN_MAX_AXES] = { 0 };
  guint slot = 0;
  int layer;

  explain_clear (x);
  if (panel->snapshot == NULL || panel->item >= panel->items->len)
    return g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                _("Step the net first: there are no values yet.")), FALSE;
  layer = maker (panel, diff, &slot, error);
  if (layer < 0)
    return FALSE;
  item = &g_array_index (panel->items, Item, panel->item);
  blob = ct_run_snapshot_get_blob (panel->snapshot, item->blob);
  version = g_ptr_array_index (blob->versions, MIN (panel->version, blob->versions->len - 1));
  if (version->n_axes > CT_EXPLAIN_MAX_AXES)
    return g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                _("Only blobs of up to 4 axes are explained.")), FALSE;
  for (int a = (int) version->n_axes - 1; a >= 0; a--)
    {
      index[a] = (gint64) (flat % (gsize) version->dims[a]);
      flat /= (gsize) version->dims[a];
    }
  x->input = ct_explain_snapshot_layer_new (panel->snapshot, (guint) layer, net, error);
  if (x->input == NULL)
    return FALSE;
  x->explanation = ct_explain_value (ct_explain_snapshot_layer_get (x->input), slot, index,
                                     version->n_axes, diff, error);
  return x->explanation != NULL;
}

/* Scroll the inspector so that the section shows, once it has its size. */
static gboolean
reveal (gpointer data)
{
  GtkWidget *view = data;
  GtkWidget *scroller = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *child;
  graphene_rect_t bounds;
  GtkAdjustment *adj;

  if (scroller != NULL && gtk_widget_get_mapped (view)
      && (child = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller))) != NULL
      /* the viewport's coordinates move with the scroll; its child's do not */
      && (!GTK_IS_VIEWPORT (child) || (child = gtk_viewport_get_child (GTK_VIEWPORT (child))) != NULL)
      && gtk_widget_compute_bounds (view, child, &bounds))
    {
      adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
      /* its top at the top: the sum and the pictures follow it */
      gtk_adjustment_set_value (adj, bounds.origin.y - 6);
    }
  g_object_unref (view);
  return G_SOURCE_REMOVE;
}

static void
value_activated (CtHeatmapView *view, int n, int c, int h, int w, double px, double py,
                 CtBlobPanel *panel)
{
  CtBlobExplain *x = panel->explain;
  const CtHeatmapShape *shape = ct_heatmap_get_shape (ct_heatmap_view_get_heatmap (view));
  gboolean diff = GTK_WIDGET (view) == panel->diff_heatmap || panel->diff;
  gsize flat = (((gsize) n * shape->c + c) * shape->h + h) * shape->w + w;
  g_autoptr (GError) error = NULL;

  if (ct_blob_panel_explain_at (panel, diff, flat, &error))
    show (panel, x);
  else
    show_error (x, _("Where this value comes from"), error->message);
  gtk_widget_set_visible (x->view, TRUE);
  /* keyboard users continue in the section (and the inspector's viewport
   * scrolls to it); the scroll again after the layout that gives it its
   * size */
  gtk_widget_grab_focus (x->close);
  g_timeout_add_full (G_PRIORITY_LOW, 100, reveal, g_object_ref (x->view), NULL);
  g_timeout_add_full (G_PRIORITY_LOW, 400, reveal, g_object_ref (x->view), NULL);
}

const CtValueExplanation *
ct_blob_panel_get_explanation (CtBlobPanel *panel)
{
  return panel->explain != NULL ? panel->explain->explanation : NULL;
}

GtkWidget *
ct_blob_panel_get_explain_view (CtBlobPanel *panel)
{
  return panel->explain != NULL ? panel->explain->view : NULL;
}

/* The panel's child that holds WIDGET. */
static GtkWidget *
panel_child (CtBlobPanel *panel, GtkWidget *widget)
{
  while (widget != NULL && gtk_widget_get_parent (widget) != GTK_WIDGET (panel))
    widget = gtk_widget_get_parent (widget);
  return widget;
}

void
ct_blob_panel_explain_init (CtBlobPanel *panel)
{
  CtBlobExplain *x = g_new0 (CtBlobExplain, 1);
  GtkWidget *legend = ct_legend_button_new (CT_LEGEND_HEATMAP);

  panel->explain = x;
  build (x);
  g_signal_connect (panel->heatmap, "value-activated", G_CALLBACK (value_activated), panel);
  g_signal_connect (panel->diff_heatmap, "value-activated", G_CALLBACK (value_activated), panel);
  /* right under the heatmaps */
  gtk_widget_insert_after (x->view, GTK_WIDGET (panel), panel_child (panel, panel->heatmap));
  /* the colour legend beside the colour map's choice */
  gtk_widget_insert_after (legend, gtk_widget_get_parent (panel->scale_dropdown),
                           panel->scale_dropdown);
  /* and how to read the gradients' health (the graph's strips, the
   * training's ratios) beside the data / diff switch */
  legend = ct_legend_button_new (CT_LEGEND_HEALTH);
  gtk_widget_insert_after (legend, gtk_widget_get_parent (panel->diff_button), panel->diff_button);
}

void
ct_blob_panel_explain_dispose (CtBlobPanel *panel)
{
  CtBlobExplain *x = panel->explain;

  if (x == NULL)
    return;
  explain_clear (x);
  g_clear_pointer (&x->window_map, ct_heatmap_free);
  g_clear_pointer (&x->input_map, ct_heatmap_free);
  g_clear_pointer (&x->filter_map, ct_heatmap_free);
  g_free (x);
  panel->explain = NULL;
}
