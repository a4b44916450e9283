/* analysis-window.c: CtAnalysisWindow. The net is built and counted on a
 * worker thread (a GTask); once counted, the window owns it and lends it
 * to one more task at a time, which computes the map of the image picked.
 * Progress comes back through idle callbacks, at most one per percent.
 * Everything computed is GTK-free (analysis/); this file only shows it. */
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analysis-net.h"
#include "analysis-top-panel.h"
#include "analysis-window.h"
#include "attribution-export.h"
#include "class-names.h"
#include "confusion.h"
#include "grad-cam.h"
#include "layer.h"
#include "model-compare-window.h"
#include "occlusion.h"
#include "saliency.h"

#define DEFAULT_BATCHES 100
#define MAX_THUMBNAILS 120
#define THUMB_SCALE 2
#define MAP_SCALE 8
#define STORE_LIMIT ((gsize) 512 * 1024 * 1024)

typedef enum { METHOD_SALIENCY, METHOD_GRAD_CAM, METHOD_OCCLUSION } Method;

struct _CtAnalysisWindow {
  GtkWindow parent_instance;

  Caffe__NetParameter *param;
  char *name, *weights_path;
  char **class_names;

  /* What the last count gave; the net is the window's between tasks. */
  CtNet *net;
  CtClassifier classifier;
  CtAnalysisPath path;
  CtConfusion *confusion;
  CtSampleStore *store;
  GPtrArray *conv_layers;     /* names of the layers Grad-CAM can use */

  GCancellable *cancellable;  /* of the task running, or NULL */
  gboolean disposed;          /* the widgets are gone: a task ending shows nothing */
  double shown_fraction;

  /* The image explained, its map and the class. */
  gint64 sample;
  guint sample_class;  /* the class the net gave it */
  guint klass;
  float *map;

  GtkWidget *batches_spin, *count_button, *cancel_button, *progress, *status, *compare_button;
  GtkWidget *grid_box, *grid;
  GtkWidget *cell_title, *flow, *mistakes_button;
  GtkWidget *method_dropdown, *layer_dropdown, *opacity_scale, *map_picture, *map_title;
  GtkWidget *export_png_button, *export_npy_button, *step_button;
  GtkWidget *top_panel;
};

G_DEFINE_FINAL_TYPE (CtAnalysisWindow, ct_analysis_window, GTK_TYPE_WINDOW)

