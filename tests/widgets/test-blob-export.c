/* test-blob-export.c: the blob exports. The .npy bytes of a small array
 * byte by byte, a strict reader of the format's header for several shapes,
 * NumPy itself reading the files back (skipped when python3-numpy is not
 * installed), the CSV text exactly, the PNG of a heatmap, and errors that
 * name the file. */
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "heatmap/blob-export.h"
#include "heatmap/heatmap.h"

static const float small[] = { 0.0f, 1.0f, -2.0f, 0.5f, 3.0f, -0.25f };
static const gint64 small_dims[] = { 2, 3 };

static void
test_npy_bytes (void)
{
  static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  static const guint8 data[] = {
    0x00, 0x00, 0x00, 0x00, /* 0 */
    0x00, 0x00, 0x80, 0x3f, /* 1 */
    0x00, 0x00, 0x00, 0xc0, /* -2 */
    0x00, 0x00, 0x00, 0x3f, /* 0.5 */
    0x00, 0x00, 0x40, 0x40, /* 3 */
    0x00, 0x00, 0x80, 0xbe, /* -0.25 */
  };
  g_autoptr(GBytes) bytes = ct_blob_npy_bytes (small, small_dims, 2);
  gsize size = 0;
  const guint8 *b = g_bytes_get_data (bytes, &size);

  /* 10 + 59 + '\n' = 70 bytes: padded to 128, so the header is 118 long. */
  g_assert_cmpuint (sizeof dict - 1, ==, 59);
  g_assert_cmpuint (size, ==, 128 + sizeof data);
  g_assert_cmpmem (b, 8, "\x93NUMPY\x01\x00", 8);
  g_assert_cmpuint (b[8], ==, 118);
  g_assert_cmpuint (b[9], ==, 0);
  g_assert_cmpmem (b + 10, 59, dict, 59);
  for (gsize i = 10 + 59; i < 127; i++)
    g_assert_cmpuint (b[i], ==, ' ');
  g_assert_cmpuint (b[127], ==, '\n');
  g_assert_cmpmem (b + 128, sizeof data, data, sizeof data);
}

/* A strict reader of what this writer promises: version 1.0, a dict with
 * exactly these keys in NumPy's own order, little-endian float32, C order,
 * data aligned to 64 bytes. Returns the values; fills the shape. */
static float *
read_npy (const guint8 *b, gsize size, gint64 *dims, guint *ndims)
{
  guint header_len;
  g_autofree char *header = NULL;
  const char *prefix = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  const char *p;
  gsize count = 1;
  float *values;

  g_assert_cmpuint (size, >=, 10);
  g_assert_cmpmem (b, 6, "\x93NUMPY", 6);
  g_assert_cmpuint (b[6], ==, 1);
  g_assert_cmpuint (b[7], ==, 0);
  header_len = b[8] | (guint) b[9] << 8;
  g_assert_cmpuint ((10 + header_len) % 64, ==, 0);
  g_assert_cmpuint (size, >=, 10 + header_len);
  header = g_strndup ((const char *) b + 10, header_len);
  g_assert_cmpuint (header[header_len - 1], ==, '\n');
  g_assert_true (g_str_has_prefix (header, prefix));
  p = header + strlen (prefix);
  *ndims = 0;
  while (*p != ')')
    {
      char *end;
      gint64 d = g_ascii_strtoll (p, &end, 10);

      g_assert_true (end != p);
      g_assert_cmpint (d, >=, 0);
      dims[(*ndims)++] = d;
      count *= (gsize) d;
      p = end;
      if (*p == ',')
        p++;
      if (*p == ' ')
        p++;
    }
  /* A one-axis tuple must carry its comma. */
  if (*ndims == 1)
    g_assert_cmpuint (p[-1], ==, ',');
  g_assert_true (g_str_has_prefix (p, "), }"));
  for (p += 4; *p == ' '; p++)
    ;
  g_assert_cmpstr (p, ==, "\n");
  g_assert_cmpuint (size - 10 - header_len, ==, count * 4);
  values = g_new (float, MAX (count, 1));
  for (gsize i = 0; i < count; i++)
    {
      guint32 bits;

      memcpy (&bits, b + 10 + header_len + 4 * i, 4);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&values[i], &bits, 4);
    }
  return values;
}

