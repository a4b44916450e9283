/* solver-panel.c: CtSolverPanel, the solver panel of the Training view
 * (its widgets in solver-panel.ui): the
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
#include "solver-panel.h"

#define DEFAULT_SOLVER                                                                      \
  "base_lr: 0.01 momentum: 0.9 weight_decay: 0.0005 lr_policy: 'fixed' display: 100 "    \
  "average_loss: 20 max_iter: 1000 snapshot_prefix: 'snapshot' random_seed: 1701 "        \
  "snapshot_after_train: false "

struct _CtSolverPanel {
  GtkWidget parent_instance;

  Caffe__SolverParameter *param;
  GFile *file;                 /* where it was opened or saved, or NULL */
  char *source_path;           /* the file relative paths start from, or NULL */
  gboolean modified;

  /* Template children. */
  GtkWidget *scroller;
  CtPropertyForm *form;
  GtkLabel *file_label;
};

enum {
  SIGNAL_ERROR,
  SIGNAL_SAVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtSolverPanel, ct_solver_panel, GTK_TYPE_WIDGET)

static void
report_error (CtSolverPanel *s, const char *what, const GError *error)
{
  g_signal_emit (s, signals[SIGNAL_ERROR], 0, what, error);
}

static GtkWindow *
parent_window (CtSolverPanel *s)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (s));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

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
show (CtSolverPanel *s)
{
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
take_param (CtSolverPanel *s, Caffe__SolverParameter *param, GFile *file, const char *source_path)
{
  param_free (s->param);
  s->param = param;
  g_set_object (&s->file, file);
  g_free (s->source_path);
  s->source_path = g_strdup (source_path);
  s->modified = FALSE;
  show (s);
}

static void
form_changed (CtPropertyForm *form, const char *path, const char *value, CtSolverPanel *s)
{  g_autoptr (GError) error = NULL;
  gboolean ok = value != NULL ? ct_field_path_set (&s->param->base, path, value, &error)
                              : ct_field_path_clear (&s->param->base, path, &error);

  if (!ok)
    {
      report_error (s, _("Could not change the solver"), error);
      return;
    }
  s->modified = TRUE;
  show (s);
}

/* Opening and saving */

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* FILE read as a solver, or NULL when it is not one (or unreadable). A
 * net's text does not parse as a solver (its `layer` is no solver field),
 * so this tells the two apart without asking the user. */
static Caffe__SolverParameter *
read_solver (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *text = NULL;

  if (path == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return parse_solver (text, path, NULL);
}

GFile *
ct_solver_panel_net_file (GFile *file)
{
  Caffe__SolverParameter *param = read_solver (file);
  const char *net;
  GFile *result = NULL;

  if (param == NULL)
    return NULL;
  net = param->net != NULL ? param->net : param->train_net;
  if (net != NULL && *net != '\0')
    {
      if (g_path_is_absolute (net))
        result = g_file_new_for_path (net);
      else
        {
          g_autoptr (GFile) dir = g_file_get_parent (file);

          result = g_file_resolve_relative_path (dir, net);
        }
    }
  param_free (param);
  return result;
}

char *
ct_solver_panel_inline_net (GFile *file)
{
  Caffe__SolverParameter *param = read_solver (file);
  const Caffe__NetParameter *net;
  char *result = NULL;

  if (param == NULL)
    return NULL;
  net = param->net_param != NULL ? param->net_param : param->train_net_param;
  if (net != NULL)
    result = ct_text_print (&net->base);
  param_free (param);
  return result;
}

/* A solver beside a net is found by what it names, not by its file name:
 * Caffe's examples call theirs lenet_solver.prototxt, cifar10_quick_solver
 * .prototxt, solver.prototxt. Names with "solver" in them are tried first
 * so that a folder of nets costs few parses; the first in name order
 * wins, so which one loads does not depend on the file system. */
GFile *
ct_solver_panel_find_beside (GFile *net_file)
{
  g_autoptr (GFile) dir = net_file != NULL ? g_file_get_parent (net_file) : NULL;
  g_autoptr (GFileEnumerator) children = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (dir == NULL || g_file_peek_path (net_file) == NULL)
    return NULL;
  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                        G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                        G_FILE_QUERY_INFO_NONE, NULL, NULL);
  while (children != NULL)
    {
      GFileInfo *info = NULL;

      if (!g_file_enumerator_iterate (children, &info, NULL, NULL, NULL) || info == NULL)
        break;
      /* a solver is a few lines; a large file is a net or data */
      if (g_str_has_suffix (g_file_info_get_name (info), ".prototxt")
          && g_file_info_get_size (info) < 64 * 1024)
        g_ptr_array_add (names, g_strdup (g_file_info_get_name (info)));
    }
  g_ptr_array_sort (names, compare_names);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < names->len; i++)
      {
        const char *name = names->pdata[i];
        g_autoptr (GFile) file = NULL;
        g_autoptr (GFile) named = NULL;

        if ((strstr (name, "solver") != NULL) != (pass == 0))
          continue;
        file = g_file_get_child (dir, name);
        if (g_file_equal (file, net_file))
          continue;
        named = ct_solver_panel_net_file (file);
        if (named != NULL && g_file_equal (named, net_file))
          return g_steal_pointer (&file);
      }
  return NULL;
}

