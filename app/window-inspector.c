/* window-inspector.c: the inspector at the right: the selected layer's
 * name, type, description, shapes and error above a form generated from
 * its LayerParameter (the common fields first, then the parameters of its
 * type), a selected blob's name, ends and shape, or the net's own fields
 * when nothing is selected. The form's
 * edits become document edits of "layer[I].PATH". */
#include <glib/gi18n-lib.h>

#include "layer-explanation.h"
#include "layer-catalogue.h"
#include "stand-in-shapes.h"
#include "window-private.h"

/* Types whose parameter field is not their name in snake case. */
static const char *const common_fields[] = { "name", "type", "bottom", "top", NULL };
static const char *const phase_fields[] = { "include", "exclude", NULL };
static const char *const learning_fields[] = { "param", "loss_weight", "propagate_down", NULL };
/* Weights belong in a .caffemodel; the phase is the engine's to fill in. */
static const char *const layer_hidden[] = { "blobs", "phase", NULL };
static const char *const net_fields[] = { "name", "force_backward", "debug_info", NULL };
/* The layers are the graph; legacy fields are upgraded away on opening. */
static const char *const net_hidden[] = { "layer", "layers", "input", "input_dim",
                                          "input_shape", NULL };

/* "Shape for inspection": on a data layer whose source cannot be read, the
 * shape its tops take meanwhile (see ct_document_set_data_shape), in
 * window.ui below the error label. */

static void
data_shape_activated (GtkEntry *entry, CtWindow *self)
{
  const char *layer = g_object_get_data (G_OBJECT (entry), "ct-layer");
  g_autoptr (GError) error = NULL;

  if (layer != NULL && !ct_document_set_data_shape (self->document, layer,
                                                    gtk_editable_get_text (GTK_EDITABLE (entry)),
                                                    &error))
    ct_window_report_error (self, NULL, error);
}

static void
show_data_shape (CtWindow *self, const Caffe__LayerParameter *layer, const char *error)
{
  GtkWidget *entry = ct_window_get_part (self, "data_shape_entry");
  gboolean shown = layer != NULL && error != NULL && layer->n_bottom == 0 && layer->name != NULL
                   && ct_stand_in_reads_data (layer->type);

  gtk_widget_set_visible (ct_window_get_part (self, "data_shape_box"), shown);
  if (!shown)
    return;
  g_object_set_data_full (G_OBJECT (entry), "ct-layer", g_strdup (layer->name), g_free);
  /* Not while the user is typing in it. */
  if (!(gtk_widget_get_state_flags (entry) & GTK_STATE_FLAG_FOCUS_WITHIN))
    {
      g_autofree char *text = ct_document_dup_data_shape (self->document, layer->name);
      gtk_editable_set_text (GTK_EDITABLE (entry), text != NULL ? text : "");
    }
}

static void
init_data_shape (CtWindow *self)
{
  g_signal_connect (ct_window_get_part (self, "data_shape_entry"), "activate",
                    G_CALLBACK (data_shape_activated), self);
}

static void
show_net (CtWindow *self, const Caffe__NetParameter *net)
{
  CtPropertySection sections[] = {
    { _("Net"), NULL, net_fields },
    { _("State"), "state", NULL },
    { NULL, NULL, net_hidden },
  };

  gtk_label_set_text (self->inspector_title, net != NULL && net->name != NULL && *net->name
                                               ? net->name : _("Untitled Net"));
  gtk_label_set_text (self->inspector_subtitle, _("The whole net"));
  gtk_label_set_text (self->inspector_description,
                      _("Select a layer to edit it. Drag layer types from the list on the "
                        "left onto the graph to add them, and drag from an output port to "
                        "another layer to connect them."));
  gtk_label_set_text (self->inspector_shapes, "");
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_shapes), FALSE);
  ct_layer_explanation_follow (GTK_WIDGET (self->inspector_description), NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_error), FALSE);
  show_data_shape (self, NULL, NULL);
  ct_property_form_set_message (self->property_form, net != NULL ? &net->base : NULL, sections,
                                net != NULL ? G_N_ELEMENTS (sections) : 0);
}

