/* window-solver.c: the solver panel of the Training view: the
 * SolverParameter that trains the window's net, edited in the same
 * descriptor-driven form as a layer in the inspector, opened from and saved
 * to a solver prototxt (saved atomically). The net to train is always the
 * window's own (see window-train.c): the solver's `net` field only says
 * which file a solver opened from the command line or File > Open brings
 * along. A window starts with a plain SGD solver; the LeNet example comes
 * with its own. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "atomic-write.h"
#include "binary-io.h"
#include "field-path.h"
#include "text-format.h"
#include "window-private.h"

#define DEFAULT_SOLVER                                                                      \
  "base_lr: 0.01 momentum: 0.9 weight_decay: 0.0005 lr_policy: 'fixed' display: 100 "    \
  "average_loss: 20 max_iter: 1000 snapshot_prefix: 'snapshot' random_seed: 1701 "        \
  "snapshot_after_train: false "

struct _CtWindowSolver {
  Caffe__SolverParameter *param;
  GFile *file;                 /* where it was opened or saved, or NULL */
  char *source_path;           /* the file relative paths start from, or NULL */
  gboolean modified;
  GtkWidget *panel;
  CtPropertyForm *form;
  GtkLabel *file_label;
};

static const char *const training_fields[] = { "net", "max_iter", "iter_size", "display",
                                               "average_loss", "random_seed", NULL };
static const char *const rate_fields[] = { "type", "base_lr", "lr_policy", "gamma", "power",
                                           "stepsize", "stepvalue", "momentum", "momentum2",
                                           "delta", "rms_decay", "weight_decay",
                                           "regularization_type", "clip_gradients", NULL };
static const char *const test_fields[] = { "test_iter", "test_interval", "test_compute_loss",
                                           "test_initialization", NULL };
static const char *const snapshot_fields[] = { "snapshot", "snapshot_prefix", "snapshot_format",
                                               "snapshot_after_train", "snapshot_diff", NULL };
/* Whole nets written inside a solver: far too long for a form row. */
static const char *const hidden_fields[] = { "net_param", "train_net_param", "test_net_param",
                                             NULL };

static Caffe__SolverParameter *
param_copy (const Caffe__SolverParameter *param)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (&param->base, bytes);
  return caffe__solver_parameter__unpack (NULL, size, bytes);
}

static void
param_free (Caffe__SolverParameter *param)
{
  if (param != NULL)
    protobuf_c_message_free_unpacked (&param->base, NULL);
}

static Caffe__SolverParameter *
parse_solver (const char *text, const char *name, GError **error)
{
  return (Caffe__SolverParameter *) ct_text_parse (&caffe__solver_parameter__descriptor, text, -1,
                                                   name, CT_TEXT_STRICT, error);
}

static void
show (CtWindow *self)
{
  CtWindowSolver *s = self->solver;
  CtPropertySection sections[] = {
    { _("Training"), NULL, training_fields },
    { _("Learning Rate"), NULL, rate_fields },
    { _("Testing"), NULL, test_fields },
    { _("Snapshots"), NULL, snapshot_fields },
    { NULL, NULL, hidden_fields },
  };
  g_autofree char *name = s->file != NULL ? g_file_get_basename (s->file) : NULL;
  g_autofree char *label = NULL;

  ct_property_form_set_message (s->form, &s->param->base, sections, G_N_ELEMENTS (sections));
  if (name == NULL)
    label = g_strdup (_("Solver not saved yet"));
  else if (s->modified)
    label = g_strconcat ("• ", name, NULL);
  else
    label = g_strdup (name);
  gtk_label_set_text (s->file_label, label);
  gtk_widget_set_tooltip_text (GTK_WIDGET (s->file_label),
                               s->file != NULL ? g_file_peek_path (s->file) : NULL);
}

static void
take_param (CtWindow *self, Caffe__SolverParameter *param, GFile *file, const char *source_path)
{
  CtWindowSolver *s = self->solver;

  param_free (s->param);
  s->param = param;
  g_set_object (&s->file, file);
  g_free (s->source_path);
  s->source_path = g_strdup (source_path);
  s->modified = FALSE;
  show (self);
}

static void
form_changed (CtPropertyForm *form, const char *path, const char *value, CtWindow *self)
{
  CtWindowSolver *s = self->solver;
  g_autoptr (GError) error = NULL;
  gboolean ok = value != NULL ? ct_field_path_set (&s->param->base, path, value, &error)
                              : ct_field_path_clear (&s->param->base, path, &error);

  if (!ok)
    {
      ct_window_report_error (self, _("Could not change the solver"), error);
      return;
    }
  s->modified = TRUE;
  show (self);
}

/* Opening and saving */

GFile *
ct_window_solver_net_file (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *text = NULL;
  Caffe__SolverParameter *param;
  const char *net;
  GFile *result = NULL;

  if (path == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  /* A net's text does not parse as a solver (its `layer` is no solver
   * field), so this tells the two apart without asking the user. */
  param = parse_solver (text, path, NULL);
  if (param == NULL)
    return NULL;
  net = param->net != NULL ? param->net : param->train_net;
  if (net != NULL && *net != '\0')
    {
      if (g_path_is_absolute (net))
        result = g_file_new_for_path (net);
      else
        {
          g_autofree char *dir = g_path_get_dirname (path);
          g_autofree char *joined = g_build_filename (dir, net, NULL);
          result = g_file_new_for_path (joined);
        }
    }
  param_free (param);
  return result;
}

gboolean
ct_window_solver_load (CtWindow *self, GFile *file, GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *text = NULL;
  Caffe__SolverParameter *param;

  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  param = parse_solver (text, path, error);
  if (param == NULL)
    return FALSE;
  take_param (self, param, file, path);
  return TRUE;
}

void
ct_window_solver_set_example (CtWindow *self, const char *text, const char *folder)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *source = folder != NULL ? g_build_filename (folder, "solver.prototxt", NULL)
                                           : NULL;
  Caffe__SolverParameter *param = NULL;

  if (text != NULL)
    param = parse_solver (text, "solver.prototxt", &error);
  if (param == NULL)
    {
      if (error != NULL)
        g_warning ("%s", error->message);
      param = parse_solver (DEFAULT_SOLVER, "solver.prototxt", NULL);
    }
  /* An example's solver is a template: saving asks where. */
  take_param (self, param, NULL, source);
}

