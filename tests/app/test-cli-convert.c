/* test-cli-convert.c: `cortado-cli convert` and `compute-mean` run as a
 * user runs them (CT_CLI names the binary), with the databases they write
 * read back through a Data layer in a net: MNIST-format IDX files (plain
 * and gzip) to LMDB and LevelDB, PNG images (raw colour, grey, resized,
 * encoded, shuffled) with Caffe's keys, the mean image, Debian's
 * Fashion-MNIST test set when installed, and bad inputs that fail with the
 * file named and leave no half-written database behind. */
#include <string.h>
#include <zlib.h>
#include <glib/gstdio.h>

#include "cli-run.h"
#include "binary-io.h"
#include "caffe.pb-c.h"
#include "data-test-util.h"
#include "datum.h"
#include "db.h"
#include "net.h"

#define FASHION_DIR "/usr/share/datasets/fashion-mnist"

static void
put_be32 (GByteArray *out, guint32 v)
{
  guint8 b[4] = { v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };
  g_byte_array_append (out, b, 4);
}

/* Write BYTES to PATH, gzip-compressed when the name ends in .gz. */
static void
save (const char *path, GByteArray *bytes)
{
  if (g_str_has_suffix (path, ".gz"))
    {
      gzFile f = gzopen (path, "wb");
      g_assert_nonnull (f);
      g_assert_cmpint (gzwrite (f, bytes->data, bytes->len), ==, (int) bytes->len);
      gzclose (f);
    }
  else
    g_assert_true (g_file_set_contents (path, (const char *) bytes->data, bytes->len, NULL));
}

static guint8
mnist_pixel (guint i, guint k)
{
  return (guint8) ((i * 31 + k * 7) % 256);
}

/* N images of ROWS×COLS (pixels mnist_pixel) with labels (i * 3) % 10;
 * the images file holds only KEEP of them when KEEP < N. */
static void
write_idx (const char *images, const char *labels, guint n, guint rows, guint cols, guint keep)
{
  g_autoptr (GByteArray) im = g_byte_array_new ();
  g_autoptr (GByteArray) lb = g_byte_array_new ();

  put_be32 (im, 2051);
  put_be32 (im, n);
  put_be32 (im, rows);
  put_be32 (im, cols);
  put_be32 (lb, 2049);
  put_be32 (lb, n);
  for (guint i = 0; i < n; i++)
    {
      guint8 label = (guint8) ((i * 3) % 10);

      for (guint k = 0; k < rows * cols && i < keep; k++)
        {
          guint8 p = mnist_pixel (i, k);
          g_byte_array_append (im, &p, 1);
        }
      g_byte_array_append (lb, &label, 1);
    }
  save (images, im);
  save (labels, lb);
}

static CtNet *
data_net (const char *source, const char *backend, guint batch, const char *transform)
{
  g_autofree char *text = g_strdup_printf (
    "layer { name: 'data' type: 'Data' top: 'data' top: 'label'\n"
    "  transform_param { %s }\n"
    "  data_param { source: '%s' backend: %s batch_size: %u } }", transform, source, backend,
    batch);
  g_autoptr (GError) error = NULL;
  CtNet *net = ct_test_build_net (text, CAFFE__PHASE__TEST, 1, &error);

  g_assert_no_error (error);
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);
  return net;
}

