/* input-browser.c: CtInputBrowser (its widgets in input-browser.ui): the
 * Fashion-MNIST test set as a grid of thumbnails, each with its index and
 * class name, all of them or one class's (the drop-down in the header
 * bar); several can be selected. "Use Selected" hands the selection
 * over through the "use-items" signal, an item activated hands over that
 * item alone; what the items become (the run's inputs) is the window's
 * business (window-inputs.c). */
#include <glib/gi18n-lib.h>

#include "input-browser.h"

#define THUMB_SCALE 3

struct _CtInputBrowser {
  GtkWindow parent_instance;

  const CtFashionSet *set;     /* borrowed, or NULL */
  GtkMultiSelection *selection;
  GtkCustomFilter *filter;     /* keeps the class chosen */
  int class_shown;             /* -1: all */

  /* Template children. */
  GtkWidget *use_button;
  GtkWidget *missing_label;
  GtkWidget *scroller;
  GtkWidget *grid;
  GtkWidget *class_dropdown;
};

enum {
  SIGNAL_USE_ITEMS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtInputBrowser, ct_input_browser, GTK_TYPE_WINDOW)

/* The ten Fashion-MNIST classes (data/examples/lenet-fashion/labels.txt). */
static const char *const fashion_classes[10] = {
  N_("T-shirt/top"), N_("Trouser"), N_("Pullover"), N_("Dress"), N_("Coat"),
  N_("Sandal"), N_("Shirt"), N_("Sneaker"), N_("Bag"), N_("Ankle boot"),
};

const char *
ct_input_browser_class_name (guint label)
{
  return label < G_N_ELEMENTS (fashion_classes) ? _(fashion_classes[label]) : "?";
}

static GdkTexture *
thumbnail (const CtFashionSet *set, guint item)
{
  guint w = set->cols * THUMB_SCALE, h = set->rows * THUMB_SCALE;
  g_autofree guint8 *rgb = g_malloc ((gsize) w * h * 3);
  const guint8 *src = set->pixels + (gsize) item * set->rows * set->cols;
  g_autoptr (GBytes) bytes = NULL;

  /* nearest neighbour: every pixel a THUMB_SCALE square; ink dark on light */
  for (guint y = 0; y < h; y++)
    for (guint x = 0; x < w; x++)
      {
        guint8 v = 255 - src[(y / THUMB_SCALE) * set->cols + x / THUMB_SCALE];
        guint8 *dst = rgb + ((gsize) y * w + x) * 3;
        dst[0] = dst[1] = dst[2] = v;
      }
  bytes = g_bytes_new_take (g_steal_pointer (&rgb), (gsize) w * h * 3);
  return gdk_memory_texture_new ((int) w, (int) h, GDK_MEMORY_R8G8B8, bytes, (gsize) w * 3);
}

#define ITEM_PICTURE "ct-picture"
#define ITEM_LABEL "ct-label"

static void
item_setup (GtkSignalListItemFactory *factory, GtkListItem *item, CtInputBrowser *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *picture = gtk_picture_new ();
  GtkWidget *label = gtk_label_new (NULL);

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_size_request (picture, 28 * THUMB_SCALE, 28 * THUMB_SCALE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 10);
  gtk_widget_add_css_class (label, "caption");
  gtk_box_append (GTK_BOX (box), picture);
  gtk_box_append (GTK_BOX (box), label);
  /* the parts bind fills, named on the item's box */
  g_object_set_data (G_OBJECT (box), ITEM_PICTURE, picture);
  g_object_set_data (G_OBJECT (box), ITEM_LABEL, label);
  gtk_list_item_set_child (item, box);
}

static void
item_bind (GtkSignalListItemFactory *factory, GtkListItem *item, CtInputBrowser *self)
{
  const CtFashionSet *set = self->set;
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *picture = g_object_get_data (G_OBJECT (box), ITEM_PICTURE);
  GtkWidget *label = g_object_get_data (G_OBJECT (box), ITEM_LABEL);
  GtkStringObject *row = gtk_list_item_get_item (item);
  guint index = row != NULL ? (guint) g_ascii_strtoull (gtk_string_object_get_string (row), NULL, 10)
                            : G_MAXUINT;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *text = NULL;

  if (set == NULL || index >= set->count)
    return;
  /* thumbnails are made as items scroll into view, and dropped after */
  texture = thumbnail (set, index);
  gtk_picture_set_paintable (GTK_PICTURE (picture), GDK_PAINTABLE (texture));
  text = g_strdup_printf ("%u %s", index, ct_input_browser_class_name (set->labels[index]));
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

/* The item shown at POSITION (the grid may show one class only). */
static guint
item_at (CtInputBrowser *self, guint position)
{
  g_autoptr (GtkStringObject) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);

  return row != NULL ? (guint) g_ascii_strtoull (gtk_string_object_get_string (row), NULL, 10)
                     : G_MAXUINT;
}

/* No items selected hands over none: the window says what to do. */
static void
use_selected (GtkButton *button, CtInputBrowser *self)
{
  g_autoptr (GtkBitset) chosen = NULL;
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (guint));
  GtkBitsetIter iter;
  guint index;

  if (self->selection == NULL)
    return;
  chosen = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  for (gboolean ok = gtk_bitset_iter_init_first (&iter, chosen, &index); ok;
       ok = gtk_bitset_iter_next (&iter, &index))
    {
      guint item = item_at (self, index);
      g_array_append_val (items, item);
    }
  g_signal_emit (self, signals[SIGNAL_USE_ITEMS], 0, items->data, items->len);
}