static void
test_npy_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ct-npy-XXXXXX", NULL);
  const gint64 shapes[][4] = { { 5 }, { 2, 3 }, { 2, 3, 4 }, { 2, 3, 4, 5 } };
  const guint ndims_of[] = { 1, 2, 3, 4 };

  g_assert_nonnull (dir);
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      g_autofree char *path = g_strdup_printf ("%s/blob%u.npy", dir, s);
      g_autofree char *contents = NULL;
      g_autofree float *back = NULL;
      g_autofree float *v = NULL;
      g_autoptr(GError) error = NULL;
      gint64 dims[8];
      guint ndims;
      gsize n = 1, size;

      for (guint i = 0; i < ndims_of[s]; i++)
        n *= shapes[s][i];
      v = g_new (float, n);
      for (gsize i = 0; i < n; i++)
        v[i] = (float) i * 0.5f - 3.0f;
      v[0] = NAN;
      g_assert_true (ct_blob_save_npy (path, v, shapes[s], ndims_of[s], &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &contents, &size, NULL));
      back = read_npy ((const guint8 *) contents, size, dims, &ndims);
      g_assert_cmpuint (ndims, ==, ndims_of[s]);
      for (guint i = 0; i < ndims; i++)
        g_assert_cmpint (dims[i], ==, shapes[s][i]);
      g_assert_true (isnan (back[0]));
      g_assert_cmpmem (back + 1, (n - 1) * 4, v + 1, (n - 1) * 4);
      g_remove (path);
    }
  g_rmdir (dir);
}

/* A Python that has NumPy: the first python3 on PATH (which may be a
 * private one without it), else Debian's own, where python3-numpy goes. */
static const char *
python_with_numpy (void)
{
  static const char *const candidates[] = { "python3", "/usr/bin/python3" };

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      const char *argv[] = { candidates[i], "-c", "import numpy", NULL };
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;
      int status = 1;

      if (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                        &out, &err, &status, NULL)
          && g_spawn_check_wait_status (status, NULL))
        return candidates[i];
    }
  return NULL;
}

static void
test_npy_numpy (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const gint64 dims[] = { 2, 1, 2, 3 };
  const float v[] = { 0, 1, -2, 0.5f, 3, -0.25f, 1e-3f, NAN, INFINITY, -INFINITY, 7, 8 };
  const char *argv[] = { NULL, "-c",
    "import sys, numpy\n"
    "a = numpy.load(sys.argv[1])\n"
    "print(a.dtype, a.shape, a.flags['C_CONTIGUOUS'])\n"
    "print(' '.join(repr(float(x)) for x in a.ravel()))\n",
    NULL, NULL };
  int status;

  argv[0] = python_with_numpy ();
  if (argv[0] == NULL)
    {
      g_test_skip ("python3-numpy is not installed: NumPy does not read the .npy back here");
      return;
    }
  dir = g_dir_make_tmp ("ct-npy-XXXXXX", NULL);
  path = g_build_filename (dir, "blob.npy", NULL);
  g_assert_true (ct_blob_save_npy (path, v, dims, 4, &error));
  argv[3] = path;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("python3 failed: %s", err);
  g_assert_cmpstr (out, ==,
                   "float32 (2, 1, 2, 3) True\n"
                   "0.0 1.0 -2.0 0.5 3.0 -0.25 0.0010000000474974513 nan inf -inf 7.0 8.0\n");
  g_remove (path);
  g_rmdir (dir);
}