/* "data 64×1×28×28" for each blob of a layer, as the last check saw it,
 * named as the prototxt names them (NAMES, N_NAMES) rather than after the
 * split blobs the engine inserts. */
static void
append_blobs (GString *out, GPtrArray *blobs, char **names, gsize n_names)
{
  for (guint i = 0; i < blobs->len; i++)
    {
      const CtNetShapeBlob *blob = blobs->pdata[i];
      g_autofree char *shape = blob->known ? ct_net_graph_shape_text (blob->dims, blob->n_axes)
                                           : g_strdup ("?");
      const char *name = blobs->len == n_names ? names[i] : blob->name;
      g_string_append_printf (out, "%s%s %s", i > 0 ? ", " : "", name, shape);
    }
}

static char *
shapes_text (CtWindow *self, const Caffe__LayerParameter *param, int layer)
{
  const CtNetShapes *sets[2] = { ct_document_get_shapes (self->document),
                                 ct_document_get_test_shapes (self->document) };

  for (guint s = 0; s < G_N_ELEMENTS (sets); s++)
    for (guint i = 0; sets[s] != NULL && i < sets[s]->layers->len; i++)
      {
        const CtNetShapeLayer *l = sets[s]->layers->pdata[i];
        GString *out;

        if (l->source_index != layer || l->status != CT_NET_LAYER_OK)
          continue;
        out = g_string_new (NULL);
        if (l->bottoms->len > 0)
          {
            append_blobs (out, l->bottoms, param->bottom, param->n_bottom);
            g_string_append (out, " → ");
          }
        append_blobs (out, l->tops, param->top, param->n_top);
        return g_string_free (out, FALSE);
      }
  return NULL;
}

static void
show_layer (CtWindow *self, const Caffe__NetParameter *net, int index)
{
  const Caffe__LayerParameter *layer = net->layer[index];
  const char *type = layer->type != NULL ? layer->type : "";
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);
  g_autofree char *field = ct_layer_type_param_field (type);
  const GError *layer_error = ct_document_get_layer_error (self->document, (guint) index);
  const char *error = layer_error != NULL ? layer_error->message : NULL;
  g_autofree char *shapes = shapes_text (self, layer, index);
  g_autofree char *subtitle = NULL;
  CtPropertySection sections[7];
  guint n = 0;

  sections[n++] = (CtPropertySection) { _("Layer"), NULL, common_fields };
  if (protobuf_c_message_descriptor_get_field_by_name (&caffe__layer_parameter__descriptor,
                                                       field) != NULL)
    sections[n++] = (CtPropertySection) { field, field, NULL };
  if (klass != NULL && klass->transforms_data)
    sections[n++] = (CtPropertySection) { "transform_param", "transform_param", NULL };
  if (klass != NULL && klass->is_loss)
    sections[n++] = (CtPropertySection) { "loss_param", "loss_param", NULL };
  sections[n++] = (CtPropertySection) { _("Phases"), NULL, phase_fields };
  sections[n++] = (CtPropertySection) { _("Learning"), NULL, learning_fields };
  sections[n++] = (CtPropertySection) { NULL, NULL, layer_hidden };

  gtk_label_set_text (self->inspector_title, layer->name != NULL ? layer->name : "");
  if (klass != NULL)
    /* TRANSLATORS: the inspector's subtitle: layer type · family */
    subtitle = g_strdup_printf (_("%s · %s"), type, ct_layer_family_name (klass->family));
  else
    subtitle = g_strdup_printf (_("%s · unknown type"), type);
  gtk_label_set_text (self->inspector_subtitle, subtitle);
  gtk_label_set_text (self->inspector_description,
                      klass != NULL ? ct_layer_class_describe (klass)
                                    : _("Cortado has no layer of this type: it can show and "
                                        "edit it, but not run it."));
  ct_layer_explanation_follow (GTK_WIDGET (self->inspector_description), klass);
  gtk_label_set_text (self->inspector_shapes, shapes != NULL ? shapes : "");
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_shapes), shapes != NULL);
  gtk_label_set_text (self->inspector_error, error != NULL ? error : "");
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_error), error != NULL);
  show_data_shape (self, layer, error);
  ct_property_form_set_message (self->property_form, &layer->base, sections, n);
}

