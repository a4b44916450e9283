/* datum.h: Caffe's Datum records, as Data layers read them from a database
 * and converters write them: parse the protobuf bytes, check that the
 * stated shape and the stored values agree, and give the pixels (raw 8-bit
 * `data`, `float_data`, or an `encoded` image decoded with gdk-pixbuf).
 * Every problem is an error naming WHERE: the database and record key. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "data-error.h"
#include "image.h"

G_BEGIN_DECLS

static inline void
ct_datum_free (Caffe__Datum *datum)
{
  if (datum != NULL)
    protobuf_c_message_free_unpacked (&datum->base, NULL);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Caffe__Datum, ct_datum_free)

/* Decode LENGTH bytes as a Datum; a truncated or foreign value is an error
 * naming WHERE and the byte offset. */
Caffe__Datum *ct_datum_parse (const guint8 *bytes, gsize length, const char *where,
                              GError **error);

/* DATUM's pixels. Raw data are borrowed from DATUM (keep it alive while
 * OUT is used); encoded images are decoded with COLOR (native, or forced
 * to colour or grey as TransformationParameter's force_color/force_gray). */
gboolean ct_datum_get_pixels (const Caffe__Datum *datum, CtImageColor color, const char *where,
                              CtPixels *out, GError **error);

/* A raw Datum holding PIXELS (8-bit) and LABEL, packed to bytes. */
GBytes *ct_datum_pack_raw (const CtPixels *pixels, int label);
/* An encoded Datum holding the image file bytes IMAGE and LABEL. */
GBytes *ct_datum_pack_encoded (GBytes *image, int label);

G_END_DECLS
