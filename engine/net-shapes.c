/* net-shapes.c: shape inference for the editor and `cortado-cli check
 * --shapes`: the net is built layer by layer as ct_net_new builds it, but a
 * layer's error does not stop the build. The layer is reported FAILED, its
 * tops get no shape, and layers that read them are reported SKIPPED; every
 * other layer still gets its shapes. The layers are built shapes-only
 * (CtLayer.shapes_only: fillers are checked, not run), and whatever a layer
 * still allocated in setup is dropped: its tops and parameter blobs are
 * replaced by unallocated blobs of the same shape as soon as it is set up. */
#include <stdlib.h>
#include <glib/gi18n-lib.h>

#include "net-private.h"
#include "engine-error.h"
#include "text-format.h"

static CtBlob *
shape_only_copy (CtBlob *blob)
{
  CtBlob *fresh = ct_blob_new ();

  /* The shape was valid on BLOB, so it is valid here. */
  ct_blob_reshape (fresh, ct_blob_get_shape (blob), ct_blob_num_axes (blob), NULL);
  return fresh;
}

void
ct_net_builder_drop_param_memory (CtNetBuilder *b, guint layer_index)
{
  CtLayer *layer = b->net->layers->pdata[layer_index];

  for (guint i = 0; i < layer->blobs->len; i++)
    {
      CtBlob *old = layer->blobs->pdata[i];

      layer->blobs->pdata[i] = shape_only_copy (old);
      ct_blob_free (old);
    }
}

/* The tops LAYER_INDEX created (not those it computes in place, which
 * older links point at) are referenced only by its links and the blob
 * table. */
static void
drop_top_memory (CtNetBuilder *b, guint layer_index)
{
  CtNet *net = b->net;
  CtNetLinks *links = net->links->pdata[layer_index];

  for (guint j = 0; j < links->top->len; j++)
    {
      guint blob_id = g_array_index (links->top_ids, guint, j);
      CtBlob *old = links->top->pdata[j];
      gboolean in_place = FALSE;

      for (guint k = 0; k < links->bottom->len; k++)
        if (links->bottom->pdata[k] == old)
          in_place = TRUE;
      if (in_place)
        continue;
      links->top->pdata[j] = net->blobs->pdata[blob_id] = shape_only_copy (old);
      ct_blob_free (old);
    }
}


static CtNetShapeBlob *
shape_blob_new (const char *name, CtBlob *blob, gboolean known)
{
  CtNetShapeBlob *s = g_new0 (CtNetShapeBlob, 1);

  s->name = g_strdup (name);
  s->known = known && blob != NULL;
  if (s->known)
    {
      s->n_axes = ct_blob_num_axes (blob);
      s->dims = g_memdup2 (ct_blob_get_shape (blob), MAX (s->n_axes, 1) * sizeof (gint64));
    }
  return s;
}

static void
shape_blob_free (CtNetShapeBlob *s)
{
  g_free (s->name);
  g_free (s->dims);
  g_free (s);
}

static void
shape_layer_free (CtNetShapeLayer *l)
{
  g_free (l->name);
  g_free (l->type);
  g_clear_error (&l->error);
  g_ptr_array_unref (l->bottoms);
  g_ptr_array_unref (l->tops);
  g_ptr_array_unref (l->params);
  g_free (l);
}

void
ct_net_shapes_free (CtNetShapes *shapes)
{
  if (shapes == NULL)
    return;
  g_ptr_array_unref (shapes->layers);
  g_clear_error (&shapes->error);
  if (shapes->param != NULL)
    protobuf_c_message_free_unpacked (&shapes->param->base, NULL);
  g_free (shapes);
}

static gboolean
blob_known (CtNetBuilder *b, guint blob_id)
{
  return g_array_index (b->blob_known, gboolean, blob_id);
}

