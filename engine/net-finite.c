/* net-finite.c: the first NaN or infinity in a net (net.h), in the order
 * a pass makes them: tops in the forward pass, then bottom diffs in the
 * backward pass, then the parameters. */
#include <math.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "error-place.h"
#include "net.h"

static gboolean
all_finite (const float *values, gint64 count)
{
  if (values == NULL)
    return TRUE;
  for (gint64 i = 0; i < count; i++)
    if (!isfinite (values[i]))
      return FALSE;
  return TRUE;
}

gboolean
ct_net_check_finite (CtNet *net, GError **error)
{
  guint n = ct_net_n_layers (net);

  for (guint l = 0; l < n; l++)
    {
      guint n_tops;
      const guint *tops = ct_net_get_top_ids (net, l, &n_tops);

      for (guint t = 0; t < n_tops; t++)
        {
          CtBlob *blob = ct_net_get_blob (net, tops[t]);

          if (!all_finite (ct_blob_cpu_data (blob, NULL), ct_blob_count (blob)))
            {
              g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NOT_FINITE,
                           _("training stopped: layer '%s' gave NaN or infinite values "
                             "in the data of its top '%s'"),
                           ct_layer_get_name (ct_net_get_layer (net, l)),
                           ct_net_get_blob_name (net, tops[t]));
              ct_error_set_place (error, ct_layer_get_name (ct_net_get_layer (net, l)),
                                  ct_net_get_blob_name (net, tops[t]));
              return FALSE;
            }
        }
    }
  for (guint l = n; l-- > 0;)
    {
      guint n_bottoms;
      const guint *bottoms = ct_net_get_bottom_ids (net, l, &n_bottoms);

      for (guint b = 0; b < n_bottoms; b++)
        {
          CtBlob *blob = ct_net_get_blob (net, bottoms[b]);

          if (ct_net_bottom_need_backward (net, l, b) &&
              !all_finite (ct_blob_cpu_diff (blob, NULL), ct_blob_count (blob)))
            {
              g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NOT_FINITE,
                           _("training stopped: layer '%s' gave NaN or infinite values "
                             "in the diff of its bottom '%s'"),
                           ct_layer_get_name (ct_net_get_layer (net, l)),
                           ct_net_get_blob_name (net, bottoms[b]));
              ct_error_set_place (error, ct_layer_get_name (ct_net_get_layer (net, l)),
                                  ct_net_get_blob_name (net, bottoms[b]));
              return FALSE;
            }
        }
    }
  for (guint i = 0; i < ct_net_n_params (net); i++)
    {
      CtBlob *blob = ct_net_get_param_blob (net, i);
      guint layer, index;

      ct_net_get_param_location (net, i, &layer, &index);
      if (!all_finite (ct_blob_cpu_data (blob, NULL), ct_blob_count (blob)) ||
          !all_finite (ct_blob_cpu_diff (blob, NULL), ct_blob_count (blob)))
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NOT_FINITE,
                       _("training stopped: the parameters of layer '%s' became NaN "
                         "or infinite"),
                       ct_layer_get_name (ct_net_get_layer (net, layer)));
          ct_error_set_place (error, ct_layer_get_name (ct_net_get_layer (net, layer)), NULL);
          return FALSE;
        }
    }
  return TRUE;
}

