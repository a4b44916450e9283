/* present-view.c: CtPresentView, presentation mode's large view. A lecture
 * is followed from the back of a room: the layer that ran last fills the
 * screen beside the graph, its name, type, shape and the step position in
 * big type above it. After a forward step it shows the layer's output;
 * after a backward step the gradient the layer handed down (its first
 * input's diff), which is what a class looks at to follow backpropagation.
 * A click on a channel shows that channel alone (CtHeatmapView). */
#include <glib/gi18n-lib.h>

#include "heatmap-view.h"
#include "layer-catalogue.h"
#include "present-view.h"

struct _CtPresentView {
  GtkBox parent_instance;

  GtkLabel *title;       /* the layer */
  GtkLabel *step;        /* the step position */
  GtkLabel *subtitle;    /* blob, shape and step */
  GtkLabel *explain;     /* what the layer computes, or what its diff means */
  GtkLabel *hint;
  CtHeatmapView *heatmap;
  char *blob;            /* the blob shown, or NULL */
  char *step_text;
};

G_DEFINE_FINAL_TYPE (CtPresentView, ct_present_view, GTK_TYPE_BOX)

static char *
shape_text (const gint64 *dims, guint n_axes)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n_axes; i++)
    g_string_append_printf (text, i == 0 ? "%" G_GINT64_FORMAT : " × %" G_GINT64_FORMAT, dims[i]);
  return g_string_free (text, FALSE);
}

/* The version of BLOB to show for layer INDEX: the one it wrote (an
 * in-place layer overwrites its input; the last is the net's latest), or
 * for a gradient the one it read, whose diff its backward gave. */
static const CtRunVersion *
pick_version (const CtRunBlob *blob, guint index, gboolean gradient)
{
  const CtRunVersion *picked = NULL;

  for (guint i = 0; blob->versions != NULL && i < blob->versions->len; i++)
    {
      const CtRunVersion *version = g_ptr_array_index (blob->versions, i);

      if (gradient ? version->layer_index < (int) index && version->diff != NULL
                   : version->layer_index <= (int) index)
        picked = version;
    }
  return picked;
}

/* What the layer's type says of itself (CtLayerClass): its formula and
 * what it computes, or after a backward step what its diff means. */
static void
show_explanation (CtPresentView *self, const char *type, gboolean gradient)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);
  CtLayerExplanation explanation;
  g_autofree char *text = NULL;

  if (klass == NULL || !ct_layer_class_explain (klass, &explanation))
    {
      gtk_label_set_text (self->explain, "");
      return;
    }
  text = g_strdup_printf ("%s\n%s", explanation.formula,
                          gradient ? explanation.gradient : explanation.summary);
  gtk_label_set_text (self->explain, text);
}

/* The layer called NAME in SNAPSHOT and its index, or NULL. */
static const CtRunLayer *
find_layer (CtRunSnapshot *snapshot, const char *name, guint *index)
{
  for (guint i = 0; i < ct_run_snapshot_n_layers (snapshot); i++)
    {
      const CtRunLayer *layer = ct_run_snapshot_get_layer (snapshot, i);

      if (g_strcmp0 (layer->name, name) == 0)
        {
          *index = i;
          return layer;
        }
    }
  return NULL;
}

static void
clear (CtPresentView *self)
{
  g_clear_pointer (&self->blob, g_free);
  g_clear_pointer (&self->step_text, g_free);
  gtk_label_set_text (self->title, _("Nothing Has Run Yet"));
  gtk_label_set_text (self->step, "");
  gtk_label_set_text (self->explain, "");
  gtk_label_set_text (self->subtitle, _("Press F7 to run the first layer forward"));
  ct_heatmap_view_set_data (self->heatmap, NULL, NULL, 0, NULL);
}

