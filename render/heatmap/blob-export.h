/* blob-export.h: a blob's values saved for other tools, GTK-free.
 *
 * .npy is NumPy's own format (version 1.0), so that `numpy.load` reads the
 * blob with its shape: the magic "\x93NUMPY", the version bytes 1 and 0, a
 * little-endian 16-bit header length, then a Python dict literal
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with
 * spaces and ended by '\n' so that the data starts at a multiple of 64
 * bytes, then the values as little-endian float32 in C order.
 *
 * CSV: one line per innermost row, that is per (n, c, h) for a 4-D blob
 * (per n for a matrix, a single line for a vector), holding that row's W
 * values separated by commas, rows in the blob's own order. No header, so
 * `numpy.loadtxt(path, delimiter=',').reshape(shape)` gives the blob back
 * and a spreadsheet shows each channel as a block of H lines. Values are
 * written with 9 significant digits (a float32 reads back exactly) in the C
 * locale; NaN and infinities as `nan`, `inf`, `-inf`.
 *
 * Saves are atomic (a temporary file renamed over the target); errors
 * name the file. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The .npy file's bytes for N values of shape DIMS (N = product of DIMS;
 * NDIMS == 0 is a scalar). */
GBytes *ct_blob_npy_bytes (const float *values, const gint64 *dims, guint ndims);

/* The CSV text for values of shape DIMS. */
char *ct_blob_csv_text (const float *values, const gint64 *dims, guint ndims);

gboolean ct_blob_save_npy (const char *path,
                           const float *values,
                           const gint64 *dims,
                           guint ndims,
                           GError **error);
gboolean ct_blob_save_csv (const char *path,
                           const float *values,
                           const gint64 *dims,
                           guint ndims,
                           GError **error);

G_END_DECLS
