/* test-data-layers.c: the Data, ImageData and MemoryData layers inside
 * nets: pixels and labels as written, batches wrapping around, the
 * prefetch thread giving the same batches as loading in forward, seeded
 * crops and shuffles that repeat, rand_skip, encoded records, and every
 * bad input (missing database, corrupt record, a shape that changes inside
 * a batch, a bad image or list line) as an error naming the file and
 * record. */
#include <string.h>
#include <glib/gstdio.h>

#include "data-test-util.h"
#include "datum.h"
#include "memory-data.h"
#include "net.h"

static char *
data_net (const char *source, const char *backend, guint batch, const char *transform,
          const char *extra)
{
  return g_strdup_printf ("name: 'd'\n"
                          "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
                          "  transform_param { %s }\n"
                          "  data_param { source: '%s' backend: %s batch_size: %u %s } }\n",
                          transform, source, backend, batch, extra);
}

static CtNet *
build_ok (const char *text, Caffe__Phase phase, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  CtNet *net = ct_test_build_net (text, phase, seed, &error);

  g_assert_no_error (error);
  g_assert_nonnull (net);
  return net;
}

static void
forward_ok (CtNet *net)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);
}

/* Records 0..9 of 2×3×4 read back in three batches of 4 (the third wraps
 * to records 0 and 1), scaled, on both backends and with or without the
 * prefetch thread. */
static void
test_data_round_trip (void)
{
  const struct { CtDbBackend backend; const char *name; } kinds[] = {
    { CT_DB_LMDB, "LMDB" }, { CT_DB_LEVELDB, "LEVELDB" },
  };

  for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint prefetch = 0; prefetch <= 4; prefetch += 4)
      {
        g_autofree char *dir = ct_test_make_temp_dir ();
        g_autofree char *path = g_build_filename (dir, "db", NULL);
        g_autofree char *extra = g_strdup_printf ("prefetch: %u", prefetch);
        g_autofree char *text = NULL;
        g_autoptr (CtNet) net = NULL;
        guint checked = 0;

        ct_test_write_db (path, kinds[k].backend, 10, 2, 3, 4);
        text = data_net (path, kinds[k].name, 4, "scale: 0.5", extra);
        net = build_ok (text, CAFFE__PHASE__TEST, 1);
        for (guint b = 0; b < 3; b++)
          {
            CtBlob *data = ct_net_blob_by_name (net, "data");
            CtBlob *label = ct_net_blob_by_name (net, "label");
            const float *d, *l;

            forward_ok (net);
            g_assert_cmpint (ct_blob_num_axes (data), ==, 4);
            g_assert_cmpint (ct_blob_get_shape (data)[0], ==, 4);
            g_assert_cmpint (ct_blob_get_shape (data)[1], ==, 2);
            g_assert_cmpint (ct_blob_get_shape (data)[2], ==, 3);
            g_assert_cmpint (ct_blob_get_shape (data)[3], ==, 4);
            g_assert_cmpint (ct_blob_num_axes (label), ==, 1);
            d = ct_blob_cpu_data (data, NULL);
            l = ct_blob_cpu_data (label, NULL);
            for (guint n = 0; n < 4; n++)
              {
                guint record = (b * 4 + n) % 10;

                g_assert_cmpfloat (l[n], ==, (float) (record % 7));
                for (gsize i = 0; i < 24; i++)
                  g_assert_cmpfloat (d[n * 24 + i], ==, 0.5f * ct_test_pixel (record, i));
                checked++;
              }
          }
        g_assert_cmpuint (checked, ==, 12);
        g_clear_pointer (&net, ct_net_free);
        ct_test_remove_tree (dir);
      }
}

/* Copies of every batch of FORWARDS forwards. */
static GPtrArray *
collect_batches (const char *text, Caffe__Phase phase, guint64 seed, guint forwards)
{
  g_autoptr (CtNet) net = build_ok (text, phase, seed);
  GPtrArray *batches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

  for (guint f = 0; f < forwards; f++)
    {
      CtBlob *data = ct_net_blob_by_name (net, "data");
      CtBlob *label = ct_net_blob_by_name (net, "label");

      forward_ok (net);
      g_ptr_array_add (batches, g_bytes_new (ct_blob_cpu_data (data, NULL),
                                             sizeof (float) * (gsize) ct_blob_count (data)));
      g_ptr_array_add (batches, g_bytes_new (ct_blob_cpu_data (label, NULL),
                                             sizeof (float) * (gsize) ct_blob_count (label)));
    }
  return batches;
}

static void
assert_same_batches (GPtrArray *a, GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    g_assert_true (g_bytes_equal (a->pdata[i], b->pdata[i]));
}