gboolean
ct_solver_panel_load (CtSolverPanel *s, GFile *file, GError **error)
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
  take_param (s, param, file, path);
  return TRUE;
}

void
ct_solver_panel_set_example (CtSolverPanel *s, const char *text, const char *folder)
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
  take_param (s, param, NULL, source);
}

static gboolean
save_to (CtSolverPanel *s, GFile *file)
{  g_autofree char *path = g_file_get_path (file);
  g_autofree char *text = ct_text_print (&s->param->base);
  g_autoptr (GError) error = NULL;

  if (path == NULL)
    g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be saved"));
  if (error != NULL || !ct_file_write_atomic (path, text, strlen (text), &error))
    {
      report_error (s, _("Could not save the solver"), error);
      return FALSE;
    }
  g_set_object (&s->file, file);
  g_free (s->source_path);
  s->source_path = g_steal_pointer (&path);
  s->modified = FALSE;
  show (s);
  g_signal_emit (s, signals[SIGNAL_SAVED], 0, file);
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
open_response (GtkNativeDialog *chooser, int response, CtSolverPanel *s)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr (GError) error = NULL;

      if (!ct_solver_panel_load (s, file, &error))
        report_error (s, _("Could not open the solver"), error);
    }
  g_object_unref (chooser);
  g_object_unref (s);
}

void
ct_solver_panel_open (CtSolverPanel *s)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Open Solver"), parent_window (s),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), solver_filter ());
  g_signal_connect (chooser, "response", G_CALLBACK (open_response), g_object_ref (s));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
save_response (GtkNativeDialog *chooser, int response, CtSolverPanel *s)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      save_to (s, file);
    }
  g_object_unref (chooser);
  g_object_unref (s);
}

void
ct_solver_panel_save_as (CtSolverPanel *s, GFile *net_file)
{
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Save Solver"), parent_window (s),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), solver_filter ());
  if (s->file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), s->file, NULL);
  else
    {
      if (net_file != NULL)
        {
          g_autoptr (GFile) dir = g_file_get_parent (net_file);
          gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), dir, NULL);
        }
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "solver.prototxt");
    }
  g_signal_connect (chooser, "response", G_CALLBACK (save_response), g_object_ref (s));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
ct_solver_panel_save (CtSolverPanel *s, GFile *net_file)
{
  if (s->file != NULL)
    save_to (s, s->file);
  else
    ct_solver_panel_save_as (s, net_file);
}

/* What the window reads */

Caffe__SolverParameter *
ct_solver_panel_dup_param (CtSolverPanel *s)
{
  return param_copy (s->param);
}

const char *
ct_solver_panel_get_source_path (CtSolverPanel *s)
{
  return s->source_path;
}

gboolean
ct_solver_panel_save_file (CtSolverPanel *s, GFile *file)
{
  return save_to (s, file);
}

CtPropertyForm *
ct_solver_panel_get_form (CtSolverPanel *s)
{
  return s->form;
}

/* The widget */

static void
ct_solver_panel_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CT_TYPE_SOLVER_PANEL);
  G_OBJECT_CLASS (ct_solver_panel_parent_class)->dispose (object);
}

static void
ct_solver_panel_finalize (GObject *object)
{
  CtSolverPanel *s = CT_SOLVER_PANEL (object);

  param_free (s->param);
  g_clear_object (&s->file);
  g_free (s->source_path);
  G_OBJECT_CLASS (ct_solver_panel_parent_class)->finalize (object);
}

static void
ct_solver_panel_class_init (CtSolverPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_solver_panel_dispose;
  object_class->finalize = ct_solver_panel_finalize;

  /* Something failed: WHAT, and the error saying why. */
  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING,
                                        G_TYPE_ERROR);
  /* The solver was written to FILE. */
  signals[SIGNAL_SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);

  g_type_ensure (CT_TYPE_PROPERTY_FORM);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/cortado/Cortado/solver-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, CtSolverPanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, CtSolverPanel, form);
  gtk_widget_class_bind_template_child (widget_class, CtSolverPanel, file_label);
  gtk_widget_class_bind_template_callback (widget_class, form_changed);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ct_solver_panel_init (CtSolverPanel *s)
{
  gtk_widget_init_template (GTK_WIDGET (s));
  ct_solver_panel_set_example (s, NULL, NULL);
}

CtSolverPanel *
ct_solver_panel_new (void)
{
  return g_object_new (CT_TYPE_SOLVER_PANEL, NULL);
}
