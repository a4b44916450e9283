/* draw-input.c: CtDrawInput (see draw-input.h).
 *
 * What is drawn into. The net's first Input layer (deploy nets): its
 * first top, one sample of C×H×W, through the transform of the run's
 * Input popover (scale, per-channel mean) as image files are. Otherwise
 * the first data-source layer of the TEST phase (Data, ImageData...)
 * whose top is N×C×H×W: the drawing goes through the layer's own
 * transform_param, mean file included (source-transform.h), as the layer
 * treats the images it reads, and the runner's copy of the net has an
 * Input layer in its place (tops of 1×C×H×W and, for a label, 1): a
 * pass reads nothing from the layer's source. Its shape comes from the
 * document's check, which needs the source (or a stand-in shape) once.
 *
 * Which blob holds the scores: the top of the last layer that is not a
 * loss, an accuracy or a silence, with one row of K ≥ 2 values per
 * sample (ip2 of LeNet, or prob when the net ends in Softmax). The first
 * pass finds it; the runner then copies it after every pass. Softmax is
 * applied unless the layer is a Softmax already. */
#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "draw-input.h"
#include "atomic-write.h"
#include "class-names.h"
#include "image.h"
#include "layer-catalogue.h"
#include "runner.h"
#include "source-transform.h"
#include "window-private.h"

struct _CtDrawInput {
  AdwWindow parent_instance;

  CtWindow *window;            /* weak */
  CtDocument *document;        /* the window's, watched for edits */
  gboolean stale;              /* the net was edited since it was built */
  char *weights;               /* the weights it runs with, or NULL */
  AdwWindowTitle *title;
  CtDrawCanvas *canvas;
  GtkToggleButton *brush_button;
  GtkToggleButton *eraser_button;
  GtkLabel *status;
  GtkLabel *prediction;
  GtkGrid *score_grid;
  GPtrArray *score_rows;       /* GtkWidget* triples: name, bar, percent */

  /* The target */
  char *blob;                  /* the top drawn into */
  gboolean to_source;          /* a data-source layer's top: its transform */
  gint64 dims[4];              /* 1 × C × H × W as the runner feeds it */
  Caffe__TransformationParameter *transform; /* the source layer's (owned copy) */

  CtRunner *runner;
  char *scores_blob;           /* found by the first pass */
  gboolean scores_are_prob;
  gboolean in_flight;          /* a pass is queued */
  gboolean dirty;              /* the drawing changed since that pass was queued */
  guint64 drawing_serial;      /* counts the drawing's changes */
  guint64 pass_serial;         /* the drawing the queued pass computes */
  float *net_input;            /* what that pass was given */
  gint64 net_shape[3];
  float *pending_input;
  float *scores;
  guint n_scores;
  guint64 scores_serial;
  char *error;
  char **labels;
};

G_DEFINE_FINAL_TYPE (CtDrawInput, ct_draw_input, ADW_TYPE_WINDOW)

/* The target */

static const char *const not_scores[] = { "Accuracy", "Silence", NULL };

static gboolean
is_scores_layer (const char *type)
{
  return type != NULL && !g_str_has_suffix (type, "Loss")
         && !g_strv_contains (not_scores, type);
}

/* Whether LAYER is in the TEST phase's net (its include and exclude
 * rules by phase only: levels and stages are left to the engine). */
static gboolean
in_test_phase (const Caffe__LayerParameter *layer)
{
  for (gsize i = 0; i < layer->n_exclude; i++)
    if (layer->exclude[i]->has_phase && layer->exclude[i]->phase == CAFFE__PHASE__TEST)
      return FALSE;
  if (layer->n_include == 0)
    return TRUE;
  for (gsize i = 0; i < layer->n_include; i++)
    if (!layer->include[i]->has_phase || layer->include[i]->phase == CAFFE__PHASE__TEST)
      return TRUE;
  return FALSE;
}