enum {
  SIGNAL_STEP_THROUGH,
  SIGNAL_COMPARE_OPENED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void show_map (CtAnalysisWindow *self);
static void explain_sample (CtAnalysisWindow *self);

/* A deep copy of PARAM, for a worker to own. */
static Caffe__NetParameter *
copy_param (const Caffe__NetParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (&param->base, bytes);
  return caffe__net_parameter__unpack (NULL, size, bytes);
}

static char *
class_name (CtAnalysisWindow *self, guint k)
{
  return ct_class_name (self->class_names, k);
}

/* BUSY: a task of the window's own runs. While the top-activations page
 * searches, it holds the net too: nothing else may start. */
static void
set_busy (CtAnalysisWindow *self, gboolean busy)
{
  gboolean any = busy || ct_analysis_top_panel_is_busy (CT_ANALYSIS_TOP_PANEL (self->top_panel));

  gtk_widget_set_sensitive (self->count_button, !any);
  gtk_widget_set_sensitive (self->cancel_button, busy);
  gtk_widget_set_sensitive (self->grid_box, !any);
  gtk_widget_set_sensitive (self->flow, !any);
  gtk_widget_set_sensitive (self->top_panel, !busy);
  gtk_widget_set_sensitive (self->method_dropdown, !any);
  gtk_widget_set_sensitive (self->layer_dropdown,
                            !any && self->conv_layers->len > 0
                              && gtk_drop_down_get_selected (GTK_DROP_DOWN (self->method_dropdown))
                                   == METHOD_GRAD_CAM);
  gtk_widget_set_visible (self->progress, busy);
}

/* Progress: from the worker to the main loop. */

typedef struct {
  CtAnalysisWindow *self;  /* a reference */
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

typedef struct {
  CtAnalysisWindow *self;
  GCancellable *cancellable;
  double last;
} ProgressTarget;

static gboolean
worker_progress (double fraction, gpointer data)
{
  ProgressTarget *t = data;

  if (fraction - t->last >= 0.01 || fraction >= 1.0)
    {
      Progress *p = g_new (Progress, 1);

      p->self = g_object_ref (t->self);
      p->fraction = fraction;
      t->last = fraction;
      g_idle_add (show_progress, p);
    }
  return !g_cancellable_is_cancelled (t->cancellable);
}

/* Counting. */

typedef struct {
  Caffe__NetParameter *param;
  char *name, *weights;
  guint batches;
  ProgressTarget target;
  /* results */
  CtNet *net;
  CtClassifier classifier;
  CtAnalysisPath path;
  CtConfusion *confusion;
  CtSampleStore *store;
} CountJob;

static void
count_job_free (gpointer data)
{
  CountJob *job = data;

  protobuf_c_message_free_unpacked (&job->param->base, NULL);
  g_free (job->name);
  g_free (job->weights);
  g_clear_pointer (&job->net, ct_net_free);
  g_clear_pointer (&job->confusion, ct_confusion_free);
  g_clear_pointer (&job->store, ct_sample_store_free);
  g_free (job);
}

static void
count_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  CountJob *job = data;
  GError *error = NULL;

  job->net = ct_analysis_net_new (job->param, job->name, job->weights, CAFFE__PHASE__TEST, TRUE,
                                  &error);
  if (job->net == NULL || !ct_classifier_find (job->net, NULL, &job->classifier, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* a net whose input is not images is counted all the same; there is
   * just nothing to show or explain */
  if (ct_analysis_path_init (&job->path, job->net, &job->classifier, NULL, NULL))
    job->store = ct_sample_store_new (STORE_LIMIT);
  job->confusion = ct_confusion_run_keeping (job->net, &job->classifier, job->batches,
                                             job->path.input_blob, job->store, worker_progress,
                                             &job->target, &error);
  if (job->confusion == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
show_error (CtAnalysisWindow *self, const char *what, const GError *error)
{
  g_autofree char *text = g_strdup_printf ("%s: %s", what, error->message);

  gtk_label_set_text (GTK_LABEL (self->status), text);
}

static GdkTexture *
image_texture (const float *image, guint c, guint h, guint w, const float *map, double opacity,
               guint scale)
{
  g_autofree guint32 *pixels = ct_attribution_pixels (image, c, h, w, map, opacity, scale);
  g_autoptr (GBytes) bytes = g_bytes_new (pixels, (gsize) h * scale * w * scale * 4);

  /* cairo's ARGB32, opaque: GDK's default format on every endianness */
  return gdk_memory_texture_new ((int) (w * scale), (int) (h * scale), GDK_MEMORY_DEFAULT, bytes,
                                 (gsize) w * scale * 4);
}

static void
sample_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  self->sample = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "sample"));
  self->sample_class = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "class"));
  explain_sample (self);
}

/* Show SAMPLES (CtConfusionSample, surest first) as thumbnails. */
static void
show_samples (CtAnalysisWindow *self, const char *title, GArray *samples)
{
  GtkWidget *child;
  g_autofree float *blank = NULL;

  gtk_label_set_text (GTK_LABEL (self->cell_title), title);
  while ((child = gtk_widget_get_first_child (self->flow)) != NULL)
    gtk_flow_box_remove (GTK_FLOW_BOX (self->flow), child);
  if (self->store == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->cell_title),
                          _("The net's input is not images: there are none to show."));
      return;
    }
  if (self->store->overflow)
    {
      gtk_label_set_text (GTK_LABEL (self->cell_title),
                          _("The test set is too large to keep its images for browsing."));
      return;
    }
  blank = g_new0 (float, (gsize) self->store->height * self->store->width);
  for (guint i = 0; i < MIN (samples->len, MAX_THUMBNAILS); i++)
    {
      const CtConfusionSample *s = &g_array_index (samples, CtConfusionSample, i);
      const float *image = ct_sample_store_get (self->store, s->index);
      g_autoptr (GdkTexture) texture = NULL;
      g_autofree char *truth = class_name (self, s->label);
      g_autofree char *said = class_name (self, s->predicted);
      g_autofree char *label = NULL;
      GtkWidget *button, *picture;

      if (image == NULL)
        continue;
      texture = image_texture (image, self->store->channels, self->store->height,
                               self->store->width, blank, 0.0, THUMB_SCALE);
      picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
      button = gtk_button_new ();
      gtk_button_set_child (GTK_BUTTON (button), picture);
      label = g_strdup_printf (_("Image %" PRIu64 ": %s, taken for %s (%.0f%%)"),
                               s->index, truth, said, 100.0 * s->confidence);
      gtk_widget_set_tooltip_text (button, label);
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      label, -1);
      g_object_set_data (G_OBJECT (button), "sample", GINT_TO_POINTER ((int) s->index));
      g_object_set_data (G_OBJECT (button), "class", GUINT_TO_POINTER (s->predicted));
      g_signal_connect (button, "clicked", G_CALLBACK (sample_clicked), self);
      gtk_flow_box_append (GTK_FLOW_BOX (self->flow), button);
    }
}

