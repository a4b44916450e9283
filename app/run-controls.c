/* run-controls.c: CtRunControls (its widgets in run-controls.ui): the
 * step buttons of the header bar and the run settings popover. The
 * buttons only name win.run-* actions (window-run.c); the settings are
 * kept here until the window builds its next runner and reads them. The
 * device list is the CPU and the GPUs the engine finds (app/run), or the
 * CPU alone with the reason as the tooltip. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "run-controls.h"
#include "run-device.h"

#define DEFAULT_SEED 1701

struct _CtRunControls {
  GtkBox parent_instance;

  guint batch;
  guint64 seed;
  CtRunFill fill;
  gboolean use_gpu;
  int gpu_device;
  guint pace_ms;
  CtInputTransform transform;

  /* Template children. */
  GtkWidget *pass_button;
  GtkWidget *stop_button;
  GtkMenuButton *settings_button;
  GtkMenuButton *input_button;
  GtkWidget *settings_popover;
  GtkWidget *batch_spin;
  GtkWidget *seed_spin;
  GtkWidget *device_drop;
  GtkWidget *pace_drop;
  GtkLabel *weights_label;
  GtkLabel *input_label;
  GtkWidget *scale_spin;
};

enum {
  SIGNAL_TRANSFORM_CHANGED,
  SIGNAL_PACE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtRunControls, ct_run_controls, GTK_TYPE_BOX)

static void
batch_changed (GtkSpinButton *spin, CtRunControls *self)
{
  self->batch = (guint) gtk_spin_button_get_value_as_int (spin);
}

static void
seed_changed (GtkSpinButton *spin, CtRunControls *self)
{
  self->seed = (guint64) gtk_spin_button_get_value (spin);
}

static void
fill_toggled (GtkCheckButton *check, CtRunControls *self)
{
  self->fill = gtk_check_button_get_active (check) ? CT_RUN_FILL_CAFFE_REF : CT_RUN_FILL_NONE;
}

/* The pause after each layer of a pass, by item of the pace list. */
static const guint pace_items_ms[] = { 0, 100, 300, 1000 };

static void
pace_selected (GtkDropDown *drop, GParamSpec *pspec, CtRunControls *self)
{
  guint item = gtk_drop_down_get_selected (drop);

  self->pace_ms = item < G_N_ELEMENTS (pace_items_ms) ? pace_items_ms[item] : 0;
  g_signal_emit (self, signals[SIGNAL_PACE_CHANGED], 0);
}

guint
ct_run_controls_get_pace (CtRunControls *self)
{
  return self->pace_ms;
}

void
ct_run_controls_set_pace (CtRunControls *self, guint ms_per_layer)
{
  guint item = 0;

  /* the nearest of the list's paces */
  for (guint i = 1; i < G_N_ELEMENTS (pace_items_ms); i++)
    if (ABS ((int) pace_items_ms[i] - (int) ms_per_layer)
        < ABS ((int) pace_items_ms[item] - (int) ms_per_layer))
      item = i;
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->pace_drop), item);
}

/* Item 0 is the CPU, item i the GPU i - 1. */
static void
device_changed (GtkDropDown *drop, GParamSpec *pspec, CtRunControls *self)
{
  guint item = gtk_drop_down_get_selected (drop);

  self->use_gpu = item > 0 && item != GTK_INVALID_LIST_POSITION;
  self->gpu_device = self->use_gpu ? (int) item - 1 : 0;
}

/* The Input popover's transform */

static void
scale_changed (GtkSpinButton *spin, CtRunControls *self)
{
  self->transform.scale = (float) gtk_spin_button_get_value (spin);
  g_signal_emit (self, signals[SIGNAL_TRANSFORM_CHANGED], 0);
}

static void
mean_changed (GtkEditable *entry, CtRunControls *self)
{
  g_auto (GStrv) parts = g_strsplit_set (gtk_editable_get_text (entry), " ,", -1);
  float *mean = self->transform.mean;
  guint n = 0;

  memset (self->transform.mean, 0, sizeof self->transform.mean);
  for (guint i = 0; parts[i] != NULL && n < 3; i++)
    if (parts[i][0] != '\0')
      mean[n++] = (float) g_ascii_strtod (parts[i], NULL);
  /* one value: the same mean for every channel */
  if (n == 1)
    mean[1] = mean[2] = mean[0];
  g_signal_emit (self, signals[SIGNAL_TRANSFORM_CHANGED], 0);
}

static void
rgb_toggled (GtkCheckButton *check, CtRunControls *self)
{
  self->transform.order = gtk_check_button_get_active (check) ? CT_INPUT_ORDER_RGB
                                                              : CT_INPUT_ORDER_BGR;
  g_signal_emit (self, signals[SIGNAL_TRANSFORM_CHANGED], 0);
}

const CtInputTransform *
ct_run_controls_get_transform (CtRunControls *self)
{
  return &self->transform;
}

void
ct_run_controls_set_input_text (CtRunControls *self, const char *text)
{
  gtk_label_set_text (self->input_label, text);
}

/* The button GTK builds inside a drop-down is what a screen reader lands
 * on: it gets the drop-down's NAME. */
static void
name_drop_button (GtkWidget *drop, const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (drop); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_TOGGLE_BUTTON (child))
      gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      name, -1);
}