static void
item_activated (GtkGridView *view, guint position, CtInputBrowser *self)
{
  guint item = item_at (self, position);

  g_signal_emit (self, signals[SIGNAL_USE_ITEMS], 0, &item, 1u);
}

/* Picking by class */

static gboolean
in_class (gpointer row, gpointer data)
{
  CtInputBrowser *self = data;
  guint index = (guint) g_ascii_strtoull (gtk_string_object_get_string (row), NULL, 10);

  return self->class_shown < 0
         || (index < self->set->count && self->set->labels[index] == (guint) self->class_shown);
}

void
ct_input_browser_show_class (CtInputBrowser *self, int label)
{
  g_return_if_fail (CT_IS_INPUT_BROWSER (self));
  if (label != self->class_shown)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->class_dropdown),
                                label < 0 ? 0 : (guint) label + 1);
}

static void
class_chosen (GtkDropDown *dropdown, GParamSpec *pspec, CtInputBrowser *self)
{
  guint chosen = gtk_drop_down_get_selected (dropdown);

  self->class_shown = chosen == 0 || chosen == GTK_INVALID_LIST_POSITION ? -1 : (int) chosen - 1;
  if (self->filter != NULL)
    gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

GtkSelectionModel *
ct_input_browser_get_selection (CtInputBrowser *self)
{
  g_return_val_if_fail (CT_IS_INPUT_BROWSER (self), NULL);
  return GTK_SELECTION_MODEL (self->selection);
}

static void
ct_input_browser_dispose (GObject *object)
{
  CtInputBrowser *self = CT_INPUT_BROWSER (object);

  if (self->grid != NULL)
    gtk_grid_view_set_model (GTK_GRID_VIEW (self->grid), NULL);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter);
  self->set = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), CT_TYPE_INPUT_BROWSER);
  G_OBJECT_CLASS (ct_input_browser_parent_class)->dispose (object);
}

static void
ct_input_browser_class_init (CtInputBrowserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_input_browser_dispose;

  /* ITEMS (a guint array, borrowed for the emission) of N_ITEMS, in the
   * order of the set; none when nothing was selected. */
  signals[SIGNAL_USE_ITEMS] = g_signal_new ("use-items", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            2, G_TYPE_POINTER, G_TYPE_UINT);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/cortado/Cortado/input-browser.ui");
  gtk_widget_class_bind_template_child (widget_class, CtInputBrowser, use_button);
  gtk_widget_class_bind_template_child (widget_class, CtInputBrowser, missing_label);
  gtk_widget_class_bind_template_child (widget_class, CtInputBrowser, scroller);
  gtk_widget_class_bind_template_child (widget_class, CtInputBrowser, grid);
  gtk_widget_class_bind_template_child (widget_class, CtInputBrowser, class_dropdown);
  gtk_widget_class_bind_template_callback (widget_class, item_setup);
  gtk_widget_class_bind_template_callback (widget_class, item_bind);
  gtk_widget_class_bind_template_callback (widget_class, item_activated);
  gtk_widget_class_bind_template_callback (widget_class, use_selected);
}

static void
ct_input_browser_init (CtInputBrowser *self)
{
  g_autoptr (GtkStringList) classes = gtk_string_list_new (NULL);

  gtk_widget_init_template (GTK_WIDGET (self));
  self->class_shown = -1;
  gtk_string_list_append (classes, _("All Classes"));
  for (guint i = 0; i < G_N_ELEMENTS (fashion_classes); i++)
    gtk_string_list_append (classes, ct_input_browser_class_name (i));
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->class_dropdown), G_LIST_MODEL (classes));
  g_signal_connect (self->class_dropdown, "notify::selected", G_CALLBACK (class_chosen), self);
}

CtInputBrowser *
ct_input_browser_new (GtkWindow *parent, const CtFashionSet *set, const GError *error)
{
  CtInputBrowser *self = g_object_new (CT_TYPE_INPUT_BROWSER, "transient-for", parent, NULL);

  self->set = set;
  if (set == NULL)
    {
      g_autofree char *text = g_strdup_printf (
        _("The Fashion-MNIST test set is not installed (the package "
          "dataset-fashion-mnist).\n%s"), error != NULL ? error->message : "");

      gtk_label_set_text (GTK_LABEL (self->missing_label), text);
      gtk_widget_set_visible (self->missing_label, TRUE);
      return self;
    }
  {
    g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
    char number[16];

    /* one row per item; the thumbnails themselves are made in bind */
    for (guint i = 0; i < set->count; i++)
      {
        g_snprintf (number, sizeof number, "%u", i);
        gtk_string_list_append (list, number);
      }
    self->filter = gtk_custom_filter_new (in_class, self, NULL);
    self->selection = gtk_multi_selection_new (G_LIST_MODEL (
        gtk_filter_list_model_new (G_LIST_MODEL (g_steal_pointer (&list)),
                                   GTK_FILTER (g_object_ref (self->filter)))));
  }
  gtk_grid_view_set_model (GTK_GRID_VIEW (self->grid), GTK_SELECTION_MODEL (self->selection));
  gtk_widget_set_visible (self->scroller, TRUE);
  gtk_widget_set_visible (self->use_button, TRUE);
  gtk_widget_set_visible (self->class_dropdown, TRUE);
  return self;
}