static void
test_convert_mnist (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *images = g_build_filename (dir, "images-idx3-ubyte.gz", NULL);
  g_autofree char *labels = g_build_filename (dir, "labels-idx1-ubyte", NULL);
  const char *backends[2] = { "lmdb", "leveldb" };

  write_idx (images, labels, 6, 4, 5, 6);
  for (int b = 0; b < 2; b++)
    {
      g_autofree char *out = g_strdup_printf ("%s/mnist_%s", dir, backends[b]);
      g_auto (CtCliRun) run = ct_cli_run ("convert", "mnist", images, labels, out, "--backend", backends[b],
                              NULL);
      g_autoptr (CtNet) net = NULL;
      const float *d, *l;

      g_assert_cmpint (run.status, ==, 0);
      g_assert_nonnull (strstr (run.out, "wrote 6 records"));
      net = data_net (out, b == 0 ? "LMDB" : "LEVELDB", 6, "scale: 0.00390625");
      d = ct_blob_cpu_data (ct_net_blob_by_name (net, "data"), NULL);
      l = ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL);
      g_assert_cmpint (ct_blob_get_shape (ct_net_blob_by_name (net, "data"))[1], ==, 1);
      g_assert_cmpint (ct_blob_get_shape (ct_net_blob_by_name (net, "data"))[2], ==, 4);
      g_assert_cmpint (ct_blob_get_shape (ct_net_blob_by_name (net, "data"))[3], ==, 5);
      for (guint i = 0; i < 6; i++)
        {
          g_assert_cmpfloat (l[i], ==, (float) ((i * 3) % 10));
          for (guint k = 0; k < 20; k++)
            g_assert_cmpfloat (d[i * 20 + k], ==, mnist_pixel (i, k) * 0.00390625f);
        }
    }

  /* the mean image of the LMDB, and each channel's mean printed */
  {
    g_autofree char *db = g_strdup_printf ("%s/mnist_lmdb", dir);
    g_autofree char *mean_path = g_build_filename (dir, "mean.binaryproto", NULL);
    g_auto (CtCliRun) run = ct_cli_run ("compute-mean", db, mean_path, NULL);
    g_autoptr (GError) error = NULL;
    Caffe__BlobProto *mean;
    double total = 0.0;
    g_autofree char *line = NULL;
    char number[G_ASCII_DTOSTR_BUF_SIZE];

    g_assert_cmpint (run.status, ==, 0);
    mean = (Caffe__BlobProto *) ct_binary_read_file (&caffe__blob_proto__descriptor,
                                                     mean_path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (mean->num, ==, 1);
    g_assert_cmpint (mean->channels, ==, 1);
    g_assert_cmpint (mean->height, ==, 4);
    g_assert_cmpint (mean->width, ==, 5);
    g_assert_cmpuint (mean->n_data, ==, 20);
    for (guint k = 0; k < 20; k++)
      {
        double sum = 0.0;

        for (guint i = 0; i < 6; i++)
          sum += mnist_pixel (i, k);
        g_assert_cmpfloat_with_epsilon (mean->data[k], sum / 6.0, 1e-4);
        total += sum / 6.0;
      }
    g_ascii_formatd (number, sizeof number, "%.6g", total / 20.0);
    line = g_strdup_printf ("mean_value channel 0: %s", number);
    g_assert_nonnull (strstr (run.out, line));
    protobuf_c_message_free_unpacked (&mean->base, NULL);
  }
  ct_test_remove_tree (dir);
}

