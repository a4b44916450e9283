/* window-train-follow.c: win.train-follow-log, the Training view following
 * a training log written elsewhere (`cortado-cli train` or real Caffe on
 * another machine, a cluster's job): the log is read once a second from
 * where the last read stopped, and the Training view's plot shows all of
 * it. Appends are small, so they are read on the main thread; the parsing
 * is CtTrainLog's (app/run/train-log.c). */
#include <glib/gi18n-lib.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "train-log.h"
#include "window-train-private.h"

/* Bytes read at most per tick: a huge log already written is read over a
 * few seconds instead of freezing the window. */
#define READ_PER_TICK (4 << 20)

struct _CtWindowFollow {
  char *path;
  gint64 offset;        /* bytes of the file read so far */
  CtTrainLog *log;
  guint timeout_id;
};

static void
follow_free (CtWindowFollow *f)
{
  if (f == NULL)
    return;
  g_clear_handle_id (&f->timeout_id, g_source_remove);
  ct_train_log_free (f->log);
  g_free (f->path);
  g_free (f);
}

void
ct_window_train_follow_stop (CtWindow *self)
{
  g_clear_pointer (&self->train->follow, follow_free);
}

static void
show_status (CtWindow *self, const char *error_text)
{
  CtWindowFollow *f = self->train->follow;
  g_autofree char *name = g_path_get_basename (f->path);
  g_autofree char *text = NULL;

  if (error_text != NULL)
    /* TRANSLATORS: the Training view follows a log file; %s is its name,
     * then why it cannot be read */
    text = g_strdup_printf (_("Following %s: %s"), name, error_text);
  else
    /* TRANSLATORS: %s is the log file's name, %d the last iteration in it */
    text = g_strdup_printf (_("Following %s, iteration %d"), name,
                            ct_train_log_get_loss (f->log)->len > 0
                              ? g_array_index (ct_train_log_get_loss (f->log), CtTrainLogPoint,
                                               ct_train_log_get_loss (f->log)->len - 1).iter
                              : 0);
  ct_train_view_set_status (self->train->view, text);
}

gboolean
ct_window_train_follow_poll (CtWindow *self)
{
  CtWindowFollow *f = self->train->follow;
  g_autofree char *buffer = NULL;
  FILE *file;
  size_t got;
  guint added;

  if (f == NULL)
    return FALSE;
  file = g_fopen (f->path, "rb");
  if (file == NULL)
    {
      show_status (self, g_strerror (errno));
      return FALSE;
    }
  if (fseeko (file, 0, SEEK_END) == 0 && ftello (file) < f->offset)
    {
      /* the file was started afresh (a new run over the same name) */
      ct_train_log_free (f->log);
      f->log = ct_train_log_new ();
      f->offset = 0;
      ct_train_view_new_run (self->train->view, NULL, NULL, NULL);
    }
  buffer = g_malloc (READ_PER_TICK);
  got = fseeko (file, f->offset, SEEK_SET) == 0 ? fread (buffer, 1, READ_PER_TICK, file) : 0;
  fclose (file);
  f->offset += got;
  added = ct_train_log_feed (f->log, buffer, got);
  if (added > 0)
    ct_train_view_show_log (self->train->view, f->log);
  show_status (self, NULL);
  return added > 0;
}

static gboolean
follow_tick (gpointer data)
{
  ct_window_train_follow_poll (data);
  return G_SOURCE_CONTINUE;
}

gboolean
ct_window_train_follow_log (CtWindow *self, const char *path, GError **error)
{
  CtWindowFollow *f;

  if (self->train->trainer != NULL &&
      (self->train->state == CT_TRAIN_STATE_RUNNING || self->train->state == CT_TRAIN_STATE_PAUSED ||
       self->train->state == CT_TRAIN_STATE_BREAK))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           _("Stop the training in this window first"));
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("%s is not a file that can be read"), path);
      return FALSE;
    }
  ct_window_train_follow_stop (self);
  f = g_new0 (CtWindowFollow, 1);
  f->path = g_strdup (path);
  f->log = ct_train_log_new ();
  self->train->follow = f;
  ct_train_view_new_run (self->train->view, NULL, NULL, NULL);
  ct_train_view_set_average_loss (self->train->view, 1);
  ct_window_train_follow_poll (self);
  f->timeout_id = g_timeout_add_seconds (1, follow_tick, self);
  return TRUE;
}

static void
log_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;

      if (file != NULL && g_file_peek_path (file) != NULL &&
          !ct_window_train_follow_log (self, g_file_peek_path (file), &error))
        ct_window_report_error (self, _("Could not follow the training log"), error);
    }
  g_object_unref (chooser);
}

void
ct_window_train_follow_log_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  GtkFileFilter *logs = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Follow a Training Log"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Follow"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_filter_set_name (logs, _("Training Logs"));
  gtk_file_filter_add_pattern (logs, "*.log");
  gtk_file_filter_add_pattern (logs, "*.txt");
  gtk_file_filter_add_pattern (logs, "*INFO*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), logs);
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);
  g_signal_connect (chooser, "response", G_CALLBACK (log_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}
