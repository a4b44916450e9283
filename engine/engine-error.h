/* engine-error.h: the error domain of everything in engine/.
 *
 * Messages are for users and translated; they name the blob shape, layer or
 * axis involved. Kernel statuses become errors of this domain through
 * ct_engine_check_status(). */
#pragma once

#include <glib.h>

#include "status.h"

G_BEGIN_DECLS

#define CT_ENGINE_ERROR (ct_engine_error_quark ())
GQuark ct_engine_error_quark (void);

typedef enum {
  CT_ENGINE_ERROR_SHAPE,          /* a shape that is invalid or does not match */
  CT_ENGINE_ERROR_AXIS,           /* an axis or index out of range */
  CT_ENGINE_ERROR_OVERFLOW,       /* a count or size beyond what can be addressed */
  CT_ENGINE_ERROR_OUT_OF_MEMORY,  /* host or device memory could not be allocated */
  CT_ENGINE_ERROR_NO_DEVICE,      /* a GPU was needed and none is usable */
  CT_ENGINE_ERROR_DEVICE,         /* the GPU or its runtime reported a failure */
  CT_ENGINE_ERROR_PROTO,          /* a message whose content contradicts itself */
  CT_ENGINE_ERROR_STATE,          /* an operation on memory that holds nothing yet */
  CT_ENGINE_ERROR_INVALID,        /* arguments out of range for a kernel */
  CT_ENGINE_ERROR_NOT_FINITE,     /* a value went NaN or infinite */
} CtEngineError;

/* Returns TRUE when STATUS is CT_STATUS_OK; otherwise sets ERROR to
 * "WHAT: reason" with the matching code and returns FALSE. WHAT is an
 * already translated phrase such as _("Copying blob data to the GPU"). */
gboolean ct_engine_check_status (CtStatus status,
                                 const char *what,
                                 GError **error);

G_END_DECLS
