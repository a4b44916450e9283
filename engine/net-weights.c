/* net-weights.c: trained weights in and out of a net, as Caffe's
 * CopyTrainedLayersFrom and ToProto move them.
 *
 * Loading matches layers by name: each layer of the model gives its blobs
 * to the first net layer of that name; layers the net lacks are ignored
 * (fine-tuning renames a layer to learn it afresh). Blob counts and shapes
 * must agree; legacy 4-D BlobProtos compare by their num/channels/height/
 * width view. Saving writes each layer's LayerParameter as built (Split
 * layers included, phase set) with its parameter blobs. */
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-private.h"
#include "binary-io.h"
#include "engine-error.h"
#include "error-place.h"
#include "upgrade.h"

static int
first_layer_named (CtNet *net, const char *name)
{
  for (guint i = 0; i < net->layers->len; i++)
    if (g_strcmp0 (ct_layer_get_name (net->layers->pdata[i]), name) == 0)
      return (int) i;
  return -1;
}

/* A shape as text for a BlobProto, legacy or not. */
static char *
proto_shape_string (const Caffe__BlobProto *proto)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (GError) ignored = NULL;

  if (proto->shape != NULL)
    {
      g_autofree gint64 *dims = g_new0 (gint64, MAX (proto->shape->n_dim, 1));

      for (gsize i = 0; i < proto->shape->n_dim; i++)
        dims[i] = proto->shape->dim[i];
      if (ct_blob_reshape (blob, dims, (guint) proto->shape->n_dim, &ignored))
        return ct_blob_shape_string (blob);
    }
  if (proto->has_num || proto->has_channels || proto->has_height || proto->has_width)
    return g_strdup_printf ("%d %d %d %d (%" G_GINT64_FORMAT ")", proto->num, proto->channels,
                            proto->height, proto->width,
                            (gint64) proto->num * proto->channels * proto->height *
                              proto->width);
  return g_strdup ("(none)");
}

static gboolean
copy_layer_blobs (CtNet *net, CtLayer *layer, const Caffe__LayerParameter *source,
                  GError **error)
{
  const char *name = ct_layer_get_name (layer);

  if (source->n_blobs != layer->blobs->len)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "layer '%s': the model has %u parameter blob for it, the net %u",
                                "layer '%s': the model has %u parameter blobs for it, the net %u",
                                source->n_blobs),
                   name, (guint) source->n_blobs, layer->blobs->len);
      return FALSE;
    }
  for (guint j = 0; j < layer->blobs->len; j++)
    {
      CtBlob *target = layer->blobs->pdata[j];
      g_autoptr (GError) local = NULL;

      if (!ct_blob_shape_equals (target, source->blobs[j]))
        {
          g_autofree char *source_shape = proto_shape_string (source->blobs[j]);
          g_autofree char *target_shape = ct_blob_shape_string (target);

          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                       _("layer '%s': cannot copy parameter blob %u from the model: its "
                         "shape is %s, the net's is %s (rename the layer to learn it "
                         "afresh instead)"),
                       name, j, source_shape, target_shape);
          return FALSE;
        }
      if (!ct_blob_from_proto (target, source->blobs[j], FALSE, &local))
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                       _("layer '%s': parameter blob %u of the model: %s"), name, j,
                       local->message);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
