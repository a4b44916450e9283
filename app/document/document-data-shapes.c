/* document-data-shapes.c: shapes for data layers that cannot read their
 * source.
 *
 * A net copied without its databases (an example whose LMDB folders were
 * never made, a net mailed to a student) fails in its Data layer, and
 * without the data's shape no other layer has one. So the check falls back
 * on a shape for such a layer's tops: the one the user gave in the
 * inspector, or else the last one a check saw while the source could be
 * read. Both live in the sidecar, by layer name ("[data mnist]": given=,
 * seen=), as text such as "64x1x28x28;64"; the batch size written in the
 * layer replaces the first axis, so TRAIN and TEST layers of one name share
 * them. The failed layer is inferred as an Input layer of that shape and
 * then reported with its own error: the rest of the net keeps its shapes,
 * parameter count and FLOPs. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "document-private.h"

/* The types that read a source the check may not find. */
static const char *const source_types[] = { "Data", "ImageData", "HDF5Data", "WindowData",
                                            NULL };

static char *
data_group (const char *layer)
{
  return g_strconcat ("data ", layer, NULL);
}

static void
shape_free (gpointer shape)
{
  g_array_unref (shape);
}

static GPtrArray *
not_a_shape (const char *text, GError **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("'%s' is not a shape: write each top's sizes as in 64×1×28×28, and separate "
                 "the tops with ';'"), text);
  return NULL;
}

/* "64x1x28x28; 64" (also ×, commas or spaces between sizes) -> one GArray
 * of gint64 per top. */
static GPtrArray *
parse_shapes (const char *text, GError **error)
{
  g_autoptr (GPtrArray) shapes = g_ptr_array_new_with_free_func (shape_free);
  g_autoptr (GString) clean = g_string_new (NULL);
  g_auto (GStrv) tops = NULL;

  /* The multiplication sign is two bytes in UTF-8: make it an 'x'. */
  for (const char *p = text; *p != '\0'; p++)
    if (g_str_has_prefix (p, "×"))
      g_string_append_c (clean, 'x'), p += strlen ("×") - 1;
    else
      g_string_append_c (clean, *p);
  tops = g_strsplit (clean->str, ";", -1);
  for (guint t = 0; tops[t] != NULL; t++)
    {
      g_auto (GStrv) sizes = g_strsplit_set (tops[t], "xX, \t", -1);
      GArray *dims = g_array_new (FALSE, FALSE, sizeof (gint64));

      g_ptr_array_add (shapes, dims);
      for (guint i = 0; sizes[i] != NULL; i++)
        {
          guint64 value = 0;

          if (*sizes[i] == '\0')
            continue;
          if (!g_ascii_string_to_unsigned (sizes[i], 10, 1, G_MAXINT32, &value, NULL))
            {
              return not_a_shape (text, error);
            }
          g_array_append_val (dims, value);
        }
      if (dims->len == 0)
        {
        return not_a_shape (text, error);
        }
    }
  return g_steal_pointer (&shapes);
}

/* SHAPES as the sidecar keeps them; SEPARATOR joins the sizes. */
static char *
format_shapes (GPtrArray *tops, const char *separator)
{
  GString *out = g_string_new (NULL);

  for (guint t = 0; t < tops->len; t++)
    {
      const CtNetShapeBlob *blob = tops->pdata[t];

      if (t > 0)
        g_string_append (out, ";");
      for (guint i = 0; i < blob->n_axes; i++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? separator : "",
                                blob->dims[i]);
    }
  return g_string_free (out, FALSE);
}

static gboolean
is_source_layer (const CtNetShapeLayer *layer)
{
  return layer->source_index >= 0 && layer->bottoms->len == 0
         && g_strv_contains (source_types, layer->type);
}

