/* palette.c: CtPalette (see palette.h): a search entry over a list box
 * whose rows are drag sources; family headings come from the list box's
 * header function, so that they follow the filter. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "palette.h"

struct _CtPalette {
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkWidget *search;
  GtkWidget *list;
  GtkWidget *empty;
  char **words; /* the search, case-folded, split on spaces */
};

typedef struct {
  char *type;
  char *family;
  char *description;
  char *haystack; /* case-folded type, family and description */
  GdkRGBA color;
  gboolean has_color;
} Item;

enum {
  PROP_0,
  PROP_SEARCH_TEXT,
  N_PROPS
};

enum {
  SIGNAL_ACTIVATE_TYPE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtPalette, ct_palette, GTK_TYPE_WIDGET)

static void
item_free (gpointer data)
{
  Item *item = data;

  g_free (item->type);
  g_free (item->family);
  g_free (item->description);
  g_free (item->haystack);
  g_free (item);
}

static Item *
row_item (GtkListBoxRow *row)
{
  return g_object_get_data (G_OBJECT (row), "ct-palette-item");
}

static gboolean
filter_row (GtkListBoxRow *row, gpointer data)
{
  CtPalette *self = data;
  Item *item = row_item (row);

  if (self->words == NULL)
    return TRUE;
  for (guint i = 0; self->words[i] != NULL; i++)
    if (*self->words[i] != '\0' && strstr (item->haystack, self->words[i]) == NULL)
      return FALSE;
  return TRUE;
}

static void
update_header (GtkListBoxRow *row, GtkListBoxRow *before, gpointer data)
{
  Item *item = row_item (row);
  Item *previous = before != NULL ? row_item (before) : NULL;
  GtkWidget *header;

  if (previous != NULL && g_strcmp0 (previous->family, item->family) == 0)
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  header = gtk_list_box_row_get_header (row);
  if (header != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (header)), item->family) == 0)
    return;
  header = gtk_label_new (item->family);
  gtk_label_set_xalign (GTK_LABEL (header), 0);
  gtk_widget_add_css_class (header, "heading");
  gtk_widget_add_css_class (header, "palette-heading");
  gtk_list_box_row_set_header (row, header);
}

static void
draw_dot (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  const GdkRGBA *color = data;
  double r = MIN (width, height) / 2.0;

  gdk_cairo_set_source_rgba (cr, color);
  cairo_arc (cr, width / 2.0, height / 2.0, r, 0, 2 * G_PI);
  cairo_fill (cr);
}

static GdkContentProvider *
drag_prepare (GtkDragSource *source, double x, double y, gpointer data)
{
  GtkWidget *row = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (source));
  Item *item = row_item (GTK_LIST_BOX_ROW (row));

  return gdk_content_provider_new_typed (G_TYPE_STRING, item->type);
}

static void
drag_begin (GtkDragSource *source, GdkDrag *drag, gpointer data)
{
  GtkWidget *row = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (source));
  g_autoptr (GdkPaintable) icon = gtk_widget_paintable_new (row);

  gtk_drag_source_set_icon (source, icon, 16, 16);
}