static void
test_convert_mnist_bad_inputs (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *images = g_build_filename (dir, "img.gz", NULL);
  g_autofree char *labels = g_build_filename (dir, "lab", NULL);
  g_autofree char *out = g_build_filename (dir, "out_lmdb", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.gz", NULL);

  /* the images file ends in image 3 of 5: an error, and no database left */
  write_idx (images, labels, 5, 3, 3, 3);
  {
    g_auto (CtCliRun) run = ct_cli_run ("convert", "mnist", images, labels, out, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "img.gz"));
    g_assert_nonnull (strstr (run.err, "image 3 of 5"));
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  /* labels given as images: the magic number */
  {
    g_auto (CtCliRun) run = ct_cli_run ("convert", "mnist", labels, labels, out, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "lab"));
    g_assert_nonnull (strstr (run.err, "2051"));
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  {
    g_auto (CtCliRun) run = ct_cli_run ("convert", "mnist", missing, labels, out, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "missing.gz"));
  }
  /* counts that differ */
  write_idx (images, labels, 4, 3, 3, 4);
  {
    g_autoptr (GByteArray) lb = g_byte_array_new ();
    guint8 zero[3] = { 0 };
    g_auto (CtCliRun) run = { 0 };

    put_be32 (lb, 2049);
    put_be32 (lb, 3);
    g_byte_array_append (lb, zero, 3);
    save (labels, lb);
    run = ct_cli_run ("convert", "mnist", images, labels, out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "4 images"));
    g_assert_nonnull (strstr (run.err, "3 labels"));
  }
  /* an existing output is never touched */
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
  {
    g_autofree char *keep = g_build_filename (out, "keep.txt", NULL);
    g_auto (CtCliRun) run = { 0 };

    g_assert_true (g_file_set_contents (keep, "mine", -1, NULL));
    run = ct_cli_run ("convert", "mnist", images, labels, out, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "already exists"));
    g_assert_true (g_file_test (keep, G_FILE_TEST_EXISTS));
  }
  /* command-line mistakes */
  {
    g_auto (CtCliRun) a = ct_cli_run ("convert", "mnist", images, labels, "x", "--backend", "rocksdb", NULL);
    g_auto (CtCliRun) b = ct_cli_run ("convert", "mnist", images, labels, "x", "--gray", NULL);
    g_auto (CtCliRun) c = ct_cli_run ("convert", "pictures", "a", "b", "c", NULL);
    g_auto (CtCliRun) d = ct_cli_run ("convert", "mnist", images, NULL);
    g_auto (CtCliRun) e = ct_cli_run ("convert", "images", "l", "r", "o", "--resize", "5", NULL);
    g_auto (CtCliRun) f = ct_cli_run ("compute-mean", out, NULL);

    g_assert_cmpint (a.status, ==, 2);
    g_assert_nonnull (strstr (a.err, "rocksdb"));
    g_assert_cmpint (b.status, ==, 2);
    g_assert_cmpint (c.status, ==, 2);
    g_assert_cmpint (d.status, ==, 2);
    g_assert_cmpint (e.status, ==, 2);
    g_assert_nonnull (strstr (e.err, "--resize"));
    g_assert_cmpint (f.status, ==, 2);
  }
  /* compute-mean on a folder that is no database */
  {
    g_autofree char *mean = g_build_filename (dir, "m.binaryproto", NULL);
    g_auto (CtCliRun) run = ct_cli_run ("compute-mean", missing, mean, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "missing.gz"));
    g_assert_false (g_file_test (mean, G_FILE_TEST_EXISTS));
  }
  ct_test_remove_tree (dir);
}

/* Four 4×6 PNGs img0..img3 under DIR/pics and a list naming them with
 * labels 20..23. Returns the list's path. */
static char *
write_images (const char *dir)
{
  g_autofree char *pics = g_build_filename (dir, "pics", NULL);
  g_autoptr (GString) lines = g_string_new (NULL);
  char *list = g_build_filename (dir, "list.txt", NULL);

  g_assert_cmpint (g_mkdir (pics, 0755), ==, 0);
  for (int i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("img%d.png", i);
      g_autofree char *path = g_build_filename (pics, name, NULL);

      ct_test_write_png (path, 4, 6, (guint8) (40 * i), 7, 90);
      g_string_append_printf (lines, "%s %d\r\n", name, 20 + i);
    }
  g_assert_true (g_file_set_contents (list, lines->str, -1, NULL));
  return list;
}

static GPtrArray *
db_keys (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = ct_db_open (path, CT_DB_LMDB, CT_DB_READ, &error);
  g_autoptr (CtDbCursor) cursor = NULL;
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);

  g_assert_no_error (error);
  cursor = ct_db_cursor_new (db, &error);
  for (; ct_db_cursor_valid (cursor); ct_db_cursor_next (cursor, NULL))
    g_ptr_array_add (keys, ct_db_cursor_key_text (cursor));
  return keys;
}

