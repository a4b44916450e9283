/* window-train-actions.c: the training actions (win.train-*, win.plot-*),
 * their dialogs (export folder, .solverstate, plot files), the header
 * bar's training controls and the Training view's menu. What they do to
 * the trainer is in window-train.c. */
#include <glib/gi18n-lib.h>

#include "window-train-private.h"

static void
train_toggle_activated (GSimpleAction *action, GVariant *param, gpointer data)
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

static void
train_stop_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->train->trainer != NULL)
    ct_trainer_stop (self->train->trainer);
}

static void
train_snapshot_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->train->trainer != NULL)
    ct_trainer_snapshot_now (self->train->trainer);
}

static void
train_restart_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  CtWindowTrain *t = self->train;

  if (t->trainer == NULL)
    return;
  /* the same run again, bit for bit: the last one stays on the plot */
  ct_window_train_view_new_run (t);
  ct_trainer_restart (t->trainer);
  t->state = CT_TRAIN_STATE_RUNNING;
  ct_window_train_update_controls (self);
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

static void
train_export_activated (GSimpleAction *action, GVariant *param, gpointer data)
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

static void
train_resume_from_activated (GSimpleAction *action, GVariant *param, gpointer data)
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

static void
train_break_here_activated (GSimpleAction *action, GVariant *param, gpointer data)
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
                    && (png ? ct_plot_view_save_png (self->train->plot, path, 1200, 800, &error)
                            : ct_plot_view_save_csv (self->train->plot, path, &error));
      if (!ok && error != NULL)
        ct_window_report_error (self, _("Could not export the plot"), error);
    }
  g_object_unref (chooser);
}

static void
plot_export_activated (GSimpleAction *action, GVariant *param, gpointer data)
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

static void
plot_log_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  gboolean log = !ct_plot_view_get_log_scale (self->train->plot);

  ct_plot_view_set_log_scale (self->train->plot, log);
  g_simple_action_set_state (action, g_variant_new_boolean (log));
}

static const GActionEntry train_actions[] = {
  { .name = "train-toggle", .activate = train_toggle_activated },
  { .name = "train-stop", .activate = train_stop_activated },
  { .name = "train-snapshot", .activate = train_snapshot_activated },
  { .name = "train-restart", .activate = train_restart_activated },
  { .name = "train-export", .activate = train_export_activated },
  { .name = "train-resume-from", .activate = train_resume_from_activated },
  { .name = "train-break-here", .activate = train_break_here_activated, .state = "false" },
  { .name = "plot-export", .activate = plot_export_activated, .parameter_type = "s" },
  { .name = "plot-log-scale", .activate = plot_log_activated, .state = "false" },
};

void
ct_window_train_add_actions (CtWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), train_actions,
                                   G_N_ELEMENTS (train_actions), self);
}

/* Building */

static GtkWidget *
icon_button (const char *icon, const char *action, const char *tip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_widget_set_tooltip_text (button, tip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tip,
                                  -1);
  return button;
}

static GMenuModel *
train_menu (void)
{
  GMenu *menu = g_menu_new ();
  g_autoptr (GMenu) runs = g_menu_new ();
  g_autoptr (GMenu) files = g_menu_new ();
  g_autoptr (GMenu) plot = g_menu_new ();

  g_menu_append (runs, _("_Restart the Run"), "win.train-restart");
  g_menu_append (runs, _("Resume from a _Solver State…"), "win.train-resume-from");
  g_menu_append (files, _("_Export the Trained Net…"), "win.train-export");
  g_menu_append (files, _("Save the Solver _As…"), "win.solver-save-as");
  g_menu_append (plot, _("Plot as _CSV…"), "win.plot-export::csv");
  g_menu_append (plot, _("Plot as _PNG…"), "win.plot-export::png");
  g_menu_append (plot, _("_Log Scale"), "win.plot-log-scale");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (runs));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (files));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (plot));
  return G_MENU_MODEL (menu);
}

void
ct_window_train_build_controls (CtWindow *self)
{
  CtWindowTrain *t = self->train;
  GtkWidget *header = gtk_widget_get_ancestor (GTK_WIDGET (self->open_button),
                                               ADW_TYPE_HEADER_BAR);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);

  gtk_widget_add_css_class (box, "linked");
  gtk_widget_set_margin_start (box, 6);
  t->toggle_button = GTK_BUTTON (icon_button ("media-playback-start-symbolic",
                                              "win.train-toggle", _("Start Training (F4)")));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (t->toggle_button));
  gtk_box_append (GTK_BOX (box), icon_button ("media-playback-stop-symbolic", "win.train-stop",
                                              _("Stop Training (Shift+F4)")));
  gtk_box_append (GTK_BOX (box), icon_button ("camera-photo-symbolic", "win.train-snapshot",
                                              _("Snapshot Now (Ctrl+Shift+P)")));
  t->stats_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (t->stats_label), "numeric");
  gtk_widget_add_css_class (GTK_WIDGET (t->stats_label), "caption");
  gtk_widget_set_margin_start (GTK_WIDGET (t->stats_label), 8);
  /* two short lines: the header bar has little room beside the title */
  gtk_label_set_justify (t->stats_label, GTK_JUSTIFY_LEFT);
  gtk_label_set_xalign (t->stats_label, 0);
  gtk_widget_set_visible (GTK_WIDGET (t->stats_label), FALSE);
  t->controls = box;
  if (header != NULL)
    {
      adw_header_bar_pack_start (ADW_HEADER_BAR (header), box);
      adw_header_bar_pack_start (ADW_HEADER_BAR (header), GTK_WIDGET (t->stats_label));
    }
}

GtkWidget *
ct_window_train_menu_button (void)
{
  GtkWidget *more = gtk_menu_button_new ();
  g_autoptr (GMenuModel) menu = train_menu ();

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (more), "view-more-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (more), menu);
  gtk_widget_set_tooltip_text (more, _("More Training Actions"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (more), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("More Training Actions"), -1);
  gtk_widget_set_valign (more, GTK_ALIGN_CENTER);
  return more;
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