static void
cell_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  guint label = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "label"));
  guint predicted = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "predicted"));
  g_autoptr (GArray) samples = ct_confusion_cell_samples (self->confusion, label, predicted);
  g_autofree char *truth = class_name (self, label);
  g_autofree char *said = class_name (self, predicted);
  g_autofree char *title = g_strdup_printf (
    g_dngettext (GETTEXT_PACKAGE, "%s taken for %s: %u image, surest first",
                 "%s taken for %s: %u images, surest first", samples->len),
    truth, said, samples->len);

  show_samples (self, title, samples);
}

static void
mistakes_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  g_autoptr (GArray) samples = ct_confusion_misclassified (self->confusion);
  g_autofree char *title = g_strdup_printf (
    g_dngettext (GETTEXT_PACKAGE, "%u mistake, surest first", "%u mistakes, surest first",
                 samples->len), samples->len);

  show_samples (self, title, samples);
}

/* A header of the grid: a column's is cut short to keep the columns
 * narrow (the tooltip says it whole), a row's is shown whole. */
static GtkWidget *
grid_label (const char *text, gboolean bold, gboolean column)
{
  GtkWidget *label = gtk_label_new (text);

  if (column)
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 7);
    }
  else
    gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  gtk_widget_set_tooltip_text (label, text);
  if (bold)
    gtk_widget_add_css_class (label, "heading");
  return label;
}

static char *
percent (double v)
{
  return isnan (v) ? g_strdup ("–") : g_strdup_printf ("%.1f%%", 100.0 * v);
}

/* The matrix as a grid of buttons: rows are the true classes, columns the
 * predictions, then each class's recall (row) and precision (column). */
static void
build_grid (CtAnalysisWindow *self)
{
  guint n = self->confusion->n_classes;
  GtkWidget *corner;

  if (self->grid != NULL)
    gtk_box_remove (GTK_BOX (self->grid_box), self->grid);
  self->grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 2);
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 2);
  corner = grid_label (_("True \\ predicted"), TRUE, FALSE);
  /* the first column's header runs into the second's otherwise */
  gtk_widget_set_margin_end (corner, 8);
  gtk_grid_attach (GTK_GRID (self->grid), corner, 0, 0,
                   1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), grid_label (_("Recall"), TRUE, TRUE), (int) n + 1, 0,
                   1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), grid_label (_("Precision"), TRUE, FALSE), 0,
                   (int) n + 1, 1, 1);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = class_name (self, i);
      g_autofree char *recall = percent (ct_confusion_recall (self->confusion, i));
      g_autofree char *precision = percent (ct_confusion_precision (self->confusion, i));

      gtk_grid_attach (GTK_GRID (self->grid), grid_label (name, TRUE, FALSE), 0, (int) i + 1, 1,
                       1);
      gtk_grid_attach (GTK_GRID (self->grid), grid_label (name, TRUE, TRUE), (int) i + 1, 0, 1,
                       1);
      gtk_grid_attach (GTK_GRID (self->grid), grid_label (recall, FALSE, FALSE), (int) n + 1,
                       (int) i + 1, 1, 1);
      gtk_grid_attach (GTK_GRID (self->grid), grid_label (precision, FALSE, FALSE), (int) i + 1,
                       (int) n + 1, 1, 1);
    }
  for (guint i = 0; i < n; i++)
    for (guint j = 0; j < n; j++)
      {
        guint64 count = ct_confusion_count (self->confusion, i, j);
        g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, count);
        g_autofree char *truth = class_name (self, i);
        g_autofree char *said = class_name (self, j);
        g_autofree char *name = g_strdup_printf (_("True %s, predicted %s: %s"), truth, said,
                                                 text);
        GtkWidget *cell = gtk_button_new_with_label (text);

        if (i == j)
          gtk_widget_add_css_class (cell, "success");
        else if (count > 0)
          gtk_widget_add_css_class (cell, "error");
        else
          gtk_widget_add_css_class (cell, "flat");
        gtk_widget_set_tooltip_text (cell, name);
        gtk_accessible_update_property (GTK_ACCESSIBLE (cell), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        name, -1);
        g_object_set_data (G_OBJECT (cell), "label", GUINT_TO_POINTER (i));
        g_object_set_data (G_OBJECT (cell), "predicted", GUINT_TO_POINTER (j));
        g_signal_connect (cell, "clicked", G_CALLBACK (cell_clicked), self);
        gtk_grid_attach (GTK_GRID (self->grid), cell, (int) j + 1, (int) i + 1, 1, 1);
      }
  gtk_box_prepend (GTK_BOX (self->grid_box), self->grid);
}

