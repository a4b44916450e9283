/* lesson-panel.c: see lesson-panel.h. Built in code: a column of labels
 * and a row of buttons, with the step's text large enough to read from
 * the back of a room; compact, the same parts in one row. */
#include <glib/gi18n-lib.h>

#include "lesson-panel.h"

struct _CtLessonPanel {
  GtkBox parent_instance;

  GtkWidget *header;
  GtkWidget *scroller;
  GtkWidget *buttons;
  gboolean compact;
  GtkLabel *lesson_title;
  GtkLabel *position;
  GtkLabel *step_title;
  GtkLabel *text;
  GtkWidget *back;
  GtkWidget *next;
  GtkWidget *spinner;
  guint index;
  guint n_steps;
  gboolean busy;
};

G_DEFINE_FINAL_TYPE (CtLessonPanel, ct_lesson_panel, GTK_TYPE_BOX)

enum { SIGNAL_STEP_CHOSEN, SIGNAL_CLOSE, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
update_buttons (CtLessonPanel *self)
{
  gtk_widget_set_sensitive (self->back, !self->busy && self->index > 0);
  gtk_widget_set_sensitive (self->next, !self->busy && self->index + 1 < self->n_steps);
  gtk_widget_set_visible (self->spinner, self->busy);
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), self->busy);
}

static void
back_clicked (CtLessonPanel *self)
{
  if (self->index > 0)
    g_signal_emit (self, signals[SIGNAL_STEP_CHOSEN], 0, self->index - 1);
}

static void
next_clicked (CtLessonPanel *self)
{
  if (self->index + 1 < self->n_steps)
    g_signal_emit (self, signals[SIGNAL_STEP_CHOSEN], 0, self->index + 1);
}

static void
close_clicked (CtLessonPanel *self)
{
  g_signal_emit (self, signals[SIGNAL_CLOSE], 0);
}

static GtkLabel *
add_label (CtLessonPanel *self, const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  gtk_box_append (GTK_BOX (self), label);
  return GTK_LABEL (label);
}

static GtkWidget *
make_button (const char *label, const char *tooltip, GCallback callback, CtLessonPanel *self)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  tooltip, -1);
  g_signal_connect_swapped (button, "clicked", callback, self);
  return button;
}