static void
test_convert_images (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *list = write_images (dir);
  g_autofree char *root = g_build_filename (dir, "pics", NULL);
  const char *variants[] = { "raw", "gray", "resize", "encoded", "encoded-resize", "shuffle" };

  for (gsize v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      g_autofree char *out = g_strdup_printf ("%s/out_%s", dir, variants[v]);
      const char *name = variants[v];
      g_auto (CtCliRun) run = { 0 };
      g_autoptr (CtNet) net = NULL;
      g_autoptr (GPtrArray) keys = NULL;
      gboolean gray = strcmp (name, "gray") == 0;
      gboolean resized = g_str_has_suffix (name, "resize");
      CtBlob *data;
      const float *d, *l;
      int h = resized ? 2 : 4, w = resized ? 3 : 6;

      if (strcmp (name, "raw") == 0)
        run = ct_cli_run ("convert", "images", list, root, out, NULL);
      else if (gray)
        run = ct_cli_run ("convert", "images", list, root, out, "--gray", NULL);
      else if (strcmp (name, "resize") == 0)
        run = ct_cli_run ("convert", "images", "--resize", "2", "3", list, root, out, NULL);
      else if (strcmp (name, "encoded") == 0)
        run = ct_cli_run ("convert", "images", list, root, out, "--encoded", NULL);
      else if (strcmp (name, "encoded-resize") == 0)
        run = ct_cli_run ("convert", "images", list, root, out, "--encoded", "--resize", "2", "3",
                   NULL);
      else
        run = ct_cli_run ("convert", "images", "--shuffle", list, root, out, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_nonnull (strstr (run.out, "wrote 4 records"));

      /* keys: the line index, then the listed path */
      keys = db_keys (out);
      g_assert_cmpuint (keys->len, ==, 4);
      for (guint i = 0; i < 4; i++)
        {
          g_autofree char *prefix = g_strdup_printf ("%08u_img", i);
          g_assert_true (g_str_has_prefix (keys->pdata[i], prefix));
          g_assert_true (g_str_has_suffix (keys->pdata[i], ".png"));
        }

      net = data_net (out, "LMDB", 4, "");
      data = ct_net_blob_by_name (net, "data");
      g_assert_cmpint (ct_blob_get_shape (data)[1], ==, gray ? 1 : 3);
      g_assert_cmpint (ct_blob_get_shape (data)[2], ==, h);
      g_assert_cmpint (ct_blob_get_shape (data)[3], ==, w);
      d = ct_blob_cpu_data (data, NULL);
      l = ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL);
      for (guint n = 0; n < 4; n++)
        {
          /* the image index, from the key's name (shuffle reorders) */
          const char *key = keys->pdata[n];
          int i = key[strlen (key) - 5] - '0';
          const float *img = d + n * (gray ? 1 : 3) * h * w;

          g_assert_cmpfloat (l[n], ==, 20 + i);
          if (!resized && !gray)
            {
              /* (y=3, x=5): blue 90+8, green 7+5, red 40i+3 */
              g_assert_cmpfloat (img[0 * 24 + 3 * 6 + 5], ==, 98);
              g_assert_cmpfloat (img[1 * 24 + 3 * 6 + 5], ==, 12);
              g_assert_cmpfloat (img[2 * 24 + 3 * 6 + 5], ==, 40 * i + 3);
            }
          else if (gray)
            g_assert_cmpfloat (img[3 * 6 + 5], ==,
                               (float) (((40 * i + 3) * 4899 + 12 * 9617 + 98 * 1868 + 8192)
                                        >> 14));
        }
      if (strcmp (name, "shuffle") == 0)
        {
          gboolean moved = FALSE;
          for (guint n = 0; n < 4; n++)
            moved |= !g_str_has_suffix (keys->pdata[n],
                                        (const char *[]) { "img0.png", "img1.png", "img2.png",
                                                           "img3.png" }[n]);
          g_assert_true (moved);
        }
    }
  ct_test_remove_tree (dir);
}

