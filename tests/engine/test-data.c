/* test-data.c: the data sources under the layers: CtDb on LMDB and
 * LevelDB (order, many commits, map growth, missing and existing
 * databases), Datum records (round trips, truncated and inconsistent
 * records), images (colour order, grey detection, resizing, the PNG
 * writer) and CtDataTransformer (scale, centre and seeded random crops,
 * mirror, mean file, mean values, and its errors). */
#include <string.h>
#include <unistd.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "data-test-util.h"
#include "data-transformer.h"
#include "datum.h"
#include "db.h"
#include "image.h"

static const CtDbBackend backends[] = { CT_DB_LMDB, CT_DB_LEVELDB };

static void
test_db_round_trip (void)
{
  for (gsize b = 0; b < G_N_ELEMENTS (backends); b++)
    {
      g_autofree char *dir = ct_test_make_temp_dir ();
      g_autofree char *path = g_build_filename (dir, "db", NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtDb) db = ct_db_open (path, backends[b], CT_DB_NEW, &error);
      g_autoptr (CtDbTxn) txn = NULL;
      g_autoptr (CtDbCursor) cursor = NULL;
      guint n = 0;

      g_assert_no_error (error);
      txn = ct_db_txn_new (db);
      /* written out of order, over three commits */
      for (guint i = 0; i < 2500; i++)
        {
          guint k = (i * 7919) % 2500;
          g_autofree char *key = g_strdup_printf ("%08u", k);
          g_autofree char *value = g_strdup_printf ("value %u", k * 3);

          ct_db_txn_put (txn, key, strlen (key), value, strlen (value));
          if (ct_db_txn_n_puts (txn) == 1000)
            g_assert_true (ct_db_txn_commit (txn, &error));
        }
      g_assert_true (ct_db_txn_commit (txn, &error));
      g_assert_no_error (error);
      g_clear_pointer (&txn, ct_db_txn_free);
      g_clear_pointer (&db, ct_db_free);

      db = ct_db_open (path, backends[b], CT_DB_READ, &error);
      g_assert_no_error (error);
      cursor = ct_db_cursor_new (db, &error);
      g_assert_no_error (error);
      for (; ct_db_cursor_valid (cursor); n++)
        {
          g_autofree char *want_key = g_strdup_printf ("%08u", n);
          g_autofree char *want_value = g_strdup_printf ("value %u", n * 3);
          g_autofree char *key = ct_db_cursor_key_text (cursor);
          gsize length;
          const guint8 *value = ct_db_cursor_value (cursor, &length);

          g_assert_cmpstr (key, ==, want_key);
          g_assert_cmpmem (value, length, want_value, strlen (want_value));
          g_assert_true (ct_db_cursor_next (cursor, &error));
        }
      g_assert_cmpuint (n, ==, 2500);
      /* back to the start */
      g_assert_true (ct_db_cursor_seek_first (cursor, &error));
      g_assert_true (ct_db_cursor_valid (cursor));
      g_clear_pointer (&cursor, ct_db_cursor_free);
      g_clear_pointer (&db, ct_db_free);
      ct_test_remove_tree (dir);
    }
}

/* Two readers of one database in one process (two solvers' Data layers,
 * or a TRAIN and a TEST net), the first reading while the second opens,
 * both see every record; through their own paths (one with "/./"). */
static void
test_db_lmdb_two_readers (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "db", NULL);
  g_autofree char *other_path = g_build_filename (dir, ".", "db", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) first = NULL;
  g_autoptr (CtDb) second = NULL;
  g_autoptr (CtDbCursor) a = NULL;
  g_autoptr (CtDbCursor) b = NULL;
  guint n_a = 0, n_b = 0;

  ct_test_write_db (path, CT_DB_LMDB, 20, 1, 2, 2);
  first = ct_db_open (path, CT_DB_LMDB, CT_DB_READ, &error);
  g_assert_no_error (error);
  a = ct_db_cursor_new (first, &error);
  g_assert_no_error (error);
  g_assert_true (ct_db_cursor_next (a, &error));
  second = ct_db_open (other_path, CT_DB_LMDB, CT_DB_READ, &error);
  g_assert_no_error (error);
  b = ct_db_cursor_new (second, &error);
  g_assert_no_error (error);
  for (n_a = 1; ct_db_cursor_valid (a); n_a++)
    g_assert_true (ct_db_cursor_next (a, &error));
  for (; ct_db_cursor_valid (b); n_b++)
    g_assert_true (ct_db_cursor_next (b, &error));
  g_assert_cmpuint (n_a, ==, 20);
  g_assert_cmpuint (n_b, ==, 20);
  /* the second still reads once the first is closed */
  g_clear_pointer (&a, ct_db_cursor_free);
  g_clear_pointer (&first, ct_db_free);
  g_assert_true (ct_db_cursor_seek_first (b, &error));
  g_assert_true (ct_db_cursor_valid (b));
  g_clear_pointer (&b, ct_db_cursor_free);
  g_clear_pointer (&second, ct_db_free);
  ct_test_remove_tree (dir);
}