static gboolean
find_input_layer (CtDrawInput *self, const Caffe__NetParameter *net)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];
      const Caffe__BlobShape *shape;

      if (g_strcmp0 (layer->type, "Input") != 0 || layer->input_param == NULL
          || layer->input_param->n_shape == 0 || layer->n_top == 0 || !in_test_phase (layer))
        continue;
      shape = layer->input_param->shape[0];
      if (shape->n_dim != 4 || (shape->dim[1] != 1 && shape->dim[1] != 3))
        return FALSE;
      self->blob = g_strdup (layer->top[0]);
      self->dims[0] = 1;
      for (int a = 1; a < 4; a++)
        self->dims[a] = shape->dim[a];
      return TRUE;
    }
  return FALSE;
}

static Caffe__TransformationParameter *
copy_transform (const Caffe__TransformationParameter *transform)
{
  gsize size = caffe__transformation_parameter__get_packed_size (transform);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));

  caffe__transformation_parameter__pack (transform, bytes);
  return caffe__transformation_parameter__unpack (NULL, size, bytes);
}

/* LAYER (a data-source layer) made an Input layer of one sample of DIMS
 * for its first top and one value for each other top (a label). Memory
 * from malloc, as protobuf-c frees the message. */
static void
make_input_layer (Caffe__LayerParameter *layer, const gint64 dims[4])
{
  Caffe__InputParameter *input = malloc (sizeof *input);

  caffe__input_parameter__init (input);
  input->n_shape = layer->n_top;
  input->shape = calloc (layer->n_top, sizeof (Caffe__BlobShape *));
  for (gsize t = 0; t < layer->n_top; t++)
    {
      Caffe__BlobShape *shape = malloc (sizeof *shape);

      caffe__blob_shape__init (shape);
      shape->n_dim = t == 0 ? 4 : 1;
      shape->dim = calloc (shape->n_dim, sizeof (int64_t));
      shape->dim[0] = 1;
      for (gsize a = 1; a < shape->n_dim; a++)
        shape->dim[a] = dims[a];
      input->shape[t] = shape;
    }
  free (layer->type);
  layer->type = strdup ("Input");
  if (layer->input_param != NULL)
    protobuf_c_message_free_unpacked (&layer->input_param->base, NULL);
  layer->input_param = input;
}

static gboolean
find_source_layer (CtDrawInput *self, CtDocument *document, Caffe__NetParameter *net)
{
  const CtNetShapes *shapes = ct_document_get_test_shapes (document);

  if (shapes == NULL)
    shapes = ct_document_get_shapes (document);
  for (gsize i = 0; i < net->n_layer; i++)
    {
      Caffe__LayerParameter *layer = net->layer[i];
      const CtLayerClass *klass = ct_layer_catalogue_lookup (layer->type != NULL ? layer->type : "");

      if (klass == NULL || !klass->is_data_source || layer->n_top == 0 || !in_test_phase (layer))
        continue;
      /* its top's shape, as the last check inferred it */
      for (guint j = 0; shapes != NULL && j < shapes->layers->len; j++)
        {
          const CtNetShapeLayer *shaped = shapes->layers->pdata[j];
          const CtNetShapeBlob *top;

          if (g_strcmp0 (shaped->name, layer->name) != 0 || shaped->tops->len == 0)
            continue;
          top = shaped->tops->pdata[0];
          if (!top->known || top->n_axes != 4 || (top->dims[1] != 1 && top->dims[1] != 3))
            continue;
          self->blob = g_strdup (layer->top[0]);
          self->to_source = TRUE;
          self->dims[0] = 1;
          for (int a = 1; a < 4; a++)
            self->dims[a] = top->dims[a];
          if (layer->transform_param != NULL)
            self->transform = copy_transform (layer->transform_param);
          make_input_layer (layer, self->dims);
          return TRUE;
        }
    }
  return FALSE;
}

/* The labels.txt beside the net, one class a line, each translated when
 * the catalogue knows it (the Fashion-MNIST classes). */
static char **
read_labels (CtDocument *document)
{
  g_autofree char *dir = ct_document_dup_base_dir (document);
  g_autofree char *path = dir != NULL ? g_build_filename (dir, "labels.txt", NULL) : NULL;
  char **names;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS)
      || (names = ct_class_names_load (path, NULL)) == NULL)
    return NULL;
  for (guint i = 0; names[i] != NULL; i++)
    {
      char *shown = g_strdup (_(names[i]));

      g_free (names[i]);
      names[i] = shown;
    }
  return names;
}

