/* window-inputs.c: what the run feeds a net's Input layers (deploy nets),
 * chosen in the "Input" popover beside the run settings (run-controls.ui,
 * which also holds the transform's scale, mean and order): an image file or
 * a folder of images (opened, or an image dropped on the window), passed
 * through a transform like Caffe's transform_param (scale, per-channel
 * mean, channel order), or items of the Fashion-MNIST test set, browsed as
 * thumbnails with their class names. Without a choice the run's fill
 * applies (the reference pattern or zeros).
 *
 * The values are prepared without GTK (app/run/run-inputs.h) when the run
 * is built, for the first Input layer's first top (its shape, with the
 * batch the user chose), and for its second top when it holds one label
 * per sample (Fashion-MNIST items give their labels). A net without an
 * Input layer (a training net) gets them through its first data-source
 * layer of the phase run (Data, ImageData...): they become the first
 * samples of the batch that layer reads, through the layer's own
 * transform_param (scale, mean, a centred crop), with their labels when
 * known (apply_to_source says why not the whole batch). A new choice makes
 * a new run at the next step, as a settings change does. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "input-browser.h"
#include "layer-catalogue.h"
#include "run-inputs.h"
#include "source-transform.h"
#include "window-private.h"

typedef enum {
  SOURCE_FILL,
  SOURCE_PATH,
  SOURCE_FASHION,
} Source;

struct _CtWindowInputs {
  Source source;
  char *path;                 /* SOURCE_PATH: a file or a folder */
  GArray *items;              /* SOURCE_FASHION: guint indices */
  gboolean changed;           /* since the runner took the inputs */
  gboolean cleared;           /* back to the fill: the runner must forget them */
  CtFashionSet *fashion;      /* loaded on first use */
  GError *fashion_error;
  CtInputBrowser *browser;
};

static const CtFashionSet *
fashion_set (CtWindowInputs *in)
{
  if (in->fashion == NULL && in->fashion_error == NULL)
    in->fashion = ct_fashion_set_load (g_getenv ("CT_FASHION_DIR"), &in->fashion_error);
  return in->fashion;
}

/* The source label */

static void
update_label (CtWindow *self)
{
  CtWindowInputs *in = self->inputs;
  g_autofree char *text = NULL;

  switch (in->source)
    {
    case SOURCE_PATH:
      {
        g_autofree char *base = g_path_get_basename (in->path);
        text = g_strdup (base);
      }
      break;
    case SOURCE_FASHION:
      {
        guint first = g_array_index (in->items, guint, 0);
        const CtFashionSet *set = fashion_set (in);
        const char *name = set != NULL ? ct_input_browser_class_name (set->labels[first]) : "";

        if (in->items->len == 1)
          /* TRANSLATORS: the input chosen; %u is an item's index, %s its class */
          text = g_strdup_printf (_("Fashion-MNIST item %u (%s)"), first, name);
        else
          text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Fashion-MNIST, %u item",
                                               "Fashion-MNIST, %u items", in->items->len),
                                  in->items->len);
      }
      break;
    case SOURCE_FILL:
    default:
      text = g_strdup (_("The run's fill"));
      break;
    }
  ct_run_controls_set_input_text (self->run_controls, text);
}

static void
inputs_changed (CtWindow *self, Source source)
{
  CtWindowInputs *in = self->inputs;

  if (source == SOURCE_FILL && in->source != SOURCE_FILL)
    in->cleared = TRUE;
  in->source = source;
  in->changed = TRUE;
  update_label (self);
  ct_window_show_toast (self, _("The input changed: it applies at the next step"));
}

void
ct_window_inputs_set_path (CtWindow *self, GFile *file)
{
  CtWindowInputs *in = self->inputs;

  g_free (in->path);
  in->path = g_file_get_path (file);
  if (in->path == NULL)
    return;
  inputs_changed (self, SOURCE_PATH);
}