/* Readers opening and closing one database at once from two threads: every
 * one sees every record (a second environment used to reset the lock file
 * under the first, whose reader then saw an empty database). */
static gpointer
open_and_count (gpointer data)
{
  const char *path = data;
  guint failures = 0;

  for (int i = 0; i < 300; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtDb) db = ct_db_open (path, CT_DB_LMDB, CT_DB_READ, &error);
      g_autoptr (CtDbCursor) cursor = NULL;
      guint n = 0;

      g_assert_no_error (error);
      cursor = ct_db_cursor_new (db, &error);
      g_assert_no_error (error);
      for (; ct_db_cursor_valid (cursor); n++)
        g_assert_true (ct_db_cursor_next (cursor, &error));
      failures += n != 20;
    }
  return GUINT_TO_POINTER (failures);
}

static void
test_db_lmdb_threads (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "db", NULL);
  GThread *other;
  guint failures;

  ct_test_write_db (path, CT_DB_LMDB, 20, 1, 2, 2);
  other = g_thread_new ("reader", open_and_count, path);
  failures = GPOINTER_TO_UINT (open_and_count (path));
  failures += GPOINTER_TO_UINT (g_thread_join (other));
  g_assert_cmpuint (failures, ==, 0);
  ct_test_remove_tree (dir);
}

/* A commit larger than LMDB's first memory map grows it. */
static void
test_db_lmdb_grows (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "big", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = ct_db_open (path, CT_DB_LMDB, CT_DB_NEW, &error);
  g_autoptr (CtDbTxn) txn = ct_db_txn_new (db);
  g_autoptr (CtDbCursor) cursor = NULL;
  gsize size = 1 << 20;
  g_autofree guint8 *value = g_malloc0 (size);
  guint n = 0;

  for (guint i = 0; i < 40; i++)
    {
      char key[8];

      g_snprintf (key, sizeof key, "%03u", i);
      value[0] = (guint8) i;
      ct_db_txn_put (txn, key, 3, value, size);
    }
  g_assert_true (ct_db_txn_commit (txn, &error));
  g_assert_no_error (error);
  cursor = ct_db_cursor_new (db, &error);
  for (; ct_db_cursor_valid (cursor); n++)
    {
      gsize length;
      const guint8 *v = ct_db_cursor_value (cursor, &length);

      g_assert_cmpuint (length, ==, size);
      g_assert_cmpuint (v[0], ==, n);
      ct_db_cursor_next (cursor, NULL);
    }
  g_assert_cmpuint (n, ==, 40);
  g_clear_pointer (&cursor, ct_db_cursor_free);
  g_clear_pointer (&db, ct_db_free);
  ct_test_remove_tree (dir);
}

static void
test_db_errors (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *missing = g_build_filename (dir, "nothing_lmdb", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.txt", NULL);
  g_autofree char *empty_dir = g_build_filename (dir, "empty", NULL);
  g_autofree char *made = g_build_filename (dir, "made", NULL);

  g_assert_true (g_file_set_contents (plain, "hello", -1, NULL));
  g_assert_cmpint (g_mkdir (empty_dir, 0755), ==, 0);
  for (gsize b = 0; b < G_N_ELEMENTS (backends); b++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtDb) db = NULL;

      db = ct_db_open (missing, backends[b], CT_DB_READ, &error);
      g_assert_null (db);
      g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND);
      g_assert_nonnull (strstr (error->message, missing));
      g_clear_error (&error);

      db = ct_db_open (plain, backends[b], CT_DB_READ, &error);
      g_assert_null (db);
      g_assert_nonnull (strstr (error->message, plain));
      g_clear_error (&error);

      /* a folder that holds no database */
      db = ct_db_open (empty_dir, backends[b], CT_DB_READ, &error);
      g_assert_null (db);
      g_assert_nonnull (strstr (error->message, empty_dir));
      g_test_message ("%s", error->message);
      g_clear_error (&error);

      /* NEW refuses what exists; an empty new database has no records */
      db = ct_db_open (empty_dir, backends[b], CT_DB_NEW, &error);
      g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_EXISTS);
      g_clear_error (&error);
      db = ct_db_open (made, backends[b], CT_DB_NEW, &error);
      g_assert_no_error (error);
      {
        g_autoptr (CtDbCursor) cursor = ct_db_cursor_new (db, &error);
        g_assert_no_error (error);
        g_assert_false (ct_db_cursor_valid (cursor));
      }
      g_clear_pointer (&db, ct_db_free);
      ct_test_remove_tree (made);
    }
  ct_test_remove_tree (dir);
}