/* The drawing as the net gets it: C×H×W floats. */
static float *
net_input (CtDrawInput *self, GError **error)
{
  int c = (int) self->dims[1], h = (int) self->dims[2], w = (int) self->dims[3];
  g_autofree guint8 *pixels = ct_source_pixels_from_values (
      ct_draw_canvas_get_values (self->canvas), c, h, w);
  Caffe__TransformationParameter local = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  const Caffe__TransformationParameter *transform = self->transform;
  float means[3];

  if (!self->to_source)
    {
      /* the Input popover's transform, as image files get it (its means
       * are in the blob's channel order already) */
      const CtInputTransform *t = ct_run_controls_get_transform (self->window->run_controls);

      local.has_scale = TRUE;
      local.scale = t->scale;
      for (int i = 0; i < c; i++)
        means[i] = t->mean[i];
      local.n_mean_value = (gsize) c;
      local.mean_value = means;
      transform = &local;
    }
  return ct_source_transform_pixels (transform, pixels, 1, c, h, w, self->blob, self->net_shape,
                                     error);
}

/* Scores */

static void
show_error (CtDrawInput *self, const char *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_label_set_text (self->status, message);
  gtk_widget_set_visible (GTK_WIDGET (self->status), message != NULL);
}

static void
ensure_rows (CtDrawInput *self, guint n)
{
  while (self->score_rows->len / 3 < n)
    {
      guint k = self->score_rows->len / 3;
      g_autofree char *fallback = NULL;
      const char *name;
      GtkWidget *label, *bar, *percent;

      if (self->labels != NULL && k < g_strv_length (self->labels))
        name = self->labels[k];
      else
        /* TRANSLATORS: a class without a name in labels.txt; %u is its number */
        name = fallback = g_strdup_printf (_("Class %u"), k);
      label = gtk_label_new (name);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      bar = gtk_level_bar_new_for_interval (0, 1);
      gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_LOW);
      gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_HIGH);
      gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_FULL);
      gtk_widget_set_hexpand (bar, TRUE);
      gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
      gtk_widget_set_size_request (bar, 120, 12);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (bar), GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                      label, NULL, -1);
      percent = gtk_label_new ("");
      gtk_label_set_xalign (GTK_LABEL (percent), 1);
      gtk_label_set_width_chars (GTK_LABEL (percent), 7);
      gtk_widget_add_css_class (percent, "numeric");
      gtk_grid_attach (self->score_grid, label, 0, (int) k, 1, 1);
      gtk_grid_attach (self->score_grid, bar, 1, (int) k, 1, 1);
      gtk_grid_attach (self->score_grid, percent, 2, (int) k, 1, 1);
      g_ptr_array_add (self->score_rows, label);
      g_ptr_array_add (self->score_rows, bar);
      g_ptr_array_add (self->score_rows, percent);
    }
}

static void
show_scores (CtDrawInput *self)
{
  guint best = 0;

  ensure_rows (self, self->n_scores);
  for (guint k = 0; k < self->n_scores; k++)
    {
      GtkWidget *label = self->score_rows->pdata[3 * k];
      GtkWidget *bar = self->score_rows->pdata[3 * k + 1];
      GtkWidget *percent = self->score_rows->pdata[3 * k + 2];
      char number[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *text = NULL;

      if (self->scores[k] > self->scores[best])
        best = k;
      gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), self->scores[k]);
      g_ascii_formatd (number, sizeof number, "%.1f", 100.0 * self->scores[k]);
      /* TRANSLATORS: a class's score; %s is a number such as 93.1 */
      text = g_strdup_printf (_("%s %%"), number);
      gtk_label_set_text (GTK_LABEL (percent), text);
      gtk_widget_remove_css_class (label, "heading");
    }
  for (guint i = 3 * self->n_scores; i < self->score_rows->len; i++)
    gtk_widget_set_visible (self->score_rows->pdata[i], FALSE);
  if (self->n_scores > 0)
    {
      GtkWidget *label = self->score_rows->pdata[3 * best];
      char number[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *text = NULL;

      gtk_widget_add_css_class (label, "heading");
      g_ascii_formatd (number, sizeof number, "%.1f", 100.0 * self->scores[best]);
      /* TRANSLATORS: the net's guess; %s a class name, the second %s its score */
      text = g_strdup_printf (_("The net says: %s (%s %%)"),
                              gtk_label_get_text (GTK_LABEL (label)), number);
      gtk_label_set_text (self->prediction, text);
    }
}

