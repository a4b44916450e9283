/* blob-private.h: what blob.c shares with blob-proto.c. */
#pragma once

#include <glib.h>

/* "2 3 4": a shape that is not (yet) a blob's, for error messages. */
char *ct_blob_dims_to_string (const gint64 *dims, gsize n_axes);

/* The element count of a shape in *COUNT_OUT, or an error when the shape
 * is not one a blob can have. */
gboolean ct_blob_check_shape (const gint64 *dims, gsize n_axes, gint64 *count_out,
                              GError **error);

/* Make MEM (at least count floats; referenced) the blob's data or, with
 * DIFF, its diff, dropping the memory it had: the net's memory planner
 * hands blobs whose lives do not overlap the same memory. */
void ct_blob_set_mem (CtBlob *blob, gboolean diff, CtMem *mem);
