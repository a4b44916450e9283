/* layer-explanation.c: the inspector's section that explains the selected
 * layer's type, in an expander that stays open or closed as the user left
 * it while the selection changes. */
#include <glib/gi18n-lib.h>

#include "layer-catalogue.h"
#include "layer-explanation.h"

#define KEY "ct-layer-explanation"

typedef struct {
  GtkWidget *expander;
  GtkWidget *summary, *formula, *parameters, *gradient;
} Section;

static GtkWidget *
add_part (GtkWidget *box, const char *heading, const char *css)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (heading != NULL)
    {
      GtkWidget *title = gtk_label_new (heading);

      gtk_widget_add_css_class (title, "caption-heading");
      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_box_append (GTK_BOX (box), title);
    }
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css != NULL)
    gtk_widget_add_css_class (label, css);
  gtk_box_append (GTK_BOX (box), label);
  return label;
}

static Section *
section_new (GtkWidget *description)
{
  Section *s = g_new0 (Section, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);

  s->expander = gtk_expander_new (_("How This Layer Works"));
  gtk_expander_set_expanded (GTK_EXPANDER (s->expander), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (s->expander), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("How This Layer Works"), -1);
  s->summary = add_part (box, NULL, NULL);
  s->formula = add_part (box, _("Formula"), "monospace");
  s->parameters = add_part (box, _("Parameters"), NULL);
  s->gradient = add_part (box, _("Its Diff"), NULL);
  gtk_widget_set_margin_top (box, 4);
  gtk_expander_set_child (GTK_EXPANDER (s->expander), box);
  gtk_widget_insert_after (s->expander, gtk_widget_get_parent (description), description);
  return s;
}

void
ct_layer_explanation_follow (GtkWidget *description, const CtLayerClass *klass)
{
  Section *s = g_object_get_data (G_OBJECT (description), KEY);
  CtLayerExplanation e;

  if (s == NULL)
    {
      s = section_new (description);
      g_object_set_data_full (G_OBJECT (description), KEY, s, g_free);
    }
  if (!ct_layer_class_explain (klass, &e))
    {
      gtk_widget_set_visible (s->expander, FALSE);
      return;
    }
  gtk_label_set_text (GTK_LABEL (s->summary), e.summary);
  gtk_label_set_text (GTK_LABEL (s->formula), e.formula);
  gtk_label_set_text (GTK_LABEL (s->parameters), e.parameters);
  gtk_label_set_text (GTK_LABEL (s->gradient), e.gradient);
  gtk_widget_set_visible (s->expander, TRUE);
}

GtkWidget *
ct_layer_explanation_get (GtkWidget *description)
{
  Section *s = g_object_get_data (G_OBJECT (description), KEY);

  return s != NULL ? s->expander : NULL;
}
