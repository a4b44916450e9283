/* blob-panel.c: CtBlobPanel, the inspector's "looking inside" panel
 * (its widgets in blob-panel.ui): for the layer
 * selected, what the last run snapshot holds of it: its tops, its bottoms
 * (their diffs after backward) and its parameters, one at a time; for a
 * blob selected (an edge of the graph, blob-panel-edge.c), that blob
 * alone, in the version its edge carries. For the
 * item chosen the panel shows its shape, the version of an in-place blob
 * (conv1 "after conv1" and "after relu1"), its data or diff, a heatmap
 * with a sample picker, colour map and scale mode, the value under the
 * pointer, statistics as text labels and a histogram, and for a classifier
 * output (N, K) the top five classes named by the labels.txt beside the
 * net. What is shown can be exported as PNG, .npy and CSV. What the
 * template leaves to code is filled in blob-panel-parts.c.
 *
 * The window's run (window-run.c) hands each snapshot to
 * ct_blob_panel_show_snapshot(); the panel keeps a reference to the last
 * one and rebuilds from it when the snapshot or the selection changes.
 * Everything here runs on the main thread and only reads the snapshot.
 *
 * Numbers are written as the heatmap's pointer text writes them: "%.6g" in
 * the C locale, so that what the labels say matches the `(n, c, h, w) = v`
 * line and the files exported. */
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "blob-panel-private.h"

static void rebuild (CtBlobPanel *panel);
static void show_item (CtBlobPanel *panel);
static void finish_rebuild (CtBlobPanel *panel, GPtrArray *labels, gboolean same_layer,
                            Item old_item, guint blob_version);

static char *
shape_text (const gint64 *dims, guint n_axes)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n_axes; i++)
    g_string_append_printf (out, i > 0 ? " × %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT,
                            dims[i]);
  if (n_axes == 0)
    g_string_append (out, _("scalar"));
  return g_string_free (out, FALSE);
}

/* The snapshot's layer for the window's selection: one layer selected (a
 * folded in-place layer is selected by its own name). */
static int
selected_layer (CtBlobPanel *panel)
{
  const Caffe__NetParameter *net;
  const char *const *ids;
  const char *name = NULL;

  if (panel->snapshot == NULL || panel->document == NULL || panel->selection == NULL)
    return -1;
  net = ct_document_get_net (panel->document);
  ids = ct_selection_get_ids (panel->selection);
  if (net == NULL)
    return -1;
  for (guint i = 0; ids[i] != NULL; i++)
    {
      int layer = ct_blob_panel_layer_for_id (panel, ids[i]);

      if (layer < 0 || (gsize) layer >= net->n_layer)
        continue;
      if (name != NULL)
        return -1;
      name = net->layer[layer]->name;
    }
  if (name == NULL)
    return -1;
  for (guint i = 0; i < ct_run_snapshot_n_layers (panel->snapshot); i++)
    if (g_strcmp0 (ct_run_snapshot_get_layer (panel->snapshot, i)->name, name) == 0)
      return (int) i;
  return -1;
}

static const CtRunBlob *
item_blob (CtBlobPanel *panel, const Item *item)
{
  return item->kind == ITEM_PARAM ? NULL : ct_run_snapshot_get_blob (panel->snapshot, item->blob);
}

static const CtRunParam *
item_param (CtBlobPanel *panel, const Item *item)
{
  const CtRunLayer *layer;

  /* a blob selected alone has no layer, and no parameters */
  if (item->kind != ITEM_PARAM || panel->layer < 0)
    return NULL;
  layer = ct_run_snapshot_get_layer (panel->snapshot, (guint) panel->layer);
  return g_ptr_array_index (layer->params, item->param);
}

static const CtRunVersion *
item_version (CtBlobPanel *panel, const Item *item)
{
  const CtRunBlob *blob = item_blob (panel, item);

  if (blob == NULL || blob->versions == NULL || blob->versions->len == 0)
    return NULL;
  return g_ptr_array_index (blob->versions, MIN (panel->version, blob->versions->len - 1));
}

/* Whether the item has a diff to show. */
static gboolean
item_has_diff (CtBlobPanel *panel, const Item *item)
{
  const CtRunVersion *version = item_version (panel, item);
  const CtRunParam *param = item_param (panel, item);
  const CtRunBlob *blob;

  if (param != NULL)
    return param->diff_stats != NULL;
  if (version != NULL)
    return version->diff_stats != NULL;
  blob = item_blob (panel, item);
  return blob != NULL && blob->has_diff;
}