/* Several layers selected: what can be done with them together. */
static void
show_selection (CtWindow *self, char **ids)
{
  guint n = g_strv_length (ids);
  g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u Layer Selected",
                                                         "%u Layers Selected", n),
                                            n);
  g_autoptr (GString) names = g_string_new (NULL);

  for (guint i = 0; i < n && i < 8; i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", ids[i]);
  if (n > 8)
    g_string_append (names, ", …");
  gtk_label_set_text (self->inspector_title, title);
  gtk_label_set_text (self->inspector_subtitle, names->str);
  gtk_label_set_text (self->inspector_description,
                      _("Copy, cut, duplicate or delete them together. Select one layer to "
                        "edit its fields."));
  ct_layer_explanation_follow (GTK_WIDGET (self->inspector_description), NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_shapes), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_error), FALSE);
  show_data_shape (self, NULL, NULL);
  ct_property_form_set_message (self->property_form, NULL, NULL, 0);
}

/* A blob selected (an edge of the graph): what it is and where it runs;
 * its values are the blob panel's. */
static void
show_blob (CtWindow *self, const char *blob)
{
  const char *producer = ct_selection_get_blob_producer (self->selection);
  const char *consumer = ct_selection_get_blob_consumer (self->selection);
  CtGraphModel *model = self->graph != NULL ? self->graph->model : NULL;
  const char *shape = NULL;
  g_autofree char *subtitle = NULL;

  for (guint e = 0; model != NULL && e < ct_graph_model_n_edges (model) && shape == NULL; e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (model, e);

      if (g_strcmp0 (edge->blob, blob) == 0
          && g_strcmp0 (ct_graph_model_get_node (model, edge->from_node)->id, producer) == 0)
        shape = edge->shape;
    }
  if (consumer != NULL)
    /* TRANSLATORS: the inspector's subtitle for a selected edge: the layer
     * writing the blob → the layer reading it */
    subtitle = g_strdup_printf (_("Blob · %s → %s"), producer != NULL ? producer : "?", consumer);
  else
    /* TRANSLATORS: the inspector's subtitle for a selected blob: the layer writing it */
    subtitle = g_strdup_printf (_("Blob · from %s"), producer != NULL ? producer : "?");
  gtk_label_set_text (self->inspector_title, blob);
  gtk_label_set_text (self->inspector_subtitle, subtitle);
  gtk_label_set_text (self->inspector_description,
                      _("The data this edge carries from one layer to the next. Step the run "
                        "to see its values and, after backward, its gradient. Select a layer "
                        "to edit it."));
  ct_layer_explanation_follow (GTK_WIDGET (self->inspector_description), NULL);
  gtk_label_set_text (self->inspector_shapes, shape != NULL ? shape : "");
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_shapes), shape != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_error), FALSE);
  show_data_shape (self, NULL, NULL);
  ct_property_form_set_message (self->property_form, NULL, NULL, 0);
}

static int
inspected_layer (CtWindow *self)
{
  return self->inspected_id != NULL ? ct_window_layer_for_id (self, self->inspected_id) : -1;
}

static gboolean
refresh_now (gpointer data)
{
  CtWindow *self = data;
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  int layer = inspected_layer (self);
  g_auto (GStrv) selected = ct_selection_dup_ids (self->selection);

  self->inspector_source = 0;
  if (net != NULL && layer >= 0 && (gsize) layer < net->n_layer)
    show_layer (self, net, layer);
  else if (net != NULL && selected[0] != NULL && selected[1] != NULL)
    show_selection (self, selected);
  else if (net != NULL && ct_selection_get_blob (self->selection) != NULL)
    show_blob (self, ct_selection_get_blob (self->selection));
  else
    show_net (self, net);
  return G_SOURCE_REMOVE;
}

void
ct_window_refresh_inspector (CtWindow *self)
{
  /* Not at once: the form may be in the middle of emitting the edit that
   * caused this. */
  if (self->inspector_source == 0)
    self->inspector_source = g_idle_add (refresh_now, self);
}

