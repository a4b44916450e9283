/* filler.h: initial values for parameter blobs, from a FillerParameter, as
 * Caffe's fillers compute them: constant, uniform, gaussian (optionally
 * sparse), positive_unitball, xavier, msra and bilinear. */
#pragma once

#include <glib.h>

#include "blob.h"
#include "caffe.pb-c.h"
#include "rng.h"

G_BEGIN_DECLS

/* Whether TYPE names a filler Cortado knows. */
gboolean ct_filler_type_is_known (const char *type);

/* Whether PARAM (NULL: constant 0) can fill BLOB: a known type and a shape
 * the filler can use. Touches no memory: the editor's shape inference
 * validates fillers this way. */
gboolean ct_filler_check (const Caffe__FillerParameter *param, const CtBlob *blob,
                          GError **error);

/* Fill BLOB's data as PARAM says (NULL: the defaults, constant 0), drawing
 * from RNG. Fails on an unknown type or a blob shape the filler cannot use. */
gboolean ct_filler_fill (const Caffe__FillerParameter *param, CtBlob *blob, CtRng *rng,
                         GError **error);

G_END_DECLS