static void
fill_layers (CtAnalysisWindow *self)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GtkStringList) list = NULL;

  g_ptr_array_set_size (self->conv_layers, 0);
  for (guint i = self->path.first_layer; i < self->path.score_layer; i++)
    {
      CtLayer *layer = ct_net_get_layer (self->net, i);

      if (strcmp (ct_layer_get_type (layer), "Convolution") == 0)
        g_ptr_array_add (self->conv_layers, g_strdup (ct_layer_get_name (layer)));
    }
  for (guint i = 0; i < self->conv_layers->len; i++)
    g_ptr_array_add (names, self->conv_layers->pdata[i]);
  g_ptr_array_add (names, NULL);
  list = gtk_string_list_new ((const char *const *) names->pdata);
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->layer_dropdown), G_LIST_MODEL (list));
  /* the last convolution: the most abstract map with a place in the image */
  if (self->conv_layers->len > 0)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->layer_dropdown),
                                self->conv_layers->len - 1);
}

static void
count_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtAnalysisWindow *self = CT_ANALYSIS_WINDOW (source);
  CountJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  g_autofree char *status = NULL;

  g_clear_object (&self->cancellable);
  if (self->disposed)
    return;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      set_busy (self, FALSE);
      show_error (self, _("Could not count the test set"), error);
      ct_analysis_top_panel_set_source (CT_ANALYSIS_TOP_PANEL (self->top_panel), G_OBJECT (self),
                                        NULL, &self->path, NULL);
      return;
    }
  g_clear_pointer (&self->net, ct_net_free);
  g_clear_pointer (&self->confusion, ct_confusion_free);
  g_clear_pointer (&self->store, ct_sample_store_free);
  self->net = g_steal_pointer (&job->net);
  self->confusion = g_steal_pointer (&job->confusion);
  self->store = g_steal_pointer (&job->store);
  self->classifier = job->classifier;
  self->path = job->path;
  status = g_strdup_printf (_("Accuracy %.2f%%: %" PRIu64 " of %" PRIu64 " test images right"),
                            100.0 * ct_confusion_accuracy (self->confusion),
                            ct_confusion_correct (self->confusion),
                            ct_confusion_total (self->confusion));
  gtk_label_set_text (GTK_LABEL (self->status), status);
  build_grid (self);
  fill_layers (self);
  ct_analysis_top_panel_set_source (CT_ANALYSIS_TOP_PANEL (self->top_panel), G_OBJECT (self),
                                    self->net, &self->path, self->store);
  set_busy (self, FALSE);
  gtk_widget_set_sensitive (self->mistakes_button, TRUE);
  mistakes_clicked (NULL, self);
}

static void
start_count (CtAnalysisWindow *self)
{
  CountJob *job = g_new0 (CountJob, 1);
  g_autoptr (GTask) task = NULL;

  self->cancellable = g_cancellable_new ();
  job->param = copy_param (self->param);
  job->name = g_strdup (self->name);
  job->weights = g_strdup (self->weights_path);
  job->batches = (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->batches_spin));
  job->target = (ProgressTarget) { self, self->cancellable, 0.0 };
  /* the worker will own the net: the window lets go of the old one first */
  ct_analysis_top_panel_set_source (CT_ANALYSIS_TOP_PANEL (self->top_panel), NULL, NULL, NULL,
                                    NULL);
  g_clear_pointer (&self->net, ct_net_free);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0.0);
  gtk_label_set_text (GTK_LABEL (self->status), _("Counting the test set…"));
  set_busy (self, TRUE);
  task = g_task_new (self, self->cancellable, count_done, NULL);
  g_task_set_task_data (task, job, count_job_free);
  g_task_run_in_thread (task, count_thread);
}

static void
count_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  start_count (self);
}

static void
cancel_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

/* Explaining one image. */

typedef struct {
  CtNet *net;               /* lent by the window for the task */
  CtClassifier classifier;
  CtAnalysisPath path;
  float *image;
  guint klass;
  Method method;
  char *layer;
  ProgressTarget target;
  float *map;               /* result */
} ExplainJob;

static void
explain_job_free (gpointer data)
{
  ExplainJob *job = data;

  g_free (job->image);
  g_free (job->layer);
  g_free (job->map);
  g_free (job);
}

static void
image_range (const float *v, gsize n, float *lo, float *hi)
{
  *lo = *hi = v[0];
  for (gsize i = 1; i < n; i++)
    {
      *lo = MIN (*lo, v[i]);
      *hi = MAX (*hi, v[i]);
    }
}

