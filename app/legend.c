/* legend.c: the "How to read this" buttons: a popover with colour swatches
 * drawn from the same colour functions the views use, and a few sentences
 * on what the colours mean. */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "legend.h"
#include "graph/graph-render.h"
#include "heatmap/colormap.h"

const char *
ct_legend_text (CtLegendKind kind)
{
  if (kind == CT_LEGEND_HEATMAP)
    return _("Each square is one value. Diverging colours (for signed values and every "
             "diff): blue is negative, white is zero, red is positive; the stronger the "
             "colour, the larger the size. Viridis (for values that are never negative): "
             "dark purple is the smallest, yellow the largest. The scale, shown on the "
             "strip beside the map, spans the whole blob, each channel, or a locked range. "
             "Click a channel to enlarge it, then click a value to see where it comes "
             "from.");
  return _("A gradient-health strip (on a graph edge after a backward step) compares a "
           "blob's diff with its data: blue means the gradient vanishes (below 1e-5 of the "
           "data, so the layers below it barely learn), green that it is in proportion, "
           "orange that it explodes (above 10 times the data), red that it is NaN or "
           "infinite. An update ratio is lr · ‖Δw‖ / ‖w‖, how much one step changes a "
           "layer's weights: near 1e-3 (green) is healthy, far below (blue) learns too "
           "slowly, far above (orange) too fast.");
}

typedef struct {
  CtLegendKind kind;
  int row;
} Swatch;

static void
draw_swatch (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  const Swatch *s = data;

  for (int x = 0; x < width; x++)
    {
      double t = width > 1 ? (double) x / (width - 1) : 0;

      if (s->kind == CT_LEGEND_HEATMAP)
        {
          CtRgb c = ct_colormap_at (s->row == 0 ? CT_COLORMAP_DIVERGING : CT_COLORMAP_VIRIDIS, t);

          cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
        }
      else
        {
          CtGraphColor c;

          /* health from 1e-7 to 1e3, on a log scale */
          ct_graph_health_color (pow (10, -7 + 10 * t), &c);
          cairo_set_source_rgb (cr, c.r, c.g, c.b);
        }
      cairo_rectangle (cr, x, 0, 1, height);
      cairo_fill (cr);
    }
}

static GtkWidget *
swatch_row (CtLegendKind kind, int row, const char *left, const char *right, const char *name)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *area = gtk_drawing_area_new ();
  GtkWidget *l = gtk_label_new (left), *r = gtk_label_new (right);
  Swatch *s = g_new (Swatch, 1);

  s->kind = kind;
  s->row = row;
  gtk_widget_set_size_request (area, 160, 14);
  gtk_widget_set_hexpand (area, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_swatch, s, g_free);
  gtk_accessible_update_property (GTK_ACCESSIBLE (area), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_widget_add_css_class (l, "caption");
  gtk_widget_add_css_class (r, "caption");
  gtk_box_append (GTK_BOX (box), l);
  gtk_box_append (GTK_BOX (box), area);
  gtk_box_append (GTK_BOX (box), r);
  return box;
}

GtkWidget *
ct_legend_button_new (CtLegendKind kind)
{
  GtkWidget *button = gtk_menu_button_new ();
  GtkWidget *popover = gtk_popover_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *text = gtk_label_new (ct_legend_text (kind));
  const char *name = kind == CT_LEGEND_HEATMAP ? _("How to Read the Colours")
                                               : _("How to Read the Gradient Health");

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "dialog-information-symbolic");
  gtk_widget_set_tooltip_text (button, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  if (kind == CT_LEGEND_HEATMAP)
    {
      gtk_box_append (GTK_BOX (box), swatch_row (kind, 0, _("negative"), _("positive"),
                                                 _("Diverging colours")));
      gtk_box_append (GTK_BOX (box), swatch_row (kind, 1, _("smallest"), _("largest"),
                                                 _("Viridis colours")));
    }
  else
    gtk_box_append (GTK_BOX (box), swatch_row (kind, 0, _("vanishing"), _("exploding"),
                                               _("Gradient-health colours")));
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 44);
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  gtk_box_append (GTK_BOX (box), text);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_popover_set_child (GTK_POPOVER (popover), box);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (button), popover);
  return button;
}