gboolean
ct_document_set_data_shape (CtDocument *self, const char *layer, const char *text,
                            GError **error)
{
  g_autofree char *group = NULL;
  g_autofree char *trimmed = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autoptr (GPtrArray) shapes = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (layer != NULL, FALSE);
  group = data_group (layer);
  if (*trimmed == '\0')
    {
      if (g_key_file_remove_key (self->sidecar, group, "given", NULL))
        self->sidecar_dirty = TRUE;
    }
  else
    {
      g_autoptr (GString) stored = g_string_new (NULL);

      if ((shapes = parse_shapes (trimmed, error)) == NULL)
        return FALSE;
      for (guint t = 0; t < shapes->len; t++)
        {
          GArray *dims = shapes->pdata[t];

          for (guint i = 0; i < dims->len; i++)
            g_string_append_printf (stored, "%s%" G_GINT64_FORMAT, i > 0 ? "x" : t > 0 ? ";" : "",
                                    g_array_index (dims, gint64, i));
        }
      g_key_file_set_string (self->sidecar, group, "given", stored->str);
      self->sidecar_dirty = TRUE;
    }
  if (self->net != NULL)
    ct_document_schedule_check (self);
  return TRUE;
}

char *
ct_document_dup_data_shape (CtDocument *self, const char *layer)
{
  g_autofree char *group = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GString) shown = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  group = data_group (layer);
  text = g_key_file_get_string (self->sidecar, group, "given", NULL);
  if (text == NULL)
    text = g_key_file_get_string (self->sidecar, group, "seen", NULL);
  if (text == NULL)
    return NULL;
  /* As the inspector writes shapes. */
  shown = g_string_new (text);
  g_string_replace (shown, "x", "×", 0);
  g_string_replace (shown, ";", "; ", 0);
  return g_string_free (g_steal_pointer (&shown), FALSE);
}

GHashTable *
ct_document_dup_fallback_shapes (CtDocument *self)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) groups = g_key_file_get_groups (self->sidecar, NULL);

  for (guint i = 0; groups[i] != NULL; i++)
    {
      char *text;

      if (!g_str_has_prefix (groups[i], "data "))
        continue;
      text = g_key_file_get_string (self->sidecar, groups[i], "given", NULL);
      if (text == NULL)
        text = g_key_file_get_string (self->sidecar, groups[i], "seen", NULL);
      if (text != NULL)
        g_hash_table_insert (table, g_strdup (groups[i] + strlen ("data ")), text);
    }
  return table;
}

static void
remember_layers (CtDocument *self, const CtNetShapes *shapes, GHashTable *done)
{
  for (guint i = 0; shapes != NULL && i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *layer = shapes->layers->pdata[i];
      g_autofree char *group = NULL;
      g_autofree char *text = NULL;
      g_autofree char *old = NULL;

      if (layer->status != CT_NET_LAYER_OK || !is_source_layer (layer)
          || g_hash_table_contains (done, layer->name))
        continue;
      /* TRAIN's shape wins over TEST's of the same name. */
      g_hash_table_add (done, layer->name);
      group = data_group (layer->name);
      text = format_shapes (layer->tops, "x");
      old = g_key_file_get_string (self->sidecar, group, "seen", NULL);
      if (g_strcmp0 (old, text) == 0)
        continue;
      g_key_file_set_string (self->sidecar, group, "seen", text);
      self->sidecar_dirty = TRUE;
    }
}

void
ct_document_remember_data_shapes (CtDocument *self)
{
  g_autoptr (GHashTable) done = g_hash_table_new (g_str_hash, g_str_equal);

  remember_layers (self, self->shapes, done);
  remember_layers (self, self->test_shapes, done);
}

/* The batch size the layer's own text gives, or 0. */
static guint
layer_batch_size (const Caffe__LayerParameter *layer)
{
  if (layer->data_param != NULL && layer->data_param->has_batch_size)
    return layer->data_param->batch_size;
  if (layer->image_data_param != NULL && layer->image_data_param->has_batch_size)
    return layer->image_data_param->batch_size;
  if (layer->hdf5_data_param != NULL && layer->hdf5_data_param->has_batch_size)
    return layer->hdf5_data_param->batch_size;
  if (layer->window_data_param != NULL && layer->window_data_param->has_batch_size)
    return layer->window_data_param->batch_size;
  return 0;
}

/* An Input layer standing in for SOURCE: its name, tops and phase rules
 * (borrowed), and TEXT's shapes; NULL when TEXT does not fit. Free with
 * stand_in_free. */