void
ct_window_inputs_set_items (CtWindow *self, const guint *items, guint n_items)
{
  CtWindowInputs *in = self->inputs;

  if (n_items == 0)
    return;
  g_array_set_size (in->items, 0);
  g_array_append_vals (in->items, items, n_items);
  inputs_changed (self, SOURCE_FASHION);
}

gboolean
ct_window_inputs_is_image (GFile *file)
{
  /* a folder of images, or an image file by its name */
  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    return g_file_peek_path (file) != NULL;

  const char *path = g_file_peek_path (file);
  static const char *const suffixes[] = { ".png", ".jpg", ".jpeg", ".bmp", ".gif",
                                          ".tif", ".tiff", ".webp", ".pgm", ".ppm" };
  g_autofree char *lower = path != NULL ? g_ascii_strdown (path, -1) : NULL;

  for (gsize i = 0; lower != NULL && i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (lower, suffixes[i]))
      return TRUE;
  return FALSE;
}

/* Applying: the values for the runner. The phase is the one the runner
 * was given (run_applied), set before the inputs are applied. */

/* The first Input layer of the net as the runner builds it. */
static const Caffe__LayerParameter *
input_layer (CtWindow *self)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);

  for (gsize i = 0; net != NULL && i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];

      if (g_strcmp0 (layer->type, "Input") == 0 && layer->input_param != NULL
          && layer->input_param->n_shape > 0 && layer->n_top > 0)
        return layer;
    }
  return NULL;
}

gboolean
ct_window_inputs_take_cleared (CtWindow *self)
{
  gboolean cleared = self->inputs->cleared;

  self->inputs->cleared = FALSE;
  return cleared;
}

gboolean
ct_window_inputs_changed (CtWindow *self)
{
  return self->inputs->changed;
}

/* Data-source layers (Data, ImageData...): the chosen images are the
 * first samples of the batch the layer reads, the rest of the batch as its
 * source gives it. Not the whole batch: the loss and accuracy of the pass
 * stay those of a real batch (and layers that use batch statistics see
 * one), while the chosen images lead it, where the inspector shows sample
 * 0 first. */

/* The first data-source layer of the run's phase, with a known shape of
 * at least N×C×H×W for its first top, as the last check saw it. */
static const CtNetShapeLayer *
source_layer (CtWindow *self)
{
  const CtNetShapes *shapes = ct_document_get_shapes (self->document);

  if (self->run_applied.phase == CAFFE__PHASE__TEST
      && ct_document_get_test_shapes (self->document) != NULL)
    shapes = ct_document_get_test_shapes (self->document);
  for (guint i = 0; shapes != NULL && i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *layer = shapes->layers->pdata[i];
      const CtLayerClass *klass = ct_layer_catalogue_lookup (layer->type != NULL ? layer->type : "");
      const CtNetShapeBlob *top;

      if (klass == NULL || !klass->is_data_source || layer->tops->len == 0)
        continue;
      top = layer->tops->pdata[0];
      if (top->known && top->n_axes == 4 && (top->dims[1] == 1 || top->dims[1] == 3))
        return layer;
    }
  return NULL;
}