static void
fill_devices (CtRunControls *self)
{
  g_autofree char *reason = NULL;
  g_auto (GStrv) gpus = ct_run_list_gpus (&reason);
  g_autoptr (GtkStringList) items = gtk_string_list_new (NULL);
  GtkWidget *drop = self->device_drop;

  gtk_string_list_append (items, _("CPU"));
  for (char **gpu = gpus; *gpu != NULL; gpu++)
    gtk_string_list_append (items, *gpu);
  gtk_drop_down_set_model (GTK_DROP_DOWN (drop), G_LIST_MODEL (items));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (drop), 0);
  g_signal_connect (drop, "notify::selected", G_CALLBACK (device_changed), self);
  name_drop_button (drop, _("Device"));
  if (reason != NULL)
    {
      g_autofree char *why = g_strdup_printf (_("Only the CPU: %s"), reason);

      gtk_widget_set_sensitive (drop, FALSE);
      gtk_widget_set_tooltip_text (drop, why);
    }
  else
    gtk_widget_set_tooltip_text (drop, _("Where steps and training compute: the CPU or a GPU"));
}

guint
ct_run_controls_get_batch (CtRunControls *self)
{
  return self->batch;
}

void
ct_run_controls_set_batch (CtRunControls *self, guint batch)
{
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->batch_spin), batch);
  self->batch = batch;
}

void
ct_run_controls_set_seed (CtRunControls *self, guint64 seed)
{
  /* the spin button keeps it in its range, and tells seed_changed */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->seed_spin), (double) seed);
}

guint64
ct_run_controls_get_seed (CtRunControls *self)
{
  return self->seed;
}

CtRunFill
ct_run_controls_get_fill (CtRunControls *self)
{
  return self->fill;
}

gboolean
ct_run_controls_get_use_gpu (CtRunControls *self)
{
  return self->use_gpu;
}

int
ct_run_controls_get_gpu_device (CtRunControls *self)
{
  return self->gpu_device;
}

void
ct_run_controls_set_weights_name (CtRunControls *self, const char *name)
{
  gtk_label_set_text (self->weights_label, name != NULL ? name : _("Fillers"));
}

void
ct_run_controls_set_passing (CtRunControls *self, gboolean passing)
{
  gboolean focused;

  if (gtk_widget_get_visible (self->stop_button) == passing)
    return;
  /* the keyboard focus moves with the swap rather than being lost */
  focused = gtk_widget_has_focus (passing ? self->pass_button : self->stop_button);
  gtk_widget_set_visible (self->stop_button, passing);
  gtk_widget_set_visible (self->pass_button, !passing);
  if (focused)
    gtk_widget_grab_focus (passing ? self->stop_button : self->pass_button);
}

GtkMenuButton *
ct_run_controls_get_input_button (CtRunControls *self)
{
  return self->input_button;
}

GtkMenuButton *
ct_run_controls_get_settings_button (CtRunControls *self)
{
  return self->settings_button;
}

GtkWidget *
ct_run_controls_get_pass_button (CtRunControls *self)
{
  return self->pass_button;
}

GtkWidget *
ct_run_controls_get_stop_button (CtRunControls *self)
{
  return self->stop_button;
}

static void
ct_run_controls_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CT_TYPE_RUN_CONTROLS);
  G_OBJECT_CLASS (ct_run_controls_parent_class)->dispose (object);
}

static void
ct_run_controls_class_init (CtRunControlsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_run_controls_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/cortado/Cortado/run-controls.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, CtRunControls, name)
  BIND (pass_button);
  BIND (stop_button);
  BIND (settings_button);
  BIND (input_button);
  BIND (settings_popover);
  BIND (batch_spin);
  BIND (seed_spin);
  BIND (device_drop);
  BIND (pace_drop);
  BIND (weights_label);
  BIND (input_label);
  BIND (scale_spin);
#undef BIND
  /* The scale, mean or channel order of input images changed. */
  signals[SIGNAL_TRANSFORM_CHANGED] = g_signal_new ("transform-changed",
                                                    G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* The pause after each layer of a pass changed (ct_run_controls_get_pace). */
  signals[SIGNAL_PACE_CHANGED] = g_signal_new ("pace-changed",
                                               G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                               0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_bind_template_callback (widget_class, pace_selected);
  gtk_widget_class_bind_template_callback (widget_class, scale_changed);
  gtk_widget_class_bind_template_callback (widget_class, mean_changed);
  gtk_widget_class_bind_template_callback (widget_class, rgb_toggled);
  gtk_widget_class_bind_template_callback (widget_class, batch_changed);
  gtk_widget_class_bind_template_callback (widget_class, seed_changed);
  gtk_widget_class_bind_template_callback (widget_class, fill_toggled);
}

static void
ct_run_controls_init (CtRunControls *self)
{
  self->seed = DEFAULT_SEED;
  self->fill = CT_RUN_FILL_CAFFE_REF;
  ct_input_transform_init (&self->transform);
  /* the example net's transform_param: pixels / 256 (the .ui's scale) */
  self->transform.scale = 0.00390625f;
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (self->scale_spin), 8);
  fill_devices (self);
  name_drop_button (self->pace_drop, _("Pace of a pass"));
}
