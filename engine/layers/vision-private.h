/* vision-private.h: small helpers shared by the Vision layer files. */
#pragma once

#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"

G_BEGIN_DECLS

/* TRUE for CT_STATUS_OK; otherwise fails with the kernel's reason and the
 * layer's name. WHAT is a translated phrase naming the kernel. */
static inline gboolean
ct_vision_check (const CtLayer *layer, CtStatus status, const char *what, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (ct_engine_check_status (status, what, &local))
    return TRUE;
  return ct_layer_fail (layer, error, local->code, "%s", local->message);
}

/* Whether the same blob appears as a bottom and a top: the types here
 * cannot work in place (Caffe's compute garbage then). */
static inline gboolean
ct_vision_refuse_in_place (const CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                           GError **error)
{
  for (guint i = 0; i < bottom->len; i++)
    for (guint j = 0; j < top->len; j++)
      if (g_ptr_array_index (bottom, i) == g_ptr_array_index (top, j))
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("cannot compute in place (bottom %u is top %u)"), i, j);
  return TRUE;
}

G_END_DECLS