static void
ct_lesson_panel_init (CtLessonPanel *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *close;
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *text;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 12);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 14);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 14);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 14);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 14);
  gtk_widget_add_css_class (GTK_WIDGET (self), "lesson-panel");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Lesson"), -1);

  self->header = header;
  self->buttons = buttons;
  self->scroller = scroller;
  gtk_box_append (GTK_BOX (self), header);
  self->lesson_title = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->lesson_title, 0);
  gtk_label_set_wrap (self->lesson_title, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->lesson_title), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->lesson_title), "heading");
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->lesson_title));
  close = gtk_button_new_from_icon_name ("window-close-symbolic");
  gtk_widget_add_css_class (close, "flat");
  gtk_widget_set_valign (close, GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (close, _("Close the Lesson"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (close), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Close the Lesson"), -1);
  g_signal_connect_swapped (close, "clicked", G_CALLBACK (close_clicked), self);
  gtk_box_append (GTK_BOX (header), close);

  self->position = add_label (self, "dim-label");
  self->step_title = add_label (self, "title-2");

  /* the text scrolls; the buttons stay in reach */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (scroller, TRUE);
  text = gtk_label_new (NULL);
  self->text = GTK_LABEL (text);
  gtk_label_set_xalign (self->text, 0);
  gtk_label_set_yalign (self->text, 0);
  gtk_label_set_wrap (self->text, TRUE);
  gtk_label_set_wrap_mode (self->text, PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (self->text, TRUE);
  gtk_widget_add_css_class (text, "lesson-text");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), text);
  gtk_box_append (GTK_BOX (self), scroller);

  self->spinner = gtk_spinner_new ();
  gtk_widget_set_tooltip_text (self->spinner, _("The step’s actions are running"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->spinner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The step’s actions are running"), -1);
  self->back = make_button (_("_Back"), _("The Previous Step"), G_CALLBACK (back_clicked), self);
  self->next = make_button (_("_Next"), _("The Next Step"), G_CALLBACK (next_clicked), self);
  gtk_widget_add_css_class (self->next, "suggested-action");
  /* names for tests and style sheets, in every language */
  gtk_widget_set_name (self->back, "lesson-back");
  gtk_widget_set_name (self->next, "lesson-next");
  gtk_widget_set_hexpand (self->back, TRUE);
  gtk_widget_set_hexpand (self->next, TRUE);
  gtk_box_append (GTK_BOX (buttons), self->back);
  gtk_box_append (GTK_BOX (buttons), self->spinner);
  gtk_box_append (GTK_BOX (buttons), self->next);
  gtk_box_append (GTK_BOX (self), buttons);
  update_buttons (self);
}

static void
ct_lesson_panel_class_init (CtLessonPanelClass *klass)
{
  signals[SIGNAL_STEP_CHOSEN] = g_signal_new ("step-chosen", G_TYPE_FROM_CLASS (klass),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                              G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[SIGNAL_CLOSE] = g_signal_new ("close", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

CtLessonPanel *
ct_lesson_panel_new (void)
{
  return g_object_new (CT_TYPE_LESSON_PANEL, NULL);
}

void
ct_lesson_panel_show_step (CtLessonPanel *self, const char *title, guint index, guint n_steps,
                           const char *step_title, const char *text)
{
  g_autofree char *position = NULL;

  g_return_if_fail (CT_IS_LESSON_PANEL (self));
  self->index = index;
  self->n_steps = n_steps;
  /* TRANSLATORS: where the class is in a lesson: "Step 2 of 7" */
  position = g_strdup_printf (_("Step %u of %u"), index + 1, n_steps);
  gtk_label_set_text (self->lesson_title, title);
  gtk_label_set_text (self->position, position);
  gtk_label_set_text (self->step_title, step_title);
  gtk_label_set_text (self->text, text);
  update_buttons (self);
}

void
ct_lesson_panel_set_busy (CtLessonPanel *self, gboolean busy)
{
  g_return_if_fail (CT_IS_LESSON_PANEL (self));
  self->busy = busy;
  update_buttons (self);
}

guint
ct_lesson_panel_get_index (CtLessonPanel *self)
{
  return self->index;
}

void
ct_lesson_panel_set_compact (CtLessonPanel *self, gboolean compact)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int margin = compact ? 6 : 14;

  g_return_if_fail (CT_IS_LESSON_PANEL (self));
  if (self->compact == compact)
    return;
  self->compact = compact;
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self),
                                  compact ? GTK_ORIENTATION_HORIZONTAL
                                          : GTK_ORIENTATION_VERTICAL);
  gtk_widget_set_margin_top (widget, margin);
  gtk_widget_set_margin_bottom (widget, margin);
  /* in a row: where the class is, the step's title, its text (a few
   * lines, scrolling), the buttons, and Close at the end */
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_title), !compact);
  if (compact)
    gtk_box_reorder_child_after (GTK_BOX (self), self->header, self->buttons);
  else
    gtk_box_reorder_child_after (GTK_BOX (self), self->header, NULL);
  gtk_widget_set_valign (self->header, compact ? GTK_ALIGN_CENTER : GTK_ALIGN_FILL);
  gtk_widget_set_valign (GTK_WIDGET (self->position), compact ? GTK_ALIGN_CENTER : GTK_ALIGN_FILL);
  gtk_widget_set_valign (GTK_WIDGET (self->step_title),
                         compact ? GTK_ALIGN_CENTER : GTK_ALIGN_FILL);
  gtk_widget_set_valign (self->buttons, compact ? GTK_ALIGN_CENTER : GTK_ALIGN_FILL);
  /* "Step 2 of 7" on one line */
  gtk_label_set_wrap (self->position, !compact);
  gtk_label_set_max_width_chars (self->step_title, compact ? 22 : -1);
  gtk_label_set_width_chars (self->step_title, compact ? 12 : -1);
  if (compact)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->step_title), "title-2");
      gtk_widget_add_css_class (GTK_WIDGET (self->step_title), "title-4");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->step_title), "title-4");
      gtk_widget_add_css_class (GTK_WIDGET (self->step_title), "title-2");
    }
  /* the text takes the row's room, up to about four lines high */
  gtk_widget_set_hexpand (self->scroller, compact);
  gtk_widget_set_vexpand (self->scroller, !compact);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller),
                                                    compact);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scroller),
                                              compact ? 100 : -1);
  gtk_widget_set_hexpand (self->back, !compact);
  gtk_widget_set_hexpand (self->next, !compact);
  if (compact)
    gtk_widget_add_css_class (widget, "compact");
  else
    gtk_widget_remove_css_class (widget, "compact");
}

gboolean
ct_lesson_panel_get_compact (CtLessonPanel *self)
{
  return self->compact;
}