static GtkWidget *
make_row (Item *item)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *hbox = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 10);
  GtkWidget *vbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title = gtk_label_new (item->type);
  GtkWidget *subtitle = gtk_label_new (item->description);
  GtkDragSource *drag = gtk_drag_source_new ();

  if (item->has_color)
    {
      GtkWidget *dot = gtk_drawing_area_new ();
      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (dot), 10);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (dot), 10);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (dot), draw_dot, &item->color, NULL);
      gtk_widget_set_valign (dot, GTK_ALIGN_START);
      gtk_widget_set_margin_top (dot, 5);
      gtk_box_append (GTK_BOX (hbox), dot);
    }
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "palette-type");
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0);
  gtk_label_set_ellipsize (GTK_LABEL (subtitle), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (subtitle), TRUE);
  gtk_widget_add_css_class (subtitle, "caption");
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_box_append (GTK_BOX (vbox), title);
  gtk_box_append (GTK_BOX (vbox), subtitle);
  gtk_widget_set_hexpand (vbox, TRUE);
  gtk_box_append (GTK_BOX (hbox), vbox);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), hbox);
  gtk_widget_set_tooltip_text (row, item->description);
  gtk_widget_add_css_class (row, "palette-row");
  /* Screen readers hear the type and what it does. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  item->type, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  item->description, -1);
  g_object_set_data_full (G_OBJECT (row), "ct-palette-item", item, item_free);

  gtk_drag_source_set_actions (drag, GDK_ACTION_COPY);
  g_signal_connect (drag, "prepare", G_CALLBACK (drag_prepare), NULL);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), NULL);
  gtk_widget_add_controller (row, GTK_EVENT_CONTROLLER (drag));
  return row;
}

static void
row_activated (GtkListBox *list, GtkListBoxRow *row, CtPalette *self)
{
  g_signal_emit (self, signals[SIGNAL_ACTIVATE_TYPE], 0, row_item (row)->type);
}

static void
refilter (CtPalette *self)
{
  gtk_list_box_invalidate_filter (GTK_LIST_BOX (self->list));
  gtk_list_box_invalidate_headers (GTK_LIST_BOX (self->list));
  gtk_widget_set_visible (self->empty, ct_palette_count_visible (self) == 0);
}

static void
search_changed (GtkSearchEntry *entry, CtPalette *self)
{
  ct_palette_set_search_text (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* Down from the search entry goes to the first visible row. */
static void
search_next (GtkSearchEntry *entry, CtPalette *self)
{
  for (GtkWidget *row = gtk_widget_get_first_child (self->list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row) && gtk_widget_get_child_visible (row))
      {
        gtk_widget_grab_focus (row);
        return;
      }
}

static void
search_activate (GtkSearchEntry *entry, CtPalette *self)
{
  for (GtkWidget *row = gtk_widget_get_first_child (self->list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row) && gtk_widget_get_child_visible (row))
      {
        row_activated (GTK_LIST_BOX (self->list), GTK_LIST_BOX_ROW (row), self);
        return;
      }
}

