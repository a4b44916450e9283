/* net-compare-window.c: CtNetCompareWindow. Everything it shows is
 * computed GTK-free (analysis/net-diff.h, net-diff-marks.h) before it
 * opens; this file only lays it out. */
#include <glib/gi18n-lib.h>

#include "net-compare-window.h"
#include "net-diff-marks.h"
#include "net-diff.h"

struct _CtNetCompareWindow {
  GtkWindow parent_instance;

  GtkWidget *summary, *removed, *text;
};

G_DEFINE_FINAL_TYPE (CtNetCompareWindow, ct_net_compare_window, GTK_TYPE_WINDOW)

enum {
  SIGNAL_CLEAR_MARKS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static char *
summary_text (GPtrArray *marks, guint n_entries)
{
  guint counts[4] = { 0 };

  if (n_entries == 0)
    return g_strdup (_("The two nets are the same."));
  for (guint i = 0; i < marks->len; i++)
    counts[((CtNetDiffMark *) marks->pdata[i])->kind]++;
  /* TRANSLATORS: counts of layers of a net compared with another version */
  return g_strdup_printf (_("Layers added: %u, removed: %u, renamed: %u, changed: %u."),
                          counts[CT_NET_DIFF_ADDED], counts[CT_NET_DIFF_REMOVED],
                          counts[CT_NET_DIFF_RENAMED], counts[CT_NET_DIFF_CHANGED]);
}

static void
draw_swatch (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  guint8 rgb[3];

  ct_net_diff_kind_color (GPOINTER_TO_INT (data), rgb);
  cairo_set_source_rgb (cr, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

static GtkWidget *
build_legend (void)
{
  static const struct {
    CtNetDiffKind kind;
    const char *text;
  } keys[] = {
    { CT_NET_DIFF_ADDED, N_("Added") },
    { CT_NET_DIFF_CHANGED, N_("Changed") },
    { CT_NET_DIFF_RENAMED, N_("Renamed") },
    { CT_NET_DIFF_REMOVED, N_("Removed") },
  };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  gtk_box_append (GTK_BOX (box), gtk_label_new (_("On the graph:")));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkWidget *swatch = gtk_drawing_area_new ();

      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 16);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 16);
      gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch,
                                      GINT_TO_POINTER (keys[i].kind), NULL);
      gtk_accessible_update_property (GTK_ACCESSIBLE (swatch), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _(keys[i].text), -1);
      gtk_widget_set_margin_start (swatch, 6);
      gtk_box_append (GTK_BOX (box), swatch);
      gtk_box_append (GTK_BOX (box), gtk_label_new (_(keys[i].text)));
    }
  return box;
}

static void
clear_clicked (GtkButton *button, CtNetCompareWindow *self)
{
  g_signal_emit (self, signals[SIGNAL_CLEAR_MARKS], 0);
}

static void
ct_net_compare_window_init (CtNetCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *clear = gtk_button_new_with_mnemonic (_("C_lear Colours on the Graph"));
  GtkWidget *legend = build_legend ();

  gtk_window_set_default_size (GTK_WINDOW (self), 760, 520);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->summary), TRUE);
  self->removed = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->removed), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (self->removed), TRUE);
  gtk_label_set_selectable (GTK_LABEL (self->removed), TRUE);
  gtk_widget_set_tooltip_text (clear, _("Take the comparison's colours off the workbench's graph"));
  g_signal_connect (clear, "clicked", G_CALLBACK (clear_clicked), self);
  gtk_widget_set_hexpand (legend, TRUE);
  gtk_box_append (GTK_BOX (row), legend);
  gtk_box_append (GTK_BOX (row), clear);
  self->text = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->text), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->text), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (self->text), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (self->text), 6);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (self->text), 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->text), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("The changes, field by field"), -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->text);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (box), self->summary);
  gtk_box_append (GTK_BOX (box), row);
  gtk_box_append (GTK_BOX (box), self->removed);
  gtk_box_append (GTK_BOX (box), scroller);
  gtk_window_set_child (GTK_WINDOW (self), box);
}

static void
ct_net_compare_window_class_init (CtNetCompareWindowClass *klass)
{
  signals[SIGNAL_CLEAR_MARKS] =
    g_signal_new ("clear-marks", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 0);
}

static char *
removed_text (GPtrArray *marks)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < marks->len; i++)
    {
      const CtNetDiffMark *m = marks->pdata[i];

      if (m->kind != CT_NET_DIFF_REMOVED)
        continue;
      g_string_append_printf (s, "%s%s (%s)", s->len > 0 ? ", " : "", m->layer, m->type);
    }
  if (s->len > 0)
    {
      /* TRANSLATORS: %s lists layers, "conv2 (Convolution), ip1 (InnerProduct)" */
      g_autofree char *list = g_string_free (s, FALSE);
      return g_strdup_printf (_("Removed, so not on the graph: %s"), list);
    }
  g_string_free (s, TRUE);
  return g_strdup ("");
}

CtNetCompareWindow *
ct_net_compare_window_new (GtkWindow *parent, const char *other, GPtrArray *forward,
                           GPtrArray *backward)
{
  CtNetCompareWindow *self =
    g_object_new (CT_TYPE_NET_COMPARE_WINDOW, "transient-for", parent, NULL);
  g_autoptr (GPtrArray) marks = ct_net_diff_marks (forward);
  g_autofree char *title = g_strdup_printf (_("This Net against %s"), other);
  g_autofree char *summary = summary_text (marks, forward->len);
  g_autofree char *removed = removed_text (marks);
  g_autofree char *there = ct_net_diff_to_text (forward);
  g_autofree char *back = ct_net_diff_to_text (backward);
  /* TRANSLATORS: headings of the two directions of a net comparison */
  g_autofree char *text = g_strdup_printf (
    _("From %s to this net:\n%s\nFrom this net back to %s:\n%s"), other, there, other, back);

  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_label_set_text (GTK_LABEL (self->summary), summary);
  gtk_label_set_text (GTK_LABEL (self->removed), removed);
  gtk_widget_set_visible (self->removed, *removed != '\0');
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->text)), text, -1);
  return self;
}

const char *
ct_net_compare_window_get_summary (CtNetCompareWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->summary));
}

const char *
ct_net_compare_window_get_removed (CtNetCompareWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->removed));
}

char *
ct_net_compare_window_dup_text (CtNetCompareWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->text));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}
