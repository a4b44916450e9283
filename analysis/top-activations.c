/* top-activations.c: the strongest responses of one channel. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "top-activations.h"

void
ct_top_activations_free (CtTopActivations *top)
{
  if (top == NULL)
    return;
  for (guint i = 0; i < top->items->len; i++)
    g_free (g_array_index (top->items, CtTopActivation, i).image);
  g_array_unref (top->items);
  g_free (top);
}

/* Where a new VALUE goes among the kept items (strongest first), or K. */
static guint
rank_of (GArray *items, float value, guint k)
{
  guint i = 0;

  while (i < items->len && g_array_index (items, CtTopActivation, i).value >= value)
    i++;
  return i < k ? i : k;
}

static void
keep (CtTopActivations *top, guint k, CtTopActivation *item, const float *image)
{
  guint at = rank_of (top->items, item->value, k);
  gsize n = (gsize) top->channels * top->height * top->width;

  if (at >= k)
    return;
  item->image = g_memdup2 (image, n * sizeof (float));
  ct_receptive_field_box (&top->field, item->y, item->x, top->height, top->width, &item->top,
                          &item->left, &item->box_h, &item->box_w);
  g_array_insert_val (top->items, at, *item);
  if (top->items->len > k)
    {
      g_free (g_array_index (top->items, CtTopActivation, k).image);
      g_array_set_size (top->items, k);
    }
}

static int
find_input (CtNet *net, const char *name)
{
  if (name != NULL)
    return ct_net_blob_index (net, name);
  if (ct_net_n_inputs (net) > 0)
    return (int) ct_net_input_index (net, 0);
  return ct_net_blob_index (net, "data");
}

/* Keep the strongest of each image of the batch IMAGES (N × C × H × W)
 * whose responses are VALUES (N × channels × h × w); *INDEX numbers them. */
static gboolean
scan (CtTopActivations *top, guint k, CtBlob *images_blob, CtBlob *values_blob, guint channel,
      guint64 *index, GError **error)
{
  const gint64 *in_dims = ct_blob_get_shape (images_blob);
  const gint64 *dims = ct_blob_get_shape (values_blob);
  const float *images, *values;
  gsize plane, item;

  top->channels = (guint) in_dims[1];
  top->height = (guint) in_dims[2];
  top->width = (guint) in_dims[3];
  images = ct_blob_cpu_data (images_blob, error);
  values = images == NULL ? NULL : ct_blob_cpu_data (values_blob, error);
  if (values == NULL)
    return FALSE;
  plane = (gsize) (dims[2] * dims[3]);
  item = (gsize) top->channels * top->height * top->width;
  for (gint64 n = 0; n < dims[0]; n++, (*index)++)
    {
      const float *v = values + ((gsize) n * dims[1] + channel) * plane;
      CtTopActivation best = { .index = *index, .value = v[0] };

      for (gsize i = 1; i < plane; i++)
        if (v[i] > best.value)
          {
            best.value = v[i];
            best.y = (guint) (i / dims[3]);
            best.x = (guint) (i % dims[3]);
          }
      keep (top, k, &best, images + n * item);
    }
  return TRUE;
}

/* Layer LAYER_NAME's first top, checked to hold images with a channel
 * CHANNEL, as its blob index; -1 with ERROR set when not. */
static int
checked_top (CtNet *net, int layer, const char *layer_name, guint input, guint channel,
             GError **error)
{
  guint n_tops = 0;
  const guint *tops;
  CtBlob *blob;

  if (layer < 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("the net has no layer named '%s'"), layer_name);
      return -1;
    }
  tops = ct_net_get_top_ids (net, (guint) layer, &n_tops);
  blob = n_tops > 0 ? ct_net_get_blob (net, tops[0]) : NULL;
  if (blob == NULL || ct_blob_num_axes (blob) != 4
      || ct_blob_num_axes (ct_net_get_blob (net, input)) != 4)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' and its input must hold images (N × C × H × W)"), layer_name);
      return -1;
    }
  if (channel >= ct_blob_get_shape (blob)[1])
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' has %u channels; there is no channel %u"), layer_name,
                   (guint) ct_blob_get_shape (blob)[1], channel);
      return -1;
    }
  return (int) tops[0];
}

CtTopActivations *
ct_top_activations_run (CtNet *net, const char *input_name, const char *layer_name,
                        guint channel, guint k, guint iterations,
                        CtAnalysisProgressFunc progress, gpointer user_data, GError **error)
{
  g_autoptr (CtTopActivations) top = g_new0 (CtTopActivations, 1);
  int input = find_input (net, input_name);
  int layer = ct_net_layer_index (net, layer_name);
  guint64 index = 0;
  int top_blob;
  CtBlob *blob;

  top->items = g_array_new (FALSE, FALSE, sizeof (CtTopActivation));
  if (input < 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("the net has no input blob '%s'"), input_name != NULL ? input_name : "data");
      return NULL;
    }
  top_blob = checked_top (net, layer, layer_name, (guint) input, channel, error);
  if (top_blob < 0)
    return NULL;
  blob = ct_net_get_blob (net, (guint) top_blob);
  if (!ct_receptive_field (net, (guint) input, (guint) top_blob, &top->field, error))
    return NULL;
  for (guint it = 0; it < iterations; it++)
    {
      CtBlob *in_blob = ct_net_get_blob (net, (guint) input);

      if (!ct_net_forward (net, NULL, error)
          || !scan (top, k, in_blob, blob, channel, &index, error))
        return NULL;
      if (!ct_analysis_report (progress, user_data, (double) (it + 1) / iterations, error))
        return NULL;
    }
  return g_steal_pointer (&top);
}