static void
ct_palette_dispose (GObject *object)
{
  CtPalette *self = CT_PALETTE (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (ct_palette_parent_class)->dispose (object);
}

static void
ct_palette_finalize (GObject *object)
{
  CtPalette *self = CT_PALETTE (object);

  g_strfreev (self->words);
  G_OBJECT_CLASS (ct_palette_parent_class)->finalize (object);
}

static void
ct_palette_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtPalette *self = CT_PALETTE (object);

  switch (prop_id)
    {
    case PROP_SEARCH_TEXT:
      g_value_set_string (value, ct_palette_get_search_text (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_palette_set_property (GObject *object, guint prop_id, const GValue *value,
                         GParamSpec *pspec)
{
  CtPalette *self = CT_PALETTE (object);

  switch (prop_id)
    {
    case PROP_SEARCH_TEXT:
      ct_palette_set_search_text (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_palette_class_init (CtPaletteClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_palette_dispose;
  object_class->finalize = ct_palette_finalize;
  object_class->get_property = ct_palette_get_property;
  object_class->set_property = ct_palette_set_property;

  properties[PROP_SEARCH_TEXT] =
    g_param_spec_string ("search-text", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_ACTIVATE_TYPE] = g_signal_new ("activate-type", G_TYPE_FROM_CLASS (klass),
                                                G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "palette");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
ct_palette_init (CtPalette *self)
{
  GtkWidget *scroller;
  GtkWidget *overlay;

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->search = gtk_search_entry_new ();
  g_object_set (self->search, "placeholder-text", _("Search layer types"), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->search), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Search layer types"), -1);
  gtk_widget_set_margin_start (self->search, 8);
  gtk_widget_set_margin_end (self->search, 8);
  gtk_widget_set_margin_top (self->search, 8);
  gtk_widget_set_margin_bottom (self->search, 6);
  g_signal_connect (self->search, "search-changed", G_CALLBACK (search_changed), self);
  g_signal_connect (self->search, "next-match", G_CALLBACK (search_next), self);
  g_signal_connect (self->search, "activate", G_CALLBACK (search_activate), self);
  gtk_box_append (GTK_BOX (self->box), self->search);

  self->list = gtk_list_box_new ();
  gtk_widget_add_css_class (self->list, "navigation-sidebar");
  gtk_widget_add_css_class (self->list, "palette-list");
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->list), GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (self->list), FALSE);
  gtk_list_box_set_filter_func (GTK_LIST_BOX (self->list), filter_row, self, NULL);
  gtk_list_box_set_header_func (GTK_LIST_BOX (self->list), update_header, self, NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Layer types"), -1);
  g_signal_connect (self->list, "row-activated", G_CALLBACK (row_activated), self);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->list);
  gtk_widget_set_vexpand (scroller, TRUE);

  self->empty = gtk_label_new (_("No layer type matches"));
  gtk_widget_add_css_class (self->empty, "dim-label");
  gtk_widget_set_valign (self->empty, GTK_ALIGN_START);
  gtk_widget_set_margin_top (self->empty, 24);
  gtk_widget_set_can_target (self->empty, FALSE);

  overlay = gtk_overlay_new ();
  gtk_overlay_set_child (GTK_OVERLAY (overlay), scroller);
  gtk_overlay_add_overlay (GTK_OVERLAY (overlay), self->empty);
  gtk_box_append (GTK_BOX (self->box), overlay);
}

GtkWidget *
ct_palette_new (void)
{
  return g_object_new (CT_TYPE_PALETTE, NULL);
}

void
ct_palette_add_item (CtPalette *self, const char *type, const char *family,
                     const char *description, const GdkRGBA *color)
{
  Item *item;
  g_autofree char *all = NULL;

  g_return_if_fail (CT_IS_PALETTE (self));
  g_return_if_fail (type != NULL);
  item = g_new0 (Item, 1);
  item->type = g_strdup (type);
  item->family = g_strdup (family != NULL ? family : "");
  item->description = g_strdup (description != NULL ? description : "");
  all = g_strjoin (" ", item->type, item->family, item->description, NULL);
  item->haystack = g_utf8_casefold (all, -1);
  if (color != NULL)
    {
      item->color = *color;
      item->has_color = TRUE;
    }
  gtk_list_box_append (GTK_LIST_BOX (self->list), make_row (item));
  refilter (self);
}

void
ct_palette_clear (CtPalette *self)
{
  GtkWidget *child;

  g_return_if_fail (CT_IS_PALETTE (self));
  while ((child = gtk_widget_get_first_child (self->list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->list), child);
  refilter (self);
}

void
ct_palette_set_search_text (CtPalette *self, const char *text)
{
  g_autofree char *folded = NULL;

  g_return_if_fail (CT_IS_PALETTE (self));
  if (text == NULL)
    text = "";
  if (g_strcmp0 (text, ct_palette_get_search_text (self)) != 0)
    gtk_editable_set_text (GTK_EDITABLE (self->search), text);
  folded = g_utf8_casefold (text, -1);
  g_strfreev (self->words);
  self->words = *folded != '\0' ? g_strsplit_set (g_strstrip (folded), " \t", -1) : NULL;
  refilter (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_TEXT]);
}

const char *
ct_palette_get_search_text (CtPalette *self)
{
  g_return_val_if_fail (CT_IS_PALETTE (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->search));
}

guint
ct_palette_count_visible (CtPalette *self)
{
  guint n = 0;

  g_return_val_if_fail (CT_IS_PALETTE (self), 0);
  for (GtkWidget *row = gtk_widget_get_first_child (self->list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row) && filter_row (GTK_LIST_BOX_ROW (row), self))
      n++;
  return n;
}

void
ct_palette_focus_search (CtPalette *self)
{
  g_return_if_fail (CT_IS_PALETTE (self));
  gtk_widget_grab_focus (self->search);
}