static void
explain_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  ExplainJob *job = data;
  const CtAnalysisPath *path = &job->path;
  GError *error = NULL;

  if (job->method == METHOD_SALIENCY)
    {
      g_autofree float *gradient = ct_saliency_gradient (job->net, &job->classifier, path,
                                                         job->image, job->klass, NULL, &error);

      if (gradient != NULL)
        job->map = ct_saliency_map (gradient, path->channels, path->height, path->width);
    }
  else if (job->method == METHOD_GRAD_CAM)
    {
      g_autoptr (CtGradCam) cam = ct_grad_cam_compute (job->net, &job->classifier, path,
                                                       job->image, job->klass, job->layer,
                                                       &error);

      if (cam != NULL)
        job->map = g_steal_pointer (&cam->image_cam);
    }
  else
    {
      CtOcclusionParams params = { .patch = MIN (5, MIN (path->height, path->width)),
                                   .stride = 1, .batch = 64 };
      g_autoptr (CtOcclusion) occ = NULL;
      float lo, hi;

      image_range (job->image, (gsize) path->channels * path->height * path->width, &lo, &hi);
      params.fill = (lo + hi) / 2.0f;
      occ = ct_occlusion_compute (job->net, &job->classifier, path, job->image, job->klass,
                                  &params, worker_progress, &job->target, &error);
      if (occ != NULL)
        job->map = g_steal_pointer (&occ->image_map);
    }
  if (job->map == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
explain_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtAnalysisWindow *self = CT_ANALYSIS_WINDOW (source);
  ExplainJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;

  g_clear_object (&self->cancellable);
  if (self->disposed)
    return;
  set_busy (self, FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      show_error (self, _("Could not explain the image"), error);
      return;
    }
  g_free (self->map);
  self->map = g_steal_pointer (&job->map);
  self->klass = job->klass;
  show_map (self);
}

static void
explain_sample (CtAnalysisWindow *self)
{
  const float *image;
  ExplainJob *job;
  g_autoptr (GTask) task = NULL;
  guint layer;

  if (self->net == NULL || self->store == NULL || self->sample < 0 || self->cancellable != NULL
      || ct_analysis_top_panel_is_busy (CT_ANALYSIS_TOP_PANEL (self->top_panel)))
    return;
  image = ct_sample_store_get (self->store, (guint64) self->sample);
  if (image == NULL)
    return;
  job = g_new0 (ExplainJob, 1);
  job->net = self->net;
  job->classifier = self->classifier;
  job->path = self->path;
  job->image = g_memdup2 (image, sizeof (float) * self->path.channels * self->path.height
                                   * self->path.width);
  /* the class the net gave it: what is there to explain */
  job->klass = self->sample_class;
  job->method = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->method_dropdown));
  layer = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->layer_dropdown));
  if (job->method == METHOD_GRAD_CAM && layer >= self->conv_layers->len)
    {
      explain_job_free (job);
      gtk_label_set_text (GTK_LABEL (self->status), _("The net has no convolution layer for "
                                                      "Grad-CAM."));
      return;
    }
  if (job->method == METHOD_GRAD_CAM)
    job->layer = g_strdup (self->conv_layers->pdata[layer]);
  self->cancellable = g_cancellable_new ();
  job->target = (ProgressTarget) { self, self->cancellable, 0.0 };
  set_busy (self, TRUE);
  task = g_task_new (self, self->cancellable, explain_done, NULL);
  g_task_set_task_data (task, job, explain_job_free);
  g_task_run_in_thread (task, explain_thread);
}

static void
show_map (CtAnalysisWindow *self)
{
  const float *image;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  if (self->map == NULL || self->sample < 0)
    return;
  image = ct_sample_store_get (self->store, (guint64) self->sample);
  texture = image_texture (image, self->path.channels, self->path.height, self->path.width,
                           self->map, gtk_range_get_value (GTK_RANGE (self->opacity_scale)),
                           MAP_SCALE);
  gtk_picture_set_paintable (GTK_PICTURE (self->map_picture), GDK_PAINTABLE (texture));
  name = class_name (self, self->klass);
  title = g_strdup_printf (_("Image %" PRIu64 ": why %s"), (guint64) self->sample, name);
  gtk_label_set_text (GTK_LABEL (self->map_title), title);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->map_picture),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  gtk_widget_set_sensitive (self->export_png_button, TRUE);
  gtk_widget_set_sensitive (self->export_npy_button, TRUE);
  gtk_widget_set_sensitive (self->step_button, TRUE);
}

static void
step_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  g_signal_emit (self, signals[SIGNAL_STEP_THROUGH], 0);
}

static void
method_changed (GObject *dropdown, GParamSpec *pspec, CtAnalysisWindow *self)
{
  explain_sample (self);
}

static void
opacity_changed (GtkRange *range, CtAnalysisWindow *self)
{
  show_map (self);
}