CtTopActivations *
ct_top_activations_of_store (CtNet *net, const CtAnalysisPath *path, const CtSampleStore *store,
                             const char *layer_name, guint channel, guint k, guint batch,
                             CtAnalysisProgressFunc progress, gpointer user_data, GError **error)
{
  g_autoptr (CtTopActivations) top = g_new0 (CtTopActivations, 1);
  int layer = ct_net_layer_index (net, layer_name);
  gsize item = (gsize) path->channels * path->height * path->width;
  CtBlob *in_blob = ct_net_get_blob (net, path->input_blob);
  guint64 index = 0;
  int top_blob;

  top->items = g_array_new (FALSE, FALSE, sizeof (CtTopActivation));
  top_blob = checked_top (net, layer, layer_name, path->input_blob, channel, error);
  if (top_blob < 0)
    return NULL;
  if ((guint) layer < path->first_layer)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' runs before the images come in"), layer_name);
      return NULL;
    }
  if (store->overflow || store->count == 0 || store->channels != path->channels
      || store->height != path->height || store->width != path->width)
    {
      g_set_error_literal (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                           _("no test images were kept to look through"));
      return NULL;
    }
  if (!ct_receptive_field (net, path->input_blob, (guint) top_blob, &top->field, error))
    return NULL;
  batch = MAX (batch, 1);
  for (guint64 first = 0; first < store->count; first += batch)
    {
      guint count = (guint) MIN ((guint64) batch, store->count - first);
      float *input = ct_analysis_path_batch (path, net, count, error);

      if (input == NULL)
        return NULL;
      memcpy (input, ct_sample_store_get (store, first), count * item * sizeof (float));
      /* only the layers up to the one asked about: the rest cannot change it */
      if (!ct_net_forward_from_to (net, path->first_layer, (guint) layer, NULL, error)
          || !scan (top, k, in_blob, ct_net_get_blob (net, (guint) top_blob), channel, &index,
                    error))
        return NULL;
      if (!ct_analysis_report (progress, user_data, (double) (first + count) / store->count,
                               error))
        return NULL;
    }
  return g_steal_pointer (&top);
}

/* Whether BLOB is INPUT, or a copy of it made by the Split layers a net
 * puts in where a blob feeds several layers. */
static gboolean
is_input (CtNet *net, guint blob, guint input)
{
  while (blob != input)
    {
      int writer = ct_net_last_writer (net, blob);
      guint n = 0;
      const guint *bottoms;

      if (writer < 0
          || strcmp (ct_layer_get_type (ct_net_get_layer (net, (guint) writer)), "Split") != 0)
        return FALSE;
      bottoms = ct_net_get_bottom_ids (net, (guint) writer, &n);
      if (n == 0)
        return FALSE;
      blob = bottoms[0];
    }
  return TRUE;
}

float *
ct_top_activations_filter (CtNet *net, guint input_blob, const char *layer_name, guint channel,
                           guint *channels, guint *height, guint *width)
{
  int layer = ct_net_layer_index (net, layer_name);
  CtLayer *l;
  guint n_bottoms = 0;
  const guint *bottoms;
  CtBlob *weights;
  const gint64 *dims;
  const float *data;
  gsize size;

  if (layer < 0)
    return NULL;
  l = ct_net_get_layer (net, (guint) layer);
  bottoms = ct_net_get_bottom_ids (net, (guint) layer, &n_bottoms);
  if (strcmp (ct_layer_get_type (l), "Convolution") != 0 || n_bottoms == 0
      || !is_input (net, bottoms[0], input_blob) || l->blobs->len == 0)
    return NULL;
  weights = l->blobs->pdata[0];
  dims = ct_blob_get_shape (weights);
  if (ct_blob_num_axes (weights) != 4 || channel >= dims[0])
    return NULL;
  data = ct_blob_cpu_data (weights, NULL);
  if (data == NULL)
    return NULL;
  *channels = (guint) dims[1];
  *height = (guint) dims[2];
  *width = (guint) dims[3];
  size = (gsize) dims[1] * dims[2] * dims[3];
  return g_memdup2 (data + channel * size, size * sizeof (float));
}

float *
ct_top_activation_patch (const CtTopActivations *top, const CtTopActivation *item)
{
  gsize plane = (gsize) top->height * top->width;
  float *patch = g_new (float, (gsize) top->channels * item->box_h * item->box_w);
  gsize o = 0;

  for (guint c = 0; c < top->channels; c++)
    for (int y = item->top; y < item->top + item->box_h; y++)
      for (int x = item->left; x < item->left + item->box_w; x++)
        patch[o++] = item->image[c * plane + (gsize) y * top->width + x];
  return patch;
}