/* The inspector follows the selection: one layer selected shows that
 * layer (by the id of the node showing it), anything else the net or the
 * group. */
static void
selection_changed (CtSelection *selection, guint flags, CtWindow *self)
{
  const char *const *ids = ct_selection_get_ids (selection);
  const char *id = NULL;
  guint layers = 0;

  for (guint i = 0; ids[i] != NULL; i++)
    if (ct_window_layer_for_id (self, ids[i]) >= 0)
      {
        layers++;
        id = ids[i];
      }
  g_free (self->inspected_id);
  self->inspected_id = layers == 1 ? g_strdup (id) : NULL;
  ct_window_refresh_inspector (self);
}

static void
form_changed (CtPropertyForm *form, const char *path, const char *value, CtWindow *self)
{
  int layer = inspected_layer (self);
  g_autofree char *full = layer >= 0 ? g_strdup_printf ("layer[%d].%s", layer, path)
                                     : g_strdup (path);
  g_autoptr (GError) error = NULL;
  gboolean renaming = layer >= 0 && g_str_equal (path, "name") && value != NULL;

  if (!ct_document_set_field (self->document, full, value, &error))
    {
      ct_window_report_error (self, NULL, error);
      /* Show what the document holds again. */
      ct_window_refresh_inspector (self);
      return;
    }
  if (renaming)
    {
      /* The node is called by its new name now: keep it selected. */
      const Caffe__NetParameter *net = ct_document_get_net (self->document);
      if (net != NULL && (gsize) layer < net->n_layer)
        {
          const char *ids[] = { net->layer[layer]->name, NULL };
          ct_window_select (self, ids);
        }
    }
}

void
ct_window_inspector_focus_name (CtWindow *self)
{
  GtkWidget *editor;

  refresh_now (self);
  g_clear_handle_id (&self->inspector_source, g_source_remove);
  editor = ct_property_form_get_editor (self->property_form, "name");
  if (editor != NULL)
    gtk_widget_grab_focus (editor);
}

/* The inspector's width, as its viewport's page: the blob panel shows
 * data and diff side by side from CT_BLOB_SIDE_BY_SIDE_WIDTH on. */
static void
inspector_width_changed (GtkAdjustment *adjustment, GParamSpec *pspec, CtWindow *self)
{
  ct_blob_panel_set_wide (self->blob_panel,
                          gtk_adjustment_get_page_size (adjustment) >= CT_BLOB_SIDE_BY_SIDE_WIDTH);
}

void
ct_window_init_inspector (CtWindow *self)
{
  static const char *const open_paths[] = { "bottom", "top", NULL };

  for (guint i = 0; open_paths[i] != NULL; i++)
    ct_property_form_set_expanded (self->property_form, open_paths[i], TRUE);
  g_signal_connect (self->property_form, "changed", G_CALLBACK (form_changed), self);
  init_data_shape (self);
  ct_blob_panel_set_document (self->blob_panel, self->document);
  ct_blob_panel_set_selection (self->blob_panel, self->selection);
  g_signal_connect_swapped (self->blob_panel, "error", G_CALLBACK (ct_window_show_error), self);
  g_signal_connect (gtk_scrolled_window_get_hadjustment (self->inspector_scroller),
                    "notify::page-size", G_CALLBACK (inspector_width_changed), self);
  g_signal_connect (self->selection, "changed", G_CALLBACK (selection_changed), self);
}

void
ct_window_inspector_dispose (CtWindow *self)
{
  g_clear_handle_id (&self->inspector_source, g_source_remove);
  g_clear_pointer (&self->inspected_id, g_free);
  if (self->inspector_scroller != NULL)
    g_signal_handlers_disconnect_by_func (
      gtk_scrolled_window_get_hadjustment (self->inspector_scroller), inspector_width_changed,
      self);
  if (self->blob_panel != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->blob_panel, self);
      ct_blob_panel_show_snapshot (self->blob_panel, NULL);
      ct_blob_panel_set_selection (self->blob_panel, NULL);
    }
}
