/* window-compare.c: comparing, shown on the graph. win.compare-weights
 * compares the weights loaded, or those of the training run while it goes,
 * is paused or stands at a breakpoint (the trainer's worker writes them
 * between iterations, window-train.c), with another snapshot of the net
 * in a CtModelCompareWindow, colours each layer with parameters by its
 * ‖Δw‖/‖w‖ and lets the graph's selection pick the blob it shows.
 * win.compare-saved, win.compare-file and win.compare-revision compare
 * the document's text with its saved file, another prototxt or the file
 * at a git revision (read by git on a worker, files/git-revision.h) in a
 * CtNetCompareWindow, and colour the layers added, renamed and changed.
 * Each window's "Clear Colours" takes the marks off the graph, and so does
 * closing the window whose marks the graph shows: the legend goes with it. */
#include <glib/gi18n-lib.h>

#include "git-revision.h"
#include "model-compare-window.h"
#include "net-compare-window.h"
#include "net-diff-marks.h"
#include "net-diff.h"
#include "weight-compare.h"
#include "window-private.h"

#define MARKS_OWNER "ct-compare-marks-owner"

/* Weights */

static void
clear_marks (GtkWindow *compare, CtWindow *self)
{
  ct_graph_view_clear_marks (self->graph_view);
  g_object_set_data (G_OBJECT (self), MARKS_OWNER, NULL);
}

/* The graph's marks now come from COMPARE. */
static void
own_marks (CtWindow *self, GtkWindow *compare)
{
  g_object_set_data (G_OBJECT (self), MARKS_OWNER, compare);
}

static void
compare_destroyed (GtkWindow *compare, CtWindow *self)
{
  if (g_object_get_data (G_OBJECT (self), MARKS_OWNER) == compare)
    clear_marks (compare, self);
}

static void
watch_compare (CtWindow *self, GtkWindow *compare)
{
  g_signal_connect_object (compare, "clear-marks", G_CALLBACK (clear_marks), self, 0);
  g_signal_connect_object (compare, "destroy", G_CALLBACK (compare_destroyed), self, 0);
}

static void
weights_compared (CtModelCompareWindow *compare, CtWindow *self)
{
  const GPtrArray *layers = ct_model_compare_window_get_layers (compare);
  g_autofree CtGraphNodeMark *marks = g_new0 (CtGraphNodeMark, MAX (layers->len, 1));
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  const char *const *selected = ct_selection_get_ids (self->selection);

  for (guint i = 0; i < layers->len; i++)
    {
      const CtLayerChange *c = layers->pdata[i];
      CtRgb rgb = ct_change_scale_color (c->relative);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (buf, sizeof buf, "%.3g", c->relative);
      /* TRANSLATORS: a layer's tooltip after comparing two sets of weights */
      g_ptr_array_add (notes, g_strdup_printf (_("weights changed by ‖Δw‖/‖w‖ = %s"), buf));
      marks[i].id = c->layer;
      marks[i].color = (CtGraphColor) { rgb.r / 255.0, rgb.g / 255.0, rgb.b / 255.0, 1.0 };
      marks[i].note = notes->pdata[i];
    }
  ct_graph_view_set_marks (self->graph_view, marks, layers->len);
  own_marks (self, GTK_WINDOW (compare));
  if (selected[0] != NULL)
    ct_model_compare_window_select_layer (compare, selected[0]);
}

static void
selection_for_weights (CtSelection *selection, guint flags, CtModelCompareWindow *compare)
{
  const char *const *ids = ct_selection_get_ids (selection);

  if (ids[0] != NULL)
    ct_model_compare_window_select_layer (compare, ids[0]);
}

void
ct_window_show_weights_compare (CtWindow *self, CtModelCompareWindow *compare)
{
  g_signal_connect_object (compare, "compared", G_CALLBACK (weights_compared), self, 0);
  watch_compare (self, GTK_WINDOW (compare));
  g_signal_connect_object (self->selection, "changed", G_CALLBACK (selection_for_weights),
                           compare, 0);
  /* compared already: "compared" has been emitted */
  if (ct_model_compare_window_get_layers (compare) != NULL)
    weights_compared (compare, self);
}

CtModelCompareWindow *
ct_window_compare_weights_files (CtWindow *self, const char *first, const char *other)
{
  CtModelCompareWindow *compare = ct_model_compare_window_new (GTK_WINDOW (self), first, other);

  ct_window_show_weights_compare (self, compare);
  gtk_window_present (GTK_WINDOW (compare));
  return compare;
}

CtModelCompareWindow *
ct_window_compare_weights (CtWindow *self, const char *other)
{
  g_return_val_if_fail (self->weights != NULL, NULL);
  return ct_window_compare_weights_files (self, g_file_peek_path (self->weights), other);
}

static void
report_no_weights (CtWindow *self)
{
  g_autoptr (GError) error = g_error_new_literal (
    G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
    _("Open trained weights first (Open Weights…), or start training and compare while it "
      "runs or is paused."));

  ct_window_report_error (self, _("Nothing to compare"), error);
}

gboolean
ct_window_compare_weights_now (CtWindow *self, const char *other)
{
  if (ct_window_train_compare_live (self, other))
    {
      /* TRANSLATORS: a toast; the comparison window comes once the
       * trainer has written its weights, between two iterations */
      ct_window_show_toast (self, _("Taking the training run’s weights to compare them…"));
      return TRUE;
    }
  if (self->weights == NULL)
    {
      report_no_weights (self);
      return FALSE;
    }
  ct_window_compare_weights (self, other);
  return TRUE;
}

static void
weights_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        ct_window_compare_weights_now (self, path);
    }
  g_object_unref (chooser);
}