static void
test_datum_round_trip (void)
{
  guint8 bytes[24];
  CtPixels px = { .channels = 2, .height = 3, .width = 4, .u8 = bytes };
  g_autoptr (GBytes) packed = NULL;
  g_autoptr (Caffe__Datum) datum = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (CtPixels) out = { 0 };
  gsize length;
  const guint8 *data;

  for (gsize i = 0; i < sizeof bytes; i++)
    bytes[i] = (guint8) (i * 10);
  packed = ct_datum_pack_raw (&px, 6);
  data = g_bytes_get_data (packed, &length);
  datum = ct_datum_parse (data, length, "db: record 'k'", &error);
  g_assert_no_error (error);
  g_assert_cmpint (datum->label, ==, 6);
  g_assert_true (ct_datum_get_pixels (datum, CT_IMAGE_NATIVE, "db: record 'k'", &out, &error));
  g_assert_cmpint (out.channels, ==, 2);
  g_assert_cmpint (out.height, ==, 3);
  g_assert_cmpint (out.width, ==, 4);
  g_assert_cmpmem (out.u8, 24, bytes, 24);
  g_assert_null (out.f32);
}

static void
test_datum_errors (void)
{
  guint8 bytes[24] = { 0 };
  CtPixels px = { .channels = 2, .height = 3, .width = 4, .u8 = bytes };
  g_autoptr (GBytes) packed = ct_datum_pack_raw (&px, 1);
  gsize length;
  const guint8 *data = g_bytes_get_data (packed, &length);
  g_autoptr (GError) error = NULL;
  Caffe__Datum *datum;

  /* cut short in the middle of the pixel bytes */
  datum = ct_datum_parse (data, length - 5, "train_lmdb: record '00000007'", &error);
  g_assert_null (datum);
  g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "train_lmdb: record '00000007'"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  /* a shape that the bytes do not fill */
  {
    Caffe__Datum d = CAFFE__DATUM__INIT;
    g_auto (CtPixels) out = { 0 };
    float values[5] = { 0 };

    d.channels = 1; d.height = 5; d.width = 5;
    d.data.data = bytes; d.data.len = 24;
    g_assert_false (ct_datum_get_pixels (&d, CT_IMAGE_NATIVE, "db: record 'a'", &out, &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "record 'a'"));
    g_assert_nonnull (strstr (error->message, "24"));
    g_clear_error (&error);

    d.data.len = 0;
    d.n_float_data = 5; d.float_data = values;
    g_assert_false (ct_datum_get_pixels (&d, CT_IMAGE_NATIVE, "db: record 'b'", &out, &error));
    g_assert_nonnull (strstr (error->message, "float_data"));
    g_clear_error (&error);

    d.n_float_data = 0;
    g_assert_false (ct_datum_get_pixels (&d, CT_IMAGE_NATIVE, "db: record 'c'", &out, &error));
    g_assert_nonnull (strstr (error->message, "no pixels"));
    g_clear_error (&error);

    d.channels = 0; d.data.len = 24;
    g_assert_false (ct_datum_get_pixels (&d, CT_IMAGE_NATIVE, "db: record 'd'", &out, &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE);
    g_clear_error (&error);

    /* an encoded record that is no image */
    d.encoded = TRUE;
    d.data.data = (guint8 *) "not a png at all";
    d.data.len = 16;
    g_assert_false (ct_datum_get_pixels (&d, CT_IMAGE_NATIVE, "db: record 'e'", &out, &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "record 'e'"));
    g_clear_error (&error);
  }
}

/* Colour order, grey detection and forcing, through the PNG writer and
 * gdk-pixbuf's own. */
static void
test_image_decode (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "rgb.png", NULL);
  g_autoptr (GError) error = NULL;
  g_auto (CtPixels) colour = { 0 };
  g_auto (CtPixels) grey = { 0 };
  g_auto (CtPixels) again = { 0 };
  g_auto (CtPixels) grey_png = { 0 };
  g_auto (CtPixels) forced = { 0 };
  g_autoptr (GBytes) png = NULL;
  gsize plane = 6 * 5;

  ct_test_write_png (path, 5, 6, 200, 10, 50);
  g_assert_true (ct_image_load (path, CT_IMAGE_NATIVE, 0, 0, &colour, &error));
  g_assert_no_error (error);
  g_assert_cmpint (colour.channels, ==, 3);
  g_assert_cmpint (colour.height, ==, 5);
  g_assert_cmpint (colour.width, ==, 6);
  /* blue, green, red planes; pixel (y=2, x=3) */
  g_assert_cmpuint (colour.u8[2 * 6 + 3], ==, 50 + 5);
  g_assert_cmpuint (colour.u8[plane + 2 * 6 + 3], ==, 10 + 3);
  g_assert_cmpuint (colour.u8[2 * plane + 2 * 6 + 3], ==, 200 + 2);

  /* forced grey: BT.601 weights */
  g_assert_true (ct_image_load (path, CT_IMAGE_GRAY, 0, 0, &grey, &error));
  g_assert_cmpint (grey.channels, ==, 1);
  g_assert_cmpuint (grey.u8[2 * 6 + 3], ==, (202 * 4899 + 13 * 9617 + 55 * 1868 + 8192) >> 14);

  /* our PNG writer: colour round trip, and grey files decode natively to
   * one channel, forced colour to three equal ones */
  png = ct_pixels_encode_png (&colour);
  g_assert_true (ct_image_decode (g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                                  CT_IMAGE_NATIVE, "png", &again, &error));
  g_assert_cmpint (again.channels, ==, 3);
  g_assert_cmpmem (again.u8, 3 * plane, colour.u8, 3 * plane);
  g_clear_pointer (&png, g_bytes_unref);
  png = ct_pixels_encode_png (&grey);
  g_assert_true (ct_image_decode (g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                                  CT_IMAGE_NATIVE, "png", &grey_png, &error));
  g_assert_cmpint (grey_png.channels, ==, 1);
  g_assert_cmpmem (grey_png.u8, plane, grey.u8, plane);
  g_assert_true (ct_image_decode (g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                                  CT_IMAGE_COLOR, "png", &forced, &error));
  g_assert_cmpint (forced.channels, ==, 3);
  for (int c = 0; c < 3; c++)
    g_assert_cmpmem (forced.u8 + c * plane, plane, grey.u8, plane);

  /* not an image, missing, empty */
  {
    g_auto (CtPixels) bad = { 0 };
    g_autofree char *text = g_build_filename (dir, "fake.png", NULL);
    g_autofree char *none = g_build_filename (dir, "none.png", NULL);

    g_assert_true (g_file_set_contents (text, "this is text", -1, NULL));
    g_assert_false (ct_image_load (text, CT_IMAGE_COLOR, 0, 0, &bad, &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, text));
    g_clear_error (&error);
    g_assert_false (ct_image_load (none, CT_IMAGE_COLOR, 0, 0, &bad, &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND);
    g_clear_error (&error);
    g_assert_false (ct_image_decode ((const guint8 *) "", 0, CT_IMAGE_COLOR, "r", &bad, &error));
    g_clear_error (&error);
    /* a PNG cut in half */
    g_assert_false (ct_image_decode (g_bytes_get_data (png, NULL), g_bytes_get_size (png) / 2,
                                     CT_IMAGE_NATIVE, "half.png", &bad, &error));
    g_assert_nonnull (strstr (error->message, "half.png"));
    g_clear_error (&error);
  }
  ct_test_remove_tree (dir);
}

static void
test_image_resize (void)
{
  guint8 row[2] = { 0, 255 };
  g_auto (CtPixels) px = { .channels = 1, .height = 1, .width = 2 };
  guint8 big[16];

  px.storage = g_memdup2 (row, 2);
  px.u8 = px.storage;
  /* centres aligned, edges clamped, as OpenCV's INTER_LINEAR */
  ct_pixels_resize (&px, 1, 4);
  g_assert_cmpint (px.width, ==, 4);
  g_assert_cmpuint (px.u8[0], ==, 0);
  g_assert_cmpuint (px.u8[1], ==, 64);
  g_assert_cmpuint (px.u8[2], ==, 191);
  g_assert_cmpuint (px.u8[3], ==, 255);

  /* halving averages 2×2 blocks */
  for (int i = 0; i < 16; i++)
    big[i] = (guint8) (i * 10);
  ct_pixels_clear (&px);
  px.channels = 1; px.height = 4; px.width = 4;
  px.storage = g_memdup2 (big, 16);
  px.u8 = px.storage;
  ct_pixels_resize (&px, 2, 2);
  g_assert_cmpuint (px.u8[0], ==, (0 + 10 + 40 + 50 + 2) / 4);
  g_assert_cmpuint (px.u8[3], ==, (100 + 110 + 140 + 150 + 2) / 4);
}

/* A 2×4×4 image whose value at (c, h, w) is 100c + 10h + w. */
static void
fill_image (guint8 *bytes)
{
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 4; h++)
      for (int w = 0; w < 4; w++)
        bytes[(c * 4 + h) * 4 + w] = (guint8) (100 * c + 10 * h + w);
}