static void
test_npy_scalar_and_vector (void)
{
  const float one = 4.0f;
  const gint64 vec[] = { 1 };
  g_autoptr(GBytes) scalar = ct_blob_npy_bytes (&one, NULL, 0);
  g_autoptr(GBytes) vector = ct_blob_npy_bytes (&one, vec, 1);
  const char *s = g_bytes_get_data (scalar, NULL);
  const char *v = g_bytes_get_data (vector, NULL);

  g_assert_true (g_str_has_prefix (s + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"));
  g_assert_true (g_str_has_prefix (v + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }"));
  /* 10 + 55 + '\n' = 66 bytes: padded to 128. */
  g_assert_cmpuint (g_bytes_get_size (scalar), ==, 128 + 4);
}

static void
test_csv (void)
{
  const float v[] = { 0.5f, -2, 3, NAN, INFINITY, -INFINITY, 0.1f, 1e-10f, 100000000.0f,
                      0, -0.0f, 1.5f };
  const gint64 dims4[] = { 2, 2, 1, 3 };
  const gint64 dims2[] = { 3, 4 };
  const gint64 dims1[] = { 3 };
  g_autofree char *four = NULL;
  g_autofree char *two = NULL;
  g_autofree char *one = NULL;
  g_autofree char *old_locale = g_strdup (setlocale (LC_ALL, NULL));

  /* Numbers in the C locale whatever the user's (if a comma locale is
   * installed; the writer never reads the locale anyway). */
  setlocale (LC_ALL, "de_DE.UTF-8");
  four = ct_blob_csv_text (v, dims4, 4);
  two = ct_blob_csv_text (v, dims2, 2);
  one = ct_blob_csv_text (v, dims1, 1);
  setlocale (LC_ALL, old_locale);
  g_assert_cmpstr (four, ==,
                   "0.5,-2,3\n"
                   "nan,inf,-inf\n"
                   "0.100000001,1.00000001e-10,100000000\n"
                   "0,-0,1.5\n");
  g_assert_cmpstr (two, ==,
                   "0.5,-2,3,nan\n"
                   "inf,-inf,0.100000001,1.00000001e-10\n"
                   "100000000,0,-0,1.5\n");
  g_assert_cmpstr (one, ==, "0.5,-2,3\n");
}

static void
test_save_errors (void)
{
  g_autoptr(GError) error = NULL;
  const char *path = "/nonexistent-folder-ct/blob.csv";

  g_assert_false (ct_blob_save_csv (path, small, small_dims, 2, &error));
  g_assert_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_WRITE);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_clear_error (&error);
  g_assert_false (ct_blob_save_npy ("/nonexistent-folder-ct/blob.npy", small, small_dims, 2,
                                    &error));
  g_assert_true (strstr (error->message, "blob.npy") != NULL);
}

static void
test_png (void)
{
  g_autoptr(CtHeatmap) h = ct_heatmap_new ();
  g_autoptr(GBytes) bytes = g_bytes_new (small, sizeof small);
  g_autofree char *dir = g_dir_make_tmp ("ct-png-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "heatmap.png", NULL);
  g_autoptr(GError) error = NULL;
  const gint64 dims[] = { 1, 1, 2, 3 };
  cairo_surface_t *back;
  CtHeatmapLayout l;
  guint32 *px;
  int stride;

  g_assert_true (ct_heatmap_set_data (h, bytes, dims, 4, &error));
  g_assert_true (ct_heatmap_save_png (h, path, 320, 200, &error));
  g_assert_no_error (error);
  back = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (back), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (back), ==, 320);
  g_assert_cmpint (cairo_image_surface_get_height (back), ==, 200);
  px = (guint32 *) cairo_image_surface_get_data (back);
  stride = cairo_image_surface_get_stride (back) / 4;
  ct_heatmap_get_layout (h, 320, 200, &l);
  /* The diverging scale is +-3: 3, at cell (1, 1), is the red end; 0, at
   * cell (0, 0), is the centre colour. */
  g_assert_cmphex (px[(int) (l.y + l.cell_h * 1.5) * stride + (int) (l.x + l.cell_w * 1.5)]
                   & 0xffffff, ==, 0x67001f);
  g_assert_cmphex (px[(int) (l.y + 1) * stride + (int) (l.x + 1)] & 0xffffff, ==, 0xf7f7f7);
  /* Outside the tile: the white background. */
  g_assert_cmphex (px[1 * stride + 1] & 0xffffff, ==, 0xffffff);
  cairo_surface_destroy (back);
  g_remove (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/blob-export/npy-bytes", test_npy_bytes);
  g_test_add_func ("/widgets/blob-export/npy-files", test_npy_files);
  g_test_add_func ("/widgets/blob-export/npy-numpy", test_npy_numpy);
  g_test_add_func ("/widgets/blob-export/npy-scalar-and-vector", test_npy_scalar_and_vector);
  g_test_add_func ("/widgets/blob-export/csv", test_csv);
  g_test_add_func ("/widgets/blob-export/save-errors", test_save_errors);
  g_test_add_func ("/widgets/blob-export/png", test_png);
  return g_test_run ();
}