void
ct_window_compare_weights_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  GtkFileFilter *models;

  if (self->weights == NULL && !ct_window_train_has_live_weights (self))
    {
      report_no_weights (self);
      return;
    }
  chooser = gtk_file_chooser_native_new (_("Compare the Weights With a Snapshot"),
                                         GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Compare"), NULL);
  models = gtk_file_filter_new ();
  gtk_file_filter_set_name (models, _("Caffe models (.caffemodel)"));
  gtk_file_filter_add_pattern (models, "*.caffemodel");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), models);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (weights_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* Nets */

typedef struct {
  char *text;       /* the document's */
  char *name;       /* its file's name, or "Untitled" */
  char *path;       /* the other net's file, or the document's with REV */
  char *rev;        /* NULL: read PATH itself */
  char *other;      /* how the window names the other net */
  GPtrArray *forward, *backward;
} NetJob;

static void
net_job_free (gpointer data)
{
  NetJob *job = data;

  g_free (job->text);
  g_free (job->name);
  g_free (job->path);
  g_free (job->rev);
  g_free (job->other);
  g_clear_pointer (&job->forward, g_ptr_array_unref);
  g_clear_pointer (&job->backward, g_ptr_array_unref);
  g_free (job);
}

static void
net_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  NetJob *job = data;
  g_autofree char *other = NULL;
  GError *error = NULL;

  if (job->rev != NULL)
    other = ct_git_show_file (job->path, job->rev, cancellable, &error);
  else
    g_file_get_contents (job->path, &other, NULL, &error);
  if (other != NULL)
    job->forward = ct_net_diff_texts (other, job->other, job->text, job->name, &error);
  if (job->forward != NULL)
    job->backward = ct_net_diff_texts (job->text, job->name, other, job->other, &error);
  if (job->backward == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
mark_net_diff (CtWindow *self, GPtrArray *entries)
{
  g_autoptr (GPtrArray) diff_marks = ct_net_diff_marks (entries);
  g_autofree CtGraphNodeMark *marks = g_new0 (CtGraphNodeMark, MAX (diff_marks->len, 1));
  guint n = 0;

  for (guint i = 0; i < diff_marks->len; i++)
    {
      const CtNetDiffMark *m = diff_marks->pdata[i];
      guint8 rgb[3];

      if (m->kind == CT_NET_DIFF_REMOVED)
        continue;
      ct_net_diff_kind_color (m->kind, rgb);
      marks[n].id = m->layer;
      marks[n].color = (CtGraphColor) { rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0, 1.0 };
      marks[n].note = m->note;
      n++;
    }
  ct_graph_view_set_marks (self->graph_view, marks, n);
}

static void
net_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtWindow *self = CT_WINDOW (source);
  NetJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  CtNetCompareWindow *compare;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      ct_window_report_error (self, _("Could not compare the nets"), error);
      return;
    }
  mark_net_diff (self, job->forward);
  compare = ct_net_compare_window_new (GTK_WINDOW (self), job->other, job->forward,
                                       job->backward);
  own_marks (self, GTK_WINDOW (compare));
  watch_compare (self, GTK_WINDOW (compare));
  gtk_window_present (GTK_WINDOW (compare));
}

void
ct_window_compare_net (CtWindow *self, const char *path, const char *rev)
{
  GFile *file = ct_document_get_file (self->document);
  g_autoptr (GTask) task = g_task_new (self, NULL, net_done, NULL);
  NetJob *job = g_new0 (NetJob, 1);
  g_autofree char *base = g_path_get_basename (path);

  job->text = g_strdup (ct_document_get_text (self->document));
  job->name = file != NULL ? g_file_get_basename (file) : g_strdup (_("Untitled"));
  job->path = g_strdup (path);
  job->rev = g_strdup (rev);
  /* TRANSLATORS: a file at a git revision, "lenet.prototxt at HEAD~1" */
  job->other = rev != NULL ? g_strdup_printf (_("%s at %s"), base, rev) : g_strdup (base);
  g_task_set_task_data (task, job, net_job_free);
  g_task_run_in_thread (task, net_thread);
}

/* The document's own file, or NULL after saying why there is none. */
static const char *
document_path (CtWindow *self)
{
  GFile *file = ct_document_get_file (self->document);
  g_autoptr (GError) error = NULL;

  if (file != NULL && g_file_peek_path (file) != NULL)
    return g_file_peek_path (file);
  g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("This net has not been saved to a file yet."));
  ct_window_report_error (self, _("Nothing to compare"), error);
  return NULL;
}

void
ct_window_compare_saved_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  const char *path = document_path (self);

  if (path != NULL)
    ct_window_compare_net (self, path, NULL);
}

static void
net_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        ct_window_compare_net (self, path, NULL);
    }
  g_object_unref (chooser);
}

void
ct_window_compare_file_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
    _("Compare With Another Net"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
    _("_Compare"), NULL);
  GtkFileFilter *nets = gtk_file_filter_new ();

  gtk_file_filter_set_name (nets, _("Nets (.prototxt)"));
  gtk_file_filter_add_pattern (nets, "*.prototxt");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), nets);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (net_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
revision_response (AdwMessageDialog *dialog, const char *response, CtWindow *self)
{
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  const char *path = document_path (self);

  if (g_strcmp0 (response, "compare") == 0 && path != NULL)
    ct_window_compare_net (self, path, gtk_editable_get_text (entry));
}

void
ct_window_compare_revision_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkWidget *dialog, *entry;

  if (document_path (self) == NULL)
    return;
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Compare With a Git Revision"),
                                   _("The file as a revision of its git repository holds it: "
                                     "a commit, a branch, a tag, or HEAD~1 for the one "
                                     "before the last."));
  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), "HEAD");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Revision"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                    "compare", _("_Compare"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "compare",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "compare");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (revision_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}
