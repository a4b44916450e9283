/* analysis-top-panel.c: CtAnalysisTopPanel. The window lends its net, the
 * path into it and the images it kept; a search copies the layer's name
 * and runs ct_top_activations_of_store on a GTask's thread, which only
 * reads what was lent. Progress comes back through idle callbacks, at most
 * one per percent. The panel only shows what analysis/ computed. */
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "analysis-top-panel.h"
#include "attribution-export.h"
#include "layer.h"

#define DEFAULT_SHOWN 12
#define BATCH 100
#define IMAGE_PIXELS 84    /* the side of an image on screen, about */
#define FILTER_PIXELS 96

struct _CtAnalysisTopPanel {
  GtkBox parent_instance;

  GObject *owner;             /* a reference while a search runs, else borrowed */
  CtNet *net;                 /* lent by the owner, or NULL */
  CtAnalysisPath path;
  const CtSampleStore *store;
  GPtrArray *layers;          /* names of the layers with image-shaped tops */
  GArray *layer_channels;     /* guint per layer */

  GCancellable *cancellable;  /* of the search running, or NULL */
  gboolean disposed;
  CtTopActivations *result;
  gboolean has_filter;

  GtkWidget *layer_dropdown, *channel_spin, *count_spin, *find_button, *cancel_button;
  GtkWidget *progress, *status, *filter_box, *filter_picture, *flow;
};

G_DEFINE_FINAL_TYPE (CtAnalysisTopPanel, ct_analysis_top_panel, GTK_TYPE_BOX)

enum {
  SIGNAL_BUSY_CHANGED,
  SIGNAL_IMAGE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_controls (CtAnalysisTopPanel *self)
{
  gboolean busy = self->cancellable != NULL;
  gboolean ready = self->net != NULL && self->layers->len > 0;

  gtk_widget_set_sensitive (self->layer_dropdown, ready && !busy);
  gtk_widget_set_sensitive (self->channel_spin, ready && !busy);
  gtk_widget_set_sensitive (self->count_spin, ready && !busy);
  gtk_widget_set_sensitive (self->find_button, ready && !busy);
  gtk_widget_set_sensitive (self->cancel_button, busy);
  gtk_widget_set_sensitive (self->flow, !busy);
  gtk_widget_set_visible (self->progress, busy);
}

static void
set_busy (CtAnalysisTopPanel *self, gboolean busy)
{
  update_controls (self);
  g_signal_emit (self, signals[SIGNAL_BUSY_CHANGED], 0, busy);
}

/* Pictures. */

/* IMAGE (C × H × W) in grey or colour, each pixel SCALE × SCALE, with the
 * rectangle (TOP, LEFT, BOX_H, BOX_W) outlined when BOX_H > 0. */
static GdkTexture *
picture_texture (const float *image, guint c, guint h, guint w, guint scale, int top, int left,
                 int box_h, int box_w)
{
  g_autofree float *blank = g_new0 (float, (gsize) h * w);
  g_autofree guint32 *pixels = ct_attribution_pixels (image, c, h, w, blank, 0.0, scale);
  guint stride = w * scale;
  g_autoptr (GBytes) bytes = NULL;

  if (box_h > 0 && box_w > 0)
    {
      /* a two-pixel frame just inside the patch, in a red that reads on grey */
      int y0 = top * (int) scale, x0 = left * (int) scale;
      int y1 = (top + box_h) * (int) scale - 1, x1 = (left + box_w) * (int) scale - 1;

      for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
          if (y - y0 < 2 || y1 - y < 2 || x - x0 < 2 || x1 - x < 2)
            pixels[(gsize) y * stride + x] = 0xffff3b30u;
    }
  bytes = g_bytes_new (pixels, (gsize) h * scale * stride * 4);
  return gdk_memory_texture_new ((int) stride, (int) (h * scale), GDK_MEMORY_DEFAULT, bytes,
                                 (gsize) stride * 4);
}

static GtkWidget *
picture_widget (GdkTexture *texture, const char *name)
{
  GtkWidget *picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_valign (picture, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
  return picture;
}

static guint
scale_for (guint side, guint pixels)
{
  return MAX (1u, pixels / MAX (side, 1u));
}

static void
item_clicked (GtkButton *button, CtAnalysisTopPanel *self)
{
  guint64 *index = g_object_get_data (G_OBJECT (button), "index");

  g_signal_emit (self, signals[SIGNAL_IMAGE_ACTIVATED], 0, *index);
}

/* One result: the image with the patch outlined, the patch alone, and a
 * line with its rank, place and value. */
static GtkWidget *
item_button (CtAnalysisTopPanel *self, guint rank, const CtTopActivation *item)
{
  const CtTopActivations *top = self->result;
  guint scale = scale_for (MAX (top->height, top->width), IMAGE_PIXELS);
  guint patch_scale = scale_for (MAX (item->box_h, item->box_w), IMAGE_PIXELS);
  g_autofree float *patch = ct_top_activation_patch (top, item);
  g_autoptr (GdkTexture) whole = picture_texture (item->image, top->channels, top->height,
                                                  top->width, scale, item->top, item->left,
                                                  item->box_h, item->box_w);
  g_autoptr (GdkTexture) part = picture_texture (patch, top->channels, (guint) item->box_h,
                                                 (guint) item->box_w, patch_scale, 0, 0, 0, 0);
  g_autofree char *value = g_strdup_printf ("%.3g", item->value);
  /* TRANSLATORS: a result of the top activations: its rank, the image's
   * place in the test set, the channel's strongest response to it */
  g_autofree char *caption = g_strdup_printf (_("#%u · image %" PRIu64 " · %s"), rank + 1,
                                              item->index, value);
  g_autofree char *name = g_strdup_printf (
    _("Image %" PRIu64 ", response %s, strongest over its %d × %d patch at row %d, column %d: "
      "click to step through it"),
    item->index, value, item->box_h, item->box_w, item->top, item->left);
  GtkWidget *button = gtk_button_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *pictures = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *label = gtk_label_new (caption);

  gtk_box_append (GTK_BOX (pictures), picture_widget (whole, _("The image, its patch outlined")));
  gtk_box_append (GTK_BOX (pictures), picture_widget (part, _("The patch")));
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "numeric");
  gtk_box_append (GTK_BOX (box), pictures);
  gtk_box_append (GTK_BOX (box), label);
  gtk_button_set_child (GTK_BUTTON (button), box);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
  g_object_set_data_full (G_OBJECT (button), "index", g_memdup2 (&item->index, sizeof (guint64)),
                          g_free);
  g_signal_connect (button, "clicked", G_CALLBACK (item_clicked), self);
  return button;
}

static void
clear_results (CtAnalysisTopPanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->flow)) != NULL)
    gtk_flow_box_remove (GTK_FLOW_BOX (self->flow), child);
  g_clear_pointer (&self->result, ct_top_activations_free);
  self->has_filter = FALSE;
  gtk_widget_set_visible (self->filter_box, FALSE);
}