/* With random crops, mirror and rand_skip in TRAIN, the prefetch thread
 * (deep or shallow) gives exactly the batches forward-time loading gives,
 * and another seed gives others. */
static void
test_data_prefetch_same_batches (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "db", NULL);
  const char *transform = "mirror: true crop_size: 3 scale: 0.1";
  g_autofree char *sync = NULL, *deep = NULL, *shallow = NULL;
  g_autoptr (GPtrArray) a = NULL, b = NULL, c = NULL, other = NULL;

  ct_test_write_db (path, CT_DB_LMDB, 23, 3, 5, 6);
  sync = data_net (path, "LMDB", 5, transform, "prefetch: 0 rand_skip: 10");
  deep = data_net (path, "LMDB", 5, transform, "prefetch: 6 rand_skip: 10");
  shallow = data_net (path, "LMDB", 5, transform, "prefetch: 1 rand_skip: 10");
  a = collect_batches (sync, CAFFE__PHASE__TRAIN, 77, 12);
  b = collect_batches (deep, CAFFE__PHASE__TRAIN, 77, 12);
  c = collect_batches (shallow, CAFFE__PHASE__TRAIN, 77, 12);
  assert_same_batches (a, b);
  assert_same_batches (a, c);
  g_assert_cmpuint (a->len, ==, 24);
  other = collect_batches (deep, CAFFE__PHASE__TRAIN, 78, 12);
  {
    gboolean differs = FALSE;
    for (guint i = 0; i < a->len; i++)
      differs |= !g_bytes_equal (a->pdata[i], other->pdata[i]);
    g_assert_true (differs);
  }
  ct_test_remove_tree (dir);
}

/* rand_skip starts somewhere below it; without it, at record 0. */
static void
test_data_rand_skip (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "db", NULL);
  g_autoptr (GHashTable) starts = g_hash_table_new (NULL, NULL);

  ct_test_write_db (path, CT_DB_LMDB, 20, 1, 2, 2);
  for (guint64 seed = 1; seed <= 40; seed++)
    {
      g_autofree char *text = data_net (path, "LMDB", 1, "", "rand_skip: 6");
      g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TRAIN, seed);
      const float *d;
      guint start;

      forward_ok (net);
      d = ct_blob_cpu_data (ct_net_blob_by_name (net, "data"), NULL);
      for (start = 0; start < 20 && d[0] != ct_test_pixel (start, 0); start++)
        ;
      g_assert_cmpuint (start, <, 6);
      g_hash_table_add (starts, GUINT_TO_POINTER (start + 1));
    }
  g_assert_cmpuint (g_hash_table_size (starts), >=, 4);
  ct_test_remove_tree (dir);
}

/* Encoded PNG records, decoded natively (grey stays one channel) or forced
 * to colour. */
static void
test_data_encoded (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "db", NULL);
  guint8 grey[12];
  CtPixels px = { .channels = 1, .height = 3, .width = 4, .u8 = grey };

  for (int i = 0; i < 12; i++)
    grey[i] = (guint8) (i * 20);
  for (int r = 0; r < 3; r++)
    {
      g_autoptr (GBytes) png = ct_pixels_encode_png (&px);
      g_autoptr (GBytes) datum = ct_datum_pack_encoded (png, r + 1);
      g_autofree char *key = g_strdup_printf ("%08d_img%d.png", r, r);

      ct_test_put_record (path, CT_DB_LMDB, key, datum);
    }
  for (int forced = 0; forced < 2; forced++)
    {
      g_autofree char *text = data_net (path, "LMDB", 3, forced ? "force_color: true" : "", "");
      g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TEST, 1);
      CtBlob *data = ct_net_blob_by_name (net, "data");
      const float *d, *l;
      int channels = forced ? 3 : 1;

      forward_ok (net);
      g_assert_cmpint (ct_blob_get_shape (data)[1], ==, channels);
      d = ct_blob_cpu_data (data, NULL);
      l = ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL);
      for (int n = 0; n < 3; n++)
        {
          g_assert_cmpfloat (l[n], ==, n + 1);
          for (int c = 0; c < channels; c++)
            for (int i = 0; i < 12; i++)
              g_assert_cmpfloat (d[(n * channels + c) * 12 + i], ==, grey[i]);
        }
    }
  ct_test_remove_tree (dir);
}

static void
assert_forward_fails (CtNet *net, const char *const *needles)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_net_forward (net, NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  for (; *needles != NULL; needles++)
    g_assert_nonnull (strstr (error->message, *needles));
}