/* Read what layer INDEX got, right after the builder tried it. */
static CtNetShapeLayer *
record_layer (CtNetBuilder *b, guint index, CtNetSpec *spec, CtNetLayerStatus status,
              GError *error)
{
  CtNet *net = b->net;
  CtNetLinks *links = net->links->pdata[index];
  CtLayer *layer = net->layers->pdata[index];
  const Caffe__LayerParameter *p = spec->param;
  CtNetShapeLayer *l = g_new0 (CtNetShapeLayer, 1);

  l->name = g_strdup (p->name != NULL ? p->name : "");
  l->type = g_strdup (p->type != NULL ? p->type : "");
  l->source_index = spec->source_index;
  l->status = status;
  l->error = error;
  l->bottoms = g_ptr_array_new_with_free_func ((GDestroyNotify) shape_blob_free);
  l->tops = g_ptr_array_new_with_free_func ((GDestroyNotify) shape_blob_free);
  l->params = g_ptr_array_new_with_free_func ((GDestroyNotify) shape_blob_free);

  for (guint j = 0; j < links->bottom->len; j++)
    {
      guint id = g_array_index (links->bottom_ids, guint, j);
      g_ptr_array_add (l->bottoms, shape_blob_new (net->blob_names->pdata[id],
                                                   links->bottom->pdata[j], blob_known (b, id)));
    }
  for (guint j = 0; j < links->top->len; j++)
    {
      guint id = g_array_index (links->top_ids, guint, j);
      gboolean in_place = j < links->bottom->len && links->bottom->pdata[j] == links->top->pdata[j];
      CtNetShapeBlob *s;

      /* A failed layer's own tops have no shape; a top computed in place
       * keeps its bottom's. */
      if (status != CT_NET_LAYER_OK && !in_place)
        g_array_index (b->blob_known, gboolean, id) = FALSE;
      s = shape_blob_new (net->blob_names->pdata[id], links->top->pdata[j], blob_known (b, id));
      s->in_place = in_place;
      g_ptr_array_add (l->tops, s);
    }
  for (guint j = 0; status == CT_NET_LAYER_OK && layer != NULL && j < layer->blobs->len; j++)
    {
      g_autofree char *name = g_strdup_printf ("%u", j);
      g_ptr_array_add (l->params, shape_blob_new (name, layer->blobs->pdata[j], TRUE));
    }
  return l;
}

/* Unknown text outside the layers (each layer reports its own) is a
 * net-wide complaint; the layers are still inferred. */
static void
check_net_level_text (const Caffe__NetParameter *param, const char *source, GError **error)
{
  g_autoptr (GPtrArray) all = ct_text_list_unknown (&param->base);
  guint in_layers = 0;

  for (gsize i = 0; i < param->n_layer; i++)
    {
      g_autoptr (GPtrArray) mine = ct_text_list_unknown (&param->layer[i]->base);
      in_layers += mine->len;
    }
  for (gsize i = 0; i < param->n_layers; i++)
    {
      g_autoptr (GPtrArray) mine = ct_text_list_unknown (&param->layers[i]->base);
      in_layers += mine->len;
    }
  if (all->len > in_layers)
    {
      /* The first one outside the layers. */
      Caffe__NetParameter shallow = *param;

      shallow.n_layer = 0;
      shallow.n_layers = 0;
      ct_text_check_strict (&shallow.base, source, error);
    }
}

CtNetShapes *
ct_net_infer_shapes (const Caffe__NetParameter *param, const CtNetConfig *config)
{
  CtNetShapes *shapes = g_new0 (CtNetShapes, 1);
  CtNetBuilder b;

  g_return_val_if_fail (param != NULL && config != NULL, shapes);

  shapes->layers = g_ptr_array_new_with_free_func ((GDestroyNotify) shape_layer_free);
  if (!ct_net_builder_init (&b, param, config, TRUE, &shapes->error))
    {
      ct_net_builder_clear (&b);
      return shapes;
    }
  check_net_level_text (param, b.source, &shapes->error);

  for (guint i = 0; i < b.specs->len; i++)
    {
      CtNetSpec *spec = b.specs->pdata[i];
      GError *error = NULL;
      CtNetLayerStatus status;

      status = ct_net_builder_add_layer (&b, spec, &error);
      if (status == CT_NET_LAYER_FAILED)
        shapes->n_failed++;
      else if (status == CT_NET_LAYER_SKIPPED)
        shapes->n_skipped++;
      /* A layer that failed in its setup may hold parameter memory; none
       * of it is registered as net params yet. */
      if (status != CT_NET_LAYER_OK && b.net->layers->pdata[i] != NULL &&
          ((CtNetLinks *) b.net->links->pdata[i])->param_ids->len == 0)
        g_ptr_array_set_size (((CtLayer *) b.net->layers->pdata[i])->blobs, 0);
      g_ptr_array_add (shapes->layers, record_layer (&b, i, spec, status, error));
      drop_top_memory (&b, i);
    }
  ct_net_builder_finish (&b);

  /* The shapes keep the built NetParameter: each layer's `param` points
   * into it. */
  shapes->param = g_steal_pointer (&b.net->param);
  for (guint i = 0; i < shapes->layers->len; i++)
    ((CtNetShapeLayer *) shapes->layers->pdata[i])->param = shapes->param->layer[i];
  ct_net_builder_clear (&b);
  return shapes;
}