/* The blob that holds the scores, from a snapshot of a complete pass. */
static void
find_scores_blob (CtDrawInput *self, CtRunSnapshot *snapshot)
{
  for (guint i = ct_run_snapshot_n_layers (snapshot); i > 0; i--)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i - 1);
      const CtRunBlob *top;

      if (!is_scores_layer (layer->type) || layer->n_tops == 0)
        continue;
      top = ct_run_snapshot_get_blob (snapshot, layer->tops[0]);
      if (top->n_axes < 2 || top->dims[0] != 1 || top->count < 2 || top->count != top->dims[1])
        continue;
      self->scores_blob = g_strdup (top->name);
      self->scores_are_prob = g_strcmp0 (layer->type, "Softmax") == 0;
      return;
    }
}

static void take_scores (CtDrawInput *self, const CtRunBlob *blob)
{
  const CtRunVersion *version;
  const float *values;
  double top = -INFINITY, sum = 0;

  if (blob == NULL || blob->versions == NULL || blob->versions->len == 0)
    return;
  version = blob->versions->pdata[blob->versions->len - 1];
  values = g_bytes_get_data (version->data, NULL);
  g_free (self->scores);
  self->n_scores = (guint) version->count;
  self->scores = g_new (float, self->n_scores);
  if (self->scores_are_prob)
    memcpy (self->scores, values, sizeof (float) * self->n_scores);
  else
    {
      /* softmax, shifted by the largest score so that exp cannot overflow */
      for (guint k = 0; k < self->n_scores; k++)
        top = MAX (top, values[k]);
      for (guint k = 0; k < self->n_scores; k++)
        sum += exp (values[k] - top);
      for (guint k = 0; k < self->n_scores; k++)
        self->scores[k] = (float) (exp (values[k] - top) / sum);
    }
  self->scores_serial = self->pass_serial;
  g_free (self->net_input);
  self->net_input = g_steal_pointer (&self->pending_input);
  show_scores (self);
}

static void request_pass (CtDrawInput *self);

static void
snapshot_arrived (CtRunner *runner, CtRunSnapshot *snapshot, gpointer data)
{
  CtDrawInput *self = data;
  const GError *error = ct_run_snapshot_get_error (snapshot);

  /* a pass hands over a snapshot per layer: only its last counts */
  if (ct_runner_is_busy (runner))
    return;
  self->in_flight = FALSE;
  if (error != NULL)
    show_error (self, error->message);
  else if (ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_FORWARD
           && (guint) ct_run_snapshot_get_next_layer (snapshot) == ct_run_snapshot_n_layers (snapshot))
    {
      if (self->scores_blob == NULL)
        {
          const char *names[2] = { NULL, NULL };

          find_scores_blob (self, snapshot);
          if (self->scores_blob == NULL)
            {
              show_error (self, _("The net has no output of one score per class"));
              return;
            }
          names[0] = self->scores_blob;
          ct_runner_watch (runner, names);
          self->dirty = TRUE;   /* the copy comes with the next pass */
        }
      else
        {
          show_error (self, NULL);
          take_scores (self, ct_run_snapshot_find_blob (snapshot, self->scores_blob));
        }
    }
  if (self->dirty)
    request_pass (self);
}

/* One forward pass for the drawing as it is now, or later when one runs. */
static void
request_pass (CtDrawInput *self)
{
  g_autoptr (GError) error = NULL;
  float *values;

  if (self->runner == NULL)
    return;
  if (self->in_flight)
    {
      self->dirty = TRUE;
      return;
    }
  self->dirty = FALSE;
  values = net_input (self, &error);
  if (values == NULL)
    {
      show_error (self, error->message);
      return;
    }
  {
    gint64 dims[4] = { 1, self->net_shape[0], self->net_shape[1], self->net_shape[2] };
    ct_runner_set_input (self->runner, self->blob, dims, 4, values);
  }
  g_free (self->pending_input);
  self->pending_input = values;
  self->pass_serial = self->drawing_serial;
  self->in_flight = TRUE;
  ct_runner_reset (self->runner);
  ct_runner_run_pass (self->runner);
}