static void
test_data_bad_inputs (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *missing = g_build_filename (dir, "missing_lmdb", NULL);
  g_autofree char *path = g_build_filename (dir, "db", NULL);
  g_autofree char *empty = g_build_filename (dir, "empty", NULL);
  g_autoptr (GError) error = NULL;

  /* a missing database fails the build, naming the layer and the path */
  for (int b = 0; b < 2; b++)
    {
      g_autofree char *text = data_net (missing, b ? "LEVELDB" : "LMDB", 2, "", "");
      CtNet *net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);

      g_assert_null (net);
      g_assert_nonnull (strstr (error->message, "layer 'data' (Data)"));
      g_assert_nonnull (strstr (error->message, missing));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
    }
  /* no source, no batch size, an empty database */
  {
    CtNet *net = ct_test_build_net ("layer { name: 'data' type: 'Data' top: 'data' "
                                    "data_param { batch_size: 2 } }",
                                    CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (net);
    g_assert_nonnull (strstr (error->message, "source"));
    g_clear_error (&error);
  }
  {
    g_autofree char *text = NULL;
    CtNet *net;

    ct_test_write_db (empty, CT_DB_LMDB, 0, 1, 1, 1);
    text = data_net (empty, "LMDB", 0, "", "");
    net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (net);
    g_assert_nonnull (strstr (error->message, "batch_size"));
    g_clear_error (&error);
    g_free (text);
    text = data_net (empty, "LMDB", 2, "", "");
    net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (net);
    g_assert_nonnull (strstr (error->message, "no records"));
    g_clear_error (&error);
  }

  /* records 0-3 fine, 4 of another shape, 5 truncated, 6 fine; batches of 2 */
  ct_test_write_db (path, CT_DB_LMDB, 4, 1, 3, 3);
  {
    guint8 bytes[16] = { 0 };
    CtPixels px = { .channels = 1, .height = 4, .width = 4, .u8 = bytes };
    CtPixels ok9 = { .channels = 1, .height = 3, .width = 3, .u8 = bytes };
    g_autoptr (GBytes) other = ct_datum_pack_raw (&px, 1);
    g_autoptr (GBytes) fine = ct_datum_pack_raw (&ok9, 1);
    g_autoptr (GBytes) cut = g_bytes_new_from_bytes (fine, 0, g_bytes_get_size (fine) - 4);

    ct_test_put_record (path, CT_DB_LMDB, "00000004_other", fine);
    ct_test_put_record (path, CT_DB_LMDB, "00000005_other", other);
    ct_test_put_record (path, CT_DB_LMDB, "00000006_cut", fine);
    ct_test_put_record (path, CT_DB_LMDB, "00000007_cut", cut);
  }
  for (guint prefetch = 0; prefetch <= 3; prefetch += 3)
    {
      g_autofree char *extra = g_strdup_printf ("prefetch: %u", prefetch);
      g_autofree char *text = data_net (path, "LMDB", 2, "", extra);
      g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TRAIN, 1);

      forward_ok (net);
      forward_ok (net);
      assert_forward_fails (net, (const char *const[]) { "layer 'data' (Data)", path,
                                                         "record '00000005_other'", "4×4",
                                                         NULL });
      /* the failure sticks */
      assert_forward_fails (net, (const char *const[]) { "00000005_other", NULL });
    }
  /* a truncated record: batches of 1, the eighth forward meets it */
  {
    g_autofree char *text = data_net (path, "LMDB", 1, "", "prefetch: 2");
    g_autoptr (CtNet) skip = build_ok (text, CAFFE__PHASE__TRAIN, 1);

    for (int i = 0; i < 7; i++)
      forward_ok (skip);
    assert_forward_fails (skip, (const char *const[]) { "record '00000007_cut'",
                                                        "truncated", NULL });
  }
  ct_test_remove_tree (dir);
}

/* Images listed with labels: colour planes in blue-green-red order, grey,
 * resizing, root_folder, seeded shuffles that cover every image per pass. */