static void
export_response (GtkNativeDialog *chooser, int response, CtAnalysisWindow *self)
{
  gboolean png = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (chooser), "png"));

  if (response == GTK_RESPONSE_ACCEPT && self->map != NULL)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = g_file_get_path (file);
      const float *image = ct_sample_store_get (self->store, (guint64) self->sample);
      g_autoptr (GError) error = NULL;
      gboolean ok;

      if (png)
        ok = ct_attribution_save_png (path, image, self->path.channels, self->path.height,
                                      self->path.width, self->map,
                                      gtk_range_get_value (GTK_RANGE (self->opacity_scale)),
                                      MAP_SCALE, &error);
      else
        ok = ct_attribution_save_npy (path, self->map, self->path.height, self->path.width,
                                      &error);
      if (!ok)
        show_error (self, _("Could not export the map"), error);
    }
  g_object_unref (chooser);
}

static void
export_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  gboolean png = button == GTK_BUTTON (self->export_png_button);
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
    png ? _("Export the Map as PNG") : _("Export the Map as NumPy Array"), GTK_WINDOW (self),
    GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), NULL);

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), png ? "map.png" : "map.npy");
  g_object_set_data (G_OBJECT (chooser), "png", GINT_TO_POINTER (png));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* Comparing the weights with another caffemodel: a window of its own. */

static void
compare_response (GtkNativeDialog *chooser, int response, CtAnalysisWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        {
          CtModelCompareWindow *compare =
            ct_model_compare_window_new (GTK_WINDOW (self), self->weights_path, path);

          g_signal_emit (self, signals[SIGNAL_COMPARE_OPENED], 0, compare);
          gtk_window_present (GTK_WINDOW (compare));
        }
    }
  g_object_unref (chooser);
}

static void
compare_clicked (GtkButton *button, CtAnalysisWindow *self)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
    _("Compare the Weights With"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
    _("_Compare"), NULL);
  GtkFileFilter *models = gtk_file_filter_new ();

  gtk_file_filter_set_name (models, _("Caffe models (.caffemodel)"));
  gtk_file_filter_add_pattern (models, "*.caffemodel");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), models);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (compare_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* The top-activations page. */

static void
top_busy_changed (CtAnalysisTopPanel *panel, gboolean busy, CtAnalysisWindow *self)
{
  set_busy (self, self->cancellable != NULL);
}

/* An image of the top activations clicked: it becomes the image picked,
 * explained as the net classed it, and the step view's input. */
static void
top_image_activated (CtAnalysisTopPanel *panel, guint64 index, CtAnalysisWindow *self)
{
  GArray *samples = self->confusion != NULL ? self->confusion->samples : NULL;

  self->sample = (gint64) index;
  self->sample_class = 0;
  for (guint i = 0; samples != NULL && i < samples->len; i++)
    if (g_array_index (samples, CtConfusionSample, i).index == index)
      {
        self->sample_class = g_array_index (samples, CtConfusionSample, i).predicted;
        break;
      }
  explain_sample (self);
  g_signal_emit (self, signals[SIGNAL_STEP_THROUGH], 0);
}

/* Building the window. */

static GtkWidget *
labelled_button (const char *text, GCallback callback, CtAnalysisWindow *self)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (text);

  g_signal_connect (button, "clicked", callback, self);
  return button;
}

static GtkWidget *
build_controls (CtAnalysisWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new_with_mnemonic (_("_Batches:"));

  self->batches_spin = gtk_spin_button_new_with_range (1, 100000, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->batches_spin), DEFAULT_BATCHES);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), self->batches_spin);
  gtk_widget_set_tooltip_text (self->batches_spin,
                               _("How many batches of the TEST data to count"));
  self->count_button = labelled_button (_("_Count"), G_CALLBACK (count_clicked), self);
  gtk_widget_add_css_class (self->count_button, "suggested-action");
  self->cancel_button = labelled_button (_("C_ancel"), G_CALLBACK (cancel_clicked), self);
  self->progress = gtk_progress_bar_new ();
  gtk_widget_set_valign (self->progress, GTK_ALIGN_CENTER);
  gtk_widget_set_hexpand (self->progress, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Progress"), -1);
  self->status = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->status), TRUE);
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), self->batches_spin);
  gtk_box_append (GTK_BOX (box), self->count_button);
  gtk_box_append (GTK_BOX (box), self->cancel_button);
  self->compare_button = labelled_button (_("Compare _Weights With…"),
                                          G_CALLBACK (compare_clicked), self);
  gtk_widget_set_tooltip_text (self->compare_button,
                               _("What changed between these weights and another snapshot"));
  gtk_box_append (GTK_BOX (box), self->progress);
  gtk_box_append (GTK_BOX (box), self->status);
  gtk_box_append (GTK_BOX (box), self->compare_button);
  return box;
}