static Shown
item_shown (CtBlobPanel *panel, const Item *item, gboolean diff)
{
  const CtRunParam *param = item_param (panel, item);
  const CtRunVersion *version = item_version (panel, item);
  const CtRunBlob *blob = item_blob (panel, item);
  Shown shown = { 0 };

  if (param != NULL)
    {
      shown.name = param->name;
      shown.n_axes = param->n_axes;
      shown.dims = param->dims;
      shown.values = diff ? param->diff : param->data;
      shown.stats = diff ? param->diff_stats : param->data_stats;
    }
  else if (version != NULL && blob != NULL)
    {
      shown.name = blob->name;
      shown.n_axes = version->n_axes;
      shown.dims = version->dims;
      shown.values = diff ? version->diff : version->data;
      shown.stats = diff ? version->diff_stats : version->data_stats;
    }
  else if (blob != NULL)
    {
      shown.name = blob->name;
      shown.n_axes = blob->n_axes;
      shown.dims = blob->dims;
      shown.stats = diff ? blob->diff_stats : blob->data_stats;
    }
  return shown;
}

/* The colour map by sign: diverging for diffs and signed values. */
static CtColormap
default_colormap (const Shown *shown, gboolean diff)
{
  if (diff || shown->stats == NULL || shown->stats->stats.min < 0)
    return CT_COLORMAP_DIVERGING;
  return CT_COLORMAP_VIRIDIS;
}

/* Filters (K, 1, h, w) as one grid of K tiles; (K, 3, h, w) in colour. */
static void
display_dims (const Shown *shown, const Item *item, gint64 *dims, guint *n_axes)
{
  memcpy (dims, shown->dims, MIN (shown->n_axes, CT_HEATMAP_MAX_DIMS) * sizeof (gint64));
  *n_axes = MIN (shown->n_axes, CT_HEATMAP_MAX_DIMS);
  if (item->kind == ITEM_PARAM && *n_axes == 4 && dims[1] == 1)
    {
      dims[1] = dims[0];
      dims[0] = 1;
    }
}

/* "conv1", or "conv1 weights (0)" for a parameter. */
static char *
item_title (CtBlobPanel *panel, const Item *item)
{
  const char *layer;

  if (item->kind != ITEM_PARAM)
    return g_strdup (panel->shown.name);
  layer = ct_run_snapshot_get_layer (panel->snapshot, (guint) panel->layer)->name;
  /* TRANSLATORS: a layer's parameter blob: "conv1 weights (0)", "conv1 bias (1)" */
  return g_strdup_printf (item->param == 0 ? _("%s weights (%s)")
                          : item->param == 1 ? _("%s bias (%s)") : _("%s parameter %s"),
                          layer, panel->shown.name);
}

/* Show SHOWN (values present) in VIEW, its map by sign when DEFAULT_MAP. */
static void
set_view (CtBlobPanel *panel, CtHeatmapView *view, const Item *item, const Shown *shown,
          gboolean diff, const char *name, gboolean default_map)
{
  gint64 dims[CT_HEATMAP_MAX_DIMS];
  guint n_axes;
  g_autoptr (GError) error = NULL;
  /* TRANSLATORS: the heatmap's blob name when it shows the gradient */
  g_autofree char *full = diff ? g_strdup_printf (_("%s (diff)"), name) : g_strdup (name);

  display_dims (shown, item, dims, &n_axes);
  /* a channel zoomed into belongs to the blob it was picked in */
  if (g_strcmp0 (ct_heatmap_view_get_blob_name (view), full) != 0)
    ct_heatmap_view_set_zoom_channel (view, -1);
  if (default_map)
    ct_heatmap_view_set_colormap (view, default_colormap (shown, diff));
  ct_heatmap_view_set_blob_name (view, full);
  if (!ct_heatmap_view_set_data (view, shown->values, dims, n_axes, &error))
    {
      gtk_widget_set_visible (panel->view_box, FALSE);
      gtk_label_set_text (GTK_LABEL (panel->status), error->message);
      gtk_widget_set_visible (panel->status, TRUE);
    }
  /* The kind always by the item: a kind chosen for one blob (RGB filters,
   * bars) would otherwise stay while it fits the next. */
  else if (item->kind == ITEM_PARAM && n_axes == 4 && dims[1] == 3)
    ct_heatmap_view_set_kind (view, CT_HEATMAP_RGB);
  else if (n_axes == 2)
    ct_heatmap_view_set_kind (view, panel->bars ? CT_HEATMAP_BARS : CT_HEATMAP_MATRIX);
  else
    ct_heatmap_view_set_kind (view, n_axes == 1 ? CT_HEATMAP_BARS : CT_HEATMAP_GRID);
}

