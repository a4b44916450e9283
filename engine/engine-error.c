/* engine-error.c: the CT_ENGINE_ERROR domain and the translation of kernel
 * statuses into errors users can read. */
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "error-place.h"

/* Its errors carry the layer and blob they are about (error-place.h). */
typedef CtErrorPlace CtEngineErrorPrivate;

static void
ct_engine_error_private_init (CtEngineErrorPrivate *place)
{
  ct_error_place_init (place);
}

static void
ct_engine_error_private_copy (const CtEngineErrorPrivate *src, CtEngineErrorPrivate *dest)
{
  ct_error_place_copy (src, dest);
}

static void
ct_engine_error_private_clear (CtEngineErrorPrivate *place)
{
  ct_error_place_clear (place);
}

G_DEFINE_EXTENDED_ERROR (CtEngineError, ct_engine_error)

CtErrorPlace *ct_engine_error_place_of (const GError *error);

CtErrorPlace *
ct_engine_error_place_of (const GError *error)
{
  return ct_engine_error_get_private (error);
}

static CtEngineError
code_for_status (CtStatus status)
{
  switch (status)
    {
    case CT_STATUS_NO_DEVICE:
      return CT_ENGINE_ERROR_NO_DEVICE;
    case CT_STATUS_OUT_OF_MEMORY:
      return CT_ENGINE_ERROR_OUT_OF_MEMORY;
    case CT_STATUS_INVALID:
      return CT_ENGINE_ERROR_INVALID;
    case CT_STATUS_OK:
    case CT_STATUS_DEVICE_ERROR:
    default:
      return CT_ENGINE_ERROR_DEVICE;
    }
}

static const char *
reason_for_status (CtStatus status)
{
  switch (status)
    {
    case CT_STATUS_NO_DEVICE:
      /* Tell apart "install a CUDA build" from "plug in / fix the GPU". */
      return CT_HAVE_CUDA ? _("no usable GPU was found")
                          : _("this build of Cortado has no CUDA support");
    case CT_STATUS_OUT_OF_MEMORY:
      return _("out of GPU memory");
    case CT_STATUS_INVALID:
      return _("a count or size is out of range");
    case CT_STATUS_DEVICE_ERROR:
      return _("the GPU reported an error");
    case CT_STATUS_OK:
    default:
      return _("unknown failure");
    }
}

gboolean
ct_engine_check_status (CtStatus status,
                        const char *what,
                        GError **error)
{
  if (status == CT_STATUS_OK)
    return TRUE;
  /* TRANSLATORS: "what failed: why", e.g. "Copying blob data to the GPU:
   * no usable GPU was found". */
  g_set_error (error, CT_ENGINE_ERROR, code_for_status (status),
               _("%s: %s"), what, reason_for_status (status));
  return FALSE;
}
