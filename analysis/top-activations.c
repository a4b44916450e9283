/* top-activations.c: the strongest responses of one channel. */
#include <string.h>
#include <glib/gi18n-lib.h>

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

CtTopActivations *
ct_top_activations_run (CtNet *net, const char *input_name, const char *layer_name,
                        guint channel, guint k, guint iterations,
                        CtAnalysisProgressFunc progress, gpointer user_data, GError **error)
{
  g_autoptr (CtTopActivations) top = g_new0 (CtTopActivations, 1);
  int input = find_input (net, input_name);
  int layer = ct_net_layer_index (net, layer_name);
  guint64 index = 0;
  guint n_tops = 0;
  const guint *tops;
  CtBlob *blob;

  top->items = g_array_new (FALSE, FALSE, sizeof (CtTopActivation));
  if (input < 0 || layer < 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   input < 0 ? _("the net has no input blob '%s'")
                             : _("the net has no layer named '%s'"),
                   input < 0 ? (input_name != NULL ? input_name : "data") : layer_name);
      return NULL;
    }
  tops = ct_net_get_top_ids (net, (guint) layer, &n_tops);
  blob = n_tops > 0 ? ct_net_get_blob (net, tops[0]) : NULL;
  if (blob == NULL || ct_blob_num_axes (blob) != 4
      || ct_blob_num_axes (ct_net_get_blob (net, (guint) input)) != 4)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' and its input must hold images (N × C × H × W)"), layer_name);
      return NULL;
    }
  if (channel >= ct_blob_get_shape (blob)[1])
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' has %u channels; there is no channel %u"), layer_name,
                   (guint) ct_blob_get_shape (blob)[1], channel);
      return NULL;
    }
  if (!ct_receptive_field (net, (guint) input, tops[0], &top->field, error))
    return NULL;
  for (guint it = 0; it < iterations; it++)
    {
      CtBlob *in_blob = ct_net_get_blob (net, (guint) input);
      const gint64 *in_dims, *dims;
      const float *images, *values;
      gsize plane, item;

      if (!ct_net_forward (net, NULL, error))
        return NULL;
      in_dims = ct_blob_get_shape (in_blob);
      dims = ct_blob_get_shape (blob);
      top->channels = (guint) in_dims[1];
      top->height = (guint) in_dims[2];
      top->width = (guint) in_dims[3];
      images = ct_blob_cpu_data (in_blob, error);
      values = images == NULL ? NULL : ct_blob_cpu_data (blob, error);
      if (values == NULL)
        return NULL;
      plane = (gsize) (dims[2] * dims[3]);
      item = (gsize) top->channels * top->height * top->width;
      for (gint64 n = 0; n < dims[0]; n++, index++)
        {
          const float *v = values + ((gsize) n * dims[1] + channel) * plane;
          CtTopActivation best = { .index = index, .value = v[0] };

          for (gsize i = 1; i < plane; i++)
            if (v[i] > best.value)
              {
                best.value = v[i];
                best.y = (guint) (i / dims[3]);
                best.x = (guint) (i % dims[3]);
              }
          keep (top, k, &best, images + n * item);
        }
      if (!ct_analysis_report (progress, user_data, (double) (it + 1) / iterations, error))
        return NULL;
    }
  return g_steal_pointer (&top);
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