static CtDataTransformer *
transformer (const Caffe__TransformationParameter *p, Caffe__Phase phase, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  CtDataTransformer *t = ct_data_transformer_new (p, phase, seed, &error);

  g_assert_no_error (error);
  return t;
}

static void
test_transform_scale_and_crop (void)
{
  guint8 bytes[32];
  CtPixels px = { .channels = 2, .height = 4, .width = 4, .u8 = bytes };
  Caffe__TransformationParameter p = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  g_autoptr (GError) error = NULL;
  gint64 shape[3];
  float out[32];

  fill_image (bytes);
  /* defaults: the pixels as floats */
  {
    g_autoptr (CtDataTransformer) t = transformer (NULL, CAFFE__PHASE__TRAIN, 1);

    g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
    for (int i = 0; i < 32; i++)
      g_assert_cmpfloat (out[i], ==, bytes[i]);
  }
  /* centre crop in TEST, scaled */
  p.crop_size = 2;
  p.scale = 0.5f;
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TEST, 1);

    g_assert_true (ct_data_transformer_shape (t, &px, shape, "x", &error));
    g_assert_cmpint (shape[0], ==, 2);
    g_assert_cmpint (shape[1], ==, 2);
    g_assert_cmpint (shape[2], ==, 2);
    g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
    g_assert_cmpfloat (out[0], ==, 0.5f * 11);
    g_assert_cmpfloat (out[3], ==, 0.5f * 22);
    g_assert_cmpfloat (out[4], ==, 0.5f * 111);
    g_assert_cmpfloat (out[7], ==, 0.5f * 122);
  }
  /* random crops in TRAIN: windows of the image, every offset reached,
   * the same seed the same crops */
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TRAIN, 42);
    g_autoptr (CtDataTransformer) twin = transformer (&p, CAFFE__PHASE__TRAIN, 42);
    gboolean seen[3][3] = { { FALSE } };
    guint n_seen = 0;

    for (int k = 0; k < 200; k++)
      {
        float other[8];
        int h_off, w_off;

        g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
        g_assert_true (ct_data_transformer_apply (twin, &px, other, "x", &error));
        g_assert_cmpmem (out, 8 * sizeof (float), other, 8 * sizeof (float));
        h_off = (int) (out[0] / 0.5f) / 10;
        w_off = (int) (out[0] / 0.5f) % 10;
        g_assert_cmpint (h_off, <=, 2);
        g_assert_cmpint (w_off, <=, 2);
        for (int c = 0; c < 2; c++)
          for (int h = 0; h < 2; h++)
            for (int w = 0; w < 2; w++)
              g_assert_cmpfloat (out[(c * 2 + h) * 2 + w], ==,
                                 0.5f * (float) (100 * c + 10 * (h + h_off) + w + w_off));
        if (!seen[h_off][w_off])
          n_seen++;
        seen[h_off][w_off] = TRUE;
      }
    g_assert_cmpuint (n_seen, ==, 9);
  }
  /* a crop larger than the image */
  p.crop_size = 5;
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TEST, 1);

    g_assert_false (ct_data_transformer_apply (t, &px, out, "db: record '9'", &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "record '9'"));
    g_assert_nonnull (strstr (error->message, "crop_size 5"));
  }
}