static void
show_filter (CtAnalysisTopPanel *self, const float *filter, guint c, guint h, guint w)
{
  g_autoptr (GdkTexture) texture = NULL;

  self->has_filter = filter != NULL;
  gtk_widget_set_visible (self->filter_box, filter != NULL);
  if (filter == NULL)
    return;
  texture = picture_texture (filter, c, h, w, scale_for (MAX (h, w), FILTER_PIXELS), 0, 0, 0, 0);
  gtk_picture_set_paintable (GTK_PICTURE (self->filter_picture), GDK_PAINTABLE (texture));
}

/* The search on the worker. */

typedef struct {
  CtAnalysisTopPanel *self;  /* a reference, for progress */
  GObject *owner;            /* a reference: what was lent stays alive */
  CtNet *net;
  CtAnalysisPath path;
  const CtSampleStore *store;
  char *layer;
  guint channel, k;
  double last;
  /* results */
  CtTopActivations *top;
  float *filter;
  guint filter_c, filter_h, filter_w;
} SearchJob;

static void
search_job_free (gpointer data)
{
  SearchJob *job = data;

  g_object_unref (job->self);
  g_clear_object (&job->owner);
  g_free (job->layer);
  g_clear_pointer (&job->top, ct_top_activations_free);
  g_free (job->filter);
  g_free (job);
}

typedef struct {
  CtAnalysisTopPanel *self;
  double fraction;
} Progress;

static gboolean
show_progress (gpointer data)
{
  Progress *p = data;

  if (!p->self->disposed)
    gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (p->self->progress), p->fraction);
  g_object_unref (p->self);
  g_free (p);
  return G_SOURCE_REMOVE;
}