static void
apply_to_source (CtWindow *self, CtRunner *runner)
{
  CtWindowInputs *in = self->inputs;
  const CtNetShapeLayer *layer = source_layer (self);
  const CtNetShapeBlob *top, *label_top;
  Caffe__TransformationParameter *tp = NULL;
  g_autofree char *base_dir = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree float *values = NULL;
  g_autofree float *labels = NULL;
  gint64 dims[4];
  guint n_items;

  if (layer == NULL)
    {
      ct_window_show_error (self, _("The net has no Input layer nor a data layer whose images "
                                    "are known: the chosen input is not used"));
      return;
    }
  top = layer->tops->pdata[0];
  memcpy (dims, top->dims, sizeof dims);
  /* the layer's own transform (scale, mean file or values, crop), as its
   * source's images go through it (source-transform.h) */
  base_dir = ct_document_dup_base_dir (self->document);
  tp = ct_source_transform_resolve (layer->param != NULL ? layer->param->transform_param : NULL,
                                    base_dir);
  if (in->source == SOURCE_PATH)
    {
      g_autoptr (GPtrArray) files = NULL;

      n_items = 1;
      if (g_file_test (in->path, G_FILE_TEST_IS_DIR))
        {
          files = ct_input_list_folder (in->path, &error);
          n_items = files != NULL ? MAX (files->len, 1) : 1;
        }
      dims[0] = MIN ((gint64) n_items, top->dims[0]);
      n_items = (guint) dims[0];
      if (error == NULL)
        values = ct_source_transform_path (tp, in->path, n_items, dims + 1, layer->name, &error);
    }
  else
    {
      const CtFashionSet *set = fashion_set (in);

      n_items = (guint) MIN ((gint64) in->items->len, top->dims[0]);
      if (set == NULL)
        error = g_error_copy (in->fashion_error);
      else
        values = ct_source_transform_fashion (tp, set, (const guint *) (gpointer) in->items->data,
                                              n_items, dims + 1, &labels, layer->name, &error);
    }
  if (tp != NULL)
    protobuf_c_message_free_unpacked (&tp->base, NULL);
  if (values == NULL)
    {
      ct_window_report_error (self, _("The input cannot be used"), error);
      return;
    }
  ct_runner_set_items (runner, top->name, n_items, dims[1] * dims[2] * dims[3], values);
  if (labels == NULL || layer->tops->len < 2)
    return;
  /* the second top, one value per sample: their labels */
  label_top = layer->tops->pdata[1];
  if (label_top->known && label_top->n_axes >= 1 && label_top->dims[0] == top->dims[0]
      && ct_net_shape_blob_count (label_top) == label_top->dims[0])
    ct_runner_set_items (runner, label_top->name, n_items, 1, labels);
}

void
ct_window_inputs_apply (CtWindow *self, CtRunner *runner)
{
  CtWindowInputs *in = self->inputs;
  const Caffe__LayerParameter *layer = input_layer (self);
  const Caffe__BlobShape *shape;
  g_autoptr (GError) error = NULL;
  g_autofree float *values = NULL;
  g_autofree float *labels = NULL;
  gint64 dims[8];
  guint n_axes;

  in->changed = FALSE;
  if (in->source == SOURCE_FILL)
    return;
  if (layer == NULL)
    {
      apply_to_source (self, runner);
      return;
    }
  shape = layer->input_param->shape[0];
  n_axes = (guint) MIN (shape->n_dim, G_N_ELEMENTS (dims));
  for (guint a = 0; a < n_axes; a++)
    dims[a] = shape->dim[a];
  /* the run lowers the batch as the settings say */
  {
    guint batch = ct_run_controls_get_batch (self->run_controls);

    if (n_axes > 0 && batch > 0 && batch < dims[0])
      dims[0] = batch;
  }
  if (in->source == SOURCE_PATH)
    values = ct_input_load_path (in->path, ct_run_controls_get_transform (self->run_controls), dims, n_axes, &error);
  else
    {
      const CtFashionSet *set = fashion_set (in);

      if (set == NULL)
        error = g_error_copy (in->fashion_error);
      else
        values = ct_fashion_set_batch (set, (const guint *) (gpointer) in->items->data,
                                       in->items->len, dims, n_axes,
                                       ct_run_controls_get_transform (self->run_controls)->scale,
                                       &labels, &error);
    }
  if (values == NULL)
    {
      ct_window_report_error (self, _("The input cannot be used"), error);
      return;
    }
  ct_runner_set_input (runner, layer->top[0], dims, n_axes, values);
  /* a second top with one value per sample takes the labels */
  if (labels != NULL && layer->n_top > 1 && layer->input_param->n_shape > 1)
    {
      const Caffe__BlobShape *label_shape = layer->input_param->shape[1];
      gint64 count = 1;

      for (gsize a = 0; a < label_shape->n_dim; a++)
        count *= label_shape->dim[a];
      if (label_shape->n_dim >= 1 && count == label_shape->dim[0])
        {
          gint64 label_dims[1] = { dims[0] };
          ct_runner_set_input (runner, layer->top[1], label_dims, 1, labels);
        }
    }
}

