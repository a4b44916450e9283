/* test-source-transform.c: pictures made into a data layer's samples
 * through its transform_param (app/run/source-transform.h), as the Data
 * layer makes its own: a mean file is subtracted at the same uncropped
 * position, then × scale, with a centred crop and never a mirror; a
 * relative mean_file is taken from the net's folder; an image file is
 * read at the mean's size when it is cropped; Fashion-MNIST items go the
 * same way (when Debian's dataset-fashion-mnist is installed); samples of
 * the wrong shape are an error. */
#include <string.h>
#include <glib/gstdio.h>

#include "image.h"
#include "runner.h"
#include "source-transform.h"

/* A mean file of 1×H×W values MEAN[i] written in DIR. */
static char *
write_mean (const char *dir, int height, int width, const float *mean)
{
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
  int64_t dims[4] = { 1, 1, height, width };
  char *path = g_build_filename (dir, "mean.binaryproto", NULL);
  gsize size;
  g_autofree guint8 *bytes = NULL;

  shape.n_dim = 4;
  shape.dim = dims;
  proto.shape = &shape;
  proto.n_data = (gsize) height * width;
  proto.data = (float *) mean;
  size = caffe__blob_proto__get_packed_size (&proto);
  bytes = g_malloc (size);
  caffe__blob_proto__pack (&proto, bytes);
  g_assert_true (g_file_set_contents (path, (const char *) bytes, (gssize) size, NULL));
  return path;
}

static void
test_mean_file_crop (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ct-source-XXXXXX", NULL);
  float mean[36];
  guint8 pixels[2 * 36];
  g_autofree char *mean_path = NULL;
  Caffe__TransformationParameter tp = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  g_autoptr (GError) error = NULL;
  g_autofree float *out = NULL;
  gint64 shape[3];

  for (int i = 0; i < 36; i++)
    {
      mean[i] = (float) i * 0.5f;
      pixels[i] = (guint8) (i * 7);
      pixels[36 + i] = (guint8) (255 - i);
    }
  mean_path = write_mean (dir, 6, 6, mean);
  tp.mean_file = mean_path;
  tp.has_scale = TRUE;
  tp.scale = 0.25f;
  tp.crop_size = 4;
  tp.has_mirror = TRUE;
  tp.mirror = TRUE;   /* a chosen picture is never flipped */
  out = ct_source_transform_pixels (&tp, pixels, 2, 1, 6, 6, "data", shape, &error);
  g_assert_no_error (error);
  g_assert_cmpint (shape[0], ==, 1);
  g_assert_cmpint (shape[1], ==, 4);
  g_assert_cmpint (shape[2], ==, 4);
  /* TEST crops in the centre: offset (6 − 4) / 2 = 1 */
  for (int n = 0; n < 2; n++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++)
        {
          int at = (y + 1) * 6 + x + 1;
          g_assert_cmpfloat (out[n * 16 + y * 4 + x], ==, (pixels[n * 36 + at] - mean[at]) * 0.25f);
        }

  /* the mean does not fit pictures of another size */
  g_clear_pointer (&out, g_free);
  out = ct_source_transform_pixels (&tp, pixels, 1, 1, 5, 5, "data", shape, &error);
  g_assert_null (out);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "mean"));
  g_clear_error (&error);

  /* an image file, grey 100, 3×3: read at the mean's 6×6, then cropped */
  {
    g_autofree char *png_path = g_build_filename (dir, "grey.png", NULL);
    guint8 grey[9];
    CtPixels px = { .channels = 1, .height = 3, .width = 3, .u8 = grey };
    g_autoptr (GBytes) png = NULL;
    gint64 dims[3] = { 1, 4, 4 };

    memset (grey, 100, sizeof grey);
    png = ct_pixels_encode_png (&px);
    g_assert_true (g_file_set_contents (png_path, g_bytes_get_data (png, NULL),
                                        (gssize) g_bytes_get_size (png), NULL));
    out = ct_source_transform_path (&tp, png_path, 1, dims, "data", &error);
    g_assert_no_error (error);
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++)
        g_assert_cmpfloat_with_epsilon (out[y * 4 + x], (100 - mean[(y + 1) * 6 + x + 1]) * 0.25f,
                                        1e-6);
    g_clear_pointer (&out, g_free);
    /* samples the layer does not have */
    dims[1] = dims[2] = 5;
    out = ct_source_transform_path (&tp, png_path, 1, dims, "data", &error);
    g_assert_null (out);
    g_assert_error (error, CT_RUN_ERROR, CT_RUN_ERROR_ITEM_SIZE);
    g_clear_error (&error);
    g_unlink (png_path);
  }

  /* a relative mean_file is the net's folder's */
  {
    Caffe__TransformationParameter rel = CAFFE__TRANSFORMATION_PARAMETER__INIT;
    Caffe__TransformationParameter *resolved;

    rel.mean_file = (char *) "mean.binaryproto";
    resolved = ct_source_transform_resolve (&rel, dir);
    g_assert_cmpstr (resolved->mean_file, ==, mean_path);
    protobuf_c_message_free_unpacked (&resolved->base, NULL);
    g_assert_null (ct_source_transform_resolve (NULL, dir));
  }
  g_unlink (mean_path);
  g_rmdir (dir);
}

static void
test_fashion_mean (void)
{
  g_autofree char *images = g_build_filename (CT_FASHION_DIR, CT_FASHION_IMAGES, NULL);
  g_autofree char *dir = g_dir_make_tmp ("ct-source-XXXXXX", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = NULL;
  g_autofree char *mean_path = NULL;
  g_autofree float *out = NULL;
  g_autofree float *labels = NULL;
  Caffe__TransformationParameter tp = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  const guint items[2] = { 23, 0 };
  const gint64 dims[3] = { 1, 28, 28 };
  float mean[784];

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the dataset-fashion-mnist package is not installed");
      return;
    }
  set = ct_fashion_set_load (NULL, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 784; i++)
    mean[i] = (float) (i % 97);
  mean_path = write_mean (dir, 28, 28, mean);
  tp.mean_file = mean_path;
  tp.has_scale = TRUE;
  tp.scale = 0.00390625f;
  out = ct_source_transform_fashion (&tp, set, items, 2, dims, &labels, "data", &error);
  g_assert_no_error (error);
  for (int n = 0; n < 2; n++)
    {
      const guint8 *px = set->pixels + (gsize) items[n] * 784;

      g_assert_cmpfloat (labels[n], ==, set->labels[items[n]]);
      for (int i = 0; i < 784; i++)
        g_assert_cmpfloat (out[n * 784 + i], ==, (px[i] - mean[i]) * 0.00390625f);
    }
  g_unlink (mean_path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/source-transform/mean-file-crop", test_mean_file_crop);
  g_test_add_func ("/source-transform/fashion-mean", test_fashion_mean);
  return g_test_run ();
}