static void
test_transform_mirror (void)
{
  guint8 bytes[32];
  CtPixels px = { .channels = 2, .height = 4, .width = 4, .u8 = bytes };
  Caffe__TransformationParameter p = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  g_autoptr (CtDataTransformer) t = NULL;
  g_autoptr (GError) error = NULL;
  guint flipped = 0, kept = 0;
  float out[32];

  fill_image (bytes);
  p.mirror = TRUE;
  /* mirroring is random in TEST too, as in Caffe */
  t = transformer (&p, CAFFE__PHASE__TEST, 7);
  for (int k = 0; k < 100; k++)
    {
      gboolean is_flipped;

      g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
      is_flipped = out[0] == 3.0f;
      for (int c = 0; c < 2; c++)
        for (int h = 0; h < 4; h++)
          for (int w = 0; w < 4; w++)
            g_assert_cmpfloat (out[(c * 4 + h) * 4 + w], ==,
                               (float) (100 * c + 10 * h + (is_flipped ? 3 - w : w)));
      if (is_flipped)
        flipped++;
      else
        kept++;
    }
  g_assert_cmpuint (flipped, >, 20);
  g_assert_cmpuint (kept, >, 20);
}

static void
test_transform_means (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *mean_path = g_build_filename (dir, "mean.binaryproto", NULL);
  guint8 bytes[32];
  CtPixels px = { .channels = 2, .height = 4, .width = 4, .u8 = bytes };
  Caffe__TransformationParameter p = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  Caffe__BlobProto mean = CAFFE__BLOB_PROTO__INIT;
  g_autoptr (GError) error = NULL;
  float mean_data[32], out[32], values[2] = { 3.0f, 7.0f };

  fill_image (bytes);
  for (int i = 0; i < 32; i++)
    mean_data[i] = (float) i * 0.25f;
  mean.has_num = mean.has_channels = mean.has_height = mean.has_width = TRUE;
  mean.num = 1; mean.channels = 2; mean.height = 4; mean.width = 4;
  mean.n_data = 32; mean.data = mean_data;
  g_assert_true (ct_binary_write_file (&mean.base, mean_path, &error));

  /* mean file, with a centre crop: the mean at the uncropped position */
  p.mean_file = mean_path;
  p.crop_size = 2;
  p.scale = 2.0f;
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TEST, 1);

    g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
    for (int c = 0; c < 2; c++)
      for (int h = 0; h < 2; h++)
        for (int w = 0; w < 2; w++)
          {
            int src = (c * 4 + h + 1) * 4 + w + 1;
            g_assert_cmpfloat (out[(c * 2 + h) * 2 + w], ==,
                               ((float) bytes[src] - mean_data[src]) * 2.0f);
          }
  }
  /* a mean of another shape */
  {
    guint8 small[9] = { 0 };
    CtPixels other = { .channels = 1, .height = 3, .width = 3, .u8 = small };
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TEST, 1);

    g_assert_false (ct_data_transformer_apply (t, &other, out, "db: record '3'", &error));
    g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE);
    g_assert_nonnull (strstr (error->message, "mean.binaryproto"));
    g_clear_error (&error);
  }
  /* one mean value for all channels, then one per channel */
  p.mean_file = NULL;
  p.crop_size = 0;
  p.scale = 1.0f;
  p.n_mean_value = 1;
  p.mean_value = values;
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TRAIN, 1);

    g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
    for (int i = 0; i < 32; i++)
      g_assert_cmpfloat (out[i], ==, (float) bytes[i] - 3.0f);
  }
  p.n_mean_value = 2;
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TRAIN, 1);
    guint8 three[3] = { 10, 20, 30 };
    CtPixels rgb = { .channels = 3, .height = 1, .width = 1, .u8 = three };

    g_assert_true (ct_data_transformer_apply (t, &px, out, "x", &error));
    for (int i = 0; i < 32; i++)
      g_assert_cmpfloat (out[i], ==, (float) bytes[i] - values[i / 16]);
    /* two values for three channels */
    g_assert_false (ct_data_transformer_apply (t, &rgb, out, "db: record 'z'", &error));
    g_assert_nonnull (strstr (error->message, "mean_value"));
    g_clear_error (&error);
  }
  /* float input */
  {
    g_autoptr (CtDataTransformer) t = transformer (&p, CAFFE__PHASE__TRAIN, 1);
    float f[2] = { 1.5f, -2.0f };
    CtPixels fpx = { .channels = 2, .height = 1, .width = 1, .f32 = f };

    g_assert_true (ct_data_transformer_apply (t, &fpx, out, "x", &error));
    g_assert_cmpfloat (out[0], ==, 1.5f - 3.0f);
    g_assert_cmpfloat (out[1], ==, -2.0f - 7.0f);
  }
  /* errors made at construction */
  {
    CtDataTransformer *t;
    g_autofree char *missing = g_build_filename (dir, "none.binaryproto", NULL);

    p.mean_file = mean_path;
    t = ct_data_transformer_new (&p, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (t);
    g_assert_nonnull (strstr (error->message, "mean_file or mean_value"));
    g_clear_error (&error);
    p.n_mean_value = 0;
    p.mean_file = missing;
    t = ct_data_transformer_new (&p, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (t);
    g_assert_nonnull (strstr (error->message, "none.binaryproto"));
    g_clear_error (&error);
    p.mean_file = NULL;
    p.force_color = p.force_gray = TRUE;
    t = ct_data_transformer_new (&p, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (t);
    g_assert_nonnull (strstr (error->message, "force_gray"));
    g_clear_error (&error);
  }
  ct_test_remove_tree (dir);
}

/* LMDB reads through a memory map: a data.mdb cut short would kill the
 * process with SIGBUS on the first page past its end. A cut file is
 * refused when it is opened, and a file cut while a cursor reads it stops
 * the cursor with an error naming the database and the last record. */
static char *
lmdb_with_pages (const char *dir, guint records)
{
  char *path = g_build_filename (dir, "pages_lmdb", NULL);

  /* 28 x 28 records of a byte each: about 800 bytes, five to a page */
  ct_test_write_db (path, CT_DB_LMDB, records, 1, 28, 28);
  return path;
}

static void
cut_in_half (const char *db_path)
{
  g_autofree char *data = g_build_filename (db_path, "data.mdb", NULL);
  GStatBuf st;

  g_assert_cmpint (g_stat (data, &st), ==, 0);
  g_assert_cmpint (truncate (data, st.st_size / 2), ==, 0);
}

static void
test_db_lmdb_truncated (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = lmdb_with_pages (dir, 2000);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = NULL;

  cut_in_half (path);
  db = ct_db_open (path, CT_DB_LMDB, CT_DB_READ, &error);
  g_assert_null (db);
  g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "cut short"));
  g_test_message ("%s", error->message);
  ct_test_remove_tree (dir);
}