static Caffe__LayerParameter *
stand_in_new (const Caffe__LayerParameter *source, const char *text)
{
  g_autoptr (GPtrArray) shapes = parse_shapes (text, NULL);
  Caffe__LayerParameter *layer;
  Caffe__InputParameter *input;
  guint batch = layer_batch_size (source);

  if (shapes == NULL || shapes->len != source->n_top)
    return NULL;
  layer = g_new0 (Caffe__LayerParameter, 1);
  caffe__layer_parameter__init (layer);
  layer->name = source->name;
  layer->type = (char *) "Input";
  layer->n_top = source->n_top;
  layer->top = source->top;
  layer->n_include = source->n_include;
  layer->include = source->include;
  layer->n_exclude = source->n_exclude;
  layer->exclude = source->exclude;
  layer->input_param = input = g_new0 (Caffe__InputParameter, 1);
  caffe__input_parameter__init (input);
  input->n_shape = shapes->len;
  input->shape = g_new0 (Caffe__BlobShape *, shapes->len);
  for (guint t = 0; t < shapes->len; t++)
    {
      GArray *dims = shapes->pdata[t];
      Caffe__BlobShape *shape = g_new0 (Caffe__BlobShape, 1);

      caffe__blob_shape__init (shape);
      if (batch > 0)
        g_array_index (dims, gint64, 0) = batch;
      shape->n_dim = dims->len;
      shape->dim = g_memdup2 (dims->data, dims->len * sizeof (gint64));
      input->shape[t] = shape;
    }
  return layer;
}

static void
stand_in_free (Caffe__LayerParameter *layer)
{
  for (gsize t = 0; t < layer->input_param->n_shape; t++)
    {
      g_free (layer->input_param->shape[t]->dim);
      g_free (layer->input_param->shape[t]);
    }
  g_free (layer->input_param->shape);
  g_free (layer->input_param);
  g_free (layer);
}

CtNetShapes *
ct_document_infer_shapes (Caffe__NetParameter *net, const CtNetConfig *config,
                          GHashTable *fallbacks)
{
  g_autoptr (CtNetShapes) first = ct_net_infer_shapes (net, config);
  g_autoptr (GPtrArray) failed = g_ptr_array_new ();  /* CtNetShapeLayer* of FIRST */
  g_autoptr (GPtrArray) originals = g_ptr_array_new ();
  CtNetShapes *shapes;

  for (guint i = 0; i < first->layers->len; i++)
    {
      CtNetShapeLayer *layer = first->layers->pdata[i];
      const char *text;
      Caffe__LayerParameter *stand_in;

      if (layer->status != CT_NET_LAYER_FAILED || !is_source_layer (layer)
          || (gsize) layer->source_index >= net->n_layer
          || (text = g_hash_table_lookup (fallbacks, layer->name)) == NULL
          || (stand_in = stand_in_new (net->layer[layer->source_index], text)) == NULL)
        continue;
      g_ptr_array_add (failed, layer);
      g_ptr_array_add (originals, net->layer[layer->source_index]);
      net->layer[layer->source_index] = stand_in;
    }
  if (failed->len == 0)
    return g_steal_pointer (&first);

  shapes = ct_net_infer_shapes (net, config);
  for (guint k = 0; k < failed->len; k++)
    {
      const CtNetShapeLayer *was = failed->pdata[k];

      stand_in_free (net->layer[was->source_index]);
      net->layer[was->source_index] = originals->pdata[k];
      /* The stand-in's tops keep their shapes; the layer keeps its error. */
      for (guint i = 0; i < shapes->layers->len; i++)
        {
          CtNetShapeLayer *layer = shapes->layers->pdata[i];

          if (layer->source_index != was->source_index)
            continue;
          if (layer->status == CT_NET_LAYER_OK)
            shapes->n_failed++;
          layer->status = CT_NET_LAYER_FAILED;
          g_clear_error (&layer->error);
          layer->error = g_error_copy (was->error);
          g_free (layer->type);
          layer->type = g_strdup (was->type);
        }
    }
  return shapes;
}