static gboolean
same_versions (CtBlobPanel *panel, const CtRunBlob *blob)
{
  GListModel *names = G_LIST_MODEL (panel->version_names);
  guint n = blob != NULL && blob->versions != NULL ? blob->versions->len : 0;

  if (g_list_model_get_n_items (names) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (gtk_string_list_get_string (panel->version_names, i),
                   ((CtRunVersion *) g_ptr_array_index (blob->versions, i))->label) != 0)
      return FALSE;
  return TRUE;
}

/* Why versions of BLOB are missing, when some are: the history budget
 * was spent, or the blob was not watched (shown) while the layers writing
 * it in place ran, so that only its present version was copied. */
static void
update_history_note (CtBlobPanel *panel, const CtRunBlob *blob)
{
  guint writers = 0;
  const char *note = NULL;

  if (blob != NULL && blob->versions != NULL && blob->versions->len > 0)
    for (guint i = 0; i < ct_run_snapshot_n_layers (panel->snapshot); i++)
      {
        const CtRunLayer *layer = ct_run_snapshot_get_layer (panel->snapshot, i);

        for (guint t = 0; layer->state != CT_RUN_LAYER_PENDING && t < layer->n_tops; t++)
          writers += ct_run_snapshot_get_blob (panel->snapshot, layer->tops[t]) == blob;
      }
  if (blob != NULL && blob->history_cut)
    note = _("Some earlier versions of this blob were not kept: the run’s history budget is "
             "spent.");
  else if (blob != NULL && blob->versions != NULL && blob->versions->len > 0
           && blob->versions->len < writers)
    note = _("Earlier versions of this blob were not kept: it was not shown while they were "
             "computed. Reset the run (Shift+F5) and step again to see them.");
  gtk_label_set_text (GTK_LABEL (panel->history_label), note != NULL ? note : "");
  gtk_widget_set_visible (panel->history_label, note != NULL);
}

