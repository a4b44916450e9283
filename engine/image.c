/* image.c: decoding image files into channel-major pixels with gdk-pixbuf,
 * bilinear resizing, and a small PNG writer (gdk-pixbuf writes only RGB,
 * and converters need grey PNGs too).
 *
 * gdk-pixbuf always hands back RGB(A); whether a file is grey is read from
 * its header (PNG colour type, JPEG component count, PGM), since "native"
 * decoding must keep grey images at one channel as Caffe's does. */
#include <math.h>
#include <string.h>
#include <zlib.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gi18n-lib.h>

#include "image.h"

void
ct_pixels_clear (CtPixels *pixels)
{
  g_free (pixels->storage);
  memset (pixels, 0, sizeof *pixels);
}

static guint
read_be16 (const guint8 *p)
{
  return ((guint) p[0] << 8) | p[1];
}

/* Whether the file in BYTES stores grey pixels. */
static gboolean
is_grey_file (const guint8 *bytes, gsize length)
{
  static const guint8 png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

  if (length >= 26 && memcmp (bytes, png_magic, 8) == 0 && memcmp (bytes + 12, "IHDR", 4) == 0)
    return bytes[25] == 0 || bytes[25] == 4; /* grey, grey + alpha */
  if (length >= 2 && bytes[0] == 'P' && (bytes[1] == '2' || bytes[1] == '5'))
    return TRUE;
  if (length >= 4 && bytes[0] == 0xff && bytes[1] == 0xd8)
    {
      /* walk the JPEG segments to the frame header */
      gsize pos = 2;

      while (pos + 4 <= length)
        {
          guint marker, seg_length;

          if (bytes[pos] != 0xff)
            return FALSE;
          marker = bytes[pos + 1];
          if (marker == 0xff)
            {
              pos++;
              continue;
            }
          seg_length = read_be16 (bytes + pos + 2);
          if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
              marker != 0xcc)
            return pos + 9 < length && bytes[pos + 9] == 1;
          pos += 2 + seg_length;
        }
    }
  return FALSE;
}

static guint32
read_be32 (const guint8 *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

/* Whether a JPEG's end-of-image marker (FF D9) follows its first scan
 * (FF DA): inside the scan's coded data a byte FF is always followed by 00
 * or a restart marker, so FF D9 there is the end. A file cut short has
 * none; trailing bytes after it do no harm. */
static gboolean
jpeg_has_end (const guint8 *bytes, gsize length)
{
  const guint8 *scan = NULL;

  for (gsize i = 2; i + 1 < length && scan == NULL; i++)
    if (bytes[i] == 0xff && bytes[i + 1] == 0xda)
      scan = bytes + i + 2;
  if (scan == NULL)
    return FALSE;
  for (const guint8 *p = bytes + length - 2; p >= scan; p--)
    if (p[0] == 0xff && p[1] == 0xd9)
      return TRUE;
  return FALSE;
}

/* gdk-pixbuf decodes a PNG, BMP or JPEG cut short without complaint,
 * leaving the missing rows blank or grey: check that the whole file is
 * there. */
static gboolean
is_complete (const guint8 *bytes, gsize length)
{
  static const guint8 png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

  if (length >= 8 && memcmp (bytes, png_magic, 8) == 0)
    {
      gsize pos = 8;

      /* chunk by chunk to IEND */
      while (pos + 12 <= length)
        {
          guint32 chunk_length = read_be32 (bytes + pos);

          if (memcmp (bytes + pos + 4, "IEND", 4) == 0)
            return TRUE;
          if (chunk_length > length - pos - 12)
            return FALSE;
          pos += 12 + (gsize) chunk_length;
        }
      return FALSE;
    }
  if (length >= 6 && bytes[0] == 'B' && bytes[1] == 'M')
    {
      guint32 file_size = bytes[2] | ((guint32) bytes[3] << 8) | ((guint32) bytes[4] << 16) |
                          ((guint32) bytes[5] << 24);
      return file_size <= length;
    }
  if (length >= 2 && bytes[0] == 0xff && bytes[1] == 0xd8)
    return jpeg_has_end (bytes, length);
  return TRUE;
}

/* The grey value OpenCV's colour conversion gives (BT.601 weights in
 * 14-bit fixed point). */
static guint8
grey_of (guint r, guint g, guint b)
{
  return (guint8) ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14);
}