static void
test_image_data (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *list = g_build_filename (dir, "list.txt", NULL);
  g_autofree char *root = g_strconcat (dir, G_DIR_SEPARATOR_S, NULL);
  g_autoptr (GString) lines = g_string_new (NULL);

  for (int i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("img %d.png", i); /* a space in the name */
      g_autofree char *path = g_build_filename (dir, name, NULL);

      ct_test_write_png (path, 4, 6, (guint8) (10 * i), 100, 200);
      g_string_append_printf (lines, "%s %d\n", name, 10 + i);
    }
  g_assert_true (g_file_set_contents (list, lines->str, -1, NULL));

  /* colour, in order */
  {
    g_autofree char *text = g_strdup_printf (
      "layer { name: 'data' type: 'ImageData' top: 'data' top: 'label'\n"
      "  image_data_param { source: '%s' root_folder: '%s' batch_size: 3 } }", list, root);
    g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TEST, 1);
    CtBlob *data = ct_net_blob_by_name (net, "data");

    for (int b = 0; b < 2; b++)
      {
        const float *d, *l;

        forward_ok (net);
        g_assert_cmpint (ct_blob_get_shape (data)[1], ==, 3);
        g_assert_cmpint (ct_blob_get_shape (data)[2], ==, 4);
        g_assert_cmpint (ct_blob_get_shape (data)[3], ==, 6);
        d = ct_blob_cpu_data (data, NULL);
        l = ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL);
        for (int n = 0; n < 3; n++)
          {
            int i = (b * 3 + n) % 5;
            const float *img = d + n * 72;

            g_assert_cmpfloat (l[n], ==, 10 + i);
            /* (y=1, x=2): blue 200+3, green 100+2, red 10i+1 */
            g_assert_cmpfloat (img[0 * 24 + 1 * 6 + 2], ==, 203);
            g_assert_cmpfloat (img[1 * 24 + 1 * 6 + 2], ==, 102);
            g_assert_cmpfloat (img[2 * 24 + 1 * 6 + 2], ==, 10 * i + 1);
          }
      }
  }
  /* grey and resized */
  {
    g_autofree char *text = g_strdup_printf (
      "layer { name: 'data' type: 'ImageData' top: 'data' top: 'label'\n"
      "  image_data_param { source: '%s' root_folder: '%s' batch_size: 2 is_color: false "
      "  new_height: 8 new_width: 3 } }", list, root);
    g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TEST, 1);
    CtBlob *data = ct_net_blob_by_name (net, "data");

    forward_ok (net);
    g_assert_cmpint (ct_blob_get_shape (data)[1], ==, 1);
    g_assert_cmpint (ct_blob_get_shape (data)[2], ==, 8);
    g_assert_cmpint (ct_blob_get_shape (data)[3], ==, 3);
  }
  /* shuffled: each pass of 5 holds every label once; a seed repeats */
  {
    g_autofree char *text = g_strdup_printf (
      "layer { name: 'data' type: 'ImageData' top: 'data' top: 'label'\n"
      "  image_data_param { source: '%s' root_folder: '%s' batch_size: 5 shuffle: true } }",
      list, root);
    g_autoptr (GPtrArray) a = collect_batches (text, CAFFE__PHASE__TRAIN, 5, 3);
    g_autoptr (GPtrArray) b = collect_batches (text, CAFFE__PHASE__TRAIN, 5, 3);
    gboolean any_unsorted = FALSE;

    assert_same_batches (a, b);
    for (guint f = 0; f < 3; f++)
      {
        const float *l = g_bytes_get_data (a->pdata[2 * f + 1], NULL);
        guint seen = 0;

        for (int n = 0; n < 5; n++)
          {
            seen |= 1u << ((int) l[n] - 10);
            any_unsorted |= l[n] != 10 + n;
          }
        g_assert_cmpuint (seen, ==, 31);
      }
    g_assert_true (any_unsorted);
  }
  ct_test_remove_tree (dir);
}

