/* net-connections.c: whether every bottom of a net is made by a layer
 * above it (net.h), without building anything: what `cortado-cli check`
 * reports for a net, with the place of the layer in its file. Every layer
 * counts, whatever its include and exclude rules: a net written for some
 * phases and stages is not wrong in the others. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "error-place.h"
#include "net.h"

static gboolean
made_below (const Caffe__NetParameter *param, gsize from, const char *blob, const char **maker)
{
  for (gsize j = from; j < param->n_layer; j++)
    {
      const Caffe__LayerParameter *layer = param->layer[j];

      for (gsize t = 0; t < layer->n_top; t++)
        if (g_strcmp0 (layer->top[t], blob) == 0)
          {
            *maker = layer->name != NULL ? layer->name : "";
            return TRUE;
          }
    }
  return FALSE;
}

gboolean
ct_net_check_connections (const Caffe__NetParameter *param, int *failed_layer, GError **error)
{
  g_autoptr (GHashTable) made = g_hash_table_new (g_str_hash, g_str_equal);

  *failed_layer = -1;
  for (gsize i = 0; i < param->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = param->layer[i];
      const char *name = layer->name != NULL ? layer->name : "";

      for (gsize b = 0; b < layer->n_bottom; b++)
        {
          const char *maker = NULL;

          if (g_hash_table_contains (made, layer->bottom[b]))
            continue;
          *failed_layer = (int) i;
          if (made_below (param, i, layer->bottom[b], &maker))
            /* TRANSLATORS: layer, blob, the layer below that makes the blob */
            g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                         _("layer '%s': bottom '%s' is made only by layer '%s' below it: "
                           "layers run in the order they are written, so a net cannot loop"),
                         name, layer->bottom[b], maker);
          else
            /* TRANSLATORS: layer, then blob */
            g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                         _("layer '%s': no layer makes its bottom '%s'"), name,
                         layer->bottom[b]);
          ct_error_set_place (error, name, layer->bottom[b]);
          return FALSE;
        }
      for (gsize t = 0; t < layer->n_top; t++)
        g_hash_table_add (made, layer->top[t]);
    }
  return TRUE;
}