static void
drawing_changed (CtDrawCanvas *canvas, CtDrawInput *self)
{
  self->drawing_serial++;
  request_pass (self);
}

/* The controls */

static void
tool_toggled (GtkToggleButton *button, CtDrawInput *self)
{
  if (gtk_toggle_button_get_active (button))
    ct_draw_canvas_set_tool (self->canvas, button == self->eraser_button ? CT_DRAW_TOOL_ERASER
                                                                          : CT_DRAW_TOOL_BRUSH);
}

void
ct_draw_input_paste_texture (CtDrawInput *self, GdkTexture *texture)
{
  int gw = ct_draw_canvas_get_grid_width (self->canvas);
  int gh = ct_draw_canvas_get_grid_height (self->canvas);
  int tw = gdk_texture_get_width (texture), th = gdk_texture_get_height (texture);
  g_autofree guint8 *rgba = g_malloc ((gsize) tw * th * 4);
  g_autofree float *grey = g_new (float, (gsize) tw * th);
  g_autofree float *values = g_new0 (float, (gsize) gw * gh);
  double border = 0, scale;
  int border_n = 0, fw, fh, ox, oy;

  gdk_texture_download (texture, rgba, (gsize) tw * 4);
  for (gsize i = 0; i < (gsize) tw * th; i++)
    {
      /* GDK_MEMORY_DEFAULT is B, G, R, A premultiplied: over white */
      const guint8 *p = rgba + i * 4;
      double a = p[3] / 255.0;
      double luma = (0.114 * p[0] + 0.587 * p[1] + 0.299 * p[2]) / 255.0 + (1 - a);

      grey[i] = (float) CLAMP (luma, 0.0, 1.0);
    }
  /* a light background (a photo, a scan) becomes dark, ink light, as the
   * net's training images are */
  for (int x = 0; x < tw; x++)
    border += grey[x] + grey[(gsize) (th - 1) * tw + x], border_n += 2;
  for (int y = 0; y < th; y++)
    border += grey[(gsize) y * tw] + grey[(gsize) y * tw + tw - 1], border_n += 2;
  if (border / border_n > 0.5)
    for (gsize i = 0; i < (gsize) tw * th; i++)
      grey[i] = 1 - grey[i];
  /* fitted into the grid, keeping its proportions; each grid pixel the
   * mean of the picture's pixels it covers */
  scale = MIN ((double) gw / tw, (double) gh / th);
  fw = MAX (1, (int) lround (tw * scale));
  fh = MAX (1, (int) lround (th * scale));
  ox = (gw - fw) / 2;
  oy = (gh - fh) / 2;
  for (int y = 0; y < fh; y++)
    for (int x = 0; x < fw; x++)
      {
        int x0 = x * tw / fw, x1 = MAX (x0 + 1, (x + 1) * tw / fw);
        int y0 = y * th / fh, y1 = MAX (y0 + 1, (y + 1) * th / fh);
        double sum = 0;

        for (int sy = y0; sy < y1; sy++)
          for (int sx = x0; sx < x1; sx++)
            sum += grey[(gsize) sy * tw + sx];
        values[(gsize) (y + oy) * gw + x + ox] = (float) (sum / ((x1 - x0) * (y1 - y0)));
      }
  ct_draw_canvas_set_values (self->canvas, values);
}

static void
texture_read (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (CtDrawInput) self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = gdk_clipboard_read_texture_finish (GDK_CLIPBOARD (source),
                                                                       result, &error);

  if (texture == NULL)
    {
      show_error (self, _("The clipboard holds no picture"));
      return;
    }
  ct_draw_input_paste_texture (self, texture);
}

static void
paste_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  CtDrawInput *self = CT_DRAW_INPUT (widget);

  gdk_clipboard_read_texture_async (gtk_widget_get_clipboard (widget), NULL, texture_read,
                                    g_object_ref (self));
}

static void
clear_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  ct_draw_canvas_clear (CT_DRAW_INPUT (widget)->canvas);
}

/* The drawing as the main window's input: a grey PNG in the cache folder,
 * given as an image file is, then the first step. */