void
ct_present_view_show (CtPresentView *self, CtRunSnapshot *snapshot, const char *current)
{
  const CtRunLayer *layer;
  const CtRunBlob *blob;
  const CtRunVersion *version;
  gboolean gradient;
  guint index = 0;
  g_autofree char *shape = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (CT_IS_PRESENT_VIEW (self));
  layer = snapshot != NULL && current != NULL ? find_layer (snapshot, current, &index) : NULL;
  if (layer == NULL)
    {
      clear (self);
      return;
    }
  gradient = ct_run_snapshot_get_pass (snapshot) == CT_RUN_PASS_BACKWARD
             && layer->state == CT_RUN_LAYER_BACKWARD_DONE && layer->n_bottoms > 0;
  if (!gradient && layer->n_tops == 0)
    {
      clear (self);
      return;
    }
  blob = ct_run_snapshot_get_blob (snapshot, gradient ? layer->bottoms[0] : layer->tops[0]);
  g_free (self->blob);
  self->blob = g_strdup (blob->name);
  g_free (self->step_text);
  self->step_text = g_strdup_printf (gradient ? _("Backward · layer %u of %u")
                                              : _("Forward · layer %u of %u"),
                                     index + 1, ct_run_snapshot_n_layers (snapshot));
  shape = shape_text (blob->dims, blob->n_axes);
  /* TRANSLATORS: presentation mode's title: a layer and its type */
  title = g_strdup_printf (_("%s · %s"), layer->name, layer->type);
  subtitle = gradient
               /* TRANSLATORS: presentation mode: the blob and its shape */
               ? g_strdup_printf (_("Gradient of “%s” (diff) · %s"), blob->name, shape)
               /* TRANSLATORS: presentation mode: the blob and its shape */
               : g_strdup_printf (_("Output “%s” · %s"), blob->name, shape);
  gtk_label_set_text (self->title, title);
  gtk_label_set_text (self->step, self->step_text);
  show_explanation (self, layer->type, gradient);
  gtk_label_set_text (self->subtitle, subtitle);
  /* the values come with the snapshot after the layer is watched: until
   * then the labels say what is coming and the old picture stays */
  version = pick_version (blob, index, gradient);
  if (version == NULL)
    return;
  ct_heatmap_view_set_blob_name (self->heatmap, blob->name);
  ct_heatmap_view_set_data (self->heatmap, gradient ? version->diff : version->data,
                            version->dims, version->n_axes, NULL);
}

const char *
ct_present_view_get_blob (CtPresentView *self)
{
  g_return_val_if_fail (CT_IS_PRESENT_VIEW (self), NULL);
  return self->blob;
}

const char *
ct_present_view_get_step_text (CtPresentView *self)
{
  g_return_val_if_fail (CT_IS_PRESENT_VIEW (self), NULL);
  return self->step_text;
}

GtkWidget *
ct_present_view_get_heatmap (CtPresentView *self)
{
  g_return_val_if_fail (CT_IS_PRESENT_VIEW (self), NULL);
  return GTK_WIDGET (self->heatmap);
}

static GtkLabel *
add_label (GtkWidget *box, const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, css_class);
  gtk_box_append (GTK_BOX (box), label);
  return GTK_LABEL (label);
}

static void
ct_present_view_finalize (GObject *object)
{
  CtPresentView *self = CT_PRESENT_VIEW (object);

  g_free (self->blob);
  g_free (self->step_text);
  G_OBJECT_CLASS (ct_present_view_parent_class)->finalize (object);
}

static void
ct_present_view_class_init (CtPresentViewClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ct_present_view_finalize;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "presentview");
}

static void
ct_present_view_init (CtPresentView *self)
{
  GtkWidget *heatmap = ct_heatmap_view_new ();
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 8);
  /* one column of labels that wrap: the view's least width stays small,
   * so that the graph beside it keeps its share of a 960-pixel screen */
  self->step = add_label (GTK_WIDGET (self), "present-step");
  self->title = add_label (GTK_WIDGET (self), "present-title");
  self->subtitle = add_label (GTK_WIDGET (self), "present-subtitle");
  /* a few lines at most: the blob keeps the room */
  self->explain = add_label (GTK_WIDGET (self), "present-explain");
  gtk_label_set_lines (self->explain, 4);
  gtk_label_set_ellipsize (self->explain, PANGO_ELLIPSIZE_END);
  self->heatmap = CT_HEATMAP_VIEW (heatmap);
  gtk_widget_set_hexpand (heatmap, TRUE);
  gtk_widget_set_vexpand (heatmap, TRUE);
  gtk_widget_set_focusable (heatmap, TRUE);
  gtk_box_append (GTK_BOX (self), heatmap);
  self->hint = add_label (GTK_WIDGET (self), "present-hint");
  gtk_label_set_text (self->hint, _("Click a channel to show it alone; Escape shows them all. "
                                    "F7 and Shift+F7 step, F12 ends the presentation."));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Stepped Layer"), -1);
  clear (self);
}

GtkWidget *
ct_present_view_new (void)
{
  return g_object_new (CT_TYPE_PRESENT_VIEW, NULL);
}