static void
pixbuf_to_pixels (GdkPixbuf *pixbuf, gboolean grey_source, CtImageColor color, CtPixels *out)
{
  int width = gdk_pixbuf_get_width (pixbuf);
  int height = gdk_pixbuf_get_height (pixbuf);
  int stride = gdk_pixbuf_get_rowstride (pixbuf);
  int step = gdk_pixbuf_get_n_channels (pixbuf);
  const guint8 *src = gdk_pixbuf_read_pixels (pixbuf);
  gboolean grey = color == CT_IMAGE_GRAY || (color == CT_IMAGE_NATIVE && grey_source);
  gsize plane = (gsize) height * (gsize) width;
  guint8 *dst;

  out->channels = grey ? 1 : 3;
  out->height = height;
  out->width = width;
  out->storage = g_malloc (plane * (gsize) out->channels);
  out->u8 = out->storage;
  out->f32 = NULL;
  dst = out->storage;
  for (int y = 0; y < height; y++)
    {
      const guint8 *row = src + (gsize) y * (gsize) stride;
      gsize base = (gsize) y * (gsize) width;

      for (int x = 0; x < width; x++)
        {
          const guint8 *p = row + (gsize) x * (gsize) step;

          if (grey)
            dst[base + (gsize) x] = grey_source ? p[0] : grey_of (p[0], p[1], p[2]);
          else
            {
              dst[base + (gsize) x] = p[2];             /* blue */
              dst[plane + base + (gsize) x] = p[1];     /* green */
              dst[2 * plane + base + (gsize) x] = p[0]; /* red */
            }
        }
    }
}

typedef struct {
  int width, height;
  gboolean too_large;
} ImageSize;

/* The loader says the size from the file's header before it allocates the
 * pixels: a header may claim 100000 x 100000 (30 GB of RGB), so sizes past
 * the limit get 0 x 0, which every loader takes as a fatal error. */
static void
refuse_huge (GdkPixbufLoader *loader, int width, int height, gpointer data)
{
  ImageSize *size = data;

  size->width = width;
  size->height = height;
  if (width > 0 && height > 0 && (gint64) width * height > CT_IMAGE_MAX_PIXELS)
    {
      size->too_large = TRUE;
      gdk_pixbuf_loader_set_size (loader, 0, 0);
    }
}

gboolean
ct_image_decode (const guint8 *bytes, gsize length, CtImageColor color, const char *where,
                 CtPixels *out, GError **error)
{
  g_autoptr (GdkPixbufLoader) loader = NULL;
  g_autoptr (GError) local = NULL;
  ImageSize size = { 0 };
  GdkPixbuf *pixbuf;

  memset (out, 0, sizeof *out);
  if (length == 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("%s: the image is empty (0 bytes)"), where);
      return FALSE;
    }
  if (!is_complete (bytes, length))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   g_dngettext (GETTEXT_PACKAGE, "%s: the image file is cut short (%zu byte)",
                                "%s: the image file is cut short (%zu bytes)", length),
                   where, length);
      return FALSE;
    }
  /* made only now: a loader must be closed before it is freed */
  loader = gdk_pixbuf_loader_new ();
  g_signal_connect (loader, "size-prepared", G_CALLBACK (refuse_huge), &size);
  if (!gdk_pixbuf_loader_write (loader, bytes, length, &local) ||
      !gdk_pixbuf_loader_close (loader, &local))
    {
      /* close it anyway so that the loader does not warn when freed */
      gdk_pixbuf_loader_close (loader, NULL);
      if (size.too_large)
        /* TRANSLATORS: file, width, height, then the most pixels Cortado decodes */
        g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                     _("%s: the image is %d × %d pixels, more than the %d million an image "
                       "may have"), where, size.width, size.height,
                     (int) (CT_IMAGE_MAX_PIXELS / 1000000));
      else
        g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                     _("%s: not an image that can be decoded: %s"), where,
                     local != NULL ? local->message : _("unknown format"));
      return FALSE;
    }
  pixbuf = gdk_pixbuf_loader_get_pixbuf (loader);
  if (pixbuf == NULL || gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 ||
      gdk_pixbuf_get_colorspace (pixbuf) != GDK_COLORSPACE_RGB ||
      gdk_pixbuf_get_n_channels (pixbuf) < 3)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("%s: the image decoded to no usable pixels"), where);
      return FALSE;
    }
  pixbuf_to_pixels (pixbuf, is_grey_file (bytes, length), color, out);
  return TRUE;
}

gboolean
ct_image_load (const char *path, CtImageColor color, int new_height, int new_width,
               CtPixels *out, GError **error)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) local = NULL;
  gsize length = 0;

  memset (out, 0, sizeof *out);
  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      g_set_error (error, CT_DATA_ERROR,
                   g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                     ? CT_DATA_ERROR_NOT_FOUND : CT_DATA_ERROR_IO,
                   "%s", local->message);
      return FALSE;
    }
  if (!ct_image_decode ((const guint8 *) contents, length, color, path, out, error))
    return FALSE;
  if (new_height > 0 && new_width > 0 &&
      (new_height != out->height || new_width != out->width))
    ct_pixels_resize (out, new_height, new_width);
  return TRUE;
}

/* Source index and 11-bit weight of the next pixel for each destination
 * coordinate, with centres aligned and the edges clamped. */