static void
step_activated (GtkWidget *widget, const char *action, GVariant *param)
{
  CtDrawInput *self = CT_DRAW_INPUT (widget);
  int h = (int) self->dims[2], w = (int) self->dims[3];
  g_autofree guint8 *bytes = ct_source_pixels_from_values (ct_draw_canvas_get_values (self->canvas),
                                                           1, h, w);
  CtPixels pixels = { .channels = 1, .height = h, .width = w, .u8 = bytes };
  g_autoptr (GBytes) png = ct_pixels_encode_png (&pixels);
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "cortado", NULL);
  g_autofree char *path = g_build_filename (dir, "drawn-input.png", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;

  if (self->window == NULL)
    return;
  if (g_mkdir_with_parents (dir, 0700) != 0
      || !ct_file_write_atomic (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                                &error))
    {
      show_error (self, error != NULL ? error->message : _("The drawing could not be saved"));
      return;
    }
  ct_window_inputs_set_path (self->window, file);
  g_action_group_activate_action (G_ACTION_GROUP (self->window), "run-reset", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (self->window), "run-forward", NULL);
}

/* Building */

static GtkWidget *
icon_button (GtkWidget *button, const char *icon, const char *label, const char *tooltip)
{
  GtkWidget *content = adw_button_content_new ();

  adw_button_content_set_icon_name (ADW_BUTTON_CONTENT (content), icon);
  adw_button_content_set_label (ADW_BUTTON_CONTENT (content), label);
  adw_button_content_set_use_underline (ADW_BUTTON_CONTENT (content), TRUE);
  gtk_button_set_child (GTK_BUTTON (button), content);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  tooltip, -1);
  return button;
}

static void
build_ui (CtDrawInput *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *tools = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *clear, *paste, *step, *body, *left, *right, *caption, *heading;

  self->title = ADW_WINDOW_TITLE (adw_window_title_new (_("Draw an Input"), ""));
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), GTK_WIDGET (self->title));

  gtk_widget_add_css_class (tools, "linked");
  self->brush_button = GTK_TOGGLE_BUTTON (icon_button (gtk_toggle_button_new (),
                                                       "document-edit-symbolic", _("_Brush"),
                                                       _("Draw with the brush")));
  self->eraser_button = GTK_TOGGLE_BUTTON (icon_button (gtk_toggle_button_new (),
                                                        "edit-clear-symbolic", _("_Eraser"),
                                                        _("Erase with the eraser")));
  gtk_toggle_button_set_group (self->eraser_button, self->brush_button);
  gtk_toggle_button_set_active (self->brush_button, TRUE);
  g_signal_connect (self->brush_button, "toggled", G_CALLBACK (tool_toggled), self);
  g_signal_connect (self->eraser_button, "toggled", G_CALLBACK (tool_toggled), self);
  gtk_box_append (GTK_BOX (tools), GTK_WIDGET (self->brush_button));
  gtk_box_append (GTK_BOX (tools), GTK_WIDGET (self->eraser_button));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), tools);

  clear = icon_button (gtk_button_new (), "edit-clear-all-symbolic", _("_Clear"),
                       _("Clear the drawing"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (clear), "draw.clear");
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), clear);
  paste = icon_button (gtk_button_new (), "edit-paste-symbolic", _("_Paste"),
                       _("Paste a picture from the clipboard"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (paste), "draw.paste");
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), paste);

  step = gtk_button_new_with_mnemonic (_("_Step Through"));
  gtk_widget_set_tooltip_text (step, _("Give the drawing to the net in the main window and "
                                       "step its first layer"));
  gtk_widget_add_css_class (step, "suggested-action");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (step), "draw.step");
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), step);
  gtk_box_append (GTK_BOX (box), header);

  body = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 24);
  gtk_widget_set_margin_start (body, 18);
  gtk_widget_set_margin_end (body, 18);
  gtk_widget_set_margin_top (body, 18);
  gtk_widget_set_margin_bottom (body, 18);
  gtk_widget_set_vexpand (body, TRUE);

  left = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  self->canvas = CT_DRAW_CANVAS (ct_draw_canvas_new (28, 28));
  gtk_widget_set_hexpand (GTK_WIDGET (self->canvas), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->canvas), TRUE);
  g_signal_connect (self->canvas, "changed", G_CALLBACK (drawing_changed), self);
  gtk_box_append (GTK_BOX (left), GTK_WIDGET (self->canvas));
  caption = gtk_label_new (_("Draw with the mouse: dark strokes are what the net sees as "
                             "bright pixels."));
  gtk_label_set_wrap (GTK_LABEL (caption), TRUE);
  gtk_widget_add_css_class (caption, "dim-label");
  gtk_box_append (GTK_BOX (left), caption);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->canvas),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  gtk_label_get_text (GTK_LABEL (caption)), -1);
  gtk_box_append (GTK_BOX (body), left);

  right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_widget_set_size_request (right, 300, -1);
  heading = gtk_label_new (_("Class Scores"));
  gtk_widget_add_css_class (heading, "title-3");
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_box_append (GTK_BOX (right), heading);
  self->prediction = GTK_LABEL (gtk_label_new (_("Draw something to see what the net "
                                                 "makes of it")));
  gtk_label_set_wrap (GTK_LABEL (self->prediction), TRUE);
  gtk_label_set_xalign (self->prediction, 0);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->prediction),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Prediction"), -1);
  gtk_box_append (GTK_BOX (right), GTK_WIDGET (self->prediction));
  self->score_grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_row_spacing (self->score_grid, 6);
  gtk_grid_set_column_spacing (self->score_grid, 12);
  gtk_box_append (GTK_BOX (right), GTK_WIDGET (self->score_grid));
  self->status = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_wrap (self->status, TRUE);
  gtk_label_set_xalign (self->status, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->status), FALSE);
  gtk_box_append (GTK_BOX (right), GTK_WIDGET (self->status));
  gtk_box_append (GTK_BOX (body), right);
  gtk_box_append (GTK_BOX (box), body);

  adw_window_set_content (ADW_WINDOW (self), box);
}