static GtkWidget *
build_map_panel (CtAnalysisWindow *self)
{
  const char *methods[] = { N_("Saliency"), N_("Grad-CAM"), N_("Occlusion"), NULL };
  const char *translated[4] = { _(methods[0]), _(methods[1]), _(methods[2]), NULL };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  /* the buttons wrap rather than be cut when the pane is narrow */
  GtkWidget *exports = gtk_flow_box_new ();

  self->method_dropdown = gtk_drop_down_new_from_strings (translated);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->method_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Method"), -1);
  g_signal_connect (self->method_dropdown, "notify::selected", G_CALLBACK (method_changed),
                    self);
  self->layer_dropdown = gtk_drop_down_new (NULL, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->layer_dropdown),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Grad-CAM layer"), -1);
  gtk_widget_set_tooltip_text (self->layer_dropdown, _("The convolution layer of Grad-CAM"));
  g_signal_connect (self->layer_dropdown, "notify::selected", G_CALLBACK (method_changed), self);
  self->opacity_scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0.0, 1.0, 0.05);
  gtk_range_set_value (GTK_RANGE (self->opacity_scale), 0.6);
  gtk_widget_set_hexpand (self->opacity_scale, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->opacity_scale),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Opacity of the map"), -1);
  gtk_widget_set_tooltip_text (self->opacity_scale, _("Opacity of the map"));
  g_signal_connect (self->opacity_scale, "value-changed", G_CALLBACK (opacity_changed), self);
  gtk_box_append (GTK_BOX (row), self->method_dropdown);
  gtk_box_append (GTK_BOX (row), self->layer_dropdown);
  gtk_box_append (GTK_BOX (row), self->opacity_scale);
  self->map_title = gtk_label_new (_("Pick an image to see what its class rests on."));
  gtk_label_set_wrap (GTK_LABEL (self->map_title), TRUE);
  self->map_picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (self->map_picture), FALSE);
  gtk_widget_set_halign (self->map_picture, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (self->map_picture, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->map_picture),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("The map over the image"), -1);
  self->export_png_button = labelled_button (_("Export _PNG…"), G_CALLBACK (export_clicked),
                                             self);
  self->export_npy_button = labelled_button (_("Export ._npy…"), G_CALLBACK (export_clicked),
                                             self);
  self->step_button = labelled_button (_("Step _Through This Image"), G_CALLBACK (step_clicked),
                                       self);
  gtk_widget_set_tooltip_text (self->step_button,
                               _("Make this image the input of the workbench's step view"));
  gtk_widget_set_sensitive (self->export_png_button, FALSE);
  gtk_widget_set_sensitive (self->export_npy_button, FALSE);
  gtk_widget_set_sensitive (self->step_button, FALSE);
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (exports), GTK_SELECTION_NONE);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (exports), 6);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (exports), 6);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (exports), 3);
  gtk_flow_box_append (GTK_FLOW_BOX (exports), self->export_png_button);
  gtk_flow_box_append (GTK_FLOW_BOX (exports), self->export_npy_button);
  gtk_flow_box_append (GTK_FLOW_BOX (exports), self->step_button);
  /* Tab goes to the buttons, not to the flow box's own children */
  for (GtkWidget *child = gtk_widget_get_first_child (exports); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_widget_set_focusable (child, FALSE);
  gtk_box_append (GTK_BOX (box), row);
  gtk_box_append (GTK_BOX (box), self->map_title);
  gtk_box_append (GTK_BOX (box), self->map_picture);
  gtk_box_append (GTK_BOX (box), exports);
  return box;
}

