/* blob-test-util.c: blob builders and checks the CtBlob tests share. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "blob.h"
#include "engine-error.h"
#include "fake-device.h"
#include "blob-test-util.h"

CtBlob *
ct_test_blob_of (guint n_axes, ...)
{
  gint64 dims[CT_BLOB_MAX_AXES];
  va_list args;
  g_autoptr (GError) error = NULL;
  CtBlob *blob;

  va_start (args, n_axes);
  for (guint i = 0; i < n_axes; i++)
    dims[i] = va_arg (args, gint64);
  va_end (args);
  blob = ct_blob_new_with_shape (dims, n_axes, &error);
  g_assert_no_error (error);
  return blob;
}

void
ct_test_assert_shape_string (const CtBlob *blob, const char *want)
{
  g_autofree char *shape = ct_blob_shape_string (blob);

  g_assert_cmpstr (shape, ==, want);
}

/* Data = 0, 1, 2, ... (times SCALE); diff likewise with DIFF_SCALE. */
void
ct_test_fill_pattern (CtBlob *blob, float scale, float diff_scale)
{
  float *data = ct_blob_mutable_cpu_data (blob, NULL);
  float *diff = ct_blob_mutable_cpu_diff (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    {
      data[i] = scale * (float) i;
      diff[i] = diff_scale * (float) i;
    }
}