static void
test_convert_images_bad_inputs (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *list = write_images (dir);
  g_autofree char *root = g_build_filename (dir, "pics", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  g_autofree char *fake = g_build_filename (root, "img2.png", NULL);

  /* an image that is not one: named with its list line, nothing left */
  g_assert_true (g_file_set_contents (fake, "no png here", -1, NULL));
  {
    g_auto (CtCliRun) run = ct_cli_run ("convert", "images", list, root, out, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "list.txt:3"));
    g_assert_nonnull (strstr (run.err, "img2.png"));
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  g_assert_true (g_file_set_contents (list, "img0.png 1\nimg1.png one\n", -1, NULL));
  {
    g_auto (CtCliRun) run = ct_cli_run ("convert", "images", list, root, out, NULL);

    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "list.txt:2"));
    g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  }
  ct_test_remove_tree (dir);
}

/* Debian's Fashion-MNIST test set: 10,000 records, the first an ankle
 * boot (label 9) whose pixels sum to 33456. */
static void
test_convert_fashion (void)
{
  g_autofree char *images = g_build_filename (FASHION_DIR, "t10k-images-idx3-ubyte.gz", NULL);
  g_autofree char *labels = g_build_filename (FASHION_DIR, "t10k-labels-idx1-ubyte.gz", NULL);
  g_autofree char *dir = NULL, *out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = NULL;
  g_autoptr (CtDbCursor) cursor = NULL;
  guint count = 0;

  if (!g_file_test (images, G_FILE_TEST_EXISTS) || !g_file_test (labels, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("dataset-fashion-mnist is not installed");
      return;
    }
  dir = ct_test_make_temp_dir ();
  out = g_build_filename (dir, "fashion_test_lmdb", NULL);
  {
    g_auto (CtCliRun) run = ct_cli_run ("convert", "mnist", images, labels, out, NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "wrote 10000 records"));
  }
  db = ct_db_open (out, CT_DB_LMDB, CT_DB_READ, &error);
  g_assert_no_error (error);
  cursor = ct_db_cursor_new (db, &error);
  for (; ct_db_cursor_valid (cursor); ct_db_cursor_next (cursor, NULL), count++)
    if (count == 0)
      {
        g_autofree char *key = ct_db_cursor_key_text (cursor);
        gsize length;
        const guint8 *value = ct_db_cursor_value (cursor, &length);
        g_autoptr (Caffe__Datum) datum = ct_datum_parse (value, length, "record 0", &error);
        guint64 sum = 0;

        g_assert_no_error (error);
        g_assert_cmpstr (key, ==, "00000000");
        g_assert_cmpint (datum->label, ==, 9);
        g_assert_cmpint (datum->channels, ==, 1);
        g_assert_cmpint (datum->height, ==, 28);
        g_assert_cmpint (datum->width, ==, 28);
        g_assert_cmpuint (datum->data.len, ==, 784);
        for (gsize i = 0; i < datum->data.len; i++)
          sum += datum->data.data[i];
        g_assert_cmpuint (sum, ==, 33456);
      }
  g_assert_cmpuint (count, ==, 10000);
  g_clear_pointer (&cursor, ct_db_cursor_free);
  g_clear_pointer (&db, ct_db_free);
  /* and through the example's Data layer settings */
  {
    g_autoptr (CtNet) net = data_net (out, "LMDB", 100, "scale: 0.00390625");
    const float *d = ct_blob_cpu_data (ct_net_blob_by_name (net, "data"), NULL);
    const float *l = ct_blob_cpu_data (ct_net_blob_by_name (net, "label"), NULL);
    double sum = 0.0;

    g_assert_cmpfloat (l[0], ==, 9.0f);
    g_assert_cmpfloat (l[1], ==, 2.0f);
    for (int i = 0; i < 784; i++)
      sum += d[i];
    g_assert_cmpfloat_with_epsilon (sum, 33456.0 / 256.0, 1e-3);
  }
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/cli-convert/mnist", test_convert_mnist);
  g_test_add_func ("/app/cli-convert/mnist-bad-inputs", test_convert_mnist_bad_inputs);
  g_test_add_func ("/app/cli-convert/images", test_convert_images);
  g_test_add_func ("/app/cli-convert/images-bad-inputs", test_convert_images_bad_inputs);
  g_test_add_func ("/app/cli-convert/fashion-mnist", test_convert_fashion);
  return g_test_run ();
}
