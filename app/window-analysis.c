/* window-analysis.c: win.analyze, "What the Net Learned…": the net on
 * screen (its data paths resolved against its folder) and the weights the
 * window loaded go to a CtAnalysisWindow, which counts the confusion
 * matrix over the TEST data and explains single images. Class names come
 * from labels.txt in the net's folder when there is one.
 *
 * "Step Through This Image" makes the image picked the input of the step
 * view when the window can feed it: when it is the same-numbered item of
 * the Fashion-MNIST test set (the bundled example's TEST data), which the
 * step view then puts first in the Data layer's batch, the phase shown
 * switched to TEST. Other images are refused with a reason.
 *
 * "Compare Weights With…" there shows its comparison on the graph as
 * win.compare-weights does (window-compare.c). */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "analysis-window.h"
#include "model-compare-window.h"
#include "run-inputs.h"
#include "window-private.h"

/* Whether IMAGE is item INDEX of SET times one scale (the Data layer's
 * transform), pixel for pixel. */
static gboolean
is_fashion_item (const CtFashionSet *set, guint64 index, const float *image, guint channels,
                 guint height, guint width)
{
  gsize n = (gsize) height * width;
  const guint8 *pixels;
  double scale = -1.0;

  if (index >= set->count || channels != 1 || height != set->rows || width != set->cols)
    return FALSE;
  pixels = set->pixels + index * n;
  for (gsize i = 0; i < n; i++)
    if (pixels[i] != 0 && scale < 0.0)
      scale = image[i] / (double) pixels[i];
  for (gsize i = 0; i < n; i++)
    if (fabs (image[i] - pixels[i] * scale) > 1e-6 * MAX (1.0, fabs (image[i])))
      return FALSE;
  return scale > 0.0;
}

static void
step_through (CtAnalysisWindow *analysis, CtWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = ct_fashion_set_load (g_getenv ("CT_FASHION_DIR"), &error);
  guint channels = 0, height = 0, width = 0;
  guint64 index = 0;
  const float *image = ct_analysis_window_get_sample (analysis, &index, &channels, &height,
                                                      &width);
  guint item = (guint) index;
  g_autofree char *text = NULL;

  if (image == NULL)
    return;
  if (set == NULL || !is_fashion_item (set, index, image, channels, height, width))
    {
      g_clear_error (&error);
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("the step view takes images of the Fashion-MNIST test set, and "
                             "this one is not the test set's image of its number"));
      ct_window_report_error (self, _("Could not step through the image"), error);
      gtk_window_present (GTK_WINDOW (self));
      return;
    }
  g_action_group_change_action_state (G_ACTION_GROUP (self), "phase",
                                      g_variant_new_string ("test"));
  ct_window_inputs_set_items (self, &item, 1);
  text = g_strdup_printf (_("Image %u of the test set is the input: F7 steps through it"), item);
  ct_window_show_toast (self, text);
  gtk_window_present (GTK_WINDOW (self));
}

static void
compare_opened (CtAnalysisWindow *analysis, CtModelCompareWindow *compare, CtWindow *self)
{
  ct_window_show_weights_compare (self, compare);
}

void
ct_window_analyze_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  Caffe__NetParameter *net = ct_document_dup_resolved_net (self->document);
  g_autofree char *dir = ct_document_dup_base_dir (self->document);
  g_autofree char *labels = dir != NULL ? g_build_filename (dir, "labels.txt", NULL) : NULL;
  GFile *file = ct_document_get_file (self->document);
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : g_strdup (_("Untitled"));
  g_autoptr (GError) error = NULL;
  CtAnalysisWindow *window;

  if (net == NULL || self->weights == NULL)
    {
      g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           net == NULL ? _("The net has errors; fix them first.")
                                       : _("Open trained weights first (Open Weights…)."));
      ct_window_report_error (self, _("Nothing to analyze"), error);
      if (net != NULL)
        protobuf_c_message_free_unpacked (&net->base, NULL);
      return;
    }
  if (labels != NULL && !g_file_test (labels, G_FILE_TEST_EXISTS))
    g_clear_pointer (&labels, g_free);
  window = ct_analysis_window_new (GTK_WINDOW (self), net, name,
                                   g_file_peek_path (self->weights), labels);
  protobuf_c_message_free_unpacked (&net->base, NULL);
  g_signal_connect_object (window, "step-through", G_CALLBACK (step_through), self, 0);
  g_signal_connect_object (window, "compare-opened", G_CALLBACK (compare_opened), self, 0);
  gtk_window_present (GTK_WINDOW (window));
}