static void
ct_analysis_window_init (CtAnalysisWindow *self)
{
  GtkWidget *outer = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *grid_scroller = gtk_scrolled_window_new ();
  GtkWidget *cell_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *pages = gtk_notebook_new ();

  self->sample = -1;
  self->conv_layers = g_ptr_array_new_with_free_func (g_free);
  gtk_window_set_title (GTK_WINDOW (self), _("What the Net Learned"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1270, 780);
  gtk_widget_set_margin_top (outer, 12);
  gtk_widget_set_margin_bottom (outer, 12);
  gtk_widget_set_margin_start (outer, 12);
  gtk_widget_set_margin_end (outer, 12);
  gtk_box_append (GTK_BOX (outer), build_controls (self));

  self->grid_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (grid_scroller), self->grid_box);
  gtk_paned_set_start_child (GTK_PANED (paned), grid_scroller);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), TRUE);
  /* the matrix scrolls; the image panel keeps what it needs */
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_position (GTK_PANED (paned), 860);

  self->cell_title = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->cell_title), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->cell_title), TRUE);
  gtk_widget_set_hexpand (self->cell_title, TRUE);
  self->mistakes_button = labelled_button (_("All _Mistakes"), G_CALLBACK (mistakes_clicked),
                                           self);
  gtk_widget_set_sensitive (self->mistakes_button, FALSE);
  gtk_box_append (GTK_BOX (cell_row), self->cell_title);
  gtk_box_append (GTK_BOX (cell_row), self->mistakes_button);
  self->flow = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (self->flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (self->flow), 12);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->flow), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Images of the chosen cell"), -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->flow);
  gtk_widget_set_vexpand (scroller, TRUE);
  /* two rows of thumbnails at least, beside the map below */
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 170);
  gtk_box_append (GTK_BOX (right), cell_row);
  gtk_box_append (GTK_BOX (right), scroller);
  gtk_box_append (GTK_BOX (right), build_map_panel (self));
  gtk_paned_set_end_child (GTK_PANED (paned), right);
  gtk_notebook_append_page (GTK_NOTEBOOK (pages), paned,
                            gtk_label_new_with_mnemonic (_("Confusion Matri_x")));
  self->top_panel = ct_analysis_top_panel_new ();
  gtk_widget_set_margin_top (self->top_panel, 6);
  g_signal_connect (self->top_panel, "busy-changed", G_CALLBACK (top_busy_changed), self);
  g_signal_connect (self->top_panel, "image-activated", G_CALLBACK (top_image_activated), self);
  gtk_notebook_append_page (GTK_NOTEBOOK (pages), self->top_panel,
                            gtk_label_new_with_mnemonic (_("Top Acti_vations")));
  gtk_widget_set_vexpand (pages, TRUE);
  gtk_box_append (GTK_BOX (outer), pages);
  gtk_window_set_child (GTK_WINDOW (self), outer);
  set_busy (self, FALSE);
}

static void
ct_analysis_window_dispose (GObject *object)
{
  CtAnalysisWindow *self = CT_ANALYSIS_WINDOW (object);

  /* a task still running holds the window; cancel it so that it ends soon */
  self->disposed = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (ct_analysis_window_parent_class)->dispose (object);
}

static void
ct_analysis_window_finalize (GObject *object)
{
  CtAnalysisWindow *self = CT_ANALYSIS_WINDOW (object);

  if (self->param != NULL)
    protobuf_c_message_free_unpacked (&self->param->base, NULL);
  g_free (self->name);
  g_free (self->weights_path);
  g_strfreev (self->class_names);
  g_clear_pointer (&self->net, ct_net_free);
  g_clear_pointer (&self->confusion, ct_confusion_free);
  g_clear_pointer (&self->store, ct_sample_store_free);
  g_ptr_array_unref (self->conv_layers);
  g_clear_object (&self->cancellable);
  g_free (self->map);
  G_OBJECT_CLASS (ct_analysis_window_parent_class)->finalize (object);
}

static void
ct_analysis_window_class_init (CtAnalysisWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ct_analysis_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = ct_analysis_window_finalize;
  signals[SIGNAL_STEP_THROUGH] =
    g_signal_new ("step-through", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_COMPARE_OPENED] =
    g_signal_new ("compare-opened", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, CT_TYPE_MODEL_COMPARE_WINDOW);
}

CtAnalysisWindow *
ct_analysis_window_new (GtkWindow *parent, const Caffe__NetParameter *net, const char *name,
                        const char *weights_path, const char *labels_path)
{
  CtAnalysisWindow *self = g_object_new (CT_TYPE_ANALYSIS_WINDOW, "transient-for", parent, NULL);
  g_autofree char *title = g_strdup_printf (_("What the Net Learned: %s"), name);

  self->param = copy_param (net);
  self->name = g_strdup (name);
  self->weights_path = g_strdup (weights_path);
  if (labels_path != NULL)
    self->class_names = ct_class_names_load (labels_path, NULL);
  gtk_window_set_title (GTK_WINDOW (self), title);
  start_count (self);
  return self;
}

guint64
ct_analysis_window_get_total (CtAnalysisWindow *self)
{
  return self->confusion != NULL ? ct_confusion_total (self->confusion) : 0;
}

const float *
ct_analysis_window_get_sample (CtAnalysisWindow *self, guint64 *index, guint *channels,
                               guint *height, guint *width)
{
  if (self->store == NULL || self->sample < 0)
    return NULL;
  *index = (guint64) self->sample;
  *channels = self->store->channels;
  *height = self->store->height;
  *width = self->store->width;
  return ct_sample_store_get (self->store, (guint64) self->sample);
}