static void
linear_taps (int src_size, int dst_size, int *index, int *weight)
{
  double scale = (double) src_size / (double) dst_size;

  for (int d = 0; d < dst_size; d++)
    {
      double f = ((double) d + 0.5) * scale - 0.5;
      int s = (int) floor (f);

      f -= s;
      if (s < 0)
        {
          s = 0;
          f = 0.0;
        }
      if (s >= src_size - 1)
        {
          s = src_size - 1;
          f = 0.0;
        }
      index[d] = s;
      weight[d] = (int) lrint (f * 2048.0);
    }
}

void
ct_pixels_resize (CtPixels *pixels, int height, int width)
{
  int sh = pixels->height, sw = pixels->width;
  gsize splane = (gsize) sh * (gsize) sw, dplane = (gsize) height * (gsize) width;
  g_autofree int *xi = g_new (int, width), *xw = g_new (int, width);
  g_autofree int *yi = g_new (int, height), *yw = g_new (int, height);
  guint8 *dst;

  g_return_if_fail (pixels->u8 != NULL && height > 0 && width > 0);

  dst = g_malloc (dplane * (gsize) pixels->channels);
  linear_taps (sw, width, xi, xw);
  linear_taps (sh, height, yi, yw);
  for (int c = 0; c < pixels->channels; c++)
    {
      const guint8 *src = pixels->u8 + (gsize) c * splane;

      for (int y = 0; y < height; y++)
        {
          const guint8 *r0 = src + (gsize) yi[y] * (gsize) sw;
          const guint8 *r1 = src + (gsize) MIN (yi[y] + 1, sh - 1) * (gsize) sw;
          int b1 = yw[y], b0 = 2048 - b1;

          for (int x = 0; x < width; x++)
            {
              int x0 = xi[x], x1 = MIN (x0 + 1, sw - 1);
              int a1 = xw[x], a0 = 2048 - a1;
              int top = r0[x0] * a0 + r0[x1] * a1;
              int bottom = r1[x0] * a0 + r1[x1] * a1;
              int v = (top * b0 + bottom * b1 + (1 << 21)) >> 22;

              dst[(gsize) c * dplane + (gsize) y * (gsize) width + (gsize) x] =
                (guint8) CLAMP (v, 0, 255);
            }
        }
    }
  g_free (pixels->storage);
  pixels->storage = dst;
  pixels->u8 = dst;
  pixels->height = height;
  pixels->width = width;
}

static void
append_be32 (GByteArray *out, guint32 v)
{
  guint8 b[4] = { v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };

  g_byte_array_append (out, b, 4);
}

static void
append_chunk (GByteArray *out, const char *type, const guint8 *data, gsize length)
{
  uLong crc = crc32 (0L, (const Bytef *) type, 4);

  if (length > 0)
    crc = crc32 (crc, data, (uInt) length);
  append_be32 (out, (guint32) length);
  g_byte_array_append (out, (const guint8 *) type, 4);
  if (length > 0)
    g_byte_array_append (out, data, (guint) length);
  append_be32 (out, (guint32) crc);
}

GBytes *
ct_pixels_encode_png (const CtPixels *pixels)
{
  static const guint8 magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  int c = pixels->channels, h = pixels->height, w = pixels->width;
  gsize plane = (gsize) h * (gsize) w, row_bytes = 1 + (gsize) w * (gsize) c;
  gsize raw_length = row_bytes * (gsize) h;
  g_autofree guint8 *raw = g_malloc (raw_length);
  uLongf packed_length = compressBound ((uLong) raw_length);
  g_autofree guint8 *packed = g_malloc (packed_length);
  GByteArray *out = g_byte_array_new ();
  guint8 header[13];

  g_return_val_if_fail (pixels->u8 != NULL && (c == 1 || c == 3), NULL);

  /* scanlines, filter 0, interleaved RGB (or grey) from planar BGR */
  for (int y = 0; y < h; y++)
    {
      guint8 *row = raw + (gsize) y * row_bytes;

      row[0] = 0;
      for (int x = 0; x < w; x++)
        for (int k = 0; k < c; k++)
          {
            int plane_index = c == 3 ? 2 - k : 0;
            row[1 + (gsize) x * (gsize) c + (gsize) k] =
              pixels->u8[(gsize) plane_index * plane + (gsize) y * (gsize) w + (gsize) x];
          }
    }
  compress2 (packed, &packed_length, raw, (uLong) raw_length, 6);

  g_byte_array_append (out, magic, 8);
  header[0] = (guint8) (w >> 24); header[1] = (guint8) (w >> 16);
  header[2] = (guint8) (w >> 8); header[3] = (guint8) w;
  header[4] = (guint8) (h >> 24); header[5] = (guint8) (h >> 16);
  header[6] = (guint8) (h >> 8); header[7] = (guint8) h;
  header[8] = 8;                 /* bit depth */
  header[9] = c == 3 ? 2 : 0;    /* truecolour or grey */
  header[10] = header[11] = header[12] = 0;
  append_chunk (out, "IHDR", header, sizeof header);
  append_chunk (out, "IDAT", packed, packed_length);
  append_chunk (out, "IEND", NULL, 0);
  return g_byte_array_free_to_bytes (out);
}
