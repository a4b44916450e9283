/* memory-data.c: MemoryData, batches handed over by the program through
 * ct_memory_data_layer_reset() (memory-data.h). Tops are batch_size ×
 * channels × height × width and, when asked for, batch_size labels; as in
 * Caffe, no transformation is applied and each forward moves on by one
 * batch, wrapping around. A forward before any data was given is an
 * error. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "layer.h"
#include "memory-data.h"

typedef struct {
  CtLayer parent;
  gint64 shape[4];  /* batch, channels, height, width */
  float *data;
  float *labels;
  gsize n;          /* examples held */
  gsize position;   /* the first example of the next batch */
} CtMemoryDataLayer;

/* Where the text gives the batch size (for the editor and the runner). */
static guint32 *
memory_data_batch_size (Caffe__LayerParameter *param)
{
  return param->memory_data_param != NULL ? &param->memory_data_param->batch_size : NULL;
}

extern const CtLayerClass ct_memory_data_layer_class;

static gboolean
memory_data_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtMemoryDataLayer *self = (CtMemoryDataLayer *) layer;
  const Caffe__MemoryDataParameter *p = layer->param->memory_data_param;
  g_autoptr (GError) local = NULL;

  if (p == NULL || p->batch_size == 0 || p->channels == 0 || p->height == 0 ||
      p->width == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("memory_data_param must give a positive batch_size, channels, "
                            "height and width"));
  self->shape[0] = p->batch_size;
  self->shape[1] = p->channels;
  self->shape[2] = p->height;
  self->shape[3] = p->width;
  if (!ct_blob_reshape (CT_TOP (top, 0), self->shape, 4, &local) ||
      (top->len > 1 && !ct_blob_reshape (CT_TOP (top, 1), self->shape, 1, &local)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  return TRUE;
}

static gboolean
memory_data_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

static gboolean
memory_data_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                     gboolean gpu, GError **error)
{
  CtMemoryDataLayer *self = (CtMemoryDataLayer *) layer;
  gsize batch = (gsize) self->shape[0];
  gsize size = (gsize) (self->shape[1] * self->shape[2] * self->shape[3]);
  g_autoptr (GError) local = NULL;
  float *out;

  if (self->data == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_STATE,
                          _("no data yet: give it with ct_memory_data_layer_reset()"));
  if (!ct_blob_reshape (CT_TOP (top, 0), self->shape, 4, &local) ||
      (out = ct_blob_mutable_cpu_data (CT_TOP (top, 0), &local)) == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OUT_OF_MEMORY, "%s",
                          local != NULL ? local->message : "");
  memcpy (out, self->data + self->position * size, batch * size * sizeof (float));
  if (top->len > 1)
    {
      if (!ct_blob_reshape (CT_TOP (top, 1), self->shape, 1, &local) ||
          (out = ct_blob_mutable_cpu_data (CT_TOP (top, 1), &local)) == NULL)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OUT_OF_MEMORY, "%s",
                              local != NULL ? local->message : "");
      memcpy (out, self->labels + self->position, batch * sizeof (float));
    }
  self->position = (self->position + batch) % self->n;
  return TRUE;
}

gboolean
ct_memory_data_layer_reset (CtLayer *layer, const float *data, const float *labels, gsize n,
                            GError **error)
{
  CtMemoryDataLayer *self = (CtMemoryDataLayer *) layer;
  gsize batch, size;

  g_return_val_if_fail (layer != NULL, FALSE);

  if (layer->klass != &ct_memory_data_layer_class)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("only a MemoryData layer takes data this way"));
  batch = (gsize) self->shape[0];
  size = (gsize) (self->shape[1] * self->shape[2] * self->shape[3]);
  if (batch == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_STATE, _("the layer is not set up"));
  if (n == 0 || n % batch != 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "%zu example given; give a positive multiple of batch_size "
                                       "(%zu)",
                                       "%zu examples given; give a positive multiple of batch_size "
                                       "(%zu)", n),
                          n, batch);
  if (data == NULL || n > G_MAXSIZE / sizeof (float) / size)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, _("no data given"));
  g_free (self->data);
  g_free (self->labels);
  self->data = g_memdup2 (data, n * size * sizeof (float));
  self->labels = labels != NULL ? g_memdup2 (labels, n * sizeof (float)) : g_new0 (float, n);
  self->n = n;
  self->position = 0;
  return TRUE;
}

static void
memory_data_finalize (CtLayer *layer)
{
  CtMemoryDataLayer *self = (CtMemoryDataLayer *) layer;

  g_clear_pointer (&self->data, g_free);
  g_clear_pointer (&self->labels, g_free);
}

static const CtLayerExplanation memory_data_explanation = {
  .summary = N_("Takes batches that the program running the net hands over in memory, "
                "instead of reading a file."),
  .formula = N_("data, label = the arrays handed over"),
  .parameters = N_("batch_size, channels, height, width: the shape of each batch."),
  .gradient = N_("Data is given, not learned: no diff is computed for it."),
};

const CtLayerClass ct_memory_data_layer_class = {
  .explanation = &memory_data_explanation,
  .type = "MemoryData",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Batches handed over by the program running the net"),
  .instance_size = sizeof (CtMemoryDataLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_BETWEEN (1, 2),
  .setup = memory_data_setup,
  .reshape = memory_data_reshape,
  .forward = memory_data_forward,
  .finalize = memory_data_finalize,
  .new_layer_text = "memory_data_param { batch_size: 1 channels: 1 height: 28 width: 28 }",
  .is_data_source = TRUE,
  .transforms_data = TRUE,
  .batch_size = memory_data_batch_size,
};
