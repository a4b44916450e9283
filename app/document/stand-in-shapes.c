/* stand-in-shapes.c: shape inference that goes past data layers whose
 * source cannot be read.
 *
 * The engine's inference stops at a Data layer whose LMDB folder is missing
 * (a copied example, a net mailed to a student): its tops have no shape,
 * and neither has anything below it. Given a stand-in shape for such a
 * layer (by name, as text such as "64x1x28x28;64"), the layer is inferred
 * again as an Input layer of that shape, with the batch size its own text
 * gives, and then reported FAILED with its own error: every other layer
 * keeps its shapes. The document's check and the graph both use it. */
#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "layer-catalogue.h"
#include "stand-in-shapes.h"

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
GPtrArray *
ct_stand_in_parse (const char *text, GError **error)
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

/* The types that read a source the check may not find (CtLayerClass's
 * reads_files). */
gboolean
ct_stand_in_reads_data (const char *type)
{
  const CtLayerClass *klass = type != NULL ? ct_layer_catalogue_lookup (type) : NULL;

  return klass != NULL && klass->reads_files;
}

gboolean
ct_stand_in_is_source (const CtNetShapeLayer *layer)
{
  return layer->source_index >= 0 && layer->bottoms->len == 0
         && ct_stand_in_reads_data (layer->type);
}

/* The batch size the layer's own text gives, or 0. */
static guint
layer_batch_size (const Caffe__LayerParameter *layer)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (layer->type);
  const guint32 *size = klass != NULL && klass->batch_size != NULL
                          ? klass->batch_size ((Caffe__LayerParameter *) layer) : NULL;

  return size != NULL ? *size : 0;
}

/* An Input layer standing in for SOURCE: its name, tops and phase rules
 * (borrowed), and TEXT's shapes; NULL when TEXT does not fit. Free with
 * stand_in_free. */
static Caffe__LayerParameter *
stand_in_new (const Caffe__LayerParameter *source, const char *text)
{
  g_autoptr (GPtrArray) shapes = ct_stand_in_parse (text, NULL);
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
ct_net_infer_shapes_with_stand_ins (const Caffe__NetParameter *net, const CtNetConfig *config,
                                    GHashTable *stand_ins)
{
  g_autoptr (CtNetShapes) first = ct_net_infer_shapes (net, config);
  /* The stand-ins go into a shallow copy: NET is left as it was. */
  Caffe__NetParameter copy = *net;
  g_autofree Caffe__LayerParameter **layers = NULL;
  g_autoptr (GPtrArray) failed = g_ptr_array_new ();  /* CtNetShapeLayer* of FIRST */
  CtNetShapes *shapes;

  for (guint i = 0; i < first->layers->len; i++)
    {
      CtNetShapeLayer *layer = first->layers->pdata[i];
      const char *text;
      Caffe__LayerParameter *stand_in;

      if (layer->status != CT_NET_LAYER_FAILED || !ct_stand_in_is_source (layer)
          || (gsize) layer->source_index >= net->n_layer
          || stand_ins == NULL
          || (text = g_hash_table_lookup (stand_ins, layer->name)) == NULL
          || (stand_in = stand_in_new (net->layer[layer->source_index], text)) == NULL)
        continue;
      if (layers == NULL)
        copy.layer = layers = g_memdup2 (net->layer, net->n_layer * sizeof *net->layer);
      g_ptr_array_add (failed, layer);
      layers[layer->source_index] = stand_in;
    }
  if (failed->len == 0)
    return g_steal_pointer (&first);

  shapes = ct_net_infer_shapes (&copy, config);
  for (guint k = 0; k < failed->len; k++)
    {
      const CtNetShapeLayer *was = failed->pdata[k];

      stand_in_free (layers[was->source_index]);
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
