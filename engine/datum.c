/* datum.c: reading and writing Datum records. The shape a record states is
 * never trusted: the number of stored values must be exactly
 * channels × height × width before any pixel is read. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "binary-io.h"
#include "datum.h"

Caffe__Datum *
ct_datum_parse (const guint8 *bytes, gsize length, const char *where, GError **error)
{
  g_autoptr (GError) local = NULL;
  ProtobufCMessage *msg = ct_binary_parse (&caffe__datum__descriptor, bytes, length, where,
                                           &local);

  if (msg == NULL)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("not a Datum record: %s"), local->message);
      return NULL;
    }
  return (Caffe__Datum *) msg;
}

static gboolean
check_raw_shape (const Caffe__Datum *datum, const char *where, gsize *count, GError **error)
{
  guint64 n;

  if (datum->channels <= 0 || datum->height <= 0 || datum->width <= 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                   _("%s: the Datum's shape %d×%d×%d (channels×height×width) is not "
                     "positive"), where, datum->channels, datum->height, datum->width);
      return FALSE;
    }
  n = (guint64) datum->channels * (guint64) datum->height * (guint64) datum->width;
  if (n > G_MAXINT32)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                   _("%s: the Datum's shape %d×%d×%d is too large"), where,
                   datum->channels, datum->height, datum->width);
      return FALSE;
    }
  *count = (gsize) n;
  return TRUE;
}

gboolean
ct_datum_get_pixels (const Caffe__Datum *datum, CtImageColor color, const char *where,
                     CtPixels *out, GError **error)
{
  gsize count;

  memset (out, 0, sizeof *out);
  if (datum->encoded)
    return ct_image_decode (datum->data.data, datum->data.len, color, where, out, error);

  if (!check_raw_shape (datum, where, &count, error))
    return FALSE;
  if (datum->data.len > 0)
    {
      if (datum->data.len != count)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "%s: the Datum holds %zu data byte but its shape %d×%d×%d needs %zu",
                                    "%s: the Datum holds %zu data bytes but its shape %d×%d×%d needs "
                                    "%zu", datum->data.len),
                       where, datum->data.len, datum->channels, datum->height,
                       datum->width, count);
          return FALSE;
        }
      out->u8 = datum->data.data;
    }
  else if (datum->n_float_data > 0)
    {
      if (datum->n_float_data != count)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "%s: the Datum holds %zu float_data value but its shape %d×%d×%d "
                                    "needs %zu",
                                    "%s: the Datum holds %zu float_data values but its shape %d×%d×%d "
                                    "needs %zu", datum->n_float_data),
                       where, datum->n_float_data, datum->channels,
                       datum->height, datum->width, count);
          return FALSE;
        }
      out->f32 = datum->float_data;
    }
  else
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("%s: the Datum holds no pixels (neither data nor float_data)"), where);
      return FALSE;
    }
  out->channels = datum->channels;
  out->height = datum->height;
  out->width = datum->width;
  return TRUE;
}

static GBytes *
pack (const Caffe__Datum *datum)
{
  gsize length = protobuf_c_message_get_packed_size (&datum->base);
  guint8 *bytes = g_malloc (MAX (length, 1));

  protobuf_c_message_pack (&datum->base, bytes);
  return g_bytes_new_take (bytes, length);
}

GBytes *
ct_datum_pack_raw (const CtPixels *pixels, int label)
{
  Caffe__Datum datum = CAFFE__DATUM__INIT;

  g_return_val_if_fail (pixels->u8 != NULL, NULL);

  datum.has_channels = datum.has_height = datum.has_width = TRUE;
  datum.channels = pixels->channels;
  datum.height = pixels->height;
  datum.width = pixels->width;
  datum.has_data = TRUE;
  datum.data.data = (guint8 *) pixels->u8;
  datum.data.len = (gsize) pixels->channels * (gsize) pixels->height * (gsize) pixels->width;
  datum.has_label = TRUE;
  datum.label = label;
  return pack (&datum);
}

GBytes *
ct_datum_pack_encoded (GBytes *image, int label)
{
  Caffe__Datum datum = CAFFE__DATUM__INIT;
  gsize length;

  datum.has_data = TRUE;
  datum.data.data = (guint8 *) g_bytes_get_data (image, &length);
  datum.data.len = length;
  datum.has_label = TRUE;
  datum.label = label;
  datum.has_encoded = TRUE;
  datum.encoded = TRUE;
  return pack (&datum);
}