static gboolean
save_to (CtWindow *self, GFile *file)
{
  CtWindowSolver *s = self->solver;
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *text = ct_text_print (&s->param->base);
  g_autoptr (GError) error = NULL;

  if (path == NULL)
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be saved"));
  if (error != NULL || !ct_file_write_atomic (path, text, strlen (text), &error))
    {
      ct_window_report_error (self, _("Could not save the solver"), error);
      return FALSE;
    }
  g_set_object (&s->file, file);
  g_free (s->source_path);
  s->source_path = g_steal_pointer (&path);
  s->modified = FALSE;
  show (self);
  {
    g_autofree char *name = g_file_get_basename (file);
    g_autofree char *message = g_strdup_printf (_("Saved “%s”"), name);
    ct_window_show_toast (self, message);
  }
  return TRUE;
}

static GtkFileFilter *
solver_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Solvers (prototxt)"));
  gtk_file_filter_add_pattern (filter, "*.prototxt");
  gtk_file_filter_add_pattern (filter, "*.pbtxt");
  return filter;
}

static void
open_response (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;

      if (!ct_window_solver_load (self, file, &error))
        ct_window_report_error (self, _("Could not open the solver"), error);
    }
  g_object_unref (chooser);
}

static void
solver_open_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Open Solver"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), solver_filter ());
  g_signal_connect (chooser, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
save_response (GtkNativeDialog *chooser, int response, CtWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      save_to (self, file);
    }
  g_object_unref (chooser);
}

static void
save_as (CtWindow *self)
{
  GtkFileChooserNative *chooser;
  GFile *net_file = ct_document_get_file (self->document);

  chooser = gtk_file_chooser_native_new (_("Save Solver"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), solver_filter ());
  if (self->solver->file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), self->solver->file, NULL);
  else
    {
      if (net_file != NULL)
        {
          g_autoptr (GFile) dir = g_file_get_parent (net_file);
          gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), dir, NULL);
        }
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "solver.prototxt");
    }
  g_signal_connect (chooser, "response", G_CALLBACK (save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
solver_save_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  CtWindow *self = data;

  if (self->solver->file != NULL)
    save_to (self, self->solver->file);
  else
    save_as (self);
}

static void
solver_save_as_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  save_as (data);
}

static const GActionEntry solver_actions[] = {
  { .name = "solver-open", .activate = solver_open_activated },
  { .name = "solver-save", .activate = solver_save_activated },
  { .name = "solver-save-as", .activate = solver_save_as_activated },
};

/* The window's hooks */

Caffe__SolverParameter *
ct_window_solver_dup_param (CtWindow *self)
{
  return param_copy (self->solver->param);
}

const char *
ct_window_solver_get_source_path (CtWindow *self)
{
  return self->solver->source_path;
}

gboolean
ct_window_solver_save_file (CtWindow *self, GFile *file)
{
  return save_to (self, file);
}

CtPropertyForm *
ct_window_solver_get_form (CtWindow *self)
{
  return self->solver->form;
}

GtkWidget *
ct_window_solver_init (CtWindow *self)
{
  CtWindowSolver *s = g_new0 (CtWindowSolver, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (_("Solver"));
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *open = gtk_button_new_from_icon_name ("document-open-symbolic");
  GtkWidget *save = gtk_button_new_from_icon_name ("document-save-symbolic");
  GtkWidget *scroller = gtk_scrolled_window_new ();

  self->solver = s;
  g_action_map_add_action_entries (G_ACTION_MAP (self), solver_actions,
                                   G_N_ELEMENTS (solver_actions), self);
  gtk_widget_add_css_class (title, "title-4");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_add_css_class (buttons, "linked");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.solver-open");
  gtk_widget_set_tooltip_text (open, _("Open a Solver"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (open), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Open a Solver"), -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (save), "win.solver-save");
  gtk_widget_set_tooltip_text (save, _("Save the Solver"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (save), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Save the Solver"), -1);
  gtk_box_append (GTK_BOX (buttons), open);
  gtk_box_append (GTK_BOX (buttons), save);
  gtk_box_append (GTK_BOX (header), title);
  gtk_box_append (GTK_BOX (header), buttons);

  s->file_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (s->file_label, 0);
  gtk_label_set_ellipsize (s->file_label, PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (GTK_WIDGET (s->file_label), "dim-label");
  s->form = CT_PROPERTY_FORM (ct_property_form_new ());
  g_signal_connect (s->form, "changed", G_CALLBACK (form_changed), self);

  gtk_widget_set_margin_start (box, 14);
  gtk_widget_set_margin_end (box, 14);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 24);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (s->file_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (s->form));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), box);
  gtk_widget_set_size_request (scroller, 320, -1);
  s->panel = scroller;
  ct_window_solver_set_example (self, NULL, NULL);
  return scroller;
}

void
ct_window_solver_dispose (CtWindow *self)
{
  CtWindowSolver *s = self->solver;

  if (s == NULL)
    return;
  param_free (s->param);
  g_clear_object (&s->file);
  g_free (s->source_path);
  g_free (s);
  self->solver = NULL;
}