static gboolean
search_progress (double fraction, gpointer data)
{
  GTask *task = data;
  SearchJob *job = g_task_get_task_data (task);

  if (fraction - job->last >= 0.01 || fraction >= 1.0)
    {
      Progress *p = g_new (Progress, 1);

      p->self = g_object_ref (job->self);
      p->fraction = fraction;
      job->last = fraction;
      g_idle_add (show_progress, p);
    }
  return !g_cancellable_is_cancelled (g_task_get_cancellable (task));
}

static void
search_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  SearchJob *job = data;
  GError *error = NULL;

  job->top = ct_top_activations_of_store (job->net, &job->path, job->store, job->layer,
                                          job->channel, job->k, BATCH, search_progress, task,
                                          &error);
  if (job->top == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  job->filter = ct_top_activations_filter (job->net, job->path.input_blob, job->layer,
                                           job->channel, &job->filter_c, &job->filter_h,
                                           &job->filter_w);
  g_task_return_boolean (task, TRUE);
}

static void
search_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtAnalysisTopPanel *self = CT_ANALYSIS_TOP_PANEL (source);
  SearchJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autofree char *status = NULL;

  g_clear_object (&self->cancellable);
  if (self->disposed)
    return;
  set_busy (self, FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autofree char *text = g_strdup_printf (_("Could not find the top activations: %s"),
                                               error->message);

      gtk_label_set_text (GTK_LABEL (self->status), text);
      return;
    }
  clear_results (self);
  self->result = g_steal_pointer (&job->top);
  show_filter (self, job->filter, job->filter_c, job->filter_h, job->filter_w);
  for (guint i = 0; i < self->result->items->len; i++)
    gtk_flow_box_append (GTK_FLOW_BOX (self->flow),
                         item_button (self, i, &g_array_index (self->result->items,
                                                               CtTopActivation, i)));
  status = g_strdup_printf (
    g_dngettext (GETTEXT_PACKAGE,
                 "Channel %u of %s: the %u image of %" PRIu64 " that excites it most, strongest "
                 "first, its patch of %.0f × %.0f pixels outlined",
                 "Channel %u of %s: the %u images of %" PRIu64 " that excite it most, strongest "
                 "first, each with its patch of %.0f × %.0f pixels outlined",
                 self->result->items->len),
    job->channel, job->layer, self->result->items->len, self->store->count,
    self->result->field.size_h, self->result->field.size_w);
  gtk_label_set_text (GTK_LABEL (self->status), status);
}

gboolean
ct_analysis_top_panel_search (CtAnalysisTopPanel *self, const char *layer, guint channel)
{
  SearchJob *job;
  g_autoptr (GTask) task = NULL;

  /* insensitive: the owner is using the net itself */
  if (self->net == NULL || self->cancellable != NULL
      || !gtk_widget_get_sensitive (GTK_WIDGET (self)))
    return FALSE;
  /* the controls say what is searched, whoever asked */
  for (guint i = 0; i < self->layers->len; i++)
    if (strcmp (self->layers->pdata[i], layer) == 0)
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->layer_dropdown), i);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->channel_spin), channel);
  job = g_new0 (SearchJob, 1);
  job->self = g_object_ref (self);
  job->owner = g_object_ref (self->owner);
  job->net = self->net;
  job->path = self->path;
  job->store = self->store;
  job->layer = g_strdup (layer);
  job->channel = channel;
  job->k = (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->count_spin));
  self->cancellable = g_cancellable_new ();
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0.0);
  gtk_label_set_text (GTK_LABEL (self->status), _("Looking through the test images…"));
  set_busy (self, TRUE);
  task = g_task_new (self, self->cancellable, search_done, NULL);
  g_task_set_task_data (task, job, search_job_free);
  g_task_run_in_thread (task, search_thread);
  return TRUE;
}

static void
find_clicked (GtkButton *button, CtAnalysisTopPanel *self)
{
  guint layer = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->layer_dropdown));

  if (layer < self->layers->len)
    ct_analysis_top_panel_search (
      self, self->layers->pdata[layer],
      (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->channel_spin)));
}

static void
cancel_clicked (GtkButton *button, CtAnalysisTopPanel *self)
{
  ct_analysis_top_panel_cancel (self);
}

