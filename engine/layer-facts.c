/* layer-facts.c: what the editor and the tools read off a layer's class
 * (layer.h): its parameter field, and the FLOPs of its forward pass. */
#include "layer-catalogue.h"
#include "layer.h"
#include "net.h"

/* "InnerProduct" -> "inner_product_param": an underscore before each
 * capital that follows a small letter or a digit. */
static char *
snake_param (const char *type)
{
  GString *out = g_string_new (NULL);

  for (const char *p = type; *p; p++)
    {
      if (g_ascii_isupper (*p) && p != type && (g_ascii_islower (p[-1]) || g_ascii_isdigit (p[-1])))
        g_string_append_c (out, '_');
      g_string_append_c (out, g_ascii_tolower (*p));
    }
  g_string_append (out, "_param");
  return g_string_free (out, FALSE);
}

char *
ct_layer_class_param_field (const CtLayerClass *klass)
{
  return klass->param_field != NULL ? g_strdup (klass->param_field) : snake_param (klass->type);
}

char *
ct_layer_type_param_field (const char *type)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);

  return klass != NULL ? ct_layer_class_param_field (klass) : snake_param (type);
}

gint64
ct_net_shape_blob_count (const CtNetShapeBlob *s)
{
  gint64 count = 1;

  if (!s->known)
    return 0;
  for (guint a = 0; a < s->n_axes; a++)
    count *= s->dims[a];
  return count;
}

double
ct_layer_shapes_first_count (GPtrArray *blobs)
{
  return blobs->len > 0 ? (double) ct_net_shape_blob_count (blobs->pdata[0]) : 0.0;
}

double
ct_layer_shapes_weights_per_row (const CtNetShapeLayer *l)
{
  const CtNetShapeBlob *w;

  if (l->params->len == 0)
    return 0.0;
  w = l->params->pdata[0];
  if (!w->known || w->n_axes == 0 || w->dims[0] == 0)
    return 0.0;
  return (double) ct_net_shape_blob_count (w) / (double) w->dims[0];
}

double
ct_layer_shapes_bias (const CtNetShapeLayer *l)
{
  return l->params->len > 1 ? ct_layer_shapes_first_count (l->tops) : 0.0;
}

double
ct_layer_shapes_flops (const CtNetShapeLayer *l)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (l->type);

  if (klass == NULL || l->status != CT_NET_LAYER_OK)
    return 0.0;
  if (klass->flops != NULL)
    return klass->flops (l);
  return klass->flops_per_top * ct_layer_shapes_first_count (l->tops)
         + klass->flops_per_bottom * ct_layer_shapes_first_count (l->bottoms);
}
