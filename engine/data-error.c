/* data-error.c: the CT_DATA_ERROR domain. */
#include "data-error.h"
#include "error-place.h"

/* Its errors carry the layer that read the source (error-place.h). */
typedef CtErrorPlace CtDataErrorPrivate;

static void
ct_data_error_private_init (CtDataErrorPrivate *place)
{
  ct_error_place_init (place);
}

static void
ct_data_error_private_copy (const CtDataErrorPrivate *src, CtDataErrorPrivate *dest)
{
  ct_error_place_copy (src, dest);
}

static void
ct_data_error_private_clear (CtDataErrorPrivate *place)
{
  ct_error_place_clear (place);
}

G_DEFINE_EXTENDED_ERROR (CtDataError, ct_data_error)

CtErrorPlace *ct_data_error_place_of (const GError *error);

CtErrorPlace *
ct_data_error_place_of (const GError *error)
{
  return ct_data_error_get_private (error);
}
