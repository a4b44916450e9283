/* window-train-actions.c: the training actions (win.train-*, win.plot-*),
 * their dialogs (export folder, .solverstate, plot files), the header
 * bar's training controls and the Training view's menu. What they do to
 * the trainer is in window-train.c. */
#include <glib/gi18n-lib.h>

#include "window-train-private.h"

void
ct_window_train_toggle_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  CtWindowTrain *t = self->train;

  switch (t->trainer != NULL ? t->state : CT_TRAIN_STATE_IDLE)
    {
    case CT_TRAIN_STATE_RUNNING:
      ct_trainer_pause (t->trainer);
      break;
    case CT_TRAIN_STATE_PAUSED:
    case CT_TRAIN_STATE_BREAK:
      ct_window_dismiss_error (self);
      ct_trainer_resume (t->trainer);
      t->state = CT_TRAIN_STATE_RUNNING;
      break;
    case CT_TRAIN_STATE_IDLE:
    case CT_TRAIN_STATE_FINISHED:
    case CT_TRAIN_STATE_STOPPED:
    default:
      ct_window_train_start (self, NULL);
      break;
    }
  ct_window_train_update_controls (self);
}

void
ct_window_train_stop_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->train->trainer != NULL)
    ct_trainer_stop (self->train->trainer);
}

void
ct_window_train_snapshot_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->train->trainer != NULL)
    ct_trainer_snapshot_now (self->train->trainer);
}

void
ct_window_train_restart_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_train_restart (data);
}

static void
export_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->train->trainer != NULL)
    {
      g_autoptr (GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (folder != NULL && g_file_peek_path (folder) != NULL)
        ct_trainer_export (self->train->trainer, g_file_peek_path (folder));
    }
  g_object_unref (chooser);
}

void
ct_window_train_export_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Export the Trained Net to a Folder"),
                                         GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                         _("_Export"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (export_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
resume_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      if (file != NULL && g_file_peek_path (file) != NULL)
        ct_window_train_resume_from (self, g_file_peek_path (file));
    }
  g_object_unref (chooser);
}

void
ct_window_train_resume_from_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;
  GtkFileFilter *filter = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Resume Training from a Solver State"),
                                         GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                         _("_Resume"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_filter_set_name (filter, _("Solver States"));
  gtk_file_filter_add_pattern (filter, "*.solverstate");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect (chooser, "response", G_CALLBACK (resume_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
ct_window_train_break_here_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  g_autofree char *layer = NULL;
  g_autofree char *top = ct_window_train_selected_top (self, &layer);

  if (layer == NULL)
    return;
  ct_window_train_set_breakpoint (self, g_strcmp0 (layer, self->train->breakpoint) == 0
                                          ? NULL : layer);
}

static void
plot_export_chosen (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  gboolean png = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (chooser), "ct-png"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;
      const char *path = file != NULL ? g_file_peek_path (file) : NULL;
      gboolean ok = path != NULL
                    && (png ? ct_plot_view_save_png (ct_train_view_get_plot (self->train->view), path, 1200, 800, &error)
                            : ct_plot_view_save_csv (ct_train_view_get_plot (self->train->view), path, &error));
      if (!ok && error != NULL)
        ct_window_report_error (self, _("Could not export the plot"), error);
    }
  g_object_unref (chooser);
}

void
ct_window_plot_export_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  gboolean png = g_str_equal (g_variant_get_string (param, NULL), "png");
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (png ? _("Export the Plot as PNG")
                                             : _("Export the Plot as CSV"),
                                         GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                         _("_Export"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser),
                                     png ? "training.png" : "training.csv");
  g_object_set_data (G_OBJECT (chooser), "ct-png", GINT_TO_POINTER (png));
  g_signal_connect (chooser, "response", G_CALLBACK (plot_export_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
ct_window_plot_log_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  gboolean log = !ct_plot_view_get_log_scale (ct_train_view_get_plot (self->train->view));

  ct_plot_view_set_log_scale (ct_train_view_get_plot (self->train->view), log);
  g_simple_action_set_state (action, g_variant_new_boolean (log));
}

/* Building */

/* The header bar's training buttons and figures are in window.ui. */
void
ct_window_train_build_controls (CtWindow *self)
{
  CtWindowTrain *t = self->train;

  t->controls = ct_window_get_part (self, "train_controls");
  t->toggle_button = GTK_BUTTON (ct_window_get_part (self, "train_toggle_button"));
  t->stats_label = GTK_LABEL (ct_window_get_part (self, "train_stats_label"));
  t->view = CT_TRAIN_VIEW (ct_window_get_part (self, "train_view"));
}

/* The context menu's check box: whether the selected layer holds the
 * breakpoint. */
void
ct_window_train_update_break_state (CtWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "train-break-here");
  g_autofree char *layer = NULL;
  g_autofree char *top = ct_window_train_selected_top (self, &layer);

  if (action != NULL)
    g_simple_action_set_state (G_SIMPLE_ACTION (action),
                               g_variant_new_boolean (layer != NULL
                                                      && g_strcmp0 (layer,
                                                                    self->train->breakpoint)
                                                           == 0));
}