static void
show_item (CtBlobPanel *panel)
{
  CtHeatmapView *view = CT_HEATMAP_VIEW (panel->heatmap);
  const Item *item;
  const CtRunBlob *blob;
  const CtRunVersion *version;
  g_autofree char *shape = NULL;
  g_autofree char *title = NULL;
  g_autofree char *name = NULL;
  gboolean has_diff;
  gboolean drawn;

  if (panel->items->len == 0)
    return;
  item = &g_array_index (panel->items, Item, panel->item);
  blob = item_blob (panel, item);
  version = item_version (panel, item);
  has_diff = item_has_diff (panel, item);
  if (!has_diff)
    panel->diff = FALSE;

  panel->updating = TRUE;
  /* Versions of an in-place blob; the list is left alone when it says
   * the same (it may be the dropdown's own change that brought us here). */
  if (!same_versions (panel, blob))
    {
      gtk_string_list_splice (panel->version_names, 0,
                              g_list_model_get_n_items (G_LIST_MODEL (panel->version_names)),
                              NULL);
      if (blob != NULL && blob->versions != NULL)
        for (guint i = 0; i < blob->versions->len; i++)
          gtk_string_list_append (panel->version_names,
                                  ((CtRunVersion *) g_ptr_array_index (blob->versions, i))->label);
    }
  gtk_widget_set_visible (panel->version_dropdown,
                          blob != NULL && blob->versions != NULL && blob->versions->len > 1);
  if (version != NULL)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (panel->version_dropdown),
                                MIN (panel->version, blob->versions->len - 1));
  update_history_note (panel, blob);
  gtk_widget_set_sensitive (panel->diff_button, has_diff);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel->diff ? panel->diff_button
                                                               : panel->data_button), TRUE);

  panel->shown = item_shown (panel, item, panel->diff);
  shape = shape_text (panel->shown.dims, panel->shown.n_axes);
  name = item_title (panel, item);
  /* TRANSLATORS: the blob shown and its shape: "conv1: 2 × 20 × 24 × 24" */
  title = g_strdup_printf (_("%s: %s"), name, shape);
  gtk_label_set_text (GTK_LABEL (panel->shape_label), title);

  if (panel->shown.stats == NULL)
    gtk_label_set_text (GTK_LABEL (panel->status),
                        _("Not computed yet in this pass: step the run."));
  else if (panel->shown.values == NULL)
    gtk_label_set_text (GTK_LABEL (panel->status),
                        _("Only statistics: the run copies the values of the selected layer."));
  gtk_widget_set_visible (panel->status,
                          panel->shown.stats == NULL || panel->shown.values == NULL);

  /* Wide enough: the data at the left, the diff at the right; the toggle
   * still picks the statistics and what is exported. */
  /* A single value (a loss) is all in its statistics: no heatmap. */
  drawn = panel->shown.values != NULL && g_bytes_get_size (panel->shown.values) > sizeof (float);
  panel->side_by_side = panel->wide && has_diff && drawn;
  gtk_widget_set_visible (panel->view_box, drawn);
  gtk_widget_set_visible (panel->diff_heatmap, panel->side_by_side);
  /* Vectors and matrices (InnerProduct, Softmax): bars or a matrix. */
  gtk_widget_set_visible (panel->kind_box, drawn && panel->shown.n_axes == 2);
  gtk_widget_set_visible (panel->edge_button, panel->layer >= 0 && item->kind != ITEM_PARAM);
  if (drawn)
    {
      Shown data = item_shown (panel, item, FALSE);
      Shown diff = item_shown (panel, item, TRUE);

      if (panel->side_by_side)
        {
          set_view (panel, CT_HEATMAP_VIEW (panel->heatmap), item, &data, FALSE, name,
                    !panel->user_colormap);
          set_view (panel, CT_HEATMAP_VIEW (panel->diff_heatmap), item, &diff, TRUE, name, TRUE);
        }
      else
        set_view (panel, view, item, &panel->shown, panel->diff, name, !panel->user_colormap);
      gtk_spin_button_set_range (GTK_SPIN_BUTTON (panel->sample_spin), 0,
                                 MAX (ct_heatmap_view_get_n_samples (view) - 1, 0));
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel->bars ? panel->bars_button
                                                                   : panel->matrix_button), TRUE);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (panel->colormap_dropdown),
                                  ct_heatmap_view_get_colormap (view));
    }
  gtk_widget_set_sensitive (panel->export_button, panel->shown.values != NULL);
  panel->updating = FALSE;

  ct_blob_panel_show_stats (panel, panel->shown.stats);
  ct_blob_panel_update_histogram (panel);
  ct_blob_panel_update_top (panel);
}

static void
add_item (CtBlobPanel *panel, GPtrArray *labels, ItemKind kind, guint blob, guint param,
          char *label)
{
  Item item = { kind, blob, param };

  g_array_append_val (panel->items, item);
  g_ptr_array_add (labels, label);
}

/* Replace the chooser's names only when they differ: the chooser keeps its
 * state (an open popover) across the snapshots of a run. */
static void
set_item_names (CtBlobPanel *panel, GPtrArray *labels)
{
  GListModel *names = G_LIST_MODEL (panel->item_names);
  gboolean same = g_list_model_get_n_items (names) == labels->len;

  for (guint i = 0; same && i < labels->len; i++)
    same = g_str_equal (gtk_string_list_get_string (panel->item_names, i),
                        g_ptr_array_index (labels, i));
  if (same)
    return;
  g_ptr_array_add (labels, NULL);
  gtk_string_list_splice (panel->item_names, 0, g_list_model_get_n_items (names),
                          (const char *const *) labels->pdata);
  g_ptr_array_set_size (labels, labels->len - 1);
}

