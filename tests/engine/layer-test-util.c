/* layer-test-util.c: the blob builders of layer-test-util.h. */
#include <stdarg.h>
#include <string.h>

#include <stdlib.h>

#include "device.h"
#include "layer-test-util.h"
#include "rng.h"

CtBlob *
ct_test_blob_gaussian (const gint64 *dims, guint n_axes, guint64 seed)
{
  g_autoptr (CtRng) rng = ct_rng_new (seed);
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, NULL);

  g_assert_nonnull (blob);
  ct_rng_gaussian (rng, ct_blob_count (blob), 0.0f, 1.0f, ct_blob_mutable_cpu_data (blob, NULL));
  return blob;
}

CtBlob *
ct_test_blob_uniform (const gint64 *dims, guint n_axes, float lo, float hi, guint64 seed)
{
  g_autoptr (CtRng) rng = ct_rng_new (seed);
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, NULL);

  g_assert_nonnull (blob);
  ct_rng_uniform (rng, ct_blob_count (blob), lo, hi, ct_blob_mutable_cpu_data (blob, NULL));
  return blob;
}

static void
read_dims (va_list args, guint n_axes, gint64 *dims)
{
  g_assert_cmpuint (n_axes, <=, CT_BLOB_MAX_AXES);
  for (guint i = 0; i < n_axes; i++)
    dims[i] = va_arg (args, int);
}

CtBlob *
ct_test_gaussian (guint64 seed, guint n_axes, ...)
{
  gint64 dims[CT_BLOB_MAX_AXES];
  va_list args;

  va_start (args, n_axes);
  read_dims (args, n_axes, dims);
  va_end (args);
  return ct_test_blob_gaussian (dims, n_axes, seed);
}

CtBlob *
ct_test_uniform (guint64 seed, float lo, float hi, guint n_axes, ...)
{
  gint64 dims[CT_BLOB_MAX_AXES];
  va_list args;

  va_start (args, n_axes);
  read_dims (args, n_axes, dims);
  va_end (args);
  return ct_test_blob_uniform (dims, n_axes, lo, hi, seed);
}

CtBlob *
ct_test_blob_with (const gint64 *dims, guint n_axes, const float *values)
{
  g_autoptr (GError) error = NULL;
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, &error);

  g_assert_no_error (error);
  memcpy (ct_blob_mutable_cpu_data (blob, NULL), values,
          (gsize) ct_blob_count (blob) * sizeof (float));
  return blob;
}

GPtrArray *
ct_test_blobs (CtBlob *first, ...)
{
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  va_list args;

  va_start (args, first);
  for (CtBlob *b = first; b != NULL; b = va_arg (args, CtBlob *))
    g_ptr_array_add (list, b);
  va_end (args);
  return list;
}

GPtrArray *
ct_test_borrowed (CtBlob *blob)
{
  GPtrArray *list = g_ptr_array_new ();

  g_ptr_array_add (list, blob);
  return list;
}

GPtrArray *
ct_test_empty_blobs (guint n)
{
  GPtrArray *list = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (list, ct_blob_new ());
  return list;
}

void
ct_test_assert_shape (CtBlob *blob, guint n_axes, ...)
{
  va_list args;

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, n_axes);
  va_start (args, n_axes);
  for (guint i = 0; i < n_axes; i++)
    g_assert_cmpint (ct_blob_get_shape (blob)[i], ==, va_arg (args, int));
  va_end (args);
}

void
ct_test_setup_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_setup (layer, bottom, top, &error))
    g_error ("setup failed: %s", error->message);
}

gboolean
ct_test_use_gpu (void)
{
  static int use_gpu = -1;

  if (use_gpu < 0)
    {
      use_gpu = g_strcmp0 (g_getenv ("CT_TEST_DEVICE"), "gpu") == 0;
      if (use_gpu && ct_cuda_available () != CT_STATUS_OK)
        {
          g_printerr ("no usable GPU (%s): skipped\n", ct_cuda_last_error ());
          exit (77);
        }
    }
  return use_gpu;
}

/* Decided before any test runs, so that a GPU run without a GPU skips
 * whole, whichever of its tests would have asked first. */
__attribute__ ((constructor)) static void
decide_device (void)
{
  ct_test_use_gpu ();
}

void
ct_test_forward_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error))
    g_error ("forward failed: %s", error->message);
}
