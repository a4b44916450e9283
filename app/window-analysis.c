/* window-analysis.c: win.analyze, "What the Net Learned…": the net on
 * screen (its data paths resolved against its folder) and the weights the
 * window loaded go to a CtAnalysisWindow, which counts the confusion
 * matrix over the TEST data and explains single images. Class names come
 * from labels.txt in the net's folder when there is one. */
#include <glib/gi18n-lib.h>

#include "analysis-window.h"
#include "window-private.h"

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
  gtk_window_present (GTK_WINDOW (window));
}