/* The items of the selected layer, and the version that is its output. */
static void
rebuild (CtBlobPanel *panel)
{
  int layer_index = selected_layer (panel);
  guint blob_version = G_MAXUINT;
  /* or the blob of an edge */
  int blob_index = layer_index < 0 ? ct_blob_panel_selected_blob (panel, &blob_version) : -1;
  const CtRunLayer *layer;
  guint old_n = panel->items->len;
  Item old_item = { 0 };
  gboolean same_layer = layer_index >= 0 ? layer_index == panel->layer
                                         : blob_index >= 0 && blob_index == panel->blob;
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);

  if (old_n > 0)
    old_item = g_array_index (panel->items, Item, panel->item);
  panel->layer = layer_index;
  panel->blob = blob_index;
  panel->updating = TRUE;
  g_array_set_size (panel->items, 0);
  panel->shown = (Shown) { 0 };
  gtk_widget_set_visible (GTK_WIDGET (panel), layer_index >= 0 || blob_index >= 0);
  if (blob_index >= 0)
    {
      /* TRANSLATORS: the blob chooser's one item when an edge is selected */
      add_item (panel, labels, ITEM_TOP, (guint) blob_index, 0,
                g_strdup_printf (_("%s (blob)"),
                                 ct_run_snapshot_get_blob (panel->snapshot,
                                                           (guint) blob_index)->name));
      finish_rebuild (panel, labels, same_layer, old_item, blob_version);
      return;
    }
  if (layer_index < 0)
    {
      set_item_names (panel, labels);
      panel->updating = FALSE;
      return;
    }
  layer = ct_run_snapshot_get_layer (panel->snapshot, (guint) layer_index);
  for (guint i = 0; i < layer->n_tops; i++)
    {
      /* TRANSLATORS: an item of the blob chooser: a top blob of the layer */
      g_autofree char *label = g_strdup_printf (_("%s (output)"),
                                                ct_run_snapshot_get_blob (panel->snapshot,
                                                                          layer->tops[i])->name);
      add_item (panel, labels, ITEM_TOP, layer->tops[i], 0, g_steal_pointer (&label));
    }
  for (guint i = 0; i < layer->n_bottoms; i++)
    {
      gboolean in_place = FALSE;

      for (guint j = 0; j < layer->n_tops; j++)
        in_place |= layer->tops[j] == layer->bottoms[i];
      if (!in_place)
        {
          /* TRANSLATORS: an item of the blob chooser: a bottom blob of the layer */
          g_autofree char *label =
            g_strdup_printf (_("%s (input)"),
                             ct_run_snapshot_get_blob (panel->snapshot, layer->bottoms[i])->name);
          add_item (panel, labels, ITEM_BOTTOM, layer->bottoms[i], 0, g_steal_pointer (&label));
        }
    }
  for (guint i = 0; layer->params != NULL && i < layer->params->len; i++)
    {
      const CtRunParam *param = g_ptr_array_index (layer->params, i);
      /* TRANSLATORS: an item of the blob chooser: parameter blob 0 (weights), 1 (bias) */
      g_autofree char *label = g_strdup_printf (i == 0 ? _("Weights (%s)")
                                                : i == 1 ? _("Bias (%s)") : _("Parameter %s"),
                                                param->name);
      add_item (panel, labels, ITEM_PARAM, 0, i, g_steal_pointer (&label));
    }
  finish_rebuild (panel, labels, same_layer, old_item, G_MAXUINT);
}

/* The version of the current item that the selected layer wrote, else
 * G_MAXUINT (the latest). */
static guint
layer_version (CtBlobPanel *panel)
{
  const CtRunBlob *blob = panel->items->len > 0
                            ? item_blob (panel, &g_array_index (panel->items, Item, panel->item))
                            : NULL;

  for (guint i = 0; blob != NULL && blob->versions != NULL && i < blob->versions->len; i++)
    if (((CtRunVersion *) g_ptr_array_index (blob->versions, i))->layer_index == panel->layer)
      return i;
  return G_MAXUINT;
}

/* The rest of rebuild(): the item and version kept for the same layer (or
 * blob) and item kind, else reset to the first item; the blob of an edge
 * in BLOB_VERSION unless the user chose another. */
static void
finish_rebuild (CtBlobPanel *panel, GPtrArray *labels, gboolean same_layer, Item old_item,
                guint blob_version)
{
  if (!same_layer || panel->item >= panel->items->len
      || g_array_index (panel->items, Item, panel->item).kind != old_item.kind)
    {
      panel->item = 0;
      panel->diff = FALSE;
      panel->user_colormap = FALSE;
      panel->user_version = FALSE;
      /* A locked range belongs to one blob. */
      ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->heatmap));
      ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->diff_heatmap));
    }
  /* Until the user picks one, the version follows the run as it steps:
   * an edge's is the one its consumer reads; a layer's the one it wrote
   * ("after relu1" for relu1, "after conv1" for conv1 even once relu1
   * has run), else the latest. */
  if (!panel->user_version)
    panel->version = panel->blob >= 0 ? blob_version : layer_version (panel);
  set_item_names (panel, labels);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (panel->item_dropdown), panel->item);
  gtk_widget_set_visible (panel->item_dropdown, panel->items->len > 1);
  panel->updating = FALSE;
  show_item (panel);
}