/* The object */

static void
ct_draw_input_dispose (GObject *object)
{
  CtDrawInput *self = CT_DRAW_INPUT (object);

  g_clear_pointer (&self->runner, ct_runner_free);
  g_clear_weak_pointer (&self->window);
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  g_clear_object (&self->document);
  G_OBJECT_CLASS (ct_draw_input_parent_class)->dispose (object);
}

static void
ct_draw_input_finalize (GObject *object)
{
  CtDrawInput *self = CT_DRAW_INPUT (object);

  g_free (self->blob);
  g_free (self->weights);
  if (self->transform != NULL)
    protobuf_c_message_free_unpacked (&self->transform->base, NULL);
  g_free (self->scores_blob);
  g_free (self->net_input);
  g_free (self->pending_input);
  g_free (self->scores);
  g_free (self->error);
  g_strfreev (self->labels);
  g_ptr_array_unref (self->score_rows);
  G_OBJECT_CLASS (ct_draw_input_parent_class)->finalize (object);
}

static void
ct_draw_input_class_init (CtDrawInputClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_draw_input_dispose;
  object_class->finalize = ct_draw_input_finalize;

  gtk_widget_class_install_action (widget_class, "draw.paste", NULL, paste_activated);
  gtk_widget_class_install_action (widget_class, "draw.clear", NULL, clear_activated);
  gtk_widget_class_install_action (widget_class, "draw.step", NULL, step_activated);
  /* listed in the shortcuts window (data/help-overlay.ui) */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_v, GDK_CONTROL_MASK, "draw.paste",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, GDK_CONTROL_MASK,
                                       "draw.clear", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK,
                                       "draw.step", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ct_draw_input_init (CtDrawInput *self)
{
  self->score_rows = g_ptr_array_new ();
  build_ui (self);
}

static void
document_changed (CtDocument *document, CtDocumentChange flags, CtDrawInput *self)
{
  if (flags & (CT_DOCUMENT_CHANGE_NET | CT_DOCUMENT_CHANGE_LOAD))
    self->stale = TRUE;
}

CtDrawInput *
ct_draw_input_new (CtWindow *window)
{
  CtDrawInput *self = g_object_new (CT_TYPE_DRAW_INPUT, "transient-for", window,
                                    "default-width", 760, "default-height", 560, NULL);
  Caffe__NetParameter *net = ct_document_get_net (window->document) != NULL
                                 ? ct_document_dup_resolved_net (window->document) : NULL;
  g_autofree char *weights = window->weights != NULL ? g_file_get_path (window->weights) : NULL;
  CtRunConfig config = {
    .phase = CAFFE__PHASE__TEST,
    .batch_size = 1,
    .seed = ct_run_controls_get_seed (window->run_controls),
    .weights = weights,
    .fill = CT_RUN_FILL_NONE,
    .leave_a_core = TRUE,
  };

  g_set_weak_pointer (&self->window, window);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
  self->document = g_object_ref (window->document);
  self->weights = g_strdup (weights);
  g_signal_connect (self->document, "changed", G_CALLBACK (document_changed), self);
  gtk_window_set_title (GTK_WINDOW (self), _("Draw an Input"));
  if (net != NULL)
    adw_window_title_set_subtitle (self->title, net->name != NULL ? net->name : "");
  self->labels = read_labels (window->document);
  if (net == NULL)
    show_error (self, _("The net cannot run: fix the prototxt first"));
  else if (!find_input_layer (self, net) && !find_source_layer (self, window->document, net))
    show_error (self, _("The net has no input of 1 or 3 channels of known size to draw into"));
  else
    {
      g_autofree char *shape = ct_net_graph_shape_text (self->dims + 1, 3);
      /* TRANSLATORS: the drawing's size and the blob it feeds: "1×28×28 → data" */
      g_autofree char *text = g_strdup_printf (_("%s → %s"), shape, self->blob);

      adw_window_title_set_subtitle (self->title, text);
      ct_draw_canvas_set_grid_size (self->canvas, (int) self->dims[3], (int) self->dims[2]);
      self->runner = ct_runner_new (net, &config, snapshot_arrived, self);
      request_pass (self);
    }
  if (net != NULL)
    protobuf_c_message_free_unpacked (&net->base, NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "draw.step", self->runner != NULL);
  return self;
}

CtDrawCanvas *
ct_draw_input_get_canvas (CtDrawInput *self)
{
  return self->canvas;
}

const float *
ct_draw_input_get_scores (CtDrawInput *self, guint *n_classes, guint64 *serial_out)
{
  *n_classes = self->n_scores;
  *serial_out = self->scores_serial;
  return self->scores;
}

guint64
ct_draw_input_get_drawing_serial (CtDrawInput *self)
{
  return self->drawing_serial;
}

const float *
ct_draw_input_get_net_input (CtDrawInput *self, gint64 shape[3])
{
  memcpy (shape, self->net_shape, sizeof (gint64) * 3);
  return self->net_input;
}

const char *
ct_draw_input_get_error (CtDrawInput *self)
{
  return self->error;
}

static void
forget (GtkWidget *widget, CtWindow *window)
{
  if (g_object_get_data (G_OBJECT (window), "ct-draw-input") == widget)
    g_object_set_data (G_OBJECT (window), "ct-draw-input", NULL);
}

/* win.draw-input: one drawing window per main window, made anew (keeping
 * the drawing when its size still fits) when the net or its weights
 * changed since, as its runner has the net as it was. */
void
ct_window_draw_input_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *window = data;
  CtDrawInput *old = g_object_get_data (G_OBJECT (window), "ct-draw-input");
  g_autofree char *weights = window->weights != NULL ? g_file_get_path (window->weights) : NULL;
  CtDrawInput *self;

  if (old != NULL && !old->stale && g_strcmp0 (old->weights, weights) == 0)
    {
      gtk_window_present (GTK_WINDOW (old));
      return;
    }
  self = ct_draw_input_new (window);
  if (old != NULL)
    {
      if (ct_draw_canvas_get_grid_width (old->canvas) == ct_draw_canvas_get_grid_width (self->canvas)
          && ct_draw_canvas_get_grid_height (old->canvas) == ct_draw_canvas_get_grid_height (self->canvas))
        ct_draw_canvas_set_values (self->canvas, ct_draw_canvas_get_values (old->canvas));
      gtk_window_destroy (GTK_WINDOW (old));
    }
  g_object_set_data (G_OBJECT (window), "ct-draw-input", self);
  g_signal_connect_object (self, "destroy", G_CALLBACK (forget), window, 0);
  gtk_window_present (GTK_WINDOW (self));
}