static void
layer_changed (GObject *dropdown, GParamSpec *pspec, CtAnalysisTopPanel *self)
{
  guint layer = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->layer_dropdown));
  guint channels = layer < self->layer_channels->len
                     ? g_array_index (self->layer_channels, guint, layer) : 1;

  gtk_spin_button_set_range (GTK_SPIN_BUTTON (self->channel_spin), 0, MAX (channels, 1) - 1);
}

/* The layers worth searching: those from the images on whose first top
 * holds images too (convolutions, poolings, their ReLUs). */
static void
fill_layers (CtAnalysisTopPanel *self)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GtkStringList) list = NULL;

  g_ptr_array_set_size (self->layers, 0);
  g_array_set_size (self->layer_channels, 0);
  for (guint i = self->net != NULL ? self->path.first_layer : 0;
       self->net != NULL && i < self->path.score_layer; i++)
    {
      guint n_tops = 0;
      const guint *tops = ct_net_get_top_ids (self->net, i, &n_tops);
      CtBlob *blob = n_tops > 0 ? ct_net_get_blob (self->net, tops[0]) : NULL;
      guint channels;

      if (blob == NULL || ct_blob_num_axes (blob) != 4)
        continue;
      channels = (guint) ct_blob_get_shape (blob)[1];
      g_ptr_array_add (self->layers, g_strdup (ct_layer_get_name (ct_net_get_layer (self->net,
                                                                                    i))));
      g_array_append_val (self->layer_channels, channels);
    }
  for (guint i = 0; i < self->layers->len; i++)
    g_ptr_array_add (names, self->layers->pdata[i]);
  g_ptr_array_add (names, NULL);
  list = gtk_string_list_new ((const char *const *) names->pdata);
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->layer_dropdown), G_LIST_MODEL (list));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->layer_dropdown), 0);
  layer_changed (NULL, NULL, self);
}

void
ct_analysis_top_panel_set_source (CtAnalysisTopPanel *self, GObject *owner, CtNet *net,
                                  const CtAnalysisPath *path, const CtSampleStore *store)
{
  g_return_if_fail (self->cancellable == NULL);
  self->owner = owner;
  self->net = store != NULL && !store->overflow ? net : NULL;
  if (path != NULL)
    self->path = *path;
  self->store = store;
  clear_results (self);
  fill_layers (self);
  if (net == NULL && owner == NULL)
    gtk_label_set_text (GTK_LABEL (self->status), _("Counting the test set…"));
  else if (net == NULL)
    gtk_label_set_text (GTK_LABEL (self->status),
                        _("There is nothing to look through until the test set is counted."));
  else if (self->net == NULL)
    gtk_label_set_text (GTK_LABEL (self->status),
                        _("The test images were not kept (they are not images, or too many): "
                          "there are none to look through."));
  else
    gtk_label_set_text (GTK_LABEL (self->status),
                        _("Pick a layer and a channel, then find the test images that excite "
                          "it most."));
  update_controls (self);
}

gboolean
ct_analysis_top_panel_is_busy (CtAnalysisTopPanel *self)
{
  return self->cancellable != NULL;
}

void
ct_analysis_top_panel_cancel (CtAnalysisTopPanel *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

const CtTopActivations *
ct_analysis_top_panel_get_result (CtAnalysisTopPanel *self)
{
  return self->result;
}

gboolean
ct_analysis_top_panel_has_filter (CtAnalysisTopPanel *self)
{
  return self->has_filter;
}

/* Building. */

static GtkWidget *
spin_with_label (GtkWidget *row, const char *text, double max, double value, const char *name)
{
  GtkWidget *label = gtk_label_new_with_mnemonic (text);
  GtkWidget *spin = gtk_spin_button_new_with_range (0, max, 1);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), spin);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), spin);
  return spin;
}