void
ct_blob_panel_show_snapshot (CtBlobPanel *panel, CtRunSnapshot *snapshot)
{
  g_return_if_fail (CT_IS_BLOB_PANEL (panel));
  if (snapshot != NULL && (ct_run_snapshot_get_invalidated (snapshot)
                           || ct_run_snapshot_n_layers (snapshot) == 0))
    snapshot = NULL;
  if (snapshot != NULL)
    ct_run_snapshot_ref (snapshot);
  g_clear_pointer (&panel->snapshot, ct_run_snapshot_unref);
  panel->snapshot = snapshot;
  if (snapshot == NULL)
    {
      ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->heatmap));
      ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->diff_heatmap));
    }
  rebuild (panel);
}

/* Data and diff side by side once the window says the panel is wide. */
static gboolean
relayout_now (gpointer data)
{
  CtBlobPanel *panel = data;

  panel->relayout_source = 0;
  if (panel->snapshot != NULL && panel->items->len > 0)
    show_item (panel);
  return G_SOURCE_REMOVE;
}

static void
selection_changed (CtSelection *selection, guint flags, CtBlobPanel *panel)
{
  /* another edge of the same blob may carry another version */
  if (ct_selection_get_blob (selection) != NULL)
    panel->user_version = FALSE;
  rebuild (panel);
}

static void
item_selected (GtkDropDown *dropdown, GParamSpec *pspec, CtBlobPanel *panel)
{
  guint i = gtk_drop_down_get_selected (dropdown);

  if (panel->updating || i >= panel->items->len || i == panel->item)
    return;
  panel->item = i;
  panel->diff = g_array_index (panel->items, Item, i).kind == ITEM_BOTTOM;
  ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->heatmap));
  ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->diff_heatmap));
  panel->user_colormap = FALSE;
  panel->user_version = FALSE;
  panel->version = layer_version (panel);
  show_item (panel);
}

static void
version_selected (GtkDropDown *dropdown, GParamSpec *pspec, CtBlobPanel *panel)
{
  if (panel->updating || gtk_drop_down_get_selected (dropdown) == GTK_INVALID_LIST_POSITION)
    return;
  panel->version = gtk_drop_down_get_selected (dropdown);
  panel->user_version = TRUE;
  show_item (panel);
}

static void
diff_toggled (GtkToggleButton *button, CtBlobPanel *panel)
{
  if (panel->updating || !gtk_toggle_button_get_active (button))
    return;
  panel->diff = GTK_WIDGET (button) == panel->diff_button;
  /* Data and diff have ranges of their own; side by side, each keeps its view. */
  if (!panel->side_by_side)
    ct_heatmap_view_reset_lock (CT_HEATMAP_VIEW (panel->heatmap));
  show_item (panel);
}

/* The widget. */

enum {
  PROP_0,
  PROP_SELECTION,
  PROP_DOCUMENT,
  PROP_WIDE,
  N_PROPS
};

enum {
  SIGNAL_ERROR,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtBlobPanel, ct_blob_panel, GTK_TYPE_BOX)

void
ct_blob_panel_report_error (CtBlobPanel *panel, const char *message)
{
  g_signal_emit (panel, signals[SIGNAL_ERROR], 0, message);
}

void
ct_blob_panel_set_selection (CtBlobPanel *panel, CtSelection *selection)
{
  g_return_if_fail (CT_IS_BLOB_PANEL (panel));
  if (panel->selection == selection)
    return;
  if (panel->selection != NULL)
    g_signal_handlers_disconnect_by_func (panel->selection, selection_changed, panel);
  g_set_object (&panel->selection, selection);
  if (selection != NULL)
    g_signal_connect (selection, "changed", G_CALLBACK (selection_changed), panel);
  g_object_notify_by_pspec (G_OBJECT (panel), properties[PROP_SELECTION]);
}

void
ct_blob_panel_set_document (CtBlobPanel *panel, CtDocument *document)
{
  g_return_if_fail (CT_IS_BLOB_PANEL (panel));
  if (g_set_object (&panel->document, document))
    g_object_notify_by_pspec (G_OBJECT (panel), properties[PROP_DOCUMENT]);
}

