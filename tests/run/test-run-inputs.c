/* test-run-inputs.c: the Input blob values the window prepares
 * (app/run/run-inputs.h), without a display: a 2×2 PNG written here
 * through the transform (grey and colour, BGR and RGB, scale and mean,
 * resize), a folder in name order with repetition, errors that name the
 * file, and the IDX reader on Debian's Fashion-MNIST test set. */
#include <string.h>
#include <glib/gstdio.h>

#include "image.h"
#include "run-inputs.h"
#include "test-files.h"

/* A 2×2 colour image, blue, green, red planes (as CtPixels holds them):
 * pixel (0,0) is red 200 green 100 blue 0, and so on. */
static const guint8 bgr_2x2[12] = {
  0, 10, 20, 30,      /* blue */
  100, 110, 120, 130, /* green */
  200, 210, 220, 230, /* red */
};

static void
write_png (const char *path, const guint8 *bytes, int channels)
{
  CtPixels pixels = { .channels = channels, .height = 2, .width = 2, .u8 = bytes };
  g_autoptr (GBytes) png = ct_pixels_encode_png (&pixels);
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (png);
  g_file_set_contents (path, g_bytes_get_data (png, NULL), (gssize) g_bytes_get_size (png),
                       &error);
  g_assert_no_error (error);
}

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("ct-inputs-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
test_colour (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.png", NULL);
  CtInputTransform t;
  float out[12];
  g_autoptr (GError) error = NULL;

  write_png (path, bgr_2x2, 3);
  ct_input_transform_init (&t);
  t.scale = 0.5f;
  t.mean[0] = 10; /* blue */
  t.mean[1] = 20;
  t.mean[2] = 40;
  /* BGR: (value − mean[c]) × 0.5, channel 0 blue */
  g_assert_true (ct_input_load_image (path, &t, 3, 2, 2, out, &error));
  g_assert_no_error (error);
  {
    const float want[12] = { -5, 0, 5, 10, 40, 45, 50, 55, 80, 85, 90, 95 };
    for (int i = 0; i < 12; i++)
      g_assert_cmpfloat_with_epsilon (out[i], want[i], 1e-5);
  }
  /* RGB: channel 0 red, minus mean[0] */
  t.order = CT_INPUT_ORDER_RGB;
  g_assert_true (ct_input_load_image (path, &t, 3, 2, 2, out, &error));
  {
    const float want[12] = { 95, 100, 105, 110, 40, 45, 50, 55, -20, -15, -10, -5 };
    for (int i = 0; i < 12; i++)
      g_assert_cmpfloat_with_epsilon (out[i], want[i], 1e-5);
  }
  /* resized to 1×1, pixel centres aligned: the mean of the four */
  ct_input_transform_init (&t);
  g_assert_true (ct_input_load_image (path, &t, 3, 1, 1, out, &error));
  g_assert_cmpfloat_with_epsilon (out[0], 15, 1e-5);
  g_assert_cmpfloat_with_epsilon (out[1], 115, 1e-5);
  g_assert_cmpfloat_with_epsilon (out[2], 215, 1e-5);
  ct_test_remove_tree (dir);
}

static void
test_grey (void)
{
  static const guint8 grey[4] = { 0, 64, 128, 255 };
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "g.png", NULL);
  CtInputTransform t;
  float out[4];
  g_autoptr (GError) error = NULL;

  write_png (path, grey, 1);
  ct_input_transform_init (&t);
  t.scale = 1.0f / 256;
  g_assert_true (ct_input_load_image (path, &t, 1, 2, 2, out, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (out[i], grey[i] / 256.0f, 1e-6);
  ct_test_remove_tree (dir);
}

static void
test_folder (void)
{
  g_autofree char *dir = make_dir ();
  const char *names[] = { "b.png", "a.png", "c.png" };
  const gint64 dims[4] = { 5, 1, 2, 2 };
  CtInputTransform t;
  g_autofree float *values = NULL;
  g_autoptr (GError) error = NULL;

  for (int i = 0; i < 3; i++)
    {
      /* b.png is all 1, a.png all 0, c.png all 2 */
      guint8 bytes[4];
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      memset (bytes, i == 0 ? 1 : i == 1 ? 0 : 2, sizeof bytes);
      write_png (path, bytes, 1);
    }
  {
    /* not an image: left out */
    g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);
    g_file_set_contents (other, "x", 1, NULL);
    values = ct_input_load_path (dir, (ct_input_transform_init (&t), &t), dims, 4, &error);
    g_remove (other);
  }
  g_assert_no_error (error);
  /* a, b, c in name order, then a, b again */
  {
    const float want[5] = { 0, 1, 2, 0, 1 };
    for (int n = 0; n < 5; n++)
      for (int i = 0; i < 4; i++)
        g_assert_cmpfloat (values[n * 4 + i], ==, want[n]);
  }
  ct_test_remove_tree (dir);
}

static void
test_bad_file (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "broken.png", NULL);
  const gint64 dims[4] = { 1, 3, 2, 2 };
  CtInputTransform t;
  g_autoptr (GError) error = NULL;
  float *values;

  g_file_set_contents (path, "not a png", -1, NULL);
  ct_input_transform_init (&t);
  values = ct_input_load_path (path, &t, dims, 4, &error);
  g_assert_null (values);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "broken.png"));
  g_clear_error (&error);
  /* in a folder too */
  values = ct_input_load_path (dir, &t, dims, 4, &error);
  g_assert_null (values);
  g_assert_nonnull (strstr (error->message, "broken.png"));
  g_clear_error (&error);
  g_remove (path);
  /* an empty folder, and a missing file */
  values = ct_input_load_path (dir, &t, dims, 4, &error);
  g_assert_null (values);
  g_assert_nonnull (strstr (error->message, dir));
  g_clear_error (&error);
  values = ct_input_load_path (path, &t, dims, 4, &error);
  g_assert_null (values);
  g_assert_nonnull (strstr (error->message, "broken.png"));
  ct_test_remove_tree (dir);
}