static GtkWidget *
build_controls (CtAnalysisTopPanel *self)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *layer_label = gtk_label_new_with_mnemonic (_("_Layer:"));

  self->layer_dropdown = gtk_drop_down_new (NULL, NULL);
  gtk_label_set_mnemonic_widget (GTK_LABEL (layer_label), self->layer_dropdown);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->layer_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Layer"), -1);
  g_signal_connect (self->layer_dropdown, "notify::selected", G_CALLBACK (layer_changed), self);
  gtk_box_append (GTK_BOX (row), layer_label);
  gtk_box_append (GTK_BOX (row), self->layer_dropdown);
  self->channel_spin = spin_with_label (row, _("C_hannel:"), 0, 0, _("Channel"));
  self->count_spin = spin_with_label (row, _("_Images:"), 64, DEFAULT_SHOWN,
                                      _("How many images to show"));
  gtk_spin_button_set_range (GTK_SPIN_BUTTON (self->count_spin), 1, 64);
  self->find_button = gtk_button_new_with_mnemonic (_("_Find"));
  gtk_widget_add_css_class (self->find_button, "suggested-action");
  gtk_widget_set_tooltip_text (self->find_button,
                               _("Find the test images that excite this channel most"));
  g_signal_connect (self->find_button, "clicked", G_CALLBACK (find_clicked), self);
  self->cancel_button = gtk_button_new_with_mnemonic (_("Canc_el"));
  gtk_widget_set_tooltip_text (self->cancel_button, _("Stop looking"));
  g_signal_connect (self->cancel_button, "clicked", G_CALLBACK (cancel_clicked), self);
  self->progress = gtk_progress_bar_new ();
  gtk_widget_set_valign (self->progress, GTK_ALIGN_CENTER);
  gtk_widget_set_hexpand (self->progress, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Progress of the top activations"), -1);
  gtk_box_append (GTK_BOX (row), self->find_button);
  gtk_box_append (GTK_BOX (row), self->cancel_button);
  gtk_box_append (GTK_BOX (row), self->progress);
  return row;
}

static GtkWidget *
build_filter_box (CtAnalysisTopPanel *self)
{
  GtkWidget *label = gtk_label_new (_("Its filter"));

  self->filter_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  self->filter_picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (self->filter_picture), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->filter_picture),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The channel's filter, in the images' pixels"), -1);
  gtk_widget_set_tooltip_text (self->filter_picture,
                               _("The weights of this channel's filter, drawn as a picture: "
                                 "light where the filter wants light pixels"));
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (GTK_BOX (self->filter_box), label);
  gtk_box_append (GTK_BOX (self->filter_box), self->filter_picture);
  gtk_widget_set_valign (self->filter_box, GTK_ALIGN_START);
  gtk_widget_set_visible (self->filter_box, FALSE);
  return self->filter_box;
}

static void
ct_analysis_top_panel_init (CtAnalysisTopPanel *self)
{
  GtkWidget *results = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *scroller = gtk_scrolled_window_new ();

  self->layers = g_ptr_array_new_with_free_func (g_free);
  self->layer_channels = g_array_new (FALSE, FALSE, sizeof (guint));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_box_append (GTK_BOX (self), build_controls (self));
  self->status = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->status), TRUE);
  gtk_box_append (GTK_BOX (self), self->status);
  self->flow = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->flow), 8);
  gtk_widget_set_valign (self->flow, GTK_ALIGN_START);
  gtk_widget_set_hexpand (self->flow, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->flow), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The images that excite the channel most"), -1);
  gtk_box_append (GTK_BOX (results), build_filter_box (self));
  gtk_box_append (GTK_BOX (results), self->flow);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), results);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (self), scroller);
  ct_analysis_top_panel_set_source (self, NULL, NULL, NULL, NULL);
}

static void
ct_analysis_top_panel_dispose (GObject *object)
{
  CtAnalysisTopPanel *self = CT_ANALYSIS_TOP_PANEL (object);

  /* a search still running holds the panel and the owner; it ends soon */
  self->disposed = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (ct_analysis_top_panel_parent_class)->dispose (object);
}

static void
ct_analysis_top_panel_finalize (GObject *object)
{
  CtAnalysisTopPanel *self = CT_ANALYSIS_TOP_PANEL (object);

  g_ptr_array_unref (self->layers);
  g_array_unref (self->layer_channels);
  g_clear_pointer (&self->result, ct_top_activations_free);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (ct_analysis_top_panel_parent_class)->finalize (object);
}

static void
ct_analysis_top_panel_class_init (CtAnalysisTopPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ct_analysis_top_panel_dispose;
  G_OBJECT_CLASS (klass)->finalize = ct_analysis_top_panel_finalize;
  signals[SIGNAL_BUSY_CHANGED] =
    g_signal_new ("busy-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_IMAGE_ACTIVATED] =
    g_signal_new ("image-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, G_TYPE_UINT64);
}

GtkWidget *
ct_analysis_top_panel_new (void)
{
  return g_object_new (CT_TYPE_ANALYSIS_TOP_PANEL, NULL);
}
