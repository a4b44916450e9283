/* blob-export.c: .npy and CSV writers (see blob-export.h). */
#include "blob-export.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "atomic-write.h"
#include "geometry.h"
#include "heatmap-private.h"

static gsize
count_of (const gint64 *dims, guint ndims)
{
  gsize n = 1;

  for (guint i = 0; i < ndims; i++)
    n *= (gsize) MAX (dims[i], 0);
  return n;
}

GBytes *
ct_blob_npy_bytes (const float *values, const gint64 *dims, guint ndims)
{
  g_autoptr(GString) header = g_string_new ("{'descr': '<f4', 'fortran_order': False, 'shape': (");
  gsize n = count_of (dims, ndims);
  gsize prefix, total;
  GByteArray *out;
  guint8 len_le[2];

  for (guint i = 0; i < ndims; i++)
    g_string_append_printf (header, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
  /* A one-element tuple needs its trailing comma, as in Python. */
  if (ndims == 1)
    g_string_append_c (header, ',');
  g_string_append (header, "), }");
  /* Magic (6) + version (2) + header length (2) + header, padded with
   * spaces so that the whole is a multiple of 64, the last byte '\n'. */
  prefix = 10;
  total = (prefix + header->len + 1 + 63) / 64 * 64;
  while (prefix + header->len + 1 < total)
    g_string_append_c (header, ' ');
  g_string_append_c (header, '\n');
  g_assert (header->len <= G_MAXUINT16);

  out = g_byte_array_sized_new ((guint) (total + n * 4));
  g_byte_array_append (out, (const guint8 *) "\x93NUMPY\x01\x00", 8);
  len_le[0] = header->len & 0xff;
  len_le[1] = header->len >> 8 & 0xff;
  g_byte_array_append (out, len_le, 2);
  g_byte_array_append (out, (const guint8 *) header->str, header->len);
  for (gsize i = 0; i < n; i++)
    {
      guint32 bits;

      memcpy (&bits, &values[i], 4);
      bits = GUINT32_TO_LE (bits);
      g_byte_array_append (out, (const guint8 *) &bits, 4);
    }
  return g_byte_array_free_to_bytes (out);
}

static void
append_value (GString *s, float v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    g_string_append (s, "nan");
  else if (isinf (v))
    g_string_append (s, v > 0 ? "inf" : "-inf");
  else
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.9g", v));
}

char *
ct_blob_csv_text (const float *values, const gint64 *dims, guint ndims)
{
  gsize n = count_of (dims, ndims);
  gsize row = ndims > 0 ? (gsize) MAX (dims[ndims - 1], 0) : 1;
  GString *s = g_string_sized_new (n * 12 + 16);

  if (row == 0)
    return g_string_free (s, FALSE);
  for (gsize i = 0; i < n; i++)
    {
      append_value (s, values[i]);
      g_string_append_c (s, (i + 1) % row == 0 ? '\n' : ',');
    }
  return g_string_free (s, FALSE);
}

/* Through the project's atomic writer (a temporary file renamed over the
 * old one; symlinks followed, permissions kept), in the heatmap's domain. */
gboolean
ct_heatmap_save_bytes (const char *path, const void *data, gsize length, GError **error)
{
  g_autoptr(GError) local_error = NULL;

  if (ct_file_write_atomic (path, data, length, &local_error))
    return TRUE;
  g_set_error_literal (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_WRITE, local_error->message);
  return FALSE;
}

gboolean
ct_blob_save_npy (const char *path,
                  const float *values,
                  const gint64 *dims,
                  guint ndims,
                  GError **error)
{
  g_autoptr(GBytes) bytes = ct_blob_npy_bytes (values, dims, ndims);
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);

  return ct_heatmap_save_bytes (path, data, size, error);
}

gboolean
ct_blob_save_csv (const char *path,
                  const float *values,
                  const gint64 *dims,
                  guint ndims,
                  GError **error)
{
  g_autofree char *text = ct_blob_csv_text (values, dims, ndims);

  return ct_heatmap_save_bytes (path, text, strlen (text), error);
}