/* The first label of t10k is 9 and the first image's pixels sum to 33456
 * (python3: gzip.open(labels).read()[8] and sum(images[16:16+784])). */
static void
test_fashion (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = NULL;
  const gint64 dims[4] = { 2, 1, 28, 28 };
  const guint items[1] = { 0 };
  g_autofree float *values = NULL;
  g_autofree float *labels = NULL;
  double sum = 0;
  guint64 bytes = 0;
  g_autofree char *images = g_build_filename (CT_FASHION_DIR, CT_FASHION_IMAGES, NULL);

  if (!g_file_test (images, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the dataset-fashion-mnist package is not installed");
      return;
    }
  set = ct_fashion_set_load (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (set->count, ==, 10000);
  g_assert_cmpuint (set->rows, ==, 28);
  g_assert_cmpuint (set->cols, ==, 28);
  g_assert_cmpuint (set->labels[0], ==, 9);
  g_assert_cmpuint (set->labels[1], ==, 2);
  for (int i = 0; i < 784; i++)
    bytes += set->pixels[i];
  g_assert_cmpuint (bytes, ==, 33456);
  values = ct_fashion_set_batch (set, items, 1, dims, 4, 1.0f / 256, &labels, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 2 * 784; i++)
    sum += values[i];
  g_assert_cmpfloat_with_epsilon (sum, 2 * 33456 / 256.0, 1e-3);
  g_assert_cmpfloat (labels[0], ==, 9);
  g_assert_cmpfloat (labels[1], ==, 9);
  /* a shape that does not fit */
  {
    const gint64 wrong[4] = { 1, 3, 28, 28 };
    g_assert_null (ct_fashion_set_batch (set, items, 1, wrong, 4, 1, NULL, &error));
    g_assert_nonnull (error);
  }
}

static void
test_fashion_missing (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtFashionSet) set = ct_fashion_set_load ("/nonexistent-dir", &error);

  g_assert_null (set);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/" CT_FASHION_IMAGES));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/run-inputs/colour", test_colour);
  g_test_add_func ("/run/run-inputs/grey", test_grey);
  g_test_add_func ("/run/run-inputs/folder", test_folder);
  g_test_add_func ("/run/run-inputs/bad-file", test_bad_file);
  g_test_add_func ("/run/run-inputs/fashion", test_fashion);
  g_test_add_func ("/run/run-inputs/fashion-missing", test_fashion_missing);
  return g_test_run ();
}