static void
test_image_data_bad_inputs (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *list = g_build_filename (dir, "list.txt", NULL);
  g_autofree char *a = g_build_filename (dir, "a.png", NULL);
  g_autofree char *big = g_build_filename (dir, "big.png", NULL);
  g_autofree char *fake = g_build_filename (dir, "fake.png", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  CtNet *failed;

  ct_test_write_png (a, 4, 4, 1, 2, 3);
  ct_test_write_png (big, 5, 5, 1, 2, 3);
  g_assert_true (g_file_set_contents (fake, "GIF? no, text", -1, NULL));

  /* a list line without a label */
  contents = g_strdup_printf ("%s 1\n%s\n", a, a);
  g_assert_true (g_file_set_contents (list, contents, -1, NULL));
  {
    g_autofree char *text = g_strdup_printf (
      "layer { name: 'img' type: 'ImageData' top: 'data' top: 'label'\n"
      "  image_data_param { source: '%s' batch_size: 2 } }", list);

    failed = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (failed);
    g_assert_nonnull (strstr (error->message, "list.txt:2"));
    g_test_message ("%s", error->message);
    g_clear_error (&error);

    /* the first image missing: setup fails naming it */
    g_free (contents);
    contents = g_strdup_printf ("%s/none.png 1\n", dir);
    g_assert_true (g_file_set_contents (list, contents, -1, NULL));
    failed = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (failed);
    g_assert_nonnull (strstr (error->message, "none.png"));
    g_assert_nonnull (strstr (error->message, "list.txt:1"));
    g_clear_error (&error);

    /* a fake image at line 3, then an image of another size at line 2 */
    g_free (contents);
    contents = g_strdup_printf ("%s 1\n%s 2\n%s 3\n", a, a, fake);
    g_assert_true (g_file_set_contents (list, contents, -1, NULL));
    {
      g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TRAIN, 1);

      forward_ok (net);
      assert_forward_fails (net, (const char *const[]) { "layer 'img' (ImageData)",
                                                         "list.txt:3", "fake.png", NULL });
    }
    g_free (contents);
    contents = g_strdup_printf ("%s 1\n%s 2\n", a, big);
    g_assert_true (g_file_set_contents (list, contents, -1, NULL));
    {
      g_autoptr (CtNet) net = build_ok (text, CAFFE__PHASE__TRAIN, 1);

      assert_forward_fails (net, (const char *const[]) { "list.txt:2", "big.png", "5×5",
                                                         NULL });
    }
    /* new_height without new_width */
    g_free (text);
    text = g_strdup_printf ("layer { name: 'img' type: 'ImageData' top: 'data'\n"
                            "  image_data_param { source: '%s' new_height: 4 } }", list);
    failed = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (failed);
    g_assert_nonnull (strstr (error->message, "new_width"));
    g_clear_error (&error);
  }
  ct_test_remove_tree (dir);
}

static void
test_memory_data (void)
{
  g_autoptr (CtNet) net = build_ok (
    "layer { name: 'mem' type: 'MemoryData' top: 'data' top: 'label'\n"
    "  memory_data_param { batch_size: 2 channels: 1 height: 2 width: 3 } }",
    CAFFE__PHASE__TRAIN, 1);
  CtLayer *layer = ct_net_layer_by_name (net, "mem");
  g_autoptr (GError) error = NULL;
  float data[6 * 6], labels[6];

  for (int i = 0; i < 36; i++)
    data[i] = (float) i;
  for (int i = 0; i < 6; i++)
    labels[i] = (float) (100 + i);
  /* nothing given yet */
  assert_forward_fails (net, (const char *const[]) { "layer 'mem' (MemoryData)", NULL });
  g_assert_false (ct_memory_data_layer_reset (layer, data, labels, 3, &error));
  g_assert_nonnull (strstr (error->message, "multiple of batch_size"));
  g_clear_error (&error);
  g_assert_true (ct_memory_data_layer_reset (layer, data, labels, 6, &error));
  for (int f = 0; f < 4; f++)
    {
      const float *d, *l;
      int first = (f * 2) % 6;

      forward_ok (net);
      d = ct_blob_cpu_data (ct_net_blob_by_name (net, "data"), NULL);
      l = ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL);
      g_assert_cmpfloat (l[0], ==, 100 + first);
      g_assert_cmpfloat (l[1], ==, 101 + first);
      for (int i = 0; i < 12; i++)
        g_assert_cmpfloat (d[i], ==, first * 6 + i);
    }
  /* only MemoryData layers take data */
  {
    g_autoptr (CtNet) other = build_ok (
      "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 1 } } }",
      CAFFE__PHASE__TRAIN, 1);

    g_assert_false (ct_memory_data_layer_reset (ct_net_layer_by_name (other, "in"), data,
                                                labels, 2, &error));
    g_clear_error (&error);
  }
  /* bad parameters */
  {
    CtNet *failed = ct_test_build_net ("layer { name: 'mem' type: 'MemoryData' top: 'data'\n"
                                       "  memory_data_param { batch_size: 2 } }",
                                       CAFFE__PHASE__TRAIN, 1, &error);
    g_assert_null (failed);
    g_assert_nonnull (strstr (error->message, "memory_data_param"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/data-layers/data/round-trip", test_data_round_trip);
  g_test_add_func ("/engine/data-layers/data/prefetch-same-batches", test_data_prefetch_same_batches);
  g_test_add_func ("/engine/data-layers/data/rand-skip", test_data_rand_skip);
  g_test_add_func ("/engine/data-layers/data/encoded", test_data_encoded);
  g_test_add_func ("/engine/data-layers/data/bad-inputs", test_data_bad_inputs);
  g_test_add_func ("/engine/data-layers/image-data/round-trip", test_image_data);
  g_test_add_func ("/engine/data-layers/image-data/bad-inputs", test_image_data_bad_inputs);
  g_test_add_func ("/engine/data-layers/memory-data", test_memory_data);
  return g_test_run ();
}