/* The Fashion-MNIST browser (input-browser.c) */

static void
items_chosen (CtInputBrowser *browser, const guint *items, guint n_items, CtWindow *self)
{
  if (n_items == 0)
    {
      ct_window_show_toast (self, _("Select one or more items first"));
      return;
    }
  ct_window_inputs_set_items (self, items, n_items);
}

static void
browser_destroyed (GtkWidget *widget, CtWindow *self)
{
  self->inputs->browser = NULL;
}

GtkWindow *
ct_window_inputs_show_browser (CtWindow *self)
{
  CtWindowInputs *in = self->inputs;
  const CtFashionSet *set;

  if (in->browser != NULL)
    {
      gtk_window_present (GTK_WINDOW (in->browser));
      return GTK_WINDOW (in->browser);
    }
  set = fashion_set (in);
  in->browser = ct_input_browser_new (GTK_WINDOW (self), set, in->fashion_error);
  g_signal_connect (in->browser, "destroy", G_CALLBACK (browser_destroyed), self);
  g_signal_connect (in->browser, "use-items", G_CALLBACK (items_chosen), self);
  gtk_window_present (GTK_WINDOW (in->browser));
  return GTK_WINDOW (in->browser);
}

GtkSelectionModel *
ct_window_inputs_get_browser_selection (CtWindow *self)
{
  return self->inputs->browser != NULL ? ct_input_browser_get_selection (self->inputs->browser)
                                       : NULL;
}

/* The Input popover */

static void
path_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (file != NULL)
        ct_window_inputs_set_path (self, file);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

static void
open_input (CtWindow *self, gboolean folder)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (folder ? _("Open a Folder of Images") : _("Open an Image"),
                                         GTK_WINDOW (self),
                                         folder ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                                : GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Open"), _("_Cancel"));
  if (!folder)
    {
      g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, _("Images"));
      gtk_file_filter_add_pixbuf_formats (filter);
      gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
    }
  g_signal_connect (chooser, "response", G_CALLBACK (path_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
ct_window_open_image_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  open_input (data, FALSE);
}

void
ct_window_open_folder_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  open_input (data, TRUE);
}

void
ct_window_browse_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_inputs_show_browser (data);
}

void
ct_window_use_fill_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->inputs->source != SOURCE_FILL)
    inputs_changed (self, SOURCE_FILL);
}

/* the fill ignores the transform */
static void
transform_changed (CtRunControls *controls, CtWindow *self)
{
  if (self->inputs->source != SOURCE_FILL)
    self->inputs->changed = TRUE;
}

void
ct_window_init_inputs (CtWindow *self)
{
  self->inputs = g_new0 (CtWindowInputs, 1);
  self->inputs->items = g_array_new (FALSE, FALSE, sizeof (guint));
  /* the Input popover (run-controls.ui) holds the transform */
  g_signal_connect (self->run_controls, "transform-changed", G_CALLBACK (transform_changed), self);
  update_label (self);
}

void
ct_window_inputs_dispose (CtWindow *self)
{
  CtWindowInputs *in = self->inputs;

  if (in == NULL)
    return;
  if (self->run_controls != NULL)
    g_signal_handlers_disconnect_by_func (self->run_controls, transform_changed, self);
  if (in->browser != NULL)
    gtk_window_destroy (GTK_WINDOW (in->browser));
  g_free (in->path);
  g_array_unref (in->items);
  ct_fashion_set_free (in->fashion);
  g_clear_error (&in->fashion_error);
  g_clear_pointer (&self->inputs, g_free);
}

const GArray *
ct_window_inputs_get_items (CtWindow *self)
{
  return self->inputs->source == SOURCE_FASHION ? self->inputs->items : NULL;
}

const char *
ct_window_inputs_get_path (CtWindow *self)
{
  return self->inputs->source == SOURCE_PATH ? self->inputs->path : NULL;
}
