/* data-test-util.c: helpers of the data tests (see data-test-util.h). */
#include <string.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>

#include "data-test-util.h"
#include "datum.h"
#include "text-format.h"
#include "test-files.h"

char *
ct_test_make_temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ct-data-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
ct_test_write_db (const char *path, CtDbBackend backend, guint n, int c, int h, int w)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = ct_db_open (path, backend, CT_DB_NEW, &error);
  g_autoptr (CtDbTxn) txn = NULL;
  gsize size = (gsize) c * (gsize) h * (gsize) w;
  g_autofree guint8 *pixels = g_malloc (size);

  g_assert_no_error (error);
  txn = ct_db_txn_new (db);
  for (guint i = 0; i < n; i++)
    {
      CtPixels px = { .channels = c, .height = h, .width = w, .u8 = pixels };
      g_autoptr (GBytes) value = NULL;
      char key[16];
      gsize length;
      const void *data;

      for (gsize k = 0; k < size; k++)
        pixels[k] = ct_test_pixel (i, k);
      value = ct_datum_pack_raw (&px, (int) (i % 7));
      data = g_bytes_get_data (value, &length);
      g_snprintf (key, sizeof key, "%08u", i);
      ct_db_txn_put (txn, key, strlen (key), data, length);
    }
  g_assert_true (ct_db_txn_commit (txn, &error));
  g_assert_no_error (error);
}

void
ct_test_put_record (const char *path, CtDbBackend backend, const char *key, GBytes *value)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = ct_db_open (path, backend, CT_DB_WRITE, &error);
  g_autoptr (CtDbTxn) txn = NULL;
  gsize length;
  const void *data = g_bytes_get_data (value, &length);

  g_assert_no_error (error);
  txn = ct_db_txn_new (db);
  ct_db_txn_put (txn, key, strlen (key), data, length);
  g_assert_true (ct_db_txn_commit (txn, &error));
  g_assert_no_error (error);
}

void
ct_test_write_png (const char *path, int h, int w, guint8 r0, guint8 g0, guint8 b0)
{
  g_autoptr (GdkPixbuf) pixbuf = gdk_pixbuf_new (GDK_COLORSPACE_RGB, FALSE, 8, w, h);
  g_autoptr (GError) error = NULL;
  int stride = gdk_pixbuf_get_rowstride (pixbuf);
  guint8 *pixels = gdk_pixbuf_get_pixels (pixbuf);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        guint8 *p = pixels + y * stride + x * 3;
        p[0] = (guint8) (r0 + y);
        p[1] = (guint8) (g0 + x);
        p[2] = (guint8) (b0 + x + y);
      }
  g_assert_true (gdk_pixbuf_save (pixbuf, path, "png", &error, NULL));
  g_assert_no_error (error);
}

CtNet *
ct_test_build_net (const char *text, Caffe__Phase phase, guint64 seed, GError **error)
{
  g_autoptr (GError) local = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                         "test.prototxt", CT_TEXT_STRICT, &local);
  CtNet *net;

  g_assert_no_error (local);
  net = ct_net_new ((Caffe__NetParameter *) msg, phase, 0, NULL, seed, error);
  protobuf_c_message_free_unpacked (msg, NULL);
  return net;
}
