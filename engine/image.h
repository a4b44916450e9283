/* image.h: images as Caffe's data layers see them. Pixels are kept
 * channel-major (C×H×W), colour channels in blue, green, red order as
 * Caffe's OpenCV decoding gives them, as 8-bit values (decoded images, raw
 * Datum bytes) or floats (Datum float_data).
 *
 * Files and encoded Datum bytes are decoded with gdk-pixbuf: "native" keeps
 * a grey image grey (one channel) and a colour image colour (three; alpha
 * is dropped), "color" and "gray" force three or one channel. Resizing is
 * bilinear with pixel centres aligned, as OpenCV's INTER_LINEAR. */
#pragma once

#include <glib.h>

#include "data-error.h"

G_BEGIN_DECLS

/* The most pixels an image may have (256 Mi: 768 MiB as RGB); a larger
 * one is refused from its header, before its pixels are allocated. */
#define CT_IMAGE_MAX_PIXELS ((gint64) 1 << 28)

typedef enum {
  CT_IMAGE_NATIVE,
  CT_IMAGE_COLOR,
  CT_IMAGE_GRAY,
} CtImageColor;

typedef struct {
  int channels, height, width;
  const guint8 *u8;  /* C×H×W bytes, or NULL */
  const float *f32;  /* C×H×W floats, or NULL */
  guint8 *storage;   /* owned bytes U8 points into, or NULL when borrowed */
} CtPixels;

void ct_pixels_clear (CtPixels *pixels);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CtPixels, ct_pixels_clear)

/* Decode LENGTH bytes of an image file (PNG, JPEG, BMP, ... whatever
 * gdk-pixbuf reads). WHERE names the source in errors ("db: record 'k'"). */
gboolean ct_image_decode (const guint8 *bytes, gsize length, CtImageColor color,
                          const char *where, CtPixels *out, GError **error);

/* Read and decode PATH, then resize to NEW_HEIGHT × NEW_WIDTH when both are
 * positive. */
gboolean ct_image_load (const char *path, CtImageColor color, int new_height, int new_width,
                        CtPixels *out, GError **error);

/* Resize 8-bit PIXELS in place (bilinear, as OpenCV's INTER_LINEAR). */
void ct_pixels_resize (CtPixels *pixels, int height, int width);

/* PIXELS (8-bit, one or three channels) as a PNG file. */
GBytes *ct_pixels_encode_png (const CtPixels *pixels);

G_END_DECLS