ct_net_copy_trained_layers_from (CtNet *net, const Caffe__NetParameter *model, GError **error)
{
  Caffe__NetParameter *upgraded = NULL;
  gboolean ok = TRUE;

  g_return_val_if_fail (net != NULL && model != NULL, FALSE);

  if (model->n_layers > 0 || ct_net_needs_upgrade (model))
    {
      /* V1 caffemodels keep their blobs in `layers`; upgrade a copy. */
      gsize size = protobuf_c_message_get_packed_size (&model->base);
      g_autofree guint8 *bytes = g_malloc (size ? size : 1);

      protobuf_c_message_pack (&model->base, bytes);
      upgraded = caffe__net_parameter__unpack (NULL, size, bytes);
      if (upgraded == NULL ||
          !ct_upgrade_net (upgraded, model->name != NULL ? model->name : "<model>", NULL, error))
        {
          if (upgraded == NULL)
            g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                         _("the model could not be copied"));
          else
            protobuf_c_message_free_unpacked (&upgraded->base, NULL);
          return FALSE;
        }
      model = upgraded;
    }

  for (gsize i = 0; ok && i < model->n_layer; i++)
    {
      const Caffe__LayerParameter *source = model->layer[i];
      int target = first_layer_named (net, source->name != NULL ? source->name : "");

      if (target < 0)
        continue;
      ok = copy_layer_blobs (net, net->layers->pdata[target], source, error);
      if (!ok)
        ct_error_set_place (error, source->name, NULL);
    }
  if (upgraded != NULL)
    protobuf_c_message_free_unpacked (&upgraded->base, NULL);
  return ok;
}

gboolean
ct_net_copy_trained_layers_from_file (CtNet *net, const char *path, GError **error)
{
  ProtobufCMessage *model;
  g_autoptr (GError) local = NULL;
  gboolean ok;

  model = ct_binary_read_file (&caffe__net_parameter__descriptor, path, error);
  if (model == NULL)
    return FALSE;
  ok = ct_net_copy_trained_layers_from (net, (Caffe__NetParameter *) model, &local);
  protobuf_c_message_free_unpacked (model, NULL);
  if (!ok)
    {
      /* the same error, so that its place (error-place.h) stays */
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
      return FALSE;
    }
  return TRUE;
}

static Caffe__LayerParameter *
layer_to_proto (CtLayer *layer, gboolean write_diff, GError **error)
{
  gsize size = protobuf_c_message_get_packed_size (&layer->param->base);
  g_autofree guint8 *bytes = g_malloc (size ? size : 1);
  Caffe__LayerParameter *copy;

  protobuf_c_message_pack (&layer->param->base, bytes);
  copy = caffe__layer_parameter__unpack (NULL, size, bytes);
  if (copy == NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                   _("layer '%s' could not be copied"), ct_layer_get_name (layer));
      return NULL;
    }
  for (gsize j = 0; j < copy->n_blobs; j++)
    protobuf_c_message_free_unpacked (&copy->blobs[j]->base, NULL);
  free (copy->blobs);
  copy->n_blobs = 0;
  copy->blobs = g_new0 (Caffe__BlobProto *, MAX (layer->blobs->len, 1));
  for (guint j = 0; j < layer->blobs->len; j++)
    {
      Caffe__BlobProto *blob = ct_blob_to_proto (layer->blobs->pdata[j],
                                                 write_diff ? CT_BLOB_PROTO_WRITE_DIFF
                                                            : CT_BLOB_PROTO_DEFAULT, error);
      if (blob == NULL)
        {
          protobuf_c_message_free_unpacked (&copy->base, NULL);
          return NULL;
        }
      copy->blobs[copy->n_blobs++] = blob;
    }
  return copy;
}

Caffe__NetParameter *
ct_net_to_proto (CtNet *net, gboolean write_diff, GError **error)
{
  Caffe__NetParameter *param = g_new (Caffe__NetParameter, 1);

  caffe__net_parameter__init (param);
  param->name = g_strdup (net->name);
  param->layer = g_new0 (Caffe__LayerParameter *, MAX (net->layers->len, 1));
  for (guint i = 0; i < net->layers->len; i++)
    {
      Caffe__LayerParameter *layer = layer_to_proto (net->layers->pdata[i], write_diff, error);

      if (layer == NULL)
        {
          protobuf_c_message_free_unpacked (&param->base, NULL);
          return NULL;
        }
      param->layer[param->n_layer++] = layer;
    }
  return param;
}

gboolean
ct_net_write_caffemodel (CtNet *net, const char *path, gboolean write_diff, GError **error)
{
  Caffe__NetParameter *param = ct_net_to_proto (net, write_diff, error);
  gboolean ok;

  if (param == NULL)
    return FALSE;
  ok = ct_binary_write_file (&param->base, path, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return ok;
}