static void
test_db_lmdb_cut_while_open (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = lmdb_with_pages (dir, 2000);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = ct_db_open (path, CT_DB_LMDB, CT_DB_READ, &error);
  g_autoptr (CtDbCursor) cursor = NULL;
  guint read = 0;

  g_assert_no_error (error);
  cursor = ct_db_cursor_new (db, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 10; i++, read++)
    g_assert_true (ct_db_cursor_next (cursor, &error));
  cut_in_half (path);
  /* every record left would read a page: the next move already refuses */
  while (ct_db_cursor_next (cursor, &error))
    read++;
  g_assert_cmpuint (read, <, 2000);
  g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "after record"));
  g_assert_false (ct_db_cursor_valid (cursor));
  g_test_message ("%s", error->message);
  ct_test_remove_tree (dir);
}

/* LevelDB's tables: the largest one cut in half, before the database is
 * opened, gives an error naming the database, whether at opening or at
 * reading. (Opening the new database once moves its records from the log
 * into a table; a log cut short is a batch that was never committed, which
 * LevelDB drops by design.) */
static void
test_db_leveldb_truncated (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "pages_leveldb", NULL);
  g_autoptr (GDir) listing = NULL;
  g_autofree char *largest = NULL;
  goffset largest_size = 0;
  const char *name;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = NULL;

  ct_test_write_db (path, CT_DB_LEVELDB, 3000, 1, 28, 28);
  db = ct_db_open (path, CT_DB_LEVELDB, CT_DB_READ, &error);
  g_assert_no_error (error);
  g_clear_pointer (&db, ct_db_free);
  listing = g_dir_open (path, 0, NULL);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_stat (file, &st) == 0 && st.st_size > largest_size)
        {
          largest_size = st.st_size;
          g_free (largest);
          largest = g_steal_pointer (&file);
        }
    }
  g_assert_nonnull (largest);
  g_assert_cmpint (truncate (largest, largest_size / 2), ==, 0);
  db = ct_db_open (path, CT_DB_LEVELDB, CT_DB_READ, &error);
  if (db != NULL)
    {
      g_autoptr (CtDbCursor) cursor = ct_db_cursor_new (db, &error);
      guint read = 0;

      while (cursor != NULL && ct_db_cursor_valid (cursor) && ct_db_cursor_next (cursor, &error))
        read++;
      g_test_message ("read %u records of 3000", read);
      g_assert_cmpuint (read, <, 3000);
    }
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, path));
  g_test_message ("%s", error->message);
  ct_test_remove_tree (dir);
}

