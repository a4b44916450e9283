/* data-error.c: the CT_DATA_ERROR domain. */
#include "data-error.h"

G_DEFINE_QUARK (cortado-data-error-quark, ct_data_error)
