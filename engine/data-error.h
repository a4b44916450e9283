/* data-error.h: the error domain of Cortado's data sources: databases,
 * Datum records, images, list files and HDF5 files. Messages name the file
 * and, where there is one, the record (its key or index). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CT_DATA_ERROR (ct_data_error_quark ())
GQuark ct_data_error_quark (void);

typedef enum {
  CT_DATA_ERROR_NOT_FOUND,   /* no such database, file or dataset */
  CT_DATA_ERROR_EXISTS,      /* a database to be created is already there */
  CT_DATA_ERROR_IO,          /* the backend or the file system failed */
  CT_DATA_ERROR_CORRUPT,     /* a record, image or file that cannot be decoded */
  CT_DATA_ERROR_SHAPE,       /* a shape that is wrong or changes between records */
  CT_DATA_ERROR_INVALID,     /* a value out of range (label, size, parameter) */
  CT_DATA_ERROR_EMPTY,       /* a source with no records */
} CtDataError;

G_END_DECLS