/* PNG's chunk checksum (CRC-32, polynomial 0xEDB88320), for a patched
 * header that the decoder must still accept as well formed. */
static guint32
png_crc (const guint8 *bytes, gsize length)
{
  guint32 crc = 0xffffffffu;

  for (gsize i = 0; i < length; i++)
    {
      crc ^= bytes[i];
      for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    }
  return crc ^ 0xffffffffu;
}

static void
put_be32 (guint8 *p, guint32 v)
{
  p[0] = v >> 24, p[1] = v >> 16, p[2] = v >> 8, p[3] = v;
}

/* A JPEG cut in half is an error, not grey rows; a PNG whose header claims
 * 100000 x 100000 pixels is refused from the header, before 30 GB of pixels
 * are asked for. */
static void
test_image_bad_files (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *png_path = g_build_filename (dir, "small.png", NULL);
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autofree char *jpeg = NULL;
  gsize jpeg_length = 0;
  g_autoptr (GError) error = NULL;
  g_auto (CtPixels) pixels = { 0 };
  g_autofree char *png = NULL;
  gsize png_length = 0;
  guint8 *ihdr;

  ct_test_write_png (png_path, 40, 30, 200, 10, 50);
  pixbuf = gdk_pixbuf_new_from_file (png_path, &error);
  g_assert_no_error (error);
  g_assert_true (gdk_pixbuf_save_to_buffer (pixbuf, &jpeg, &jpeg_length, "jpeg", &error, NULL));
  g_assert_true (ct_image_decode ((guint8 *) jpeg, jpeg_length, CT_IMAGE_NATIVE, "whole.jpg",
                                  &pixels, &error));
  g_assert_no_error (error);
  ct_pixels_clear (&pixels);
  g_assert_false (ct_image_decode ((guint8 *) jpeg, jpeg_length / 2, CT_IMAGE_NATIVE, "half.jpg",
                                   &pixels, &error));
  g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "half.jpg"));
  g_assert_nonnull (strstr (error->message, "cut short"));
  g_clear_error (&error);

  g_assert_true (g_file_get_contents (png_path, &png, &png_length, NULL));
  ihdr = (guint8 *) png + 12; /* "IHDR", width, height, ... */
  g_assert_cmpmem (ihdr, 4, "IHDR", 4);
  put_be32 (ihdr + 4, 100000);
  put_be32 (ihdr + 8, 100000);
  put_be32 (ihdr + 17, png_crc (ihdr, 17));
  g_assert_false (ct_image_decode ((guint8 *) png, png_length, CT_IMAGE_NATIVE, "huge.png",
                                   &pixels, &error));
  g_assert_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "huge.png"));
  g_assert_nonnull (strstr (error->message, "100000"));
  g_test_message ("%s", error->message);
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/data/db/round-trip", test_db_round_trip);
  g_test_add_func ("/engine/data/db/lmdb-grows", test_db_lmdb_grows);
  g_test_add_func ("/engine/data/db/errors", test_db_errors);
  g_test_add_func ("/engine/data/db/lmdb-truncated", test_db_lmdb_truncated);
  g_test_add_func ("/engine/data/db/lmdb-two-readers", test_db_lmdb_two_readers);
  g_test_add_func ("/engine/data/db/lmdb-threads", test_db_lmdb_threads);
  g_test_add_func ("/engine/data/db/lmdb-cut-while-open", test_db_lmdb_cut_while_open);
  g_test_add_func ("/engine/data/db/leveldb-truncated", test_db_leveldb_truncated);
  g_test_add_func ("/engine/data/datum/round-trip", test_datum_round_trip);
  g_test_add_func ("/engine/data/datum/errors", test_datum_errors);
  g_test_add_func ("/engine/data/image/decode", test_image_decode);
  g_test_add_func ("/engine/data/image/resize", test_image_resize);
  g_test_add_func ("/engine/data/image/bad-files", test_image_bad_files);
  g_test_add_func ("/engine/data/transform/scale-and-crop", test_transform_scale_and_crop);
  g_test_add_func ("/engine/data/transform/mirror", test_transform_mirror);
  g_test_add_func ("/engine/data/transform/means", test_transform_means);
  return g_test_run ();
}