void
ct_blob_panel_set_graph (CtBlobPanel *panel, const CtNetGraph *graph)
{
  g_return_if_fail (CT_IS_BLOB_PANEL (panel));
  panel->graph = graph;
}

void
ct_blob_panel_set_wide (CtBlobPanel *panel, gboolean wide)
{
  g_return_if_fail (CT_IS_BLOB_PANEL (panel));
  wide = !!wide;
  if (wide == panel->wide)
    return;
  panel->wide = wide;
  /* Not while GTK is allocating sizes: showing a widget then is lost. */
  if (panel->relayout_source == 0)
    panel->relayout_source = g_idle_add (relayout_now, panel);
  g_object_notify_by_pspec (G_OBJECT (panel), properties[PROP_WIDE]);
}

static void
ct_blob_panel_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtBlobPanel *panel = CT_BLOB_PANEL (object);

  switch (prop_id)
    {
    case PROP_SELECTION: g_value_set_object (value, panel->selection); break;
    case PROP_DOCUMENT: g_value_set_object (value, panel->document); break;
    case PROP_WIDE: g_value_set_boolean (value, panel->wide); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_blob_panel_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  CtBlobPanel *panel = CT_BLOB_PANEL (object);

  switch (prop_id)
    {
    case PROP_SELECTION: ct_blob_panel_set_selection (panel, g_value_get_object (value)); break;
    case PROP_DOCUMENT: ct_blob_panel_set_document (panel, g_value_get_object (value)); break;
    case PROP_WIDE: ct_blob_panel_set_wide (panel, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_blob_panel_dispose (GObject *object)
{
  CtBlobPanel *panel = CT_BLOB_PANEL (object);

  ct_blob_panel_set_selection (panel, NULL);
  ct_blob_panel_explain_dispose (panel);
  g_clear_object (&panel->document);
  panel->graph = NULL;
  if (panel->histogram != NULL)
    gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (panel->histogram), NULL, NULL, NULL);
  g_clear_handle_id (&panel->relayout_source, g_source_remove);
  g_clear_pointer (&panel->snapshot, ct_run_snapshot_unref);
  gtk_widget_dispose_template (GTK_WIDGET (panel), CT_TYPE_BLOB_PANEL);
  G_OBJECT_CLASS (ct_blob_panel_parent_class)->dispose (object);
}

static void
ct_blob_panel_finalize (GObject *object)
{
  CtBlobPanel *panel = CT_BLOB_PANEL (object);

  g_array_unref (panel->items);
  g_free (panel->labels_path);
  g_strfreev (panel->labels);
  G_OBJECT_CLASS (ct_blob_panel_parent_class)->finalize (object);
}

static void
ct_blob_panel_class_init (CtBlobPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = ct_blob_panel_get_property;
  object_class->set_property = ct_blob_panel_set_property;
  object_class->dispose = ct_blob_panel_dispose;
  object_class->finalize = ct_blob_panel_finalize;

  properties[PROP_SELECTION] =
    g_param_spec_object ("selection", NULL, NULL, CT_TYPE_SELECTION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DOCUMENT] =
    g_param_spec_object ("document", NULL, NULL, CT_TYPE_DOCUMENT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_WIDE] =
    g_param_spec_boolean ("wide", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* An export failed: MESSAGE says why, for the window to show. */
  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  g_type_ensure (CT_TYPE_HEATMAP_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/cortado/Cortado/blob-panel.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, CtBlobPanel, name)
  BIND (status);
  BIND (item_dropdown);
  BIND (edge_button);
  BIND (item_names);
  BIND (version_dropdown);
  BIND (history_label);
  BIND (version_names);
  BIND (data_button);
  BIND (diff_button);
  BIND (shape_label);
  BIND (view_box);
  BIND (sample_spin);
  BIND (kind_box);
  BIND (matrix_button);
  BIND (bars_button);
  BIND (colormap_dropdown);
  BIND (scale_dropdown);
  BIND (heatmap);
  BIND (diff_heatmap);
  BIND (pointer_label);
  BIND (histogram);
  BIND (top_label);
  BIND (export_button);
  BIND (stats_grid);
#undef BIND
}

static void
ct_blob_panel_init (CtBlobPanel *panel)
{
  g_autoptr (GSimpleActionGroup) group = g_simple_action_group_new ();
  static const GActionEntry actions[] = {
    { .name = "export", .activate = ct_blob_panel_export_activated, .parameter_type = "s" },
  };

  panel->layer = -1;
  panel->blob = -1;
  panel->items = g_array_new (FALSE, TRUE, sizeof (Item));
  gtk_widget_init_template (GTK_WIDGET (panel));

  g_signal_connect (panel->item_dropdown, "notify::selected", G_CALLBACK (item_selected), panel);
  g_signal_connect_swapped (panel->edge_button, "clicked", G_CALLBACK (ct_blob_panel_select_edge),
                            panel);
  g_signal_connect (panel->version_dropdown, "notify::selected",
                    G_CALLBACK (version_selected), panel);
  g_signal_connect (panel->data_button, "toggled", G_CALLBACK (diff_toggled), panel);
  g_signal_connect (panel->diff_button, "toggled", G_CALLBACK (diff_toggled), panel);
  g_signal_connect (panel->heatmap, "notify::pointer-text",
                    G_CALLBACK (ct_blob_panel_pointer_moved), panel);
  g_signal_connect (panel->heatmap, "notify::sample",
                    G_CALLBACK (ct_blob_panel_sample_changed), panel);
  g_object_bind_property (panel->heatmap, "sample", panel->diff_heatmap, "sample",
                          G_BINDING_SYNC_CREATE);
  g_object_bind_property (panel->heatmap, "scale-mode", panel->diff_heatmap, "scale-mode",
                          G_BINDING_SYNC_CREATE);
  g_signal_connect (panel->diff_heatmap, "notify::pointer-text",
                    G_CALLBACK (ct_blob_panel_pointer_moved), panel);
  ct_blob_panel_fill_parts (panel);
  ct_blob_panel_explain_init (panel);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (panel->histogram), ct_blob_panel_draw_histogram,
                                  panel, NULL);
  g_action_map_add_action_entries (G_ACTION_MAP (group), actions, G_N_ELEMENTS (actions), panel);
  gtk_widget_insert_action_group (GTK_WIDGET (panel), "blobs", G_ACTION_GROUP (group));
}

CtBlobPanel *
ct_blob_panel_new (void)
{
  return g_object_new (CT_TYPE_BLOB_PANEL, NULL);
}

/* What the panel shows, for a session (window-session.c). */

void
ct_blob_panel_view_clear (CtBlobPanelView *view)
{
  g_clear_pointer (&view->item, g_free);
}

void
ct_blob_panel_get_view (CtBlobPanel *self, CtBlobPanelView *view)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->item_names));

  g_return_if_fail (CT_IS_BLOB_PANEL (self));
  view->item = self->item < n ? g_strdup (gtk_string_list_get_string (self->item_names,
                                                                      self->item))
                              : NULL;
  view->diff = self->diff;
  view->channel = ct_heatmap_view_get_zoom_channel (CT_HEATMAP_VIEW (self->heatmap));
  view->colormap = self->user_colormap
                   ? (int) gtk_drop_down_get_selected (GTK_DROP_DOWN (self->colormap_dropdown))
                   : -1;
  view->scale = (int) gtk_drop_down_get_selected (GTK_DROP_DOWN (self->scale_dropdown));
}

gboolean
ct_blob_panel_set_view (CtBlobPanel *self, const CtBlobPanelView *view)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->item_names));
  guint item = GTK_INVALID_LIST_POSITION;

  g_return_val_if_fail (CT_IS_BLOB_PANEL (self), FALSE);
  for (guint i = 0; view->item != NULL && i < n; i++)
    if (g_strcmp0 (gtk_string_list_get_string (self->item_names, i), view->item) == 0)
      item = i;
  if (view->item != NULL && item == GTK_INVALID_LIST_POSITION)
    return FALSE;
  if (item != GTK_INVALID_LIST_POSITION)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->item_dropdown), item);
  if (gtk_widget_get_sensitive (self->diff_button) || !view->diff)
    gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (view->diff ? self->diff_button
                                                                : self->data_button), TRUE);
  if (view->colormap >= 0)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->colormap_dropdown), (guint) view->colormap);
  if (view->scale >= 0)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->scale_dropdown), (guint) view->scale);
  /* last: a new item's heatmap shows all its channels first */
  ct_heatmap_view_set_zoom_channel (CT_HEATMAP_VIEW (self->heatmap), view->channel);
  return TRUE;
}
